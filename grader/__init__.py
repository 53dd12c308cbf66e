"""The agtool lab's grader: randomized, stage-isolated probing of a student's tools.py.

For a notebook's self-check cell:

    from grader import check
    check(2)          # stage 2's checks on the agtool/tools.py that `import agtool.tools` loads

For instructors: `python -m grader --help`. grader/kit/ may ship in the student kit or enter a
sandboxed child; grader/instructor/ never leaves the instructor (README.md's map).
"""

from typing import TYPE_CHECKING, Any

import agtool  # noqa: F401  (first: its guard keeps jsonschema's slow IRI parser out of the grader)

if TYPE_CHECKING:
    from grader.kit.selfcheck import CheckReport, check

__all__ = ["CheckReport", "check"]


def __getattr__(name: str) -> Any:
    # Looked up on first use: every process that imports a grader module imports this package first, a
    # sandboxed child too, and check() brings the checks and the oracle, which no child may hold.
    if name in __all__:
        from grader.kit import selfcheck

        return getattr(selfcheck, name)
    raise AttributeError(f"module 'grader' has no attribute {name!r}")
