"""A submission's budgets are its own, whatever it splits them over; nothing it does outlives its session.

Each test writes a tools.py that does what a hostile student would, through a real
SandboxSession: memory held by forked processes, files written into its folder, CPU
spent (and not spent: a stage's deadline is the child's CPU, so a busy neighbour costs
an honest child nothing), kernel objects that would outlive the child (System V IPC,
memfd, new namespaces and mounts), an exit code that would pass for the grader's own.
"""

import os
import time
from dataclasses import replace

import pytest

from grader.instructor.sandbox import budget, seccomp
from grader.instructor.sandbox.confine import Layers
from grader.instructor.sandbox.session import MB
from grader.instructor.sandbox.uids import UID_BASE
from grader.kit.errors import Crashed, GraderError, OverBudget, TimedOut
from tests.sandboxing import QUICK, call, ipc_objects, session, submission

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
        end = time.monotonic() + 2 * budget.EVERY  # the grader looks every EVERY seconds
        while time.monotonic() < end:
            call(box, "nothing")


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
