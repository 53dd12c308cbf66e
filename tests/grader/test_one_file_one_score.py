"""One file, one score: whatever else its process graded before, and whatever it drew ahead.

A process that grades many submissions replays to each the draws that passed for an
earlier one (grader/kit/probing.py, `_drawn`), and `class` draws them all ahead before
forking its pool (`draw_ahead`). A student's module is stateful code: it may remember,
in its process, what it was asked before. So the replay must show the module exactly what
`grade` shows it, request for request, before its first wrong answer and after it, or
the grade depends on what else was graded. hostile/learns_from_failure.py answers the
first drawn case it meets wrong and every call after it right: a check that starts over
in the same child after that wrong answer finds nothing wrong the second time.
"""

import hashlib
import json
import os
from pathlib import Path

import pytest

import agtool
from grader.__main__ import main
from grader.instructor import confined
from grader.instructor.classroom import grade_class, grade_student
from grader.instructor.sandbox.session import SandboxSession
from grader.instructor.submissions import find_submissions
from grader.kit import intake, probing
from grader.kit.checks import CHECKLISTS, every_check
from grader.kit.grading import Grade, grade
from grader.kit.local import LocalSession
from grader.kit.report import for_student, results_json

pytestmark = pytest.mark.grader

REFERENCE = Path(agtool.__file__).with_name("tools.py")
TWIST = Path(__file__).resolve().parents[1] / "submissions" / "hostile" / "learns_from_failure.py"
EVERY_CHECK = every_check()


def learner(folder: Path) -> Path:
    """The reference with the twist appended: stage 2's check_args wrong once, on the first drawn case it meets."""
    path = folder / "learns_from_failure.py"
    path.write_text(REFERENCE.read_text() + "\n\n" + TWIST.read_text())
    return path


def checks(result: Grade, path: Path) -> list[dict]:
    """Every check as a class's results.json gives it to the student: its score, status and feedback
    (the failing case shown, the hint), the file named as the class folder names it."""
    return results_json(result, for_student(path.name))["tests"]


def scores(tests: list[dict]) -> dict[str, int]:
    return {test["number"]: test["score"] for test in tests}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_module_that_learns_from_its_first_failure_gets_one_score_whatever_was_drawn_before(
    seed, tmp_path, monkeypatch
):
    """In-process (LocalSession): graded alone by a fresh process's draws, after a correct module in the
    same process, and after draw_ahead, as class's workers are: the same checks, scores and failures."""
    monkeypatch.setattr(probing, "_PASSED_DRAWS", {})
    path = learner(tmp_path)
    alone = checks(grade(str(path), LocalSession, seed=seed, stages=(2,)), path)
    assert [test["number"] for test in alone if test["score"] < test["max_score"]] == ["2.1"]
    grade(str(REFERENCE), LocalSession, seed=seed, stages=(2,))  # its draws all pass: they are kept
    assert checks(grade(str(path), LocalSession, seed=seed, stages=(2,)), path) == alone
    probing._PASSED_DRAWS.clear()
    probing.draw_ahead(EVERY_CHECK, seed)
    assert checks(grade(str(path), LocalSession, seed=seed, stages=(2,)), path) == alone


def test_class_gives_a_module_that_learns_from_its_first_failure_the_score_grade_gives(tmp_path, monkeypatch):
    """In the real sandbox: `grade` in a process that drew nothing before, and `class` over a folder where a
    correct module is graded first (and every check was drawn ahead): the same per-check scores, failures included."""
    monkeypatch.setattr(probing, "_PASSED_DRAWS", {})
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "alice.py").write_text(REFERENCE.read_text())
    path = learner(folder).rename(folder / "mallory.py").resolve()
    graded = checks(grade(str(path), SandboxSession, seed=0), path)
    assert graded[0]["number"] == "1.1" and sum(test["score"] for test in graded) < 100
    assert [test["number"] for test in graded if test["score"] < test["max_score"]] == ["2.1"]

    out = tmp_path / "out"
    rows = grade_class(folder, out, jobs=1, seed=0, progress=False)
    assert [row.student for row in rows] == ["alice", "mallory"] and rows[0].raw == 100
    in_class = json.loads((out / "students" / "mallory" / "results.json").read_text())["tests"]
    assert scores(in_class) == scores(graded)
    assert in_class == graded


def test_a_replay_that_is_not_what_hypothesis_draws_is_a_grader_error_never_a_score(tmp_path, monkeypatch):
    """The premise of the replay is that its cases are Hypothesis's own: cases in another order, once one
    fails, cannot be shrunk as `grade` shrinks them (the child has seen other cases), so grading stops."""
    monkeypatch.setattr(probing, "_PASSED_DRAWS", {})
    check = CHECKLISTS[2].checks[0]
    probing.draw_ahead([check], seed=0)
    ((key, cases),) = probing._PASSED_DRAWS.items()
    assert len(cases) > 1 and repr(cases[::-1]) != repr(cases)
    probing._PASSED_DRAWS[key] = cases[::-1]  # the learner fails the first drawn case it meets: the last one here
    with pytest.raises(probing.ReplayDiverged, match=r"check 2\.1: the cases replayed are not"):
        grade(str(learner(tmp_path)), LocalSession, seed=0, only="2.1")


# ── one file, read once: what a grade judges is what it read first ───────────────
REPLACED = "raise ImportError('this file was replaced after the grade read it')\n"


def replace(path: Path) -> None:
    """Another file in path's place (a new inode, as a resubmission or a swap makes): it does not import."""
    swap = path.with_name(path.name + ".swap")
    swap.write_text(REPLACED)
    os.replace(swap, path)


def full_marks(result: Grade) -> None:
    assert result.score == result.max_score, [r.message for r in result.results if not r.passed]


@pytest.mark.parametrize("where", ["in-process", "confined"])
def test_a_file_replaced_after_the_first_stage_began_is_graded_as_first_read_in_every_stage(
    where, tmp_path, monkeypatch
):
    """The submission is read once a grade and carried to every stage as bytes: a file replaced on disk
    once stage 1's session has begun reaches no later stage, in-process (LocalSession) or in the sandbox
    (grade_confined, the submission compiled once)."""
    path = tmp_path / "tools.py"
    path.write_text(REFERENCE.read_text())
    started: list[int] = []

    def after_first(session) -> None:
        started.append(session)
        if len(started) == 1:
            replace(path)

    if where == "in-process":

        class Replacing(LocalSession):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                after_first(self)

        result = grade(str(path), Replacing, seed=0, scale=0.3)
    else:

        class ReplacingBox(SandboxSession):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                after_first(self)

        monkeypatch.setattr(confined, "SandboxSession", ReplacingBox)
        result = confined.grade_confined(str(path), seed=0)
    assert len(started) == len(CHECKLISTS)
    full_marks(result)


def test_grade_reads_the_file_once_and_every_stage_grades_that_read(tmp_path, monkeypatch):
    """`python -m grader grade`: the read that refuses what must not be graded (a FIFO, over 1 MB ...) is the
    one read of the grade; the file, replaced the moment it was read, is not read again by any stage."""
    path = tmp_path / "tools.py"
    path.write_text(REFERENCE.read_text())
    reads: list[str] = []
    read_submission = intake.read_submission

    def read_then_replace(*args, **kwargs):
        read = read_submission(*args, **kwargs)
        reads.append(args[0])
        replace(path)
        return read

    monkeypatch.setattr(intake, "read_submission", read_then_replace)
    results = tmp_path / "out" / "results.json"
    assert main(["grade", str(path), "--results", str(results)]) == 0
    assert reads == [str(path)]
    assert json.loads(results.read_text())["score"] == 100


def test_class_grades_the_very_bytes_it_found_and_stamped(tmp_path):
    """`class` reads each file once, when it finds it (the stamp is that read's sha256): a file replaced
    between finding and grading is graded, and stamped, as found."""
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "alice.py").write_text(REFERENCE.read_text())
    (submission,), refused = find_submissions(folder)
    assert refused == {}
    replace(folder / "alice.py")
    row = grade_student(submission, 0, tmp_path / "out")
    assert row.raw == 100 and row.ungraded is None
    assert submission.digest == hashlib.sha256(REFERENCE.read_bytes()).hexdigest()
