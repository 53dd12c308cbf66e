"""The grader's trusted logic, grader/instructor/oracle.py, where there is one: in the repository, never in the kit.

Every module check() needs reads the oracle through `oracle` here, so the kit imports them all the
same. Whether it is here decides how check() judges: random cases against the oracle, on trusted
earlier stages; or, in the kit, the public cases' stored answers, on the student's own. A sandboxed
child never imports this module (tests/sandbox/test_trust_boundary.py).
"""

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

from grader.kit.errors import GraderError


class _Absent(ModuleType):
    """`oracle` in the kit: a judge that reaches for it anyway is the grader's bug, and says so."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # what tools ask of any module (__file__, __path__): it has none
            raise AttributeError(name)
        raise GraderError(
            f"oracle.{name}: the oracle is not in the student kit; a check without it judges by stored answers"
        )


# Looked for beside this package only: an editable install of the repository would lend its oracle to a kit.
_HERE = (Path(__file__).resolve().parents[1] / "instructor" / "oracle.py").is_file()
oracle: ModuleType = (
    importlib.import_module("grader.instructor.oracle") if _HERE else _Absent("grader.instructor.oracle")
)


def present() -> bool:
    return _HERE


def bind(module) -> dict:
    """The trusted stand-ins for every stage (the in-process LocalSession's stage isolation); {} in the kit."""
    if not _HERE:
        return {}
    return oracle.bind(module)
