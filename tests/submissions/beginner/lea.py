# A beginner's tools.py, written for issue 33 by the engineer who added the check that sees its bug: the
# kit's minimal correct module (../correct/kit_minimal.py) with one habit of a beginner who wrote from the
# notebooks, who tests an allowed list with ==. Its bug, and the fix, are in table.py; see README.md.
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

import copy
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
from agtool.contract import ODD_LIMIT
from agtool.contract import PY_TYPES as _PY_TYPES

# ── Stage 1 · contract ───────────────────────────────────────────────────────
# One table says, for each tool, what it takes and what it gives back. The
# checks read it, and so does the model: its tool descriptions are drawn from
# it, so the two can never disagree.

_REGION = {"type": "str", "allowed": list(inventory.REGIONS)}
_STOCK_ARGS = {"sku": {"type": "str"}, "region": _REGION, "limit": {"type": "int", "min": 1, "max": 2}}
_STOCK_RETURNS = {
    "sku": {"type": "str"},
    "rows": {"type": "list", "max_len": 2, "items": {"region": {"type": "str"}, "qty": {"type": "int", "min": 0}}},
}

TOOLS: dict[str, dict] = {
    "stock_lookup": {
        "fn": inventory.stock_lookup,
        "description": "Stock of a SKU per warehouse, nearest region first (ignores limit for bulk SKUs).",
        "args": _STOCK_ARGS,
        "returns": _STOCK_RETURNS,
        "upgrade": "stock_lookup_v2",
    },
    "stock_lookup_v2": {
        "fn": inventory.stock_lookup_v2,
        "description": "Stock of a SKU per warehouse, nearest region first, at most limit rows.",
        "args": _STOCK_ARGS,
        "returns": _STOCK_RETURNS,
    },
    "delivery_eta": {
        "fn": inventory.delivery_eta,
        "description": "Days for a SKU to reach a region from the warehouse it ships from.",
        "args": {"sku": {"type": "str"}, "region": _REGION},
        "returns": {"sku": {"type": "str"}, "region": {"type": "str"}, "days": {"type": "int", "min": 0, "max": 14}},
    },
}


def describe_tools() -> list[dict]:
    """The model's tool list, drawn from TOOLS, in OpenAI function-calling form."""
    return [
        {"type": "function", "function": {"name": name, "description": e["description"], "parameters": object_schema(e["args"])}}
        for name, e in TOOLS.items()
    ]


def object_schema(specs: dict) -> dict:
    """The JSON Schema of a dict with the keys of specs (the args, or a dict arg's properties), no others."""
    return {
        "type": "object",
        "properties": {k: arg_schema(s) for k, s in specs.items()},
        "required": [k for k, s in specs.items() if s.get("required", True)],
        "additionalProperties": False,
    }


def arg_schema(spec: dict) -> dict:
    """The JSON Schema of one arg spec: type (none for "any"), enum, minimum, maximum, properties, items,
    and its description if it has one."""
    schema = {"type": JSON_TYPES[spec["type"]]} if spec["type"] in JSON_TYPES else {}
    schema |= {kw: spec[k] for k, kw in [("allowed", "enum"), ("min", "minimum"), ("max", "maximum"),
                                          ("description", "description")] if k in spec}
    if "properties" in spec:
        schema |= object_schema(spec["properties"])
    if "items" in spec:
        schema["items"] = arg_schema(spec["items"])
    return schema


# ── Stage 2 · argument check ─────────────────────────────────────────────────

def check_args(name: str, args: dict) -> str | None:
    """None when args meet TOOLS[name]["args"]; else one reason (see notebook 02 for the rules)."""
    return check_arg_fields(TOOLS[name]["args"], args, "")


def check_arg_fields(specs: dict, args: dict, prefix: str) -> str | None:
    """The first reason a dict breaks specs (name -> arg spec), fields named prefix + name."""
    for key in args:
        if key not in specs:
            return f"unknown:{prefix}{key}"
    for key, spec in specs.items():
        if key not in args:
            if spec.get("required", True):
                return f"missing:{prefix}{key}"
        elif reason := _check_value(spec, args[key], prefix + key):
            return reason
    return None


def _check_value(spec: dict, value: Any, where: str) -> str | None:
    """type, range, allowed, then the insides (an item is named by its list)."""
    if not has_type(value, spec["type"]):
        return f"type:{where}"
    if not in_range(value, spec):
        return f"range:{where}"
    if "allowed" in spec and not any(value == a for a in spec["allowed"]):
        return f"allowed:{where}"
    if "properties" in spec:
        return check_arg_fields(spec["properties"], value, where + ".")
    for item in value if "items" in spec else ():
        if reason := _check_value(spec["items"], item, where):
            return reason
    return None


def has_type(value: Any, kind: str) -> bool:
    """Is value of the contract type `kind`? True and False are only bools; an int is also a float."""
    return kind in ("bool", "any") if isinstance(value, bool) else isinstance(value, _PY_TYPES[kind])


def in_range(value: Any, spec: dict) -> bool:
    """Within min and max (both inclusive, both optional)? NaN is within no bound."""
    return ("min" not in spec or spec["min"] <= value) and ("max" not in spec or value <= spec["max"])


# ── Stage 3 · result check ───────────────────────────────────────────────────

def check_result(name: str, value: Any) -> str | None:
    """None when value meets TOOLS[name]["returns"]; else one reason. Never raises."""
    specs = TOOLS[name]["returns"]
    return check_fields(specs, value, "") if isinstance(value, dict) else "shape:result"


def check_fields(specs: dict, value: dict, prefix: str) -> str | None:
    """The first reason a dict breaks specs (key -> return spec), fields named prefix + key.

    For each key in the spec's order: shape, then empty, then too_big, then range, then its
    items, each item a dict checked by check_fields itself with prefix + key + ".".
    """
    for key, spec in specs.items():
        where = prefix + key
        if key not in value or not has_type(v := value[key], spec["type"]):
            return f"shape:{where}"
        if not spec.get("allow_empty", False) and isinstance(v, (str, list, dict)) and not v:
            return f"empty:{where}"
        if len(v) > spec["max_len"] if "max_len" in spec else False:
            return f"too_big:{where}"
        if not in_range(v, spec):
            return f"range:{where}"
        for item in v if "items" in spec else ():
            if not isinstance(item, dict):
                return f"shape:{where}"
            if reason := check_fields(spec["items"], item, where + "."):
                return reason
    return None


# ── Stage 4 · door ───────────────────────────────────────────────────────────

def _text(value: Any, show: Callable[[Any], str] = str) -> str:
    """show(value), or the type's name when even that raises (an int of over 4300 digits)."""
    try:
        return show(value)
    except Exception:
        return f"<{type(value).__name__}>"


def call_tool(name: str, args: dict) -> dict:
    """Call a tool through its contract; never lets an Exception out.

    In order: tool:unknown:<name>, args:shape:args, args:<reason>,
    tool:raised:<ExceptionType>, result:<reason>; else ok.
    """
    if not isinstance(name, str) or name not in TOOLS:
        return failure(f"tool:unknown:{_text(name)}")
    if not isinstance(args, dict):
        return failure("args:shape:args")
    if reason := check_args(name, args):
        return failure(f"args:{reason}")
    try:
        value = TOOLS[name]["fn"](**args)
    except Exception as error:
        return failure(f"tool:raised:{type(error).__name__}")
    if reason := check_result(name, value):
        return failure(f"result:{reason}")
    return {"ok": True, "value": value, "error": None}


def failure(reason: str) -> dict:
    """The door's envelope for a failed call: no value, and the reason why."""
    return {"ok": False, "value": None, "error": reason}


# ── Stage 5 · memo ───────────────────────────────────────────────────────────

def memo_key(name: str, args: dict) -> str | None:
    """name plus the args as sorted JSON; None when JSON cannot hold the args exactly. Never raises."""
    try:
        return f"{name} {json.dumps(args, sort_keys=True)}" if isinstance(name, str) and is_json(args) else None
    except RecursionError:  # nested deeper than Python recurses
        return None


def is_json(value: Any) -> bool:
    """Can JSON hold value exactly?

    None, str, int (of 14,000 bits at most), bool, finite float; lists; dicts with str keys.
    """
    return _json_exact(value, ())


def _json_exact(value: Any, open_ids: tuple) -> bool:
    match value:
        case None | bool() | str():
            return True
        case int():
            return value.bit_length() <= MAX_INT_BITS
        case float():
            return math.isfinite(value)
        case list() | dict() if id(value) in open_ids:  # it holds itself
            return False
        case list():
            return all(_json_exact(v, (*open_ids, id(value))) for v in value)
        case dict():
            return all(isinstance(k, str) and _json_exact(v, (*open_ids, id(value))) for k, v in value.items())
    return False


def call_memo(name: str, args: dict, memo: dict) -> dict:
    """call_tool behind a memo: a hit returns the remembered envelope without running the body.

    Only ok envelopes are remembered, each as JSON text; a call without a key never is.
    """
    if (key := memo_key(name, args)) is not None and key in memo:
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
# None when it cannot help after all. A fix reads the field the reason names
# (field_of) as a top-level arg of the contract: for a dotted field such as
# where.min_qty it finds none, and cannot help.

def _contract_arg(state: RunState) -> str | None:
    """The last reason's field, when it is a top-level arg of the contract that args hold."""
    name = field_of(state["reasons"][-1])
    return name if name in TOOLS[state["tool"]]["args"] and name in state["args"] else None


def use_default_region(state: RunState) -> dict | None:
    if name := _contract_arg(state):
        return {"args": {**state["args"], name: DEFAULT_REGION}}
    return None


def clamp_into_range(state: RunState) -> dict | None:
    if not (name := _contract_arg(state)):
        return None
    spec, value = TOOLS[state["tool"]]["args"][name], state["args"][name]
    low, high = spec.get("min"), spec.get("max")
    if value != value:  # NaN
        value = high if low is None else low
    elif low is not None and value < low:
        value = low
    elif high is not None and value > high:
        value = high
    else:
        return None
    return {"args": {**state["args"], name: value}}


def rename_or_drop(state: RunState) -> dict | None:
    args, wanted = state["args"], field_of(state["reasons"][-1])
    if not (keys := [k for k in args if str(k) == wanted]):  # a dotted field is no top-level arg
        return None
    free = [a for a in TOOLS[state["tool"]]["args"] if a not in args]
    fixed = {k: v for k, v in args.items() if k != keys[0]}
    if match := difflib.get_close_matches(wanted, free, n=1, cutoff=0.6):
        fixed[match[0]] = args[keys[0]]
    return {"args": fixed}


def switch_to_upgrade(state: RunState) -> dict | None:
    upgrade = TOOLS[state["tool"]].get("upgrade")
    return None if upgrade is None else {"tool": upgrade}


FIXES: dict[str, Callable[[RunState], dict | None]] = {
    "args:allowed:region": use_default_region,
    "args:range": clamp_into_range,
    "args:unknown": rename_or_drop,
    "result:too_big": switch_to_upgrade,
}


def find_fix(reason: str) -> Callable | None:
    """The fix for a reason: by the full reason, else by its <stage>:<check> prefix."""
    return FIXES.get(reason) or FIXES.get(":".join(reason.split(":")[:2]))


def pick(state: RunState, runtime: Runtime[RunContext]) -> dict:
    """Node: the request becomes a tool and its args."""
    tool, args = (runtime.context.picker or pick_by_rules)(state["request"])
    return {"tool": tool, "args": args, "attempts": 0, "result": None, "reasons": [], "path": ["pick"]}


def call(state: RunState, runtime: Runtime[RunContext]) -> dict:
    """Node: one call through the memo and the door; a failure adds its reason."""
    env = call_memo(state["tool"], state["args"], runtime.context.memo)
    return {"result": env, "attempts": state["attempts"] + 1, "reasons": [] if env["ok"] else [env["error"]],
            "path": ["call"]}


def before_call(state: RunState, runtime: Runtime[RunContext]) -> str:
    """Edge: call while attempts remain (a limit of 0 allows none)."""
    return "call" if state["attempts"] < runtime.context.max_attempts else "give_up"


def after_call(state: RunState, runtime: Runtime[RunContext]) -> str:
    """Edge: answer an ok value; fix a fixable, new reason while attempts remain; else give up."""
    if state["result"]["ok"]:
        return "answer"
    *seen, reason = state["reasons"]
    if state["attempts"] >= runtime.context.max_attempts or reason in seen or not find_fix(reason):
        return "give_up"
    return "fix"


def fix(state: RunState) -> dict:
    """Node: apply the fix for the last reason (it may find it cannot help)."""
    try:
        change = find_fix(state["reasons"][-1])(state)
    except Exception:  # a fix meeting odd args cannot help
        change = None
    return {**(change or {"tool": None}), "path": ["fix"]}


def after_fix(state: RunState) -> str:
    """Edge: call again with the fixed tool and args, or give up when the fix could not help."""
    return "give_up" if state["tool"] is None else "call"


def answer(state: RunState) -> dict:
    """Node: a sentence built only from the ok value."""
    return {"status": "answered", "answer": f"{state['tool']} answered: {_text(state['result']['value'], repr)}",
            "path": ["answer"]}


def give_up(state: RunState) -> dict:
    """Node: stop with the reasons gathered so far, and no answer."""
    return {"status": "gave_up", "answer": None, "path": ["give_up"]}


@functools.cache
def build_graph():
    """The compiled LangGraph: pick -> call -> (answer | fix -> call ... | give_up)."""
    graph = StateGraph(RunState, context_schema=RunContext)
    for node in (pick, call, fix, answer, give_up):
        graph.add_node(node)
    graph.set_entry_point("pick")
    graph.add_conditional_edges("pick", before_call, ["call", "give_up"])
    graph.add_conditional_edges("call", after_call, ["answer", "fix", "give_up"])
    graph.add_conditional_edges("fix", after_fix, ["call", "give_up"])
    graph.add_edge("answer", END)
    graph.add_edge("give_up", END)
    return graph.compile()


def run(request: Any, max_attempts: int = MAX_ATTEMPTS, memo: dict | None = None,
        picker: Callable[[Any], tuple] | None = None) -> dict:
    """Run one request through the graph; return the final state. Never raises (but see picker).

    A max_attempts that is not an int (True and False included) makes no call: the state is
    ODD_LIMIT. An exception out of the picker goes out of run as it is.
    """
    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int):
        return copy.deepcopy(ODD_LIMIT)
    context = RunContext({} if memo is None else memo, max_attempts, picker)
    # n calls are at most 2n + 1 steps: the counter ends the loop, never the recursion limit.
    return build_graph().invoke({"request": request}, context=context,
                                config={"recursion_limit": 2 * max(max_attempts, 0) + 3})


check_table(TOOLS)  # this module's own table, whatever name it is imported under
