"""What `class` writes for the instructor's books: gradebook.csv, not_graded.csv, canvas.csv (with a
roster.csv) and changes.csv, each from the records with the term applied (docs/grading.md: their columns).

gradebook.csv is written anew on every run: a hand edit is not lost, it is kept aside
(gradebook.edited-<time>.csv) and the run says to use overrides.csv.
"""

import csv
import io
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.instructor.graded import STAGE_NUMBERS, Graded
from grader.instructor.term import TermError, read_rows, same_name
from grader.kit.report import write_atomically

GRADEBOOK = "gradebook.csv"
WRITTEN = ".gradebook.last.csv"  # what this program last wrote as gradebook.csv: a differing one was edited
ROSTER = "roster.csv"
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")


# A spreadsheet runs a cell that starts with one of these as a formula (OWASP's "CSV injection"):
# a student's name is whatever their file is called, so every cell that is not a number and
# starts so is written with a ' before it, which spreadsheets show as text. A cell starting
# with ' gets one more, so that read_cell gives every cell back as it was. The full-width and
# small look-alikes count too (a spreadsheet with an East Asian input method takes U+FF1D for =),
# and so do spaces before any of them (some spreadsheets drop them first).
FORMULA_STARTS = (
    "=", "+", "-", "@", "\t", "\r", "'",
    "\uff1d", "\uff0b", "\uff0d", "\uff20",  # = + - @ in full width
    "\ufe66", "\ufe62", "\ufe63", "\ufe6b",  # = + - @ as small forms
    "\u2212",  # the minus sign
)  # fmt: skip


def _runnable(cell: str) -> bool:
    """Whether a spreadsheet could take cell for a formula (or it starts with the quote text_cell adds)."""
    return cell.lstrip(" \u3000").startswith(FORMULA_STARTS)


def text_cell(cell: str) -> str:
    """cell as a spreadsheet shows as text, never runs."""
    if not _runnable(cell):
        return cell
    try:
        float(cell)
        return cell  # a number (-2, +1.5) is not a formula
    except ValueError:
        return "'" + cell


def read_cell(cell: str) -> str:
    """What text_cell was given."""
    return cell[1:] if cell.startswith("'") and _runnable(cell[1:]) else cell


def csv_text(rows: Sequence[Sequence[str]]) -> str:
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows([[text_cell(cell) for cell in row] for row in rows])
    return text.getvalue()


def csv_rows(text: str) -> list[dict[str, str]]:
    """The rows of a book csv_text wrote, each cell as it was given to csv_text."""
    return [{key: read_cell(cell) for key, cell in row.items()} for row in csv.DictReader(io.StringIO(text))]


@dataclass(frozen=True)
class KeptAside:
    """A gradebook.csv edited by hand, kept aside before a run: its new name, and the cells that differ."""

    name: str
    changed: tuple[str, ...]  # "kit's final: 70 -> 69", … (empty when there is nothing to compare with)

    def said(self) -> str:
        cells = f" ({'; '.join(self.changed)})" if self.changed else ""
        return (
            f"kept aside: gradebook.csv was edited by hand (or written by an earlier release), now {self.name}"
            f"{cells}: put changes in overrides.csv"
        )


def keep_hand_edits(out: Path) -> KeptAside | None:
    """Before a run: a gradebook.csv changed since this program wrote it is kept aside, and what changed said."""
    path = out / GRADEBOOK
    if not path.is_file():
        return None
    edited = path.read_bytes()
    try:
        written = (out / WRITTEN).read_bytes()
    except FileNotFoundError:  # a gradebook of an earlier release, with no copy to compare: kept aside too
        written = None
    if edited == written:
        return None
    kept = out / f"gradebook.edited-{time.strftime('%Y%m%dT%H%M%S')}.csv"
    path.rename(kept)
    return KeptAside(kept.name, () if written is None else changed_cells(written, edited))


def changed_cells(written: bytes, edited: bytes) -> tuple[str, ...]:
    """Each cell of a gradebook that differs between what was written and its edit, by student and column;
    rows added or removed by whole."""
    try:
        before, after = ({row["student"]: row for row in csv_rows(text.decode("utf-8"))} for text in (written, edited))
    except (UnicodeDecodeError, KeyError, csv.Error):
        return ("not a gradebook any more: compare it with gradebook.csv",)
    said = []
    for student in sorted(before.keys() | after.keys()):
        old, new = before.get(student), after.get(student)
        if old is None or new is None:
            said.append(f"{student}'s row {'added' if old is None else 'removed'}")
            continue
        said += [
            f"{student}'s {column}: {old.get(column, '')} -> {new.get(column, '')}"
            for column in dict.fromkeys([*old, *new])
            if old.get(column) != new.get(column)
        ]
    return tuple(said)


def previous_finals(out: Path) -> dict[str, str] | None:
    """student -> final, as this program last wrote the gradebook (None before its first run)."""
    try:
        text = (out / WRITTEN).read_text()
    except FileNotFoundError:
        return None
    return {row["student"]: row["final"] for row in csv_rows(text)}


def gradebook_row(graded: Graded) -> list[str]:
    term = graded.adjustments
    numbers = (graded.raw, term.late, term.override, term.hours_late, *graded.stages.values())
    return [graded.student, final_cell(graded), *(f"{number:g}" for number in numbers), "; ".join(graded.notes)]


def write_gradebook(out: Path, students: Sequence[Graded]) -> None:
    """gradebook.csv, a row a student by name."""
    header = ["student", "final", "raw", "late", "override", "hours_late", *(f"stage{n}" for n in STAGE_NUMBERS)]
    rows = [[*header, "notes"]] + [gradebook_row(graded) for graded in sorted(students, key=lambda g: g.student)]
    text = csv_text(rows)
    # A run stopped between the two makes the next one keep an unedited gradebook aside: nothing is lost.
    write_atomically(out / WRITTEN, text)
    write_atomically(out / GRADEBOOK, text)


def write_not_graded(out: Path, why: dict[str, str]) -> None:
    """not_graded.csv: every entry with no row or not graded in full, and why (an empty list too)."""
    write_atomically(out / "not_graded.csv", csv_text([["student", "why"], *sorted(map(list, why.items()))]))


def final_cell(graded: Graded) -> str:
    """A student's final as the books write it (gradebook.csv's final, canvas.csv's cell)."""
    return f"{graded.final:g}"


def write_changes(out: Path, before: dict[str, str], students: Sequence[Graded]) -> list[str]:
    """changes.csv: whose final differs from the last gradebook (new and gone students too); returns them."""
    after = {graded.student: final_cell(graded) for graded in students}
    changed = sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
    rows = [["student", "before", "after", "change"]]
    for name in changed:
        old, new = before.get(name, ""), after.get(name, "")
        change = f"{float(new) - float(old):+g}" if old and new else "new" if new else "gone"
        rows.append([name, old, new, change])
    write_atomically(out / "changes.csv", csv_text(rows))
    return changed


def read_roster(out: Path) -> dict[str, dict[str, str]] | None:
    """roster.csv: lab student -> Canvas's columns; None without one."""
    path = out / ROSTER
    if not path.is_file():
        return None
    roster: dict[str, dict[str, str]] = {}
    for where, row in read_rows(path, ("student", *CANVAS_COLUMNS)):
        student = same_name(row.pop("student"))
        if not student or not (row["ID"] or row["SIS User ID"]):
            raise TermError(f"{where}: needs a student and Canvas's ID or SIS User ID")
        if student in roster:
            raise TermError(f"{where}: {student} is named twice: keep one row")
        roster[student] = row
    return roster


def write_canvas(
    out: Path, students: Sequence[Graded], roster: dict[str, dict[str, str]], assignment: str, most: int
) -> list[str]:
    """canvas.csv for Canvas's gradebook import; returns the graded students the roster does not name."""
    finals = {graded.student: final_cell(graded) for graded in students}
    rows = [[*CANVAS_COLUMNS, assignment], ["Points Possible", "", "", "", "", str(most)]]
    # A roster's student with no grade gets an empty cell: Canvas leaves an empty cell's grade as it was.
    rows += [
        [*(entry[c] for c in CANVAS_COLUMNS), finals.get(student, "")] for student, entry in sorted(roster.items())
    ]
    write_atomically(out / "canvas.csv", csv_text(rows))
    return sorted(set(finals) - set(roster))
