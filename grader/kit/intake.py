"""What the grader accepts as a submission: a regular .py file of at most MAX_SUBMISSION_BYTES.

Read once, without following a symlink and without blocking (a FIFO named tools.py would hang its
reader, a device could stream forever); every refusal is one line naming the file and what to do. The
bytes read (a Submission) are what every stage gets: a file changed on disk since changes nothing.
"""

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

MAX_SUBMISSION_BYTES = 1024 * 1024  # a tools.py is a few KB; the sandbox copies no more than this either
# How far find_tools looks for a tools.py in a folder handed in: a lab is a few levels and a few hundred entries.
SEARCHED_DEPTH = 32  # folders within folders
SEARCHED_ENTRIES = 10_000  # files and folders listed


class NotASubmission(Exception):
    """The file cannot be graded; the message names it and says what to do."""


_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device", stat.S_IFSOCK: "a socket"}


def kind_problem(path: str, info: os.stat_result) -> str | None:
    """Why a file of this kind and size (an lstat or fstat of it) is not a submission; None if it is one."""
    if stat.S_ISDIR(info.st_mode):
        return f"{path} is a folder: give the tools.py in it"
    if stat.S_ISLNK(info.st_mode):
        return f"{path} is a symbolic link: hand in the file itself"
    if not stat.S_ISREG(info.st_mode):
        return (
            f"{path} is not a regular file ({_KINDS.get(stat.S_IFMT(info.st_mode), 'a special file')}): "
            "hand in tools.py as a plain file"
        )
    if info.st_size > MAX_SUBMISSION_BYTES:
        return (
            f"{path} is over {MAX_SUBMISSION_BYTES // (1024 * 1024)} MB ({info.st_size} bytes): "
            "a tools.py is a few KB; hand in the right file"
        )
    return None


@dataclass(frozen=True)
class Submission:
    """A submission as read, once: where from, how a person knows it, and its bytes (and their sha256)."""

    path: str  # the file read: a grade names it, a child's import is done as from there
    shown: str  # the file as the person who gave it knows it, in a refusal or a report
    data: bytes = field(repr=False)
    sha256: str = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "sha256", hashlib.sha256(self.data).hexdigest())


def read_submission(path: str, shown: str | None = None) -> Submission:
    """The submission at path, read, or NotASubmission saying why not (naming it `shown`, or path)."""
    return Submission(path, shown or path, _read(path, shown or path))


def submission_at(given: Submission | str) -> Submission:
    """given, if it was read already; else the file at that path read now (refused by its name alone)."""
    return given if isinstance(given, Submission) else read_submission(given, os.path.basename(given))


def _read(path: str, shown: str) -> bytes:
    if not path.endswith(".py"):
        raise NotASubmission(f"{shown} is not a .py file: give the student's tools.py")
    try:
        problem = kind_problem(shown, os.lstat(path))  # before opening: opening a device can act
        if problem:
            raise NotASubmission(problem)
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(descriptor, "rb") as file:
            problem = kind_problem(shown, os.fstat(file.fileno()))  # it may have been swapped in between
            if problem:
                raise NotASubmission(problem)
            data = file.read(MAX_SUBMISSION_BYTES + 1)
    except OSError as error:
        raise NotASubmission(f"{shown} cannot be read ({error.strerror}): check the path and its permissions") from None
    if len(data) > MAX_SUBMISSION_BYTES:
        raise NotASubmission(f"{shown} is over {MAX_SUBMISSION_BYTES // (1024 * 1024)} MB: hand in the right file")
    return data


def find_tools(folder: Path) -> Path | None:
    """The tools.py in folder, or the shallowest one below it (the first by path among equals); None if it
    holds none; NotASubmission when none is found within SEARCHED_DEPTH levels or SEARCHED_ENTRIES entries.
    Level by level, never recursing (Path.rglob recurses once per level on 3.11), never into a hidden folder
    or a link, and a level's tools.py looked up by name before its folders are listed."""
    level, listed = [folder], 0
    for _ in range(SEARCHED_DEPTH + 1):  # the folder itself, then SEARCHED_DEPTH levels below it
        found = [parent / "tools.py" for parent in level if _not_a_folder(parent / "tools.py")]
        if found:
            return min(found, key=Path.as_posix)
        deeper: list[Path] = []
        for parent in level:
            try:
                with os.scandir(parent) as entries:
                    for entry in entries:
                        listed += 1
                        if listed > SEARCHED_ENTRIES:
                            raise NotASubmission(
                                f"no tools.py among its first {SEARCHED_ENTRIES:,} files and folders "
                                "(the grader lists no more)"
                            )
                        if not hidden_entry(Path(entry.name)) and entry.is_dir(follow_symlinks=False):
                            deeper.append(parent / entry.name)
            except OSError:  # unreadable: passed over, as Path.rglob did
                continue
        if not deeper:
            return None
        level = sorted(deeper, key=Path.as_posix)
    raise NotASubmission(
        f"no tools.py within {SEARCHED_DEPTH} folders of its top, and its folders nest deeper "
        "(the grader looks no deeper)"
    )


def _not_a_folder(path: Path) -> bool:
    """Is there an entry at path that is not a folder (what to read, or refuse, by name)?"""
    try:
        return not stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def hidden_entry(relative: Path) -> bool:
    """A dot-file or dunder entry (.git, __MACOSX, __pycache__): never a student's submission."""
    return any(part.startswith((".", "__")) for part in relative.parts)
