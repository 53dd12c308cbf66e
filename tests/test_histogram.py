"""OUT/histogram.png: a panel per stage and one for the total, one bar per whole point, whole-number ticks."""

import pytest

from grader.instructor.classroom import Row
from grader.instructor.histogram import figure, png
from grader.kit.grading import STAGE_POINTS

pytestmark = pytest.mark.grader


def row(student: str, stages: dict[int, float]) -> Row:
    return Row(student, sum(stages.values()), stages)


ROWS = [
    row("a", dict(STAGE_POINTS)),
    row("b", {**STAGE_POINTS, 3: 13}),
    row("c", {stage: 0 for stage in STAGE_POINTS}),
    row("d", {**STAGE_POINTS, 2: 7, 6: 19}),
]


@pytest.fixture
def panels():
    drawn = figure(ROWS, STAGE_POINTS)
    yield {ax.get_title(): ax for ax in drawn.axes}
    from matplotlib import pyplot

    pyplot.close(drawn)


def test_there_is_a_panel_per_stage_and_one_for_the_total(panels):
    total = sum(STAGE_POINTS.values())
    assert sorted(panels) == sorted(
        [f"stage {stage} (of {points} points)" for stage, points in STAGE_POINTS.items()]
        + [f"total (of {total} points)"]
    )


def test_each_bar_is_one_whole_point_and_counts_the_students_with_that_score(panels):
    total = sum(STAGE_POINTS.values())
    expected = {
        f"stage {stage} (of {points} points)": [r.stages[stage] for r in ROWS] for stage, points in STAGE_POINTS.items()
    }
    expected[f"total (of {total} points)"] = [r.total for r in ROWS]
    for title, ax in panels.items():
        bars = ax.patches
        points = int(title.split("of ")[1].split()[0])
        assert len(bars) == points + 1 and all(bar.get_width() == pytest.approx(1) for bar in bars), title
        counts = {round(bar.get_x() + bar.get_width() / 2): bar.get_height() for bar in bars}
        assert counts == {score: expected[title].count(score) for score in range(points + 1)}, title


def test_ticks_are_whole_numbers_on_both_axes(panels):
    for title, ax in panels.items():
        low, high = ax.get_xlim()
        xticks = [tick for tick in ax.get_xticks() if low <= tick <= high]
        yticks = [tick for tick in ax.get_yticks() if tick <= ax.get_ylim()[1]]
        assert xticks and all(float(tick).is_integer() for tick in xticks + yticks), (title, xticks, yticks)


def test_the_png_is_written():
    assert png(ROWS, STAGE_POINTS).startswith(b"\x89PNG\r\n\x1a\n")
