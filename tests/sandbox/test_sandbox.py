"""The sandbox's transport and containment, with small submissions written on the spot.

Everything that runs in the child is a submission's: each test writes a tools.py whose
functions do what a hostile student would, and calls them through a real SandboxSession.
"""

import json
import math
import os
import socket
import threading
import time
from pathlib import Path

import pytest

import agtool
import grader as grader_package
from grader.instructor.sandbox import landlock
from grader.instructor.sandbox import session as session_module
from grader.instructor.sandbox.confine import Layers
from grader.kit.boundary import channel
from grader.kit.errors import ChannelBroken, Crashed, GraderError, SessionDied, TimedOut
from tests.processes import wait_ended
from tests.sandboxing import call, gone, sandbox_processes, session, submission, uid_of

pytestmark = pytest.mark.grader

REPOSITORY = Path(agtool.__file__).resolve().parents[1]
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="the uid layer needs the grader to run as root")


def needs_landlock(version):
    return pytest.mark.skipif(
        landlock.abi() < version, reason=f"needs Landlock ABI {version}; this kernel has {landlock.abi()}"
    )


@pytest.fixture
def box(tmp_path, request):
    """A session over the submission the test's `source` marker gives."""
    source = request.node.get_closest_marker("source").args[0]
    with session(submission(tmp_path / "student", source)) as opened:
        yield opened


# ── the channel ──────────────────────────────────────────────────────────────


def _frames(data: bytes) -> list:
    found = []
    while data:
        (size,) = channel.FRAME.unpack(data[: channel.FRAME.size])
        found.append(json.loads(data[channel.FRAME.size : channel.FRAME.size + size]))
        data = data[channel.FRAME.size + size :]
    return found


def test_a_requests_frames_reach_the_grader_in_one_write_and_a_body_run_is_asked_at_once(monkeypatch):
    # One wake-up of the grader a request, not one a frame (most of what a small request costs); but
    # nothing the grader must answer is held back: a body run goes at once, with the frames before it.
    class Child:
        def __init__(self, path, bind, body, code):
            self.body = body

        def answer(self, request, emit):
            emit({"value": 1})
            emit({"value": 2})
            emit({"value": self.body("t")})

    real_write, writes = os.write, []

    def write(fd, data):
        if threading.current_thread() is not threading.main_thread():
            writes.append(bytes(data))
        return real_write(fd, data)

    monkeypatch.setattr(channel.os, "write", write)
    requests, to_child = os.pipe()
    from_child, answers = os.pipe()
    child = threading.Thread(target=channel.serve, args=(Child, "", None, requests, answers))
    child.start()
    try:
        real_write(to_child, channel.frame({"calls": [{}, {}, {}]}))
        assert _frames(os.read(from_child, 1 << 16)) == [{"value": 1}, {"value": 2}, {"body": "t"}]
        real_write(to_child, channel.frame("three"))
        assert _frames(os.read(from_child, 1 << 16)) == [{"value": "three"}]
    finally:
        os.close(to_child)
        child.join(10)
    assert [_frames(each) for each in writes] == [[{"value": 1}, {"value": 2}, {"body": "t"}], [{"value": "three"}]]


@pytest.mark.source("""
    def echo(x):
        return {"x": x, "nan": float("nan"), "inf": float("-inf")}
""")
def test_values_cross_as_json_with_nan_and_infinities(box):
    for n in range(3):
        value = call(box, "echo", {"n": n, "text": "ü", "big": math.inf})["value"]
        assert value["x"] == {"n": n, "text": "ü", "big": math.inf}
        assert math.isnan(value["nan"]) and value["inf"] == -math.inf


FORGE = """
    import json, os, stat, struct

    def channel_ends():
        return [fd for fd in range(3, 64) if _is_pipe(fd)]

    def _is_pipe(fd):
        try:
            return stat.S_ISFIFO(os.fstat(fd).st_mode)
        except OSError:
            return False

    def forge(frames):
        data = b"".join(struct.pack(">I", len(text)) + text for text in (json.dumps(f).encode() for f in frames))
        for fd in channel_ends():
            try:
                os.write(fd, data)
            except OSError:
                pass
        return "forged"
"""


@pytest.mark.source(
    FORGE
    + """
    def printed():
        print(json.dumps({"value": "forged"}))
        return "printed"
"""
)
def test_printing_a_frame_cannot_forge_an_outcome(box):
    assert call(box, "printed") == {"value": "printed", "runs": {}}


@pytest.mark.parametrize(
    "frames",
    [
        [{"results": []}],  # the old protocol's empty list
        [{"value": 1, "runs": {}}],  # an outcome with more than its one key
        [{"raised": 3}],  # a reason that is not text
        [[1, 2]],  # not a dict at all
        [{"body": "no such tool"}],  # a body the request never gave
        [{"value": 1}, {"value": 2}],  # more outcomes than calls: the next request reads them
    ],
)
def test_forged_frames_on_the_channel_break_it_with_a_clear_message(tmp_path, frames):
    with session(submission(tmp_path, FORGE)) as box:
        with pytest.raises(ChannelBroken):
            call(box, "forge", frames)
            call(box, "forge", [])  # the stale frames of the first call are this one's
        with pytest.raises(ChannelBroken):
            call(box, "forge", [])  # and the session stays dead


@pytest.mark.source("""
    def nothing():
        return None
""")
def test_a_closed_session_refuses_requests_and_close_is_idempotent(box):
    assert call(box, "nothing")["value"] is None
    box.close()
    box.close()
    with pytest.raises(SessionDied):
        call(box, "nothing")
    assert gone(box.pid)


# ── deadlines and deaths ─────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "source, error, words",
    [
        ("def spin():\n    while True:\n        pass\n", TimedOut, "no answer within 1 s"),
        (
            "import signal\n"
            "def spin():\n"
            "    for s in (signal.SIGTERM, signal.SIGINT):\n"
            "        signal.signal(s, signal.SIG_IGN)\n"
            "    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM, signal.SIGINT])\n"
            "    while True:\n"
            "        pass\n",
            TimedOut,
            "no answer within 1 s",
        ),
        ("import os\ndef spin():\n    os._exit(3)\n", Crashed, "exit code 3"),
        ("import ctypes\ndef spin():\n    ctypes.string_at(0)\n", Crashed, "segmentation fault"),
        ("def spin():\n    while True:\n        print('x' * 10000)\n", Crashed, "wrote more than 1 MB"),
        ("def spin():\n    raise KeyboardInterrupt\n", Crashed, "nothing could catch"),
        # An interrupt that says it is a ValueError (isinstance reads __class__; an except clause reads the type):
        # still one nothing may catch, as the exception it is.
        (
            "class Disguised(KeyboardInterrupt):\n"
            "    __class__ = property(lambda self: ValueError)\n"
            "def spin():\n"
            "    raise Disguised\n",
            Crashed,
            "nothing could catch",
        ),
    ],
)
def test_a_child_that_hangs_or_dies_is_reported_in_words_a_student_can_act_on(tmp_path, source, error, words):
    with session(submission(tmp_path, source)) as box:
        with pytest.raises(error, match=words):
            call(box, "spin")
        with pytest.raises(error):  # the same error at once, for every later request
            call(box, "spin")


@pytest.mark.source("""
    def grab():
        try:
            bytearray(400 * 1024 * 1024)
        except MemoryError:
            return "refused"
        return "granted"
""")
def test_memory_beyond_the_cap_is_refused_inside_the_child(box):
    assert call(box, "grab")["value"] == "refused"


# ── what the child is and what it has ────────────────────────────────────────


@pytest.mark.source("""
    import os, sys
    def identity():
        def read(path):
            try:
                return open(path, "rb").read().decode(errors="replace")
            except OSError as error:
                return type(error).__name__
        return {"uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(), "argv": sys.argv,
                "environ": dict(os.environ), "parent_cmdline": read(f"/proc/{os.getppid()}/cmdline"),
                "grader_cmdline": read(f"/proc/{os.getppid()}/cmdline")}
""")
def test_the_child_has_no_argv_no_environment_and_no_seed(box):
    seen = call(box, "identity")["value"]
    assert seen["argv"] == [os.path.join(box.workdir, "tools.py")]
    assert seen["environ"] == {"TMPDIR": box.workdir}
    assert "--seed" not in str(seen) and "pytest" not in str(seen)
    if Layers.here().drop_user:
        assert seen["uid"] == seen["gid"] == box.uid and seen["uid"] >= 1_000_000_000
        assert seen["groups"] == []


@ROOT_ONLY
@pytest.mark.source("""
    import fcntl, os, resource, struct
    def escalate():
        tried = {}
        with open("mine.txt", "w") as mine:
            try:   # chattr +i: FS_IOC_SETFLAGS with FS_IMMUTABLE_FL
                fcntl.ioctl(mine.fileno(), 0x40086602, struct.pack("l", 0x10))
                tried["immutable"] = "granted"
            except OSError as error:
                tried["immutable"] = type(error).__name__
        soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
        try:
            resource.setrlimit(resource.RLIMIT_NPROC, (hard + 1, hard + 1))
            tried["rlimit"] = "granted"
        except (ValueError, OSError) as error:
            tried["rlimit"] = type(error).__name__
        try:
            os.setuid(0)
            tried["root"] = "granted"
        except OSError as error:
            tried["root"] = type(error).__name__
        return tried
""")
def test_as_root_the_child_has_no_privilege_left(box):
    tried = call(box, "escalate")["value"]
    assert "granted" not in tried.values(), tried
    box.close()
    assert not os.path.exists(box.workdir) and box.cleanup_problem is None


def _grader_objects() -> str:
    return """
    import gc, sys
    def holds():
        names = sorted(name for name in sys.modules if name.startswith("grader"))
        functions = sorted({f"{obj.__module__}.{obj.__qualname__}" for obj in gc.get_objects()
                            if callable(obj) and str(getattr(obj, "__module__", "")).startswith("grader")})
        frames, frame = [], sys._getframe()
        while frame is not None:
            frames += [key for key, value in frame.f_globals.items()
                       if getattr(value, "__name__", "").startswith("grader.")]
            frame = frame.f_back
        return {"modules": names, "functions": functions, "frames": sorted(set(frames))}
    """


@pytest.mark.parametrize("stage", [1, 2, 3, 4, 5, 6])
def test_a_child_holds_the_trusted_code_of_earlier_stages_only(tmp_path, stage):
    with session(submission(tmp_path, _grader_objects()), stage=stage) as box:
        held = call(box, "holds", stage=stage)["value"]
    trusted = {f"grader.instructor.trusted.{name}" for name in ("args", "results", "door", "memo")}
    allowed = {
        f"grader.instructor.trusted.{name}"
        for number, name in {2: "args", 3: "results", 4: "door", 5: "memo"}.items()
        if number < stage
    }
    assert set(held["modules"]) & trusted == allowed
    for secret in (
        "grader.instructor.oracle",
        "grader.kit.checks",
        "grader.kit.oracle_access",
        "grader.kit.probing",
        "grader.kit.grading",
        "grader.instructor.sandbox.session",
        "hypothesis",
    ):
        assert not any(name == secret or name.startswith(secret + ".") for name in held["modules"]), secret
        assert not any(name.startswith(secret + ".") for name in held["functions"]), secret
    assert not any(name.startswith(tuple(trusted - allowed)) for name in held["functions"])


# ── what the kernel refuses ──────────────────────────────────────────────────

ATTEMPT = """
    import os, socket
    from pathlib import Path
    def attempt(action, *args):
        try:
            ACTIONS[action](*args)
        except (PermissionError, OSError) as error:
            return "refused: " + type(error).__name__
        return "done"
    ACTIONS = {
        "read": lambda path: Path(path).read_bytes(),
        "list": lambda path: os.listdir(path),
        "write": lambda path: Path(path).write_text("x"),
        "tcp": lambda port: socket.create_connection(("127.0.0.1", port), timeout=1).close(),
        "udp": lambda port: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", port)),
        "unix": lambda path: socket.socket(socket.AF_UNIX).connect(path),
        "kill": lambda pid: os.kill(pid, 0),
    }
"""


@needs_landlock(1)
def test_the_child_may_write_only_in_its_working_directory(tmp_path):
    with session(submission(tmp_path / "student", ATTEMPT)) as box:
        assert call(box, "attempt", "write", str(tmp_path / "escape.txt"))["value"].startswith("refused")
        assert call(box, "attempt", "write", "inside.txt")["value"] == "done"
        assert call(box, "attempt", "write", os.devnull)["value"] == "done"
    assert not (tmp_path / "escape.txt").exists()


@needs_landlock(1)
def test_the_child_reads_an_allow_list_only(tmp_path):
    classmate = submission(tmp_path / "alice", "SECRET = 'alice'\n")
    secrets = [
        REPOSITORY / "grader" / "instructor" / "oracle.py",
        REPOSITORY / "agtool" / "tools.py",
        REPOSITORY / ".git" / "HEAD",
        classmate,
        tmp_path / "student" / "tools.py",
        f"/proc/{os.getpid()}/cmdline",
        "/etc/shadow",
    ]
    with session(submission(tmp_path / "student", ATTEMPT)) as box:
        for secret in secrets:
            assert call(box, "attempt", "read", str(secret))["value"].startswith("refused"), secret
        for folder in (REPOSITORY, tmp_path, "/tmp"):
            assert call(box, "attempt", "list", str(folder))["value"].startswith("refused"), folder
        for allowed in (os.path.join(box.workdir, "tools.py"), socket.__file__, pytest.__file__):
            assert call(box, "attempt", "read", allowed)["value"] == "done", allowed


PEEK = """
    import os
    def peek(path):
        try:
            with open(path, errors="replace") as file:
                return file.read(4000)
        except OSError as error:
            return f"refused: {error.strerror}"
    def listing(path):
        try:
            return os.listdir(path)
        except OSError as error:
            return f"refused: {error.strerror}"
"""


@ROOT_ONLY
@pytest.mark.skipif(not Layers.here().private_mounts, reason="needs a mount namespace (root, a kernel that allows it)")
def test_without_landlock_a_mount_namespace_covers_the_grader_the_class_and_its_outputs(tmp_path):
    """What Landlock's allow-list does, done by covering: the repository (but for the venv's
    site-packages), the submission's folder, the class and OUT read as empty; /proc shows the
    child's own processes only, so not the grader's command line (its --seed)."""
    folder, out = tmp_path / "class", tmp_path / "out"
    classmate = submission(folder, "SECRET = 'alice-secret'\n", name="alice.py")
    feedback = submission(out / "alice", "feedback-secret\n", name="feedback.md")
    student = submission(folder / "mallory", PEEK)
    secrets = {
        REPOSITORY / "grader" / "instructor" / "oracle.py": "def ",
        REPOSITORY / "agtool" / "tools.py": "BEGIN SOLUTION",
        REPOSITORY / ".git" / "HEAD": "ref:",
        classmate: "alice-secret",
        feedback: "feedback-secret",
        student: "def peek",
        Path(f"/proc/{os.getpid()}/cmdline"): "pytest",
    }
    layers = Layers.here(landlock_cap=0)
    with session(student, layers=layers, hidden=(str(folder), str(out))) as box:
        for secret, words in secrets.items():
            assert words not in call(box, "peek", str(secret))["value"], secret
        for covered in (REPOSITORY / "grader", folder, out):
            assert call(box, "listing", str(covered))["value"] in ([], "refused: Permission denied"), covered
        # Not socket.__file__: without Landlock the child keeps no capability to read past modes,
        # and a Python under /root (pyenv) is for root alone; what it imports is preloaded.
        for allowed in (os.path.join(box.workdir, "tools.py"), pytest.__file__):
            assert not call(box, "peek", allowed)["value"].startswith("refused"), allowed
        assert "import" in call(box, "peek", pytest.__file__)["value"]  # the venv inside the repository: kept


@pytest.mark.parametrize("kind", ["tcp", "udp", "unix"])
def test_the_child_has_no_network_of_any_kind(tmp_path, kind):
    if not Layers.here().seccomp and landlock.abi() < 4:
        pytest.skip("neither seccomp nor Landlock 4 on this machine")
    family, type_ = {
        "tcp": (socket.AF_INET, socket.SOCK_STREAM),
        "udp": (socket.AF_INET, socket.SOCK_DGRAM),
        "unix": (socket.AF_UNIX, socket.SOCK_STREAM),
    }[kind]
    with socket.socket(family, type_) as server:
        if kind == "unix":
            address = str(tmp_path / "listening.sock")
            server.bind(address)
            os.chmod(address, 0o777)
        else:
            server.bind(("127.0.0.1", 0))
            address = server.getsockname()[1]
        if type_ == socket.SOCK_STREAM:
            server.listen()
        server.settimeout(0.5)
        with session(submission(tmp_path / "student", ATTEMPT)) as box:
            assert call(box, "attempt", kind, address)["value"].startswith("refused")
        with pytest.raises((socket.timeout, BlockingIOError, OSError)):
            server.recv(1) if kind == "udp" else server.accept()


@pytest.mark.parametrize("scope", [None, 5, 0], ids=["kernel", "landlock-5-no-signal-scope", "no-landlock"])
def test_the_child_cannot_signal_the_grader_or_its_zygote(tmp_path, scope):
    layers = Layers.here(landlock_cap=scope)
    if layers.missing() and not layers.confines_writes_and_signals():
        pytest.skip("this machine cannot keep a child from signalling the grader (see Layers.missing)")
    with session(submission(tmp_path, ATTEMPT), layers=layers) as box:
        for pid in (os.getpid(), box._zygote.process.pid, 1):
            assert call(box, "attempt", "kill", pid)["value"].startswith("refused"), pid


@ROOT_ONLY
def test_without_landlock_the_uid_alone_keeps_results_json_unforged(tmp_path):
    results = tmp_path / "results"
    results.mkdir(mode=0o755)
    (results / "results.json").write_text('{"score": 0}')
    with session(submission(tmp_path / "student", ATTEMPT), layers=Layers.here(landlock_cap=0)) as box:
        assert call(box, "attempt", "write", str(results / "results.json"))["value"].startswith("refused")
        assert call(box, "attempt", "write", str(results / "other.json"))["value"].startswith("refused")
    assert (results / "results.json").read_text() == '{"score": 0}' and not (results / "other.json").exists()


def test_the_layers_say_what_this_machine_lacks():
    full = Layers(drop_user=True, seccomp=True, landlock=7)
    assert full.missing() == [] and full.confines_writes_and_signals()
    bare = Layers(drop_user=False, seccomp=False, landlock=0)
    said = " ".join(bare.missing())
    assert "same user" in said and "sockets" in said and "no Landlock" in said and "signal the grader" in said
    assert "System V objects and POSIX message queues a child makes outlive it" in said
    assert not bare.confines_writes_and_signals()
    assert "signal scoping" in " ".join(Layers(drop_user=True, seccomp=True, landlock=5).missing())


@pytest.mark.source("""
    import threading
    def threads():
        return threading.active_count()
""")
def test_every_child_forks_from_a_zygote_of_one_thread(box):
    # The zygote runs a LangGraph graph before its first fork (zygote._warm_langgraph): a thread left
    # by that would be missing from every fork, and any lock it held would stay held there forever.
    zygote = box._zygote.process.pid
    assert os.listdir(f"/proc/{zygote}/task") == [str(zygote)]
    assert call(box, "threads")["value"] == 1


def test_the_grader_package_of_the_repository_is_what_the_zygote_imports():
    # The zygote is started with PYTHONPATH at this very checkout: a kit or another
    # install beside it cannot lend it different code.
    from grader.instructor.sandbox.session import ROOT

    assert Path(grader_package.__file__).resolve().parents[1] == ROOT


def _kill_the_zygote(box, child: int) -> bool:
    """Kill the zygote of box: did its child die with it (within 10 s)? Then wait (10 s at most) for the
    child to be reaped too: an orphan goes to init, and a zombie of its uid left for the next test (whose
    new zygote may lease the same uids) would be counted there as a process left behind."""
    box._zygote.process.kill()
    box._zygote.process.wait()
    died = not wait_ended([child], 10)
    # Polled: init reaps its orphans in its own time and tells no one (only a parent can wait on a child).
    for _ in range(200):
        if gone(child):
            break
        time.sleep(0.05)
    return died


@pytest.mark.source("""
    import os
    def pid():
        return os.getpid()
""")
def test_a_child_dies_with_its_zygote_even_after_it_changed_uid(box):
    # A change of uid clears the parent-death signal; the child sets it again after it.
    child = call(box, "pid")["value"]
    assert _kill_the_zygote(box, child)


@pytest.mark.source("""
    import os
    def pid():
        return os.getpid()
""")
def test_a_child_gone_with_its_zygote_between_two_requests_is_the_graders_failure(box):
    """Its channel is at its end before the next request: that is no frame sent unasked for (the
    student's), but the zygote's death (the grader's), and the grade is done again from the start."""
    child = call(box, "pid")["value"]
    assert _kill_the_zygote(box, child)
    with pytest.raises(GraderError, match="zygote ended"):
        call(box, "pid")


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        found.update(map(int, Path(f"/proc/{pid}/task/{task}/children").read_text().split()))
    return found


@ROOT_ONLY
def test_a_zygote_whose_sweeper_died_sweeps_by_itself_and_keeps_serving(tmp_path):
    """The sweeper is the zygote's one child besides its sessions: if it dies, a reap sweeps from the zygote."""
    import signal

    path = submission(
        tmp_path / "student",
        """
        import os, signal, time
        def linger():
            if os.fork() == 0:
                os.setsid()
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                time.sleep(600)
            return os.getpid()
        """,
    )
    first = session(path)
    zygote = first._zygote.process.pid
    (sweeper,) = _children(zygote) - {first.pid}
    os.kill(sweeper, signal.SIGKILL)
    assert not wait_ended([sweeper], 60)  # dead: a zombie, until its zygote's next reap
    assert call(first, "linger")["value"] == first.pid
    first.close()
    assert first.uid not in {uid_of(pid) for pid in sandbox_processes()}
    with session(path) as second:
        assert second._zygote.process.pid == zygote  # the same zygote: it did not die of the broken pipe
        assert call(second, "linger")["value"] == second.pid


def test_a_link_that_stops_reading_before_its_answer_costs_the_zygote_nothing():
    """A pool worker stopped between its order and the zygote's answer: the answer cannot be sent.
    The zygote drops that link (ending its sessions) and goes on serving its grader."""
    owner = session_module.Zygote()
    try:
        link = owner.link()
        link.control.shutdown(socket.SHUT_RD)  # the zygote's answer now fails with EPIPE, every time
        link.control.send(b'{"op": "reap", "pid": -1, "uid": null}')
        assert owner.ask({"op": "reap", "pid": -1, "uid": None})["status"] == 0
        assert owner.alive()
    finally:
        owner.close()


def test_a_workdir_of_any_depth_is_removed_without_following_links(tmp_path):
    """A tree deeper than Python's recursion limit and longer than PATH_MAX goes; a link out stays unfollowed."""
    from grader.instructor.sandbox.zygote import remove

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "kept").write_text("not the child's")
    workdir = tmp_path / "workdir"
    workdir.mkdir()
    (workdir / "link").symlink_to(outside)
    level = os.open(workdir, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(3000):  # 3000 levels of "d/": 6 kB of path, past PATH_MAX and the recursion limit
        os.mkdir("d", dir_fd=level)
        os.close(os.open("f", os.O_CREAT | os.O_WRONLY, dir_fd=level))
        deeper = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=level)
        os.close(level)
        level = deeper
    os.close(level)
    assert remove(str(workdir)) is None
    assert not workdir.exists() and (outside / "kept").read_text() == "not the child's"
    assert remove(str(workdir)) is None  # gone already: nothing to say


def test_a_workdir_that_will_not_go_is_said_not_raised(tmp_path, monkeypatch):
    from grader.instructor.sandbox import zygote

    workdir = tmp_path / "workdir"
    (workdir / "inner").mkdir(parents=True)
    (workdir / "inner" / "f").write_text("")

    def refuse(name, *, dir_fd=None):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(zygote.os, "unlink", refuse)
    said = zygote.remove(str(workdir))
    assert said == f"could not remove {workdir / 'inner' / 'f'}: Operation not permitted"
    assert (workdir / "inner" / "f").exists()


def test_a_directory_moved_out_mid_removal_never_leads_the_walk_out_of_the_tree(tmp_path, monkeypatch):
    """A live process of the child moves the directory being emptied out of the workdir: ".." then leads elsewhere."""
    from grader.instructor.sandbox import zygote

    (tmp_path / "workdir" / "a" / "b" / "c").mkdir(parents=True)
    (tmp_path / "kept").write_text("beside the workdir, not in it")
    scandir = os.scandir

    def moving(fd):
        if os.readlink(f"/proc/self/fd/{fd}") == str(tmp_path / "workdir" / "a" / "b"):
            os.rename(tmp_path / "workdir" / "a" / "b", tmp_path / "b")
        return scandir(fd)

    monkeypatch.setattr(zygote.os, "scandir", moving)
    said = zygote.remove(str(tmp_path / "workdir"))
    assert said == f"could not remove {tmp_path / 'workdir' / 'a' / 'b'}: moved while it was removed"
    assert (tmp_path / "kept").read_text() == "beside the workdir, not in it"


def test_a_child_whose_zygote_died_before_it_confined_exits_whoever_adopted_it():
    """A child forked just as its zygote dies is adopted (by a subreaper, or init) before it confines: its parent
    is then not the zygote, so the parent-death signal it sets would never come. It exits at once instead of
    going on to serve a grader that holds a dead zygote (seen: amy's child answering after its zygote's SIGKILL,
    one run in five of test_a_zygote_that_dies_costs_no_one_points_and_its_students_are_graded_again)."""
    from grader.instructor.sandbox import confine

    said_read, said_write = os.pipe()
    zygote = os.fork()
    if zygote == 0:  # the zygote: forks the child, then dies before the child confines
        os.close(said_read)
        parent = os.getpid()
        if os.fork() == 0:
            while os.getppid() == parent:  # until the zygote is gone and this child adopted
                time.sleep(0.001)
            os.write(said_write, b"entering ")
            try:
                confine.enter({"workdir": "/nonexistent", "layers": {}}, keep={said_write}, zygote=parent)
                os.write(said_write, b"confined")
            except BaseException as error:  # what the old code did: went on, as if its zygote were alive
                os.write(said_write, f"went on: {error!r}".encode())
            os._exit(0)
        os._exit(0)
    os.close(said_write)
    os.waitpid(zygote, 0)
    told = b""
    while chunk := os.read(said_read, 1000):  # until the child's end closes the pipe
        told += chunk
    os.close(said_read)
    assert told == b"entering "
