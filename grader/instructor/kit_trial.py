"""A released kit used as its student uses it: in a folder of its own, with its own commands and its own
environment, never this repository's venv. tests/instructor/test_kit_as_received.py walks every way a
student starts (make, the commands without make, a hosted notebook's cell); `python -m grader.bench
--kit-setup` times them and weighs what they install, and the kit's README states those figures.
"""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from grader.instructor import lock, release

# What the student's terminal does not have: the repository on the path, a virtual environment or a
# `make` of ours around it, an interpreter of ours first on PATH.
NOT_THE_STUDENTS = ("PYTHONPATH", "VIRTUAL_ENV", "MAKEFLAGS", "MAKELEVEL", "MFLAGS", "PYTHONHOME")
# A hub's own Jupyter, which a hosted notebook already runs in: a kernel, and pytest with nbval to
# run the notebooks as the tests do.
HUB = ("ipykernel", "pytest", "nbval")


def student_env(**extra: str) -> dict[str, str]:
    """This process's environment as a student's shell would have it."""
    env = {key: value for key, value in os.environ.items() if key not in NOT_THE_STUDENTS}
    ours = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p and p != ours)
    return {**env, **extra}


def released(folder: Path, tools: str | None = None) -> Path:
    """A kit released into folder/kit, its tools.py replaced by `tools` when given (a finished student)."""
    kit = folder / "kit"
    release.release(kit)
    if tools is not None:
        (kit / release.STUDENT_MODULE).write_text(tools)
    return kit


def run(kit: Path, command: str | list[str], timeout: float, cwd: Path | None = None, **env: str):
    """One command of the README, as the student types it (a string is split as a shell would)."""
    argv = shlex.split(command) if isinstance(command, str) else command
    return subprocess.run(
        argv,
        cwd=cwd or kit,
        env=student_env(**env),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def readme_block(kit: Path, language: str, after: str) -> list[str]:
    """The command lines of the first ```language block of the kit's README after the text `after`,
    each without its trailing comment."""
    text = (kit / "README.md").read_text()
    found = re.search(rf"```{language}\n(.*?)```", text[text.index(after) :], re.S)
    if not found:
        raise LookupError(f"the kit's README has no ```{language} block after {after!r}")
    lines = (re.sub(r"\s+#.*$", "", line.strip()) for line in found[1].splitlines())
    return [line for line in lines if line]


def hosted_cell(kit: Path) -> str:
    """The README's cell for a JupyterHub, as a student pastes it: the kit, then the data without its dependencies."""
    return "\n".join(readme_block(kit, "python", "*JupyterHub*"))


def installed(python: Path) -> dict[str, str]:
    """name -> version of every distribution an environment's pip lists (an editable install left out)."""
    done = subprocess.run(
        [str(python), "-m", "pip", "list", "--format", "json", "--exclude-editable"],
        capture_output=True,
        text=True,
        timeout=120,
        env=student_env(),
    )
    return {lock.canonical(row["name"]): row["version"] for row in json.loads(done.stdout)}


def disk(folder: Path) -> int:
    """Bytes of the files under folder, as du counts them (blocks, not lengths)."""
    return sum(path.lstat().st_blocks * 512 for path in folder.rglob("*"))


def bare_python(folder: Path, timeout: float) -> Path:
    """A new virtual environment with a hub's Jupyter (HUB) and nothing of the lab: what a hosted notebook's
    kernel runs in. The hub's packages at the kit's versions, so the kit's install has nothing to change there."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=timeout, env=student_env())
    python = folder / "bin" / "python"
    constraints = lock.STUDENT.path
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-compile", "-c", str(constraints), *HUB],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=student_env(),
    )
    if done.returncode:
        raise RuntimeError(f"the hub's Jupyter did not install:\n{done.stderr[-2000:]}")
    return python
