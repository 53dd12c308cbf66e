"""How long a student waits for check(N): `python -m grader.instructor.check_speed` (or `grader.bench --first-check`).

In a released kit whose tools.py is the reference (every check runs, on the kit's public cases), for each
stage N: the first `from grader import check; check(N)` in a fresh Jupyter kernel (the cell alone, timed
from the client), the same cell again in that kernel (warm), and `python -m grader check N` from a
terminal. Each figure is the median of --rounds rounds, with their range, against the goals FIRST, WARM
and TERMINAL; `--repository` also times the repository's check(N) (the oracle's random cases). One
untimed command first writes the kit's bytecode, as a student's first check does once per kit.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from agtool.syllabus import STAGES
from grader.instructor import release

ROOT = Path(__file__).resolve().parents[2]
FIRST = 1.5  # the first check(N) in a fresh kernel, seconds
WARM = 0.3  # check(N) again in the same kernel
TERMINAL = 2.0  # python -m grader check N
CELL = "from grader import check; check({stage})"


@dataclass
class Row:
    """One stage's figures, one entry per round."""

    stage: int
    first: list[float] = field(default_factory=list)
    warm: list[float] = field(default_factory=list)
    terminal: list[float] = field(default_factory=list)


def write_finished_kit(folder: Path) -> Path:
    """A released kit in `folder` whose student has written everything (the reference's tools.py)."""
    release.write_kit(release.kit_files(), folder, force=True)
    shutil.copy(ROOT / release.STUDENT_MODULE, folder / release.STUDENT_MODULE)
    return folder


def environment(where: Path) -> dict[str, str]:
    """`import agtool` and `import grader` mean where's (PYTHONPATH beats the editable install)."""
    return {**os.environ, "PYTHONPATH": str(where)}


def time_in_kernel(where: Path, stage: int) -> tuple[float, float]:
    """(the first check(stage) in a fresh kernel, the same cell again), in seconds, from the client."""
    import nbformat
    from nbclient import NotebookClient

    cell = nbformat.v4.new_code_cell(CELL.format(stage=stage))
    notebook = nbformat.v4.new_notebook(cells=[cell])
    client = NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(where / "notebooks")}}
    )
    seconds = []
    with client.setup_kernel(env=environment(where), stderr=subprocess.DEVNULL):  # its TCP warning
        for _ in range(2):
            started = time.perf_counter()
            client.execute_cell(cell, 0)
            seconds.append(time.perf_counter() - started)
            _refuse_an_error(cell, stage)
    return seconds[0], seconds[1]


def _refuse_an_error(cell, stage: int) -> None:
    errors = [output for output in cell.outputs if output.get("output_type") == "error"]
    if errors:
        raise RuntimeError(f"check({stage}) raised in the kernel: {errors[0].get('evalue')}")
    shown = [output for output in cell.outputs if output.get("output_type") == "execute_result"]
    if not shown:
        raise RuntimeError(f"check({stage}) showed nothing")


def time_terminal(where: Path, stage: int) -> float:
    """Seconds for `python -m grader check stage` in where, start to exit."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "grader", "check", str(stage)],
        cwd=where,
        env=environment(where),
        capture_output=True,
        text=True,
        timeout=300,
    )
    seconds = time.perf_counter() - started
    if done.returncode == 2 or "Traceback" in done.stderr:
        raise RuntimeError(f"python -m grader check {stage} failed: {done.stderr[-2000:]}")
    return seconds


def measure(where: Path, stages=tuple(STAGES), rounds: int = 3, progress=None) -> list[Row]:
    """Every stage's three figures in `where`, `rounds` times (round by round, so a slow minute
    of the machine spreads over every stage instead of landing on one)."""
    rows = [Row(stage) for stage in stages]
    time_terminal(where, stages[0])  # untimed: writes the bytecode once
    for number in range(1, rounds + 1):
        if progress:
            progress(f"round {number} of {rounds} …")
        for row in rows:
            first, warm = time_in_kernel(where, row.stage)
            row.first.append(first)
            row.warm.append(warm)
            row.terminal.append(time_terminal(where, row.stage))
    return rows


def verdict(seconds: list[float], goal: float) -> str:
    """met / NOT met by the median; the rounds that disagree are counted."""
    met = sum(s <= goal for s in seconds)
    word = "met" if statistics.median(seconds) <= goal else "NOT met"
    return word if met in (0, len(seconds)) else f"{word} ({met} of {len(seconds)} rounds met)"


def table(rows: list[Row]) -> str:
    lines = [f"{'stage':<6}{'what':<36}{'median':>8}  {'range':<13}{'goal':<10}verdict"]
    for row in rows:
        for what, seconds, goal in (
            (f"first check({row.stage}), fresh kernel", row.first, FIRST),
            (f"check({row.stage}) again, same kernel", row.warm, WARM),
            (f"python -m grader check {row.stage}", row.terminal, TERMINAL),
        ):
            spread = f"{min(seconds):.2f}–{max(seconds):.2f}"
            lines.append(
                f"{row.stage:<6}{what:<36}{statistics.median(seconds):>6.2f} s  {spread:<13}"
                f"{f'<= {goal:g} s':<10}{verdict(seconds, goal)}"
            )
    return "\n".join(lines)


def report(title: str, where: Path, stages, rounds: int) -> None:
    print(f"{title} ({where}), {rounds} rounds:", flush=True)
    rows = measure(where, stages, rounds, progress=lambda text: print(f"  {text}", flush=True))
    print(table(rows), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m grader.instructor.check_speed", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--stages", type=int, nargs="+", choices=STAGES, default=list(STAGES), metavar="N")
    parser.add_argument("--repository", action="store_true", help="also time the repository's check(N)")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} CPUs; {sys.executable}")
    with tempfile.TemporaryDirectory(prefix="agtool-check-speed-") as folder:
        kit = write_finished_kit(Path(folder) / "kit")
        report("a released kit, the reference as the student's tools.py", kit, args.stages, args.rounds)
    if args.repository:
        report("the repository", ROOT, args.stages, args.rounds)


if __name__ == "__main__":
    main()
