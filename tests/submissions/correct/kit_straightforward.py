# Written from the student kit alone (README, notebooks 01-06, the docstrings and comments of the
# kit's agtool/tools.py and agtool/contract.py) by a helper who did not read the reference solution
# or the grader's checks, only ran the kit's self-check; one of three styles by the same writer
# (a traceback once showed it three lines of the reference's is_json: ../beginner/README.md).
# Straightforward: plain functions, explicit loops and ifs, close to what the notebooks suggest.
# Choices where the kit is silent: check_args reports unknown names, then per arg in table order
# missing, type, range, allowed; is_json is recursive with a cycle guard by id; call_memo keeps
# JSON text only when is_json(envelope); a fix node turns a fix that raises into "cannot help";
# the answer is sorted JSON (ensure_ascii=False), else repr, else the type's name; run returns
# exactly the eight keys; recursion_limit 2n + 10.
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
"""

import difflib
import functools
import json
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, StateGraph
from langgraph.runtime import Runtime

from agtool import inventory

# The lab's part, not the lesson (agtool/contract.py): the table's own check, check_table,
# run at the end of this file, and the constants the stages read. JSON_TYPES maps the
# contract's type names to JSON Schema's ("any" has none: its schema is {}); _PY_TYPES
# maps them to the Python types each one takes.
from agtool.contract import DEFAULT_REGION, JSON_TYPES, MAX_ATTEMPTS, MAX_INT_BITS, ContractError, check_table  # noqa: F401
from agtool.contract import PY_TYPES as _PY_TYPES

# ── Stage 1 · contract ───────────────────────────────────────────────────────
# One table says, for each tool, what it takes and what it gives back. The
# checks read it, and so does the model: its tool descriptions are drawn from
# it, so the two can never disagree.
#
#   types:       str int float bool list dict, and any (every value passes)
#   arg spec:    type, required (default True), allowed (a list of str, int, float
#                or bool values), min, max (inclusive, numbers only),
#                properties (a dict: key -> arg spec; other keys are unknown),
#                items (a list: ONE arg spec, checked on every item),
#                description (optional: what the model reads about this arg; no check reads it),
#                default (optional, documentation only: the door never fills it in)
#   return spec: type, max_len (lists), min, max, allow_empty (default False),
#                items (a list of dicts: key -> return spec, checked on every item)
#
# A reason names a field of the contract by its dotted path, never a position
# in the value: "type:filter.color" is key color of the dict arg filter, and
# an item of a list is named by its list, so "range:points" is an item of
# points out of range (as check_result's "range:rows.qty" is the qty of some row).
#
# What the grade judges (notebook 01 says the same, word for word):
#   1.1 Each TOOLS entry is a dict with fn (the function itself, not its name), description,
#   args and returns; upgrade, if any, names another tool of TOOLS.
#   1.2 stock_lookup's limit is an int from 1 to 2, its rows a list of at most 2 items {region:
#   str, qty: int >= 0}, and its upgrade is stock_lookup_v2.
#   1.3 stock_lookup_v2 takes and gives what stock_lookup does (the same args and returns), has
#   no upgrade of its own, and its fn is inventory.stock_lookup_v2, the endpoint that honours
#   limit.
#   1.4 delivery_eta takes sku and region (busan, jeju or seoul) and its days must lie in 0..14.
#   1.5 describe_tools() gives one {"type": "function", "function": {...}} entry per tool of
#   TOOLS, and nothing else.
#   1.6 Each arg is a property with its JSON Schema type, enum for allowed, minimum and maximum
#   for min and max; required lists the required args; additionalProperties is false. A
#   description, or a default, in an arg spec is an extra that no check reads.

TOOLS: dict[str, dict] = {
    "stock_lookup": {
        "fn": inventory.stock_lookup,
        "description": "Stock of a product (by SKU) per warehouse, nearest region first, at most `limit` rows.",
        "args": {
            "sku": {"type": "str"},
            "region": {"type": "str", "allowed": list(inventory.REGIONS)},
            "limit": {"type": "int", "min": 1, "max": 2},
        },
        "returns": {
            "sku": {"type": "str"},
            "rows": {
                "type": "list",
                "max_len": 2,
                "items": {"region": {"type": "str"}, "qty": {"type": "int", "min": 0}},
            },
        },
        "upgrade": "stock_lookup_v2",
    },
    "stock_lookup_v2": {
        "fn": inventory.stock_lookup_v2,
        "description": "Stock of a product (by SKU) per warehouse, nearest region first, at most `limit` rows "
                       "(the new endpoint: limit is honoured for every SKU).",
        "args": {
            "sku": {"type": "str"},
            "region": {"type": "str", "allowed": list(inventory.REGIONS)},
            "limit": {"type": "int", "min": 1, "max": 2},
        },
        "returns": {
            "sku": {"type": "str"},
            "rows": {
                "type": "list",
                "max_len": 2,
                "items": {"region": {"type": "str"}, "qty": {"type": "int", "min": 0}},
            },
        },
    },
    "delivery_eta": {
        "fn": inventory.delivery_eta,
        "description": "Days for a product (by SKU) to reach a region from the warehouse it ships from.",
        "args": {
            "sku": {"type": "str"},
            "region": {"type": "str", "allowed": list(inventory.REGIONS)},
        },
        "returns": {
            "sku": {"type": "str"},
            "region": {"type": "str"},
            "days": {"type": "int", "min": 0, "max": 14},
        },
    },
}


def describe_tools() -> list[dict]:
    """The model's tool list, drawn from TOOLS, in OpenAI function-calling form.

    Each entry: {"type": "function", "function": {"name", "description",
    "parameters"}}, where parameters is a JSON Schema object with properties
    (type, enum, minimum, maximum; properties and items for nested args),
    required and additionalProperties: false. An arg spec's optional
    "description" goes along as the property's description (the model reads
    it); it is an extra: no check needs it, and a table without one is as good.
    """
    entries = []
    for name, entry in TOOLS.items():
        entries.append({
            "type": "function",
            "function": {
                "name": name,
                "description": entry["description"],
                "parameters": object_schema(entry["args"]),
            },
        })
    return entries


def object_schema(specs: dict) -> dict:
    """The JSON Schema of a dict with the keys of specs (the args, or a dict arg's properties), no others."""
    properties = {}
    required = []
    for name, spec in specs.items():
        properties[name] = arg_schema(spec)
        if spec.get("required", True):
            required.append(name)
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def arg_schema(spec: dict) -> dict:
    """The JSON Schema of one arg spec: type (none for "any"), enum, minimum, maximum, properties, items,
    and its description if it has one."""
    schema = {}
    if spec["type"] != "any":
        schema["type"] = JSON_TYPES[spec["type"]]
    if "allowed" in spec:
        schema["enum"] = list(spec["allowed"])
    if "min" in spec:
        schema["minimum"] = spec["min"]
    if "max" in spec:
        schema["maximum"] = spec["max"]
    if "properties" in spec:
        schema.update(object_schema(spec["properties"]))
    if "items" in spec:
        schema["items"] = arg_schema(spec["items"])
    if "description" in spec:
        schema["description"] = spec["description"]
    return schema


# ── Stage 2 · argument check ─────────────────────────────────────────────────
# Before the call: the model invents argument names, sends "2" for 2, True for
# 1, a region nobody serves. Catch it here, with a reason, before the body runs.

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
    specs = TOOLS[name]["args"]
    return check_arg_fields(specs, args, "")


def check_arg_fields(specs: dict, args: dict, prefix: str) -> str | None:
    """The first reason a dict breaks specs (name -> arg spec), fields named prefix + name."""
    # unknown names first, in the order of args
    for arg in args:
        if arg not in specs:
            return f"unknown:{prefix}{arg}"
    # then each contract arg, in table order
    for arg, spec in specs.items():
        field_name = prefix + arg
        if arg not in args:
            if spec.get("required", True):
                return f"missing:{field_name}"
            continue
        reason = check_arg_value(spec, args[arg], field_name)
        if reason is not None:
            return reason
    return None


def check_arg_value(spec: dict, value: Any, field_name: str) -> str | None:
    """The first reason one present value breaks its arg spec: type, range, allowed, then its insides."""
    if not has_type(value, spec["type"]):
        return f"type:{field_name}"
    if ("min" in spec or "max" in spec) and not in_range(value, spec):
        return f"range:{field_name}"
    if "allowed" in spec and not any(type(value) is type(a) and value == a for a in spec["allowed"]):
        return f"allowed:{field_name}"
    if "properties" in spec:
        reason = check_arg_fields(spec["properties"], value, field_name + ".")
        if reason is not None:
            return reason
    if "items" in spec:
        # every item is named by its list, never by its position
        for item in value:
            reason = check_arg_value(spec["items"], item, field_name)
            if reason is not None:
                return reason
    return None


def has_type(value: Any, kind: str) -> bool:
    """Is value of the contract type `kind` ("str", "int", "float", "bool", "list", "dict", "any")?

    True and False are only bools; an int is also a float; "any" holds every value, None too.
    """
    if kind == "any":
        return True
    if isinstance(value, bool):
        # bool is an int in Python: it only passes for "bool"
        return kind == "bool"
    return isinstance(value, _PY_TYPES[kind])


def in_range(value: Any, spec: dict) -> bool:
    """Does a number lie within spec's min and max (both inclusive, both optional)?

    NaN lies within no bound; a spec with neither min nor max holds every number, NaN too.
    """
    # written as "not inside" so that NaN, for which every comparison is False, fails
    if "min" in spec and not value >= spec["min"]:
        return False
    if "max" in spec and not value <= spec["max"]:
        return False
    return True


# ── Stage 3 · result check ───────────────────────────────────────────────────
# After the call: an empty list is not "no problem", 20 rows are not 2, and
# 72 "days" is a unit error that shows up as a range error.

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
    returns = TOOLS[name]["returns"]
    if not isinstance(value, dict):
        return "shape:result"
    return check_fields(returns, value, "")


def check_fields(specs: dict, value: dict, prefix: str) -> str | None:
    """The first reason a dict breaks specs (key -> return spec), fields named prefix + key.

    For each key in the spec's order: shape, then empty, then too_big, then range, then its
    items, each item a dict checked by check_fields itself with prefix + key + ".".
    """
    for key, spec in specs.items():
        field_name = prefix + key
        if key not in value or not has_type(value[key], spec["type"]):
            return f"shape:{field_name}"
        item = value[key]
        if isinstance(item, (list, dict, str)) and len(item) == 0 and not spec.get("allow_empty", False):
            return f"empty:{field_name}"
        if "max_len" in spec and len(item) > spec["max_len"]:
            return f"too_big:{field_name}"
        if ("min" in spec or "max" in spec) and not in_range(item, spec):
            return f"range:{field_name}"
        if "items" in spec:
            for element in item:
                if not isinstance(element, dict):
                    return f"shape:{field_name}"
                reason = check_fields(spec["items"], element, field_name + ".")
                if reason is not None:
                    return reason
    return None


# ── Stage 4 · door ───────────────────────────────────────────────────────────
# Every call goes through one door. Whatever happens behind it, what comes out
# is a value: {"ok", "value", "error"}, with a reason the agent can route on.

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
        return failure(f"tool:unknown:{name}")
    if not isinstance(args, dict):
        return failure("args:shape:args")
    reason = check_args(name, args)
    if reason is not None:
        return failure(f"args:{reason}")
    try:
        value = TOOLS[name]["fn"](**args)
    except Exception as error:  # not BaseException: KeyboardInterrupt and SystemExit go out
        return failure(f"tool:raised:{type(error).__name__}")
    reason = check_result(name, value)
    if reason is not None:
        return failure(f"result:{reason}")
    return {"ok": True, "value": value, "error": None}


def failure(reason: str) -> dict:
    """The door's envelope for a failed call: no value, and the reason why."""
    return {"ok": False, "value": None, "error": reason}


# ── Stage 5 · memo ───────────────────────────────────────────────────────────
# An agent asks the same thing again and again. Remember each success under a
# key that is the same whenever the question is; never remember a failure,
# or it is replayed long after the cause is gone.

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
        return name + " " + json.dumps(args, sort_keys=True)
    except (ValueError, TypeError, RecursionError):
        return None  # nested too deep for is_json or json.dumps: no key


def is_json(value: Any) -> bool:
    """Can JSON hold value exactly?

    None, str, int (of 14,000 bits at most), bool, finite float; lists; dicts with str keys.
    """
    return _is_json(value, set())


def _is_json(value: Any, open_containers: set) -> bool:
    """is_json, remembering the lists and dicts we are inside, so a list that holds itself is no JSON."""
    if value is None or isinstance(value, (str, bool)):
        return True
    if isinstance(value, int):
        return value.bit_length() <= MAX_INT_BITS
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, dict)):
        if id(value) in open_containers:
            return False
        open_containers.add(id(value))
        if isinstance(value, list):
            ok = all(_is_json(item, open_containers) for item in value)
        else:
            ok = all(isinstance(key, str) and _is_json(item, open_containers) for key, item in value.items())
        open_containers.discard(id(value))
        return ok
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
        return json.loads(memo[key])
    envelope = call_tool(name, args)
    if key is not None and envelope["ok"] and is_json(envelope):
        memo[key] = json.dumps(envelope)
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
def _last_reason(state: RunState) -> str:
    return state["reasons"][-1]


def _contract_args(state: RunState) -> dict:
    return TOOLS[state["tool"]]["args"]


def use_default_region(state: RunState) -> dict | None:
    """args:allowed:region -> put DEFAULT_REGION in place of a region nobody serves."""
    field_name = field_of(_last_reason(state))
    if field_name not in _contract_args(state):
        return None
    args = dict(state["args"])
    args[field_name] = DEFAULT_REGION
    return {"args": args}


def clamp_into_range(state: RunState) -> dict | None:
    """args:range:<arg> -> below min becomes min, above max becomes max (NaN: min, else max)."""
    field_name = field_of(_last_reason(state))
    specs = _contract_args(state)
    if field_name not in specs or field_name not in state["args"]:
        return None
    spec = specs[field_name]
    value = state["args"][field_name]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and math.isnan(value):  # math.isnan(10 ** 400) would raise
        if "min" in spec:
            new_value = spec["min"]
        elif "max" in spec:
            new_value = spec["max"]
        else:
            return None
    elif "min" in spec and value < spec["min"]:
        new_value = spec["min"]
    elif "max" in spec and value > spec["max"]:
        new_value = spec["max"]
    else:
        return None
    args = dict(state["args"])
    args[field_name] = new_value
    return {"args": args}


def rename_or_drop(state: RunState) -> dict | None:
    """args:unknown:<arg> -> rename it to the closest contract arg not given yet, else drop it."""
    field_name = field_of(_last_reason(state))
    args = state["args"]
    # the reason names the arg as text: {1: 2} gives unknown:1, so find the key by its text
    wrong_key = None
    for key in args:
        if str(key) == field_name:
            wrong_key = key
            break
    if wrong_key is None:
        return None  # e.g. a dotted field such as where.max_qty: no top-level arg to rename
    not_given = [arg for arg in _contract_args(state) if arg not in args]
    matches = difflib.get_close_matches(field_name, not_given, n=1, cutoff=0.6)
    new_args = {}
    for key, value in args.items():
        if key == wrong_key:
            if matches:
                new_args[matches[0]] = value
        else:
            new_args[key] = value
    return {"args": new_args}


def switch_to_upgrade(state: RunState) -> dict | None:
    """result:too_big:<key> -> the tool's upgrade, or None when it has none."""
    upgrade = TOOLS[state["tool"]].get("upgrade")
    if upgrade is None:
        return None
    return {"tool": upgrade}


FIXES: dict[str, Callable[[RunState], dict | None]] = {
    "args:allowed:region": use_default_region,
    "args:range": clamp_into_range,
    "args:unknown": rename_or_drop,
    "result:too_big": switch_to_upgrade,
}


def find_fix(reason: str) -> Callable | None:
    """The fix for a reason: by the full reason, else by its <stage>:<check> prefix."""
    if reason in FIXES:
        return FIXES[reason]
    prefix = ":".join(reason.split(":")[:2])
    if prefix in FIXES:
        return FIXES[prefix]
    return None


def pick(state: RunState, runtime: Runtime[RunContext]) -> dict:
    """Node: the request becomes a tool and its args."""
    picker = runtime.context.picker
    if picker is None:
        picker = pick_by_rules
    tool, args = picker(state.get("request"))
    return {"tool": tool, "args": args, "attempts": 0, "result": None, "path": ["pick"]}


def call(state: RunState, runtime: Runtime[RunContext]) -> dict:
    """Node: one call through the memo and the door; a failure adds its reason."""
    envelope = call_memo(state["tool"], state["args"], runtime.context.memo)
    update = {"result": envelope, "attempts": state["attempts"] + 1, "path": ["call"]}
    if not envelope["ok"]:
        update["reasons"] = [envelope["error"]]
    return update


def before_call(state: RunState, runtime: Runtime[RunContext]) -> str:
    """Edge: call while attempts remain (a limit of 0 allows none)."""
    if state["attempts"] < runtime.context.max_attempts:
        return "call"
    return "give_up"


def after_call(state: RunState, runtime: Runtime[RunContext]) -> str:
    """Edge: answer an ok value; fix a fixable, new reason while attempts remain; else give up."""
    envelope = state["result"]
    if envelope["ok"]:
        return "answer"
    if state["attempts"] >= runtime.context.max_attempts:
        return "give_up"
    reason = envelope["error"]
    earlier = state["reasons"][:-1]
    if reason in earlier:
        return "give_up"
    if find_fix(reason) is None:
        return "give_up"
    return "fix"


def fix(state: RunState) -> dict:
    """Node: apply the fix for the last reason (it may find it cannot help)."""
    reason = state["reasons"][-1]
    the_fix = find_fix(reason)
    try:
        change = the_fix(state) if the_fix is not None else None
    except Exception:
        change = None  # a fix that meets odd args and raises cannot help either
    if change is None:
        return {"tool": None, "path": ["fix"]}
    update = {"path": ["fix"]}
    if "tool" in change:
        update["tool"] = change["tool"]
    if "args" in change:
        update["args"] = change["args"]
    return update


def after_fix(state: RunState) -> str:
    """Edge: call again with the fixed tool and args, or give up when the fix could not help."""
    if state["tool"] is None:
        return "give_up"
    return "call"


def answer(state: RunState) -> dict:
    """Node: a sentence built only from the ok value."""
    value = state["result"]["value"]
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        try:
            text = repr(value)
        except Exception:
            text = f"a {type(value).__name__} that cannot be shown"
    return {"status": "answered", "answer": f"{state['tool']} answered: {text}", "path": ["answer"]}


def give_up(state: RunState) -> dict:
    """Node: stop with the reasons gathered so far, and no answer."""
    return {"status": "gave_up", "answer": None, "path": ["give_up"]}


@functools.cache
def build_graph():
    """The compiled LangGraph: pick -> call -> (answer | fix -> call ... | give_up).

    MAX_ATTEMPTS = 3 and DEFAULT_REGION = "seoul"; build_graph() compiles a
    StateGraph with the nodes pick, call, fix, answer and give_up.
    """
    builder = StateGraph(RunState, context_schema=RunContext)
    builder.add_node("pick", pick)
    builder.add_node("call", call)
    builder.add_node("fix", fix)
    builder.add_node("answer", answer)
    builder.add_node("give_up", give_up)
    builder.set_entry_point("pick")
    builder.add_conditional_edges("pick", before_call, ["call", "give_up"])
    builder.add_conditional_edges("call", after_call, ["answer", "fix", "give_up"])
    builder.add_conditional_edges("fix", after_fix, ["call", "give_up"])
    builder.add_edge("answer", END)
    builder.add_edge("give_up", END)
    return builder.compile()


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
    if not isinstance(max_attempts, int) or isinstance(max_attempts, bool):
        return {"tool": None, "args": None, "result": None, "reasons": ["run:type:max_attempts"],
                "path": [], "attempts": 0, "status": "gave_up", "answer": None}
    if memo is None:
        memo = {}
    context = RunContext(memo=memo, max_attempts=max_attempts, picker=picker)
    # n calls take 2n + 1 steps (pick, n calls, n - 1 fixes, answer or give_up); leave room
    calls = max(max_attempts, 0)
    final = build_graph().invoke({"request": request}, config={"recursion_limit": 2 * calls + 10},
                                 context=context)
    state = {}
    for key in ("tool", "args", "result", "reasons", "path", "attempts", "status", "answer"):
        state[key] = final.get(key)
    return state


check_table(TOOLS)  # this module's own table, whatever name it is imported under
