"""The grader's side of the sandbox: one confined child per stage, forked from a clean zygote.

The child lives under every layer grader/instructor/sandbox/confine.py lists. It talks
to the grader only through a private pair of pipes (grader/kit/boundary/channel.py); every frame
it sends is read as hostile (grader/kit/boundary/exchange.py's Exchange), and its tool bodies run
here. The grader enforces the deadlines itself, with select(): a child that ignores or
blocks signals still gets SIGKILL. It watches the budgets that no rlimit counts for the
submission as a whole (grader/instructor/sandbox/budget.py): memory and CPU over all its
processes, and the files in its workdir. Closing a session kills the child's process group;
the zygote then kills, as root, every process of the child's own uid, and reaps them.
The zygote removes its workdir too, and a workdir that cannot be removed is said, never
passed over.
"""

import contextlib
import gc
import json
import multiprocessing.util
import os
import select
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from grader.instructor.sandbox import budget, confine, sweeper
from grader.instructor.sandbox import zygote as zygote_module
from grader.kit import compiled as compiled_module
from grader.kit import intake
from grader.kit.boundary import channel, values
from grader.kit.boundary.channel import FRAME, frame
from grader.kit.boundary.exchange import Exchange
from grader.kit.errors import ChannelBroken, Crashed, GraderError, SessionDied, TimedOut

MB = 1024 * 1024
ROOT = Path(__file__).resolve().parents[3]  # where grader/ and agtool/ are


@dataclass
class CompiledOnce:
    """One grade's submission, compiled by its first child (grader/kit/compiled.py): the later ones reuse it."""

    source: str | None = None  # sha256 of the tools.py it was compiled from
    code: bytes | None = None  # its marshal, whose sha256 the child said before the submission ran
    digest: str | None = None


@dataclass(frozen=True)
class Limits:
    """What one session (one stage) of one submission may use."""

    answer_seconds: float = 10.0  # wall clock for one answer
    stage_seconds: float = 60.0  # CPU of all the submission's processes, for the whole session
    memory_bytes: int = 512 * MB  # memory of its own (not the zygote's it shares), all processes together
    output_bytes: int = 16 * MB  # printed output, and any one file the submission writes
    workdir_bytes: int = 64 * MB  # all the files in its workdir together
    message_bytes: int = channel.MAX_FRAME  # one frame on the channel (no honest answer is near it)

    @property
    def wall_seconds(self) -> float:
        """The whole session's wall clock: a backstop for a child that spends its time asleep."""
        return WALL_FACTOR * self.stage_seconds


WALL_FACTOR = 5  # a stage may wait (on a busy machine, say) five times longer than it may compute


@contextlib.contextmanager
def _no_collection_while(deep: bool):
    """No garbage collection while a frame that may nest past the recursion limit is decoded: json recurses
    down to the limit, and a finalizer the collector ran down there (a multiprocessing one, say) would fail
    on the recursion limit itself, its clean-up lost ("Exception ignored"). Only a frame with more brackets
    than MAX_FRAME_DEPTH pays the toggle; a thread that found the collector off leaves it so."""
    was_on = deep and gc.isenabled()
    if was_on:
        gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


# How a child that died by a signal reads to a student.
_DEATHS: dict[int, str] = {
    signal.SIGXFSZ: "wrote more than {output} MB of output or file (printing in a loop?)",
    signal.SIGXCPU: "used up its CPU time (an infinite loop?)",
    signal.SIGKILL: "was killed (out of memory?)",
    signal.SIGSEGV: "crashed (segmentation fault)",
    signal.SIGABRT: "aborted",
}


# ── the zygote, one per grading process (its pool workers link to it) ────────
class Zygote:
    """A clean Python forked off this process's grading, started with nothing secret in it."""

    def __init__(self):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "PYTHONPATH": str(ROOT),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONSAFEPATH": "1",
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", zygote_module.__name__, str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            env=env,
            cwd="/",
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        theirs.close()
        self.control = ours
        self.owner = os.getpid()

    def ask(self, order: dict, fds: tuple[int, ...] = ()) -> dict:
        return self._ask(order, fds)[0]

    def _ask(self, order: dict, fds: tuple[int, ...] = ()) -> tuple[dict, list[int]]:
        try:
            socket.send_fds(self.control, [json.dumps(order).encode()], list(fds))
            answer, received, _, _ = socket.recv_fds(self.control, 1 << 16, 1)
        except OSError as error:
            raise GraderError(f"the sandbox's zygote is gone ({error})") from None
        if not answer:
            raise GraderError(f"the sandbox's zygote ended (exit code {self.process.poll()})")
        return json.loads(answer), received

    def link(self) -> "Link":
        """A control socket of its own on this zygote, for a process this one forks (a pool worker)."""
        (fd,) = self._ask({"op": "link"})[1]
        return Link(socket.socket(fileno=fd), self.process)

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        if self.owner == os.getpid():
            self.control.close()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Link(Zygote):
    """Another control socket on a zygote, handed to a forked worker: the worker's sessions are forked
    there without a zygote of its own (a boot costs seconds of imports). If the worker dies with a
    session open, the zygote ends that session itself when this socket closes."""

    def __init__(self, control: socket.socket, process: subprocess.Popen):
        self.control, self.process, self.owner = control, process, os.getpid()

    def adopt(self) -> None:
        """This forked process is now the link's one user (its other copies are closed by their holders)."""
        self.owner = os.getpid()

    def alive(self) -> bool:
        # Requests and answers alternate: a socket readable between them has been closed by the zygote.
        if self.owner != os.getpid() or self.control.fileno() < 0:
            return False
        return not select.select([self.control], [], [], 0)[0]

    def close(self) -> None:
        self.control.close()


_ZYGOTE: Zygote | None = None


def zygote() -> Zygote:
    """This process's zygote; a forked pool worker, or a zygote that died, gets a fresh one."""
    global _ZYGOTE
    if _ZYGOTE is None or _ZYGOTE.owner != os.getpid() or not _ZYGOTE.alive():
        _use(Zygote())
    assert _ZYGOTE is not None
    return _ZYGOTE


def _use(zygote: Zygote) -> None:
    global _ZYGOTE
    _ZYGOTE = zygote
    # Closed, and waited for, when this process ends, a pool worker too (its exit skips
    # atexit but runs multiprocessing's finalizers): a stopped run leaves no zygote behind.
    multiprocessing.util.Finalize(None, zygote.close, exitpriority=100)


def warm(link: Link | None = None) -> None:
    """Start the zygote now, so that its imports overlap with the grader's own; or, in a forked
    worker given a link to its grader's zygote, use that one."""
    if link is not None:
        link.adopt()
        if link.alive():
            _use(link)
    zygote()


# ── one session ──────────────────────────────────────────────────────────────
class SandboxSession:
    """One child process for one stage; requests go in, observations come out.

    `request` raises SessionDied (TimedOut, Crashed, ChannelBroken) when the child cannot
    answer, and then the same error again at once for every later request.
    """

    def __init__(
        self,
        submission: intake.Submission | str,
        stage: int,
        limits: Limits = Limits(),
        layers: confine.Layers | None = None,
        hidden: tuple[str, ...] = (),
        compiled: CompiledOnce | None = None,
    ):
        """`submission`: as read once for the grade (grader/kit/intake.py; a path is read here, SessionDied if it
        is no submission). The child gets a private copy of its bytes in its workdir: whatever the child does to
        that copy reaches neither the grader nor the next stage, which gets the same bytes again.
        `hidden`: folders the child must not read beyond the grader's own and the submission's
        (a class, its outputs): covered where it has a mount namespace (confine.py)."""
        try:
            submission = intake.submission_at(submission)
        except intake.NotASubmission as refused:
            raise SessionDied(str(refused)) from None
        self.limits = limits
        self._died: SessionDied | None = None
        self._status: int | None = None  # the child's wait status, once reaped
        self._removed: tuple[str | None] | None = None  # the zygote's word on the workdir, once it reaped
        self._zygote_died = False
        self.layers = layers or confine.Layers.here()
        self.cleanup_problem: str | None = None
        self.workdir = tempfile.mkdtemp(prefix="agtool-sandbox-", dir=_workdirs())
        try:
            private = _private_copy(submission.data, self.workdir)
        except BaseException:
            zygote_module.remove(self.workdir)
            raise
        from_parent, to_child = os.pipe()
        from_child, to_parent = os.pipe()
        said_confined, confined = os.pipe()
        job = {
            "path": private,
            "shown": submission.shown,  # the file as its reader names it: the child's module knows itself so
            "stage": stage,
            "workdir": self.workdir,
            "limits": asdict(limits),
            "layers": self.layers.as_job(),
            "hidden": sorted(
                {str(ROOT), os.path.dirname(os.path.abspath(submission.path)), *map(os.path.abspath, hidden)}
            ),
        }
        self._harvest: tuple[CompiledOnce, str] | None = None  # (where to keep the code, its source's sha256)
        if compiled is not None:
            source_digest = submission.sha256
            if compiled.code is not None and compiled.source == source_digest:
                with open(os.path.join(self.workdir, compiled_module.CODE_FILE), "wb") as file:
                    file.write(compiled.code)
                job["code"] = {"sha256": compiled.digest, "source": source_digest}
            else:
                job["keep_code"] = True
                self._harvest = (compiled, source_digest)
        try:
            self._zygote = zygote()
            forked = self._zygote.ask({"op": "fork", "job": job}, (from_parent, to_parent, confined))
        except BaseException:
            for fd in (to_child, from_child, said_confined):
                os.close(fd)
            zygote_module.remove(self.workdir)
            raise
        finally:
            for fd in (from_parent, to_parent, confined):
                os.close(fd)
        self.pid, self.uid = forked["pid"], forked["uid"]
        self._to_child, self._from_child = to_child, from_child
        self._exited = os.pidfd_open(self.pid)  # the zygote reaps only when asked: the pid stays ours
        for fd in (to_child, from_child):
            os.set_blocking(fd, False)
        # The child's word that every layer is up, said on a pipe it closes before its submission runs.
        # Not waited for: the first request goes at once (the child reads it once confined); it is
        # heard when the child ends, so that its death is read as its own or as the sandbox's.
        self._said_confined, self._word = said_confined, b""
        os.set_blocking(said_confined, False)
        self._open = True
        # The workdir as the child sees it: as root, a tmpfs in the child's own mount namespace, reached
        # through its /proc root (confine.py); this folder then holds what the grader put there, and the output.
        own_tmpfs = self.layers.private_mounts
        self.inside = f"/proc/{self.pid}/root{self.workdir}" if own_tmpfs else self.workdir
        self._budget = budget.Watch(self.pid, self.uid, self._zygote.process.pid, self.inside, limits, own_tmpfs)
        self._stage_deadline = time.monotonic() + limits.wall_seconds

    def _hear(self) -> bool:
        """Read what the child has said on its pipe so far; True once the pipe is closed (all is said)."""
        while len(self._word) < 1024:  # the word and a digest: more is no child of ours
            try:
                chunk = os.read(self._said_confined, 1024)
            except BlockingIOError:
                return False
            if not chunk:
                return True
            self._word += chunk
        return True

    def _heard_confined(self) -> bool:
        """Did the child say it was confined? (Asked once it has ended: all it said is in the pipe.)"""
        self._hear()
        return self._word.split(b"\n")[0] == zygote_module.CONFINED

    def _take_code(self) -> None:
        """Once the child has said all it says: keep its compiled submission if the file is what it said."""
        if self._harvest is None or not self._hear():
            return
        (compiled, source), self._harvest = self._harvest, None
        said = self._word.split(b"\n")
        if len(said) != 2 or said[0] != zygote_module.CONFINED:
            return
        data = _small_file(os.path.join(self.inside, compiled_module.CODE_FILE), compiled_module.MAX_CODE_BYTES)
        if data is not None and compiled_module.digest(data) == said[1].decode("ascii", "replace"):
            compiled.source, compiled.code, compiled.digest = source, data, said[1].decode()

    # ── the Session protocol ──────────────────────────────────────────────
    def request(self, req: dict) -> dict:
        if self._died:
            raise self._died
        exchange = Exchange(req)
        deadline = min(time.monotonic() + self.limits.answer_seconds, self._stage_deadline)
        try:
            if select.select([self._from_child], [], [], 0)[0]:  # frames unasked for, or the channel's end
                # An end is a death (its zygote's, on a loaded machine, is the grader's): _death_or tells.
                raise self._death_or(ChannelBroken("the submission's process sent more outcomes than it was asked for"))
            self._write(frame(exchange.for_child), deadline)
            while not exchange.done:
                self._in_time(deadline)  # however fast the child's frames come
                message = self._read_frame(deadline)
                if type(message) is dict and message.keys() == {"body"}:
                    self._write(frame(exchange.body(message["body"])), deadline)
                else:
                    exchange.take(message)
            self._budget.answered()
            if self._harvest:
                self._take_code()
        except SessionDied as died:
            self._died = died
            self.close()
            raise
        return exchange.observation()

    def close(self) -> None:
        if not getattr(self, "_open", False):
            return
        self._open = False
        self._end()
        for fd in (self._to_child, self._from_child, self._exited, self._said_confined):
            os.close(fd)
        # The zygote removed the workdir when it reaped the child; if it is gone, it is removed here.
        (self.cleanup_problem,) = self._removed or (zygote_module.remove(self.workdir),)
        if self._died is None:
            self._died = SessionDied("the session is closed")

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    # ── the parent's side of the channel ──────────────────────────────────
    def _read_frame(self, deadline: float):
        """The child's next frame, decoded; refused (ChannelBroken) where it could cost this process more
        than any honest frame: before a byte is read past its header when it is over MAX_FRAME bytes (or
        Limits.message_bytes, if smaller), before it is decoded when it holds over MAX_FRAME_MARKS marks
        (an upper bound on its values), and when it nests deeper than MAX_FRAME_DEPTH (grader/kit/boundary/channel.py).
        What a request keeps of its frames, the Exchange bounds."""
        (size,) = FRAME.unpack(self._read(FRAME.size, deadline))
        limit = min(self.limits.message_bytes, channel.MAX_FRAME)
        if size > limit:
            raise ChannelBroken(channel.refused(f"{limit // MB} MB" if limit >= MB else f"{limit:,} bytes"))
        text = self._read(size, deadline)
        if values.marks(text) > channel.MAX_FRAME_MARKS:
            raise ChannelBroken(channel.refused(f"{channel.MAX_FRAME_MARKS:,} values (lists, dicts, strs, numbers)"))
        # No deeper than its brackets: most frames hold a handful, and need no walk at all.
        opened = text.count(b"[") + text.count(b"{")
        try:
            with _no_collection_while(opened > channel.MAX_FRAME_DEPTH):
                message = json.loads(text)
            deep = opened > channel.MAX_FRAME_DEPTH and values.deeper_than(message, channel.MAX_FRAME_DEPTH)
        except RecursionError:  # deeper than this interpreter decodes at all
            deep = True
        except ValueError:
            raise ChannelBroken("the submission's process sent an answer that is not JSON") from None
        if deep:
            raise ChannelBroken(channel.refused(f"{channel.MAX_FRAME_DEPTH} lists or dicts deep"))
        return message

    # Both try the pipe first and wait only when it is not ready: a child writes a request's frames
    # together (channel.serve), so after the first, each is there already and costs a read, not a
    # select() and a read. The clock is still read before each frame (request()), and the frames of
    # one request are bounded (the Exchange's limits).
    def _write(self, data: bytes, deadline: float) -> None:
        while data:
            try:
                data = data[os.write(self._to_child, data) :]
            except BlockingIOError:
                self._wait(deadline, write=True)
            except BrokenPipeError:
                raise self._death_or(ChannelBroken("the submission closed the grader's channel")) from None

    def _read(self, size: int, deadline: float) -> bytes:
        chunks, left = [], size
        while left:
            try:
                chunk = os.read(self._from_child, min(left, MB))
            except BlockingIOError:
                self._wait(deadline, write=False)
                continue
            if not chunk:
                raise self._death_or(ChannelBroken("the submission closed the grader's channel"))
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _wait(self, deadline: float, write: bool) -> None:
        """Until the channel is ready; raise TimedOut at the deadline, Crashed if the child ended,
        OverBudget (or TimedOut: its CPU) when the submission's budget is spent.

        Ready data wins over an ended child: its last frame is still read.
        """
        pipe = self._to_child if write else self._from_child
        readable, writable = ([self._exited], [pipe]) if write else ([pipe, self._exited], [])
        while True:
            now = self._in_time(deadline)
            timeout = min(deadline, self._budget.next_check) - now
            ready_r, ready_w, _ = select.select(readable, writable, [], max(0.0, timeout))
            if pipe in ready_r or pipe in ready_w:
                return
            if self._exited in ready_r:
                raise self._death_or(ChannelBroken("the channel ended early"))

    def _in_time(self, deadline: float) -> float:
        """The time now; TimedOut past the deadline, OverBudget (or TimedOut: its CPU) once the budget is spent."""
        self._budget.check()  # at most every budget.EVERY seconds: cheap in between
        now = time.monotonic()
        if now < deadline:
            return now
        if deadline < self._stage_deadline:
            raise TimedOut(f"no answer within {self.limits.answer_seconds:g} s: an infinite loop?")
        raise TimedOut(f"the stage took over {self.limits.wall_seconds:g} s in all: an infinite loop?")

    def _death_or(self, error: SessionDied) -> SessionDied:
        """Crashed, when the child has ended (or ends within a moment); else `error`. GraderError when
        what ended it was the zygote's death (its children die with it, on a loaded machine slowly)."""
        if not select.select([self._exited], [], [], 0.5)[0]:
            if not self._zygote.alive():
                raise GraderError("the sandbox's zygote ended while a child was being graded")
            return error
        status = self._end()
        if self._zygote_died:  # its parent-death signal, not the submission: the grader's failure
            raise GraderError("the sandbox's zygote ended while a child was being graded")
        if not self._heard_confined():  # it died before any of the submission ran
            why = self._word.decode(errors="replace") or "it ended before it said"
            raise GraderError(f"the sandbox could not confine a child on this machine ({why})")
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            what = _DEATHS.get(sig, f"was killed by {signal.Signals(sig).name}")
            return Crashed(f"the submission's process {what.format(output=self.limits.output_bytes // MB)}", code=-sig)
        code = os.WEXITSTATUS(status)
        if code == zygote_module.UNCAUGHT:
            return Crashed(
                "the submission's process stopped on an exception nothing could catch "
                "(raise KeyboardInterrupt in tools.py?)",
                code=code,
            )
        return Crashed(
            f"the submission's process ended with exit code {code} before answering "
            "(sys.exit() or os._exit() in tools.py?)",
            code=code,
        )

    def _end(self) -> int:
        """Kill the child and its group, have the zygote kill (as root) its uid and reap it; its wait status.

        Until the zygote reaps the child its pid cannot be reused, so killpg(pid) cannot
        hit a stranger. The pid as well: the child may not have called setsid() yet.
        """
        if self._status is None:
            for kill in (os.killpg, os.kill):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    kill(self.pid, signal.SIGKILL)
            try:
                reaped = self._zygote.ask({"op": "reap", "pid": self.pid, "uid": self.uid})
                self._status, self._removed = reaped["status"], (reaped["removed"],)
            except GraderError:  # the zygote is gone, and the child with it (its parent-death signal)
                if self.uid is not None:  # but not what the child left behind
                    sweeper.sweep(self.uid)
                self._status = signal.SIGKILL  # a wait status: killed by SIGKILL
                self._zygote_died = True
        return self._status


_WORKDIRS: tuple[int, str] | None = None  # (the process that made it, the folder)


def _workdirs() -> str:
    """The folder this process makes its children's workdirs in: one of its own, mode 0711, so a
    child reaches its own workdir but lists neither its neighbours nor the rest of TMPDIR."""
    global _WORKDIRS
    if _WORKDIRS is None or _WORKDIRS[0] != os.getpid() or not os.path.isdir(_WORKDIRS[1]):
        folder = tempfile.mkdtemp(prefix="agtool-sandboxes-")
        os.chmod(folder, 0o711)
        _WORKDIRS = (os.getpid(), folder)
        # Removed when this process ends (a pool worker too): by then every workdir in it is gone.
        multiprocessing.util.Finalize(None, _remove_if_empty, args=(folder,), exitpriority=50)
    return _WORKDIRS[1]


def _remove_if_empty(folder: str) -> None:
    with contextlib.suppress(OSError):
        os.rmdir(folder)


def _small_file(path: str, most: int) -> bytes | None:
    """A regular file's bytes, if it is one of at most `most` bytes: the child may have put anything there."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > most:
            return None
        data = file.read(most + 1)
    return data if len(data) <= most else None


def _private_copy(data: bytes, workdir: str) -> str:
    """The submission as the child sees it: a copy of the bytes read once (grader/kit/intake.py), in its
    own workdir; its path there."""
    private = os.path.join(workdir, "tools.py")
    with open(private, "wb") as copy:
        copy.write(data)
    return private
