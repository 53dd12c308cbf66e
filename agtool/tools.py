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
# The rules of TOOLS, as the grader judges them:
# - 1.1 Each TOOLS entry is a dict with fn (the function itself, not its name), description,
#   args and returns; upgrade, if any, names another tool of TOOLS.
# - 1.2 stock_lookup's limit is an int from 1 to 2, its rows a list of at most 2 items {region:
#   str, qty: int >= 0}, and its upgrade is stock_lookup_v2.
# - 1.3 stock_lookup_v2 takes and gives what stock_lookup does (the same args and returns), has
#   no upgrade of its own, and its fn is inventory.stock_lookup_v2, the endpoint that honours
#   limit.
# - 1.4 delivery_eta takes sku and region (busan, jeju or seoul) and its days must lie in 0..14.
# - 1.5 describe_tools() gives one {"type": "function", "function": {...}} entry per tool of
#   TOOLS, and nothing else.
# - 1.6 Each arg is a property with its JSON Schema type, enum for allowed, minimum and maximum
#   for min and max; required lists the required args; additionalProperties is false. A
#   description, or a default, in an arg spec is an extra that no check reads.

# BEGIN SOLUTION
_REGION = {"type": "str", "allowed": list(inventory.REGIONS)}
_STOCK_ARGS = {"sku": {"type": "str"}, "region": _REGION,
               "limit": {"type": "int", "min": 1, "max": 2}}
_STOCK_RETURNS = {"sku": {"type": "str"},
                  "rows": {"type": "list", "max_len": 2,
                           "items": {"region": {"type": "str"},
                                     "qty": {"type": "int", "min": 0}}}}

TOOLS: dict[str, dict] = {
    "stock_lookup": {
        "fn": inventory.stock_lookup,
        "description": "Stock of a SKU per warehouse, nearest region first, at most `limit` rows.",
        "args": _STOCK_ARGS,
        "returns": _STOCK_RETURNS,
        "upgrade": "stock_lookup_v2",
    },
    "stock_lookup_v2": {
        "fn": inventory.stock_lookup_v2,
        "description": "Stock of a SKU per warehouse, nearest region first, at most `limit` rows.",
        "args": _STOCK_ARGS,
        "returns": _STOCK_RETURNS,
    },
    "delivery_eta": {
        "fn": inventory.delivery_eta,
        "description": "Days for a SKU to reach a region.",
        "args": {"sku": {"type": "str"}, "region": _REGION},
        "returns": {"sku": {"type": "str"}, "region": {"type": "str"},
                    "days": {"type": "int", "min": 0, "max": 14}},
    },
}
# END SOLUTION
# BEGIN PROMPT
# TOOLS: dict[str, dict] = {}   # Stage 1: stock_lookup, stock_lookup_v2, delivery_eta (notebook 01)
# END PROMPT


def describe_tools() -> list[dict]:
    """The model's tool list, drawn from TOOLS, in OpenAI function-calling form.

    Each entry: {"type": "function", "function": {"name", "description",
    "parameters"}}, where parameters is a JSON Schema object with properties
    (type, enum, minimum, maximum; properties and items for nested args),
    required and additionalProperties: false. An arg spec's optional
    "description" goes along as the property's description (the model reads
    it); it is an extra: no check needs it, and a table without one is as good.
    """
    # BEGIN SOLUTION
    return [{"type": "function", "function": {"name": name, "description": tool["description"],
                                              "parameters": object_schema(tool["args"])}}
            for name, tool in TOOLS.items()]
    # END SOLUTION


def object_schema(specs: dict) -> dict:
    """The JSON Schema of a dict with the keys of specs (the args, or a dict arg's properties), no others."""
    # BEGIN SOLUTION
    return {"type": "object",
            "properties": {key: arg_schema(spec) for key, spec in specs.items()},
            "required": [key for key, spec in specs.items() if spec.get("required", True)],
            "additionalProperties": False}
    # END SOLUTION


def arg_schema(spec: dict) -> dict:
    """The JSON Schema of one arg spec: type (none for "any"), enum, minimum, maximum, properties, items,
    and its description if it has one."""
    # BEGIN SOLUTION
    schema = {} if spec["type"] == "any" else {"type": JSON_TYPES[spec["type"]]}
    if "description" in spec:
        schema["description"] = spec["description"]
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
    return schema
    # END SOLUTION


# ── Stage 2 · argument check ─────────────────────────────────────────────────
# Before the call: the model invents argument names, sends "2" for 2, True for
# 1, a region nobody serves. Catch it here, with a reason, before the body runs.

def check_args(name: str, args: dict) -> str | None:
    """None when args meet TOOLS[name]["args"]; else one reason. Never raises.

    Reasons: unknown:<arg>, missing:<arg>, type:<arg>, range:<arg>, allowed:<arg>.
    Unknown names first, then each contract arg in table order.

    The rules, as the grader judges them:

    - 2.1 `check_args` reads `TOOLS[name]` when it is called, and returns `None` when `args`
      meet its contract.
    - 2.2 Every name in `args` that the contract does not have is `unknown:<name>`, even a name
      that is not a str: `{1: 2}` gives `unknown:1`. Inside a dict arg too: `{"where": {1: 2}}`
      gives `unknown:where.1`. After `unknown:` a name that is not a str may be spelled your way
      (`str(name)` is one way), so long as it names no field of the contract; where `str(name)`
      would (a name `1` beside a field named `"1"`), the lesson does not say, and any reason is
      right. `check_args` is called with a tool of TOOLS and a dict (the door sees to both): for
      an unknown tool or args that are not a dict, what it does is yours.
    - 2.3 A required arg (`required` is `True` unless the spec says `False`) that is absent is
      `missing:<arg>`; an absent optional arg is fine, and a present arg is never missing, even
      when its value is `None`, `0`, `False` or an empty str.
    - 2.4 `bool` never passes for `int` or `float` (bool is an int in Python!); an int passes
      for `float`; a dict subclass (an `OrderedDict`) passes for `dict`, as in a result (3.1);
      `any` lets every value through.
    - 2.5 Both bounds are inclusive, and NaN is outside every range that has a bound; a float
      arg with no `min` and no `max` lets NaN through. An int too big for a float, such as
      `10 ** 400`, is compared as it is: above `max` it is `range:<arg>`, and it never makes
      `check_args` raise.
    - 2.6 A value that is not in the arg's allowed list is `allowed:<arg>`, compared with its
      type: `bool` is never an int here either, so `True` is not allowed where `1` is (though
      `True == 1` in Python), nor `1` where `True` is. Whether an int equals a float of the same
      value (`1` against an allowed `1.0`) is yours: the lesson does not decide it, and the
      grade accepts either.
    - 2.7 Inside a nested arg the field is a dotted path: `type:filter.color`. An item of a list
      arg, at any depth, is named by its list: `range:points`. Every rule of the item spec holds
      for each item, allowed too: `allowed:skus`. Naming the item's position as well
      (`range:points.1`, `range:points[1]`) is right too: stage 6 fixes only top-level args, so
      nothing reads what follows the list's name.
    - 2.8 When several checks fail, any one of their reasons is right (`None` is not), but a
      name the contract does not have comes first: a misspelt arg is missing too, and stage 6
      can rename the misspelling (`args:unknown`) where it has no fix for `args:missing`.
    """
    # BEGIN SOLUTION
    return check_arg_fields(TOOLS[name]["args"], args, prefix="")
    # END SOLUTION


def check_arg_fields(specs: dict, args: dict, prefix: str) -> str | None:
    """The first reason a dict breaks specs (name -> arg spec), fields named prefix + name."""
    # BEGIN SOLUTION
    for arg in args:
        if arg not in specs:
            return f"unknown:{prefix}{arg}"
    for arg, spec in specs.items():
        if arg not in args:
            if spec.get("required", True):
                return f"missing:{prefix}{arg}"
            continue
        value, kind = args[arg], spec["type"]
        if not has_type(value, kind):
            return f"type:{prefix}{arg}"
        if not in_range(value, spec):
            return f"range:{prefix}{arg}"
        if "allowed" in spec and not any(type(value) is type(item) and value == item for item in spec["allowed"]):
            return f"allowed:{prefix}{arg}"  # True == 1 in Python, yet bool is never an int: the types must agree
        if kind == "dict" and "properties" in spec:  # named keys: checked as args are
            reason = check_arg_fields(spec["properties"], value, prefix=f"{prefix}{arg}.")
            if reason:
                return reason
        if kind == "list" and "items" in spec:  # each item is checked as if it were the arg: reasons name the list
            for item in value:
                reason = check_arg_fields({arg: spec["items"]}, {arg: item}, prefix)
                if reason:
                    return reason
    return None
    # END SOLUTION


def has_type(value: Any, kind: str) -> bool:
    """Is value of the contract type `kind` ("str", "int", "float", "bool", "list", "dict", "any")?

    True and False are only bools; an int is also a float; "any" holds every value, None too.
    """
    # BEGIN SOLUTION
    if isinstance(value, bool):  # bool is a subclass of int: True would pass as 1
        return kind in ("bool", "any")
    return isinstance(value, _PY_TYPES[kind])  # float takes an int too; any takes every value
    # END SOLUTION


def in_range(value: Any, spec: dict) -> bool:
    """Does a number lie within spec's min and max (both inclusive, both optional)?

    NaN lies within no bound; a spec with neither min nor max holds every number, NaN too.
    """
    # BEGIN SOLUTION
    # Written as "not (value >= min)" rather than "value < min": every
    # comparison with NaN is False, so NaN fails here instead of slipping through.
    if "min" in spec and not value >= spec["min"]:
        return False
    if "max" in spec and not value <= spec["max"]:
        return False
    return True
    # END SOLUTION


# ── Stage 3 · result check ───────────────────────────────────────────────────
# After the call: an empty list is not "no problem", 20 rows are not 2, and
# 72 "days" is a unit error that shows up as a range error.

def check_result(name: str, value: Any) -> str | None:
    """None when value meets TOOLS[name]["returns"]; else one reason. Never raises.

    Reasons: shape:result (not a dict), shape:<key> (missing or wrong type),
    empty:<key> (unless allow_empty), too_big:<key> (over max_len),
    range:<key> (outside min/max, NaN too). Inside `items` the field is a
    dotted path: range:rows.qty. Extra keys are allowed.

    The rules, as the grader judges them:

    - 3.1 `check_result` reads `TOOLS[name]` when it is called, and returns `None` when `value`
      meets its returns spec. Keys the spec does not mention are allowed.
    - 3.2 A value that is not a dict is `shape:result`. A dict subclass (an `OrderedDict`, as
      `json.loads(..., object_pairs_hook=OrderedDict)` gives) is a dict, as a value, a row or a
      key's value.
    - 3.3 A key of the spec that is missing, or a value of the wrong type, is `shape:<key>`:
      `True` is not an int, `4.0` is not an int, an int is a fine float (`total=10` passes), and
      an `any` key takes every type.
    - 3.4 An empty list, dict or str is `empty:<key>` unless the spec says `allow_empty=True`,
      in an `any` key too; `0`, `False` and `None` are not empty. An empty tuple, set or bytes
      (`()`, `set()`, `b""`) in an `any` key is no JSON value a tool sends: calling it empty or
      not is yours.
    - 3.5 A list longer than `max_len` is `too_big:<key>`; exactly `max_len` items pass.
    - 3.6 A number outside `min..max` is `range:<key>` (both bounds inclusive), NaN too; a float
      key with no `min` and no `max` lets NaN through, and so does an `any` key. An int too big
      for a float, such as `10 ** 400`, is compared as it is: outside `min..max` it is
      `range:<key>`, and it never makes `check_result` raise.
    - 3.7 Every item of a list with `items` is checked against the item specs, items of items
      too, and the field is its dotted path: `range:rows.qty`; an item that is not a dict is
      `shape:<key>`. Naming the item's position as well (`range:rows.1.qty`,
      `range:rows[1].qty`) is right too: no later stage reads what follows the list's name.
    - 3.8 `check_result` never raises on a value JSON could send, nor on a set, bytes, an object
      or a dict with int keys where a key's value should be: each gets `None` or a reason. A
      value that breaks a rule never gets `None`, whatever another key holds. The one exception
      to "never raises": beside a value whose own `==` raises (no JSON value does), letting that
      `TypeError` out is right too, and so is a reason (the door refuses either); `None` is not:
      an `except` that answers `None` passes what it could not check.
    """
    # BEGIN SOLUTION
    if not isinstance(value, dict):
        return "shape:result"
    return check_fields(TOOLS[name]["returns"], value, prefix="")
    # END SOLUTION


def check_fields(specs: dict, value: dict, prefix: str) -> str | None:
    """The first reason a dict breaks specs (key -> return spec), fields named prefix + key.

    For each key in the spec's order: shape, then empty, then too_big, then range, then its
    items, each item a dict checked by check_fields itself with prefix + key + ".".
    """
    # BEGIN SOLUTION
    for key, spec in specs.items():
        if key not in value or not has_type(value[key], spec["type"]):
            return f"shape:{prefix}{key}"
        item = value[key]
        if isinstance(item, (list, dict, str)):
            if not item and not spec.get("allow_empty", False):
                return f"empty:{prefix}{key}"
            if "max_len" in spec and len(item) > spec["max_len"]:
                return f"too_big:{prefix}{key}"
        elif not in_range(item, spec):
            return f"range:{prefix}{key}"
        if "items" in spec:
            for element in item:
                if not isinstance(element, dict):
                    return f"shape:{prefix}{key}"
                reason = check_fields(spec["items"], element, prefix=f"{prefix}{key}.")
                if reason:
                    return reason
    return None
    # END SOLUTION


# ── Stage 4 · door ───────────────────────────────────────────────────────────
# Every call goes through one door. Whatever happens behind it, what comes out
# is a value: {"ok", "value", "error"}, with a reason the agent can route on.

def call_tool(name: str, args: dict) -> dict:
    """Call a tool through its contract; never lets an Exception out.

    The rules, as the grader judges them:

    - 4.1 Returns exactly `{"ok": bool, "value": ..., "error": str | None}`. ok is True only
      when every check passes: `{"ok": True, "value": value, "error": None}`. A failure has
      value None and its reason as error. The body is called with exactly the args given, as
      keywords: an optional arg left out stays out (its `default` is documentation only: the
      door never fills it in), and none is added or dropped.
    - 4.2 A name that is not a str, or not in TOOLS, is `tool:unknown:<name>`; args that are not
      a dict are `args:shape:args`. A name that is not a str may be spelled your way after
      `tool:unknown:` (`str(name)` is one way): no tool has it, and nothing reads it.
    - 4.3 Args that check_args refuses are `args:<reason>`, and the body is not run.
    - 4.4 Any Exception from the body is `tool:raised:<ExceptionType>`. `<ExceptionType>` names
      the exception's class: `type(e).__name__` (`KeyError`), or a dotted name that ends in it
      (`Inventory.Down`, `builtins.KeyError`). KeyboardInterrupt, SystemExit, GeneratorExit and
      asyncio.CancelledError are no Exception: the door lets them out.
    - 4.5 A value that check_result refuses is `result:<reason>`.
    - 4.6 In order: `tool:unknown:<name>`, `args:shape:args`, `args:<reason>`,
      `tool:raised:<ExceptionType>`, `result:<reason>`; else ok.
    """
    # BEGIN SOLUTION
    if not isinstance(name, str) or name not in TOOLS:
        return failure(f"tool:unknown:{name}")
    if not isinstance(args, dict):
        return failure("args:shape:args")
    reason = check_args(name, args)
    if reason:
        return failure(f"args:{reason}")
    try:
        value = TOOLS[name]["fn"](**args)
    except Exception as error:  # KeyboardInterrupt and SystemExit still stop the program
        return failure(f"tool:raised:{type(error).__name__}")
    reason = check_result(name, value)
    if reason:
        return failure(f"result:{reason}")
    return {"ok": True, "value": value, "error": None}
    # END SOLUTION


def failure(reason: str) -> dict:
    """The door's envelope for a failed call: no value, and the reason why."""
    return {"ok": False, "value": None, "error": reason}


# ── Stage 5 · memo ───────────────────────────────────────────────────────────
# An agent asks the same thing again and again. Remember each success under a
# key that is the same whenever the question is; never remember a failure,
# or it is replayed long after the cause is gone.

def memo_key(name: str, args: dict) -> str | None:
    """name plus the args as sorted JSON; None when JSON cannot hold the args exactly.

    json.dumps would quietly turn a tuple into a list and a key 1 into "1", and
    collide; it writes NaN, which is no JSON; it cannot write a list that holds
    itself; and Python will not print an int of over 4300 digits. The space
    between the name and the JSON keeps ("t1", 2) apart from ("t", 12).

    The rules, as the grader judges them:

    - 5.1 Equal for args equal up to key order, nested too. A str name and dict args JSON holds
      exactly always get a key, whatever their strs say. `-0.0` and `0.0` are equal floats that
      JSON writes apart: one key for both, or two, is yours (a second key only costs a body
      run).
    - 5.2 Two different calls never share a key: 1, 1.0 and True give different keys, and so do
      two tool names. memo_key never raises: a name that is not a str, args that are not a dict
      and ints of more than 14,000 bits may get None or a key of their own.
    - 5.3 None when JSON cannot hold the args exactly: NaN and infinities, tuples, sets, bytes
      and other objects, keys that are not str, and a list that holds itself. An int of up to
      14,000 bits gets a key. A call without a key is never remembered.
    """
    # BEGIN SOLUTION
    if not isinstance(name, str) or not is_json(args):
        return None
    return f"{name} {json.dumps(args, sort_keys=True)}"
    # END SOLUTION


def is_json(value: Any) -> bool:
    """Can JSON hold value exactly?

    None, str, int (of 14,000 bits at most), bool, finite float; lists; dicts with str keys.
    Never raises: a list that holds itself is no JSON.
    """
    # BEGIN SOLUTION
    kind = type(value)
    if value is None or kind in (str, bool):
        return True
    if kind is int:  # Python will not print an int of over 4300 digits; MAX_INT_BITS (14,000) stay below that
        return value.bit_length() <= MAX_INT_BITS
    if kind is float:
        return math.isfinite(value)
    try:  # a list that holds itself recurses until Python stops it: no JSON text holds it
        if kind is list:
            return all(map(is_json, value))
        if kind is dict:
            return all(type(k) is str and is_json(v) for k, v in value.items())
    except RecursionError:
        return False
    return False
    # END SOLUTION


def call_memo(name: str, args: dict, memo: dict) -> dict:
    """call_tool behind a memo: a hit returns the remembered envelope without running the body.

    Here each envelope is kept as JSON text, loaded again on every hit, and only
    when is_json holds its value.

    The rules, as the grader judges them:

    - 5.4 A hit returns the remembered envelope without running the body.
    - 5.5 Only ok envelopes are remembered.
    - 5.6 A hit equals the envelope it remembers and is never the same object, so a caller who
      changes a returned value cannot change what a later hit returns. call_memo never raises: a
      value JSON cannot hold exactly (a set, a tuple, a key 1, a list that holds itself, an int
      of over 4,300 digits) is not remembered, or remembered exactly.
    """
    # BEGIN SOLUTION
    key = memo_key(name, args)
    if key is not None and key in memo:
        return json.loads(memo[key])
    envelope = call_tool(name, args)
    if key is not None and envelope["ok"] and is_json(envelope["value"]):
        memo[key] = json.dumps(envelope)  # a value JSON cannot hold is returned, not remembered
    return envelope
    # END SOLUTION


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
# None when it cannot help after all. A fix reads the field the reason names
# (field_of) as a top-level arg of the contract: for a dotted field such as
# where.min_qty it finds none, and cannot help.
#
# The rules of FIXES, as the grader judges them:
# - 6.8 FIXES maps args:allowed:region to use_default_region, args:range to clamp_into_range,
#   args:unknown to rename_or_drop and result:too_big to switch_to_upgrade. A fix changes only
#   the field its reason names, and every other arg the caller gave stays as it was:
#   rename_or_drop renames onto a contract arg not given yet, else drops the name;
#   switch_to_upgrade returns None (or `{"tool": None}`) when the tool has no upgrade, and never
#   raises. clamp_into_range sets the arg to min when it is below min, to max when it is above
#   max, an int of any size too; NaN is neither, so for NaN it may return None, or set the arg
#   to any number within the bounds (min, max, or between). A fix returns a new args dict: the
#   one in `state["args"]` is the caller's, and stays as it was. use_default_region sets
#   DEFAULT_REGION whatever the value was, a near miss (`"Busan"`) too. What rename_or_drop does
#   with an arg name that is not a str (`{1: 2}`) is yours: the lesson's names are strs, and the
#   grade sends no other to a fix.
# BEGIN SOLUTION
def use_default_region(state: RunState) -> dict:
    return {"args": {**state["args"], "region": DEFAULT_REGION}}


def clamp_into_range(state: RunState) -> dict:
    arg = field_of(state["result"]["error"])
    spec, value = TOOLS[state["tool"]]["args"][arg], state["args"][arg]
    if "min" in spec and not value >= spec["min"]:  # NaN lands on min
        value = spec["min"]
    elif "max" in spec and not value <= spec["max"]:
        value = spec["max"]
    return {"args": {**state["args"], arg: value}}


def rename_or_drop(state: RunState) -> dict:
    arg, args = field_of(state["result"]["error"]), dict(state["args"])
    value = args.pop(arg)
    free = [name for name in TOOLS[state["tool"]]["args"] if name not in args]
    closest = difflib.get_close_matches(arg, free, n=1, cutoff=0.6)
    if closest:
        args[closest[0]] = value
    return {"args": args}


def switch_to_upgrade(state: RunState) -> dict | None:
    upgrade = TOOLS[state["tool"]].get("upgrade")
    return {"tool": upgrade} if upgrade else None


FIXES: dict[str, Callable[[RunState], dict | None]] = {
    "args:allowed:region": use_default_region,
    "args:range": clamp_into_range,
    "args:unknown": rename_or_drop,
    "result:too_big": switch_to_upgrade,
}
# END SOLUTION
# BEGIN PROMPT
# FIXES: dict[str, Callable[[RunState], dict | None]] = {}   # Stage 6: reason -> fix (notebook 06)
# END PROMPT


def find_fix(reason: str) -> Callable | None:
    """The fix for a reason: by the full reason, else by its <stage>:<check> prefix."""
    # BEGIN SOLUTION
    return FIXES.get(reason) or FIXES.get(":".join(reason.split(":")[:2]))
    # END SOLUTION


def pick(state: RunState, runtime: Runtime[RunContext]) -> dict:
    """Node: the request becomes a tool and its args."""
    # BEGIN SOLUTION
    picker = runtime.context.picker or pick_by_rules
    tool, args = picker(state["request"])
    return {"tool": tool, "args": args, "attempts": 0, "result": None, "path": ["pick"]}
    # END SOLUTION


def call(state: RunState, runtime: Runtime[RunContext]) -> dict:
    """Node: one call through the memo and the door; a failure adds its reason."""
    # BEGIN SOLUTION
    envelope = call_memo(state["tool"], state["args"], runtime.context.memo)
    return {"result": envelope, "attempts": state["attempts"] + 1, "path": ["call"],
            "reasons": [] if envelope["ok"] else [envelope["error"]]}
    # END SOLUTION


def before_call(state: RunState, runtime: Runtime[RunContext]) -> str:
    """Edge: call while attempts remain (a limit of 0 allows none)."""
    # BEGIN SOLUTION
    return "call" if state["attempts"] < runtime.context.max_attempts else "give_up"
    # END SOLUTION


def after_call(state: RunState, runtime: Runtime[RunContext]) -> str:
    """Edge: answer an ok value; fix a fixable, new reason while attempts remain; else give up."""
    # BEGIN SOLUTION
    if state["result"]["ok"]:
        return "answer"
    reason = state["reasons"][-1]
    if state["attempts"] >= runtime.context.max_attempts:
        return "give_up"
    if reason in state["reasons"][:-1] or find_fix(reason) is None:
        return "give_up"
    return "fix"
    # END SOLUTION


def fix(state: RunState) -> dict:
    """Node: apply the fix for the last reason (it may find it cannot help)."""
    # BEGIN SOLUTION
    try:
        change = find_fix(state["result"]["error"])(state)
    except Exception:  # a fix that breaks on odd args cannot help: give up, don't crash
        change = None
    return {**(change or {"tool": None}), "path": ["fix"]}
    # END SOLUTION


def after_fix(state: RunState) -> str:
    """Edge: call again with the fixed tool and args, or give up when the fix could not help."""
    # BEGIN SOLUTION
    return "call" if state["tool"] is not None else "give_up"
    # END SOLUTION


def answer(state: RunState) -> dict:
    """Node: a sentence built only from the ok value."""
    # BEGIN SOLUTION
    try:
        value = json.dumps(state["result"]["value"], sort_keys=True, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):  # mixed key types cannot be sorted, a list that holds itself: repr writes both
        try:
            value = repr(state["result"]["value"])
        except ValueError:  # an int of over 4300 digits: Python prints it nowhere
            value = "a value holding an int too long to print"
    return {"status": "answered", "answer": f"{state['tool']} answered: {value}", "path": ["answer"]}
    # END SOLUTION


def give_up(state: RunState) -> dict:
    """Node: stop with the reasons gathered so far, and no answer."""
    # BEGIN SOLUTION
    return {"status": "gave_up", "answer": None, "path": ["give_up"]}
    # END SOLUTION


@functools.cache
def build_graph():
    """The compiled LangGraph: pick -> call -> (answer | fix -> call ... | give_up).

    The rules, as the grader judges them:

    - 6.1 MAX_ATTEMPTS = 3 and DEFAULT_REGION = "seoul"; build_graph() compiles a StateGraph
      with the nodes pick, call, fix, answer and give_up.
    """
    # BEGIN SOLUTION
    graph = StateGraph(RunState, context_schema=RunContext)
    for node in (pick, call, fix, answer, give_up):
        graph.add_node(node.__name__, node)
    graph.set_entry_point("pick")
    graph.add_conditional_edges("pick", before_call, ["call", "give_up"])
    graph.add_conditional_edges("call", after_call, ["answer", "fix", "give_up"])
    graph.add_conditional_edges("fix", after_fix, ["call", "give_up"])
    graph.add_edge("answer", END)
    graph.add_edge("give_up", END)
    return graph.compile()
    # END SOLUTION


def run(request: Any, max_attempts: int = MAX_ATTEMPTS, memo: dict | None = None,
        picker: Callable[[Any], tuple] | None = None) -> dict:
    """Run one request through the graph; return the final state. Never raises (but see picker).

    request is {"tool": name, "args": {...}}.

    The rules, as the grader judges them:

    - 6.2 A call that succeeds goes straight to answer: status "answered", one door call,
      through the memo run is given. The answer is a sentence that shows the ok value's text:
      every str in it, keys too, as it is (non-ASCII letters such as É too, never escaped), or
      with the escapes `json.dumps` or `repr` write for quotes, backslashes and control
      characters (those are not letters). A value JSON cannot show (keys of mixed types, a list
      that holds itself) is answered with its text too, as `repr` writes it; one that holds an
      int of over 4,300 digits, which nothing in Python prints, with any sentence.
    - 6.3 A fix is looked up by the full reason, then by its `<stage>:<check>` prefix, never by
      how a reason starts: `args:allowed:region_code` has no fix; a fixable reason takes the fix
      edge and calls again.
    - 6.4 A reason with no fix (result:empty above all) goes straight to give_up: one door call.
    - 6.5 A reason that comes back, or a fix that cannot help, gives up: a fix cannot help when
      it returns None (no upgrade) or when its field is not an arg of the contract (a dotted
      field such as where.min_qty). use_default_region may instead return None (cannot help)
      where the contract's allowed list has no DEFAULT_REGION.
    - 6.6 At most max_attempts door calls; max_attempts=0 makes none, and so does a negative
      one. Any int is a limit: a run of max_attempts calls is never cut short, and a huge
      max_attempts (2 ** 40) costs nothing until the calls are made. A max_attempts that is not
      an int (True and False included) makes no call: the run gives up at once (status
      "gave_up", attempts 0, answer None) with a reason that names max_attempts, such as
      run:type:max_attempts.
    - 6.7 The state holds tool, args, result (the last envelope), reasons, path, attempts,
      status and answer.
    - 6.9 picker(request) replaces the rules in pick: it is called once and must return (tool,
      args), which go to the door as they are. An exception out of the picker either goes out of
      run as it is, or ends the run gave_up at once (attempts 0, answer None) with a reason that
      names its type, such as pick:raised:ValueError.
    """
    # BEGIN SOLUTION
    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int):
        return {"request": request, "tool": None, "args": None, "result": None,
                "reasons": ["run:type:max_attempts"], "path": [], "attempts": 0,
                "status": "gave_up", "answer": None}
    context = RunContext(memo={} if memo is None else memo, max_attempts=max_attempts, picker=picker)
    # Each attempt is two steps (call, fix); the default recursion limit must not cut the run short.
    config = {"recursion_limit": 2 * max(max_attempts, 1) + 5}
    return build_graph().invoke({"request": request}, config=config, context=context)
    # END SOLUTION


check_table(TOOLS)  # this module's own table, whatever name it is imported under
