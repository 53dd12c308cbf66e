"""A graded student is one record (grader/instructor/graded.py): graded.json is its one serialisation, and
every file `class` writes of a student is a view of it, the same whether the record was just graded or
read back by a later process (a resumed run, `merge`)."""

import json
import pickle
from pathlib import Path

import pytest

from grader.instructor.classroom import grade_student
from grader.instructor.gradebook import gradebook_row
from grader.instructor.graded import STAGE_NUMBERS, Graded, failure_reason
from grader.instructor.handout import student_feedback, student_results
from grader.instructor.records import read_record
from grader.instructor.submissions import find_submissions
from grader.instructor.term import Term
from grader.kit.checks import every_check
from grader.kit.probing import CheckResult, Mismatch
from tests.beginners import source

SUBMISSIONS = Path(__file__).parents[1] / "submissions"
# student -> their file's text: a beginner's file that fails checks with a hint chosen from what was
# observed, one that does not define the stages at all (its failures name the exception raised), and
# a third whose failures raise (2.2) and name a problem (5.6) at the fixture's seed.
FILES = {
    "lea": source("lea.py"),
    "table": (SUBMISSIONS / "broken" / "table.py").read_text(),
    "ana": source("ana.py"),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, tuple[Graded, Path]]:
    """student -> (their record as grade_student returned it, the class's OUT)."""
    folder, out = tmp_path_factory.mktemp("class"), tmp_path_factory.mktemp("out")
    for name, text in FILES.items():
        (folder / f"{name}.py").write_text(text)
    submissions, _ = find_submissions(folder)
    return {submission.student: (grade_student(submission, 3, out), out) for submission in submissions}


def views(record: Graded) -> tuple:
    """Every file of a student `class` writes, from their record with an empty term."""
    applied = record.with_term(Term())
    return student_feedback(applied, 100), student_results(applied, 100), gradebook_row(applied)


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
    applied = record.with_term(Term())
    assert applied.to_json() == record.to_json() and applied.final == record.raw
    with pytest.raises(ValueError, match="the term is not applied"):
        _ = record.final


def test_a_failure_names_its_exception_and_its_problem_as_fields(graded):
    """What the report counts a failure by is data the judge set, written in graded.json and read back."""
    record, out = graded["ana"]
    written = json.loads((out / "students" / "ana" / "graded.json").read_text())
    failures = {entry["label"]: entry["failure"] for entry in written["checks"] if entry["failure"]}
    assert (failures["2.2"]["exception"], failures["2.2"]["problem"]) == ("TypeError", "")
    assert (failures["5.6"]["exception"], failures["5.6"]["problem"]) == ("", "another envelope")
    assert (record.failed["2.2"], record.failed["5.6"]) == ("raised TypeError", "another envelope")
    again = read_record(out, "ana")
    assert again is not None and again.failed == record.failed


def test_the_reason_is_read_from_fields_never_from_the_text():
    check = every_check()[0]
    text = "raised KeyError: 'x' (a problem)"  # what a rendered got may say: the reason never reads it
    said = {
        "nothing": Mismatch("f()", "1", text),
        "raised": Mismatch("f()", "1", "2", exception="KeyError"),
        "problem": Mismatch("f()", "1", "2", problem="another envelope"),
        "both": Mismatch("f()", "1", "2", exception="ValueError", problem="another envelope"),
    }
    reasons = {name: failure_reason(CheckResult(check, False, "found a wrong answer", m)) for name, m in said.items()}
    assert reasons == {
        "nothing": "found a wrong answer",
        "raised": "raised KeyError",
        "problem": "another envelope",
        "both": "raised ValueError",
    }
