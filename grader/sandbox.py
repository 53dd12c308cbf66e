"""The sandbox: every stage of a submission runs in its own child process, forked from the grader.

Fork, not a fresh interpreter: the heavy modules (langgraph, hypothesis, jsonschema) are
imported once in the grading process, and each fork has them for free.

The child lives in its own session and process group, under caps on memory, on file size
(its stdout and stderr go to a capped file, so printing can neither flood the grader nor
forge the protocol) and on CPU time, with the grader's own modules out of its reach and,
where the kernel has Landlock (grader/landlock.py), unable to write outside its own
working directory, open TCP connections or signal the grader. It talks to the parent
only through a private pair of pipes: length-prefixed JSON frames.

The parent enforces the deadlines itself, with select(): a child that ignores or blocks
signals still gets SIGKILL. Closing a session kills the child's process group and every
process the submission left behind: the grading process is a child subreaper, so a
double-forked daemon that escaped the group is reparented here, found and killed.
"""

import ctypes
import importlib.abc
import json
import math
import os
import resource
import select
import shutil
import signal
import struct
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable

from grader import landlock
from grader.errors import ChannelBroken, Crashed, SessionDied, TimedOut

MB = 1024 * 1024
_FRAME = struct.Struct(">I")            # the length of the JSON text that follows
_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36
_GRADER = __name__.partition(".")[0]    # the package the submission must not reach
_UNCAUGHT = 70                          # the child's exit code when an exception escaped everything
_WARM_MODULES = ("langgraph.graph", "langgraph.runtime", "agtool.inventory", "hypothesis", "jsonschema")
# What a submission must not read: the grader's own code (its oracle solves every stage)
# and the reference solution, wherever they are on this machine.
_PACKAGE = os.path.dirname(os.path.realpath(__file__))
_SECRETS = (_PACKAGE, os.path.join(os.path.dirname(_PACKAGE), "agtool", "tools.py"))


@dataclass(frozen=True)
class Limits:
    """What one session (one stage) of one submission may use."""
    answer_seconds: float = 10.0       # wall clock for one answer
    stage_seconds: float = 60.0        # wall clock for the whole session
    memory_bytes: int = 512 * MB       # address space on top of what the fork starts with
    output_bytes: int = 16 * MB        # printed output, and any one file the submission writes
    message_bytes: int = 16 * MB       # one observation on the channel


# How a child that died by a signal reads to a student.
_DEATHS = {
    signal.SIGXFSZ: "wrote more than {output} MB of output or file (printing in a loop?)",
    signal.SIGXCPU: "used up its CPU time (an infinite loop?)",
    signal.SIGKILL: "was killed (out of memory?)",
    signal.SIGSEGV: "crashed (segmentation fault)",
    signal.SIGABRT: "aborted",
}


def warm() -> None:
    """Import once, here, what every child would otherwise import again."""
    for name in _WARM_MODULES:
        __import__(name)


class SandboxSession:
    """One child process running `child(path, recv, send)`; requests go in, observations come out.

    `request` raises SessionDied (TimedOut, Crashed, ChannelBroken) when the child cannot
    answer, and then the same error again at once for every later request.
    """

    def __init__(self, path: str, limits: Limits = Limits(),
                 child: Callable[[str, Callable, Callable], None] | None = None):
        if child is None:
            from grader.observe import child_main as child
        warm()
        _become_subreaper()
        self.limits, self._died, self._status = limits, None, None
        # The child's working directory, and (where Landlock works) the only place it may
        # write; removed on close.
        self.workdir = tempfile.mkdtemp(prefix="agtool-sandbox-")
        self._known = _children()       # anything already here is not the submission's
        from_parent, to_child = os.pipe()
        from_child, to_parent = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()              # or the child inherits, and may repeat, buffered text
        try:
            self.pid = os.fork()
        except OSError:                 # no process to be had: the grader's trouble, not the student's
            for fd in (from_parent, to_child, from_child, to_parent):
                os.close(fd)
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise
        if self.pid == 0:
            os.close(to_child), os.close(from_child)
            _run_child(child, os.path.abspath(path), self.workdir, limits, from_parent, to_parent)
        os.close(from_parent), os.close(to_parent)
        self._to_child, self._from_child = to_child, from_child
        self._exited = os.pidfd_open(self.pid)
        for fd in (to_child, from_child):
            os.set_blocking(fd, False)
        self._stage_deadline = time.monotonic() + limits.stage_seconds
        _LIVE.add(self.pid)

    # ── the Session protocol ──────────────────────────────────────────────
    def request(self, req: dict) -> dict:
        if self._died:
            raise self._died
        text = json.dumps(req, allow_nan=True).encode()
        answer_deadline = time.monotonic() + self.limits.answer_seconds
        deadline = min(answer_deadline, self._stage_deadline)
        try:
            self._write(_FRAME.pack(len(text)) + text, deadline)
            (size,) = _FRAME.unpack(self._read(_FRAME.size, deadline))
            if size > self.limits.message_bytes:
                raise ChannelBroken(f"the answer was over {self.limits.message_bytes // MB} MB")
            observation = _decode(self._read(size, deadline))
        except SessionDied as died:
            self._died = died
            self.close()
            raise
        return observation

    def close(self) -> None:
        if self.pid not in _LIVE:
            return
        self._end()
        _LIVE.discard(self.pid)
        _kill_strays(self._known)
        for fd in (self._to_child, self._from_child, self._exited):
            os.close(fd)
        shutil.rmtree(self.workdir, ignore_errors=True)
        if self._died is None:
            self._died = SessionDied("the session is closed")

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    # ── the parent's side of the channel ──────────────────────────────────
    def _write(self, data: bytes, deadline: float) -> None:
        while data:
            self._wait(deadline, write=True)
            try:
                data = data[os.write(self._to_child, data):]
            except BlockingIOError:
                continue
            except BrokenPipeError:
                raise self._death_or(ChannelBroken("the submission closed the grader's channel"))

    def _read(self, size: int, deadline: float) -> bytes:
        chunks, left = [], size
        while left:
            self._wait(deadline, write=False)
            try:
                chunk = os.read(self._from_child, min(left, MB))
            except BlockingIOError:
                continue
            if not chunk:
                raise self._death_or(ChannelBroken("the submission closed the grader's channel"))
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _wait(self, deadline: float, write: bool) -> None:
        """Until the channel is ready; raise TimedOut at the deadline, Crashed if the child ended.

        Ready data wins over an ended child: its last frame is still read.
        """
        channel = self._to_child if write else self._from_child
        readable, writable = ([self._exited], [channel]) if write else ([channel, self._exited], [])
        ready_r, ready_w, _ = select.select(readable, writable, [], max(0.0, deadline - time.monotonic()))
        if channel in ready_r or channel in ready_w:
            return
        if self._exited in ready_r:
            raise self._death_or(ChannelBroken("the channel ended early"))
        if deadline < self._stage_deadline:
            raise TimedOut(f"no answer within {self.limits.answer_seconds:g} s: an infinite loop?")
        raise TimedOut(f"the stage took over {self.limits.stage_seconds:g} s in all: an infinite loop?")

    def _death_or(self, error: SessionDied) -> SessionDied:
        """Crashed, when the child has ended (or ends within a moment); else `error`."""
        if not select.select([self._exited], [], [], 0.5)[0]:
            return error
        status = self._end()
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            what = _DEATHS.get(sig, f"was killed by {signal.Signals(sig).name}")
            return Crashed(f"the submission's process {what.format(output=self.limits.output_bytes // MB)}",
                           code=-sig)
        code = os.WEXITSTATUS(status)
        if code == _UNCAUGHT:
            return Crashed("the submission's process stopped on an exception nothing could catch "
                           "(raise KeyboardInterrupt in tools.py?)", code=code)
        return Crashed(f"the submission's process ended with exit code {code} before answering "
                       "(sys.exit() or os._exit() in tools.py?)", code=code)

    def _end(self) -> int:
        """Kill the child and its process group, reap the child, and return its wait status.

        The group goes first: until the child is reaped its pid cannot be reused, so
        killpg(pid) cannot hit a stranger. The pid as well: the child may not have
        called setsid() yet.
        """
        if self._status is None:
            for kill in (os.killpg, os.kill):
                try:
                    kill(self.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self._status = os.waitpid(self.pid, 0)[1]
        return self._status


def _decode(text: bytes) -> dict:
    try:
        observation = json.loads(text)
    except (ValueError, RecursionError):
        raise ChannelBroken("the submission's process sent an answer that is not JSON") from None
    if not isinstance(observation, dict):
        raise ChannelBroken("the submission's process sent an answer that is not an observation")
    return observation


# ── process hygiene, in the grading process ───────────────────────────────
_LIVE: set[int] = set()   # the children of this process's open sessions
_SUBREAPER_PID = None


def _become_subreaper() -> None:
    """Orphans of a submission (double fork, setsid) are reparented to this process, not to init."""
    global _SUBREAPER_PID
    if _SUBREAPER_PID != os.getpid():   # a forked pool worker is a new process: set it again
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        _SUBREAPER_PID = os.getpid()


def _children() -> set[int]:
    pids = set()
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as children:
            pids.update(map(int, children.read().split()))
    return pids


def _kill_strays(known: set[int]) -> None:
    """Kill and reap every child of ours that is neither a live session nor was here before.

    Killing a stray reparents its own children to us, so repeat until none is left.
    """
    for _ in range(1000):
        strays = _children() - known - _LIVE
        if not strays:
            return
        for pid in strays:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in strays:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


# ── the child ─────────────────────────────────────────────────────────────
class _HideGrader(importlib.abc.MetaPathFinder):
    """Refuses the grader's own package to the submission: it can neither import nor patch it."""

    def find_spec(self, name, path=None, target=None):
        if name == _GRADER or name.startswith(_GRADER + "."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def _run_child(child: Callable, path: str, workdir: str, limits: Limits, from_parent: int, to_parent: int):
    """Confine this process, then serve requests until the parent closes the channel. Never returns."""
    code = _UNCAUGHT
    try:
        parent = os.getppid()
        os.setsid()
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:      # the grader died before the line above
            os._exit(code)
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        # Python ignores SIGXFSZ; by default it ends a process writing past RLIMIT_FSIZE,
        # which turns an output flood into one clear death instead of errors in every print.
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM, signal.SIGCHLD, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_DFL)
        _redirect_output(workdir)
        _shut_inherited(keep={0, 1, 2, from_parent, to_parent})
        _cap(limits)
        os.environ["TMPDIR"] = tempfile.tempdir = workdir   # the one place it may write
        landlock.confine(workdir, hidden=[secret for secret in _SECRETS if secret != os.path.realpath(path)])
        _hide_grader()
        child(path, _receiver(from_parent), _sender(to_parent))
        code = 0
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code)


def _redirect_output(workdir: str) -> None:
    os.chdir(workdir)
    null = os.open(os.devnull, os.O_RDONLY)
    output = os.open("output", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for fd, target in ((0, null), (1, output), (2, output)):
        os.dup2(target, fd)
    os.close(null), os.close(output)
    sys.stdin = sys.__stdin__ = open(0, closefd=False)
    sys.stdout = sys.__stdout__ = open(1, "w", closefd=False, errors="backslashreplace")
    sys.stderr = sys.__stderr__ = open(2, "w", closefd=False, errors="backslashreplace", buffering=1)


def _shut_inherited(keep: set[int]) -> None:
    """Point every other inherited fd at /dev/null.

    The grader's pipes (a process pool's results, other sessions' channels, pytest's
    saved stderr, which faulthandler writes to) are then out of the submission's reach.
    Not closed: objects in this copy of the grader still own those numbers, and closing
    them later would close whatever file had reused the number.
    """
    null = os.open(os.devnull, os.O_RDWR)
    for fd in map(int, os.listdir("/proc/self/fd")):   # the listing's own fd too: harmless
        if fd not in keep and fd != null:
            os.dup2(null, fd)
    os.close(null)


def _cap(limits: Limits) -> None:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[0])
    memory = pages * resource.getpagesize() + limits.memory_bytes
    cpu = math.ceil(limits.stage_seconds) + 5   # a backstop: the parent's wall clock comes first
    for which, soft, hard in ((resource.RLIMIT_AS, memory, memory),
                              (resource.RLIMIT_FSIZE, limits.output_bytes, limits.output_bytes),
                              (resource.RLIMIT_CPU, cpu, cpu + 5),
                              (resource.RLIMIT_CORE, 0, 0)):
        resource.setrlimit(which, (soft, hard))


def _hide_grader() -> None:
    for name in [name for name in sys.modules if name == _GRADER or name.startswith(_GRADER + ".")]:
        del sys.modules[name]
    sys.modules["__main__"] = type(sys)("__main__")   # `python -m grader` runs as __main__
    sys.meta_path.insert(0, _HideGrader())


def _receiver(fd: int) -> Callable[[], Any]:
    def recv() -> Any:
        """The next request, or None when the parent has closed the channel."""
        header = _read_exactly(fd, _FRAME.size)
        text = header and _read_exactly(fd, _FRAME.unpack(header)[0])
        return None if text is None else json.loads(text)
    return recv


def _sender(fd: int) -> Callable[[Any], None]:
    def send(observation: Any) -> None:
        """Send plain JSON data (NaN and infinities allowed); anything else raises TypeError here."""
        text = json.dumps(observation, allow_nan=True).encode()
        data = _FRAME.pack(len(text)) + text
        while data:
            data = data[os.write(fd, data):]
    return send


def _read_exactly(fd: int, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            return None
        data += chunk
    return data
