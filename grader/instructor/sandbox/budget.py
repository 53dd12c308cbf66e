"""What a submission may use in one session, counted over all its processes: watched from the grader.

An rlimit counts one process: six forks under a 512 MB cap each hold 3 GB, and a file
cap of 16 MB says nothing of forty files. So the grader (session.py) looks at everything the
submission runs and writes every EVERY seconds while it waits for an answer, and at the
child's own processes after every answer, and ends the session over budget:
- its processes: the child's tree, and the zygote's orphans of the child's own uid (a
  double fork lands there, the zygote being the subreaper); more than PROCESSES is a
  fork bomb;
- memory: first cheaply, the anonymous pages each process has resident (statm), summed,
  less what the child started with (the zygote's pages, mapped into it at the fork). That
  charges each fork the pages it shares with its parent again (about 60 MB), so when it
  says over budget, the pages each process holds alone (private, from smaps_rollup: a
  millisecond or two a process) decide. Pages a submission's
  processes share among themselves are counted in none of them: at most one process's
  rlimit more;
- CPU: user and system time of those processes, and of the ones they reaped: a stage's
  budget is what the submission computed, so a busy neighbour (another stage, another
  student) spends none of it;
- files: bytes and entries in its workdir, walked without following links, one folder
  open per level (DEPTH levels at most).
memfd and System V memory, which no process's pages show, are refused by seccomp.
"""

import os
import stat
import time

from grader.instructor.sandbox.confine import PROCESSES
from grader.instructor.sandbox.sweeper import uid_of
from grader.kit.errors import OverBudget, TimedOut

EVERY = 0.2  # seconds between two looks
DEPTH = 100  # folders within folders in a workdir
ENTRIES = 10_000  # files and folders in a workdir
MB = 1024 * 1024
_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Watch:
    """The budget of one session's submission; `check()` raises OverBudget or TimedOut once it is spent."""

    def __init__(self, pid: int, uid: int | None, zygote: int, workdir: str, limits):
        self.pid, self.uid, self.zygote, self.workdir, self.limits = pid, uid, zygote, workdir, limits
        self.next_check = time.monotonic()
        self._inherited = _anonymous(pid)

    def check(self) -> None:
        """The whole look (orphans, CPU and files too), when EVERY seconds have passed since the last."""
        if time.monotonic() < self.next_check:
            return
        processes = self.processes(orphans=True)
        self._count(processes)
        if sum(_cpu_ticks(pid) for pid in processes) / _TICKS > self.limits.stage_seconds:
            raise TimedOut(f"the stage used over {self.limits.stage_seconds:g} s of CPU in all: an infinite loop?")
        _check_files(self.workdir, self.limits.workdir_bytes)
        self.next_check = time.monotonic() + EVERY

    def answered(self) -> None:
        """The quick look after every answer, at what the child's main thread (the submission's code)
        forked and its workdir: what a request left running or written is charged to that very request
        (its verdict does not hang on when the last whole look was). Forks of its other threads, and
        their descendants' own, wait for the whole look."""
        self._count({self.pid, *_children(self.pid, tasks=(str(self.pid),))})
        _check_files(self.workdir, self.limits.workdir_bytes)

    def _count(self, processes: set[int]) -> None:
        if len(processes) > PROCESSES:
            raise OverBudget(f"the submission ran more than {PROCESSES} processes at once (a fork bomb?)")
        memory = sum(_anonymous(pid) for pid in processes) - self._inherited
        if memory > self.limits.memory_bytes and len(processes) > 1:  # forks: count what each holds alone
            memory = sum(_private(pid) for pid in processes)
        if memory > self.limits.memory_bytes:
            raise OverBudget(
                f"the submission's processes held more than {self.limits.memory_bytes // MB} MB "
                "of memory in all (forking to get more?)"
            )

    def processes(self, orphans: bool = True) -> set[int]:
        """The child, everything below it, and (`orphans`) the zygote's orphans of the child's uid with theirs."""
        found: set[int] = set()
        roots = [self.pid]
        if orphans and self.uid is not None:
            roots += [pid for pid in _children(self.zygote) if pid != self.pid and uid_of(pid) == self.uid]
        while roots:
            pid = roots.pop()
            if pid not in found and os.path.exists(f"/proc/{pid}"):
                found.add(pid)
                roots.extend(_children(pid))
        return found


def _children(pid: int, tasks: tuple[str, ...] | None = None) -> list[int]:
    """The children of every thread of `pid` (of `tasks` alone, if given)."""
    found: list[int] = []
    try:
        for task in tasks or os.listdir(f"/proc/{pid}/task"):
            found += map(int, _read(f"/proc/{pid}/task/{task}/children").split())
    except OSError:  # it ended meanwhile
        pass
    return found


def _read(path: str) -> bytes:
    """A small /proc file, read raw: a quarter of what open() costs, and this is read after every answer."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(fd, 65536)
    finally:
        os.close(fd)


def _anonymous(pid: int) -> int:
    """Bytes of anonymous pages process `pid` has resident (statm: resident less file-backed and shared)."""
    try:
        resident, shared = map(int, _read(f"/proc/{pid}/statm").split()[1:3])
    except (OSError, ValueError):
        return 0
    return (resident - shared) * _PAGE


def _private(pid: int) -> int:
    """Bytes of pages process `pid` alone holds (private clean and dirty)."""
    total = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith(("Private_Clean:", "Private_Dirty:")):
                    total += int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return total


def _cpu_ticks(pid: int) -> int:
    """utime + stime of `pid`, and of the children it has reaped."""
    try:
        with open(f"/proc/{pid}/stat") as stat_file:
            fields = stat_file.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return sum(int(field) for field in fields[11:15])


def _check_files(workdir: str, most: int) -> None:
    """Raise OverBudget if the workdir holds more than `most` bytes, ENTRIES entries or DEPTH levels."""
    try:
        top = os.open(workdir, _DIRECTORY)
    except OSError:
        return
    held, entries, opened = 0, 0, [top]  # one open folder per level, the deepest last
    pending: list[list[str]] = [[]]
    try:
        pending[0] = _listing(top)
        while opened:
            if not pending[-1]:
                os.close(opened.pop())
                pending.pop()
                continue
            name = pending[-1].pop()
            entries += 1
            try:
                status = os.stat(name, dir_fd=opened[-1], follow_symlinks=False)
            except OSError:
                continue
            held += status.st_blocks * 512
            if held > most:
                raise OverBudget(f"the submission wrote more than {most // MB} MB of files in all (its folder)")
            if entries > ENTRIES:
                raise OverBudget(f"the submission made more than {ENTRIES:,} files and folders")
            if stat.S_ISDIR(status.st_mode):
                if len(opened) > DEPTH:
                    raise OverBudget(f"the submission nested folders more than {DEPTH} deep")
                try:
                    deeper = os.open(name, _DIRECTORY, dir_fd=opened[-1])
                except OSError:
                    continue
                opened.append(deeper)
                pending.append(_listing(deeper))
    finally:
        for fd in opened:
            os.close(fd)


def _listing(fd: int) -> list[str]:
    try:
        return os.listdir(fd)
    except OSError:
        return []
