"""What a sandboxed child may do, layer by layer: decided in the grader, applied in the child.

`Layers.here()` reads what this machine offers; the grader shows it to the instructor
(`python -m grader grade` prints one line; `--require-sandbox` refuses to grade when a
layer is missing). `enter(job, keep, zygote)` runs in a freshly forked child before any of the
submission's code, and either applies every layer the job asks for or ends the child:
a sandbox that half started never runs student code.

The layers, outermost first:
- its own session and process group, killed with the child's parent (the zygote);
- rlimits on memory, file size, CPU time, core dumps and (as its own user) processes;
- as root: its own unprivileged uid and gid, no supplementary groups, and no
  capability but CAP_DAC_READ_SEARCH where Landlock decides what it reads (so a
  Python under /root stays importable): it cannot chattr +i, raise a hard limit,
  signal or ptrace the grader, or write what only root writes. The uid is never one
  another child had (uids.py: a block of the zygote's own, counted up), so it cannot
  signal a classmate's child, own what an earlier child left, and the zygote's sweep
  (sweeper.py) can kill every process it ever started by uid alone;
- as root where the kernel lets it: an IPC namespace of its own, so a System V object or a
  POSIX message queue it makes (with seccomp off) dies with its last process; and a mount
  namespace of its own, in which its workdir is a tmpfs of the workdir's budget (the
  kernel counts and caps every byte in it, files deleted while open and O_TMPFILE files
  too, and it goes with the namespace's last process), and in which, where Landlock is
  off, the grader's files, the submission's folder and whatever else the grader names (a
  class, its outputs) are covered by empty read-only mounts, all but the paths the child
  must read (Python, site-packages) and its workdir: with Landlock or without, it reads
  none of them; and every mount but its workdir's is read-only (Linux 5.12+): with
  Landlock or without, it writes nowhere else (no file left in a world-writable /tmp);
- no_new_privs, then a seccomp filter (grader/instructor/sandbox/seccomp.py): no socket of any kind,
  no memfd, no System V IPC or POSIX message queue, no namespace or mount;
- Landlock (grader/instructor/sandbox/landlock.py): reads of an allow-list only, writes
  in its workdir only, no signals or abstract sockets outside its domain;
- no argv, no environment but TMPDIR, stdin from /dev/null, stdout and stderr into a
  capped file in the workdir the grader made (beneath its tmpfs, where it has one: the
  output is capped on its own), every other inherited descriptor pointed at /dev/null.
"""

import ctypes
import errno
import functools
import os
import resource
import shutil
import signal
import site
import sys
import sysconfig
from dataclasses import asdict, dataclass

from grader.instructor.sandbox import landlock, seccomp
from grader.instructor.sandbox.uids import UID_BASE

__all__ = ["ENTRIES", "PROCESSES", "UID_BASE", "Layers", "enter", "readable_paths", "tmpfs_bytes"]

PROCESSES = 16  # tasks (threads count) of a submission at once: a fork bomb stops here
ENTRIES = 10_000  # files and folders in a workdir (its tmpfs holds one more, for the watch to see it over)
OUTPUT = "output"  # the child's stdout and stderr, a file in the workdir the grader made
_PR_SET_PDEATHSIG, _PR_SET_KEEPCAPS = 1, 8
_CAP_DAC_READ_SEARCH = 2
_ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))  # where grader/ and agtool/ are
_CLONE_NEWIPC, _CLONE_NEWNS = 0x08000000, 0x00020000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REMOUNT = 1, 2, 4, 8, 32
_MS_BIND, _MS_REC, _MS_PRIVATE = 4096, 16384, 1 << 18
_COVERED = _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_CAPABILITY_VERSION_3 = 0x20080522
_MOUNT_SETATTR, _AT_FDCWD, _AT_RECURSIVE, _MOUNT_ATTR_RDONLY = 442, -100, 0x8000, 1  # the same on every architecture
_libc = ctypes.CDLL(None, use_errno=True)


@dataclass(frozen=True)
class Layers:
    """Which layers a child gets; `missing()` says, in words, what that leaves open."""

    drop_user: bool  # root: an unprivileged uid of its own
    seccomp: bool  # no sockets, no memfd, no System V IPC or POSIX message queues, no namespaces
    landlock: int  # the ABI used: 0 none; 4+ TCP rules too; 6+ signal scoping
    # Namespaces root can make here, made at once (about a millisecond a child, most of it at its exit).
    private_ipc: bool = False  # an IPC namespace of its own: its System V objects and message queues die with it
    private_mounts: bool = False  # a mount namespace: its workdir a tmpfs; the grader's files covered, without Landlock

    @classmethod
    def here(cls, landlock_cap: int | None = None) -> "Layers":
        version = landlock.abi()
        if landlock_cap is not None:  # tests stand in for an older kernel
            version = min(version, landlock_cap)
        root = os.geteuid() == 0
        return cls(
            drop_user=root,
            seccomp=seccomp.available() is None,
            landlock=version,
            private_ipc=root and _can_unshare(_CLONE_NEWIPC),
            private_mounts=root and _can_unshare(_CLONE_NEWNS),
        )

    def missing(self) -> list[str]:
        gaps = []
        if not self.drop_user:
            gaps.append(
                "not root: the child runs as the grader's own user, whose process cap every child shares "
                "(in class, a classmate's fork bomb can leave an honest child no threads: grade a class as root)"
            )
        if not self.seccomp:
            gaps.append(f"no seccomp filter: the child can open sockets, UDP included ({seccomp.available()})")
        if self.landlock == 0 and self.private_mounts:
            writes = "writes only in its workdir" if can_make_read_only() else "writes wherever its user can"
            gaps.append(
                "no Landlock: the grader's files, the class and its outputs are covered in the child's mount "
                f"namespace, but it can read any other file its user can (it {writes})"
            )
        elif self.landlock == 0:
            gaps.append(
                "no Landlock: the child can read any file its user can (the oracle's source included) "
                "and write wherever its user can"
            )
        elif self.landlock < landlock.SCOPE_SINCE:
            gaps.append(f"Landlock ABI {self.landlock} < {landlock.SCOPE_SINCE} (kernel < 6.12): no signal scoping")
        if not self.drop_user and self.landlock < landlock.SCOPE_SINCE:
            gaps.append("the child can signal the grader (same user, no Landlock signal scoping)")
        if not self.seccomp and not self.private_ipc:
            gaps.append(
                "no IPC namespace and no seccomp filter: System V objects and POSIX message queues a child makes "
                "outlive it"
            )
        return gaps

    def confines_reads(self) -> bool:
        """The grader's files, the class and its outputs are out of a child's reach (Landlock, or its own
        uid and mount namespace; the Gradescope bundle adds its sealed modes to a dropped uid alone)."""
        return self.landlock >= 1 or (self.drop_user and self.private_mounts)

    def confines_writes_and_signals(self) -> bool:
        """What the Gradescope bundle insists on: results.json cannot be forged, the grader cannot be killed."""
        return self.drop_user or self.landlock >= landlock.SCOPE_SINCE

    def describe(self) -> str:
        said = [
            f"uid {'dropped' if self.drop_user else 'kept'}",
            f"seccomp {'on' if self.seccomp else 'off'}",
            f"Landlock ABI {self.landlock}" if self.landlock else "Landlock off",
            f"IPC namespace {'on' if self.private_ipc else 'off'}",
            f"mount namespace {'on' if self.private_mounts else 'off'}",
        ]
        return "sandbox: " + ", ".join(said)

    def as_job(self) -> dict:
        return asdict(self)


@functools.cache
def readable_paths() -> tuple[str, ...]:
    """What the child may read: Python's library, its site-packages, the system's shared libraries.
    Found once a process (2 ms): the zygote finds them before its first fork.

    Not the repository, its .git, other checkouts, a class folder or OUT: a submission
    needs none of them (agtool.inventory is imported before the fence goes up).
    """
    paths = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    paths.update(site.getsitepackages())
    # And every other folder on the import path (a .pth file's, Debian's dist-packages) but the
    # repository's root itself, which the zygote's PYTHONPATH names: what is beneath it is the grader's.
    paths.update(entry for entry in sys.path if entry and os.path.isdir(entry) and os.path.realpath(entry) != _ROOT)
    paths.update(("/usr/lib", "/lib", "/lib64", "/usr/lib64", "/etc/ld.so.cache", "/dev/urandom", "/dev/zero"))
    return tuple(sorted(path for path in paths if os.path.exists(path)))


def enter(job: dict, keep: set[int], zygote: int) -> None:
    """Confine this freshly forked child of `zygote` (its pid, taken before the fork) as `job` says, or raise
    (the caller then exits at once). A child whose zygote died before this line was adopted: it exits at once.

    The zygote's pid comes from the zygote, not from os.getppid() here: a zygote that dies between the fork
    and this line leaves the child adopted, and its adopter would pass for the zygote, the parent-death
    signal set below would never come, and the child would outlive its zygote."""
    os.setsid()
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != zygote:  # the zygote died before the line above
        os._exit(1)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    # Python ignores SIGXFSZ; by default it ends a process writing past RLIMIT_FSIZE,
    # which turns an output flood into one clear death instead of errors in every print.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM, signal.SIGCHLD, signal.SIGXFSZ, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    workdir = job["workdir"]
    layers = Layers(**job["layers"])
    made = os.open(workdir, _DIRECTORY)  # the workdir the grader made: what it put there, and the output
    try:
        # Opened before any namespace: on the grader's mount, which no mount made read-only here holds.
        output = os.open(OUTPUT, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600, dir_fd=made)
        _unshare(layers)
        if layers.private_mounts:
            _mount(None, "/", None, _MS_REC | _MS_PRIVATE)  # nothing mounted here reaches the grader's namespace
            if not layers.landlock:
                _cover_all(job["hidden"], keep=[workdir, *readable_paths()])
            _own_workdir(workdir, made, job["limits"]["workdir_bytes"], job["uid"])
            if not layers.landlock and can_make_read_only():  # what Landlock's writes do: all but the workdir
                _read_only_but(workdir)
    finally:
        os.close(made)
    _redirect_output(workdir, output)
    _shut_inherited(keep | {0, 1, 2})
    uid = job["uid"]
    if layers.drop_user:
        for name in (workdir, *(os.path.join(workdir, entry) for entry in os.listdir(workdir))):
            os.chown(name, uid, uid)
    _cap(job["limits"], own_user=layers.drop_user)
    if layers.drop_user:
        # With Landlock deciding what may be read, the child keeps one capability, to
        # read past file modes: a Python installed under /root (pyenv) would otherwise
        # be unreadable to it, and so would every module the zygote did not preload.
        # Only with seccomp too: it refuses open_by_handle_at, the one call the capability adds.
        capabilities = 1 << _CAP_DAC_READ_SEARCH if layers.landlock and layers.seccomp else 0
        _libc.prctl(_PR_SET_KEEPCAPS, 1 if capabilities else 0, 0, 0, 0)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        if os.getresuid() != (uid, uid, uid):
            raise OSError("could not drop to the child's own uid")
        _set_capabilities(capabilities)
        # A change of uid clears the parent-death signal: set it again, and make sure the
        # zygote did not die in between, or this child would outlive it.
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != zygote:
            os._exit(1)
    _libc.prctl(landlock._PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if layers.seccomp:
        seccomp.confine()
    if layers.landlock:
        landlock.confine(workdir, readable_paths(), layers.landlock)
    os.environ.clear()
    os.environ["TMPDIR"] = workdir
    import tempfile

    tempfile.tempdir = workdir
    sys.argv = [os.path.join(workdir, "tools.py")]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _set_capabilities(mask: int) -> None:
    """Exactly the capabilities in `mask` (bits below 32), effective and permitted; none inheritable."""
    data = (_CapData * 2)(_CapData(mask, mask, 0), _CapData(0, 0, 0))
    if _libc.capset(ctypes.byref(_CapHeader(_CAPABILITY_VERSION_3, 0)), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def _redirect_output(workdir: str, output: int) -> None:
    """Into the workdir (its tmpfs, where it has one); stdout and stderr into `output`, in the one the grader made."""
    os.chdir(workdir)
    null = os.open(os.devnull, os.O_RDONLY)
    for fd, target in ((0, null), (1, output), (2, output)):
        os.dup2(target, fd)
    os.close(null)
    os.close(output)
    # Not in a with: these stay open for the child's whole life, as its standard streams; the
    # __std*__ names too, what a submission would restore them from (typeshed calls them Final).
    sys.stdin = open(0, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", closefd=False, errors="backslashreplace")  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False, errors="backslashreplace", buffering=1)  # noqa: SIM115
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr  # type: ignore[misc]


def _shut_inherited(keep: set[int]) -> None:
    """Point every other inherited fd at /dev/null: the zygote's control socket first of all.

    Not closed: objects in this copy of the zygote still own those numbers, and closing
    them later would close whatever file had reused the number.
    """
    null = os.open(os.devnull, os.O_RDWR)
    for fd in map(int, os.listdir("/proc/self/fd")):  # the listing's own fd too: harmless
        if fd not in keep and fd != null:
            os.dup2(null, fd)
    os.close(null)


def _cap(limits: dict, own_user: bool) -> None:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[0])
    memory = pages * resource.getpagesize() + limits["memory_bytes"]
    cpu = int(limits["stage_seconds"]) + 6  # a backstop: the parent's wall clock comes first
    caps = [
        (resource.RLIMIT_AS, memory, memory),
        (resource.RLIMIT_FSIZE, limits["output_bytes"], limits["output_bytes"]),
        (resource.RLIMIT_CPU, cpu, cpu + 5),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    # Counted per real uid, threads included: with a uid of its own, the child's tasks alone;
    # else the grader's too, so the cap is what that uid runs now (this child among them) and
    # as many more as make the child's own PROCESSES.
    tasks = PROCESSES if own_user else _tasks_of(os.getuid()) + PROCESSES - 1
    caps.append((resource.RLIMIT_NPROC, tasks, tasks))
    for which, soft, hard in caps:
        resource.setrlimit(which, (soft, hard))


def _tasks_of(uid: int) -> int:
    """How many tasks (processes and threads) run as `uid`: what RLIMIT_NPROC counts."""
    count = 0
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and os.stat(f"/proc/{entry}").st_uid == uid:
                count += len(os.listdir(f"/proc/{entry}/task"))
        except OSError:  # it ended meanwhile
            continue
    return count


@functools.cache
def _can_unshare(namespace: int) -> bool:
    """Does this kernel (and container) let root make that namespace? Tried in a fork of this process."""
    pid = os.fork()
    if pid == 0:
        os._exit(0 if _libc.unshare(namespace) == 0 else 1)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


def _unshare(layers: Layers) -> None:
    """The namespaces of this child's own that `layers` name, in one call."""
    namespaces = (_CLONE_NEWIPC if layers.private_ipc else 0) | (_CLONE_NEWNS if layers.private_mounts else 0)
    if namespaces and _libc.unshare(namespaces) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"could not make the namespaces of a child: {os.strerror(error)}")


def tmpfs_bytes(most: int) -> int:
    """The size of the tmpfs a workdir of `most` bytes is: a page more (so the watch sees it over budget),
    in whole pages, as the kernel sizes it. The watch knows the child's tmpfs by it (budget.py)."""
    page = resource.getpagesize()
    return (most + 2 * page - 1) // page * page


def _own_workdir(workdir: str, made: int, most: int, uid: int | None) -> None:
    """Mount a tmpfs of `most` bytes (tmpfs_bytes) on the workdir, in this child's mount
    namespace, and copy into it what the grader put in the one it made (`made`): the private copy of the
    submission, its compiled code. The kernel counts and caps what it holds, named or not, and removes it
    all with the namespace's last process."""
    owner = "" if uid is None else f",uid={uid},gid={uid}"
    size = f"size={tmpfs_bytes(most)},nr_inodes={ENTRIES + 2},mode=0700{owner}"
    _mount("tmpfs", workdir, "tmpfs", _MS_NOSUID | _MS_NODEV, size)
    for name in set(os.listdir(made)) - {OUTPUT}:  # the grader's own files, made before the fork: regular, small
        source = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=made)
        with open(source, "rb") as copied, open(os.path.join(workdir, name), "xb") as copy:
            shutil.copyfileobj(copied, copy)


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def _set_mount_attributes(path: str, recursive: bool, read_only: bool) -> int:
    """mount_setattr(2) on the mount at `path` (and every mount below it, `recursive`): 0, or the errno."""
    attributes = _MountAttr(_MOUNT_ATTR_RDONLY if read_only else 0, 0 if read_only else _MOUNT_ATTR_RDONLY, 0, 0)
    flags = _AT_RECURSIVE if recursive else 0
    size = ctypes.sizeof(attributes)
    done = _libc.syscall(_MOUNT_SETATTR, _AT_FDCWD, _bytes(path), flags, ctypes.byref(attributes), size)
    return 0 if done == 0 else ctypes.get_errno()


@functools.cache
def can_make_read_only() -> bool:
    """Has this kernel mount_setattr(2) (Linux 5.12+), to make every mount of a child's namespace read-only?"""
    return _set_mount_attributes("", recursive=False, read_only=True) != errno.ENOSYS  # "": refused, if known


def _read_only_but(workdir: str) -> None:
    """Every mount of this child's namespace read-only but its workdir's tmpfs: without Landlock, it writes
    nowhere else, so it leaves no file anywhere (a world-writable /tmp, /dev/shm) that outlives it."""
    for path, read_only in (("/", True), (workdir, False)):
        failed = _set_mount_attributes(path, recursive=read_only, read_only=read_only)
        if failed:
            raise OSError(failed, f"could not make the mounts read-only at {path}: {os.strerror(failed)}")


def _cover_all(hidden: list[str], keep: list[str]) -> None:
    """In this child's mount namespace (made private), cover each hidden path but what is kept (see _cover)."""
    # A /proc of its own that shows only its own uid's processes: not the grader's command line.
    _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "hidepid=2")
    kept = [os.path.realpath(path) for path in keep]
    for path in hidden:
        _cover(os.path.realpath(path), kept)


def _cover(path: str, kept: list[str]) -> None:
    """Cover `path` with an empty read-only mount (a folder) or /dev/null (a file); where a kept path
    lies below it, cover each entry instead, down to the kept paths, which stay as they are."""
    if path in kept or not os.path.lexists(path) or os.path.islink(path):  # a link's target is covered, or not ours
        return
    if not any(keep.startswith(path + os.sep) for keep in kept):
        if os.path.isdir(path):
            _mount("tmpfs", path, "tmpfs", _COVERED, "size=4k,nr_inodes=1,mode=0555")
        elif os.path.isfile(path):
            _mount(os.devnull, path, None, _MS_BIND)
            _mount(None, path, None, _MS_REMOUNT | _MS_BIND | _COVERED)  # the bind, made read-only
        return
    for entry in os.listdir(path):
        _cover(os.path.join(path, entry), kept)


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str | None = None) -> None:
    if _libc.mount(_bytes(source), _bytes(target), _bytes(kind), flags, _bytes(data)) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"could not cover {target}: {os.strerror(error)}")


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else os.fsencode(text)
