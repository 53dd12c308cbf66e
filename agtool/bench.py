"""What the door costs, next to pydantic and LangChain: `python -m agtool.bench`.

Every contender wraps the same trivial body (it returns a fixed, good value), so the time
measured is the checking, not the work. Overheads are the wrapped call minus the bare body
call; each time is timeit's minimum over several repeats (the least disturbed run).

    (a) check_args            vs pydantic validate_call's argument validation (strict, extra forbidden)
    (b) the whole door        vs validate_call with validate_return=True (args and return)
    (c) a call_memo hit       vs one whole pydantic-validated call
    (d) the whole door        vs LangChain StructuredTool.invoke with an args_schema
"""

import contextlib
import timeit
from typing import Annotated, Literal

from langchain_core.tools import StructuredTool
from pydantic import BaseModel, ConfigDict, Field, validate_call

from agtool import tools

NAME = "bench_stock_lookup"  # a table entry of the bench's own, with stock_lookup's contract
ARGS = {"sku": "A-100", "region": "seoul", "limit": 2}
VALUE = {"sku": "A-100", "rows": [{"region": "seoul", "qty": 5}, {"region": "busan", "qty": 3}]}


def body(sku, region, limit):
    return VALUE


# The same contract in pydantic: stock_lookup's args and returns (non-empty str, non-empty rows
# of at most 2 items; extra keys in the value allowed, as in the contract).
STRICT = ConfigDict(strict=True, extra="forbid")
Region = Literal["busan", "jeju", "seoul"]
Limit = Annotated[int, Field(ge=1, le=2)]
Text = Annotated[str, Field(min_length=1)]


class Row(BaseModel):
    model_config = ConfigDict(strict=True)
    region: Text
    qty: Annotated[int, Field(ge=0)]


class Stock(BaseModel):
    model_config = ConfigDict(strict=True)
    sku: Text
    rows: Annotated[list[Row], Field(min_length=1, max_length=2)]


class StockArgs(BaseModel):
    model_config = STRICT
    sku: str
    region: Region
    limit: Limit


@validate_call(config=STRICT)
def pydantic_args(sku: str, region: Region, limit: Limit):
    return body(sku, region, limit)


@validate_call(config=STRICT, validate_return=True)
def pydantic_args_and_return(sku: str, region: Region, limit: Limit) -> Stock:
    return body(sku, region, limit)


structured_tool = StructuredTool.from_function(
    func=body, name=NAME, description="Stock of a SKU per warehouse.", args_schema=StockArgs)


@contextlib.contextmanager
def bench_tool():
    """TOOLS holds the bench's entry (stock_lookup's contract, the trivial body) inside the block."""
    tools.TOOLS[NAME] = {**tools.TOOLS["stock_lookup"], "fn": body}
    tools.TOOLS[NAME].pop("upgrade", None)
    try:
        yield
    finally:
        del tools.TOOLS[NAME]


def measure(number: int | None = None, repeat: int = 5) -> dict[str, float]:
    """Seconds per call of each contender: the minimum over `repeat` runs of `number` calls.

    number=None lets timeit pick it (runs of at least 0.2 s). The contenders take turns within
    each repeat, so a burst of load from elsewhere on the machine hits them all alike.
    """
    memo = {}
    with bench_tool():
        assert tools.call_memo(NAME, ARGS, memo)["ok"]  # fill the memo, so every timed call is a hit
        calls = {
            "body": lambda: body(**ARGS),
            "check_args": lambda: tools.check_args(NAME, ARGS),
            "door": lambda: tools.call_tool(NAME, ARGS),
            "memo hit": lambda: tools.call_memo(NAME, ARGS, memo),
            "pydantic args": lambda: pydantic_args(**ARGS),
            "pydantic args+return": lambda: pydantic_args_and_return(**ARGS),
            "StructuredTool": lambda: structured_tool.invoke(ARGS),
        }
        timers = {label: timeit.Timer(call) for label, call in calls.items()}
        numbers = {label: number or timer.autorange()[0] for label, timer in timers.items()}
        best = dict.fromkeys(calls, float("inf"))
        for _ in range(repeat):
            for label, timer in timers.items():
                best[label] = min(best[label], timer.timeit(numbers[label]) / numbers[label])
        return best


# (what, ours, theirs, whether each is an overhead (minus the body) or a whole call, goal)
# Goal "<= g": ours / theirs at most g.  Goal ">= g": theirs / ours at least g (we are g times faster).
COMPARISONS = [
    ("(a) args check", "check_args", "pydantic args", "overhead", ("<=", 0.7)),
    ("(b) args + call + result check", "door", "pydantic args+return", "overhead", ("<=", 1.5)),
    ("(c) memo hit vs validated call", "memo hit", "pydantic args+return", "whole", ("<=", 2.0)),
    ("(d) door vs StructuredTool.invoke", "door", "StructuredTool", "overhead", (">=", 50.0)),
]


def compare(seconds: dict[str, float]) -> list[dict]:
    """One row per comparison: both figures in µs, the ratio, the goal and whether it is met."""
    rows = []
    for what, ours, theirs, kind, (sense, goal) in COMPARISONS:
        # check_args runs no body, so it is all overhead as it stands.
        minus = 0.0 if kind == "whole" or ours == "check_args" else seconds["body"]
        ours_us = (seconds[ours] - minus) * 1e6
        theirs_us = (seconds[theirs] - (0.0 if kind == "whole" else seconds["body"])) * 1e6
        ratio = ours_us / theirs_us if sense == "<=" else theirs_us / ours_us
        met = ratio <= goal if sense == "<=" else ratio >= goal
        rows.append({"what": what, "ours": ours, "ours_us": ours_us, "theirs": theirs,
                     "theirs_us": theirs_us, "ratio": ratio, "goal": f"{sense} {goal:g}x", "met": met})
    return rows


def table(rows: list[dict]) -> str:
    """The comparison rows as a plain-text table."""
    lines = [f"{'comparison':34} {'ours µs':>9} {'theirs µs':>10} {'ratio':>8}  goal     met",
             "-" * 78]
    for row in rows:
        lines.append(f"{row['what']:34} {row['ours_us']:9.2f} {row['theirs_us']:10.2f} "
                     f"{row['ratio']:7.2f}x  {row['goal']:8} {'yes' if row['met'] else 'NO'}")
    return "\n".join(lines)


def main() -> None:
    seconds = measure()
    print(f"bare body call: {seconds['body'] * 1e6:.2f} µs (subtracted from every overhead)\n")
    print(table(compare(seconds)))
    print("\nratio: ours/theirs for <= goals, theirs/ours (times faster) for >= goals")


if __name__ == "__main__":
    main()
