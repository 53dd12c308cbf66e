"""What a submission may use in one session, counted over all its processes: watched from the grader.

An rlimit counts one process: six forks under a 512 MB cap each hold 3 GB, and a file
cap of 16 MB says nothing of forty files. So the grader (session.py) looks at everything the
submission runs and writes every EVERY seconds while it waits for an answer, and at the
child's own processes after every answer, and ends the session over budget:
- its processes: the child's tree, and the zygote's orphans of the child's own uid (a
  double fork lands there, the zygote being the subreaper); more than PROCESSES is a
  fork bomb;
- memory, as the kernel holds it: anonymous pages and shared memory (shmem: a
  MAP_SHARED | MAP_ANONYMOUS mapping, a tmpfs file mapped), which statm would call
  "shared". First cheaply, every page each process has resident (statm), summed, less
  what the child started with (the zygote's anonymous and shared pages, mapped into it at
  the fork, read from the zygote): never less than what it holds. Near the budget, what
  each has resident of both alone (status: RssAnon and RssShmem). That charges each fork
  again the pages it shares with its parent (about 60 MB of the zygote's, and whatever
  else they share), so when it says over budget, the kernel's proportional count decides
  (smaps_rollup: Pss_Anon and Pss_Shmem, a page shared by n processes charged 1/n to
  each; a millisecond or two a process): the pages the submission's processes share among
  themselves count once, and of the zygote's pages they hold the share the kernel gives
  them (at most all 60 MB, once);
- CPU: user and system time of those processes, and of the ones they reaped: a stage's
  budget is what the submission computed, so a busy neighbour (another stage, another
  student) spends none of it;
- files: entries in its workdir, walked without following links, one folder open per level
  (DEPTH levels at most); and bytes, as the kernel holds them: in a tmpfs of the child's own
  (confine.py, as root), the tmpfs's own count (its statvfs), which holds files deleted while
  open and O_TMPFILE files too until their last descriptor closes, and whose size the kernel
  enforces; elsewhere the bytes of every named file in the workdir plus (in the whole look)
  those of every file without a name a process of the submission holds open or maps.
memfd and System V memory, which no process's pages show, are refused by seccomp.
"""

import os
import stat
import time

from grader.instructor.sandbox.confine import ENTRIES, PROCESSES, tmpfs_bytes
from grader.instructor.sandbox.sweeper import uid_of
from grader.kit.errors import OverBudget, TimedOut

EVERY = 0.2  # seconds between two looks
DEPTH = 100  # folders within folders in a workdir
MB = 1024 * 1024
_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Watch:
    """The budget of one session's submission; `check()` raises OverBudget or TimedOut once it is spent."""

    def __init__(self, pid: int, uid: int | None, zygote: int, workdir: str, limits, own_tmpfs: bool = False):
        """`workdir`: the child's, as the grader reaches it; `own_tmpfs`: it is a tmpfs of the child's own
        (confine.py), whose statvfs counts its bytes."""
        self.pid, self.uid, self.zygote, self.workdir, self.limits = pid, uid, zygote, workdir, limits
        self.own_tmpfs = own_tmpfs
        self.next_check = time.monotonic()
        # What the child started with, read from the zygote it is a fork of: the child may be running the
        # submission's import already. Its pages; and (once the submission maps any) the files without a
        # name the zygote maps (a library replaced since it loaded it), which are not the submission's.
        self._inherited = _held(zygote)
        self._inherited_files: set[tuple[int, int]] | None = None

    def check(self) -> None:
        """The whole look (orphans, CPU and files too), when EVERY seconds have passed since the last."""
        if time.monotonic() < self.next_check:
            return
        processes = self.processes(orphans=True)
        self._count(processes)
        if sum(_cpu_ticks(pid) for pid in processes) / _TICKS > self.limits.stage_seconds:
            raise TimedOut(f"the stage used over {self.limits.stage_seconds:g} s of CPU in all: an infinite loop?")
        self._check_files(processes)
        self.next_check = time.monotonic() + EVERY

    def answered(self) -> None:
        """The quick look after every answer, at what the child's main thread (the submission's code)
        forked and its workdir, files without a name included: what a request left running or written is
        charged to that very request (its verdict does not hang on when the last whole look was: a stage
        over within EVERY seconds would have none, and a quiet machine would miss what a loaded one sees).
        Forks of its other threads, and their descendants' own, wait for the whole look. Outside a tmpfs
        of the child's own, reading its descriptors and maps costs this look about as much again; in one,
        nothing (the tmpfs's own count holds the files without a name)."""
        processes = {self.pid, *_children(self.pid, tasks=(str(self.pid),))}
        self._count(processes)
        self._check_files(processes)

    def _count(self, processes: set[int]) -> None:
        if len(processes) > PROCESSES:
            raise OverBudget(f"the submission ran more than {PROCESSES} processes at once (a fork bomb?)")
        most = self.limits.memory_bytes
        # Every resident page first (statm: a third of what status costs, and never less than what is held):
        memory = sum(_resident(pid) for pid in processes) - self._inherited
        if memory > most:  # near the budget: its anonymous and shared memory alone
            memory = sum(_held(pid) for pid in processes) - self._inherited
        if memory > most and len(processes) > 1:  # forks: each page once, the kernel's way
            memory = min(memory, sum(_proportional(pid) for pid in processes))
        if memory > most:
            raise OverBudget(
                f"the submission's processes held more than {most // MB} MB of memory in all (forking to get more?)"
            )

    def _check_files(self, processes: set[int]) -> None:
        """OverBudget if the workdir holds too many bytes, entries or levels: in a tmpfs of the child's own, all
        it holds; elsewhere its named files, and the files without a name `processes` hold."""
        most = self.limits.workdir_bytes
        try:
            top = os.open(self.workdir, _DIRECTORY)
        except OSError:  # the child ended meanwhile (its tmpfs with it)
            return
        try:
            if self.own_tmpfs:  # all it holds, named or not: the tmpfs's own count
                _over_files(_tmpfs_used(top, tmpfs_bytes(most)), most)
                _walk(top, most, held=0)  # for entries and levels: its bytes are in the count above
            else:
                _walk(top, most, held=self._unnamed(processes))
        finally:
            os.close(top)

    def _unnamed(self, processes: set[int]) -> int:
        """Bytes of the files without a name `processes` hold open or map, each file once."""
        unnamed: dict[tuple[int, int], int] = {}
        for pid in processes:
            for file, size in _mapped_unnamed(pid).items():
                if self._inherited_files is None:
                    self._inherited_files = set(_mapped_unnamed(self.zygote))
                if file not in self._inherited_files:
                    unnamed[file] = max(unnamed.get(file, 0), size)
        for pid in processes:
            unnamed.update(_open_unnamed(pid))  # exact, where a descriptor is open
        return sum(unnamed.values())

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


def _resident(pid: int) -> int:
    """Bytes of every page process `pid` has resident, file-backed ones too (statm)."""
    try:
        return int(_read(f"/proc/{pid}/statm").split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):  # it ended meanwhile
        return 0


def _held(pid: int) -> int:
    """Bytes of anonymous and shared-memory pages process `pid` has resident (status: RssAnon + RssShmem)."""
    try:
        status = _read(f"/proc/{pid}/status")
    except OSError:  # it ended meanwhile
        return 0
    at = status.find(b"RssAnon:")  # none for a zombie
    fields = status[at:].split(None, 8) if at >= 0 else []  # RssAnon: n kB RssFile: n kB RssShmem: n kB
    if len(fields) < 8 or fields[6] != b"RssShmem:":
        return 0
    return (int(fields[1]) + int(fields[7])) * 1024


def _proportional(pid: int) -> int:
    """Bytes of anonymous and shared-memory pages process `pid` holds, each page's bytes divided among the
    processes that map it (smaps_rollup: Pss_Anon + Pss_Shmem)."""
    total = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith(("Pss_Anon:", "Pss_Shmem:")):
                    total += int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return total


def _open_unnamed(pid: int) -> dict[tuple[int, int], int]:
    """(device, inode) -> bytes of each regular file without a name (deleted while open, O_TMPFILE) process
    `pid` holds open: their blocks stay until the last descriptor closes, and no walk of names sees them."""
    found: dict[tuple[int, int], int] = {}
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:  # it ended meanwhile
        return found
    for fd in descriptors:
        try:
            status = os.stat(f"/proc/{pid}/fd/{fd}")  # the open file itself, named or not
        except OSError:
            continue
        if stat.S_ISREG(status.st_mode) and status.st_nlink == 0:
            found[status.st_dev, status.st_ino] = status.st_blocks * 512
    return found


_SHARED_MEMORY = (b"/dev/zero ", b"/SYSV", b"/memfd:")  # "deleted" in maps, but memory (counted as such): no file


def _mapped_unnamed(pid: int) -> dict[tuple[int, int], int]:
    """(device, inode) -> bytes of each file without a name process `pid` maps (deleted once mapped, maybe
    with no descriptor left): its blocks where the grader may look at the mapping (as root), else as far
    into the file as it maps (more than the file holds, if it maps past its end)."""
    found: dict[tuple[int, int], int] = {}
    try:
        with open(f"/proc/{pid}/maps", "rb") as maps:
            lines = maps.read().splitlines()
    except OSError:  # it ended meanwhile
        return found
    for line in lines:
        fields = line.split(None, 5)  # span, permissions, offset, device, inode, path
        if not line.endswith(b" (deleted)") or len(fields) < 6 or fields[5].startswith(_SHARED_MEMORY):
            continue
        start, end = (int(address, 16) for address in fields[0].split(b"-"))
        major, minor = (int(number, 16) for number in fields[3].split(b":"))
        try:
            size = os.stat(f"/proc/{pid}/map_files/{fields[0].decode()}").st_blocks * 512
        except OSError:  # not root: no look through the mapping
            size = int(fields[2], 16) + end - start
        file = (os.makedev(major, minor), int(fields[4]))
        found[file] = max(found.get(file, 0), size)
    return found


def _tmpfs_used(folder: int, size: int) -> int:
    """Bytes in use in the tmpfs of `size` bytes that `folder` is open in (every file it holds, named or not);
    0 while the file system there is another (the child has not mounted its own yet: none of the submission ran)."""
    usage = os.fstatvfs(folder)
    if usage.f_blocks * usage.f_frsize != size:
        return 0
    return (usage.f_blocks - usage.f_bfree) * usage.f_frsize


def _cpu_ticks(pid: int) -> int:
    """utime + stime of `pid`, and of the children it has reaped."""
    try:
        with open(f"/proc/{pid}/stat") as stat_file:
            fields = stat_file.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return sum(int(field) for field in fields[11:15])


def _over_files(held: int, most: int) -> None:
    if held > most:
        raise OverBudget(f"the submission wrote more than {most // MB} MB of files in all (its folder)")


def _walk(top: int, most: int, held: int) -> None:
    """Raise OverBudget if the workdir open at `top` holds named files of more than `most` bytes with `held`
    bytes more, more than ENTRIES entries or more than DEPTH levels."""
    _over_files(held, most)
    entries, opened = 0, [top]  # one open folder per level, the deepest last
    pending = [_listing(top)]
    try:
        while opened:
            if not pending[-1]:
                done = opened.pop()
                pending.pop()
                if opened:  # not the top: the caller's
                    os.close(done)
                continue
            name = pending[-1].pop()
            entries += 1
            try:
                status = os.stat(name, dir_fd=opened[-1], follow_symlinks=False)
            except OSError:
                continue
            held += status.st_blocks * 512
            _over_files(held, most)
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
        for fd in opened[1:]:
            os.close(fd)


def _listing(fd: int) -> list[str]:
    try:
        return os.listdir(fd)
    except OSError:
        return []
