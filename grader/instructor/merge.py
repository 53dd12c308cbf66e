"""`python -m grader merge SHARD_OUT ... --out OUT`: the shards of one class (`class --shard I/N`), as one.

Each student's folder (results.json, feedback.md, graded.json) is copied from the shard that
graded them; a student in two shards must have the same stamp in both (a redelivered shard),
or the merge is refused, naming them. Then OUT gets what a single `class` run writes, from
those folders and the term files in OUT (grader/instructor/term.py): gradebook.csv,
not_graded.csv, canvas.csv, changes.csv and report.html, byte for byte as one run's.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from grader.instructor.classroom import (
    STUDENTS,
    Row,
    UsageError,
    previous_finals,
    read_books_input,
    row_of,
    write_outputs,
)
from grader.instructor.gradebook import csv_rows, keep_hand_edits

STUDENT_FILES = ("results.json", "feedback.md", "graded.json")


def merge(shards: list[Path], out: Path) -> list[Row]:
    """Merge the shards' OUT folders into out; returns the rows of everyone graded."""
    found: dict[str, tuple[Path, dict]] = {}  # student -> (their folder in a shard, graded.json)
    not_graded: dict[str, str] = {}
    for shard in shards:
        if not (shard / "gradebook.csv").is_file():
            raise UsageError(f"SHARD_OUT {str(shard)!r} holds no gradebook.csv: give an OUT a `class --shard` wrote")
        held = sorted((shard / STUDENTS).iterdir()) if (shard / STUDENTS).is_dir() else []  # a shard may be empty
        for folder in held:
            try:
                record = json.loads((folder / "graded.json").read_text())
            except (OSError, ValueError):
                continue  # graded only in part when its shard stopped: that shard's rerun grades it
            earlier = found.get(folder.name)
            if earlier and earlier[1]["stamp"] != record["stamp"]:
                raise UsageError(
                    f"{folder.name} was graded differently in {earlier[0].parents[1]} and {shard} "
                    "(another submission, seed or lab): grade that shard again, then merge"
                )
            found[folder.name] = (folder, record)
        not_graded.update(_not_graded(shard / "not_graded.csv"))
    out.mkdir(parents=True, exist_ok=True)
    term, roster = read_books_input(out, set(found) | set(not_graded))
    kept_aside = keep_hand_edits(out)
    before = previous_finals(out)
    rows = []
    for student, (folder, record) in sorted(found.items()):
        try:
            rows.append(row_of(student, json.loads((folder / "results.json").read_text()), record))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):  # an earlier release's, or cut short
            raise UsageError(
                f"{student}'s results in {folder.parents[1]} are not this grader's: grade that shard again, then merge"
            ) from None
        _copy_student(folder, out / STUDENTS / student)
    not_graded = {student: why for student, why in not_graded.items() if student not in found}
    for line in write_outputs(out, rows, not_graded, term, roster, before, True, kept_aside=kept_aside):
        print(line, file=sys.stderr)
    print(f"{out / 'gradebook.csv'}: {len(rows)} students from {len(shards)} shards", file=sys.stderr)
    return rows


def _not_graded(path: Path) -> dict[str, str]:
    try:
        with open(path, newline="") as file:
            return {row["student"]: row["why"] for row in csv_rows(file.read())}
    except (OSError, KeyError):
        return {}


def _copy_student(source: Path, target: Path) -> None:
    """The student's folder in OUT replaced by the shard's, whole: a copy beside it, then a swap."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".merge-", dir=target.parent))
    for name in STUDENT_FILES:
        if (source / name).is_file():
            shutil.copy2(source / name, staging / name)
    if target.exists():
        shutil.rmtree(target)
    os.replace(staging, target)


def command(parser: argparse.ArgumentParser):
    parser.add_argument("shards", nargs="+", metavar="SHARD_OUT", help="the OUT folder of each `class --shard`")
    parser.add_argument("--out", required=True, help="where the class's gradebook and students' folders go")
    return run


def run(args: argparse.Namespace) -> int:
    try:
        merge([Path(shard) for shard in args.shards], Path(args.out))
    except UsageError as error:
        print(f"grader merge: {error}", file=sys.stderr)
        return 2
    return 0
