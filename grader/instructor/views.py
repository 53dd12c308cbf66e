"""Every file `class` and `merge` write from the records, with the term applied on every run: nothing here
is read back. docs/grading.md says what each file holds.
"""

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.instructor.class_report import report_html
from grader.instructor.gradebook import (
    KeptAside,
    keep_hand_edits,
    previous_finals,
    read_roster,
    write_canvas,
    write_changes,
    write_gradebook,
    write_not_graded,
)
from grader.instructor.graded import Graded
from grader.instructor.handout import write_handout
from grader.instructor.integrity import INTEGRITY, write_integrity
from grader.instructor.records import student_folder, write_no_row
from grader.instructor.submissions import HandedIn, UsageError
from grader.instructor.term import Term, TermError, read_term
from grader.kit.checks import every_check
from grader.kit.grading import STAGE_POINTS
from grader.kit.report import write_atomically

CHECK_POINTS = {check.label: check.points for check in every_check()}
MOST = sum(STAGE_POINTS.values())
PARTIAL = "its students have no row in these books"


@dataclass(frozen=True)
class Books:
    """What a run writes the books with, read from OUT before it writes any (open_books)."""

    out: Path
    term: Term
    roster: dict | None  # roster.csv, for canvas.csv; None without one
    kept_aside: KeptAside | None  # a hand-edited gradebook.csv, kept aside (gradebook.keep_hand_edits)
    before: dict[str, str] | None  # the finals last written, which changes.csv compares

    def write(
        self,
        graded: list[Graded],
        no_row: dict[str, str],
        report: bool,
        compared: list[HandedIn] | None = None,
        missing_shards: tuple[str, ...] = (),
        left: Sequence[str] = (),
    ) -> None:
        """Every file for the instructor and each student's handout, from the records of the graded and of the
        entries with no row (entry -> why); says what to know. report: write report.html too (once the class is
        whole); compared: the submissions to compare (--similar), else None (integrity.html is kept as it was);
        missing_shards: the shards a partial merge lacks; left: the students a stopped run left to grade."""
        out, term = self.out, self.term
        graded = write_books(out, graded, term)
        write_handouts(out, graded)
        ungraded = {row.student: row.ungraded for row in graded if row.ungraded}
        apart = {f"shard {shard}": f"not merged (merge --partial): {PARTIAL}" for shard in missing_shards}
        write_no_row(out, no_row, left)
        write_not_graded(out, {**no_row, **ungraded, **apart})
        said = [f"not graded: {student}: {why}" for student, why in sorted({**no_row, **ungraded}.items())]
        said += [f"partial: shard {shard} not merged: {PARTIAL}" for shard in missing_shards]
        if term.unmatched:
            rows = "1 row names" if len(term.unmatched) == 1 else f"{len(term.unmatched)} rows name"
            said.append(f"submitted.csv: {rows} no student in DIR (an LMS lists everyone): {', '.join(term.unmatched)}")
        if self.kept_aside:
            said.append(self.kept_aside.said())
        if self.roster is not None:
            unnamed = write_canvas(out, graded, self.roster, term.assignment, MOST)
            if unnamed:
                said.append(f"canvas.csv: {len(unnamed)} graded students not in roster.csv: {', '.join(unnamed)}")
        if self.before is not None:
            changed = write_changes(out, self.before, graded)
            said.append(f"changes.csv: {len(changed)} students' final scores changed since the last run")
        if compared is not None:
            write_similar(out, compared, graded)
        if report:  # the class on one page
            integrity = INTEGRITY if (out / INTEGRITY).is_file() else None
            write_atomically(out / "report.html", report_html(graded, no_row, self.roster, integrity, missing_shards))
        for line in said:
            print(line, file=sys.stderr)


def read_books_input(out: Path, students: set[str], handed_in: set[str]) -> tuple[Term, dict | None]:
    """The term files and the roster in OUT, checked against the class (handed_in: the students with a
    file, who need a row in submitted.csv): a bad one is a UsageError."""
    try:
        return read_term(out, students, CHECK_POINTS, handed_in), read_roster(out)
    except TermError as error:
        raise UsageError(str(error)) from None


def open_books(out: Path, term: Term, roster: dict | None) -> Books:
    """The books of OUT, to be written with term and roster: a hand-edited gradebook.csv is kept aside now,
    and the finals last written are read, before anything is written."""
    return Books(out, term, roster, keep_hand_edits(out), previous_finals(out))


def write_books(out: Path, graded: list[Graded], term: Term) -> list[Graded]:
    """gradebook.csv; returns the records with the term applied."""
    applied = [student.with_term(term) for student in graded]
    write_gradebook(out, applied)
    return applied


def write_handouts(out: Path, graded: list[Graded]) -> None:
    for student in graded:
        write_handout(student_folder(out, student.student), student, MOST)


def write_similar(out: Path, submissions: list[HandedIn], graded: list[Graded]) -> None:
    """integrity.html, of each graded student's file (one that does not import too: a copy can be broken on
    purpose). release needs nbformat, which a class without --similar does not: imported here."""
    from grader.instructor.release import starter

    names = {row.student for row in graded}
    read = {submission.student: submission.read for submission in submissions if submission.student in names}
    write_integrity(out, {name: file.data.decode("utf-8", "replace") for name, file in read.items() if file}, starter())
