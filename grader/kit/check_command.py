"""The kit's command: `python -m grader check N [PATH]`, check(N) from a terminal.

It prints the table check(N) shows and exits 0 when every check of the stage passes, 1 when one
fails, 2 on bad input.
"""

import argparse
import sys
from collections.abc import Callable

from grader.kit.checks import CHECKLISTS
from grader.kit.intake import NotASubmission, read_submission
from grader.kit.selfcheck import check


def configure_check(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    parser.add_argument(
        "stage", type=_stage, metavar="N", help=f"the stage to check: {', '.join(map(str, CHECKLISTS))}"
    )
    parser.add_argument(
        "path",
        nargs="?",
        metavar="PATH",
        help="the tools.py to check (default: agtool/tools.py, as the notebooks check it)",
    )
    return check_from_terminal


def _stage(text: str) -> int:
    if not text.isdigit() or int(text) not in CHECKLISTS:
        raise argparse.ArgumentTypeError(f"stage must be one of {', '.join(map(str, CHECKLISTS))}, not {text!r}")
    return int(text)


def check_from_terminal(args: argparse.Namespace) -> int:
    submission = None
    if args.path is not None:
        try:
            submission = read_submission(args.path)  # the one read: check() grades these bytes
        except NotASubmission as refusal:
            print(f"check: PATH {refusal}", file=sys.stderr)
            return 2
    report = check(args.stage, submission)
    if report.problem:
        print(report.problem, file=sys.stderr)
        return 2
    print(repr(report))
    return 0 if report.passed else 1


COMMANDS = {
    "check": (
        "check one stage of tools.py, as a notebook's check(N) cell does; exit 1 if a check fails",
        configure_check,
    ),
}
