# Hostile twist, appended to the reference tools.py at test time:
# stage 2's check_args makes six O_TMPFILE files in its folder (files that never have a
# name) and writes 15 MB into each (under the per-file cap): 90 MB held against the
# folder's 64 MB, in files no walk of the folder's names sees. Then it answers as the
# reference does: only stage 2 may lose points.
import os

_reference_check_args = check_args
_unnamed = []


def check_args(name, args):
    if not _unnamed:
        for _ in range(6):
            fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600)
            _unnamed.append(fd)
            block = b"x" * (1 << 20)
            for _ in range(15):
                os.write(fd, block)
    return _reference_check_args(name, args)
