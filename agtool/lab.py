"""agtool.lab: what the notebooks use to show things. You do not need to change it.

Whatever a notebook demonstrates is done here or in tools.py, never only in the
notebook, so every demonstration is ordinary code you can read:

- attempt(fn, *args): call fn; an exception comes back as a value (the last line
  of its traceback), so a failure is something to look at, not the end of the
  notebook. A stage you have not written yet shows "not implemented yet".
- Table: rows under named columns with a caption, Markdown as text and a table in
  Jupyter: what the optional notebooks' results show themselves as.
- examples(fn, rows): worked examples as a table: the call, what the spec says,
  what your function says. A reason agrees in every spelling the rules allow (an item's
  position after its list, a dotted exception name, any spelling of a tool name that is
  no str), as the grade judges it: agtool.contract.spelt_alike.
- naive_agent(requests) and reply(tool, value): an agent with no contract, and
  the sentence a model writes about a result it trusts.
- the incidents of the later stages: restock() changes the inventory under the
  agent's feet, naive_memo_call() remembers everything, retry_until_ok() never
  gives up; countdown_graph() is a LangGraph graph small enough to read first.
- a write: PLACE_ORDER, the order desk's contract, and orders_placed(fn, ...),
  which counts the orders a call wrote (notebook 06, "A write").
"""

import html
import math
import operator
import traceback
from collections import Counter
from dataclasses import dataclass
from typing import Annotated, TypedDict

import jsonschema
from langgraph.graph import END, StateGraph

from agtool import inventory, student
from agtool.contract import spelt_alike

# ── Failure as a value ───────────────────────────────────────────────────────


@dataclass(frozen=True)
class Raised:
    """An exception, caught and shown as the last line of its traceback."""

    error: Exception

    def __repr__(self) -> str:
        if isinstance(self.error, NotImplementedError):
            return f"not implemented yet: {self.error}"
        return "raised " + traceback.format_exception_only(self.error)[-1].strip()


def attempt(fn, *args, **kwargs):
    """fn(*args, **kwargs), or Raised(the exception) if it raised one."""
    try:
        return fn(*args, **kwargs)
    except Exception as error:  # the whole point: what stops a plain loop becomes something to read
        return Raised(error)


# ── Tables ───────────────────────────────────────────────────────────────────


@dataclass(repr=False)
class Table:
    """Rows under named columns, and a caption: Markdown as text, a table in Jupyter (a float with two
    decimals). A result's own table (agtool.experiment, agtool.realworld) keeps beside it what its chart reads."""

    columns: list[str]
    rows: list[tuple]
    caption: str = ""

    def cells(self) -> list[list[str]]:
        return [[f"{value:.2f}" if isinstance(value, float) else str(value) for value in row] for row in self.rows]

    def __str__(self) -> str:
        lines = [self.columns, ["---"] * len(self.columns), *self.cells()]
        return "\n".join(
            ["| " + " | ".join(line) + " |" for line in lines] + (["", self.caption] if self.caption else [])
        )

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(column)}</th>" for column in self.columns)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>" for row in self.cells()
        )
        return f"<table><tr>{head}</tr>{body}</table><p>{html.escape(self.caption)}</p>"


# ── Worked examples ──────────────────────────────────────────────────────────


@dataclass
class Examples:
    """Rows of (call, what the spec says, what yours says); a table in Jupyter, text elsewhere."""

    rows: list[tuple[str, object, object]]
    odd_names: tuple[bool, ...] = ()  # per row: is the call's first argument (a tool's name) no str?

    def marks(self) -> list[str]:
        odd = self.odd_names or (False,) * len(self.rows)
        return [
            "…" if _not_yet(yours) else "✓" if _agrees(spec, yours, odd_name) else "✗"
            for (_, spec, yours), odd_name in zip(self.rows, odd, strict=True)
        ]

    def summary(self) -> str:
        not_yet = [yours for _, _, yours in self.rows if _not_yet(yours)]
        if not_yet:  # said once here, not on every row
            return f"{len(not_yet)} of {len(self.rows)} {not_yet[0]!r}"
        return f"{self.marks().count('✓')} of {len(self.rows)} agree with the spec"

    def cells(self) -> list[tuple[str, str, str, str]]:
        return [
            (mark, call, repr(spec), "…" if _not_yet(yours) else repr(yours))
            for (call, spec, yours), mark in zip(self.rows, self.marks(), strict=True)
        ]

    def __repr__(self) -> str:
        lines = [f"{mark} {call}  ->  spec: {spec}  yours: {yours}" for mark, call, spec, yours in self.cells()]
        return "\n".join([*lines, self.summary()])

    def _repr_html_(self) -> str:
        rows = "".join(
            "<tr>" + "".join(f"<td><code>{html.escape(cell)}</code></td>" for cell in cells) + "</tr>"
            for cells in self.cells()
        )
        return (
            f"<table><tr><th></th><th>call</th><th>the spec says</th><th>yours says</th></tr>{rows}</table>"
            f"<p>{html.escape(self.summary())}</p>"
        )


def _not_yet(value) -> bool:
    return isinstance(value, Raised) and isinstance(value.error, NotImplementedError)


def _same(a, b) -> bool:
    """Equal, and of the same type all the way down (True is not 1 here), NaN equal to NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    return a == b


def _agrees(spec, yours, odd_name: bool) -> bool:
    """The spec's answer, or a reason (alone, or an envelope's error) in a spelling the rules allow."""
    if _same(spec, yours):
        return True
    if isinstance(spec, dict) and isinstance(yours, dict) and spec.keys() == yours.keys() and "error" in spec:
        rest = all(_same(spec[key], yours[key]) for key in spec if key != "error")
        return rest and spelt_alike(yours["error"], spec["error"], odd_name)
    return spelt_alike(yours, spec, odd_name)


def examples(fn, rows: list[tuple[tuple, object]]) -> Examples:
    """Run fn on each row's arguments; set what comes back beside what the spec says."""
    return Examples(
        [(_shorten(f"{fn.__name__}({', '.join(map(repr, args))})"), spec, attempt(fn, *args)) for args, spec in rows],
        tuple(bool(args) and not isinstance(args[0], str) for args, _ in rows),
    )


def _shorten(text: str, width: int = 110) -> str:
    return text if len(text) <= width else text[: width - 5] + " …" + text[-3:]


# ── A model's view of tools ──────────────────────────────────────────────────

# A tool description written by hand, in a wiki, months before the checks:
# nothing ties it to what the tool accepts now.
HANDWRITTEN = {
    "type": "function",
    "function": {
        "name": "stock_lookup",
        "description": "Look up the stock of a product near a region.",
        "parameters": {
            "type": "object",
            "properties": {
                "sku": {"type": "string"},
                "region": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            },
            "required": ["sku"],
        },
    },
}


def described(name: str) -> dict:
    """The entry for tool `name` in your describe_tools()."""
    entries = [entry for entry in student.module().describe_tools() if entry["function"]["name"] == name]
    if not entries:
        raise LookupError(f"describe_tools() has no entry named {name!r}")
    return entries[0]


def schema_errors(tool: str | dict, args: dict) -> list[str]:
    """What JSON Schema says about args: [] when they validate, else one message per error.

    tool is a tool name (its schema comes from your describe_tools()) or a
    description in function-calling form, such as HANDWRITTEN.
    """
    description = described(tool) if isinstance(tool, str) else tool
    validator = jsonschema.Draft202012Validator(description["function"]["parameters"])
    return sorted(error.message for error in validator.iter_errors(args))


def reply(tool: str, value: dict) -> str:
    """The sentence a model writes about a result it was handed as a success.

    The lab has no language model in it (every run would differ). This stands
    in for one, and it trusts what it is given as models do: an empty list with
    no error is read as "nothing wrong", a number is taken in the unit asked for.
    """
    if tool.startswith("stock_lookup"):
        places = ", ".join(f"{row['qty']} in {row['region']}" for row in value["rows"])
        if not places:  # nothing to contradict it: the answer a model invents (Cogtrix issue 350)
            return f"Yes, {value['sku']} is in stock. Shall I reserve one for you?"
        return f"{value['sku']}: {places}."
    if tool == "delivery_eta":
        return f"{value['sku']} reaches {value['region']} in {value['days']} days."
    return f"{tool} says {value}"


def naive_agent(requests: list[dict]) -> list[str]:
    """An agent with no contract: runs each request's function with the model's args, as they come.

    Prints each reply as it goes. An exception in any call ends the whole run,
    and the requests after it are never answered.
    """
    replies = []
    for request in requests:
        value = getattr(inventory, request["tool"])(**request["args"])
        replies.append(reply(request["tool"], value))
        print(replies[-1])
    return replies


# ── A tool with numbers and a flag, for the argument check ──────────────────

PRICES = {"A-100": 39.0, "B-200": 24.5, "C-300": 12.0, "D-400": 96.0, "E-500": 120.0}


def price_quote(sku, quantity, discount=0.0, gift_wrap=False):
    """Price of quantity units of a SKU, after a discount (a fraction), gift wrap 3.0 a unit."""
    unit = PRICES[sku] * (1 - discount) + (3.0 if gift_wrap else 0.0)
    return {"sku": sku, "total": round(unit * quantity, 2)}


PRICE_QUOTE = {
    "fn": price_quote,
    "description": "Price of `quantity` units of a SKU, after an optional discount (0 to 0.5).",
    "args": {
        "sku": {"type": "str"},
        "quantity": {"type": "int", "min": 1, "max": 48},
        "discount": {"type": "float", "min": 0, "max": 0.5, "required": False},
        "gift_wrap": {"type": "bool", "required": False},
    },
    "returns": {"sku": {"type": "str"}, "total": {"type": "float", "min": 0}},
}


# ── A tool with nested arguments: a list of SKUs and a dict of conditions ────

_STOCK_ROWS = """
SELECT w.region, s.qty FROM stock s JOIN warehouses w USING (warehouse)
WHERE s.sku = ? ORDER BY w.region, s.qty DESC
"""


def stock_report(skus, where=None):
    """Stock rows of several SKUs at once; `where` keeps one region, and rows of at least min_qty."""
    where = where or {}
    rows = []
    for sku in skus:
        for region, qty in inventory.connect().execute(_STOCK_ROWS, (sku,)):
            if region == where.get("region", region) and qty >= where.get("min_qty", 0):
                rows.append({"sku": sku, "region": region, "qty": qty})
    return {"rows": rows}


STOCK_REPORT = {
    "fn": stock_report,
    "description": "Stock rows of several SKUs at once, optionally in one region and from a minimum quantity.",
    "args": {
        "skus": {"type": "list", "items": {"type": "str"}},
        "where": {
            "type": "dict",
            "required": False,
            "properties": {
                "region": {"type": "str", "allowed": list(inventory.REGIONS)},
                "min_qty": {"type": "int", "min": 0, "required": False},
            },
        },
    },
    "returns": {
        "rows": {
            "type": "list",
            "allow_empty": True,
            "items": {"sku": {"type": "str"}, "region": {"type": "str"}, "qty": {"type": "int", "min": 0}},
        }
    },
}


# ── The incidents of stages 5 and 6 ──────────────────────────────────────────


def restock(sku: str, warehouse: str, qty: int) -> None:
    """Put qty of sku in a warehouse: the inventory changes while the agent runs."""
    db = inventory.connect()
    with db:
        db.execute("DELETE FROM stock WHERE sku = ? AND warehouse = ?", (sku, warehouse))
        db.execute("INSERT INTO stock VALUES (?, ?, ?)", (sku, warehouse, qty))


def naive_memo_call(name: str, args: dict, memo: dict) -> dict:
    """A cache as it is often first written, with both of the lesson's mistakes."""
    key = name + str(args)  # str() keeps key order: the same question written twice is two keys
    if key not in memo:
        memo[key] = student.module().call_tool(name, args)  # failures too: replayed long after their cause is gone
    return memo[key]


def retry_until_ok(name: str, args: dict, budget: int = 50) -> dict:
    """Call again, unchanged, until ok: what a loop with no fix and no limit does.

    `budget` stands in for "forever" so the notebook can go on; a real loop
    has no such stop (LangGraph's default recursion limit is about 10,000 steps).
    """
    reasons: Counter[str] = Counter()
    for calls in range(1, budget + 1):
        envelope = student.module().call_tool(name, args)
        if envelope["ok"]:
            return {"door calls": calls, "ok": True, "failures": dict(reasons)}
        reasons[envelope["error"]] += 1
    return {"door calls": budget, "ok": False, "failures": dict(reasons)}


# ── A write: the order desk ──────────────────────────────────────────────────

PLACE_ORDER = {
    "fn": inventory.place_order,
    "description": "Place an order: `qty` units of a SKU delivered to a region. It cannot be undone.",
    "args": {
        "sku": {"type": "str", "allowed": [sku for sku, *_ in inventory.PRODUCTS]},
        "qty": {"type": "int", "min": 1, "max": 10},  # a larger order goes to the sales desk, not an agent
        "region": {"type": "str", "allowed": list(inventory.REGIONS)},
        "request_id": {
            "type": "str",
            "required": False,
            "description": "Made once per intended order: a retry with the same id writes nothing again.",
        },
    },
    "returns": {
        "order_id": {"type": "int", "min": 1},
        "sku": {"type": "str"},
        "qty": {"type": "int", "min": 1, "max": 10},
        "region": {"type": "str"},
    },
}


def orders_placed(fn, *args, **kwargs) -> dict:
    """Call fn as attempt does, and count the orders it wrote: {"orders placed": n, "returned": ...}."""
    before = len(inventory.orders())
    returned = attempt(fn, *args, **kwargs)
    return {"orders placed": len(inventory.orders()) - before, "returned": returned}


# ── A LangGraph graph to read before writing yours ───────────────────────────


class Countdown(TypedDict):
    left: int  # a plain key: a node's update replaces it
    said: Annotated[list[str], operator.add]  # a reducer: a node's update is appended


def countdown_graph():
    """Say the numbers down to 1: one node, and a conditional edge that loops or stops."""

    def say(state: Countdown) -> dict:
        return {"left": state["left"] - 1, "said": [str(state["left"])]}  # only what changes

    def again_or_stop(state: Countdown) -> str:
        return "say" if state["left"] > 0 else END  # an edge is a function that names the next node

    builder = StateGraph(Countdown)
    builder.add_node("say", say)
    builder.set_entry_point("say")
    builder.add_conditional_edges("say", again_or_stop, ["say", END])
    return builder.compile()
