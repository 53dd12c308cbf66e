"""The grader's trusted logic, grader/instructor/oracle.py, where there is one: in the repository, never in the kit.

Every module check() needs reads the oracle through `oracle` here, so the
student kit (no grader/instructor/) imports them all the same. That the oracle is
here or not is the one thing that decides how check() judges: with it, random
probes against the oracle and trusted earlier stages (stage isolation); without
it, the public probes' stored answers, on the student's own earlier stages.

A sandboxed child never imports this module: it is the judge's (tests/test_trust_boundary.py).
"""

import importlib
from pathlib import Path
from types import ModuleType

# Looked for beside this package only: an editable install of the repository would
# otherwise lend its oracle to a kit run with the same Python.
_HERE = (Path(__file__).resolve().parents[1] / "instructor" / "oracle.py").is_file()
oracle: ModuleType | None = importlib.import_module("grader.instructor.oracle") if _HERE else None


def present() -> bool:
    return oracle is not None


def bind(module) -> dict:
    """The trusted stand-ins for every stage (the in-process LocalSession's stage isolation); {} in the kit."""
    if oracle is None:
        return {}
    return oracle.bind(module)
