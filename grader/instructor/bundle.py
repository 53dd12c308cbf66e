"""`python -m grader gradescope OUT.zip`: this very grader as a Gradescope autograder.

The zip holds at its root what Gradescope asks for, setup.sh (run once, when the
autograder's image is built) and run_autograder (run for every submission), and
beside them requirements.txt, the grader/ package and of agtool/ only what a
student's tools.py imports (the inventory). The reference solution, and the lab
modules built on it, never leave this repository; a submission brings its own.

On Gradescope's machine run_autograder calls `python -m grader.instructor.bundle ROOT`
(`autograde` below), which grades ROOT/submission/**/tools.py with the same
grade() and writes the same results.json as `python -m grader grade`, every
stage in its own sandbox. ROOT is /autograder there, a temp dir in the tests.
"""

import argparse
import io
import json
import re
import sys
import zipfile
from pathlib import Path

from grader.instructor.classroom import SHOWN_PATH, find_tools
from grader.kit.report import write_atomically

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = Path(__file__).resolve().parent / "gradescope"
LAB_MODULES = ("agtool/__init__.py", "agtool/inventory.py")   # what the reference tools.py imports
NOT_SHIPPED = re.compile(r"^grader/instructor/(gradescope|kit_template)/")
# What runs on Gradescope: the grader (tqdm comes with classroom.py, whose find_tools
# it shares), and what a student's tools.py imports.
REQUIREMENTS = ("langgraph", "jsonschema", "hypothesis", "tqdm")
_EXECUTABLE = 0o100755 << 16        # a zip entry's Unix mode lives in the top half of external_attr


class BundleError(Exception):
    """The bundle cannot be made; the message says what to do."""


def bundle_files(root: Path = ROOT) -> dict[str, bytes]:
    """Every file of the bundle, path -> content, sorted."""
    from grader.instructor.release import SKIPPED   # here: release needs nbformat, which Gradescope does not

    files = {name: (SCRIPTS / name).read_bytes() for name in ("setup.sh", "run_autograder")}
    files["requirements.txt"] = requirements((root / "requirements.txt").read_text()).encode()
    files.update({name: (root / name).read_bytes() for name in LAB_MODULES})
    for path in sorted((root / "grader").rglob("*")):
        name = path.relative_to(root).as_posix()
        if path.is_file() and not SKIPPED.search(name) and not NOT_SHIPPED.search(name):
            files[name] = path.read_bytes()
    return dict(sorted(files.items()))


def requirements(project: str) -> str:
    """The project's own requirement lines (ranges and all) for what runs on Gradescope."""
    lines = {_name(line): line for line in project.splitlines() if _name(line)}
    missing = [name for name in REQUIREMENTS if name not in lines]
    if missing:
        raise BundleError(f"requirements.txt does not list {missing[0]}, which the grader needs on Gradescope")
    return "".join(f"{lines[name]}\n" for name in REQUIREMENTS)


def _name(line: str) -> str | None:
    found = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line.split("#")[0])
    return re.sub(r"[-_.]+", "-", found.group(1)).lower() if found else None


def write_zip(files: dict[str, bytes], out: Path) -> None:
    """The zip, byte-identical for the same files: fixed timestamps, sorted entries."""
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = _EXECUTABLE if name in ("setup.sh", "run_autograder") else 0o100644 << 16
            archive.writestr(entry, content, zipfile.ZIP_DEFLATED)
    write_atomically(out, data.getvalue())


def autograde(root: Path) -> int:
    """Grade root/submission's tools.py into root/results/results.json. Exit code 0 whenever it did."""
    from grader.kit.grading import grade
    from grader.kit.report import write_results
    from grader.instructor.sandbox.session import SandboxSession

    results = root / "results" / "results.json"
    print(f"grader: {Path(__file__).resolve().parent}")
    path = find_tools(root / "submission")
    if path is None:
        print("no tools.py in the submission")
        write_atomically(results, json.dumps({"score": 0, "output": NOTHING_TO_GRADE, "tests": []}, indent=1))
        return 0
    print(f"grading {path}")
    write_results(grade(str(path), SandboxSession), results, SHOWN_PATH)
    return 0


NOTHING_TO_GRADE = ("No tools.py was found in your submission. Upload your agtool/tools.py "
                    "(on its own, in a folder, or in a zip), then submit again.")


def command(parser: argparse.ArgumentParser):
    """The `gradescope` subcommand's arguments; returns what runs it."""
    parser.add_argument("out", metavar="OUT.zip", help="the autograder zip to write")
    return run


def run(args: argparse.Namespace) -> int:
    """Write the bundle; exit 0 when written, 2 on bad input."""
    out = Path(args.out)
    if out.suffix != ".zip":
        return _refuse(f"OUT.zip {str(out)!r} must end in .zip: Gradescope takes a zip")
    if not out.parent.is_dir():
        return _refuse(f"OUT.zip {str(out)!r}: the folder {str(out.parent)!r} does not exist; create it first")
    try:
        files = bundle_files()
        write_zip(files, out)
    except BundleError as error:
        return _refuse(str(error))
    except OSError as error:
        return _refuse(f"OUT.zip {str(out)!r} cannot be written ({error.strerror}): choose a folder you can write to")
    print(f"{out}: {len(files)} files; upload it on the assignment's Configure Autograder page")
    return 0


def _refuse(message: str) -> int:
    print(f"grader gradescope: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(autograde(Path(sys.argv[1])))
