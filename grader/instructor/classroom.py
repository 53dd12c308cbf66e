"""`python -m grader class DIR --out OUT [--jobs N] [--seed N]`: grade a whole class.

DIR holds one submission per student: DIR/<student>.py, or a folder DIR/<student>/
with a tools.py in it (at its top, or anywhere below: a whole lab folder is fine).
A student is named as Unicode's NFC spells their entry (grader/instructor/term.py).
Only what is the student's own regular file is graded: a symlink out of their folder
(a classmate's file), a FIFO, a device or a file over 1 MB is refused, by name, and
gets no row (a zero for a planted link would land on a classmate). A file with nothing
to grade (empty, never naming TOOLS), one that does not import and a student's folder
without tools.py are not graded in full: each gets a row of 0 with a note saying why,
which overrides.csv can change, and is listed in not_graded.csv. The entries with no row (refused,
or their grading failed) are recorded in OUT/.no_row.json, which `merge` reads.
For each student OUT/students/<student>/ gets graded.json (the grade as graded, and the
stamp), and results.json (Gradescope's format) and feedback.md with their final
(grader/instructor/handout.py). For the instructor: OUT/gradebook.csv, OUT/not_graded.csv, OUT/canvas.csv and
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
import ast
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
from dataclasses import dataclass
from multiprocessing import get_context
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path

from tqdm import tqdm

from grader.instructor.class_report import report_html
from grader.instructor.confined import grade_confined, sandbox_check
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
from grader.instructor.graded import STAGE_NUMBERS, Graded
from grader.instructor.handout import write_handout
from grader.instructor.integrity import INTEGRITY, write_integrity
from grader.instructor.sandbox.confine import Layers
from grader.instructor.sandbox.session import Link, warm, zygote
from grader.instructor.shards import Shard, parse_shard, write_shard
from grader.instructor.term import Term, TermError, read_term, same_name
from grader.kit import intake
from grader.kit.checks import every_check
from grader.kit.grading import STAGE_POINTS, not_graded
from grader.kit.intake import NotASubmission, find_tools, hidden_entry, read_submission
from grader.kit.probing import draw_ahead
from grader.kit.report import not_run, write_atomically

STUDENTS = "students"  # OUT/students/<student>/: apart from class's own files, so no name collides
CHECK_POINTS = {check.label: check.points for check in every_check()}
STOP_SECONDS = 5  # after Ctrl-C, how long a worker has to clean its sandbox up before SIGKILL
MOST = sum(STAGE_POINTS.values())


class UsageError(Exception):
    """Bad input to `class`: the message names the argument and what to do."""


@dataclass(frozen=True)
class HandedIn:
    """What one student handed in, as found in DIR (intake.Submission is the file as read)."""

    student: str  # the entry's name in NFC
    path: Path  # a regular file inside the student's own entry, symlinks resolved (or their folder, without one)
    read: intake.Submission | None  # the file as read, once, when found: what is graded; None: no tools.py
    folder: Path  # the class's DIR: no child reads it (nor OUT), classmates' files and feedback
    # The file's modification time as first read: when it was handed in, unless submitted.csv says.
    # A file whose bytes were graded before keeps the time its record holds (handed_in_as_recorded).
    modified: float | None

    @property
    def digest(self) -> str | None:
        """sha256 of what was read (and graded): the stamp compares it."""
        return self.read.sha256 if self.read else None

    @property
    def shown(self) -> str:
        """The file as DIR holds it, as the student knows it."""
        return self.read.shown if self.read else _shown(self.path, self.folder)

    def ungradable(self) -> str | None:
        """Why there is nothing to grade in full, said before any grading; None when there is."""
        if self.read is None:
            return NO_TOOLS_PY
        return nothing_to_grade(self.read.data)


NO_TOOLS_PY = "no tools.py in it"


def nothing_to_grade(data: bytes) -> str | None:
    """Why a file has nothing to grade, or None: it is empty, or TOOLS is nowhere in it and it could not make
    the name at run time (no exec, globals(), setattr … : then no check could find a thing). A file that
    does not parse has its grade say why, with the line."""
    if not data.strip():
        return "tools.py is empty"
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    if not any(_names_tools(node) or _makes_names(node) for node in ast.walk(tree)):
        return "tools.py never names TOOLS"
    return None


# What can make a module's name at run time, out of text that never spells it.
NAME_MAKERS = frozenset({"exec", "eval", "compile", "globals", "vars", "locals", "setattr", "__import__", "__dict__"})


def _names_tools(node: ast.AST) -> bool:
    """node spells TOOLS: a name, an import, an attribute, or text that could be one (globals()["TOOLS"])."""
    if isinstance(node, ast.Name):
        return node.id == "TOOLS"
    if isinstance(node, ast.alias):
        return "TOOLS" in (node.name, node.asname) or node.name == "*"
    if isinstance(node, ast.Attribute):
        return node.attr == "TOOLS"
    return isinstance(node, ast.Constant) and isinstance(node.value, str | bytes) and "TOOLS" in str(node.value)


def _makes_names(node: ast.AST) -> bool:
    """node may make a name at run time (exec of decoded text, globals()[...] = ..., setattr on the module)."""
    if isinstance(node, ast.Name):
        return node.id in NAME_MAKERS
    return isinstance(node, ast.Attribute) and node.attr in NAME_MAKERS


# ── finding the submissions ──────────────────────────────────────────────────


def find_submissions(folder: Path) -> tuple[list[HandedIn], dict[str, str]]:
    """(the submissions in folder, sorted by student; entry -> why, for entries not graded)."""
    if not folder.is_dir():
        raise UsageError(
            f"DIR {str(folder)!r} is not a folder: give the folder that holds one "
            "<student>.py or <student>/tools.py per student"
        )
    submissions: dict[str, HandedIn] = {}
    refused: dict[str, str] = {}
    seen: dict[str, str] = {}  # student -> the entry that is theirs, as DIR names it
    for entry in sorted(folder.iterdir()):
        if hidden_entry(Path(entry.name)):
            continue
        student = same_name(entry.stem if entry.suffix == ".py" and not entry.is_dir() else entry.name)
        named = entry.name + ("/" if entry.is_dir() else "")
        if student in seen:
            raise UsageError(
                f"DIR {str(folder)!r} holds both {' and '.join(sorted((seen[student], named)))}, both {student!r} "
                "(a file and a folder, or one name spelt in two Unicode forms): keep one submission per student"
            )
        seen[student] = named
        try:
            path = _own_file(entry)
            if path is None:  # their folder, with no tools.py in it: a row of 0, saying so
                submissions[student] = HandedIn(student, entry, None, folder, None)
                continue
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
    """The file to grade for one entry of DIR, inside that entry, symlinks resolved; None for a folder that holds none.

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
        return None
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


RECORD = "graded.json"  # OUT/students/<student>/: their record (grader/instructor/graded.py)


def read_record(out: Path, student: str) -> Graded | None:
    """The student's record in OUT (graded.json: their grade as graded, and its stamp), or None for none, or
    one that is not this grader's (an earlier release's)."""
    try:
        return Graded.from_json(json.loads((student_folder(out, student) / RECORD).read_text()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def write_record(out: Path, graded: Graded) -> None:
    write_atomically(
        student_folder(out, graded.student) / RECORD, json.dumps(graded.to_json(), indent=1, ensure_ascii=False) + "\n"
    )


NO_ROW = ".no_row.json"  # in OUT: the entries of DIR with no row (no record of their own), and why: merge reads it


def write_no_row(out: Path, no_row: dict[str, str]) -> None:
    """The record of the entries with no row (refused, or their grading failed): entry -> why."""
    write_atomically(out / NO_ROW, json.dumps(dict(sorted(no_row.items())), indent=1, ensure_ascii=False) + "\n")


def read_no_row(out: Path) -> dict[str, str] | None:
    """The entries with no row as write_no_row wrote them; None for none (a run of an earlier release)."""
    try:
        no_row = json.loads((out / NO_ROW).read_text())
    except (OSError, ValueError):
        return None
    valid = isinstance(no_row, dict) and all(isinstance(why, str) for why in no_row.values())
    return no_row if valid else None


def kept(record: Graded | None, submission: HandedIn, seed: int) -> Graded | None:
    """The student's record, if it is for this very stamp (they are not graded again); else None."""
    return record if record is not None and record.stamp == stamp(submission, seed) else None


def handed_in_as_recorded(submission: HandedIn, record: Graded | None) -> HandedIn:
    """submission with the time its record holds, when the record is of these very bytes: a file's time
    is read once, when it is first graded, and a file touched since (or --force) changes no late penalty."""
    if record is None or submission.digest is None:
        return submission
    if record.stamp.get("submission") == submission.digest and record.modified is not None:
        return HandedIn(submission.student, submission.path, submission.read, submission.folder, record.modified)
    return submission


def grade_student(submission: HandedIn, seed: int, out: Path) -> Graded:
    """Grade one student and write their record in OUT (graded.json, the stamp in it): the grade as graded.
    Their feedback.md and results.json, with the final, are written from it by write_outputs."""
    why, sandbox = submission.ungradable(), ""
    if why is not None:  # nothing to grade in full: said the same every run, naming nothing of the grader's
        result = not_graded(submission.shown, seed, why)
    else:
        assert submission.read is not None  # ungradable() says so without one
        result, sandbox = (
            grade_confined(submission.read, seed, hidden=(str(submission.folder), str(out))),
            sandbox_layers(),
        )
        # Not graded in full: the file does not import, or its process died before any check ran (os._exit at
        # import, a folder past the bound): a row of 0 the instructor sees and can override, never a silent 0.
        cause = None if result.broken else not_run(result)
        why = f"does not import ({result.broken})" if result.broken else cause and f"no check could run ({cause})"
    graded = Graded(
        submission.student, submission.shown, result, stamp(submission, seed), why, submission.modified, sandbox
    )
    write_record(out, graded)
    return graded


@functools.cache
def sandbox_layers() -> str:
    """The layers of the sandbox a grade here runs in, in words (Layers.describe): a student's record keeps it."""
    return Layers.here().describe()


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
    require_sandbox: bool = False,
) -> list[Graded]:
    """Grade every submission in folder not yet graded in out (every one, with force); returns the
    records of everyone graded. The term files in out are read first: a bad one is refused (UsageError)
    before any grading, and so is a machine without every sandbox layer when require_sandbox.
    However it ends (done, Ctrl-C, a grader bug), the books of what was graded are written.
    `shard`: grade only the students of that shard (grader/instructor/shards.py).
    """
    submissions, refused = find_submissions(folder)
    shard = shard or Shard(1, 1)
    submissions = [submission for submission in submissions if shard.holds(submission.student)]
    refused = {student: why for student, why in refused.items() if shard.holds(student)}
    _check_writable(out)
    handed_in = {submission.student for submission in submissions if submission.read is not None}
    term, roster = read_books_input(out, {submission.student for submission in submissions}, handed_in)
    check_sandbox(require_sandbox)
    write_shard(out, shard)
    kept_aside = keep_hand_edits(out)
    before = previous_finals(out)
    records = {submission.student: read_record(out, submission.student) for submission in submissions}
    submissions = [handed_in_as_recorded(submission, records[submission.student]) for submission in submissions]
    rows = {s.student: None if force else kept(records[s.student], s, seed) for s in submissions}
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
        compared = submissions if similar and finished else None
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


def read_books_input(out: Path, students: set[str], handed_in: set[str]) -> tuple[Term, dict | None]:
    """The term files and the roster in OUT, checked against the class (handed_in: the students with a
    file, each of whom needs a row in submitted.csv when there is one): a bad one is a UsageError."""
    try:
        return read_term(out, students, CHECK_POINTS, handed_in), read_roster(out)
    except TermError as error:
        raise UsageError(str(error)) from None


def check_sandbox(required: bool) -> None:
    """Say which sandbox layers this machine gives; with required, refuse (UsageError) when one is missing."""
    refusal = sandbox_check(Layers.here(), required)
    if refusal:
        raise UsageError(refusal)


def write_outputs(
    out: Path,
    graded: list[Graded],
    not_graded: dict[str, str],
    term: Term,
    roster: dict | None,
    before: dict[str, str] | None,
    report: bool,
    compared: list[HandedIn] | None = None,
    kept_aside: KeptAside | None = None,
    missing_shards: tuple[str, ...] = (),
) -> list[str]:
    """Every file for the instructor, and each student's feedback.md and results.json with their final,
    from the records of the graded and the entries with no row (not_graded: entry -> why); returns what to say.
    report: write report.html too (once the class is whole); compared: the submissions whose integrity
    report to write (--similar), or None (integrity.html, if any, is kept as the last --similar wrote it).
    kept_aside: a hand-edited gradebook.csv, kept aside (gradebook.keep_hand_edits).
    missing_shards: the shards a partial merge lacks (grader/instructor/merge.py), said in the books."""
    graded = write_books(out, graded, term)
    write_handouts(out, graded)
    ungraded = {row.student: row.ungraded for row in graded if row.ungraded}
    apart = {f"shard {shard}": f"not merged (merge --partial): {PARTIAL}" for shard in missing_shards}
    write_no_row(out, not_graded)
    write_not_graded(out, {**not_graded, **ungraded, **apart})
    said = [f"not graded: {student}: {why}" for student, why in sorted({**not_graded, **ungraded}.items())]
    said += [f"partial: shard {shard} not merged: {PARTIAL}" for shard in missing_shards]
    if term.unmatched:
        rows = "1 row names" if len(term.unmatched) == 1 else f"{len(term.unmatched)} rows name"
        said.append(f"submitted.csv: {rows} no student in DIR (an LMS lists everyone): {', '.join(term.unmatched)}")
    if kept_aside:
        said.append(kept_aside.said())
    if roster is not None:
        unnamed = write_canvas(out, graded, roster, term.assignment, MOST)
        if unnamed:
            said.append(f"canvas.csv: {len(unnamed)} graded students not in roster.csv: {', '.join(unnamed)}")
    if before is not None:
        changed = write_changes(out, before, graded)
        said.append(f"changes.csv: {len(changed)} students' final scores changed since the last run")
    if compared is not None:
        write_integrity(out, compared_sources(compared, graded), _starter())
    if report:
        write_report(out, graded, not_graded, roster, missing_shards)
    return said


PARTIAL = "its students have no row in these books"


def write_books(out: Path, graded: list[Graded], term: Term) -> list[Graded]:
    """gradebook.csv from the records and the term; returns the records with the term applied."""
    applied = [student.with_term(term) for student in graded]
    write_gradebook(out, applied, STAGE_NUMBERS)
    return applied


def write_handouts(out: Path, graded: list[Graded]) -> None:
    """Each student's feedback.md and results.json, with their final (grader/instructor/handout.py)."""
    for student in graded:
        write_handout(student_folder(out, student.student), student, MOST)


def compared_sources(submissions: list[HandedIn], rows: list[Graded]) -> dict[str, str]:
    """student -> the text of their file, for each student graded (a file that does not import too:
    a copy can be broken on purpose), as the integrity report compares them."""
    graded = {row.student for row in rows}
    return {
        submission.student: submission.read.data.decode("utf-8", "replace")
        for submission in submissions
        if submission.read is not None and submission.student in graded
    }


def _starter() -> str:
    """The kit's starter tools.py. Imported here: release needs nbformat, and a class without --similar does not."""
    from grader.instructor.release import starter

    return starter()


def write_report(
    out: Path,
    graded: list[Graded],
    not_graded: dict[str, str],
    roster: dict | None,
    missing_shards: tuple[str, ...] = (),
) -> None:
    """report.html: the class on one page (grader/instructor/class_report.py), of the records with the term."""
    sections = {student: entry["Section"] for student, entry in (roster or {}).items() if entry["Section"]}
    students = sorted(graded, key=lambda student: student.student)
    integrity = INTEGRITY if (out / INTEGRITY).is_file() else None
    page = report_html(students, sections, not_graded, STAGE_POINTS, every_check(), integrity, missing_shards)
    write_atomically(out / "report.html", page)


def _grade_pending(
    pending: list[HandedIn],
    seed: int,
    out: Path,
    jobs: int,
    rows: dict[str, Graded | None],
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

        def done(student: str, graded: Graded | None, why: str | None) -> None:
            rows[student] = graded
            if why:
                failures[student] = why
            applied = write_books(out, [row for row in rows.values() if row], term)
            write_handouts(out, [row for row in applied if row.student == student])
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
        help="write integrity.html: clusters of similar solutions, their lines side by side, and code that runs "
        "code it builds (copydetect; about a minute for 500 students); kept until the next --similar",
    )
    parser.add_argument(
        "--require-sandbox",
        action="store_true",
        help="refuse to grade unless every sandbox layer is there (see docs/threat-model.md)",
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
                require_sandbox=args.require_sandbox,
            )
    except UsageError as error:
        print(f"grader class: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("grader class: interrupted; what was graded is kept: run the same command to resume", file=sys.stderr)
        return 130
    return 0
