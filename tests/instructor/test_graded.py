"""A graded student is one record (grader/instructor/graded.py): graded.json is its one serialisation, and
every file `class` writes of a student is a view of it, the same whether the record was just graded or
read back by a later process (a resumed run, `merge`)."""

import json
import pickle
from pathlib import Path

import pytest

from grader.instructor.classroom import find_submissions, grade_student, read_record
from grader.instructor.gradebook import gradebook_row
from grader.instructor.graded import STAGE_NUMBERS, Graded
from grader.instructor.handout import student_feedback, student_results
from grader.instructor.term import Term, apply

SUBMISSIONS = Path(__file__).parents[1] / "submissions"
# A beginner's file that fails checks with a hint chosen from what was observed, and one that
# does not define the stages at all (its failures name the exception raised).
FILES = {"lea": SUBMISSIONS / "beginner" / "lea.py", "table": SUBMISSIONS / "broken" / "table.py"}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, tuple[Graded, Path]]:
    """student -> (their record as grade_student returned it, the class's OUT)."""
    folder, out = tmp_path_factory.mktemp("class"), tmp_path_factory.mktemp("out")
    for name, path in FILES.items():
        (folder / f"{name}.py").write_bytes(path.read_bytes())
    submissions, _ = find_submissions(folder)
    return {submission.student: (grade_student(submission, 3, out), out) for submission in submissions}


def views(record: Graded) -> tuple:
    """Every file of a student `class` writes, from their record with an empty term."""
    applied = record.with_term(apply(Term(), record.student, record.raw, record.checks, record.modified))
    return student_feedback(applied, 100), student_results(applied, 100), gradebook_row(applied, STAGE_NUMBERS)


@pytest.mark.parametrize("student", sorted(FILES))
def test_a_record_read_back_gives_every_view_byte_for_byte(graded, student):
    record, out = graded[student]
    assert any(result.mismatch for result in record.grade.results)  # a failure to carry: its data, hint, exceptions
    again = read_record(out, student)
    assert again is not None
    assert again.to_json() == record.to_json()
    assert views(again) == views(record)
    assert views(pickle.loads(pickle.dumps(record))) == views(record)  # as a pool's worker hands it over


def test_the_record_holds_data_not_rendered_text(graded):
    record, out = graded["lea"]
    written = json.loads((out / "students" / "lea" / "graded.json").read_text())
    assert set(written) == {"student", "shown", "stamp", "ungraded", "modified", "sandbox", "path", "seed", "checks"}
    failed = [entry["failure"] for entry in written["checks"] if entry["failure"]]
    assert failed and all(set(failure) >= {"call", "expected", "got", "hint", "setting"} for failure in failed)
    assert record.stages == {
        stage: sum(result.score for result in record.grade.results if result.check.stage == stage)
        for stage in STAGE_NUMBERS
    }
    assert sum(record.stages.values()) == record.raw < 100


def test_the_term_is_never_written_with_the_record(graded):
    record, _ = graded["lea"]
    applied = record.with_term(apply(Term(), "lea", record.raw, record.checks, record.modified))
    assert applied.to_json() == record.to_json() and applied.final == record.raw
    with pytest.raises(ValueError, match="the term is not applied"):
        _ = record.final
