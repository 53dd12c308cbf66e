"""The grader run as an unprivileged user: the hostile twists are contained without root.

A non-root grader gets no uid of its own for its children (so no sweep by uid, no IPC or
mount namespace): what holds is seccomp, Landlock, the process cap counted on the
grader's own uid, and the budgets watched over each child's tree. Each twist here is
graded by `python -m grader grade` running as a user of its own, and loses exactly the stages
tests/sandbox/test_trust_boundary.py's table says; the reference keeps 100; nothing of that user's
outlives the grade.

Such a user cannot read a Python under /root (pyenv's), so the grade runs on a system Python
of the same minor version, in a venv whose .pth file names this one's site-packages.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import agtool
from grader.instructor.sandbox.confine import Layers
from tests.sandbox.test_trust_boundary import CONTAINED, HOSTILE, cannot_contain
from tests.sandboxing import ipc_objects

pytestmark = pytest.mark.grader

USERS = 61000  # each test grades as a user of its own, from here up (tests run side by side)
ROOT = Path(agtool.__file__).resolve().parents[1]
REFERENCE = (ROOT / "agtool" / "tools.py").read_text()
SYSTEM_PYTHON = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"
TWISTS = sorted(
    {"background_processes", "deep_directory", "exits_as_not_confined", "fills_the_workdir", "floods_the_grader"}
    | {"fork_bomb", "hoards_memory_in_forks", "kills_the_grader", "system_v_ipc", "writes_outside", "reads_secrets"}
    | {"hoards_shared_memory_in_forks", "holds_deleted_files", "holds_unnamed_files", "posix_message_queue"}
    | {"maps_deleted_files"}
)

if os.geteuid() != 0 or not os.access(SYSTEM_PYTHON, os.X_OK):
    pytest.skip(f"needs root (to become another user) and {SYSTEM_PYTHON}", allow_module_level=True)


@pytest.fixture(scope="module")
def python(tmp_path_factory):
    """A Python any user can run, with this venv's packages and the repository on its path."""
    folder = Path(tempfile.mkdtemp(prefix="agtool-nonroot-", dir="/tmp"))
    folder.chmod(0o755)
    made = subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(folder / "venv")], capture_output=True)
    if made.returncode != 0:
        shutil.rmtree(folder)
        pytest.skip(f"{SYSTEM_PYTHON} makes no venv here: {made.stderr.decode(errors='replace').strip()[-200:]}")
    packages = subprocess.run(
        [str(folder / "venv" / "bin" / "python"), "-c", "import site; print(site.getsitepackages()[0])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = next(path for path in sys.path if path.endswith("site-packages") and os.path.isdir(path))
    Path(packages, "agtool-lab.pth").write_text(f"{ours}\n{ROOT}\n")
    yield str(folder / "venv" / "bin" / "python")
    shutil.rmtree(folder)


def user_of(name: str) -> int:
    return USERS + 1 + (["reference", *TWISTS].index(name))


def becoming(uid: int):
    def become() -> None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)

    return become


def processes_of(uid: int) -> list[int]:
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit() and _uid(entry) == uid]


def _uid(pid: str) -> int | None:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


def graded_as(uid: int, python: str, source: str) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="agtool-nonroot-", dir="/tmp"))
    try:
        folder.chmod(0o777)
        (folder / "tools.py").write_text(source)
        (folder / "tools.py").chmod(0o644)
        done = subprocess.run(
            [python, "-m", "grader", "grade", str(folder / "tools.py"), "--results", str(folder / "results.json")],
            env={"PATH": "/usr/bin:/bin", "HOME": str(folder), "LANG": "C.UTF-8"},
            cwd=folder,
            preexec_fn=becoming(uid),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        assert "uid kept" in done.stderr  # it did run as a user, not as root
        return json.loads((folder / "results.json").read_text())
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def stages_lost(results: dict) -> set[int]:
    return {int(test["number"].split(".")[0]) for test in results["tests"] if test["score"] < test["max_score"]}


def test_as_a_user_the_reference_keeps_every_point(python):
    results = graded_as(user_of("reference"), python, REFERENCE)
    assert results["score"] == 100, [test["output"][:300] for test in results["tests"] if test["status"] == "failed"]


@pytest.mark.parametrize("twist", TWISTS)
def test_as_a_user_a_hostile_submission_is_contained(python, twist):
    layers = Layers(drop_user=False, seccomp=Layers.here().seccomp, landlock=Layers.here().landlock)
    why = cannot_contain(twist, layers)
    if why:
        pytest.skip(f"{layers.describe()}: {why}")
    uid = user_of(twist)
    before = ipc_objects()
    results = graded_as(uid, python, REFERENCE + "\n\n" + (HOSTILE / f"{twist}.py").read_text())
    assert stages_lost(results) == set(CONTAINED[twist][0]), [
        test["output"][:300] for test in results["tests"] if test["status"] == "failed"
    ]
    assert processes_of(uid) == []  # nothing of the grade, its zygote or the submission is left
    assert ipc_objects() == before  # nor a System V object or a POSIX message queue
