"""The grader's trusted logic, grader/oracle.py, where there is one: in the repository, never in the kit.

Every module check() needs reads the oracle through `oracle` here, so the
student kit (no oracle.py) imports them all the same. That the oracle is here
or not is the one thing that decides how check() judges: with it, random probes
against the oracle and trusted earlier stages (stage isolation); without it,
the public probes' stored answers, on the student's own earlier stages.
"""

import importlib
import os
from importlib.machinery import PathFinder
from types import ModuleType

# Looked for beside this file only: an editable install of the repository would
# otherwise lend its oracle to a kit run with the same Python.
_HERE = PathFinder.find_spec("grader.oracle", [os.path.dirname(__file__)])
oracle: ModuleType | None = importlib.import_module("grader.oracle") if _HERE else None


def present() -> bool:
    return oracle is not None
