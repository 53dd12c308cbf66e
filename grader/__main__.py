"""python -m grader COMMAND ...: the grader's command line.

Each command is one entry of COMMANDS: name -> (one line of help, a function that
adds the command's arguments to its parser and returns the function that runs
it: args -> exit code).
"""

import argparse
import importlib
import os
import sys
from typing import Callable

Runner = Callable[[argparse.Namespace], int]


def grade_command(parser: argparse.ArgumentParser) -> Runner:
    parser.add_argument("path", help="the student's tools.py")
    parser.add_argument("--results", help="write Gradescope's results.json here")
    parser.add_argument("--feedback", help="write the feedback as Markdown here")
    parser.add_argument("--seed", type=int, default=0, help="what the random inputs are drawn from (default 0)")
    parser.add_argument("--only", metavar="STAGE.K", help="run one check, e.g. 2.4 (as a replay command says)")
    parser.add_argument("--require-sandbox", action="store_true",
                        help="refuse to grade unless every sandbox layer is there (see the README's threat model)")
    return run_grade


def run_grade(args: argparse.Namespace) -> int:
    """Grade one submission; exit 0 when grading completed, whatever the score."""
    from grader.kit.checks import STAGES
    from grader.kit.grading import grade
    from grader.kit.report import feedback_markdown, write_feedback, write_results

    if not os.path.isfile(args.path):
        return _refuse(f"grade: PATH {args.path!r} is not a file; give the student's tools.py")
    labels = [check.label for stage in STAGES.values() for check in stage.checks]
    if args.only is not None and args.only not in labels:
        return _refuse(f"grade: --only {args.only!r} names no check; use STAGE.K, one of {', '.join(labels)}")
    from grader.instructor.sandbox.confine import Layers
    from grader.instructor.sandbox.session import SandboxSession, warm  # each stage in a confined child
    from grader.kit.errors import GraderError

    layers = Layers.here()
    gaps = layers.missing()
    print(layers.describe() + "".join(f"\n  missing: {gap}" for gap in gaps), file=sys.stderr)
    if gaps and args.require_sandbox:
        return _refuse("grade: --require-sandbox, and this machine lacks a layer (above); "
                       "grade on a Linux 6.12+ kernel with Landlock, as root, with libseccomp2")
    warm()
    try:
        result = grade(args.path, SandboxSession, seed=args.seed, only=args.only)
    except GraderError as error:
        result = not_graded(args.path, args.seed, str(error))
    if args.results:
        write_results(result, args.results)
    if args.feedback:
        write_feedback(result, args.feedback)
    if not (args.results or args.feedback):
        print(feedback_markdown(result))
    print(f"{args.path}: {result.score} / {result.max_score} (seed {args.seed}, {result.seconds:.2f} s)",
          file=sys.stderr)
    return 0


def not_graded(path: str, seed: int, why: str):
    """A grade of 0 that says why nothing could be judged: results.json is written all the same."""
    from grader.kit.checks import STAGES
    from grader.kit.grading import Grade
    from grader.kit.probing import CheckResult

    results = [CheckResult(check, False, f"not graded: {why}", died=True)
               for stage in STAGES.values() for check in stage.checks]
    return Grade(path, seed, results, 0.0)


def _refuse(message: str) -> int:
    print(message, file=sys.stderr)
    return 2


COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], Runner]]] = {
    "grade": ("grade one tools.py: Gradescope's results.json and feedback", grade_command),
    "class": ("grade every submission in a folder, in parallel: gradebook.csv and per-student feedback",
              lambda parser: importlib.import_module("grader.instructor.classroom").command(parser)),
    "gradescope": ("write a Gradescope autograder zip that runs this grader",
                   lambda parser: importlib.import_module("grader.instructor.bundle").command(parser)),
    "release": ("write the student kit: notebooks without outputs, tools.py as a skeleton, the grader",
                lambda parser: importlib.import_module("grader.instructor.release").command(parser)),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader", description="The agtool lab's grader.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (summary, configure) in COMMANDS.items():
        sub = commands.add_parser(name, help=summary, description=summary)
        sub.set_defaults(run=configure(sub))
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
