"""Hostile upload, planted in a Gradescope submission's folder at test time (tests/instructor/test_bundle.py).

A chain of about 1,500 nested folders, beside the student's tools.py or with one at its
bottom. Finding tools.py walked the submission with Path.rglob, which recurses once per
level on Python 3.11: it raised RecursionError, and the bundle ended before it graded
anything, with no results.json and exit code 1. Made one level at a time, relative to an
open folder: its path is longer than PATH_MAX.
"""

import os
from pathlib import Path

LEVELS = 1500


def plant(submission: Path, levels: int = LEVELS, bottom: str | None = None) -> None:
    """A chain of `levels` folders named d in `submission`; `bottom`, if given, as a tools.py in the deepest."""
    here = os.open(submission, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=here)
            deeper = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=here)
            os.close(here)
            here = deeper
        if bottom is not None:
            with open(os.open("tools.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=here), "w") as tools:
                tools.write(bottom)
    finally:
        os.close(here)
