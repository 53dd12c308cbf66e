"""The sandbox's transport and containment, with small child functions standing in for the grader's.

Each child function runs in the forked child exactly where grader.kit.runner.child_main would.
"""

import ctypes
import functools
import importlib
import json
import math
import os
import signal
import sys
import time
from pathlib import Path

import pytest

import agtool
import grader as grader_package
from grader.instructor.sandbox import landlock
from grader.kit.errors import ChannelBroken, Crashed, SessionDied, TimedOut
from grader.kit.grading import grade
from grader.instructor.sandbox import MB, Limits, SandboxSession, _children

pytestmark = pytest.mark.grader

REFERENCE = Path(agtool.__file__).with_name("tools.py")
HOSTILE = Path(__file__).parent / "submissions" / "hostile"
QUICK = Limits(answer_seconds=1.5, stage_seconds=30, memory_bytes=256 * MB, output_bytes=1 * MB)


def session(child, limits=QUICK):
    return SandboxSession(__file__, limits, child=child)


def serve(answer):
    """A child that answers every request with answer(request)."""
    def child(path, recv, send):
        while (request := recv()) is not None:
            send(answer(request))
    return child


def gone(pid):
    """Is there no process `pid` any more (not even a zombie)?"""
    return not os.path.exists(f"/proc/{pid}")


# ── the channel ──────────────────────────────────────────────────────────────

def test_requests_and_observations_cross_as_json_with_nan_and_infinities():
    with session(serve(lambda request: {"got": request, "nan": math.nan, "inf": -math.inf})) as box:
        for n in range(3):
            observation = box.request({"n": n, "text": "ü", "big": math.inf})
            assert observation["got"] == {"n": n, "text": "ü", "big": math.inf}
            assert math.isnan(observation["nan"]) and observation["inf"] == -math.inf


def test_the_child_gets_the_submission_path_made_absolute():
    with SandboxSession(os.path.relpath(__file__), QUICK, child=lambda path, recv, send: send({"path": path})) as box:
        assert box.request({}) == {"path": __file__}


def test_printing_a_frame_cannot_forge_an_observation(capfd):
    def child(path, recv, send):
        forged = json.dumps({"forged": True}).encode()
        frame = len(forged).to_bytes(4, "big") + forged
        recv()
        print(frame.decode(), flush=True)
        os.write(1, frame), os.write(2, frame)
        send({"forged": False})

    with session(child) as box:
        assert box.request({}) == {"forged": False}
    assert "forged" not in capfd.readouterr().out + capfd.readouterr().err


def channel_fd(send):
    """The fd behind a child's send(): what a hostile submission could dig out of its own process."""
    return send.__closure__[0].cell_contents


@pytest.mark.parametrize("frame, reason", [
    (b"\x00\x00\x00\x05hello", "not JSON"),
    (b"\x00\x00\x00\x02[]", "not an observation"),
    (b"\xff\xff\xff\xff", "over 1 MB"),
    (b"\x00\x00\x10\x00" + b"[" * 4096, "not JSON"),
])
def test_an_answer_that_is_not_an_observation_breaks_the_channel(frame, reason):
    def child(path, recv, send):
        recv()
        os.write(channel_fd(send), frame)
        time.sleep(60)

    with session(child, Limits(answer_seconds=5, message_bytes=1 * MB)) as box:
        with pytest.raises(ChannelBroken, match=reason):
            box.request({})


def test_a_child_closing_its_channel_breaks_it():
    def child(path, recv, send):
        recv()
        os.close(channel_fd(send))
        time.sleep(60)

    with session(child) as box:
        with pytest.raises(ChannelBroken, match="closed the grader's channel"):
            box.request({})


def test_a_dead_session_raises_the_same_error_at_once_for_every_later_request():
    with session(lambda path, recv, send: os._exit(4)) as box:
        with pytest.raises(Crashed) as first:
            box.request({})
        with pytest.raises(Crashed) as second:
            box.request({})
        assert second.value is first.value


# ── deadlines ────────────────────────────────────────────────────────────────

def test_an_infinite_loop_times_out_with_a_clear_message():
    def child(path, recv, send):
        recv()
        while True:
            pass

    with session(child) as box:
        with pytest.raises(TimedOut, match=r"no answer within 1\.5 s: an infinite loop\?"):
            box.request({})
        assert gone(box.pid)


def test_a_child_ignoring_and_blocking_signals_is_still_stopped():
    deaf = (signal.SIGALRM, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGXCPU)

    def child(path, recv, send):
        for sig in deaf:
            signal.signal(sig, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_BLOCK, deaf)
        recv()
        while True:
            signal.pthread_sigmask(signal.SIG_BLOCK, deaf)

    with session(child) as box:
        with pytest.raises(TimedOut):
            box.request({})
    assert gone(box.pid)


def test_the_whole_stage_has_its_own_deadline():
    def slow(request):
        time.sleep(0.3)
        return {}

    with session(serve(slow), Limits(answer_seconds=5, stage_seconds=1)) as box:
        with pytest.raises(TimedOut, match=r"the stage took over 1 s in all"):
            for _ in range(10):
                box.request({})


def test_a_child_that_never_reads_cannot_block_a_large_request():
    with session(lambda path, recv, send: time.sleep(60)) as box:
        with pytest.raises(TimedOut):
            box.request({"padding": "x" * (4 * MB)})


# ── deaths ───────────────────────────────────────────────────────────────────

@pytest.mark.parametrize("end, code, words", [
    (lambda: sys.exit(3), 3, "exit code 3"),
    (lambda: os._exit(0), 0, "exit code 0"),
    (lambda: os.kill(os.getpid(), signal.SIGSEGV), -signal.SIGSEGV, "segmentation fault"),
    (lambda: ctypes.string_at(0), -signal.SIGSEGV, "segmentation fault"),
    (lambda: (_ for _ in ()).throw(KeyboardInterrupt), 70, "an exception nothing could catch"),
])
def test_a_child_that_ends_is_reported_as_crashed(end, code, words):
    def child(path, recv, send):
        recv()
        end()

    with session(child) as box:
        with pytest.raises(Crashed, match=words) as crash:
            box.request({})
    assert crash.value.code == code


def test_a_child_that_ends_is_noticed_at_once_even_when_a_daemon_holds_its_channel():
    def child(path, recv, send):
        recv()
        if os.fork() == 0:          # inherits the channel's write end, and keeps it open
            os.setsid()
            time.sleep(60)
        os._exit(5)

    with session(child, Limits(answer_seconds=60)) as box:
        with pytest.raises(Crashed, match="exit code 5"):
            box.request({})


# ── caps ─────────────────────────────────────────────────────────────────────

def flood(request):
    while True:
        print("flood " * 1000)


def big_file(request):
    with open("big", "wb") as file:
        file.write(b"x" * (2 * MB))
    return {}


@pytest.mark.parametrize("answer", [flood, big_file])
def test_output_and_files_over_the_cap_end_the_child_with_a_clear_message(answer):
    with session(serve(answer)) as box:
        with pytest.raises(Crashed, match="wrote more than 1 MB of output or file"):
            box.request({})


def test_printing_within_the_cap_is_harmless_and_stays_out_of_the_grader(capfd):
    def chatty(request):
        print("debug line", request)
        print("to stderr", file=sys.stderr)
        return {"ok": True}

    with session(serve(chatty)) as box:
        assert [box.request({"n": n}) for n in range(3)] == [{"ok": True}] * 3
    captured = capfd.readouterr()
    assert "debug line" not in captured.out and "to stderr" not in captured.err


def test_memory_beyond_the_cap_is_refused_inside_the_child():
    def hungry(request):
        try:
            hog = bytearray(512 * MB)
        except MemoryError:
            return {"refused": True}
        return {"refused": False, "size": len(hog)}

    with session(serve(hungry)) as box:
        assert box.request({}) == {"refused": True}


def test_files_written_with_relative_paths_stay_out_of_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def litter(request):
        with open("junk.txt", "w") as file:
            file.write("junk")
        return {"where": os.getcwd()}

    with session(serve(litter)) as box:
        workdir = box.request({})["where"]
    assert not (tmp_path / "junk.txt").exists() and not os.path.exists(workdir)


# ── the grader is out of reach ───────────────────────────────────────────────

def test_the_grader_package_cannot_be_imported_or_found_in_the_child():
    def probe(request):
        try:
            importlib.import_module(request["module"])
        except ImportError as error:
            refused = str(error)
        else:
            refused = None
        return {"refused": refused,
                "loaded": sorted(name for name in sys.modules if name.split(".")[0] == "grader"),
                "main": sorted(vars(sys.modules["__main__"]))}

    with session(serve(probe)) as box:
        for module in ("grader", "grader.instructor.sandbox", "grader.kit.errors"):
            observation = box.request({"module": module})
            assert observation["refused"] == "No module named 'grader'"   # the package goes first
            assert observation["loaded"] == []
            assert "pytest" not in observation["main"] and "SandboxSession" not in observation["main"]


def test_the_child_keeps_its_own_reference_to_grader_code():
    # What child_main holds is bound before the grader is hidden: hiding must not break it.
    def child(path, recv, send):
        recv()
        send({"limits": Limits().answer_seconds, "error": ChannelBroken("x").reason})

    with session(child) as box:
        assert box.request({}) == {"limits": 10.0, "error": "x"}


# ── nothing outlives a session ───────────────────────────────────────────────

def spawn_everything(request):
    """What the background_processes twist does at import: seven processes left behind; their pids."""
    twist = HOSTILE / "background_processes.py"
    exec(compile(twist.read_text(), str(twist), "exec"), {"__name__": "twist"})
    return {"pids": [int(pid) for pid in Path("spawned.pids").read_text().split()]}


def test_every_process_the_child_started_is_killed_and_reaped_on_close():
    with session(serve(spawn_everything)) as box:
        pids = box.request({})["pids"]
        assert len(pids) == 7 and not any(gone(pid) for pid in pids)
    assert [pid for pid in pids if not gone(pid)] == []


def test_processes_left_behind_are_killed_after_a_timeout_too():
    def child(path, recv, send):
        send(spawn_everything(recv()))
        recv()
        while True:
            pass

    with session(child) as box:
        pids = box.request({})["pids"]
        with pytest.raises(TimedOut):
            box.request({})
    assert [pid for pid in pids if not gone(pid)] == []


def test_closing_one_session_leaves_another_open_session_working():
    with session(serve(lambda request: {"n": request["n"]})) as other:
        with session(serve(spawn_everything)) as box:
            box.request({})
        assert other.request({"n": 7}) == {"n": 7}
        assert not gone(other.pid)


def test_a_child_holds_no_end_of_another_sessions_channel():
    def pipes_held(request):
        held = set()
        for fd in os.listdir("/proc/self/fd"):
            try:
                held.add(os.stat(f"/proc/self/fd/{fd}").st_ino)
            except OSError:
                pass
        return {"inodes": sorted(held)}

    with session(serve(lambda request: {})) as first:
        theirs = {os.fstat(fd).st_ino for fd in (first._to_child, first._from_child)}
        with session(serve(pipes_held)) as second:
            assert theirs.isdisjoint(second.request({})["inodes"])


def test_a_child_cannot_write_to_pipes_it_inherited_from_the_grader():
    # A process pool's result pipe is one: a forged pickle there would run in the grader.
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)

    def child(path, recv, send):
        recv()
        os.write(write_end, b"forged")
        send({})

    try:
        with session(child) as box:
            box.request({})
        with pytest.raises(BlockingIOError):
            os.read(read_end, 100)
    finally:
        os.close(read_end), os.close(write_end)


def test_close_is_idempotent_and_a_closed_session_refuses_requests():
    box = session(serve(lambda request: {}))
    box.close()
    box.close()
    with pytest.raises(SessionDied):
        box.request({})
    assert gone(box.pid)


# ── what the kernel refuses (Landlock) ───────────────────────────────────────

def needs_landlock(version):
    return pytest.mark.skipif(landlock.abi() < version, reason=f"needs Landlock ABI {version}; "
                              f"this kernel has {landlock.abi()}")


def attempt(action):
    """A child answering whether `action(request)` was refused by the kernel."""
    def answer(request):
        try:
            action(request)
        except PermissionError:
            return {"refused": True}
        return {"refused": False}
    return serve(answer)


@needs_landlock(1)
def test_the_child_may_write_only_in_its_working_directory(tmp_path):
    def write(request):
        Path(request["path"]).write_text("x")

    with session(attempt(write)) as box:
        assert box.request({"path": str(tmp_path / "escape.txt")}) == {"refused": True}
        assert box.request({"path": "inside.txt"}) == {"refused": False}
        assert box.request({"path": os.devnull}) == {"refused": False}
    assert not (tmp_path / "escape.txt").exists()


@needs_landlock(1)
def test_the_child_may_not_read_the_grader_or_the_reference_solution():
    # Names may still be listed (Landlock grants listing a whole tree, or nothing of it).
    package = Path(grader_package.__file__).parent
    secrets = [package / "oracle.py", package / "sandbox.py", Path(agtool.__file__).with_name("tools.py")]

    def read(request):
        Path(request["path"]).read_bytes()

    with session(attempt(read)) as box:
        for secret in secrets:
            assert box.request({"path": str(secret)}) == {"refused": True}, secret
        for allowed in (Path(agtool.__file__).with_name("inventory.py"), Path(__file__), Path(sys.executable)):
            assert box.request({"path": str(allowed)}) == {"refused": False}, allowed


def test_the_reference_itself_can_still_be_graded():
    with SandboxSession(str(REFERENCE), QUICK, child=lambda path, recv, send: send(
            {"read": len(Path(path).read_text()) > 0})) as box:
        assert box.request({}) == {"read": True}


@needs_landlock(4)
def test_the_child_may_not_open_tcp_connections():
    import socket
    with socket.create_server(("127.0.0.1", 0)) as server:
        def connect(request):
            socket.create_connection(("127.0.0.1", request["port"]), timeout=1).close()

        with session(attempt(connect)) as box:
            assert box.request({"port": server.getsockname()[1]}) == {"refused": True}


@needs_landlock(6)
def test_the_child_may_not_signal_the_grader():
    received = []
    previous = signal.signal(signal.SIGUSR1, lambda *_: received.append(True))
    try:
        with session(attempt(lambda request: os.kill(os.getppid(), signal.SIGUSR1))) as box:
            assert box.request({}) == {"refused": True}
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert received == []


# ── hostile submissions, graded end to end ───────────────────────────────────

FAST = functools.partial(SandboxSession, limits=Limits(answer_seconds=2, stage_seconds=60))
ALL = (1, 2, 3, 4, 5, 6)

# twist -> (the stages that must lose points, words in their first failure's message);
# every other stage must keep all its points.
CONTAINED = {
    "sys_exit_at_import": (ALL, "SystemExit"),
    "os_exit_at_import": (ALL, "exit code 0"),
    "infinite_loop": ((3,), "no answer within 2 s: an infinite loop?"),
    "ignores_signals": ((4,), "no answer within 2 s: an infinite loop?"),
    "memory_bomb": ((5,), "no answer within 2 s"),
    "output_flood": ((1,), "wrote more than 16 MB of output"),
    "always_equal": ((2,), ""),
    "tamper_grader": ((2,), ""),
    "segfault": ((6,), "segmentation fault"),
    "background_processes": ((), ""),
    "kills_the_grader": ((), ""),
    "writes_outside": ((), ""),
    "reads_the_solution": ((2,), ""),
}
# Twists that only the kernel's Landlock can contain -> the ABI version they need.
NEEDS_LANDLOCK = {"kills_the_grader": 6, "writes_outside": 1, "reads_the_solution": 1}


def hostile(twist: str, folder: Path) -> Path:
    """The reference tools.py with the twist appended: a complete, hostile submission."""
    path = folder / twist / "tools.py"
    path.parent.mkdir()
    path.write_text(REFERENCE.read_text() + "\n\n" + (HOSTILE / f"{twist}.py").read_text())
    return path


def maxima(result) -> dict[int, int]:
    points = {}
    for check in result.results:
        points[check.check.stage] = points.get(check.check.stage, 0) + check.check.points
    return points


def test_every_hostile_twist_is_in_the_table():
    assert sorted(path.stem for path in HOSTILE.glob("*.py")) == sorted(CONTAINED)


@pytest.mark.parametrize("twist", sorted(CONTAINED))
def test_a_hostile_submission_is_contained(twist, tmp_path):
    if landlock.abi() < NEEDS_LANDLOCK.get(twist, 0):
        pytest.skip(f"needs Landlock ABI {NEEDS_LANDLOCK[twist]}; this kernel has {landlock.abi()}")
    lost, words = CONTAINED[twist]
    before = _children()  # earlier tests' children (a JupyterLab kernel reparented to us) are not ours
    result = grade(str(hostile(twist, tmp_path)), FAST, seed=3, scale=0.3)
    scores, most = result.stage_scores(), maxima(result)
    assert {stage for stage in ALL if scores[stage] < most[stage]} == set(lost)
    for stage in lost:
        first = next(check for check in result.results if check.check.stage == stage and not check.passed)
        assert words in first.message
    assert _children() <= before                # every child reaped: no zombie, no straggler
    assert not (tmp_path / "planted.txt").exists() and not (tmp_path / twist / "planted.txt").exists()


def test_tampering_with_the_grader_gains_nothing(tmp_path):
    tampered = grade(str(hostile("tamper_grader", tmp_path)), FAST, seed=4, scale=0.3)
    plain = tmp_path / "plain.py"
    plain.write_text(REFERENCE.read_text() + "\n\ndef check_args(name, args):\n    return None\n")
    assert tampered.stage_scores() == grade(str(plain), FAST, seed=4, scale=0.3).stage_scores()


class KeepingPids(SandboxSession):
    """A session that, before it closes, notes the pids the background_processes twist recorded."""
    seen: list[int] = []

    def close(self):
        record = Path(self.workdir, "spawned.pids")
        if record.exists():
            KeepingPids.seen += [int(pid) for pid in record.read_text().split()]
        super().close()


def test_nothing_a_submission_spawns_outlives_its_grading(tmp_path):
    KeepingPids.seen = []
    factory = functools.partial(KeepingPids, limits=FAST.keywords["limits"])
    result = grade(str(hostile("background_processes", tmp_path)), factory, seed=5, scale=0.3)
    pids = KeepingPids.seen
    assert result.score == result.max_score
    assert len(pids) == 7 * len(ALL)            # seven at every import: one import per stage
    assert [pid for pid in pids if not gone(pid)] == []
