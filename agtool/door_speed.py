"""What the door costs, next to pydantic and LangChain: `python -m agtool.door_speed`.

Every contender wraps the same trivial body (it returns a fixed, good value), so the time
measured is the checking, not the work. Overheads are the wrapped call minus the bare body
call; each time is timeit's minimum over a few runs (the least disturbed one). That is done
in 7 rounds, and each ratio is reported as the rounds' median with their spread: a goal met
in some rounds and missed in others is "within noise", not a bare NO. The body's cost is the
machine's, not a round's: its best over every round is what is subtracted, so a burst of load
on one round's body run cannot make an overhead negative.

    (a) check_args            vs pydantic validate_call's argument validation (strict, extra forbidden)
    (b) the whole door        vs validate_call with validate_return=True (args and return)
    (c) a call_memo hit       vs one whole pydantic-validated call
    (d) the whole door        vs LangChain StructuredTool.invoke with an args_schema
"""

import contextlib
import os
import statistics
import timeit
from typing import Annotated, Any, Literal

from langchain_core.tools import StructuredTool
from pydantic import BaseModel, ConfigDict, Field, validate_call

from agtool import student

NAME = "bench_stock_lookup"  # a table entry of the bench's own, with stock_lookup's contract
ARGS: dict[str, Any] = {"sku": "A-100", "region": "seoul", "limit": 2}
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
    func=body, name=NAME, description="Stock of a SKU per warehouse.", args_schema=StockArgs
)


@contextlib.contextmanager
def bench_tool():
    """TOOLS holds the bench's entry (stock_lookup's contract, the trivial body) inside the block."""
    table = student.module().TOOLS
    table[NAME] = {**table["stock_lookup"], "fn": body}
    table[NAME].pop("upgrade", None)
    try:
        yield
    finally:
        del table[NAME]


def measure(number: int | None = None, rounds: int = 7, repeat: int = 3) -> list[dict[str, float]]:
    """Seconds per call of each contender, once per round: the minimum of `repeat` runs of `number` calls.

    number=None lets timeit pick it (runs of about 0.05 s). The contenders take turns within
    each round, so a burst of load from elsewhere on the machine hits them all alike; the
    rounds differ by that load alone, so their spread is the noise a verdict must beat.
    """
    memo: dict = {}
    tools = student.module()  # looked up once: the timed calls go straight to the student's functions
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
        # autorange: enough calls for 0.2 s; a quarter of that keeps 7 rounds of 3 under ~10 s in all
        numbers = {label: number or max(1, timer.autorange()[0] // 4) for label, timer in timers.items()}
        measured = []
        for _ in range(rounds):
            best = dict.fromkeys(calls, float("inf"))
            for _ in range(repeat):
                for label, timer in timers.items():
                    best[label] = min(best[label], timer.timeit(numbers[label]) / numbers[label])
            measured.append(best)
        return measured


# (what, ours, theirs, whether each is an overhead (minus the body) or a whole call, goal)
# Goal "<= g": ours / theirs at most g.  Goal ">= g": theirs / ours at least g (we are g times faster).
COMPARISONS = [
    ("(a) args check", "check_args", "pydantic args", "overhead", ("<=", 0.7)),
    ("(b) args + call + result check", "door", "pydantic args+return", "overhead", ("<=", 1.5)),
    ("(c) memo hit vs validated call", "memo hit", "pydantic args+return", "whole", ("<=", 2.0)),
    ("(d) door vs StructuredTool.invoke", "door", "StructuredTool", "overhead", (">=", 50.0)),
]


def _ratio(seconds: dict[str, float], body: float, ours: str, theirs: str, kind: str, sense: str) -> tuple:
    """(ours µs, theirs µs, ratio) for one round: overheads are minus the bare body call's best."""
    # check_args runs no body, so it is all overhead as it stands.
    minus = 0.0 if kind == "whole" or ours == "check_args" else body
    ours_us = (seconds[ours] - minus) * 1e6
    theirs_us = (seconds[theirs] - (0.0 if kind == "whole" else body)) * 1e6
    return ours_us, theirs_us, ours_us / theirs_us if sense == "<=" else theirs_us / ours_us


def compare(rounds: list[dict[str, float]]) -> list[dict]:
    """One row per comparison: median figures in µs, the ratio's median and spread over the
    rounds, the goal, and a verdict that says when the rounds disagree.

    "yes" or "NO" only when every round agrees; a goal met in some rounds and missed in
    others is "within noise": on this machine, now, the measurement cannot tell.
    """
    rows = []
    body = min(seconds["body"] for seconds in rounds)
    for what, ours, theirs, kind, (sense, goal) in COMPARISONS:
        figures = [_ratio(seconds, body, ours, theirs, kind, sense) for seconds in rounds]
        ratios = [ratio for _, _, ratio in figures]
        met = sum(ratio <= goal if sense == "<=" else ratio >= goal for ratio in ratios)
        verdict = "yes" if met == len(ratios) else "NO" if met == 0 else f"within noise ({met} of {len(ratios)} met)"
        rows.append(
            {
                "what": what,
                "ours": ours,
                "theirs": theirs,
                "ours_us": statistics.median(f[0] for f in figures),
                "theirs_us": statistics.median(f[1] for f in figures),
                "ratio": statistics.median(ratios),
                "low": min(ratios),
                "high": max(ratios),
                "goal": f"{sense} {goal:g}x",
                "met": met == len(ratios),
                "verdict": verdict,
            }
        )
    return rows


def table(rows: list[dict]) -> str:
    """The comparison rows as a plain-text table."""
    lines = [f"{'comparison':34} {'ours µs':>9} {'theirs µs':>10} {'ratio':>8} {'spread':>15}  goal     met", "-" * 100]
    for row in rows:
        spread = f"{row['low']:.2f}–{row['high']:.2f}x"
        lines.append(
            f"{row['what']:34} {row['ours_us']:9.2f} {row['theirs_us']:10.2f} "
            f"{row['ratio']:7.2f}x {spread:>15}  {row['goal']:8} {row['verdict']}"
        )
    return "\n".join(lines)


def main() -> None:
    rounds = measure()
    body = min(seconds["body"] for seconds in rounds) * 1e6
    load = os.getloadavg()[0]
    print(
        f"bare body call: {body:.3f} µs at best (subtracted from every overhead); "
        f"{len(rounds)} rounds, each the best of 3 runs"
    )
    print(
        f"load average {load:.2f} on {os.cpu_count()} CPUs while measuring"
        + (": a busy machine, expect a wide spread" if load >= (os.cpu_count() or 1) / 2 else "")
    )
    print()
    print(table(compare(rounds)))
    print(
        "\nratio: the median over the rounds of ours/theirs for <= goals, theirs/ours (times faster)"
        ' for >= goals;\nspread: the lowest and highest round. "within noise": the rounds disagree'
        " about the goal, so\nthis run cannot tell; run it again on a quieter machine."
    )


if __name__ == "__main__":
    main()
