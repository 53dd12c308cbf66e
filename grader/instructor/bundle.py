"""`python -m grader gradescope OUT.zip [--seed N]`: this very grader as a Gradescope autograder.

The zip holds what Gradescope asks for (setup.sh, run once when the image is built; run_autograder, run
for every submission), requirements.txt with constraints.txt (grader/instructor/locks/gradescope.txt),
settings.json, the grader/ package and of agtool/ only LAB_MODULES: the reference solution never leaves
this repository. On Gradescope, run_autograder calls `python -m grader.instructor.bundle ROOT`
(`autograde` below): it grades ROOT/submission/**/tools.py, every stage in its own sandbox, into the
same results.json as `python -m grader grade`, and refuses (score 0, the reason said) where the container
cannot stop a submission from forging results.json or killing the grader, unless built with
--allow-unconfined. ROOT is /autograder there, a temp dir in the tests.

Each submission is graded on its own seed: an HMAC of its Gradescope id under a secret drawn when the
bundle is built, so classmates' failing inputs differ, and `--seed-of ID` replays one; no student sees a
seed or the secret. What a student sees and when, the seeds and the cap on submissions:
docs/beyond-one-machine.md.
"""

import argparse
import dataclasses
import hashlib
import hmac
import io
import json
import os
import re
import secrets
import sys
import traceback
import zipfile
from pathlib import Path

from grader.instructor import confined, lock
from grader.instructor.outputs import file_problem
from grader.instructor.sandbox.confine import Layers
from grader.kit.errors import GraderError
from grader.kit.grading import refused
from grader.kit.intake import NotASubmission, Submission, find_tools, read_submission
from grader.kit.report import INPUTS_SHOWN, Audience, write_atomically, write_results

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = Path(__file__).resolve().parent / "gradescope"
SETTINGS = "settings.json"
# The lab's own modules beside the student's tools.py: what the grader imports (contract, rules, syllabus)
# and what a tools.py may (inventory, contract). Written out, not globbed, so a new agtool module is
# shipped only when someone decides it runs on Gradescope; tests/instructor/test_bundle.py imports each of them
# from the bundle alone.
LAB_MODULES = (
    "agtool/__init__.py",
    "agtool/contract.py",
    "agtool/inventory.py",
    "agtool/rules.py",
    "agtool/syllabus.py",
)
NOT_SHIPPED = re.compile(r"^grader/instructor/(gradescope|kit_template|locks)/")
STUDENT = Audience(seed_shown=False, inputs_shown="after_due_date")  # a student on Gradescope, by default
_EXECUTABLE = 0o100755 << 16  # a zip entry's Unix mode lives in the top half of external_attr
MAX_SEED = 2**31


class BundleError(Exception):
    """The bundle cannot be made; the message says what to do."""


def bundle_files(seed: int | None, confine: bool, inputs_shown: str, max_submissions: int | None) -> dict[str, bytes]:
    """Every file of the bundle, path -> content, sorted."""
    from grader.instructor.release import walk  # here: release needs nbformat, which Gradescope does not

    stale = lock.stale(lock.GRADING)
    if stale:
        raise BundleError(stale)
    files = {name: (SCRIPTS / name).read_bytes() for name in ("setup.sh", "run_autograder")}
    files["constraints.txt"] = lock.GRADING.path.read_bytes()
    try:
        files["requirements.txt"] = lock.lines_for(lock.GRADESCOPE, (ROOT / "requirements.txt").read_text()).encode()
    except LookupError as error:
        raise BundleError(f"{error}, which the grader needs on Gradescope") from None
    chosen: dict = {"seed": seed, "require_confinement": confine, "inputs_shown": inputs_shown}
    if seed is None:
        chosen["secret"] = secrets.token_hex(32)
    if max_submissions is not None:
        chosen["max_submissions"] = max_submissions
    files[SETTINGS] = (json.dumps(chosen, indent=1) + "\n").encode()
    files.update({name: (ROOT / name).read_bytes() for name in LAB_MODULES})
    files.update({path: (ROOT / path).read_bytes() for path in walk(ROOT, "grader") if not NOT_SHIPPED.search(path)})
    return dict(sorted(files.items()))


def write_zip(files: dict[str, bytes], out: Path) -> None:
    """The zip, byte-identical for the same files: fixed timestamps, sorted entries."""
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = _EXECUTABLE if name in ("setup.sh", "run_autograder") else 0o100644 << 16
            archive.writestr(entry, content, zipfile.ZIP_DEFLATED)
    write_atomically(out, data.getvalue())


def seed_of(settings: dict, key: str) -> int:
    """The seed a submission is graded on: the bundle's own (--seed), or its secret's HMAC of the key."""
    if settings.get("seed") is not None:
        return int(settings["seed"])
    digest = hmac.new(bytes.fromhex(settings["secret"]), key.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") % MAX_SEED


def submission_key(metadata: dict, submission: Submission) -> str:
    """What names this submission for its seed: Gradescope's submission id, else the sha256 of its file as read."""
    if isinstance(metadata.get("id"), int | str) and str(metadata["id"]):
        return str(metadata["id"])
    return "sha256:" + submission.sha256


def read_metadata(root: Path) -> dict:
    """Gradescope's submission_metadata.json; {} where it is missing or unreadable (a test, a local run)."""
    try:
        metadata = json.loads((root / "submission_metadata.json").read_text())
    except (OSError, ValueError):
        return {}
    return metadata if isinstance(metadata, dict) else {}


def over_the_cap(metadata: dict, most: int | None) -> dict | None:
    """results.json for a submission past the cap (the last counted one's, and why), or None to grade it."""
    previous = metadata.get("previous_submissions")
    if most is None or not isinstance(previous, list) or len(previous) < most:
        return None
    last = next((item for item in reversed(previous) if isinstance(item, dict)), {})
    kept = last.get("results")
    results: dict = kept if isinstance(kept, dict) else {}
    score = last.get("score", results.get("score", 0))
    said = (
        f"Not graded: this is submission {len(previous) + 1}, and {most} count. Your grade stays that of "
        f"your last counted submission ({score}); ask your instructor if you need another."
    )
    return {**results, "score": score, "output": said, "tests": results.get("tests", [])}


def autograde(root: Path, source: Path = ROOT) -> int:
    """Grade root/submission's tools.py into root/results/results.json; exit code 0. Whatever fails, a
    results.json is written: a failure of the grader's own is said there as such, its traceback on stdout."""
    try:
        return _autograde(root, source)
    except Exception:
        traceback.print_exc(file=sys.stdout)
        return _zero(root / "results" / "results.json", "not graded: the grader failed", GRADER_FAILED)


def _autograde(root: Path, source: Path) -> int:
    results = root / "results" / "results.json"
    print(f"grader: {Path(__file__).resolve().parent}")
    try:
        settings = json.loads((source / SETTINGS).read_text())
        confine, most = settings["require_confinement"], settings.get("max_submissions")
        if settings["seed"] is None:
            bytes.fromhex(settings["secret"])  # a bundle's settings must hold one or the other
        # A bundle built before inputs_shown existed showed every input: it still does.
        student = dataclasses.replace(STUDENT, inputs_shown=settings.get("inputs_shown", "visible"))
        if student.inputs_shown not in INPUTS_SHOWN:
            raise ValueError(f"inputs_shown {student.inputs_shown!r} is none of {', '.join(INPUTS_SHOWN)}")
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        return _zero(results, f"{SETTINGS} is missing or unreadable in this autograder ({error})", NOT_SET_UP)
    metadata = read_metadata(root)
    seal(root, source)
    capped = over_the_cap(metadata, most)
    if capped is not None:
        print(f"not graded: over the cap of {most} submissions")
        write_atomically(results, json.dumps(capped, indent=1, ensure_ascii=False) + "\n")
        return 0
    refusal = confinement_problem() if confine else None
    if refusal:
        return _zero(results, refusal, NOT_CONFINED.format(refusal=refusal))
    try:
        path = find_tools(root / "submission")
    except NotASubmission as why:  # a folder too deep or too wide to search: a zero that says so
        return _zero(results, f"not graded: {why}", NOT_FOUND.format(why=why))
    if path is None:
        return _zero(results, "no tools.py in the submission", NOTHING_TO_GRADE)
    print(f"grading {path}")  # never the seed: stdout is the instructor's, but may be shown
    try:
        submission = read_submission(str(path), path.name)  # the grade's one read: its seed's key and every stage
    except NotASubmission as why:  # a link, a FIFO, over 1 MB: every check not run, saying why
        print(f"not graded: {why}")
        write_results(refused(str(path), 0, str(why)), results, student)
        return 0
    key = submission_key(metadata, submission)
    seed = seed_of(settings, key)
    print("seed: the bundle's own" if settings["seed"] is not None else f"seed: submission {key}'s (`--seed-of {key}`)")
    try:
        graded = confined.grade_confined(submission, seed, hidden=(str(root),))  # the metadata, the results: all of it
    except GraderError as error:  # the sandbox failed twice: the machine's fault, said as such
        return _zero(results, f"not graded: {error}", GRADER_FAILED)
    write_results(graded, results, student)
    return 0


def seal(root: Path, source: Path) -> None:
    """The grader's files, its settings (the seed) and Gradescope's submission metadata, readable by
    this user alone: a child dropped to a uid of its own then reads none of them, Landlock or not."""
    for folder, _, files in os.walk(source):
        os.chmod(folder, 0o700)
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode & 0o700)
    metadata = root / "submission_metadata.json"
    if metadata.is_file() and not metadata.is_symlink():
        metadata.chmod(0o600)
    print(f"sealed: {source} and {metadata.name} readable by uid {os.geteuid()} alone")


def confinement_problem() -> str | None:
    """What this container lacks to keep a submission from forging results.json or killing the grader."""
    layers = Layers.here()
    print(layers.describe())
    if layers.confines_writes_and_signals():
        return None
    return "; ".join(layers.missing())


def _zero(results: Path, said: str, output: str) -> int:
    print(said)
    write_atomically(results, json.dumps({"score": 0, "output": output, "tests": []}, indent=1) + "\n")
    return 0


NOTHING_TO_GRADE = (
    "No tools.py was found in your submission. Upload your agtool/tools.py "
    "(on its own, in a folder, or in a zip), then submit again."
)
NOT_FOUND = (
    "Not graded: your submission holds {why}. Upload your agtool/tools.py "
    "(on its own, in a folder, or in a zip), then submit again."
)
GRADER_FAILED = (
    "Not graded: the autograder itself failed while grading (not your code's doing; "
    "nothing was scored). Please submit again, and tell your instructor if it happens twice."
)
NOT_SET_UP = "This autograder is not set up: nothing was graded. Please tell your instructor."
NOT_CONFINED = (
    "Not graded: your submission could not be graded safely, because this autograder's container "
    "cannot confine a submission ({refusal}). Nothing was run, and the 0 is not a judgement of your "
    "work; please tell your instructor. Instructor: use a base image with a "
    "Linux 6.12+ kernel (Landlock) or run the autograder as root, or rebuild the bundle "
    "with `python -m grader gradescope --allow-unconfined` to grade without that fence."
)


def command(parser: argparse.ArgumentParser):
    """The `gradescope` subcommand's arguments; returns what runs it."""
    parser.add_argument("out", metavar="OUT.zip", help="the autograder zip to write")
    parser.add_argument(
        "--seed",
        type=_seed,
        help="grade every submission on this one seed (default: a seed per submission, from a secret kept "
        "in the bundle)",
    )
    parser.add_argument(
        "--seed-of",
        metavar="SUBMISSION_ID",
        help="print the seed the existing bundle OUT.zip grades Gradescope's submission SUBMISSION_ID on "
        "(for `python -m grader grade ... --seed S`), and write nothing",
    )
    parser.add_argument(
        "--max-submissions",
        type=_count,
        metavar="N",
        help="grade a student's first N submissions only (Gradescope's previous_submissions); "
        "past them, the last counted grade stands",
    )
    parser.add_argument(
        "--inputs-shown",
        choices=INPUTS_SHOWN,
        default=STUDENT.inputs_shown,
        help="when a student sees a failed check's smallest failing hidden input, with expected and got "
        "(Gradescope's visibility; default: %(default)s). Its title, score and verdict are always shown at once",
    )
    parser.add_argument(
        "--allow-unconfined",
        action="store_true",
        help="grade even where the container cannot confine a submission's writes and signals",
    )
    return run


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, not {text!r}")
    return int(text)


def _seed(text: str) -> int:
    if not text.isdigit() or int(text) >= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to {MAX_SEED - 1}, not {text!r}")
    return int(text)


def run(args: argparse.Namespace) -> int:
    """Write the bundle; exit 0 when written, 2 on bad input."""
    out = Path(args.out)
    if args.seed_of is not None:
        return _print_seed_of(out, args.seed_of)
    if out.suffix != ".zip":
        return _refuse(f"OUT.zip {str(out)!r} must end in .zip: Gradescope takes a zip")
    if not out.parent.is_dir():
        return _refuse(f"OUT.zip {str(out)!r}: the folder {str(out.parent)!r} does not exist; create it first")
    problem = file_problem("OUT.zip", str(out))
    if problem:
        return _refuse(problem)
    try:
        files = bundle_files(args.seed, not args.allow_unconfined, args.inputs_shown, args.max_submissions)
        write_zip(files, out)
    except BundleError as error:
        return _refuse(str(error))
    except OSError as error:
        return _refuse(f"OUT.zip {str(out)!r} cannot be written ({error.strerror}): choose a folder you can write to")
    seeds = (
        f"seed {args.seed} for every submission"
        if args.seed is not None
        else "a seed per submission (`--seed-of ID` on this zip names one)"
    )
    print(
        f"{out}: {len(files)} files, {seeds}, kept in the bundle's {SETTINGS} where students never see it; "
        "upload it on the assignment's Configure Autograder page"
    )
    return 0


def _print_seed_of(bundle: Path, submission: str) -> int:
    try:
        with zipfile.ZipFile(bundle) as archive:
            settings = json.loads(archive.read(SETTINGS))
        seed = seed_of(settings, submission)
    except (OSError, zipfile.BadZipFile, KeyError, ValueError, TypeError) as error:
        return _refuse(f"OUT.zip {str(bundle)!r} is not a bundle this command built ({error}): give its path")
    print(seed)
    return 0


def _refuse(message: str) -> int:
    print(f"grader gradescope: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(autograde(Path(sys.argv[1])))
