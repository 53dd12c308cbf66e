"""The grader's own trusted logic for the six stages, written from the lab's contract: the judge's side.

It never imports agtool.tools: a grader that borrowed the reference would grade students against the
reference's accidents. Two kinds of answer: every reason that really fails (`arg_reasons`, `result_reasons`,
`door_errors`), where the spec lets a student report any failing check; and one answer, in the spec's order
(`arg_reason`, `result_reason`, `call_tool`, `memo_key`, `call_memo`, `run`): what a correct module gives.

Stages 2 to 5 live in grader/instructor/trusted/, one module a stage: a sandboxed child probing stage N
imports the trusted stages below N and nothing else, never this module, which solves every stage
(tests/sandbox/test_trust_boundary.py).
"""

import difflib
from collections.abc import Callable
from typing import Any

# The lab's constants, not the reference's logic: agtool.contract holds no stage's solution.
from agtool.contract import DEFAULT_REGION, JSON_TYPES, MAX_ATTEMPTS, ODD_LIMIT

# Stages 2 to 5 are the trusted stages' own: the checks read them here, as the oracle's answers.
from grader.instructor.trusted import bind  # noqa: F401
from grader.instructor.trusted.args import arg_reason, arg_reasons  # noqa: F401
from grader.instructor.trusted.door import call_tool  # noqa: F401
from grader.instructor.trusted.memo import call_memo, memo_key  # noqa: F401
from grader.instructor.trusted.results import result_reason, result_reasons  # noqa: F401

# ── Stage 4 · every right error ──────────────────────────────────────────────


def door_errors(expected: str | None, contract: dict, args: Any, returns: dict, value: Any) -> set:
    """Every right error where the one-answer door says `expected`: args and results that fail several checks
    may be reported by any failing check. `value` is what the body returned (for result reasons)."""
    if expected is not None and expected.startswith("args:") and isinstance(args, dict):
        return {f"args:{reason}" for reason in arg_reasons(contract, args)} | {expected}
    if expected is not None and expected.startswith("result:"):
        return {f"result:{reason}" for reason in result_reasons(returns, value)} | {expected}
    return {expected}


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


def run(
    tools: dict,
    request: Any,
    max_attempts: Any = MAX_ATTEMPTS,
    memo: dict | None = None,
    picker: Callable | None = None,
) -> dict:
    """What a run must come to: the same door calls, reasons and ending as the spec's graph. A max_attempts that
    is not an int (True and False included) gives ODD_LIMIT at once; an exception out of the picker goes out."""
    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int):
        return {**ODD_LIMIT, "reasons": list(ODD_LIMIT["reasons"]), "path": []}
    memo = {} if memo is None else memo
    if picker is not None:
        tool, args = picker(request)
    else:
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
        fix = FIXES.get(reason) or FIXES.get(":".join(reason.split(":")[:2]))  # the full reason, else its prefix
        if repeated or fix is None or state["attempts"] >= max_attempts:
            break
        state["path"].append("fix")
        try:
            fixed = fix(tools, tool, args, reason)
        except (KeyError, TypeError, AttributeError):  # its field is no top-level arg (a dotted where.min_qty)
            fixed = None
        if fixed is None:  # the fix cannot help
            break
        tool, args = fixed
    state["path"].append("give_up")
    return {**state, "status": "gave_up"}


# ── Stage 1 · what describe_tools must say ───────────────────────────────────


def object_schema(specs: dict) -> dict:
    """The JSON Schema of a dict with the keys of specs (the args, or a dict arg's properties), no others."""
    return {
        "type": "object",
        "properties": {key: arg_schema(spec) for key, spec in specs.items()},
        "required": [key for key, spec in specs.items() if spec.get("required", True)],
        "additionalProperties": False,
    }


def arg_schema(spec: dict) -> dict:
    schema: dict[str, Any] = {} if spec["type"] == "any" else {"type": JSON_TYPES.get(spec["type"])}
    for ours, theirs in (("allowed", "enum"), ("min", "minimum"), ("max", "maximum")):
        if ours in spec:
            schema[theirs] = spec[ours]
    if "properties" in spec:
        schema.update(object_schema(spec["properties"]))
    if "items" in spec:
        schema["items"] = arg_schema(spec["items"])
    return schema
