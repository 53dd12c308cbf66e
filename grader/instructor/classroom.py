"""`python -m grader class DIR --out OUT [--jobs N] [--seed N]`: grade a whole class.

DIR holds one submission per student: DIR/<student>.py, or a folder DIR/<student>/
with a tools.py in it (at its top, or anywhere below: a whole lab folder is fine).
Only what is the student's own regular file is graded: a symlink out of their folder
(a classmate's file), a FIFO, a device or a file over 1 MB is refused, by name.
For each student OUT/students/<student>/ gets results.json (Gradescope's format) and
feedback.md. For the instructor: OUT/gradebook.csv, OUT/not_graded.csv, OUT/canvas.csv and
OUT/changes.csv (grader/instructor/gradebook.py), with the term's overrides, late policy and
extensions applied from files beside them (grader/instructor/term.py), and OUT/report.html,
the class on one page (grader/instructor/class_report.py). Students live under
OUT/students/, so no student's name can collide with those.

Parallel: a pool of worker processes forked from this one after the heavy imports,
each grading one student at a time, each stage in its own sandbox. The workers fork
their sandboxes from this process's zygote, each over a link of its own: one zygote
boots for the class, not one a worker. A worker that
dies (killed from outside, out of memory) costs no classmate: the students it held
are graded again, each alone, and only one that kills a worker on its own is listed
as not graded.

Resumable: every file is written atomically (a temp file, then os.replace), and a
student's results are followed by a stamp, OUT/students/<student>/graded.json, holding
the seed and the hashes of the submission and of everything the grade depends on (every
file of agtool/ and grader/, the Python and the packages that draw and run the cases).
A student whose stamp matches is not graded again, so a run stopped half-way (Ctrl-C,
SIGTERM, a crash) and started again loses nothing and redoes nothing; a changed
submission, seed or lab is graded again, and --force grades everyone again. Ctrl-C or
SIGTERM stops the workers at once, each through its sandbox's clean-up, and writes the
gradebook of what was graded.
"""

import argparse
import contextlib
import functools
import hashlib
import json
import os
import signal
import sys
import tempfile
import time
from collections import deque
from concurrent.futures import ALL_COMPLETED, FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing import get_context
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path

from tqdm import tqdm

from agtool.syllabus import STAGES
from grader.instructor.class_report import CheckInfo, Shared, Student, failure_reason, report_html
from grader.instructor.confined import grade_confined
from grader.instructor.gradebook import (
    Line,
    keep_hand_edits,
    previous_finals,
    read_roster,
    write_canvas,
    write_changes,
    write_gradebook,
    write_not_graded,
)
from grader.instructor.sandbox.session import Link, warm, zygote
from grader.instructor.shards import Shard, parse_shard
from grader.instructor.term import Term, TermError, apply, read_term
from grader.kit import intake
from grader.kit.checks import CHECKLISTS, every_check
from grader.kit.grading import STAGE_POINTS
from grader.kit.intake import NotASubmission, find_tools, hidden_entry, read_submission
from grader.kit.probing import draw_ahead
from grader.kit.report import for_student, write_atomically, write_feedback, write_results

STAGE_NUMBERS = sorted(STAGES)  # the gradebook's stage columns, in order
STUDENTS = "students"  # OUT/students/<student>/: apart from class's own files, so no name collides
CHECK_POINTS = {check.label: check.points for check in every_check()}
STOP_SECONDS = 5  # after Ctrl-C, how long a worker has to clean its sandbox up before SIGKILL


class UsageError(Exception):
    """Bad input to `class`: the message names the argument and what to do."""


@dataclass(frozen=True)
class HandedIn:
    """What one student handed in, as found in DIR (intake.Submission is the file as read)."""

    student: str
    path: Path  # a regular file inside the student's own entry, symlinks resolved
    read: intake.Submission  # the file as read, once, when it was found: what is graded, stamped and compared
    folder: Path  # the class's DIR: no child reads it (nor OUT), classmates' files and feedback
    modified: float  # the file's modification time: when it was handed in, unless submitted.csv says

    @property
    def digest(self) -> str:
        """sha256 of what was read (and graded): the stamp compares it."""
        return self.read.sha256


@dataclass(frozen=True)
class Row:
    """One student's raw grade, as their results.json and graded.json hold it."""

    student: str
    total: float
    stages: dict[int, float]
    checks: dict[str, float] = field(default_factory=dict)  # label -> score
    failed: dict[str, str] = field(default_factory=dict)  # label -> why, for each failed check
    broken: str | None = None  # why the file does not import at all, or None
    modified: float = 0.0


# ── finding the submissions ──────────────────────────────────────────────────


def find_submissions(folder: Path) -> tuple[list[HandedIn], dict[str, str]]:
    """(the submissions in folder, sorted by student; entry -> why, for entries not graded)."""
    if not folder.is_dir():
        raise UsageError(
            f"DIR {str(folder)!r} is not a folder: give the folder that holds one "
            "<student>.py or <student>/tools.py per student"
        )
    submissions, refused = {}, {}
    for entry in sorted(folder.iterdir()):
        if hidden_entry(Path(entry.name)):
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
            read = read_submission(str(path), _shown(path, folder))
            submissions[student] = HandedIn(student, path, read, folder, path.stat().st_mtime)
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


LAB = Path(__file__).resolve().parents[2]
# What draws and runs the cases besides the lab's own files: another version may grade otherwise.
GRADE_PACKAGES = ("hypothesis", "langgraph", "langchain-core", "jsonschema")


def stamp(submission: HandedIn, seed: int) -> dict:
    """What a student's results depend on: seed, submission and the lab (lab_hash)."""
    return {"seed": seed, "submission": submission.digest, "lab": _lab_hash()}


def lab_files(root: Path = LAB) -> list[Path]:
    """Every file of the lab a grade may read: agtool/ (the contract, the syllabus, the rules, the
    inventory) and grader/ (checks, oracle, sandbox), data files too; not caches."""
    return sorted(
        path
        for package in ("agtool", "grader")
        for path in (root / package).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".png")
    )


def lab_hash(root: Path = LAB) -> str:
    digest = hashlib.sha256(sys.version.encode())
    for package in GRADE_PACKAGES:
        digest.update(f"{package}=={_version(package)}".encode())
    for path in lab_files(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "none"


@functools.cache
def _lab_hash() -> str:
    return lab_hash()


def student_folder(out: Path, student: str) -> Path:
    return out / STUDENTS / student


def graded_row(submission: HandedIn, seed: int, out: Path) -> Row | None:
    """The student's row from OUT, if their results there are for this very stamp; else None."""
    folder = student_folder(out, submission.student)
    try:
        record = json.loads((folder / "graded.json").read_text())
        if record.get("stamp") != stamp(submission, seed):
            return None
        return row_of(submission.student, json.loads((folder / "results.json").read_text()), record)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def row_of(student: str, results: dict, record: dict) -> Row:
    """A student's row from their Gradescope results (each test counts for the stages its tags name)
    and graded.json (why each failed check failed; whether the file imports; when it was handed in)."""
    stages = {stage: 0.0 for stage in STAGE_NUMBERS}
    checks: dict[str, float] = {}
    for test in results["tests"]:
        if test["max_score"]:  # not a 0-point entry of a failed check's input
            checks[test["number"]] = test["score"]
        for stage in STAGE_NUMBERS:
            if f"stage{stage}" in test["tags"]:
                stages[stage] += test["score"]
    failed = {str(label): str(why) for label, why in record["failed"].items()}
    broken = record["broken"] if type(record["broken"]) is str else None
    return Row(student, results["score"], stages, checks, failed, broken, float(record["modified"]))


def grade_student(submission: HandedIn, seed: int, out: Path) -> Row:
    """Grade one student and write their folder in OUT; graded.json (the stamp) goes last."""
    result = grade_confined(submission.read, seed, hidden=(str(submission.folder), str(out)))
    folder = student_folder(out, submission.student)
    # For the student: their file named as DIR has it (no path of the instructor's), a replay their kit runs.
    audience = for_student(submission.read.shown)
    write_feedback(result, folder / "feedback.md", audience)
    write_results(result, folder / "results.json", audience)
    record = {
        "stamp": stamp(submission, seed),
        "broken": result.broken,
        "failed": {r.check.label: failure_reason(r) for r in result.results if not r.passed},
        "modified": submission.modified,
    }
    write_atomically(folder / "graded.json", json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    return row_of(submission.student, json.loads((folder / "results.json").read_text()), record)


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


def grade_class(
    folder: Path,
    out: Path,
    jobs: int = 2,
    seed: int = 0,
    progress: bool = True,
    force: bool = False,
    similar: bool = False,
    shard: Shard | None = None,
) -> list[Row]:
    """Grade every submission in folder not yet graded in out (every one, with force); returns the
    rows of everyone graded. The term files in out are read first: a bad one is refused (UsageError)
    before any grading. However it ends (done, Ctrl-C, a grader bug), the books of what was graded are written.
    `shard`: grade only the students of that shard (grader/instructor/shards.py).
    """
    submissions, refused = find_submissions(folder)
    if shard is not None:
        submissions = [submission for submission in submissions if shard.holds(submission.student)]
        refused = {student: why for student, why in refused.items() if shard.holds(student)}
    _check_writable(out)
    term, roster = read_books_input(out, {submission.student for submission in submissions})
    kept_aside = keep_hand_edits(out)
    before = previous_finals(out)
    rows = {submission.student: None if force else graded_row(submission, seed, out) for submission in submissions}
    pending = [submission for submission in submissions if rows[submission.student] is None]
    failures: dict[str, str] = {}
    finished = False
    try:
        if pending:
            _grade_pending(pending, seed, out, jobs, rows, failures, progress, term)
        finished = True
    finally:
        graded = [row for row in rows.values() if row]
        # The report once the class is whole: not while the instructor waits for Ctrl-C to end.
        compared = submissions if similar else None
        said = write_outputs(out, graded, {**refused, **failures}, term, roster, before, finished, compared, kept_aside)
        for line in said:
            print(line, file=sys.stderr)
        now = len(graded) - (len(submissions) - len(pending))
        left = len(pending) - now - len(failures)
        used = term.files(out)
        print(
            f"{out / 'gradebook.csv'}: {len(graded)} students ({now} graded now, "
            f"{len(submissions) - len(pending)} kept from an earlier run"
            + (f", {left} left to grade" if left else "")
            + ")"
            + (f"; the term from {', '.join(used)}" if used else ""),
            file=sys.stderr,
        )
    return graded


def read_books_input(out: Path, students: set[str]) -> tuple[Term, dict | None]:
    """The term files and the roster in OUT, checked against the class: a bad one is a UsageError."""
    try:
        return read_term(out, students, CHECK_POINTS), read_roster(out)
    except TermError as error:
        raise UsageError(str(error)) from None


def write_outputs(
    out: Path,
    graded: list[Row],
    not_graded: dict[str, str],
    term: Term,
    roster: dict | None,
    before: dict[str, str] | None,
    report: bool,
    compared: list[HandedIn] | None = None,
    kept_aside: str | None = None,
) -> list[str]:
    """Every file for the instructor, from the graded rows and who was not graded; returns what to say.
    report: write report.html too (once the class is whole); compared: the submissions whose similar
    pairs it lists (--similar), or None.
    kept_aside: the name a hand-edited gradebook.csv was kept under (gradebook.keep_hand_edits)."""
    lines = write_books(out, graded, term)
    broken = {row.student: f"does not import ({row.broken}): its row is 0" for row in graded if row.broken}
    write_not_graded(out, {**not_graded, **broken})
    said = [f"not graded: {student}: {why}" for student, why in sorted(not_graded.items())]
    if kept_aside:
        said.append(
            f"kept aside: gradebook.csv was edited by hand (or written by an earlier release), now {kept_aside}: "
            "put changes in overrides.csv"
        )
    if roster is not None:
        unnamed = write_canvas(out, lines, roster, term.assignment, sum(STAGE_POINTS.values()))
        if unnamed:
            said.append(f"canvas.csv: {len(unnamed)} graded students not in roster.csv: {', '.join(unnamed)}")
    if before is not None:
        changed = write_changes(out, before, lines)
        said.append(f"changes.csv: {len(changed)} students' final scores changed since the last run")
    if report:
        write_report(out, graded, lines, not_graded, compared)
    return said


def write_books(out: Path, rows: list[Row], term: Term) -> list[Line]:
    """gradebook.csv from the raw rows and the term; returns its lines."""
    lines = [
        Line(row.student, apply(term, row.student, row.total, row.checks, row.modified), row.stages) for row in rows
    ]
    write_gradebook(out, lines, STAGE_NUMBERS)
    return lines


SIMILAR = 0.6  # the share of a student's own code (the starter's and the class's common code left out) listed
SHOWN_LINES = 12  # shared lines quoted per pair


def similar(submissions: list[HandedIn], rows: list[Row]) -> list[Shared]:
    """Pairs of graded students whose solutions are alike, each with a few of the lines they share."""
    # Imported here: copydetect loads matplotlib's pyplot (0.5 s, 1.5 s on a loaded machine), and
    # release needs nbformat; a class run without --similar needs neither.
    from grader.instructor.release import starter
    from grader.instructor.similarity import quote, similar_pairs

    graded = {row.student for row in rows if row.broken is None}
    sources = {
        submission.student: submission.read.data.decode("utf-8", "replace")
        for submission in submissions
        if submission.student in graded
    }
    found = []
    for pair in similar_pairs(sources, starter(), threshold=SIMILAR):
        lines = quote(sources[pair.first], pair.first_lines).splitlines()
        found.append(Shared(pair.first, pair.second, pair.first_share, pair.second_share, tuple(lines[:SHOWN_LINES])))
    return found


def write_report(
    out: Path, rows: list[Row], lines: list[Line], not_graded: dict[str, str], submissions: list[HandedIn] | None
) -> None:
    """report.html; with submissions (--similar), the similar pairs among them too."""
    finals = {line.student: line.final for line in lines}
    students = [
        Student(
            row.student,
            finals[row.student].final,
            row.total,
            row.stages,
            row.failed,
            row.broken,
            finals[row.student].notes,
        )
        for row in sorted(rows, key=lambda row: row.student)
    ]
    checks = [
        CheckInfo(check.label, number, check.title, check.points)
        for number, stage in CHECKLISTS.items()
        for check in stage.checks
    ]
    pairs = None if submissions is None else similar(submissions, rows)
    write_atomically(out / "report.html", report_html(students, not_graded, STAGE_POINTS, checks, pairs, SIMILAR))


def _grade_pending(
    pending: list[HandedIn],
    seed: int,
    out: Path,
    jobs: int,
    rows: dict[str, Row | None],
    failures: dict[str, str],
    progress: bool,
    term: Term,
) -> None:
    """Grade `pending` in pools, filling rows (and failures) in and rewriting the gradebook after each student."""
    zygote()  # booting (its imports: a second or two) while the cases are drawn, not after
    # The seed's random cases, drawn once here: the pool's workers are forked from this process
    # and replay them, where each would draw them again (Hypothesis: most of a first grade's time).
    draw_ahead(every_check(), seed)
    with _Bar(total=len(pending), unit="student", desc="grading", disable=not progress) as bar:

        def done(student: str, row: Row | None, why: str | None) -> None:
            rows[student] = row
            if why:
                failures[student] = why
            write_books(out, [row for row in rows.values() if row], term)
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


def _run_pool(queue: deque[HandedIn], jobs: int, seed: int, out: Path, done) -> list[HandedIn]:
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


def command(parser: argparse.ArgumentParser):
    """The `class` subcommand's arguments; returns what runs it."""
    parser.add_argument("dir", metavar="DIR", help="one <student>.py or <student>/tools.py per student")
    parser.add_argument("--out", required=True, help="where gradebook.csv and each student's folder go")
    parser.add_argument(
        "--jobs", type=_jobs, default=os.cpu_count() or 1, help="students graded at once (default: one per CPU)"
    )
    parser.add_argument("--seed", type=int, default=0, help="what the random inputs are drawn from (default 0)")
    parser.add_argument(
        "--force", action="store_true", help="grade every student again, even those whose stamp matches"
    )
    parser.add_argument(
        "--shard",
        type=_shard,
        metavar="I/N",
        help="grade only the I-th of N shards of the class (by student name); `merge` joins the shards' OUTs",
    )
    parser.add_argument(
        "--similar",
        action="store_true",
        help="list similar pairs of solutions in report.html (copydetect; about a minute for 500 students)",
    )
    return run


def _shard(text: str) -> Shard:
    try:
        return parse_shard(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


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
            grade_class(
                Path(args.dir),
                Path(args.out),
                args.jobs,
                args.seed,
                force=args.force,
                similar=args.similar,
                shard=args.shard,
            )
    except UsageError as error:
        print(f"grader class: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("grader class: interrupted; what was graded is kept: run the same command to resume", file=sys.stderr)
        return 130
    return 0
