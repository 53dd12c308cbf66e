# Written from the student kit alone (README, notebooks 01-08, the docstrings and comments of the
# kit's agtool/tools.py and agtool/contract.py) by a helper who never saw the reference solution
# or the grader's checks; both its solutions passed the kit's self-check on their first run.
# Framework-minded: check_args validates object_schema(specs) with jsonschema's Draft 2020-12
# traversal, the contract's rules plugged in as keywords (stock integer/minimum would take 2.0 and
# let NaN through); errors mapped to <check>:<dotted path>. Choices where the kit is silent: each
# tool gets its own spec dicts from factories; check_result is a table of (check, predicate) pairs
# with a try that turns a surprise into shape:result; the door logs the body's exception; is_json
# uses exact types and tracks containers on the current path; the memo key is byte-identical to
# json.dumps(args, sort_keys=True); a fix falls back to result["error"] when reasons is empty; run
# returns exactly the eight keys; recursion_limit 2*max(n, 0) + 8.
# Edited for issue 33, one line: the kit now states that bool is never equal to an int in an allowed
# list either (True == 1 in Python), so the allowed test compares the types too.
"""agtool.tools: a tool call is a contract. Check before the call, check again after.

You build this module in six stages, one notebook each:

    1 · contract      TOOLS, describe_tools()       what each tool takes and gives back
    2 · args check    check_args(name, args)        checked before the call
    3 · result check  check_result(name, value)     checked again after it
    4 · door          call_tool(name, args)         failure becomes a value with a reason
    5 · memo          memo_key(), call_memo()       never ask the same thing twice
    6 · retry graph   FIXES, build_graph(), run()   failure is a path, not an exception

Reasons are routable strings. The two checks return `<check>:<field>`
("type:limit", "range:rows.qty"); the door prefixes the stage that failed
("args:allowed:region", "result:empty:rows", "tool:raised:KeyError").

Every function reads TOOLS and the earlier stages' functions through this
module's globals when it is called, so an edited table is honoured at once
(and so the grader can swap in its own contracts and counting tool bodies).

This version is written "framework-minded": the argument check is JSON Schema
validation (jsonschema's own traversal, with the contract's stricter type and
range rules plugged in as keywords) of the very schema describe_tools() hands
the model, so the model's description and the check are one object.
"""

import difflib
import functools
import json
import logging
import math
import operator
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any, TypedDict

import jsonschema
from jsonschema.exceptions import ValidationError
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agtool import inventory

# The lab's part, not the lesson (agtool/contract.py): the table's own check, check_table,
# run at the end of this file, and the constants the stages read. JSON_TYPES maps the
# contract's type names to JSON Schema's ("any" has none: its schema is {}); _PY_TYPES
# maps them to the Python types each one takes.
from agtool.contract import DEFAULT_REGION, JSON_TYPES, MAX_ATTEMPTS, MAX_INT_BITS, ContractError, check_table  # noqa: F401
from agtool.contract import PY_TYPES as _PY_TYPES

log = logging.getLogger(__name__)

# ── Stage 1 · contract ───────────────────────────────────────────────────────
# One table says, for each tool, what it takes and what it gives back. The
# checks read it, and so does the model: its tool descriptions are drawn from
# it, so the two can never disagree.


def _region_arg() -> dict:
    return {"type": "str", "allowed": list(inventory.REGIONS)}


def _stock_args() -> dict:
    return {
        "sku": {"type": "str"},
        "region": _region_arg(),
        "limit": {"type": "int", "min": 1, "max": 2},
    }


def _stock_returns() -> dict:
    return {
        "sku": {"type": "str"},
        "rows": {
            "type": "list",
            "max_len": 2,
            "items": {"region": {"type": "str"}, "qty": {"type": "int", "min": 0}},
        },
    }


# Each entry gets its own spec dicts (built by the factories above), so editing one
# tool's contract in a notebook never silently edits another's.
TOOLS: dict[str, dict] = {
    "stock_lookup": {
        "fn": inventory.stock_lookup,
        "description": "Stock of a SKU per warehouse, nearest region first (old endpoint: "
        "for bulk products it ignores limit and returns a whole page).",
        "args": _stock_args(),
        "returns": _stock_returns(),
        "upgrade": "stock_lookup_v2",
    },
    "stock_lookup_v2": {
        "fn": inventory.stock_lookup_v2,
        "description": "Stock of a SKU per warehouse, nearest region first, at most `limit` rows.",
        "args": _stock_args(),
        "returns": _stock_returns(),
    },
    "delivery_eta": {
        "fn": inventory.delivery_eta,
        "description": "Days for a SKU to reach a region from the warehouse it ships from.",
        "args": {"sku": {"type": "str"}, "region": _region_arg()},
        "returns": {
            "sku": {"type": "str"},
            "region": {"type": "str"},
            "days": {"type": "int", "min": 0, "max": 14},
        },
    },
}

# Contract arg-spec key -> JSON Schema keyword, for the keys that map one to one.
_ARG_KEYWORDS = {"allowed": "enum", "min": "minimum", "max": "maximum", "description": "description"}


def describe_tools() -> list[dict]:
    """The model's tool list, drawn from TOOLS, in OpenAI function-calling form.

    Each entry: {"type": "function", "function": {"name", "description",
    "parameters"}}, where parameters is a JSON Schema object with properties
    (type, enum, minimum, maximum; properties and items for nested args),
    required and additionalProperties: false. An arg spec's optional
    "description" goes along as the property's description (the model reads
    it); it is an extra: no check needs it, and a table without one is as good.
    """
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": entry["description"],
                "parameters": object_schema(entry["args"]),
            },
        }
        for name, entry in TOOLS.items()
    ]


def object_schema(specs: dict) -> dict:
    """The JSON Schema of a dict with the keys of specs (the args, or a dict arg's properties), no others."""
    return {
        "type": "object",
        "properties": {name: arg_schema(spec) for name, spec in specs.items()},
        "required": [name for name, spec in specs.items() if spec.get("required", True)],
        "additionalProperties": False,
    }


def arg_schema(spec: dict) -> dict:
    """The JSON Schema of one arg spec: type (none for "any"), enum, minimum, maximum, properties, items,
    and its description if it has one."""
    schema: dict = {}
    if spec["type"] in JSON_TYPES:  # "any" has no JSON Schema type: {} accepts every value
        schema["type"] = JSON_TYPES[spec["type"]]
    for key, keyword in _ARG_KEYWORDS.items():
        if key in spec:
            value = spec[key]
            schema[keyword] = list(value) if isinstance(value, list) else value
    if "properties" in spec:
        nested = object_schema(spec["properties"])
        del nested["type"]  # already set from the spec's own type ("object")
        schema.update(nested)
    if "items" in spec:
        schema["items"] = arg_schema(spec["items"])
    return schema


# ── Stage 2 · argument check ─────────────────────────────────────────────────
# Before the call: the model invents argument names, sends "2" for 2, True for
# 1, a region nobody serves. Catch it here, with a reason, before the body runs.
#
# The check is JSON Schema validation of object_schema(specs): jsonschema walks the
# value (properties, items) and the contract's own rules sit in the keywords below.
# Stock jsonschema is laxer than the contract in three places, so those keywords are
# replaced: its "integer" takes 2.0, its minimum/maximum let NaN through (every
# comparison with NaN is False), and its error messages repr() the value, which raises
# for an int of over 4300 digits. Each keyword yields an error whose path ends at the
# field it names, so a reason is <check>:<dotted path> with list indices left out.

# JSON Schema keyword -> contract check of the reason it gives.
_CHECK_OF_KEYWORD = {
    "additionalProperties": "unknown",
    "required": "missing",
    "type": "type",
    "minimum": "range",
    "maximum": "range",
    "enum": "allowed",
}
# Rank of a field's own checks, before any of its children (which rank from -1 up:
# unknown children first, then each known one in table order).
_CHECK_RANK = {"missing": -10, "type": -9, "range": -8, "allowed": -7, "unknown": -10}
_KIND_OF_JSON_TYPE = {json_type: kind for kind, json_type in JSON_TYPES.items()}


def _kw_type(validator, types, instance, schema) -> Iterator[ValidationError]:
    kinds = [types] if isinstance(types, str) else types
    if not any(has_type(instance, _KIND_OF_JSON_TYPE[kind]) for kind in kinds):
        yield ValidationError("wrong type")


def _kw_minimum(validator, minimum, instance, schema) -> Iterator[ValidationError]:
    if has_type(instance, "float") and not in_range(instance, {"min": minimum}):
        yield ValidationError("below the minimum")


def _kw_maximum(validator, maximum, instance, schema) -> Iterator[ValidationError]:
    if has_type(instance, "float") and not in_range(instance, {"max": maximum}):
        yield ValidationError("above the maximum")


def _kw_enum(validator, enum, instance, schema) -> Iterator[ValidationError]:
    # allowed only ever holds str, int, float or bool (check_table); an any arg takes True, and
    # True == 1 in Python: the types must agree too.
    if not any(type(instance) is type(choice) and instance == choice for choice in enum):
        yield ValidationError("not an allowed value")


def _kw_required(validator, required, instance, schema) -> Iterator[ValidationError]:
    if isinstance(instance, dict):
        for name in required:
            if name not in instance:
                yield ValidationError("missing", path=[name])


def _kw_additional_properties(validator, allowed, instance, schema) -> Iterator[ValidationError]:
    if allowed is False and isinstance(instance, dict):
        known = schema.get("properties", {})
        for name in instance:
            if name not in known:
                yield ValidationError("unknown", path=[name])


@functools.cache
def _contract_validator_class():
    """Draft 2020-12 with the contract's type system and the keywords above."""
    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine_many(
        {json_type: (lambda _checker, value, kind=kind: has_type(value, kind)) for kind, json_type in JSON_TYPES.items()}
    )
    return jsonschema.validators.extend(
        base,
        validators={
            "type": _kw_type,
            "minimum": _kw_minimum,
            "maximum": _kw_maximum,
            "enum": _kw_enum,
            "required": _kw_required,
            "additionalProperties": _kw_additional_properties,
        },
        type_checker=checker,
    )


def _locate(specs: dict, args: Any, path) -> tuple[tuple, str]:
    """Where an error's path sits in the contract: (its order, its dotted field name).

    The order is table order, depth first, unknown names before known ones; the name leaves
    list indices out (an item is named by its list). A step into a list is an index, a step
    into a dict is a key, even an int key: {1: 2} is named "1", never skipped as an index.
    """
    order: list[int] = []
    names: list[str] = []
    value: Any = args
    spec: dict = {"type": "dict", "properties": specs}
    for step in path:
        if isinstance(value, list):
            order.append(step)
            value, spec = value[step], spec.get("items", {})
            continue
        props = spec.get("properties", {})
        order.append(list(props).index(step) if step in props else -1)
        names.append(_label(step))
        value = value.get(step) if isinstance(value, dict) else None
        spec = props.get(step, {})
    return tuple(order), ".".join(names)


def check_args(name: str, args: dict) -> str | None:
    """None when args meet TOOLS[name]["args"]; else one reason.

    Reasons: unknown:<arg>, missing:<arg>, type:<arg>, range:<arg>, allowed:<arg>.
    Unknown names first, then each contract arg in table order. The rules, as
    the grader judges them:

    - check_args reads TOOLS[name] when it is called, and returns None when
      args meet its contract.
    - Every name in args that the contract does not have is unknown:<name>,
      even a name that is not a str: {1: 2} gives unknown:1.
    - A required arg (required is True unless the spec says False) that is
      absent is missing:<arg>; an absent optional arg is fine, and a present
      arg is never missing, even when its value is None, 0, False or an empty str.
    - bool never passes for int or float (bool is an int in Python!); an int
      passes for float; any lets every value through.
    - Both bounds are inclusive, and NaN is outside every range that has a
      bound; a float arg with no min and no max lets NaN through.
    - A value that is not in the arg's allowed list is allowed:<arg>.
    - Inside a nested arg the field is a dotted path: type:filter.color.
      An item of a list arg, at any depth, is named by its list: range:points.
    - When several checks fail, any one of their reasons is right (None is not).
    """
    return check_arg_fields(TOOLS[name]["args"], args, "")


def check_arg_fields(specs: dict, args: dict, prefix: str) -> str | None:
    """The first reason a dict breaks specs (name -> arg spec), fields named prefix + name."""
    validator = _contract_validator_class()(object_schema(specs))
    errors = list(validator.iter_errors(args))
    if not errors:
        return None
    located = []
    for error in errors:
        check = _CHECK_OF_KEYWORD[error.validator]
        order, where = _locate(specs, args, error.absolute_path)
        located.append(((*order, _CHECK_RANK[check]), f"{check}:{prefix}{where}"))
    return min(located, key=operator.itemgetter(0))[1]


def has_type(value: Any, kind: str) -> bool:
    """Is value of the contract type `kind` ("str", "int", "float", "bool", "list", "dict", "any")?

    True and False are only bools; an int is also a float; "any" holds every value, None too.
    """
    if isinstance(value, bool):
        return kind in ("bool", "any")
    return isinstance(value, _PY_TYPES[kind])


def in_range(value: Any, spec: dict) -> bool:
    """Does a number lie within spec's min and max (both inclusive, both optional)?

    NaN lies within no bound; a spec with neither min nor max holds every number, NaN too.
    """
    # Written as "within", not "not outside": every comparison with NaN is False, so NaN
    # fails each bound there is. (No math.isnan: it overflows on a huge int.)
    return ("min" not in spec or spec["min"] <= value) and ("max" not in spec or value <= spec["max"])


# ── Stage 3 · result check ───────────────────────────────────────────────────
# After the call: an empty list is not "no problem", 20 rows are not 2, and
# 72 "days" is a unit error that shows up as a range error.


def _is_empty(spec: dict, value: Any) -> bool:
    return not spec.get("allow_empty", False) and isinstance(value, (str, list, dict)) and len(value) == 0


def _is_too_big(spec: dict, value: Any) -> bool:
    return "max_len" in spec and isinstance(value, list) and len(value) > spec["max_len"]


def _is_out_of_range(spec: dict, value: Any) -> bool:
    return ("min" in spec or "max" in spec) and has_type(value, "float") and not in_range(value, spec)


# The checks after shape, in the order the contract reports them.
_VALUE_CHECKS: tuple[tuple[str, Callable[[dict, Any], bool]], ...] = (
    ("empty", _is_empty),
    ("too_big", _is_too_big),
    ("range", _is_out_of_range),
)


def check_result(name: str, value: Any) -> str | None:
    """None when value meets TOOLS[name]["returns"]; else one reason. Never raises.

    Reasons: shape:result (not a dict), shape:<key> (missing or wrong type),
    empty:<key> (unless allow_empty), too_big:<key> (over max_len),
    range:<key> (outside min/max, NaN too). Inside `items` the field is a
    dotted path: range:rows.qty. Extra keys are allowed. The rules, as the
    grader judges them:

    - check_result reads TOOLS[name] when it is called, and returns None when
      value meets its returns spec. Keys the spec does not mention are allowed.
    - A value that is not a dict is shape:result.
    - A key of the spec that is missing, or a value of the wrong type, is
      shape:<key>: True is not an int, 4.0 is not an int, an int is a fine
      float (total=10 passes), and an any key takes every type.
    - An empty list, dict or str is empty:<key> unless the spec says
      allow_empty=True, in an any key too; 0, False and None are not empty.
    - A list longer than max_len is too_big:<key>; exactly max_len items pass.
    - A number outside min..max is range:<key> (both bounds inclusive), NaN
      too; a float key with no min and no max lets NaN through, and so does
      an any key.
    - Every item of a list with items is checked against the item specs,
      items of items too, and the field is its dotted path: range:rows.qty;
      an item that is not a dict is shape:<key>.
    - check_result never raises: a set, bytes, an object or a dict with int
      keys where a key's value should be still gets None or a reason.
    """
    specs = TOOLS[name]["returns"]
    if not isinstance(value, dict):
        return "shape:result"
    try:
        return check_fields(specs, value, "")
    except Exception:  # a value so odd that even asking about it fails is not a result
        log.debug("check_result(%r): the value could not be checked", name, exc_info=True)
        return "shape:result"


def check_fields(specs: dict, value: dict, prefix: str) -> str | None:
    """The first reason a dict breaks specs (key -> return spec), fields named prefix + key.

    For each key in the spec's order: shape, then empty, then too_big, then range, then its
    items, each item a dict checked by check_fields itself with prefix + key + ".".
    """
    for key, spec in specs.items():
        where = prefix + key
        if key not in value or not has_type(value[key], spec["type"]):
            return f"shape:{where}"
        found = value[key]
        for check, fails in _VALUE_CHECKS:
            if fails(spec, found):
                return f"{check}:{where}"
        if "items" in spec:
            for item in found:
                if not isinstance(item, dict):
                    return f"shape:{where}"
                if (reason := check_fields(spec["items"], item, where + ".")) is not None:
                    return reason
    return None


# ── Stage 4 · door ───────────────────────────────────────────────────────────
# Every call goes through one door. Whatever happens behind it, what comes out
# is a value: {"ok", "value", "error"}, with a reason the agent can route on.


def _label(value: Any) -> str:
    """str(value) for a reason; a value whose str() itself fails is named by its type."""
    try:
        return str(value)
    except Exception:  # e.g. an int of over 4300 digits
        return f"<{type(value).__name__}>"


def call_tool(name: str, args: dict) -> dict:
    """Call a tool through its contract; never lets an Exception out.

    Returns exactly {"ok": bool, "value": ..., "error": str | None}.
    ok is True only when every check passes: {"ok": True, "value": value, "error": None}.
    A failure has value None and its reason as error.
    In order: tool:unknown:<name>, args:shape:args, args:<reason>,
    tool:raised:<ExceptionType>, result:<reason>; else ok.
    A name that is not a str, or not in TOOLS, is tool:unknown:<name>;
    args that are not a dict are args:shape:args.
    Args that check_args refuses are args:<reason>, and the body is not run.
    Any Exception from the body is tool:raised:<ExceptionType>.
    KeyboardInterrupt, SystemExit and GeneratorExit are no Exception: the door lets them out.
    A value that check_result refuses is result:<reason>.
    """
    if not isinstance(name, str) or name not in TOOLS:
        return failure(f"tool:unknown:{_label(name)}")
    if not isinstance(args, dict):
        return failure("args:shape:args")
    if (reason := check_args(name, args)) is not None:
        return failure(f"args:{reason}")
    try:
        value = TOOLS[name]["fn"](**args)
    except Exception as error:  # BaseException (Ctrl-C, SystemExit, GeneratorExit) goes on out
        # The reason names the type only (stable, routable); the message and traceback are
        # the tool's internals, kept for whoever reads the log.
        log.info("tool %s raised %s", name, type(error).__name__, exc_info=True)
        return failure(f"tool:raised:{type(error).__name__}")
    if (reason := check_result(name, value)) is not None:
        return failure(f"result:{reason}")
    return {"ok": True, "value": value, "error": None}


def failure(reason: str) -> dict:
    """The door's envelope for a failed call: no value, and the reason why."""
    return {"ok": False, "value": None, "error": reason}


# ── Stage 5 · memo ───────────────────────────────────────────────────────────
# An agent asks the same thing again and again. Remember each success under a
# key that is the same whenever the question is; never remember a failure,
# or it is replayed long after the cause is gone.


def _canonical_json(value: Any) -> str:
    """One text per value: keys sorted at every level, no NaN, the default separators.

    For a value is_json() accepts this is exactly json.dumps(value, sort_keys=True);
    allow_nan=False makes a value that slipped past is_json an error, never "NaN".
    """
    return json.dumps(value, sort_keys=True, allow_nan=False, ensure_ascii=True, separators=(", ", ": "))


def memo_key(name: str, args: dict) -> str | None:
    """name plus the args as sorted JSON; None when JSON cannot hold the args exactly.

    Equal for args equal up to key order, nested too.
    1, 1.0 and True give different keys, and so do two tool names.
    memo_key never raises: args that are not a dict get a key too, when JSON holds them exactly.
    None when the name is not a str, or when JSON cannot hold the args exactly:
    NaN and infinities, tuples, sets, bytes and other objects, keys that are
    not str, and ints of more than 14,000 bits. json.dumps would quietly turn
    a tuple into a list and a key 1 into "1", and collide; it writes NaN,
    which is no JSON; and Python will not print an int of over 4300 digits.
    """
    if not isinstance(name, str):
        return None
    try:
        if not is_json(args):
            return None
        return f"{name} {_canonical_json(args)}"
    except (TypeError, ValueError, RecursionError):  # nested deeper than Python recurses
        return None


def is_json(value: Any) -> bool:
    """Can JSON hold value exactly?

    None, str, int (of 14,000 bits at most), bool, finite float; lists; dicts with str keys.
    """
    return _is_json(value, frozenset())


def _is_json(value: Any, open_containers: frozenset) -> bool:
    # Exact types: a subclass (an IntEnum, an OrderedDict, a str subclass) comes back from
    # JSON as its base type, so JSON does not hold it exactly.
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return True
    if kind is int:
        return value.bit_length() <= MAX_INT_BITS
    if kind is float:
        return math.isfinite(value)
    if kind is list or kind is dict:
        if id(value) in open_containers:  # a list that holds itself has no JSON text
            return False
        inside = open_containers | {id(value)}
        if kind is list:
            return all(_is_json(item, inside) for item in value)
        return all(type(key) is str and _is_json(item, inside) for key, item in value.items())
    return False


def call_memo(name: str, args: dict, memo: dict) -> dict:
    """call_tool behind a memo: a hit returns the remembered envelope without running the body.

    A hit returns the remembered envelope without running the body.
    Only ok envelopes are remembered. A call without a key is never remembered.
    Each is kept as JSON text, so a caller who changes a returned value
    cannot change what a later hit returns.
    """
    key = memo_key(name, args)
    if key is not None and key in memo:
        return json.loads(memo[key])  # a fresh copy on every hit
    envelope = call_tool(name, args)
    # Kept only when JSON text holds it exactly, so that a hit gives back what the miss did
    # (a tuple or NaN in an "any" result would come back as something else): otherwise
    # the next call simply runs again.
    if key is not None and envelope["ok"] and is_json(envelope):
        memo[key] = _canonical_json(envelope)
    return envelope


# ── Stage 6 · retry graph ────────────────────────────────────────────────────
# Failure is a path through the graph, not an exception out of it: a fixable
# reason takes the `fix` edge and calls again, an unfixable one gives up at
# once, and an attempt counter in the state bounds the loop.

# MAX_ATTEMPTS (3) and DEFAULT_REGION ("seoul") are the lab's: agtool.contract, imported above.


class RunState(TypedDict, total=False):
    request: Any                                  # what was asked: {"tool": name, "args": {...}}
    tool: Any                                     # the tool to call next
    args: Any                                     # its arguments
    result: dict | None                           # the last envelope from the door
    reasons: Annotated[list[str], operator.add]   # every failure reason, in order
    path: Annotated[list[str], operator.add]      # node names, in order
    attempts: int                                 # calls made (through the memo, then the door)
    status: str                                   # "answered" or "gave_up"
    answer: str | None                            # built only from an ok value


@dataclass
class RunContext:
    """What a run needs besides its state: the memo, the attempt limit, the picker."""
    memo: dict = field(default_factory=dict)
    max_attempts: int = MAX_ATTEMPTS
    picker: Callable[[Any], tuple] | None = None


def pick_by_rules(request: Any) -> tuple:
    """Turn a request into (tool, args) by rule. This is where a model would sit."""
    if not isinstance(request, dict):
        return None, {}
    args = request.get("args", {})
    return request.get("tool"), dict(args) if isinstance(args, dict) else args


def field_of(reason: str) -> str:
    """The field a reason names: "args:range:limit" -> "limit"."""
    return reason.split(":", 2)[-1]


# Each fix takes the state and returns the new {"tool"} and/or {"args"}, or
# None when it cannot help after all.
# FIXES maps args:allowed:region to use_default_region, args:range to
# clamp_into_range, args:unknown to rename_or_drop and result:too_big to
# switch_to_upgrade.
# clamp_into_range sets the arg to min when it is below min, to max when it is
# above max; NaN lands on min, or on max when there is no min.
# A fix reads the field the reason names (field_of) as a top-level arg of the
# contract: for a dotted field such as where.min_qty it finds none, and cannot help.


def _last_reason(state: RunState) -> str | None:
    """The reason being fixed: the last one gathered, else the last envelope's error."""
    if reasons := state.get("reasons"):
        return reasons[-1]
    result = state.get("result")
    return result.get("error") if isinstance(result, dict) else None


def _contract_arg(state: RunState) -> tuple[dict, dict, str, dict] | None:
    """(tool's arg specs, args, field, the field's spec) when the reason's field is a top-level
    arg of the contract and present in args; None otherwise (a fix cannot help)."""
    reason, tool, args = _last_reason(state), state.get("tool"), state.get("args")
    if not isinstance(reason, str) or not isinstance(tool, str) or tool not in TOOLS or not isinstance(args, dict):
        return None
    specs = TOOLS[tool]["args"]
    name = field_of(reason)
    if name not in specs or name not in args:
        return None
    return specs, args, name, specs[name]


def use_default_region(state: RunState) -> dict | None:
    """A region nobody serves becomes DEFAULT_REGION."""
    if (found := _contract_arg(state)) is None:
        return None
    _, args, name, _ = found
    return {"args": {**args, name: DEFAULT_REGION}}


def clamp_into_range(state: RunState) -> dict | None:
    """An arg out of range becomes the bound it broke (NaN: min, or max when there is no min)."""
    if (found := _contract_arg(state)) is None:
        return None
    _, args, name, spec = found
    value = args[name]
    if not has_type(value, "float"):
        return None
    low, high = spec.get("min"), spec.get("max")
    if value != value:  # NaN
        clamped = low if low is not None else high
    elif low is not None and value < low:
        clamped = low
    elif high is not None and value > high:
        clamped = high
    else:
        return None  # in range already: nothing to clamp
    if clamped is None:
        return None
    return {"args": {**args, name: clamped}}


def rename_or_drop(state: RunState) -> dict | None:
    """An unknown arg is renamed to the closest contract arg not given yet, else dropped."""
    reason, tool, args = _last_reason(state), state.get("tool"), state.get("args")
    if not isinstance(reason, str) or not isinstance(tool, str) or tool not in TOOLS or not isinstance(args, dict):
        return None
    wanted = field_of(reason)
    # The reason names the arg by str(); the arg itself may be a key 1 ("unknown:1").
    key = next((k for k in args if _label(k) == wanted), None)
    if key is None:  # a dotted field (where.max_qty) is no top-level arg
        return None
    free = [name for name in TOOLS[tool]["args"] if name not in args]
    renamed = {}
    match = difflib.get_close_matches(wanted, free, n=1, cutoff=0.6)
    for k, v in args.items():
        if k is key or k == key:
            if match:
                renamed[match[0]] = v
        else:
            renamed[k] = v
    return {"args": renamed}


def switch_to_upgrade(state: RunState) -> dict | None:
    """A tool that returned too much is replaced by its upgrade; no upgrade, no help."""
    tool = state.get("tool")
    if not isinstance(tool, str) or tool not in TOOLS:
        return None
    upgrade = TOOLS[tool].get("upgrade")
    return None if upgrade is None else {"tool": upgrade}


FIXES: dict[str, Callable[[RunState], dict | None]] = {
    "args:allowed:region": use_default_region,
    "args:range": clamp_into_range,
    "args:unknown": rename_or_drop,
    "result:too_big": switch_to_upgrade,
}


def find_fix(reason: str) -> Callable | None:
    """The fix for a reason: by the full reason, else by its <stage>:<check> prefix."""
    if not isinstance(reason, str):
        return None
    stage_check = ":".join(reason.split(":", 2)[:2])
    return FIXES.get(reason) or FIXES.get(stage_check)


# Node names (they are also what `path` records) and the routes between them.
PICK, CALL, FIX, ANSWER, GIVE_UP = "pick", "call", "fix", "answer", "give_up"


def _attempts_left(state: RunState, runtime: Runtime[RunContext]) -> int:
    return runtime.context.max_attempts - state.get("attempts", 0)


def pick(state: RunState, runtime: Runtime[RunContext]) -> dict:
    """Node: the request becomes a tool and its args."""
    picker = runtime.context.picker or pick_by_rules
    tool, args = picker(state.get("request"))
    return {"tool": tool, "args": args, "attempts": 0, "result": None, "path": [PICK]}


def call(state: RunState, runtime: Runtime[RunContext]) -> dict:
    """Node: one call through the memo and the door; a failure adds its reason."""
    envelope = call_memo(state["tool"], state["args"], runtime.context.memo)
    update = {"result": envelope, "attempts": state.get("attempts", 0) + 1, "path": [CALL]}
    if not envelope["ok"]:
        update["reasons"] = [envelope["error"]]
    return update


def before_call(state: RunState, runtime: Runtime[RunContext]) -> str:
    """Edge: call while attempts remain (a limit of 0 allows none)."""
    return CALL if _attempts_left(state, runtime) > 0 else GIVE_UP


def after_call(state: RunState, runtime: Runtime[RunContext]) -> str:
    """Edge: answer an ok value; fix a fixable, new reason while attempts remain; else give up."""
    result = state["result"]
    if result["ok"]:
        return ANSWER
    if _attempts_left(state, runtime) <= 0:
        return GIVE_UP
    reason = result["error"]
    seen = Counter(state.get("reasons", []))
    if seen[reason] > 1:  # it came back: the fix did not cure it, and will not next time
        return GIVE_UP
    return FIX if find_fix(reason) is not None else GIVE_UP


def fix(state: RunState) -> dict:
    """Node: apply the fix for the last reason (it may find it cannot help)."""
    repair = find_fix(_last_reason(state))
    try:
        change = repair(state) if repair is not None else None
    except Exception:  # a fix meeting odd args: give up with the reasons gathered
        log.debug("fix for %r raised", _last_reason(state), exc_info=True)
        change = None
    if not isinstance(change, dict) or not change.keys() & {"tool", "args"}:
        return {"tool": None, "path": [FIX]}
    return {**{k: v for k, v in change.items() if k in ("tool", "args")}, "path": [FIX]}


def after_fix(state: RunState) -> str:
    """Edge: call again with the fixed tool and args, or give up when the fix could not help."""
    return GIVE_UP if state.get("tool") is None else CALL


def _show(value: Any) -> str:
    """The value's text as it is: JSON when JSON can show it, else its repr."""
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError, RecursionError):  # mixed key types, a list that holds itself
        pass
    try:
        return repr(value)
    except Exception:  # e.g. an int of over 4300 digits
        return f"<{type(value).__name__}>"


def answer(state: RunState) -> dict:
    """Node: a sentence built only from the ok value."""
    sentence = f"{state['tool']} answered: {_show(state['result']['value'])}"
    return {"status": "answered", "answer": sentence, "path": [ANSWER]}


def give_up(state: RunState) -> dict:
    """Node: stop with the reasons gathered so far, and no answer."""
    return {"status": "gave_up", "answer": None, "path": [GIVE_UP]}


@functools.cache
def build_graph():
    """The compiled LangGraph: pick -> call -> (answer | fix -> call ... | give_up).

    MAX_ATTEMPTS = 3 and DEFAULT_REGION = "seoul"; build_graph() compiles a
    StateGraph with the nodes pick, call, fix, answer and give_up.
    """
    graph = StateGraph(RunState, context_schema=RunContext)
    for name, node in ((PICK, pick), (CALL, call), (FIX, fix), (ANSWER, answer), (GIVE_UP, give_up)):
        graph.add_node(name, node)
    graph.add_edge(START, PICK)
    # Each router returns a label; the path maps say which node each label leads to, so the
    # drawn graph shows exactly the edges a run can take.
    graph.add_conditional_edges(PICK, before_call, {CALL: CALL, GIVE_UP: GIVE_UP})
    graph.add_conditional_edges(CALL, after_call, {ANSWER: ANSWER, FIX: FIX, GIVE_UP: GIVE_UP})
    graph.add_conditional_edges(FIX, after_fix, {CALL: CALL, GIVE_UP: GIVE_UP})
    graph.add_edge(ANSWER, END)
    graph.add_edge(GIVE_UP, END)
    return graph.compile()


_FINAL_KEYS = ("tool", "args", "result", "reasons", "path", "attempts", "status", "answer")


def run(request: Any, max_attempts: int = MAX_ATTEMPTS, memo: dict | None = None,
        picker: Callable[[Any], tuple] | None = None) -> dict:
    """Run one request through the graph; return the final state. Never raises (but see picker).

    request is {"tool": name, "args": {...}}.
    The state holds tool, args, result (the last envelope), reasons, path, attempts, status and answer.
    A call that succeeds goes straight to answer: status "answered", one door call, through the memo run is given.
    The answer is a sentence that shows the ok value's text as it is (non-ASCII letters such as É
    too, never escaped), and a value JSON cannot show (keys of mixed types, a list that holds
    itself) is answered too.
    A fix is looked up by the full reason, then by its <stage>:<check> prefix;
    a fixable reason takes the fix edge and calls again.
    A reason with no fix (result:empty above all) goes straight to give_up: one door call.
    A reason that comes back, or a fix that cannot help, gives up: a fix cannot
    help when it returns None (no upgrade) or when its field is not an arg of
    the contract (a dotted field such as where.min_qty).
    At most max_attempts door calls; max_attempts=0 makes none.
    Any int is a limit: a run of max_attempts calls is never cut short, and a huge max_attempts
    (2 ** 40) costs nothing until the calls are made.
    A max_attempts that is not an int (True and False included) makes no call:
    the state is {"tool": None, "args": None, "result": None, "reasons":
    ["run:type:max_attempts"], "path": [], "attempts": 0, "status": "gave_up", "answer": None}.
    picker(request) replaces the rules in pick: it is called once and must
    return (tool, args), which go to the door as they are.
    An exception out of the picker goes out of run as it is: there is no state.
    """
    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int):
        return {
            "tool": None, "args": None, "result": None, "reasons": ["run:type:max_attempts"],
            "path": [], "attempts": 0, "status": "gave_up", "answer": None,
        }
    context = RunContext(memo={} if memo is None else memo, max_attempts=max_attempts, picker=picker)
    # The attempt counter ends the loop; the recursion limit only has to stay out of its way.
    # A run is at most 2 * max_attempts + 1 steps (pick, n calls, n - 1 fixes, the end; one
    # ending fix -> give_up has n < max_attempts), and LangGraph wants the limit above that.
    limit = 2 * max(max_attempts, 0) + 8
    final = build_graph().invoke({"request": request}, context=context, config={"recursion_limit": limit})
    defaults = {"reasons": [], "path": [], "attempts": 0}
    return {key: final.get(key, defaults.get(key)) for key in _FINAL_KEYS}


check_table(TOOLS)  # this module's own table, whatever name it is imported under
