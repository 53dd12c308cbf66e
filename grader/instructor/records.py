"""What OUT keeps between runs of `class`, read back by a resumed run and by `merge`: nothing else is.

Each student's record (graded.json) holds their stamp: the seed and the hashes of the submission and of
everything the grade depends on. A student whose stamp matches is not graded again, so a run stopped half-way
and started again loses nothing and redoes nothing. OUT/.no_row.json records the entries with no row and the
students a stopped run left to grade. Every file is written atomically (a temp file, then os.replace).
"""

import functools
import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, TypeVar

from grader.instructor.graded import Graded
from grader.instructor.submissions import HandedIn
from grader.kit.report import write_atomically

STUDENTS = "students"  # OUT/students/<student>/: apart from class's own files, so no name collides
LAB = Path(__file__).resolve().parents[2]
T = TypeVar("T")
# What draws and runs the cases besides the lab's own files: another version may grade otherwise.
GRADE_PACKAGES = ("hypothesis", "langgraph", "langchain-core", "jsonschema")


def stamp(submission: HandedIn, seed: int) -> dict:
    return {"seed": seed, "submission": submission.digest, "lab": _lab_hash()}


def lab_files(root: Path = LAB) -> list[Path]:
    """Every file of the lab a grade may read, in agtool/ and grader/, data files too; not caches."""
    return sorted(
        path
        for package in ("agtool", "grader")
        for path in (root / package).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".png")
    )


def lab_hash(root: Path = LAB) -> str:
    digest = hashlib.sha256(sys.version.encode())
    for package in GRADE_PACKAGES:
        try:
            installed = version(package)
        except PackageNotFoundError:
            installed = "none"
        digest.update(f"{package}=={installed}".encode())
    for path in lab_files(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.cache
def _lab_hash() -> str:
    return lab_hash()


def student_folder(out: Path, student: str) -> Path:
    return out / STUDENTS / student


RECORD = "graded.json"  # OUT/students/<student>/: their record (grader/instructor/graded.py)
NO_ROW = ".no_row.json"  # in OUT: the entries with no row, and who a stopped run left to grade: merge reads it


def read_json(path: Path, build: Callable[[Any], T]) -> T | None:
    """build(the JSON data in path), or None for no such file or one of an earlier release (build fails)."""
    try:
        return build(json.loads(path.read_text()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def write_json(path: Path, data: Any) -> None:
    write_atomically(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def read_record(out: Path, student: str) -> Graded | None:
    return read_json(student_folder(out, student) / RECORD, Graded.from_json)


def write_record(out: Path, graded: Graded) -> None:
    write_json(student_folder(out, graded.student) / RECORD, graded.to_json())


def write_no_row(out: Path, no_row: dict[str, str], left: Sequence[str]) -> None:
    """The record of the entries with no row (entry -> why) and of the students a stopped run left to grade."""
    write_json(out / NO_ROW, {"no_row": dict(sorted(no_row.items())), "left": sorted(left)})


def read_no_row(out: Path) -> tuple[dict[str, str], list[str]] | None:
    """(the entries with no row, the students left to grade) as write_no_row wrote them; None for none
    (a run of an earlier release, or one killed before its end)."""
    return read_json(out / NO_ROW, lambda record: (dict(record["no_row"]), list(record["left"])))


def resume(out: Path, submissions: list[HandedIn], seed: int, force: bool) -> dict[str, tuple[HandedIn, Graded | None]]:
    """student -> (their submission, their record when its stamp matches and not force, else None). A file's
    time is read once, when it is first graded: a record of these very bytes gives its time to the submission
    (a file touched since, or --force, changes no late penalty)."""
    found = {}
    for submission in submissions:
        record = read_record(out, submission.student)
        digest = submission.digest
        if record is not None and record.modified is not None and digest and digest == record.stamp.get("submission"):
            submission = replace(submission, modified=record.modified)
        kept = record is not None and not force and record.stamp == stamp(submission, seed)
        found[submission.student] = (submission, record if kept else None)
    return found
