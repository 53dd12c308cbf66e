"""The agtool lab's grader: randomized, stage-isolated probing of a student's tools.py.

For a notebook's self-check cell:

    from grader import check
    check(2)          # stage 2's checks on the agtool/tools.py that `import agtool.tools` loads

For instructors: `python -m grader grade PATH/tools.py --results results.json`
(see `python -m grader --help`). Where things are: grader/kit/ (what ships in the student
kit or enters a sandboxed child; its boundary/ is the process boundary) and
grader/instructor/ (what never leaves the instructor); README.md's map says who imports whom.
"""

from typing import TYPE_CHECKING, Any

import agtool  # noqa: F401  (first: its guard keeps jsonschema's slow IRI parser out of the grader)

if TYPE_CHECKING:
    from grader.kit.selfcheck import CheckReport, check

__all__ = ["CheckReport", "check"]


def __getattr__(name: str) -> Any:
    # Looked up on first use, not imported here: every process that imports a grader module
    # imports this package first, a sandboxed child too, and check() brings the checks (and,
    # in the repository, the oracle), which no child may hold (tests/sandbox/test_trust_boundary.py).
    if name in __all__:
        from grader.kit import selfcheck

        return getattr(selfcheck, name)
    raise AttributeError(f"module 'grader' has no attribute {name!r}")
