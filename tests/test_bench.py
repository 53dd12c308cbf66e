"""The benchmark runs and reports its four ratios (a smoke test: no timing is asserted here)."""

import re

from agtool import bench, tools


def test_bench_measures_every_contender_and_prints_the_ratios():
    """A tiny run of python -m agtool.bench: every figure measured, four ratio rows against their goals."""
    seconds = bench.measure(number=3, repeat=1)
    assert set(seconds) >= {"body", "check_args", "door", "memo hit", "pydantic args",
                            "pydantic args+return", "StructuredTool"}
    assert all(0 < s < 1 for s in seconds.values())
    rows = bench.compare(seconds)
    assert [row["goal"] for row in rows] == ["<= 0.7x", "<= 1.5x", "<= 2x", ">= 50x"]
    printed = bench.table(rows).splitlines()
    ratio_lines = [line for line in printed if re.search(r"\d+\.\d\dx\s+[<>]= [\d.]+x\s+(yes|NO)$", line)]
    assert len(ratio_lines) == 4
    assert bench.NAME not in tools.TOOLS  # the bench's own table entry is gone again
