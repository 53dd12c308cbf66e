"""python -m grader.kit.selfcheck: every stage's check(), as the notebooks' cells run it; exit 1 unless all pass.

The student kit's `make test`. It prints one line: each stage's points, and the command
that shows the first failing stage's table (`python -m grader check N`). In the kit it
judges the public probes only; the grade that counts draws hidden random inputs.
"""

import sys

from grader import check
from grader.kit.checks import STAGES
from grader.kit.report import check_command


def summary(reports: dict) -> str:
    """One line for a CheckReport per stage."""
    passed = [stage for stage, report in reports.items() if report.passed]
    stages = ", ".join(
        f"{stage} {'✓' if report.passed else '✗'} {_points(report)}" for stage, report in reports.items()
    )
    line = f"{len(passed)} of {len(reports)} stages pass ({stages})"
    failing = [stage for stage in reports if stage not in passed]
    return line + (f"; see why: {check_command(failing[0])}" if failing else "")


def _points(report) -> str:
    return f"{report.grade.score}/{report.grade.max_score}" if report.grade else "not run"


def main() -> int:
    reports = {stage: check(stage) for stage in STAGES}
    print(summary(reports))
    return 0 if all(report.passed for report in reports.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
