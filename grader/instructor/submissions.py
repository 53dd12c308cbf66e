"""What DIR holds: one submission per student, found and read once, before any grading.

DIR/<student>.py, or a folder DIR/<student>/ with a tools.py in it (at its top, or anywhere below: a
whole lab folder is fine); a student is named as Unicode's NFC spells their entry. Only the student's
own regular file is graded: a symlink out of their folder (a classmate's file), a FIFO, a device or a
file over 1 MB is refused, by name, and gets no row (a zero for a planted link would land on a
classmate). A file with nothing to grade (empty, never naming TOOLS) and a folder without tools.py
are not graded in full: each gets a row of 0 with a note saying why (nothing_to_grade, NO_TOOLS_PY).
"""

import ast
from dataclasses import dataclass
from pathlib import Path

from grader.instructor.term import same_name
from grader.kit import intake
from grader.kit.intake import NotASubmission, find_tools, hidden_entry, read_submission


class UsageError(Exception):
    """Bad input to `class` or `merge`: the message names the argument and what to do."""


@dataclass(frozen=True)
class HandedIn:
    """What one student handed in, as found in DIR."""

    student: str  # the entry's name in NFC
    path: Path  # a regular file inside the student's own entry, symlinks resolved (or their folder, without one)
    read: intake.Submission | None  # the file as read, once, when found: what is graded; None: no tools.py
    folder: Path  # the class's DIR: no child reads it (nor OUT), classmates' files and feedback
    # The file's modification time as first read: when it was handed in, unless submitted.csv says.
    # A file whose bytes were graded before keeps the time its record holds (records.resume).
    modified: float | None

    @property
    def digest(self) -> str | None:  # sha256 of what was read (and graded): the stamp compares it
        return self.read.sha256 if self.read else None

    @property
    def shown(self) -> str:  # the file as DIR holds it, as the student knows it
        return self.read.shown if self.read else _shown(self.path, self.folder)

    def ungradable(self) -> str | None:
        """Why there is nothing to grade in full, said before any grading; None when there is."""
        if self.read is None:
            return NO_TOOLS_PY
        return nothing_to_grade(self.read.data)


NO_TOOLS_PY = "no tools.py in it"


def nothing_to_grade(data: bytes) -> str | None:
    """Why a file has nothing to grade, or None: it is empty, or TOOLS is nowhere in it and it could not make
    the name at run time (no exec, globals(), setattr … : then no check could find a thing). A file that
    does not parse has its grade say why, with the line."""
    if not data.strip():
        return "tools.py is empty"
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    if not any(_may_name_tools(node) for node in ast.walk(tree)):
        return "tools.py never names TOOLS"
    return None


# What can make a module's name at run time, out of text that never spells it.
NAME_MAKERS = frozenset({"exec", "eval", "compile", "globals", "vars", "locals", "setattr", "__import__", "__dict__"})


def _may_name_tools(node: ast.AST) -> bool:
    """node spells TOOLS (a name, an import, an attribute, or text that could be one: globals()["TOOLS"]), or may
    make a name at run time (exec of decoded text, globals()[...] = ..., setattr on the module)."""
    if isinstance(node, ast.Name):
        return node.id == "TOOLS" or node.id in NAME_MAKERS
    if isinstance(node, ast.alias):
        return "TOOLS" in (node.name, node.asname) or node.name == "*"
    if isinstance(node, ast.Attribute):
        return node.attr == "TOOLS" or node.attr in NAME_MAKERS
    return isinstance(node, ast.Constant) and isinstance(node.value, str | bytes) and "TOOLS" in str(node.value)


# ── finding the submissions ──────────────────────────────────────────────────


def find_submissions(folder: Path) -> tuple[list[HandedIn], dict[str, str]]:
    """(the submissions in folder, sorted by student; entry -> why, for entries refused)."""
    if not folder.is_dir():
        raise UsageError(
            f"DIR {str(folder)!r} is not a folder: give the folder that holds one "
            "<student>.py or <student>/tools.py per student"
        )
    submissions: dict[str, HandedIn] = {}
    refused: dict[str, str] = {}
    seen: dict[str, str] = {}  # student -> the entry that is theirs, as DIR names it
    for entry in sorted(folder.iterdir()):
        if hidden_entry(Path(entry.name)):
            continue
        student = same_name(entry.stem if entry.suffix == ".py" and not entry.is_dir() else entry.name)
        named = entry.name + ("/" if entry.is_dir() else "")
        if student in seen:
            raise UsageError(
                f"DIR {str(folder)!r} holds both {' and '.join(sorted((seen[student], named)))}, both {student!r} "
                "(a file and a folder, or one name spelt in two Unicode forms): keep one submission per student"
            )
        seen[student] = named
        try:
            path = _own_file(entry)
            if path is None:  # their folder, with no tools.py in it: a row of 0, saying so
                submissions[student] = HandedIn(student, entry, None, folder, None)
                continue
            read = read_submission(str(path), _shown(path, folder))
            submissions[student] = HandedIn(student, path, read, folder, path.stat().st_mtime)
        except NotASubmission as refusal:
            refused[student] = str(refusal)
    if not submissions and not refused:
        raise UsageError(
            f"DIR {str(folder)!r} holds no submissions: put one <student>.py or <student>/tools.py per student in it"
        )
    return list(submissions.values()), refused


def _shown(path: Path, folder: Path) -> str:
    """path as the instructor knows it: relative to DIR where it can be."""
    for base in (folder, folder.resolve()):
        if path.is_relative_to(base):
            return path.relative_to(base).as_posix()
    return str(path)


def _own_file(entry: Path) -> Path | None:
    """The file to grade for one entry of DIR, inside that entry, symlinks resolved; None for a folder that
    holds none. NotASubmission for what must not be graded as this student's work."""
    if not entry.name.isprintable():
        raise NotASubmission(f"{entry.name!r} holds a control character: rename it")
    if entry.is_symlink():  # its target is someone else's file, or outside the class
        raise NotASubmission(f"{entry.name} is a symbolic link: hand in the file or folder itself")
    if not entry.is_dir():
        if entry.suffix != ".py":
            raise NotASubmission("neither a .py file nor a folder")
        return entry
    found = find_tools(entry)
    if found is None:
        return None
    try:
        real = found.resolve(strict=True)
    except (OSError, RuntimeError):  # a dangling link, or a loop
        raise NotASubmission(f"{found.relative_to(entry.parent)} is a broken symbolic link") from None
    if not real.is_relative_to(entry.resolve()):
        raise NotASubmission(
            f"{found.relative_to(entry.parent)} is a symbolic link out of {entry.name}/ "
            "(to someone else's file?): hand in the file itself"
        )
    return real
