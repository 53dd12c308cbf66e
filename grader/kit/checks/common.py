"""What the stages' checks share: tables of spy tools, reading an answer, writing a case as Python.

A table in a case is the JSON spelling the child builds TOOLS from (grader/kit/boundary/spies.py):
{tool: {"args": ..., "returns": ..., "body": [steps], "upgrade": ...}}.
"""

from collections.abc import Callable, Iterable
from typing import Any

from hypothesis import strategies as st

# Stage 6's spec: the lab's constants, which judges read without the oracle.
from agtool.contract import DEFAULT_REGION, MAX_ATTEMPTS, ODD_LIMIT  # noqa: F401
from grader.kit import draw
from grader.kit.boundary import spies, values
from grader.kit.boundary.values import py
from grader.kit.pasteable import Setting

OK_BODY: list[dict[str, Any]] = [{"return": {}}]

# The lab's contract: stock_lookup's args and returns, and delivery_eta's.
REGION = {"type": "str", "allowed": ["busan", "jeju", "seoul"]}
LAB_ARGS = {"sku": {"type": "str"}, "region": REGION, "limit": {"type": "int", "min": 1, "max": 2}}
LAB_ROW = {"region": {"type": "str"}, "qty": {"type": "int", "min": 0}}
LAB_RETURNS = {"sku": {"type": "str"}, "rows": {"type": "list", "max_len": 2, "items": LAB_ROW}}
ETA_ARGS = {"sku": {"type": "str"}, "region": REGION}
ETA_RETURNS = {"sku": {"type": "str"}, "region": {"type": "str"}, "days": {"type": "int", "min": 0, "max": 14}}
GOOD_ARGS = {"sku": "A-100", "region": "seoul", "limit": 2}


def entry(
    args: dict | None = None, returns: dict | None = None, body: list | None = None, upgrade: str | None = None
) -> dict:
    """One tool of a case's table; a body that returns {} unless told otherwise."""
    tool: dict[str, Any] = {"args": args or {}, "returns": returns or {}, "body": body or OK_BODY}
    if upgrade:
        tool["upgrade"] = upgrade
    return tool


def request(stage: int, table: dict | None, calls: list[dict]) -> dict:
    req: dict[str, Any] = {"stage": stage, "calls": calls}
    if table is not None:
        req["table"] = table
    return req


def call(fn: str | list[str], *args, **more) -> dict:
    """One call the child makes: fn names a function of the module, or is a path to one held
    in it (["TOOLS", tool, "fn"]: a tool's body)."""
    return {"fn": fn, "args": list(args), **more}


def parent_tools(table: dict) -> tuple[dict, dict]:
    """The case's table built here, spies and all, to predict what a correct module does."""
    return spies.spy_table(table)


# ── reading what came back ───────────────────────────────────────────────────


def value_of(result: dict) -> Any:
    """The plain value a call returned; a stand-in marker when it raised (never equal to an answer)."""
    if "value" in result:
        return result["value"]
    return {values.NOT_PLAIN: "raised"}


def got_text(result: dict) -> str:
    if "raised" in result:
        return f"raised {result['raised']}"
    return py(result["value"])


def one_of(reasons: list[str]) -> str:
    """Expected reasons as a student reads them."""
    if not reasons:
        return "None"
    ordered = sorted(reasons)
    return repr(ordered[0]) if len(ordered) == 1 else "one of " + ", ".join(map(repr, ordered))


def reason_ok(got: Any, reasons: list[str]) -> bool:
    """None when nothing fails, else any reason that really fails (a plain str, nothing else)."""
    return got is None if not reasons else type(got) is str and got in reasons


def safe_number(d, spec: dict) -> int | float:
    """A number of the spec's kind ("int" or "float") strictly inside its bounds and never 0: away from
    every rule's edge (stage 2's safe args, stage 3's safe keys)."""
    kind, low, high = spec["type"], spec.get("min"), spec.get("max")
    if low is not None and high is not None:
        inside = (
            [low + step * (high - low) for step in (0.25, 0.5, 0.75)] if kind == "float" else list(range(low + 1, high))
        )
    elif low is not None:
        inside = [low + 1.5, low + 3.25, low + 7.5] if kind == "float" else [low + 1, low + 3, low + 7]
    elif high is not None:
        inside = [high - 1.5, high - 3.25, high - 7.5] if kind == "float" else [high - 1, high - 3, high - 7]
    else:
        inside = [12.5, -3.75, 1e5 + 0.5] if kind == "float" else [12, -3, 1000]
    value = draw.pick(d, [number for number in inside if number != 0] or inside)
    return float(value) if kind == "float" else int(value)


def safe_value(d, spec: dict) -> Any:
    """A value a safe spec (stage 2's args, stage 3's keys) takes, away from every rule's edge: one of
    allowed, a safe number, a non-empty str, list (shorter than max_len) or dict, True for a bool."""
    kind = spec["type"]
    if "allowed" in spec:
        return draw.pick(d, spec["allowed"])
    if kind in ("int", "float"):
        return safe_number(d, spec)
    if kind == "str":
        return d(draw.TEXT1)
    if kind == "bool":
        return True
    if kind == "list":
        return [d(draw.LEAF) for _ in range(d(st.integers(1, spec.get("max_len", 4) - 1)))]
    return {name: d(draw.LEAF) for name in draw.names(d, 1, 2)}


def safe_values(d, specs: dict) -> dict:
    """A safe value for each spec, under its name, in the specs' order."""
    return {name: safe_value(d, spec) for name, spec in specs.items()}


# ── a reason-returning function: check_args (stage 2) and check_result (stage 3) ──
# A case of theirs is (table, tool, calls): each call gives the function one value to judge
# against one part of the tool's entry ("args" or "returns").


def expect_reasons(case: Any, part: str, reasons: Callable[[Any, Any], Iterable[str]]) -> list[list[str]]:
    """Per call, every reason that really fails (any one is right), from the oracle's `reasons`."""
    spec = values.decode(case.table[case.tool][part])
    return [sorted(reasons(spec, values.decode(given))) for given in case.calls]


# ── writing a case as Python ─────────────────────────────────────────────────


def show_table(table: dict, parts: tuple[str, ...] = ("args", "returns", "body")) -> Setting:
    """The table the grader put in TOOLS, one line per tool and part, and the tools it shows."""
    lines, tools = [], []
    for name, tool in table.items():
        for part in parts:
            if part == "body":
                lines.append(f"# TOOLS[{name!r}]['fn'] {show_body(tool['body'])}")
            elif part in tool:
                lines.append(f"TOOLS[{name!r}][{part!r}] = {py(tool[part])}")
            else:
                continue
            tools += [name] if name not in tools else []
    return Setting(table="\n".join(lines), tools=tuple(tools))


def show_body(steps: list[dict]) -> str:
    said = [
        f"raises {step['raise']}"
        if "raise" in step
        else f"returns {py({**step['echo'], 'got': '<the args it was called with>'}, 200)}"
        if "echo" in step
        else f"returns {py(step['return'], 200)}"
        for step in steps
    ]
    if len(said) > 1:
        said[-1] += " from then on"
    return ", then ".join(said)


def plant_range(d) -> tuple[dict, Callable]:
    """A number spec with a bound or two, and a draw of a value outside them (stages 2 and 3 plant it alike)."""
    kind = draw.pick(d, ("int", "float"))
    spec = {"type": kind, **draw.bounds(d, kind, draw.pick(d, ("both", "min", "max")))}
    return spec, lambda d: outside_not_zero(d, spec)


def outside_not_zero(d, spec: dict):
    """A number outside the spec's bounds, never 0 (the edge of a falsy value, 2.3's and 3.4's): farther out."""
    value = draw.outside(d, spec)
    if value == 0:
        value = spec["min"] - 100 if "min" in spec and not spec["min"] <= 0 else spec["max"] + 100
    return float(value) if spec["type"] == "float" else value
