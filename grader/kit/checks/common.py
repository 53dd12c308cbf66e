"""What the stages' checks share: tables of spy tools, reading an answer, writing a case as Python.

A table in a case is the JSON spelling the child builds TOOLS from (grader/spies.py):
{tool: {"args": ..., "returns": ..., "body": [steps], "upgrade": ...}}.
"""

from typing import Any

from agtool.contract import DEFAULT_REGION, MAX_ATTEMPTS, ODD_LIMIT  # noqa: F401  (stage 6's spec: the lab's constants)
from grader.kit import spies, values
from grader.kit.values import py

OK_BODY: list[dict[str, Any]] = [{"return": {}}]

# The seed's contract (issue 2): stock_lookup's args and returns, and delivery_eta's.
REGION = {"type": "str", "allowed": ["busan", "jeju", "seoul"]}
SEED_ARGS = {"sku": {"type": "str"}, "region": REGION, "limit": {"type": "int", "min": 1, "max": 2}}
SEED_ROW = {"region": {"type": "str"}, "qty": {"type": "int", "min": 0}}
SEED_RETURNS = {"sku": {"type": "str"}, "rows": {"type": "list", "max_len": 2, "items": SEED_ROW}}
ETA_RETURNS = {"sku": {"type": "str"}, "region": {"type": "str"}, "days": {"type": "int", "min": 0, "max": 14}}
GOOD_ARGS = {"sku": "A-100", "region": "seoul", "limit": 2}
# Stage 6's spec (MAX_ATTEMPTS, DEFAULT_REGION and ODD_LIMIT, imported above) comes from the
# lab's agtool/contract.py: judges read it without the oracle.


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


# ── writing a case as Python ─────────────────────────────────────────────────


def show_table(table: dict, parts: tuple[str, ...] = ("args", "returns", "body")) -> str:
    """The table the grader put in TOOLS, one line per tool and part."""
    lines = []
    for name, tool in table.items():
        for part in parts:
            if part == "body":
                lines.append(f"# TOOLS[{name!r}]['fn'] {show_body(tool['body'])}")
            elif part in tool:
                lines.append(f"TOOLS[{name!r}][{part!r}] = {py(tool[part])}")
    return "\n".join(lines)


def show_body(steps: list[dict]) -> str:
    said = [f"raises {step['raise']}" if "raise" in step else f"returns {py(step['return'], 200)}" for step in steps]
    if len(said) > 1:
        said[-1] += " from then on"
    return ", then ".join(said)
