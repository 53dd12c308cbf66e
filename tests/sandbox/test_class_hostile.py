"""`python -m grader class` grades only what belongs to each student, and never loses the gradebook.

Each attack is a class folder entry a hostile (or careless) student could hand in:
a symlink to a classmate's file, a FIFO or a device as <student>.py, a file too large
to be a tools.py, a folder named like one of class's own outputs; and a pool worker
that dies under a student.
"""

import csv
import json
import multiprocessing
import os
import signal
import stat
import subprocess
import sys
from concurrent.futures import Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import ClassVar

import pytest

import agtool
from grader.instructor import classroom
from grader.instructor.classroom import HandedIn, find_submissions, grade_class, grade_student
from grader.instructor.graded import Graded
from grader.instructor.sandbox.session import SandboxSession, zygote
from grader.kit.checks import every_check
from grader.kit.errors import GraderError
from grader.kit.grading import Grade
from grader.kit.probing import CheckResult
from tests.processes import wait_ended
from tests.sandboxing import QUICK, call, gone, sandbox_processes, uid_of

pytestmark = pytest.mark.grader

REFERENCE = Path(agtool.__file__).with_name("tools.py").read_text()
ROOT = Path(agtool.__file__).resolve().parents[1]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# Each attack: (what it plants in a class folder that holds alice.py, the words its refusal says).
def symlink_to_a_classmate(folder: Path) -> None:
    (folder / "eve").mkdir()
    (folder / "eve" / "tools.py").symlink_to("../alice.py")


def symlinked_file(folder: Path) -> None:
    (folder / "eve.py").symlink_to(folder / "alice.py")


def symlinked_folder(folder: Path) -> None:
    write(folder / ".real" / "tools.py", REFERENCE)  # hidden: only eve's link shows it
    (folder / "eve").symlink_to(folder / ".real")


def fifo(folder: Path) -> None:
    os.mkfifo(folder / "eve.py")


def device(folder: Path) -> None:
    os.mknod(folder / "eve.py", stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero's numbers


def over_size(folder: Path) -> None:
    write(folder / "eve.py", REFERENCE + "#" * (2 * 1024 * 1024) + "\n")


ATTACKS = {
    "symlink to a classmate": (symlink_to_a_classmate, "symbolic link"),
    "symlinked file": (symlinked_file, "symbolic link"),
    "symlinked folder": (symlinked_folder, "symbolic link"),
    "fifo": (fifo, "not a regular file"),
    "device": (device, "not a regular file"),
    "over-size file": (over_size, "over 1 MB"),
}


@pytest.mark.parametrize("attack", ATTACKS)
def test_what_is_not_the_students_own_regular_file_is_refused_by_name(attack, tmp_path):
    folder = tmp_path / "class"
    write(folder / "alice.py", REFERENCE)
    plant, words = ATTACKS[attack]
    plant(folder)
    submissions, refused = find_submissions(folder)
    assert [submission.student for submission in submissions] == ["alice"]
    assert list(refused) == ["eve"] and words in refused["eve"], refused


def test_a_symlink_inside_the_students_own_folder_is_followed(tmp_path):
    write(tmp_path / "class" / "bob" / "lab" / "agtool" / "tools.py", REFERENCE)
    (tmp_path / "class" / "bob" / "tools.py").symlink_to("lab/agtool/tools.py")
    submissions, refused = find_submissions(tmp_path / "class")
    assert refused == {}
    assert submissions[0].path == (tmp_path / "class" / "bob" / "lab" / "agtool" / "tools.py")


def gradebook(out: Path) -> dict[str, str]:
    with open(out / "gradebook.csv", newline="") as file:
        return {row["student"]: row["final"] for row in csv.DictReader(file)}


def not_graded(out: Path) -> dict[str, str]:
    with open(out / "not_graded.csv", newline="") as file:
        return {row["student"]: row["why"] for row in csv.DictReader(file)}


def test_a_hostile_class_is_graded_refused_student_by_student_and_runs_again(tmp_path):
    """Every attack at once, through the command line: the refusals are listed by student,
    the students named like outputs are graded, and a rerun works (it crashed, or blocked, before)."""
    folder, out = tmp_path / "class", tmp_path / "out"
    write(folder / "alice.py", REFERENCE)
    for name in ("gradebook.csv", "report.html", "not_graded.csv", "students"):
        write(folder / name / "tools.py", REFERENCE)
    symlink_to_a_classmate(folder)
    os.mkfifo(folder / "fifo.py")
    os.mknod(folder / "device.py", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    write(folder / "big.py", "#" * (2 * 1024 * 1024))
    command = [sys.executable, "-m", "grader", "class", str(folder), "--out", str(out), "--jobs", "2"]
    for run in ("first", "again"):
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (run, done.stderr[-3000:])
        assert "Traceback" not in done.stderr
        assert gradebook(out) == {
            "alice": "100",
            "gradebook.csv": "100",
            "report.html": "100",
            "not_graded.csv": "100",
            "students": "100",
        }
        why = not_graded(out)
        assert sorted(why) == ["big", "device", "eve", "fifo"]
        assert "symbolic link" in why["eve"] and "over 1 MB" in why["big"]
        assert "not a regular file" in why["fifo"] and "not a regular file" in why["device"]
        for student, reason in why.items():
            assert f"not graded: {student}: {reason}" in done.stderr
    assert "<svg" in (out / "report.html").read_text()


# ── a worker that dies under a student ───────────────────────────────────────


def note(out: Path, line: str) -> None:
    """Add a line to the story of a class's grading, told by its pool's workers (one write each: in order)."""
    with open(out.parent / "story", "a") as story:
        story.write(line + "\n")


def story(out: Path) -> list[str]:
    """The story so far: no line, when nothing was told."""
    told = out.parent / "story"
    return told.read_text().splitlines() if told.exists() else []


# Events the pool's workers share: made here before grade_class, they are inherited by its forked workers.
FORK = multiprocessing.get_context("fork")
MALLORY_HANDED_OVER, CLASSMATE_IN_FLIGHT, NEVER_SET = FORK.Event(), FORK.Event(), FORK.Event()
WRITING_AMYS_ROW, AMY_OPEN, ZYGOTE_KILLED = FORK.Event(), FORK.Event(), FORK.Event()
LONG = 60  # seconds: a bound on waits for what happens at once, so that a broken test fails instead of hanging


@pytest.fixture
def events():
    """The workers' events, cleared: each test's class starts from none."""
    for event in (MALLORY_HANDED_OVER, CLASSMATE_IN_FLIGHT, NEVER_SET, WRITING_AMYS_ROW, AMY_OPEN, ZYGOTE_KILLED):
        event.clear()


def full_marks(submission: HandedIn) -> Graded:
    """What a stand-in for grade_student returns: the student's record, every check passed, nothing run."""
    passed = [CheckResult(check, True, "passed (not run: a stand-in)") for check in every_check()]
    return Graded(submission.student, submission.shown, Grade(str(submission.path), 0, passed, 0.0), {})


def dies_for_mallory(submission, seed, out):
    """grade_student in a pool worker that dies while grading mallory (an OOM kill, a stray signal), once
    a classmate is in flight beside it; that classmate waits to be stopped with the broken pool."""
    if submission.student == "mallory":
        MALLORY_HANDED_OVER.set()
        CLASSMATE_IN_FLIGHT.wait(LONG)  # a classmate handed over after mallory: the queue holds some
        note(out, "mallory's worker dies")
        os._exit(9)
    note(out, f"{submission.student} starts")
    if submission.student > "mallory" and "mallory's worker dies" not in story(out):
        # Handed over after her (the pool hands the class out in order), but maybe before her worker said so:
        # waiting for it, a classmate is in flight when she dies however the workers are scheduled.
        MALLORY_HANDED_OVER.wait(LONG)
    if MALLORY_HANDED_OVER.is_set() and "mallory's worker dies" not in story(out):
        CLASSMATE_IN_FLIGHT.set()
        if not NEVER_SET.wait(LONG):  # the broken pool stops this worker (SIGTERM) before
            raise RuntimeError(f"{submission.student}'s worker was not stopped when mallory's died")
    note(out, f"{submission.student} ends")
    return full_marks(submission)


def in_flight_at_the_death(told: list[str]) -> set[str]:
    """The students whose grading had started, and not ended, when mallory's worker first died."""
    before = told[: told.index("mallory's worker dies")]
    started = {line.split()[0] for line in before if line.endswith(" starts")}
    return started - {line.split()[0] for line in before if line.endswith(" ends")}


def test_a_dead_worker_costs_only_the_student_it_died_under(tmp_path, monkeypatch, capsys, events):
    folder, out = tmp_path / "class", tmp_path / "out"
    students = ["amy", "ben", "cat", "dot", "mallory", "ned", "oli"]
    for student in students:
        write(folder / f"{student}.py", REFERENCE)
    # Forked workers see the module as it is here: the replacement is what they run.
    monkeypatch.setattr(classroom, "grade_student", dies_for_mallory)
    monkeypatch.setattr(classroom, "_links", lambda jobs: [])  # no zygote needed: nothing is graded
    monkeypatch.setattr(classroom, "warm", lambda link: None)
    rows = grade_class(folder, out, jobs=3, progress=False)
    innocent = [student for student in students if student != "mallory"]
    assert [row.student for row in rows] == innocent
    assert sorted(gradebook(out)) == innocent
    assert list(not_graded(out)) == ["mallory"] and "worker" in not_graded(out)["mallory"]
    assert "not graded: mallory:" in capsys.readouterr().err
    told = story(out)
    caught = in_flight_at_the_death(told)
    assert caught, told  # the path this test is about: classmates in the pool as mallory's worker died
    after = told[told.index("mallory's worker dies") :]
    assert all(f"{student} ends" in after for student in caught), told  # and graded once it had


def dies_for_mallory_while_a_row_is_written(submission, seed, out):
    """grade_student in a pool worker: amy's row comes back at once; mallory's worker dies while the
    grader writes amy's row, before it hands the pool its next student."""
    if submission.student == "mallory":
        if not WRITING_AMYS_ROW.wait(LONG):
            raise RuntimeError("amy's row was never written")
        os._exit(9)
    return full_marks(submission)


class WatchedPool(ProcessPoolExecutor):
    """The class's pool (in the process that grades the class), keeping what it was handed, by student,
    and who it refused because it was broken."""

    made: ClassVar[list["WatchedPool"]] = []  # every one made, in order

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.handed: dict[str, Future] = {}
        self.refused: list[str] = []
        self.made.append(self)

    def submit(self, fn, /, *args, **kwargs):
        student = args[0].student
        try:
            self.handed[student] = super().submit(fn, *args, **kwargs)
        except BrokenProcessPool:
            self.refused.append(student)
            raise
        return self.handed[student]


def test_a_worker_that_dies_between_two_students_costs_only_its_own(tmp_path, monkeypatch, capsys, events):
    """The pool can break after one student's row came back and before the next is handed over:
    the one not yet handed over is graded in a fresh pool, not lost with the broken one."""
    folder, out = tmp_path / "class", tmp_path / "out"
    students = ["amy", "mallory", "ned", "oli"]
    for student in students:
        write(folder / f"{student}.py", REFERENCE)
    monkeypatch.setattr(classroom, "grade_student", dies_for_mallory_while_a_row_is_written)
    monkeypatch.setattr(classroom, "_links", lambda jobs: [])
    monkeypatch.setattr(classroom, "warm", lambda link: None)
    monkeypatch.setattr(classroom, "ProcessPoolExecutor", WatchedPool)
    monkeypatch.setattr(WatchedPool, "made", [])
    writing = classroom.write_books

    def once_mallorys_worker_died_for_amy(out, rows, term):  # amy's row is written while mallory's worker dies
        if [row.student for row in rows] == ["amy"]:
            WRITING_AMYS_ROW.set()
            first = WatchedPool.made[0]  # amy's and mallory's: the pool knows it is broken once her future ends
            if not wait([first.handed["mallory"]], timeout=LONG).done:
                pytest.fail("mallory's worker did not die")
        return writing(out, rows, term)

    monkeypatch.setattr(classroom, "write_books", once_mallorys_worker_died_for_amy)
    rows = grade_class(folder, out, jobs=2, progress=False)
    assert [row.student for row in rows] == ["amy", "ned", "oli"]
    assert list(not_graded(out)) == ["mallory"] and "worker" in not_graded(out)["mallory"]
    assert WatchedPool.made[0].refused == ["ned"]  # the path this test is about: ned, refused by the broken pool


# The student a pool worker grades now, and the folder it writes in: the worker's own (it is forked).
GRADING: list[tuple[str, Path]] = []
REQUEST = SandboxSession.request


def kills_the_zygote_under_mallory(submission, seed, out):
    """grade_student in a pool worker: at mallory's first request the zygote every worker forks its
    children from is killed, with amy's session open beside (request_at_the_zygotes_death)."""
    GRADING.append((submission.student, out))
    try:
        return grade_student(submission, seed, out)
    finally:
        GRADING.pop()


def request_at_the_zygotes_death(box, req):
    """SandboxSession.request in a pool worker. The first of mallory's kills the zygote, once amy's first
    waits with her session open; both then go on, their children dead with the zygote."""
    student, out = GRADING[-1]
    if not ZYGOTE_KILLED.is_set():
        if student == "mallory":
            if not AMY_OPEN.wait(LONG):
                raise RuntimeError("amy's session never opened")
            killed = zygote().process.pid
            os.kill(killed, signal.SIGKILL)
            assert not wait_ended([killed], LONG)
            ZYGOTE_KILLED.set()
        elif student == "amy":
            AMY_OPEN.set()
            if not ZYGOTE_KILLED.wait(LONG):
                raise RuntimeError("the zygote was never killed")
    try:
        return REQUEST(box, req)
    except GraderError:
        note(out, f"{student}'s child died with the zygote")
        raise


def test_a_zygote_that_dies_costs_no_one_points_and_its_students_are_graded_again(tmp_path, monkeypatch, events):
    """Every child dies with its zygote: the grades they were part of are the machine's failure,
    so each is graded again from the start with a fresh zygote, and each student keeps 100."""
    folder, out = tmp_path / "class", tmp_path / "out"
    students = ["amy", "mallory", "ned", "oli"]
    for student in students:
        write(folder / f"{student}.py", REFERENCE)
    monkeypatch.setattr(classroom, "grade_student", kills_the_zygote_under_mallory)
    monkeypatch.setattr(SandboxSession, "request", request_at_the_zygotes_death)
    grade_class(folder, out, jobs=2, progress=False)
    # The path this test is about: both children died with the zygote, mid-grade.
    assert sorted(story(out)) == ["amy's child died with the zygote", "mallory's child died with the zygote"]
    assert gradebook(out) == dict.fromkeys(students, "100")
    assert not (out / "not_graded.csv").exists() or not_graded(out) == {}


def opens_a_session_and_dies_for_mallory(submission, seed, out):
    """grade_student in a pool worker: each student's session is opened and noted; mallory's worker
    dies (SIGKILL's way: no clean-up of its own) with the session open and a background process running."""
    box = SandboxSession(str(submission.path), 1, QUICK)
    call(box, "spawn")  # a process of the child's uid, outside the child's process group
    note = {"child": box.pid, "uid": box.uid, "workdir": box.workdir, "zygote": parent_of(box.pid)}
    (out.parent / f"{submission.student}.json").write_text(json.dumps(note))
    if submission.student == "mallory":
        os._exit(9)
    box.close()
    return full_marks(submission)


def closed_links_taken_in() -> None:
    """Return once this process's zygote has ended the sessions of every link closed before the call.
    It serves its links in rounds: one select(), then each ready link in turn, a closed one's sessions
    ended right there. An order sent now is answered in the round that also sees every link closed
    before it (or after that link was taken in); a second order, in a round after that one."""
    for _ in range(2):
        zygote().link().close()


def parent_of(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("PPid:")).split()[1])


SPAWNS = """
import os, subprocess, sys
def spawn():
    subprocess.Popen([sys.executable, "-c", "import os, time; os.setsid(); time.sleep(60)"])
    return "spawned"
"""


def test_the_workers_share_the_graders_zygote_and_one_that_dies_leaves_nothing_behind(tmp_path, monkeypatch):
    """A class on --jobs N starts no zygote per worker: each worker links to the one of the process
    that grades the class. A worker killed with a session open costs its student only, and the
    zygote, seeing its link close, kills that child and its uid's processes and removes its workdir."""
    folder, out = tmp_path / "class", tmp_path / "out"
    students = ["amy", "ben", "mallory", "ned"]
    for student in students:
        write(folder / f"{student}.py", SPAWNS)
    monkeypatch.setattr(classroom, "grade_student", opens_a_session_and_dies_for_mallory)
    grader_zygote = zygote().process.pid
    rows = grade_class(folder, out, jobs=2, progress=False)
    assert [row.student for row in rows] == ["amy", "ben", "ned"]
    notes = {student: json.loads((tmp_path / f"{student}.json").read_text()) for student in students}
    assert {note["zygote"] for note in notes.values()} == {grader_zygote}, notes
    mallory = notes["mallory"]
    closed_links_taken_in()
    assert gone(mallory["child"]) and not os.path.exists(mallory["workdir"])
    assert not [pid for pid in sandbox_processes() if uid_of(pid) == mallory["uid"]]
