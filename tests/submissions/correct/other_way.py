# Edited for issue 33, one line: the kit now states that bool is never equal to an int in an allowed
# list either (True == 1 in Python), so the allowed test compares the types too.
"""A correct tools.py written unlike the reference: the grader must give it 100.

Different orders where the spec allows any (inside a dict arg check_args reports contract
args before unknown names, check_result reports the last failing key), different closeness for
misspelt names (edit distance), the memo keeps deep copies, and the graph keeps its
limit and memo in the state instead of a runtime context.
"""

import copy
import json
import math
import operator
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, StateGraph

from agtool import inventory

REGION = {"type": "str", "allowed": ["seoul", "jeju", "busan"], "required": True}
STOCK = {"args": {"sku": {"type": "str", "required": True}, "region": REGION,
                  "limit": {"type": "int", "min": 1, "max": 2}},
         "returns": {"sku": {"type": "str", "allow_empty": False},
                     "rows": {"type": "list", "max_len": 2, "items": {"qty": {"type": "int", "min": 0},
                                                                     "region": {"type": "str"}}}}}
TOOLS = {
    "delivery_eta": {"fn": inventory.delivery_eta, "description": "Days to deliver a SKU to a region.",
                     "args": {"region": REGION, "sku": {"type": "str"}},
                     "returns": {"days": {"type": "int", "max": 14, "min": 0}}},
    "stock_lookup": {"fn": inventory.stock_lookup, "description": "Stock per warehouse (old endpoint).",
                     "upgrade": "stock_lookup_v2", **copy.deepcopy(STOCK)},
    "stock_lookup_v2": {"fn": inventory.stock_lookup_v2, "description": "Stock per warehouse.",
                        **copy.deepcopy(STOCK)},
}
SCHEMA_TYPES = dict(zip(["str", "int", "float", "bool", "list", "dict"],
                        ["string", "integer", "number", "boolean", "array", "object"]))


def schema_of(spec):
    out = {"description": f"a {spec['type']}"}
    if spec["type"] != "any":
        out["type"] = SCHEMA_TYPES[spec["type"]]
    out.update({json_key: spec[key] for key, json_key in [("min", "minimum"), ("max", "maximum"), ("allowed", "enum")]
                if key in spec})
    if "properties" in spec:
        out.update(object_of(spec["properties"]))
    if "items" in spec:
        out["items"] = schema_of(spec["items"])
    return out


def object_of(specs):
    required = sorted(name for name in specs if specs[name].get("required") is not False)
    return {"type": "object", "additionalProperties": False, "required": required,
            "properties": {name: schema_of(spec) for name, spec in specs.items()}}


def describe_tools():
    return [{"function": {"parameters": object_of(entry["args"]), "description": entry["description"], "name": name},
             "type": "function"} for name, entry in sorted(TOOLS.items())]


def typed(value, kind):
    if kind == "any":
        return True
    if type(value) is bool:
        return kind == "bool"
    wanted = {"str": str, "int": int, "float": (int, float), "bool": bool, "list": list, "dict": dict}[kind]
    return isinstance(value, wanted)


def within(value, spec):
    low, high = spec.get("min", -math.inf), spec.get("max", math.inf)
    return low <= value <= high   # False for NaN: every comparison with NaN is


def arg_problems(specs, args, prefix):
    unknown = ("unknown:%s%s" % (prefix, name) for name in args if name not in specs)   # a name need not be a str
    if not prefix:   # top-level unknown names first, as the spec asks (stage 6 renames them)
        yield from unknown
    for name, spec in specs.items():   # inside a dict arg, contract first and unknown names last: any order is right
        field = prefix + name
        if name not in args:
            if spec.get("required", True):
                yield "missing:" + field
        elif not typed(args[name], spec["type"]):
            yield "type:" + field
        else:
            value = args[name]
            if ("min" in spec or "max" in spec) and not within(value, spec):
                yield "range:" + field
            if "allowed" in spec and not any(type(value) is type(a) and value == a for a in spec["allowed"]):
                yield "allowed:" + field
            if "properties" in spec:
                yield from arg_problems(spec["properties"], value, field + ".")
            for item in value if "items" in spec else []:
                yield from arg_problems({name: spec["items"]}, {name: item}, prefix)
    yield from unknown


def check_args(name, args):
    return next(arg_problems(TOOLS[name]["args"], args, ""), None)


def result_problems(specs, value, prefix):
    for key, spec in specs.items():
        field = prefix + key
        if key not in value or not typed(value[key], spec["type"]):
            yield "shape:" + field
            continue
        item = value[key]
        if "items" in spec:
            for element in item:
                if isinstance(element, dict):
                    yield from result_problems(spec["items"], element, field + ".")
                else:
                    yield "shape:" + field
        if type(item) in (str, list, dict):
            if len(item) > spec.get("max_len", math.inf):
                yield "too_big:" + field
            if len(item) == 0 and not spec.get("allow_empty"):
                yield "empty:" + field
        elif ("min" in spec or "max" in spec) and not within(item, spec):
            yield "range:" + field


def check_result(name, value):
    if not isinstance(value, dict):
        return "shape:result"
    problems = list(result_problems(TOOLS[name]["returns"], value, ""))
    return problems[-1] if problems else None   # the last one: any failing check is right


def call_tool(name, args):
    def fail(reason):
        return {"error": reason, "value": None, "ok": False}
    if type(name) is not str or name not in TOOLS:
        return fail("tool:unknown:%s" % (name,))
    if not isinstance(args, dict):
        return fail("args:shape:args")
    problem = check_args(name, args)
    if problem is not None:
        return fail("args:" + problem)
    try:
        value = TOOLS[name]["fn"](**args)
    except Exception as error:
        return fail("tool:raised:" + error.__class__.__name__)
    problem = check_result(name, value)
    return fail("result:" + problem) if problem else {"error": None, "value": value, "ok": True}


def exact_json(value):
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        if type(item) in (list, dict):  # met twice: it may hold itself, and no JSON text does
            if id(item) in seen:
                return False
            seen.add(id(item))
        if type(item) is float:
            if item != item or item in (math.inf, -math.inf):
                return False
        elif type(item) is int and item.bit_length() > 14_000:
            return False
        elif type(item) is list:
            stack.extend(item)
        elif type(item) is dict:
            if any(type(key) is not str for key in item):
                return False
            stack.extend(item.values())
        elif item is not None and type(item) not in (str, int, bool):
            return False
    return True


def memo_key(name, args):
    if type(name) is not str or not exact_json(args):
        return None
    return name + "|" + json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def call_memo(name, args, memo):
    key = memo_key(name, args)
    if key in memo:
        return copy.deepcopy(memo[key])
    envelope = call_tool(name, args)
    if key is not None and envelope["ok"] and exact_json(envelope["value"]):
        memo[key] = copy.deepcopy(envelope)
    return envelope


MAX_ATTEMPTS = 3
DEFAULT_REGION = "seoul"


def distance(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        row, previous = [i], row
        for j, y in enumerate(b, 1):
            row.append(min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (x != y)))
    return row[-1]


def field_of(state):
    return state["result"]["error"].split(":", 2)[2]


def region_fix(state):
    return {"args": dict(state["args"], region=DEFAULT_REGION)}


def clamp_fix(state):
    name = field_of(state)
    spec = TOOLS[state["tool"]]["args"][name]
    value = state["args"][name]
    if value != value:  # NaN: min if there is one, else max
        value = spec["min"] if "min" in spec else spec["max"]
    value = max(spec.get("min", -math.inf), min(spec.get("max", math.inf), value))
    return {"args": dict(state["args"], **{name: value})}


def rename_fix(state):
    name = field_of(state)
    if name not in state["args"]:  # a dotted field: nothing here to rename
        return {"tool": None}
    args = {key: value for key, value in state["args"].items() if key != name}
    close = [known for known in TOOLS[state["tool"]]["args"] if known not in args and distance(known, name) <= 2]
    if close:
        args[min(close, key=lambda known: distance(known, name))] = state["args"][name]
    return {"args": args}


def upgrade_fix(state):
    return {"tool": TOOLS[state["tool"]]["upgrade"]} if "upgrade" in TOOLS[state["tool"]] else {"tool": None}


FIXES = {"args:range": clamp_fix, "args:unknown": rename_fix, "result:too_big": upgrade_fix,
         "args:allowed:region": region_fix}


class State(TypedDict, total=False):
    request: Any
    tool: Any
    args: Any
    result: Any
    reasons: Annotated[list, operator.add]
    path: Annotated[list, operator.add]
    attempts: int
    status: str
    answer: Any
    limit: int
    memo: Any
    picker: Any


def pick(state):
    if state.get("picker") is not None:
        tool, args = state["picker"](state["request"])
        return {"tool": tool, "args": args, "attempts": 0, "result": None, "reasons": [], "path": ["pick"]}
    request = state["request"] if isinstance(state["request"], dict) else {}
    return {"tool": request.get("tool"), "args": request.get("args", {}), "attempts": 0, "result": None,
            "reasons": [], "path": ["pick"]}


def call(state):
    envelope = call_memo(state["tool"], state["args"], state["memo"])
    return {"result": envelope, "attempts": state["attempts"] + 1, "path": ["call"],
            "reasons": [] if envelope["ok"] else [envelope["error"]]}


def fix_for(reason):
    return FIXES.get(reason, FIXES.get(":".join(reason.split(":")[:2])))


def fix(state):
    try:
        change = fix_for(state["result"]["error"])(state)
    except Exception:
        change = {"tool": None}
    return {**change, "path": ["fix"]}


def answer(state):
    try:
        text = "%r" % (state["result"]["value"],)
    except ValueError:  # an int of over 4,300 digits: repr refuses it (the spec says so since this release)
        text = "a value too big to print"
    return {"status": "answered", "answer": "Here is what came back: " + text, "path": ["answer"]}


def give_up(state):
    return {"status": "gave_up", "answer": None, "path": ["give_up"]}


def route(state):
    if state["attempts"] >= state["limit"]:
        return "answer" if state["result"] and state["result"]["ok"] else "give_up"
    if state["result"] is None:
        return "call"
    if state["result"]["ok"]:
        return "answer"
    newest = state["reasons"][-1]
    return "give_up" if newest in state["reasons"][:-1] or fix_for(newest) is None else "fix"


def build_graph():
    graph = StateGraph(State)
    for node in (pick, call, fix, answer, give_up):
        graph.add_node(node.__name__, node)
    graph.set_entry_point("pick")
    graph.add_conditional_edges("pick", route, ["call", "give_up"])
    graph.add_conditional_edges("call", route, ["answer", "fix", "give_up"])
    graph.add_conditional_edges("fix", lambda state: "call" if state["tool"] is not None else "give_up",
                                ["call", "give_up"])
    graph.add_edge("answer", END)
    graph.add_edge("give_up", END)
    return graph.compile()


def run(request, max_attempts=MAX_ATTEMPTS, memo=None, picker=None):
    if type(max_attempts) is not int:
        return {"tool": None, "args": None, "result": None, "reasons": ["run:type:max_attempts"], "path": [],
                "attempts": 0, "status": "gave_up", "answer": None}
    state = {"request": request, "limit": max_attempts, "memo": {} if memo is None else memo, "picker": picker}
    return build_graph().invoke(state, {"recursion_limit": 2 * max(max_attempts, 1) + 5})
