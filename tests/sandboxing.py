"""What the sandbox tests share: submissions written on the spot, one call at a time, and what a run left behind."""

import os
import subprocess
import textwrap
from pathlib import Path

from grader.instructor.sandbox.session import MB, Limits, SandboxSession
from grader.instructor.sandbox.uids import UID_BASE

QUICK = Limits(answer_seconds=1, stage_seconds=30, memory_bytes=256 * MB, output_bytes=1 * MB)

# Hostile twists whose attack itself outlasts a test's short answer deadline, with the deadline
# they get instead: 1,100 mkdirs cost this machine's ext4 about 1.3 s of kernel time at import;
# six forks filling 150 MB each take over a second on a loaded machine.
# four forks filling 200 MB of shared memory each, and six files of 15 MB written, likewise;
# a flood of 900,000-character frames for every call of a 20-call request, on a machine under the
# load of a whole suite (twice "no answer within 1 s" there: the deadline, not the budget, stopped it).
SLOW_ATTACK_SECONDS = {
    "floods_the_grader": 10,
    "deep_directory": 10,
    "hoards_memory_in_forks": 10,
    "hoards_shared_memory_in_forks": 10,
    "holds_deleted_files": 10,
    "holds_unnamed_files": 10,
    "maps_deleted_files": 10,
}


def submission(folder: Path, source: str, name: str = "tools.py") -> Path:
    """A tools.py whose functions the tests call in the child (dedented source)."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source))
    return path


def session(path: Path, stage: int = 1, limits: Limits = QUICK, **more) -> SandboxSession:
    return SandboxSession(str(path), stage, limits, **more)


def call(box: SandboxSession, fn: str, *args, stage: int = 1) -> dict:
    """The outcome of one call of the submission's `fn` in the child: {"value": ...} or {"raised": ...}."""
    observation = box.request({"stage": stage, "calls": [{"fn": fn, "args": list(args)}]})
    return observation["results"][0] if "results" in observation else observation


def sandbox_processes() -> list[int]:
    """Processes running as a child's own uid: a submission's, which must not outlive its session."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            uid = uid_of(int(entry))
            if uid is not None and uid >= UID_BASE:
                found.append(int(entry))
    return found


def uid_of(pid: int) -> int | None:
    """The real uid process `pid` runs as; None once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    return int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1])


def gone(pid: int) -> bool:
    """Is there no process `pid` any more (not even a zombie)?"""
    return not os.path.exists(f"/proc/{pid}")


def ipc_objects() -> set[str]:
    """The IPC objects on this machine (its IPC namespace), by kind and id or name: System V's, and (as
    root) the POSIX message queues. None may outlive a session."""
    found = set()
    for kind in ("shm", "msg", "sem"):
        for line in Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]:
            found.add(f"{kind}:{line.split()[1]}")
    return found | {f"mq:{name}" for name in message_queues()}


# Lists the message queues of this IPC namespace: an mqueue file system mounted in a mount namespace of
# the listing process's own (so nothing is mounted where the tests run), on a folder every machine has.
_LIST_QUEUES = "mount -t mqueue mqueue /mnt && ls -A /mnt"


def message_queues() -> list[str]:
    """The POSIX message queues of this IPC namespace, by name (as root; none seen otherwise)."""
    if os.geteuid() != 0:
        return []
    listed = subprocess.run(["unshare", "--mount", "sh", "-c", _LIST_QUEUES], capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr  # the look must not fail silently
    return listed.stdout.split()
