"""python -m grader.kit.selfcheck: every stage's check(), as the notebooks' cells run it; exit 1 unless all pass.

The student kit's `make test`. In the kit it judges the public probes only; the
grade that counts draws hidden random inputs.
"""

import sys

from grader import check
from grader.kit.checks import STAGES


def main() -> int:
    reports = [check(stage) for stage in STAGES]
    print("\n\n".join(map(repr, reports)))
    return 0 if all(report.passed for report in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
