"""`python -m grader lock`: pin what the Gradescope bundle installs to the versions installed here.

Writes grader/instructor/gradescope/constraints.txt: `name==version` for every
distribution the bundle's requirements (REQUIREMENTS) need, with what those
require in turn, as installed in this environment: the one the tests ran in. setup.sh
installs with `-c constraints.txt`, so two images built from one bundle grade alike,
and alike to the tests here. `python -m grader gradescope` refuses to build while the
file disagrees with what is installed; tests/instructor/test_bundle.py checks it too.
"""

import argparse
import re
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from grader.kit.report import write_atomically

CONSTRAINTS = Path(__file__).resolve().parent / "gradescope" / "constraints.txt"
# What runs on Gradescope: the grader (pyseccomp is the sandbox's filter), and what a student's
# tools.py imports. The bundle installs these, pinned here.
REQUIREMENTS = ("langgraph", "jsonschema", "hypothesis", "pyseccomp")
HEADER = "# Written by `python -m grader lock` from the installed versions; do not edit by hand.\n"


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def needed(requirements) -> set[str]:
    """The distributions that requirements pull in on this machine: them and what they require, installed."""
    seen, todo = set(), [canonical(name) for name in requirements]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for line in metadata.requires(name) or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(canonical(requirement.name))
    return seen


def pins(requirements) -> dict[str, str]:
    """name -> installed version, for everything requirements need."""
    return {name: metadata.version(name) for name in sorted(needed(requirements))}


def text(requirements) -> str:
    return HEADER + "".join(f"{name}=={version}\n" for name, version in pins(requirements).items())


def read(path: Path | None = None) -> dict[str, str]:
    """name -> version pinned in a constraints file (CONSTRAINTS, looked up at the call: tests move it)."""
    lines = (line.split("#")[0].strip() for line in (path or CONSTRAINTS).read_text().splitlines())
    return {canonical(name): version for name, _, version in (line.partition("==") for line in lines if line)}


def disagreements(requirements, path: Path | None = None) -> list[str]:
    """What the lock says that the environment does not: one line each; [] when they agree."""
    try:
        locked = read(path)
    except OSError as error:
        return [f"{path or CONSTRAINTS} cannot be read ({error.strerror})"]
    try:
        installed = pins(requirements)
    except metadata.PackageNotFoundError as error:
        return [f"{error} is needed but not installed: install requirements.txt"]
    return [
        f"{name}: locked {locked.get(name, 'not at all')}, installed {installed.get(name, 'not at all')}"
        for name in sorted(locked.keys() | installed.keys())
        if locked.get(name) != installed.get(name)
    ]


def command(parser: argparse.ArgumentParser):
    """The `lock` subcommand's arguments (none); returns what runs it."""
    return run


def run(args: argparse.Namespace) -> int:
    try:
        write_atomically(CONSTRAINTS, text(REQUIREMENTS))
    except metadata.PackageNotFoundError as error:
        print(f"grader lock: {error} is needed but not installed: install requirements.txt first", file=sys.stderr)
        return 2
    print(f"{CONSTRAINTS}: {len(read())} packages pinned to the versions installed here")
    return 0
