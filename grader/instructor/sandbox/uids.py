"""The uids a root grader's children run as: counted up from a block of its own, never reused in its life.

A uid is the only name a child's processes and the kernel objects they leave share
(the sweep kills by uid; a file, a queue or a lock belongs to one), so two children
must never have the same one: not two at once, and not one after the other, or what
the first left the second would own. A pid is no good (the kernel reuses pids), nor a
counter alone (two graders on one host would count the same numbers). So each zygote
leases a block of BLOCK uids, held by an flock on a file of a root-only folder for as
long as it lives (the kernel drops the lock when the zygote dies, however it dies),
and counts up within it. The next grader to take that block starts where no process
of the old one is left: the zygote kills its uids' processes as it ends, and a
block's uids are swept before the block is used again.
"""

import fcntl
import os
import stat
import tempfile

UID_BASE = 1_000_000_000  # far above any uid an /etc/passwd or a container maps
BLOCK = 1 << 20  # children per grader's life: more than a term of classes
BLOCKS = (0xFFFF_FFFE - UID_BASE) // BLOCK  # uid_t is 32 bits; -1 and -2 are special
FOLDER = os.path.join(tempfile.gettempdir(), "agtool-lab-uids")


class Lease:
    """A block of uids of this process's alone; `next()` gives each one once."""

    def __init__(self, folder: str = FOLDER):
        self.block, self._fd = _take_a_block(folder)
        self._next = UID_BASE + self.block * BLOCK

    def next(self) -> int:
        if self._next >= UID_BASE + (self.block + 1) * BLOCK:
            raise OSError(f"this grader has started {BLOCK} children: start it again for more")
        uid, self._next = self._next, self._next + 1
        return uid

    def first(self) -> int:
        return UID_BASE + self.block * BLOCK

    def __contains__(self, uid: int) -> bool:
        return self.first() <= uid < UID_BASE + (self.block + 1) * BLOCK


def _take_a_block(folder: str) -> tuple[int, int]:
    """(block, fd of its locked file): the first block no living grader holds."""
    os.makedirs(folder, mode=0o700, exist_ok=True)
    status = os.lstat(folder)
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.geteuid() or status.st_mode & 0o022:
        raise OSError(f"{folder} is not a folder of this user's alone: remove it and grade again")
    for block in range(BLOCKS):
        fd = os.open(
            os.path.join(folder, f"{block}.lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
        )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return block, fd
    raise OSError(f"every block of uids in {folder} is held by a running grader")
