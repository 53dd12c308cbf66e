"""What grading costs, next to executing the lab's notebooks: `python -m grader.instructor.grading_speed`.

Grading a class of 40 (2 jobs, every stage of every submission in its own sandboxed child; every fourth
submission carries a realistic mistake, so Hypothesis also shrinks) against executing the six stage
notebooks once with nbclient, the least a notebook-executing grader (nbgrader, otter) pays per student.
Goal: one submission costs at most GOAL of that. This machine's speed drifts by a factor of two within an
hour, so each round times both, one right after the other, and the verdict is the rounds' median with its
spread: a goal met in some rounds only is "within noise". The class runs in a fresh child each round:
nbclient leaves threads behind (zmq, asyncio), and grading forks.
"""

import argparse
import multiprocessing
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from grader.instructor.classroom import grade_class

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "agtool" / "tools.py"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("0[1-6]_*.ipynb"))
GOAL = 1 / 60  # isolation and the lesson's cases must not cost the speed a notebook-executing grader pays

# Every fourth student made one of these mistakes (appended to the reference: the later
# definition wins); the rest hand in the reference.
MISTAKES = [
    "def check_result(name, value):\n    return None\n",  # trusts every result
    "def memo_key(name, args):\n    return f'{name} {args}'\n",  # key order matters
    "def has_type(value, kind):\n    return isinstance(value, _PY_TYPES[kind])\n",  # True passes as int
    "def before_call(state, runtime):\n    return 'call'\n",  # no attempt limit
]


def write_class(folder: Path, size: int) -> None:
    reference = REFERENCE.read_text()
    for number in range(size):
        mistake = MISTAKES[number // 4 % len(MISTAKES)] if number % 4 == 3 else ""
        (folder / f"student{number:02d}.py").write_text(f"{reference}\n# student {number}\n{mistake}")


def time_class(size: int, jobs: int) -> tuple[float, list[float]]:
    """(wall-clock seconds to grade the class, the totals)."""
    work = Path(tempfile.mkdtemp(prefix="agtool-bench-"))
    try:
        (work / "in").mkdir()
        write_class(work / "in", size)
        started = time.perf_counter()
        rows = grade_class(work / "in", work / "out", jobs=jobs, seed=0)
        return time.perf_counter() - started, [row.raw for row in rows]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def time_notebooks() -> float:
    """Seconds to execute the six stage notebooks, one after the other, each in a fresh kernel."""
    import nbformat
    from nbclient import NotebookClient

    started = time.perf_counter()
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        NotebookClient(
            notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
        ).execute()
    return time.perf_counter() - started


def _class_in_a_child(size: int, jobs: int) -> tuple[float, list[float]]:
    """time_class in a fresh process, started by a forkserver before any notebook ran here (not a
    pool's: a pool's workers are daemons, which may not start the class's own workers)."""
    context = multiprocessing.get_context("forkserver")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_send_class_time, args=(send, size, jobs))
    child.start()
    send.close()
    try:
        return receive.recv()
    finally:
        child.join()


def _send_class_time(send, size: int, jobs: int) -> None:
    send.send(time_class(size, jobs))


def verdict(ratios: list[float]) -> str:
    met = sum(ratio <= GOAL for ratio in ratios)
    return "met" if met == len(ratios) else "NOT met" if met == 0 else f"within noise ({met} of {len(ratios)} met)"


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m grader.instructor.grading_speed", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if len(NOTEBOOKS) != 6:
        print(
            f"(b) cannot run: notebooks/0[1-6]_*.ipynb holds {len(NOTEBOOKS)} of the six stage notebooks; "
            "the ratio needs all six"
        )
        return
    ratios = []
    for number in range(1, args.rounds + 1):
        print(f"round {number} of {args.rounds}:", flush=True)
        print(f"(a) grading a class of {args.students} with {args.jobs} jobs ({os.cpu_count()} CPUs) …", flush=True)
        seconds, totals = _class_in_a_child(args.students, args.jobs)
        per_submission = seconds / args.students
        print(
            f"    {seconds:.1f} s in all: {per_submission:.2f} s per submission "
            f"(totals: {totals.count(100)} at 100, {len(totals) - totals.count(100)} lower)"
        )
        print("(b) executing the six stage notebooks with nbclient …", flush=True)
        notebooks = time_notebooks()
        ratios.append(per_submission / notebooks)
        print(f"    {notebooks:.1f} s: one submission costs 1/{1 / ratios[-1]:.0f} of it", flush=True)
    ratio = statistics.median(ratios)
    print(
        f"grading one submission costs {ratio:.3f} (1/{1 / ratio:.0f}; rounds 1/{1 / max(ratios):.0f} to "
        f"1/{1 / min(ratios):.0f}) of executing the notebooks; goal at most {GOAL:.3f} (1/{1 / GOAL:.0f}): "
        f"{verdict(ratios)}"
    )


if __name__ == "__main__":
    main()
