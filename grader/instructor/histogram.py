"""OUT/histogram.png: how many students got how many points, per stage and in total.

One bar per whole point (scores are whole points: each check is worth a whole number),
whole-number ticks on both axes, and the total beside the stages.
"""

import io
from collections.abc import Sequence
from typing import Protocol


class Scored(Protocol):
    """A gradebook row as the histogram reads it (read-only: classroom's Row is frozen)."""

    @property
    def total(self) -> float: ...

    @property
    def stages(self) -> dict[int, float]: ...


def figure(rows: Sequence[Scored], stage_points: dict[int, int]):
    """The histogram as a matplotlib Figure: a panel per stage, and a tall one for the total."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot
    from matplotlib.ticker import MaxNLocator

    stages = sorted(stage_points)
    columns = (len(stages) + 1) // 2
    figure = pyplot.figure(figsize=(4 * (columns + 1), 6))
    # Margins set by hand for these panels: matplotlib's constrained layout finds the same ones
    # by drawing the figure an extra time (0.8 of its 1.4 s a class run).
    grid = figure.add_gridspec(2, columns + 1, left=0.045, right=0.99, bottom=0.09, top=0.89, wspace=0.3, hspace=0.45)
    panels = [
        (
            f"stage {stage} (of {stage_points[stage]} points)",
            [row.stages[stage] for row in rows],
            stage_points[stage],
            grid[index // columns, index % columns],
        )
        for index, stage in enumerate(stages)
    ]
    total = sum(stage_points.values())
    panels.append((f"total (of {total} points)", [row.total for row in rows], total, grid[:, columns]))
    for title, scores, points, cell in panels:
        ax = figure.add_subplot(cell)
        # Edges half-way between whole points: each bar is one score, centred on its tick.
        ax.hist(scores, bins=[edge - 0.5 for edge in range(points + 2)], color="#4c72b0", edgecolor="white")
        ax.set_xlim(-0.5, points + 0.5)
        ax.set_title(title)
        ax.set_xlabel("points")
        ax.set_ylabel("students")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    figure.suptitle(f"{len(rows)} students")
    return figure


def png(rows: Sequence[Scored], stage_points: dict[int, int]) -> bytes:
    from matplotlib import pyplot

    drawn = figure(rows, stage_points)
    image = io.BytesIO()
    drawn.savefig(image, format="png", dpi=80)
    pyplot.close(drawn)
    return image.getvalue()
