"""`python -m grader class DIR --out OUT [--jobs N] [--seed N]`: grade a whole class.

DIR holds one submission per student: DIR/<student>.py, or a folder DIR/<student>/
with a tools.py in it (at its top, or anywhere below: a whole lab folder is fine).
For each student OUT/<student>/ gets results.json (Gradescope's format) and
feedback.md; OUT/gradebook.csv has one row per student (student, total, stage1 …
stage6) and OUT/histogram.png the spread of each stage's scores.

Parallel: a pool of worker processes forked from this one after the heavy imports,
each grading one student at a time, each stage in its own sandbox.

Resumable: every file is written atomically (a temp file, then os.replace), and a
student's results are followed by a stamp, OUT/<student>/graded.json, holding the seed
and the hashes of the submission and of the grader. A student whose stamp matches is
not graded again, so a run stopped half-way and started again loses nothing and redoes
nothing; a changed submission, seed or grader is graded again.
"""

import argparse
import csv
import functools
import hashlib
import io
import json
import os
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from tqdm import tqdm

from grader.kit.grading import STAGE_POINTS, grade
from grader.kit.report import write_atomically, write_feedback, write_results
from grader.instructor.sandbox.session import SandboxSession, warm

STAGES = sorted(STAGE_POINTS)
SHOWN_PATH = "agtool/tools.py"   # where the student's file is, in replay commands they can run


class UsageError(Exception):
    """Bad input to `class`: the message names the argument and what to do."""


@dataclass(frozen=True)
class Submission:
    student: str
    path: Path


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
    found = [path for path in found if path.is_file() and not _hidden(path.relative_to(folder))]
    return found[0] if found else None


def _hidden(relative: Path) -> bool:
    return any(part.startswith((".", "__")) for part in relative.parts)


def find_submissions(folder: Path) -> tuple[list[Submission], dict[str, str]]:
    """(the submissions in folder, sorted by student; name -> why, for entries that are none)."""
    if not folder.is_dir():
        raise UsageError(f"DIR {str(folder)!r} is not a folder: give the folder that holds one "
                         "<student>.py or <student>/tools.py per student")
    submissions, skipped = {}, {}
    for entry in sorted(folder.iterdir()):
        if _hidden(Path(entry.name)):
            continue
        if entry.is_dir():
            student, path = entry.name, find_tools(entry)
        else:
            student, path = entry.stem, entry if entry.suffix == ".py" else None
        if path is None:
            skipped[entry.name] = "no tools.py in it" if entry.is_dir() else "neither a .py file nor a folder"
        elif student in submissions:
            raise UsageError(f"DIR {str(folder)!r} holds both {student}.py and {student}/: "
                             "keep one submission per student")
        else:
            submissions[student] = Submission(student, path)
    if not submissions:
        raise UsageError(f"DIR {str(folder)!r} holds no submissions: put one <student>.py or "
                         "<student>/tools.py per student in it")
    return list(submissions.values()), skipped


# ── one student, in a worker ─────────────────────────────────────────────────

def stamp(submission: Submission, seed: int) -> dict:
    """What a student's results depend on: seed, submission and grader."""
    return {"seed": seed, "submission": hashlib.sha256(submission.path.read_bytes()).hexdigest(),
            "grader": _grader_hash()}


@functools.cache
def _grader_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parents[1].rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def graded_row(submission: Submission, seed: int, out: Path) -> Row | None:
    """The student's row from OUT, if their results there are for this very stamp; else None."""
    folder = out / submission.student
    try:
        if json.loads((folder / "graded.json").read_text()) != stamp(submission, seed):
            return None
        return row_of(submission.student, json.loads((folder / "results.json").read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def row_of(student: str, results: dict) -> Row:
    """A gradebook row from Gradescope results: each test counts for the stages its tags name."""
    stages = {stage: 0.0 for stage in STAGES}
    for test in results["tests"]:
        for stage in STAGES:
            if f"stage{stage}" in test["tags"]:
                stages[stage] += test["score"]
    return Row(student, results["score"], stages)


def grade_student(submission: Submission, seed: int, out: Path) -> Row:
    """Grade one student and write their folder in OUT; the stamp goes last."""
    result = grade(str(submission.path), SandboxSession, seed=seed)
    folder = out / submission.student
    write_feedback(result, folder / "feedback.md", SHOWN_PATH)
    write_results(result, folder / "results.json", SHOWN_PATH)
    write_atomically(folder / "graded.json", json.dumps(stamp(submission, seed), indent=2) + "\n")
    return row_of(submission.student, json.loads((folder / "results.json").read_text()))


# ── the class ────────────────────────────────────────────────────────────────

def grade_class(folder: Path, out: Path, jobs: int = 2, seed: int = 0, progress: bool = True) -> list[Row]:
    """Grade every submission in folder not yet graded in out; returns the gradebook's rows."""
    submissions, skipped = find_submissions(folder)
    _check_writable(out)
    rows = {submission.student: graded_row(submission, seed, out) for submission in submissions}
    pending = [submission for submission in submissions if rows[submission.student] is None]
    failures = _grade_pending(pending, seed, out, jobs, rows, progress) if pending else {}
    graded = [row for row in rows.values() if row]
    write_gradebook(out, graded)
    write_histogram(out, graded)
    for student, why in {**skipped, **failures}.items():
        print(f"not graded: {student}: {why}", file=sys.stderr)
    print(f"{out / 'gradebook.csv'}: {len(graded)} students ({len(pending) - len(failures)} graded now, "
          f"{len(submissions) - len(pending)} kept from an earlier run)", file=sys.stderr)
    return graded


def _grade_pending(pending: list[Submission], seed: int, out: Path, jobs: int,
                   rows: dict[str, Row | None], progress: bool) -> dict[str, str]:
    """Grade `pending` in a pool, filling rows in and rewriting the gradebook after each student.

    Returns student -> why, for those who could not be graded.
    """
    failures = {}
    # Each worker starts its own zygote at once, so that its imports overlap with the others'.
    with ProcessPoolExecutor(min(jobs, len(pending)), mp_context=get_context("fork"), initializer=warm) as pool:
        futures = {pool.submit(grade_student, submission, seed, out): submission.student
                   for submission in pending}
        # The bar comes after the workers are forked (at the first submit): tqdm starts a
        # monitor thread, and a fork must not copy a process while another thread is busy.
        for future in tqdm(as_completed(futures), total=len(futures), unit="student", desc="grading",
                           disable=not progress):
            student = futures[future]
            try:
                rows[student] = future.result()
            except BrokenProcessPool:
                failures[student] = "a grading worker died; run the command again to resume"
            except Exception as error:      # a grader bug must not cost the other students
                failures[student] = f"grader error: {type(error).__name__}: {error}"
            write_gradebook(out, [row for row in rows.values() if row])
    return failures


def _check_writable(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as error:
        raise UsageError(f"--out {str(out)!r} cannot be written ({error.strerror}): "
                         "choose a folder you can write to") from None


# ── what the instructor reads ────────────────────────────────────────────────

def write_gradebook(out: Path, rows: list[Row]) -> None:
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["student", "total", *(f"stage{stage}" for stage in STAGES)])
    for row in sorted(rows, key=lambda row: row.student):
        writer.writerow([row.student, f"{row.total:g}", *(f"{row.stages[stage]:g}" for stage in STAGES)])
    write_atomically(out / "gradebook.csv", text.getvalue())


def write_histogram(out: Path, rows: list[Row]) -> None:
    """histogram.png: for each stage, how many students got how many of its points."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot
    from matplotlib.ticker import MaxNLocator

    figure, axes = pyplot.subplots(2, 3, figsize=(12, 6), sharey=True, layout="constrained")
    for stage, ax in zip(STAGES, axes.flat):
        points = STAGE_POINTS[stage]
        ax.hist([row.stages[stage] for row in rows], bins=min(points, 10), range=(0, points),
                color="#4c72b0", edgecolor="white")
        ax.set_title(f"stage {stage} (of {points} points)")
        ax.set_xlabel("points")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0, 0].set_ylabel("students")
    axes[1, 0].set_ylabel("students")
    figure.suptitle(f"{len(rows)} students, per-stage scores")
    image = io.BytesIO()
    figure.savefig(image, format="png", dpi=80)
    pyplot.close(figure)
    write_atomically(out / "histogram.png", image.getvalue())


def command(parser: argparse.ArgumentParser):
    """The `class` subcommand's arguments; returns what runs it."""
    parser.add_argument("dir", metavar="DIR", help="one <student>.py or <student>/tools.py per student")
    parser.add_argument("--out", required=True, help="where gradebook.csv and each student's folder go")
    parser.add_argument("--jobs", type=_jobs, default=os.cpu_count() or 1,
                        help="students graded at once (default: one per CPU)")
    parser.add_argument("--seed", type=int, default=0, help="what the random inputs are drawn from (default 0)")
    return run


def _jobs(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, not {text!r}")
    return int(text)


def run(args: argparse.Namespace) -> int:
    """Grade the class; exit 0 when grading completed, 2 on bad input."""
    try:
        grade_class(Path(args.dir), Path(args.out), args.jobs, args.seed)
    except UsageError as error:
        print(f"grader class: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("grader class: interrupted; what was graded is kept: run the same command to resume",
              file=sys.stderr)
        return 130
    return 0
