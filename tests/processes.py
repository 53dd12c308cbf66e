"""Waiting on processes' ends as events, not by polling: a pidfd (Linux 5.3+) becomes readable when its
process exits (a zombie has exited), whoever its parent is. Standard library only: any test may import it."""

import contextlib
import os
import select
import time
from collections.abc import Iterable


def wait_ended(pids: Iterable[int], seconds: float) -> set[int]:
    """Wait until every process of `pids` has exited, `seconds` at most (a bound for a test that would
    otherwise hang, not a time to wait): those still running then (none, when all ended)."""
    fds: dict[int, int] = {}
    try:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):  # gone already, reaped too
                fds[os.pidfd_open(pid)] = pid
        waiting = select.poll()
        for fd in fds:
            waiting.register(fd, select.POLLIN)
        running = dict(fds)
        deadline = time.monotonic() + seconds
        while running and (left := deadline - time.monotonic()) > 0:
            for fd, _ in waiting.poll(left * 1000):
                waiting.unregister(fd)
                del running[fd]
        return set(running.values())
    finally:
        for fd in fds:
            os.close(fd)
