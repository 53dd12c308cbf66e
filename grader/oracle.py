"""The grader's own trusted logic for the six stages, written from the spec (issue 2).

It never imports agtool.tools: a grader that borrowed the reference would grade
students against the reference's accidents. Two kinds of answer:

- every reason that really fails (`arg_reasons`, `result_reasons`): where the
  spec lets a student report any failing check, any of these is right;
- one answer, in the spec's order (`arg_reason`, `result_reason`, `call_tool`,
  `memo_key`, `call_memo`, `run`): what the grader installs into a submission
  for stage isolation (`bind`), and what it predicts for later stages.

The functions take the contract table as an argument; `bind` makes the versions
a submission calls, reading that module's TOOLS at call time.
"""

import difflib
import inspect
import json
import math
from typing import Any, Callable, Iterator

# The contract's types; "any" lets every value through (its JSON Schema says nothing: {}).
PY_TYPES = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict, "any": object}
JSON_TYPES = {"str": "string", "int": "integer", "float": "number",
              "bool": "boolean", "list": "array", "dict": "object"}
MAX_ATTEMPTS = 3
DEFAULT_REGION = "seoul"
MAX_INT_BITS = 14_000   # json.dumps refuses ints of over 4300 digits


# ── Stage 2 · argument check ─────────────────────────────────────────────────

def has_type(value: Any, kind: str) -> bool:
    """bool is only a bool (Python calls it an int); an int is also a float; anything is an any."""
    if isinstance(value, bool):
        return kind in ("bool", "any")
    if kind == "float":
        return isinstance(value, (int, float))
    return isinstance(value, PY_TYPES[kind])


def in_range(value: Any, spec: dict) -> bool:
    """Inclusive min and max, each optional; NaN is outside (every comparison with it is False)."""
    return not ("min" in spec and not value >= spec["min"]) and not ("max" in spec and not value <= spec["max"])


def _arg_failures(contract: dict, args: dict, every: bool, prefix: str = "") -> Iterator[str]:
    """Failing checks, in the spec's order; a nested arg's fields are named by dotted path.

    every=False: the checks a value of the wrong type skips (range, allowed, what is
    inside it) are skipped; every=True: any check that fails counts.
    """
    for arg in args:
        if arg not in contract:
            yield f"unknown:{prefix}{arg}"
    for arg, spec in contract.items():
        if arg in args:
            yield from _value_failures(spec, args[arg], prefix + arg, every)
        elif spec.get("required", True):
            yield f"missing:{prefix}{arg}"


def _value_failures(spec: dict, value: Any, field: str, every: bool) -> Iterator[str]:
    typed = has_type(value, spec["type"])
    if not typed:
        yield f"type:{field}"
        if not every:
            return
    if (typed or _is_number(value)) and not in_range(value, spec):
        yield f"range:{field}"
    if "allowed" in spec and value not in spec["allowed"]:
        yield f"allowed:{field}"
    if typed and "properties" in spec:     # a dict's named keys, checked as args are
        yield from _arg_failures(spec["properties"], value, every, field + ".")
    if typed and "items" in spec:          # each item as if it were the arg: named by its list
        for item in value:
            yield from _value_failures(spec["items"], item, field, every)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float))


def arg_reasons(contract: dict, args: dict) -> set[str]:
    """Every reason check_args may give (any check that really fails); empty when args are fine."""
    return set(_arg_failures(contract, args, every=True))


def arg_reason(contract: dict, args: dict) -> str | None:
    """The one reason, in the spec's order: unknown args, then each contract arg in table order."""
    return next(_arg_failures(contract, args, every=False), None)


# ── Stage 3 · result check ───────────────────────────────────────────────────

def _result_failures(returns: dict, value: Any, every: bool) -> Iterator[str]:
    if not isinstance(value, dict):
        yield "shape:result"
        return
    yield from _field_failures(returns, value, "", every)


def _field_failures(specs: dict, value: dict, prefix: str, every: bool) -> Iterator[str]:
    for key, spec in specs.items():
        path = prefix + key
        if key not in value or not has_type(value[key], spec["type"]):
            yield f"shape:{path}"
            continue
        item = value[key]
        if isinstance(item, (list, dict, str)):
            if not item and not spec.get("allow_empty", False):
                yield f"empty:{path}"
            if "max_len" in spec and len(item) > spec["max_len"]:
                yield f"too_big:{path}"
        elif not in_range(item, spec):
            yield f"range:{path}"
        for element in item if "items" in spec else ():
            if isinstance(element, dict):
                yield from _field_failures(spec["items"], element, path + ".", every)
                continue
            yield f"shape:{path}"
            if every:  # an item that is no dict lacks every key: naming one is right too
                yield from (f"shape:{path}.{name}" for name in spec["items"])


def result_reasons(returns: dict, value: Any) -> set[str]:
    """Every reason check_result may give for value; empty when it meets the spec."""
    return set(_result_failures(returns, value, every=True))


def result_reason(returns: dict, value: Any) -> str | None:
    """The one reason, keys in table order: shape, then empty / too_big / range, then items."""
    return next(_result_failures(returns, value, every=False), None)


# ── Stage 4 · door ───────────────────────────────────────────────────────────

def failure(reason: str) -> dict:
    return {"ok": False, "value": None, "error": reason}


def call_tool(tools: dict, name: Any, args: Any) -> dict:
    """The door over a TOOLS table: an envelope, never an Exception."""
    if not isinstance(name, str) or name not in tools:
        return failure(f"tool:unknown:{name}")
    if not isinstance(args, dict):
        return failure("args:shape:args")
    reason = arg_reason(tools[name]["args"], args)
    if reason:
        return failure(f"args:{reason}")
    try:
        value = tools[name]["fn"](**args)
    except Exception as error:
        return failure(f"tool:raised:{type(error).__name__}")
    reason = result_reason(tools[name]["returns"], value)
    if reason:
        return failure(f"result:{reason}")
    return {"ok": True, "value": value, "error": None}


def door_errors(expected: str | None, contract: dict, args: Any, returns: dict, value: Any) -> set:
    """Every right error where the one-answer door says `expected`.

    Args and results that fail several checks may be reported by any failing check.
    `value` is what the body returned (for result reasons).
    """
    if expected is not None and expected.startswith("args:") and isinstance(args, dict):
        return {f"args:{reason}" for reason in arg_reasons(contract, args)} | {expected}
    if expected is not None and expected.startswith("result:"):
        return {f"result:{reason}" for reason in result_reasons(returns, value)} | {expected}
    return {expected}


# ── Stage 5 · memo ───────────────────────────────────────────────────────────

def is_json(value: Any) -> bool:
    """Can JSON hold value exactly? (A tuple would come back a list, a key 1 as "1", NaN not at all.)"""
    kind = type(value)
    if value is None or kind is str or kind is bool:
        return True
    if kind is int:
        return value.bit_length() <= MAX_INT_BITS
    if kind is float:
        return math.isfinite(value)
    if kind is list:
        return all(map(is_json, value))
    if kind is dict:
        return all(type(key) is str and is_json(item) for key, item in value.items())
    return False


def memo_key(name: Any, args: Any) -> str | None:
    if not isinstance(name, str) or not is_json(args):
        return None
    return f"{name} {json.dumps(args, sort_keys=True)}"


def call_memo(tools: dict, name: Any, args: Any, memo: dict) -> dict:
    """Remember ok envelopes only, as JSON text, so no caller can change what a hit returns."""
    key = memo_key(name, args)
    if key is not None and key in memo:
        return json.loads(memo[key])
    envelope = call_tool(tools, name, args)
    if key is not None and envelope["ok"] and is_json(envelope["value"]):
        memo[key] = json.dumps(envelope)
    return envelope


# ── Stage 6 · retry graph ────────────────────────────────────────────────────

def _arg_field(reason: str) -> str:
    return reason.split(":", 2)[-1]


def _use_default_region(tools, tool, args, reason):
    return tool, {**args, "region": DEFAULT_REGION}


def _clamp(tools, tool, args, reason):
    arg = _arg_field(reason)
    spec, value = tools[tool]["args"][arg], args[arg]
    if "min" in spec and not value >= spec["min"]:
        value = spec["min"]
    elif "max" in spec and not value <= spec["max"]:
        value = spec["max"]
    return tool, {**args, arg: value}


def _rename_or_drop(tools, tool, args, reason):
    arg, args = _arg_field(reason), dict(args)
    value = args.pop(arg)
    free = [name for name in tools[tool]["args"] if name not in args]
    closest = difflib.get_close_matches(arg, free, n=1, cutoff=0.6)
    if closest:
        args[closest[0]] = value
    return tool, args


def _upgrade(tools, tool, args, reason):
    return (tools[tool]["upgrade"], args) if "upgrade" in tools[tool] else None


FIXES: dict[str, Callable] = {
    "args:allowed:region": _use_default_region,
    "args:range": _clamp,
    "args:unknown": _rename_or_drop,
    "result:too_big": _upgrade,
}


def find_fix(reason: str) -> Callable | None:
    """By the full reason, else by its <stage>:<check> prefix."""
    return FIXES.get(reason) or FIXES.get(":".join(reason.split(":")[:2]))


def run(tools: dict, request: Any, max_attempts: int = MAX_ATTEMPTS, memo: dict | None = None) -> dict:
    """What a run must come to: the same door calls, reasons and ending as the spec's graph."""
    memo = {} if memo is None else memo
    tool, args = (request.get("tool"), request.get("args", {})) if isinstance(request, dict) else (None, {})
    state = {"tool": tool, "args": args, "result": None, "reasons": [], "path": ["pick"], "attempts": 0}
    while state["attempts"] < max_attempts:
        envelope = call_memo(tools, tool, args, memo)
        state.update(result=envelope, attempts=state["attempts"] + 1, tool=tool, args=args)
        state["path"].append("call")
        if envelope["ok"]:
            state["path"].append("answer")
            return {**state, "status": "answered"}
        reason = envelope["error"]
        repeated = reason in state["reasons"]
        state["reasons"].append(reason)
        fix = find_fix(reason)
        if repeated or fix is None or state["attempts"] >= max_attempts:
            break
        state["path"].append("fix")
        fixed = fix(tools, tool, args, reason)
        if fixed is None:
            break
        tool, args = fixed
    state["path"].append("give_up")
    return {**state, "status": "gave_up"}


# ── Stage 1 · what describe_tools must say ───────────────────────────────────

def object_schema(specs: dict) -> dict:
    """The JSON Schema of a dict with the keys of specs (the args, or a dict arg's properties), no others."""
    return {"type": "object", "properties": {key: arg_schema(spec) for key, spec in specs.items()},
            "required": [key for key, spec in specs.items() if spec.get("required", True)],
            "additionalProperties": False}


def arg_schema(spec: dict) -> dict:
    schema = {} if spec["type"] == "any" else {"type": JSON_TYPES.get(spec["type"])}
    for ours, theirs in (("allowed", "enum"), ("min", "minimum"), ("max", "maximum")):
        if ours in spec:
            schema[theirs] = spec[ours]
    if "properties" in spec:
        schema.update(object_schema(spec["properties"]))
    if "items" in spec:
        schema["items"] = arg_schema(spec["items"])
    return schema


# ── Stage isolation ──────────────────────────────────────────────────────────

def bind(module: Any) -> dict[str, tuple[int, Callable]]:
    """name -> (stage, trusted function) for a submission's module, reading its TOOLS when called.

    While stage N is probed, the grader installs those of stages below N, so a
    bug in stage 2 costs points in stage 2 only.
    """
    def tools() -> dict:
        return module.TOOLS

    def check_args(name, args):
        return arg_reason(tools()[name]["args"], args)

    def check_result(name, value):
        return result_reason(tools()[name]["returns"], value)

    def check_arg_fields(specs, args, prefix):
        return next(_arg_failures(specs, args, False, prefix), None)

    def check_fields(specs, value, prefix):
        return next(_field_failures(specs, value, prefix, every=False), None)

    return {
        "check_args": (2, check_args), "check_arg_fields": (2, check_arg_fields),
        "has_type": (2, has_type), "in_range": (2, in_range),
        "check_result": (3, check_result), "check_fields": (3, check_fields),
        "call_tool": (4, lambda name, args: call_tool(tools(), name, args)),
        "memo_key": (5, memo_key), "is_json": (5, is_json),
        "call_memo": (5, lambda name, args, memo: call_memo(tools(), name, args, memo)),
    }


# The spec's names (issue 2) every later stage reads through the module's globals:
# installed always. The others are the skeleton's helpers, installed only where the
# submission kept their parameters (a student may have rewritten them another way).
SPEC_NAMES = {"check_args", "check_result", "call_tool", "memo_key", "call_memo"}


def fits(trusted: Callable, theirs: Any) -> bool:
    """May `trusted` stand in for the submission's own function of that name?"""
    try:
        return list(inspect.signature(theirs).parameters) == list(inspect.signature(trusted).parameters)
    except (TypeError, ValueError):
        return False
