"""`python -m grader class DIR --out OUT [--jobs N] [--seed N]`: grade a whole class.

Each student of DIR (submissions.py) not graded yet is graded into their record, written once (records.py);
then every file for them and the instructor is written from the records with the term applied (views.py).

Parallel: a pool of worker processes forked from this one after the heavy imports, each grading one student
at a time; they fork their sandboxes from this process's one zygote, each over a link of its own. A worker
that dies (killed from outside, out of memory) costs no classmate: the students it held are graded again,
each alone, and only one that kills a worker on its own is listed as not graded.

Resumable: a student whose record's stamp matches is not graded again (--force grades everyone). Ctrl-C or
SIGTERM stops the workers at once, each through its sandbox's clean-up, and writes the books of what was graded.
"""

import argparse
import contextlib
import functools
import os
import signal
import sys
import tempfile
import time
from collections import deque
from concurrent.futures import ALL_COMPLETED, FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path

from tqdm import tqdm

from grader.instructor.confined import grade_confined, sandbox_check
from grader.instructor.graded import Graded
from grader.instructor.records import resume, stamp, write_record
from grader.instructor.sandbox.confine import Layers
from grader.instructor.sandbox.session import Link, warm, zygote
from grader.instructor.shards import Shard, parse_shard, write_shard
from grader.instructor.submissions import HandedIn, UsageError, find_submissions
from grader.instructor.term import Term
from grader.instructor.views import open_books, read_books_input, write_books, write_handouts
from grader.kit.checks import every_check
from grader.kit.grading import not_graded
from grader.kit.probing import draw_ahead
from grader.kit.report import not_run

STOP_SECONDS = 5  # after Ctrl-C, how long a worker has to clean its sandbox up before SIGKILL
WORKER_DIED = "its grading worker died, twice (killed, or out of memory?); run the command again to retry"


# ── one student, in a worker ─────────────────────────────────────────────────


def grade_student(submission: HandedIn, seed: int, out: Path) -> Graded:
    """Grade one student and write their record in OUT (graded.json): the grade as graded."""
    why, sandbox = submission.ungradable(), ""
    if why is not None:  # nothing to grade in full: said the same every run, naming nothing of the grader's
        result = not_graded(submission.shown, seed, why)
    else:
        assert submission.read is not None  # ungradable() says so without one
        result = grade_confined(submission.read, seed, hidden=(str(submission.folder), str(out)))
        sandbox = sandbox_layers()
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
    """The layers of the sandbox a grade here runs in, in words: a student's record keeps it."""
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
    """Grade every submission in folder not yet graded in out (every one, with force), or only those of
    `shard`; returns the records of everyone graded. A bad term file is refused (UsageError) before any
    grading, and so is a machine without every sandbox layer when require_sandbox. However it ends (done,
    Ctrl-C, a grader bug), the books of what was graded are written."""
    submissions, refused = find_submissions(folder)
    shard = shard or Shard(1, 1)
    submissions = [submission for submission in submissions if shard.holds(submission.student)]
    refused = {student: why for student, why in refused.items() if shard.holds(student)}
    _check_writable(out)
    handed_in = {submission.student for submission in submissions if submission.read is not None}
    term, roster = read_books_input(out, {submission.student for submission in submissions}, handed_in)
    refusal = sandbox_check(Layers.here(), require_sandbox)  # says which layers this machine gives
    if refusal:
        raise UsageError(refusal)
    write_shard(out, shard)
    books = open_books(out, term, roster)
    found = resume(out, submissions, seed, force)
    submissions = [submission for submission, _ in found.values()]
    rows = {student: record for student, (_, record) in found.items()}
    pending = [submission for submission, record in found.values() if record is None]
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
        left = [s.student for s in pending if rows[s.student] is None and s.student not in failures]
        books.write(graded, {**refused, **failures}, finished, compared, left=left)
        kept = len(submissions) - len(pending)
        said = f"{len(graded)} students ({len(graded) - kept} graded now, {kept} kept from an earlier run"
        said += f", {len(left)} left to grade)" if left else ")"
        used = term.files(out)
        said += f"; the term from {', '.join(used)}" if used else ""
        print(f"{out / 'gradebook.csv'}: {said}", file=sys.stderr)
    return graded


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
                    done(suspect.student, None, WORKER_DIED)


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
