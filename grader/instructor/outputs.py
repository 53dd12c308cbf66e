"""Where a command may write a file it is given: refused up front, in one line, before any work."""

import os


def file_problem(flag: str, path: str) -> str | None:
    """Why `path` (given as `flag`) cannot take a file; None if it can (missing folders are made)."""
    if os.path.isdir(path):
        return f"{flag} {path!r} is a folder: give a file name in it"
    folder = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(folder):
        folder = os.path.dirname(folder)
    if not os.path.isdir(folder):
        return f"{flag} {path!r} is under {folder!r}, which is a file: choose another place"
    if not os.access(folder, os.W_OK):
        return f"{flag} {path!r} cannot be written ({folder!r} is not writable): choose a folder you can write to"
    return None
