"""python -m grader COMMAND ...: the grader's command line, in the repository and in the student kit.

The kit's commands (check) are in grader/kit/check_command.py; the instructor's (grade, class,
gradescope, release, lock) in grader/instructor/cli.py, registered only where
grader/instructor exists: a kit has no such package, so its `--help` lists only what
it can run. Each module's COMMANDS maps a name to (one line of help, a function that
adds the command's arguments to its parser and returns what runs it: args -> exit code).
"""

import argparse
import importlib
import sys
from pathlib import Path


class Parser(argparse.ArgumentParser):
    """argparse whose refusals are one line that says what to do (exit 2), not a usage block."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message}; see {self.prog} --help\n")


def command_modules() -> list[str]:
    # The folder beside this file, not an import search: another grader installed on the
    # path (an editable install of the repository, next to a kit) must not lend its commands.
    instructor = Path(__file__).resolve().parent / "instructor"
    return ["grader.kit.check_command", *(["grader.instructor.cli"] if instructor.is_dir() else [])]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = Parser(prog="python -m grader", description="The agtool lab's grader.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # Only the command given adds its arguments: adding them imports the module that does its
    # work, and the instructor's six cost `python -m grader check N` 0.1 to 0.15 s in the
    # repository (python -X importtime). The top parser has no option but --help, so the first
    # word that is not an option is the command.
    given = next((word for word in argv if not word.startswith("-")), None)
    for module in command_modules():
        for name, (summary, configure) in importlib.import_module(module).COMMANDS.items():
            sub = commands.add_parser(name, help=summary, description=summary)
            if name == given:
                sub.set_defaults(run=configure(sub))
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
