"""A submission's budgets are its own, whatever it splits them over; nothing it does outlives its session.

Each test writes a tools.py that does what a hostile student would, through a real
SandboxSession: memory held by forked processes, files written into its folder, CPU
spent (and not spent: a stage's deadline is the child's CPU, so a busy neighbour costs
an honest child nothing), kernel objects that would outlive the child (System V IPC,
memfd, new namespaces and mounts), an exit code that would pass for the grader's own.
"""

import contextlib
import os
import tempfile
import time
from dataclasses import replace

import pytest

from grader.instructor.sandbox import budget, seccomp
from grader.instructor.sandbox.confine import Layers
from grader.instructor.sandbox.session import MB
from grader.instructor.sandbox.uids import UID_BASE
from grader.kit.errors import Crashed, GraderError, OverBudget, TimedOut
from tests.sandboxing import QUICK, call, gone, ipc_objects, sandbox_processes, session, submission, uid_of

pytestmark = pytest.mark.grader

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="needs the grader to run as root")
SECCOMP = pytest.mark.skipif(seccomp.available() is not None, reason="needs a seccomp filter on this machine")


def test_an_exit_code_is_never_the_graders_word_on_confinement(tmp_path):
    """71 was the zygote's "could not confine": a child that exits with it is a crash, its own."""
    path = submission(tmp_path, "import os\ndef quit():\n    os._exit(71)\n")
    with session(path) as box, pytest.raises(Crashed, match="exit code 71"):
        call(box, "quit")


def test_a_child_that_cannot_put_its_layers_up_is_the_graders_failure_and_says_why(tmp_path):
    """A limit no rlimit can take makes confine.enter fail before any submission code runs: the child
    never says "confined", so its death is the sandbox's (GraderError, with the child's reason)."""
    path = submission(tmp_path, "def f():\n    return 1\n")
    impossible = replace(QUICK, memory_bytes=1 << 70)  # past what a C long holds
    with session(path, limits=impossible) as box, pytest.raises(GraderError, match=r"could not confine.*Error"):
        call(box, "f")


# The sleeps of these submissions are their workload: forks holding memory until they are stopped, and
# wait(seconds), the time a session is given for the grader's looks (every budget.EVERY s, on the clock
# by design) to stop it: a bound on an OverBudget that must come, not an ordering of events.
HOARD = """
    import os, time
    def hoard(children, mb):
        for _ in range(children):
            if os.fork() == 0:
                block = b"x" * (mb << 20)  # touched: resident, not just reserved
                time.sleep(60)
                os._exit(0)
        return "hoarding"
    def wait(seconds):
        time.sleep(seconds)
        return "waited"
"""


def test_memory_is_counted_over_every_process_of_a_submission(tmp_path):
    """Each fork is under the per-process cap (256 MB here); together they are over it."""
    with session(submission(tmp_path, HOARD), limits=replace(QUICK, answer_seconds=5)) as box:
        assert call(box, "hoard", 4, 100)["value"] == "hoarding"
        with pytest.raises(OverBudget, match="more than 256 MB of memory"):
            call(box, "wait", 4)


def test_a_submission_that_forks_within_its_memory_is_not_stopped(tmp_path):
    with session(submission(tmp_path, HOARD), limits=replace(QUICK, answer_seconds=5)) as box:
        assert call(box, "hoard", 2, 20)["value"] == "hoarding"
        assert call(box, "wait", 1)["value"] == "waited"


SHARES = """
    import mmap, os, time
    def share(children, mb):
        # One fork at a time: at no moment are more than mb MB private to one process.
        held, holding = os.pipe()
        for _ in range(children):
            if os.fork() == 0:
                block = mmap.mmap(-1, mb << 20)  # MAP_SHARED | MAP_ANONYMOUS: shmem, "shared" to statm
                for offset in range(0, len(block), 1 << 20):
                    block[offset : offset + (1 << 20)] = b"x" * (1 << 20)
                if os.fork() == 0:  # a holder that maps every page too: private to neither process
                    for offset in range(0, len(block), mmap.PAGESIZE):
                        block[offset]
                    os.write(holding, b"+")
                time.sleep(60)
                os._exit(0)
            os.read(held, 1)
        return "sharing"
    def wait(seconds):
        time.sleep(seconds)
        return "waited"
"""


def test_shared_anonymous_memory_held_across_forks_is_counted(tmp_path):
    """Three forks each map 120 MB of MAP_SHARED | MAP_ANONYMOUS memory and fork a holder of the same pages:
    360 MB against 256, in pages neither anonymous to statm nor private to any process."""
    box = session(submission(tmp_path, SHARES), limits=replace(QUICK, answer_seconds=10))
    with box, pytest.raises(OverBudget, match="more than 256 MB of memory"):
        call(box, "share", 3, 120)  # seen as the third fork fills its pages, or at the latest look after
        call(box, "wait", 2 * budget.EVERY)


def through_a_whole_look(box) -> None:
    """Ask for `nothing` until the grader's whole look (budget.py) has come: it comes EVERY seconds, on the
    clock by design, in the request that finds it due. No event to wait on, so 2 * EVERY seconds of requests:
    the look runs in this very thread, so a loaded machine delays it no further; a session over budget has
    raised OverBudget by then."""
    end = time.monotonic() + 2 * budget.EVERY
    while time.monotonic() < end:
        call(box, "nothing")


FILLS = """
    import os
    def fill(files, mb):
        os.mkdir("deep")
        for n in range(files):
            with open(os.path.join("deep", f"{n}.bin"), "wb") as out:
                out.write(b"x" * (mb << 20))
        return "filled"
    def nothing():
        return None
"""


def test_the_bytes_a_submission_writes_are_counted_over_all_its_files(tmp_path):
    """One file is capped at output_bytes (1 MB here); many files together at workdir_bytes."""
    limits = replace(QUICK, workdir_bytes=8 * MB)
    with session(submission(tmp_path, FILLS), limits=limits) as box, pytest.raises(OverBudget, match="MB of files"):
        call(box, "fill", 12, 1)
        through_a_whole_look(box)


UNNAMED = """
    import errno, os
    held = []
    def deleted(files, mb):
        for n in range(files):
            with open(f"held{n}", "wb") as out:
                out.write(b"x" * (mb << 20))
            held.append(os.open(f"held{n}", os.O_RDONLY))
            os.unlink(f"held{n}")
        return "held"
    def tmpfile(files, mb):
        for _ in range(files):
            fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600)
            held.append(fd)
            os.write(fd, b"x" * (mb << 20))
        return "held"
    def mapped(files, mb):
        import ctypes, mmap
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        for n in range(files):
            with open(f"mapped{n}", "wb") as out:
                out.write(b"x" * (mb << 20))
            fd = os.open(f"mapped{n}", os.O_RDWR)
            held.append(libc.mmap(None, mb << 20, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0))  # no fd of its own
            os.close(fd)
            os.unlink(f"mapped{n}")
        return "held"
    def until_refused(mb):
        written, names = 0, []
        try:
            while True:
                names.append(f"fill{len(names)}")
                with open(names[-1], "wb") as out:
                    out.write(b"x" * (mb << 20))
                written += mb << 20
        except OSError as error:
            refused = errno.errorcode[error.errno]
        for name in names:
            if os.path.exists(name):
                os.unlink(name)
        return [written, refused]
    def nothing():
        return None
"""
# The workdir as root where a mount namespace can be made (a tmpfs of the budget's size, the kernel's
# count), and where it cannot (Docker's default profile; a grader not root): the open files' blocks.
WORKDIRS = {"its-own-tmpfs": True, "no-mount-namespace": False}


def workdir_layers(own_tmpfs: bool) -> Layers:
    layers = Layers.here()
    if own_tmpfs and not layers.private_mounts:
        pytest.skip("a tmpfs of its own needs root and a mount namespace")
    return replace(layers, private_mounts=own_tmpfs)


@pytest.mark.parametrize("workdir", WORKDIRS)
@pytest.mark.parametrize(
    "how", ["deleted", "tmpfile", "mapped"], ids=["deleted-while-open", "O_TMPFILE", "mapped-then-deleted"]
)
def test_files_without_a_name_count_against_the_workdir(how, workdir, tmp_path):
    """Twelve files of 1 MB (the per-file cap here), each deleted while open, made without a name, or
    deleted once mapped and closed: no walk of the workdir's names sees them, and they hold 12 MB against
    its 8. (Outside a tmpfs of its own, the whole look counts them, every budget.EVERY seconds.)"""
    box = session(
        submission(tmp_path, UNNAMED),
        limits=replace(QUICK, workdir_bytes=8 * MB),
        layers=workdir_layers(WORKDIRS[workdir]),
    )
    with box, pytest.raises(OverBudget, match="more than 8 MB of files"):
        call(box, how, 12, 1)
        through_a_whole_look(box)


def test_in_a_tmpfs_of_its_own_the_kernel_refuses_a_write_past_the_workdirs_budget(tmp_path):
    limits = replace(QUICK, workdir_bytes=8 * MB)
    with session(submission(tmp_path, UNNAMED), limits=limits, layers=workdir_layers(True)) as box:
        written, refused = call(box, "until_refused", 1)["value"]
        assert refused == "ENOSPC" and 7 * MB <= written <= 8 * MB
        assert call(box, "nothing") == {"value": None, "runs": {}}  # all of it freed: within budget again


SPINS = """
    import time
    def nap(seconds):
        time.sleep(seconds)
        return "rested"
    def spin(seconds):
        end = time.process_time() + seconds
        while time.process_time() < end:
            pass
        return "spun"
"""


def test_a_stage_deadline_counts_the_childs_cpu_not_the_wall_clock(tmp_path):
    """Waiting costs nothing of a stage's budget (a neighbour's CPU hog is a wait); spinning does."""
    limits = replace(QUICK, answer_seconds=5, stage_seconds=1)
    with session(submission(tmp_path, SPINS), limits=limits) as box:
        for _ in range(3):  # 1.8 s of wall clock, no CPU
            assert call(box, "nap", 0.6)["value"] == "rested"
        with pytest.raises(TimedOut, match="over 1 s of CPU"):
            call(box, "spin", 2)


SURFACE = """
    import ctypes, errno, os
    libc = ctypes.CDLL(None, use_errno=True)
    CALLS = {  # x86_64 numbers
        "memfd_create": (319, (b"x", 0)),
        "shmget": (29, (0, 1 << 20, 0o1666)),
        "msgget": (68, (0, 0o1666)),
        "semget": (64, (0, 1, 0o1666)),
        "clone new user and mount namespaces": (56, (0x10000000 | 0x00020000 | 17, 0, 0, 0, 0)),
        "clone3": (435, (0, 0)),
        "fsopen": (430, (b"tmpfs", 0)),
        "open_tree": (428, (-100, b"/", 1)),
        "unshare": (272, (0x08000000,)),
        "mq_open": (240, (b"agtool-probe", 0o100 | 2, 0o600, 0)),
    }
    def probe():
        said = {}
        for name, (number, args) in CALLS.items():
            ctypes.set_errno(0)
            result = libc.syscall(number, *args)
            if result == 0 and name.startswith("clone"):
                os._exit(0)  # a child got through: it ends at once
            said[name] = "worked" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
        return said
"""


@SECCOMP
@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the probe uses x86_64 system call numbers")
def test_the_kernel_surface_a_submission_never_needs_is_refused(tmp_path):
    with session(submission(tmp_path, SURFACE)) as box:
        said = call(box, "probe")["value"]
    assert said == {name: "EPERM" for name in said} | {"clone3": "ENOSYS"}


IPC = """
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    def leave(key):
        return [libc.shmget(key, 1 << 20, 0o1666), libc.msgget(key, 0o1666), libc.semget(key, 1, 0o1666)]
"""


@ROOT_ONLY
def test_no_system_v_object_outlives_its_session_even_without_seccomp(tmp_path):
    """With the filter off, a root grader still gives each child an IPC namespace of its own."""
    before = ipc_objects()
    layers = replace(Layers.here(), seccomp=False)
    with session(submission(tmp_path, IPC), layers=layers) as box:
        ids = call(box, "leave", 0x41470001)["value"]
    assert min(ids) >= 0  # each made its object (in a namespace of its own)
    assert ipc_objects() == before


LEAVES = """
    import ctypes, os, time
    libc = ctypes.CDLL(None, use_errno=True)
    def leave(key, queue):
        made = {
            "shm": libc.shmget(key, 1 << 20, 0o1666),
            "msg": libc.msgget(key, 0o1666),
            "sem": libc.semget(key, 1, 0o1666),
            "mq": libc.mq_open(queue.encode(), os.O_CREAT | os.O_RDWR, 0o666, None),
        }
        with open("named", "wb") as out:
            out.write(b"x" * 4096)
        for folder in ("/tmp", "/var/tmp", "/dev/shm"):  # where every user may write
            try:
                with open(f"{folder}/agtool-lab-left-{os.getuid()}", "w") as out:
                    out.write("left behind")
            except OSError:
                pass
        unnamed = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600)
        os.write(unnamed, b"x" * 4096)
        said, say = os.pipe()
        if os.fork() == 0:  # a daemon in a session of its own, holding the unnamed file
            os.setsid()
            if os.fork() == 0:
                os.write(say, str(os.getpid()).encode())
                time.sleep(60)
            os._exit(0)
        made["daemon"] = int(os.read(said, 32))
        return made
"""
# The layers a session is looked at under: this kernel's; without seccomp (as root, an IPC namespace
# then holds what it makes); without Landlock (as root, the mount namespace then covers the grader); neither.
LEFTOVER_LAYERS = {
    "kernel": lambda: Layers.here(),
    "no-seccomp": lambda: replace(Layers.here(), seccomp=False),
    "no-landlock": lambda: Layers.here(landlock_cap=0),
    "neither": lambda: replace(Layers.here(landlock_cap=0), seccomp=False),
}


def owned_by(uid: int) -> list[str]:
    """What `uid` owns at the top of the folders every user may write in."""
    found = []
    for folder in {tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm"}:
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            found += [entry.path for entry in entries if entry.stat(follow_symlinks=False).st_uid == uid]
    return found


@pytest.mark.parametrize("which", LEFTOVER_LAYERS)
def test_a_session_leaves_nothing_behind(which, tmp_path):
    """A submission leaves a daemon holding a file without a name, files named in its workdir and wherever every
    user may write, System V objects and a POSIX message queue: after its session, no process, file or IPC
    object of it is left, of any kind."""
    layers = LEFTOVER_LAYERS[which]()
    if not layers.seccomp and not layers.private_ipc:
        pytest.skip("without seccomp or an IPC namespace, IPC objects outlive a child (Layers.missing says so)")
    before = ipc_objects()
    with session(submission(tmp_path, LEAVES), layers=layers) as box:
        made = call(box, "leave", 0x41470002, "/agtool-lab-leftover-test")["value"]
        uid, workdir = box.uid, box.workdir
    # Made (in its own IPC namespace), or refused: System V's by seccomp, a queue by seccomp or Landlock (a file
    # made outside the workdir, to it).
    system_v = [made.pop(kind) for kind in ("shm", "msg", "sem")]
    assert all(each >= 0 for each in system_v) if not layers.seccomp else system_v == [-1] * 3
    assert (made.pop("mq") >= 0) == (not layers.seccomp and not layers.landlock)
    assert gone(made["daemon"]) and gone(box.pid)
    assert not os.path.exists(workdir) and box.cleanup_problem is None
    assert ipc_objects() == before
    if uid is not None:
        assert uid not in {uid_of(pid) for pid in sandbox_processes()}
        assert owned_by(uid) == []


@ROOT_ONLY
def test_a_childs_uid_is_never_one_an_earlier_child_had(tmp_path):
    """uids come from a lease of the zygote's, counted up: not from the pid, which the kernel reuses."""
    path = submission(tmp_path, "def me():\n    import os\n    return os.getuid()\n")
    uids = []
    for _ in range(3):
        with session(path) as box:
            assert box.uid is not None and box.uid >= UID_BASE and box.uid != UID_BASE + box.pid
            assert call(box, "me")["value"] == box.uid
            uids.append(box.uid)
    assert len(set(uids)) == len(uids) and uids == sorted(uids)
