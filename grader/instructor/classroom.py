"""`python -m grader class DIR --out OUT [--jobs N] [--seed N]`: grade a whole class.

DIR holds one submission per student: DIR/<student>.py, or a folder DIR/<student>/
with a tools.py in it (at its top, or anywhere below: a whole lab folder is fine).
Only what is the student's own regular file is graded: a symlink out of their folder
(a classmate's file), a FIFO, a device or a file over 1 MB is refused, by name.
For each student OUT/students/<student>/ gets results.json (Gradescope's format) and
feedback.md; OUT/gradebook.csv has one row per student graded (student, total,
stage1 … stage6), OUT/not_graded.csv one per entry that was not (student, why), and
OUT/histogram.png the spread of the scores. Students live under OUT/students/, so no
student's name can collide with those three.

Parallel: a pool of worker processes forked from this one after the heavy imports,
each grading one student at a time, each stage in its own sandbox. The workers fork
their sandboxes from this process's zygote, each over a link of its own: one zygote
boots for the class, not one a worker. A worker that
dies (killed from outside, out of memory) costs no classmate: the students it held
are graded again, each alone, and only one that kills a worker on its own is listed
as not graded.

Resumable: every file is written atomically (a temp file, then os.replace), and a
student's results are followed by a stamp, OUT/students/<student>/graded.json, holding
the seed and the hashes of the submission and of the grader. A student whose stamp
matches is not graded again, so a run stopped half-way (Ctrl-C, SIGTERM, a crash)
and started again loses nothing and redoes nothing; a changed submission, seed or
grader is graded again. Ctrl-C or SIGTERM stops the workers at once, each through its
sandbox's clean-up, and writes the gradebook of what was graded.
"""

import argparse
import contextlib
import csv
import functools
import hashlib
import io
import json
import os
import signal
import sys
import tempfile
import time
from collections import deque
from concurrent.futures import ALL_COMPLETED, FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import get_context
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path

from tqdm import tqdm

from agtool.syllabus import LESSONS
from grader.instructor.confined import grade_confined
from grader.instructor.sandbox.session import Link, warm, zygote
from grader.kit.checks import STAGES
from grader.kit.grading import STAGE_POINTS
from grader.kit.intake import NotASubmission, read_submission
from grader.kit.probing import draw_ahead
from grader.kit.report import Audience, write_atomically, write_feedback, write_results

STAGE_NUMBERS = sorted(LESSONS)  # the gradebook's stage columns, in order
STUDENTS = "students"  # OUT/students/<student>/: apart from class's own files, so no name collides
STOP_SECONDS = 5  # after Ctrl-C, how long a worker has to clean its sandbox up before SIGKILL


class UsageError(Exception):
    """Bad input to `class`: the message names the argument and what to do."""


@dataclass(frozen=True)
class Submission:
    student: str
    path: Path  # a regular file inside the student's own entry, symlinks resolved
    digest: str  # sha256 of what was read: the stamp compares it
    folder: Path  # the class's DIR: no child reads it (nor OUT), classmates' files and feedback


@dataclass(frozen=True)
class Row:
    """One line of the gradebook."""

    student: str
    total: float
    stages: dict[int, float]


# ── finding the submissions ──────────────────────────────────────────────────


def find_tools(folder: Path) -> Path | None:
    """The tools.py in folder, or the shallowest one below it (the first by name among equals)."""
    found = sorted(folder.rglob("tools.py"), key=lambda path: (len(path.parts), path.as_posix()))
    found = [
        path for path in found if not _hidden(path.relative_to(folder)) and (path.is_symlink() or not path.is_dir())
    ]
    return found[0] if found else None


def _hidden(relative: Path) -> bool:
    return any(part.startswith((".", "__")) for part in relative.parts)


def find_submissions(folder: Path) -> tuple[list[Submission], dict[str, str]]:
    """(the submissions in folder, sorted by student; entry -> why, for entries not graded)."""
    if not folder.is_dir():
        raise UsageError(
            f"DIR {str(folder)!r} is not a folder: give the folder that holds one "
            "<student>.py or <student>/tools.py per student"
        )
    submissions, refused = {}, {}
    for entry in sorted(folder.iterdir()):
        if _hidden(Path(entry.name)):
            continue
        student = entry.stem if entry.suffix == ".py" and not entry.is_dir() else entry.name
        try:
            path = _own_file(entry)
            if path is None:
                continue
            if student in submissions:
                raise UsageError(
                    f"DIR {str(folder)!r} holds both {student}.py and {student}/: keep one submission per student"
                )
            digest = hashlib.sha256(read_submission(str(path), _shown(path, folder))).hexdigest()
            submissions[student] = Submission(student, path, digest, folder)
        except NotASubmission as refusal:
            refused[student] = str(refusal)
    if not submissions and not refused:
        raise UsageError(
            f"DIR {str(folder)!r} holds no submissions: put one <student>.py or <student>/tools.py per student in it"
        )
    return list(submissions.values()), refused


def _shown(path: Path, folder: Path) -> str:
    """path as the instructor knows it: relative to DIR where it can be."""
    for base in (folder, folder.resolve()):
        if path.is_relative_to(base):
            return path.relative_to(base).as_posix()
    return str(path)


def _own_file(entry: Path) -> Path | None:
    """The file to grade for one entry of DIR, inside that entry, symlinks resolved; None if it holds none.

    Raises NotASubmission for what must not be graded as this student's work.
    """
    if not entry.name.isprintable():
        raise NotASubmission(f"{entry.name!r} holds a control character: rename it")
    if entry.is_symlink():  # its target is someone else's file, or outside the class
        raise NotASubmission(f"{entry.name} is a symbolic link: hand in the file or folder itself")
    if not entry.is_dir():
        if entry.suffix != ".py":
            raise NotASubmission("neither a .py file nor a folder")
        return entry
    found = find_tools(entry)
    if found is None:
        raise NotASubmission("no tools.py in it")
    try:
        real = found.resolve(strict=True)
    except (OSError, RuntimeError):  # a dangling link, or a loop
        raise NotASubmission(f"{found.relative_to(entry.parent)} is a broken symbolic link") from None
    if not real.is_relative_to(entry.resolve()):
        raise NotASubmission(
            f"{found.relative_to(entry.parent)} is a symbolic link out of {entry.name}/ "
            "(to someone else's file?): hand in the file itself"
        )
    return real


# ── one student, in a worker ─────────────────────────────────────────────────


def stamp(submission: Submission, seed: int) -> dict:
    """What a student's results depend on: seed, submission and grader."""
    return {"seed": seed, "submission": submission.digest, "grader": _grader_hash()}


@functools.cache
def _grader_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parents[1].rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def student_folder(out: Path, student: str) -> Path:
    return out / STUDENTS / student


def graded_row(submission: Submission, seed: int, out: Path) -> Row | None:
    """The student's row from OUT, if their results there are for this very stamp; else None."""
    folder = student_folder(out, submission.student)
    try:
        if json.loads((folder / "graded.json").read_text()) != stamp(submission, seed):
            return None
        return row_of(submission.student, json.loads((folder / "results.json").read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def row_of(student: str, results: dict) -> Row:
    """A gradebook row from Gradescope results: each test counts for the stages its tags name."""
    stages = {stage: 0.0 for stage in STAGE_NUMBERS}
    for test in results["tests"]:
        for stage in STAGE_NUMBERS:
            if f"stage{stage}" in test["tags"]:
                stages[stage] += test["score"]
    return Row(student, results["score"], stages)


def grade_student(submission: Submission, seed: int, out: Path) -> Row:
    """Grade one student and write their folder in OUT; the stamp goes last."""
    result = grade_confined(str(submission.path), seed, hidden=(str(submission.folder), str(out)))
    folder = student_folder(out, submission.student)
    audience = Audience(path=str(submission.path))  # the replay line names the file as it is in DIR
    write_feedback(result, folder / "feedback.md", audience)
    write_results(result, folder / "results.json", audience)
    write_atomically(folder / "graded.json", json.dumps(stamp(submission, seed), indent=2) + "\n")
    return row_of(submission.student, json.loads((folder / "results.json").read_text()))


def _links(jobs: int) -> list[Link]:
    """One link to this process's zygote for each worker of a pool: they fork their sessions there."""
    return [zygote().link() for _ in range(jobs)]


def _start_worker(links: list[Link], taken: Synchronized) -> None:
    # A terminal's Ctrl-C reaches the whole group; the main process decides, and stops us with SIGTERM.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _abandon)
    with taken.get_lock():  # each worker takes a link of its own, and closes the others' copies
        mine, taken.value = taken.value, taken.value + 1
    for number, link in enumerate(links):
        if number != mine:
            link.close()
    warm(links[mine] if mine < len(links) else None)


def _abandon(signum, frame) -> None:
    """SIGTERM in a worker: unwind, so that the session in progress kills its child and removes its workdir."""
    raise SystemExit(128 + signum)


# ── the class ────────────────────────────────────────────────────────────────


class _Bar(tqdm):
    monitor_interval = 0  # no monitor thread: pools are forked again after a worker dies


def grade_class(folder: Path, out: Path, jobs: int = 2, seed: int = 0, progress: bool = True) -> list[Row]:
    """Grade every submission in folder not yet graded in out; returns the gradebook's rows.

    However it ends (done, Ctrl-C, a grader bug), the gradebook of what was graded is written.
    """
    submissions, refused = find_submissions(folder)
    _check_writable(out)
    rows = {submission.student: graded_row(submission, seed, out) for submission in submissions}
    pending = [submission for submission in submissions if rows[submission.student] is None]
    failures: dict[str, str] = {}
    finished = False
    try:
        if pending:
            _grade_pending(pending, seed, out, jobs, rows, failures, progress)
        finished = True
    finally:
        graded = [row for row in rows.values() if row]
        write_gradebook(out, graded)
        write_not_graded(out, {**refused, **failures})
        if finished:  # drawing takes seconds: not while the instructor waits for Ctrl-C to end
            write_histogram(out, graded)
        for student, why in sorted({**refused, **failures}.items()):
            print(f"not graded: {student}: {why}", file=sys.stderr)
        now = len(graded) - (len(submissions) - len(pending))
        left = len(pending) - now - len(failures)
        print(
            f"{out / 'gradebook.csv'}: {len(graded)} students ({now} graded now, "
            f"{len(submissions) - len(pending)} kept from an earlier run"
            + (f", {left} left to grade" if left else "")
            + ")",
            file=sys.stderr,
        )
    return graded


def _grade_pending(
    pending: list[Submission],
    seed: int,
    out: Path,
    jobs: int,
    rows: dict[str, Row | None],
    failures: dict[str, str],
    progress: bool,
) -> None:
    """Grade `pending` in pools, filling rows (and failures) in and rewriting the gradebook after each student."""
    zygote()  # booting (its imports: a second or two) while the cases are drawn, not after
    # The seed's random cases, drawn once here: the pool's workers are forked from this process
    # and replay them, where each would draw them again (Hypothesis: most of a first grade's time).
    draw_ahead([check for stage in STAGES.values() for check in stage.checks], seed)
    with _Bar(total=len(pending), unit="student", desc="grading", disable=not progress) as bar:

        def done(student: str, row: Row | None, why: str | None) -> None:
            rows[student] = row
            if why:
                failures[student] = why
            write_gradebook(out, [row for row in rows.values() if row])
            bar.update()

        queue = deque(pending)
        while queue:
            for suspect in _run_pool(queue, min(jobs, len(queue)), seed, out, done):
                # Alone in a pool of its own: a worker that dies now died of this very student.
                if _run_pool(deque([suspect]), 1, seed, out, done):
                    done(
                        suspect.student,
                        None,
                        "its grading worker died, twice (killed, or out of memory?); run the command again to retry",
                    )


def _run_pool(queue: deque[Submission], jobs: int, seed: int, out: Path, done) -> list[Submission]:
    """Grade from queue in a fresh pool, `jobs` students in flight at most, until queue is empty
    (returns []) or a worker dies (returns the students that were in flight: they are suspects,
    and only they, since nothing else had been handed to the pool)."""
    links = _links(jobs)
    fork = get_context("fork")
    pool = ProcessPoolExecutor(jobs, mp_context=fork, initializer=_start_worker, initargs=(links, fork.Value("i", 0)))
    try:
        flying: dict = {}
        while queue or flying:
            dead = False
            while queue and len(flying) < jobs and not dead:
                submission = queue.popleft()
                try:
                    flying[pool.submit(grade_student, submission, seed, out)] = submission
                except BrokenProcessPool:  # a worker died since the last wait: this one was never handed over
                    queue.appendleft(submission)
                    dead = True
            for link in links:  # with fork, every worker starts at the first submit, holding copies
                link.close()  # so this one's copies go now: a worker's death closes its link at once
            # In a broken pool every future ends at once (a result, or the break): take them all.
            finished, _ = wait(flying, return_when=ALL_COMPLETED if dead else FIRST_COMPLETED)
            broken = []
            for future in finished:
                submission = flying.pop(future)
                try:
                    done(submission.student, future.result(), None)
                except BrokenProcessPool:
                    broken.append(submission)
                except Exception as error:  # a grader bug must not cost the other students
                    done(submission.student, None, f"grader error: {type(error).__name__}: {error}")
            if broken or dead:
                pool.shutdown(wait=True)
                return broken + list(flying.values())
    except BaseException:  # Ctrl-C, SIGTERM: stop the workers now, not after their students
        _stop(pool)
        raise
    finally:
        for link in links:
            link.close()
    pool.shutdown(wait=True)
    return []


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop every worker at once: SIGTERM unwinds each through its session's clean-up; SIGKILL after STOP_SECONDS."""
    # The executor's private table is the only handle on its workers before Python 3.14's kill_workers().
    workers = list((pool._processes or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.terminate()
    deadline = time.monotonic() + STOP_SECONDS
    for worker in workers:
        worker.join(max(0.0, deadline - time.monotonic()))
    for worker in workers:
        if worker.is_alive():
            worker.kill()
            worker.join()


def _check_writable(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as error:
        raise UsageError(
            f"--out {str(out)!r} cannot be written ({error.strerror}): choose a folder you can write to"
        ) from None


# ── what the instructor reads ────────────────────────────────────────────────


def _csv(rows: list[list[str]]) -> str:
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    return text.getvalue()


def write_gradebook(out: Path, rows: list[Row]) -> None:
    lines = [["student", "total", *(f"stage{stage}" for stage in STAGE_NUMBERS)]]
    lines += [
        [row.student, f"{row.total:g}", *(f"{row.stages[stage]:g}" for stage in STAGE_NUMBERS)]
        for row in sorted(rows, key=lambda row: row.student)
    ]
    write_atomically(out / "gradebook.csv", _csv(lines))


def write_not_graded(out: Path, why: dict[str, str]) -> None:
    """not_graded.csv: every entry of DIR that has no row in the gradebook, and why (an empty list too)."""
    write_atomically(out / "not_graded.csv", _csv([["student", "why"], *sorted(map(list, why.items()))]))


def write_histogram(out: Path, rows: list[Row]) -> None:
    from grader.instructor.histogram import png

    write_atomically(out / "histogram.png", png(rows, STAGE_POINTS))


def command(parser: argparse.ArgumentParser):
    """The `class` subcommand's arguments; returns what runs it."""
    parser.add_argument("dir", metavar="DIR", help="one <student>.py or <student>/tools.py per student")
    parser.add_argument("--out", required=True, help="where gradebook.csv and each student's folder go")
    parser.add_argument(
        "--jobs", type=_jobs, default=os.cpu_count() or 1, help="students graded at once (default: one per CPU)"
    )
    parser.add_argument("--seed", type=int, default=0, help="what the random inputs are drawn from (default 0)")
    return run


def _jobs(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, not {text!r}")
    return int(text)


@contextlib.contextmanager
def _interrupts_once():
    """SIGINT and SIGTERM raise KeyboardInterrupt, once: a second Ctrl-C must not cut the clean-up short."""

    def interrupt(signum, frame):
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run(args: argparse.Namespace) -> int:
    """Grade the class; exit 0 when grading completed, 2 on bad input, 130 when stopped."""
    try:
        with _interrupts_once():
            grade_class(Path(args.dir), Path(args.out), args.jobs, args.seed)
    except UsageError as error:
        print(f"grader class: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("grader class: interrupted; what was graded is kept: run the same command to resume", file=sys.stderr)
        return 130
    return 0
