"""The first-check benchmark measures its three figures and says met or NOT met (no timing is asserted here)."""

import re

import pytest

from grader.instructor import check_speed

pytestmark = pytest.mark.grader


def test_one_round_of_one_stage_gives_three_figures_and_their_verdicts(tmp_path):
    """A tiny run of python -m grader.instructor.check_speed: stage 1, one round, in a released kit."""
    kit = check_speed.write_finished_kit(tmp_path / "kit")
    (row,) = check_speed.measure(kit, stages=(1,), rounds=1)
    assert row.stage == 1
    for seconds in (row.first, row.warm, row.terminal):
        assert len(seconds) == 1 and seconds[0] > 0
    lines = check_speed.table([row]).splitlines()
    figures = [line for line in lines if re.search(r"^1 .*\d+\.\d\d s .*<= [\d.]+ s\s+(met|NOT met)$", line)]
    assert len(figures) == 3, lines
    assert [re.findall(r"<= ([\d.]+) s", line) for line in figures] == [["1.5"], ["0.3"], ["2"]]


def test_the_verdict_goes_by_the_median_and_counts_the_rounds_that_disagree():
    assert check_speed.verdict([0.1, 0.2, 0.25], 0.3) == "met"
    assert check_speed.verdict([0.4, 0.5, 0.6], 0.3) == "NOT met"
    assert check_speed.verdict([0.1, 0.2, 0.6], 0.3) == "met (2 of 3 rounds met)"
    assert check_speed.verdict([0.1, 0.5, 0.6], 0.3) == "NOT met (1 of 3 rounds met)"
