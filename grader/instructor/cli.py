"""The instructor's commands (see grader/__main__.py). Only `grade` lives here; each other one is in the
module that does its work, imported only when that command is run, so that `python -m grader --help` stays quick.
"""

import argparse
import importlib
import os
import sys
from collections.abc import Callable

from grader.instructor.confined import grade_confined, sandbox_check  # each stage in a confined child
from grader.instructor.outputs import file_problem
from grader.instructor.sandbox.confine import Layers
from grader.instructor.sandbox.session import warm
from grader.kit import intake
from grader.kit.checks import every_check
from grader.kit.errors import GraderError
from grader.kit.grading import not_graded
from grader.kit.intake import NotASubmission
from grader.kit.report import Audience, feedback_markdown, write_feedback, write_results

Runner = Callable[[argparse.Namespace], int]


def grade_command(parser: argparse.ArgumentParser) -> Runner:
    parser.add_argument("path", help="the student's tools.py")
    parser.add_argument("--results", help="write Gradescope's results.json here")
    parser.add_argument("--feedback", help="write the feedback as Markdown here")
    parser.add_argument("--seed", type=int, default=0, help="what the random inputs are drawn from (default 0)")
    parser.add_argument("--only", metavar="STAGE.K", help="run one check, e.g. 2.4 (as a replay command says)")
    parser.add_argument(
        "--require-sandbox",
        action="store_true",
        help="refuse to grade unless every sandbox layer is there (see docs/threat-model.md)",
    )
    return run_grade


def run_grade(args: argparse.Namespace) -> int:
    """Grade one submission; exit 0 when grading completed, whatever the score, 2 on bad input."""
    real = os.path.realpath(args.path)  # the instructor's own link is fine; the sandbox copies the file itself
    try:
        # The grade's one read, every stage gets these bytes (looked up in intake when called: a test that
        # watches intake's reads sees this one however early this module was imported).
        submission = intake.read_submission(real, shown=args.path)
    except NotASubmission as refusal:
        return _refuse(f"grade: PATH {refusal}")
    labels = [check.label for check in every_check()]
    if args.only is not None and args.only not in labels:
        return _refuse(f"grade: --only {args.only!r} names no check; use STAGE.K, one of {', '.join(labels)}")
    for flag, path in (("--results", args.results), ("--feedback", args.feedback)):
        problem = path and file_problem(flag, path)
        if problem:
            return _refuse(f"grade: {problem}")
    lacking = sandbox_check(Layers.here(), args.require_sandbox)
    if lacking:
        return _refuse(f"grade: {lacking}")
    warm()
    try:
        outputs = tuple(os.path.dirname(os.path.abspath(path)) for path in (args.results, args.feedback) if path)
        result = grade_confined(submission, seed=args.seed, only=args.only, hidden=outputs)
    except GraderError as error:
        result = not_graded(submission.path, args.seed, str(error))
    audience = Audience(path=args.path)  # the replay line names the file as the instructor typed it
    if args.results:
        write_results(result, args.results, audience)
    if args.feedback:
        write_feedback(result, args.feedback, audience)
    if not (args.results or args.feedback):
        print(feedback_markdown(result, audience))
    print(
        f"{args.path}: {result.score} / {result.max_score} (seed {args.seed}, {result.seconds:.2f} s)", file=sys.stderr
    )
    return 0


def _refuse(message: str) -> int:
    print(message, file=sys.stderr)
    return 2


def _in(module: str) -> Callable[[argparse.ArgumentParser], Runner]:
    """A command whose arguments and runner are `module`'s command(parser)."""
    return lambda parser: importlib.import_module(module).command(parser)


COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], Runner]]] = {
    "grade": ("grade one tools.py: Gradescope's results.json and feedback", grade_command),
    "class": (
        "grade every submission in a folder, in parallel: gradebook.csv and per-student feedback",
        _in("grader.instructor.classroom"),
    ),
    "pilot": (
        "say what the sandbox has on this machine (kernel, Landlock, seccomp, root, cgroups) and what a grade does",
        _in("grader.instructor.pilot"),
    ),
    "merge": (
        "merge the OUT folders of a class graded in shards (class --shard I/N) into one",
        _in("grader.instructor.merge"),
    ),
    "gradescope": (
        "write a Gradescope autograder zip that runs this grader, with its seed and pinned versions",
        _in("grader.instructor.bundle"),
    ),
    "lock": (
        "pin every package to the version installed here: the lab's, the kit's and Gradescope's locks",
        _in("grader.instructor.lock"),
    ),
    "release": (
        "write the student kit: notebooks without outputs, tools.py as a skeleton, the grader",
        _in("grader.instructor.release"),
    ),
}
