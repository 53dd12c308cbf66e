"""The beginner modules of tests/submissions/beginner/, read through its table.py (issue 35).

Ana, Ben and the others written by helpers acting as students are files there; the one-bug modules of
issue 33 (Fay to Nico) are not: each is ../correct/kit_minimal.py with one edit, and table.py makes its
text. So a test reads a beginner module with `source`, or has it written where it needs a file, with
`write` (a class folder: every module by default). The table is run, not imported, as the other tables
of tests/submissions/ are: what is there is a student's file or data, outside ruff's and mypy's reach.
"""

import runpy
from collections.abc import Callable
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parent / "submissions" / "beginner"
_TABLE = runpy.run_path(str(FOLDER / "table.py"))

BUGS: dict[str, list[Any]] = _TABLE["BUGS"]  # module -> its bugs, each with its fix (table.py)
ONE_BUG: dict[str, Any] = _TABLE["ONE_BUG"]  # module -> OneBug(habit, checks, bug): kit_minimal.py and one edit
source: Callable[[str], str] = _TABLE["source"]
write: Callable[..., list[Path]] = _TABLE["write"]  # (folder, modules=every one) -> the paths written
