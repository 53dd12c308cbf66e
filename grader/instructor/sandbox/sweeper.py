"""Killing every process of a child's uid, as root: what a submission left behind, however it hid.

`sweep(uid)` forks, takes the uid and calls kill(-1, SIGKILL), which reaches every
process that uid may signal: every process of that uid and nothing else. One pass
misses none, not even a process forked while it went round: the kernel walks the
process list under the lock that fork takes to add a process, and a fork whose parent
already has SIGKILL pending fails. The second pass is for a kernel that ever did
otherwise. Nothing here can tell when none is left (kill(-1, 0) succeeds while any
process exists that the uid may not signal, and the dead stay zombies until the zygote
reaps them): tests/sandbox/test_trust_boundary.py looks for survivors in /proc instead.

A fork costs what its parent holds in memory: about 13 ms from the zygote (its
preloaded libraries, mostly in tearing the copy down again), 1 ms from a bare Python.
So the zygote starts a `Sweeper` before it imports anything, and each reap asks it.
Standard library only: this module is imported before the zygote's preloads.
"""

import contextlib
import ctypes
import os
import signal
import struct

_UID = struct.Struct("=q")
_PR_SET_PDEATHSIG = 1


def uid_of(pid: int) -> int | None:
    """The real uid process `pid` runs as (the zygote's strays, a budget's orphans); None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return int(next(line for line in status if line.startswith("Uid:")).split()[1])
    except (OSError, StopIteration, ValueError):
        return None


def sweep(uid: int) -> None:
    """Kill every process of `uid`, from a fork of this process (which must be root)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setresuid(uid, uid, uid)  # no capabilities left: kill() reaches that uid alone
            for _ in range(2):
                os.kill(-1, signal.SIGKILL)
        except BaseException:
            pass
        os._exit(0)
    os.waitpid(pid, 0)


class Sweeper:
    """A small process, forked now, that sweeps a uid when asked and answers when it is done."""

    def __init__(self):
        ask_read, self._ask = os.pipe()
        self._done, done_write = os.pipe()
        parent = os.getpid()
        self.pid = os.fork()
        if self.pid == 0:
            for fd in map(int, os.listdir("/proc/self/fd")):  # the zygote's control socket above all
                if fd > 2 and fd not in (ask_read, done_write):
                    with contextlib.suppress(OSError):
                        os.close(fd)
            ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:
                os._exit(0)
            _serve(ask_read, done_write)
        os.close(ask_read)
        os.close(done_write)

    def sweep(self, uid: int) -> None:
        try:
            os.write(self._ask, _UID.pack(uid))
            if os.read(self._done, 1) == b"+":
                return
        except OSError:  # its pipe is broken
            pass
        sweep(uid)  # the sweeper is gone: sweep from here, at a fork's price


def _serve(asks: int, done: int) -> None:
    """The sweeper's loop, until the zygote closes its end. Never returns."""
    with contextlib.suppress(BaseException):
        while len(ask := os.read(asks, _UID.size)) == _UID.size:
            sweep(_UID.unpack(ask)[0])
            os.write(done, b"+")
    os._exit(0)
