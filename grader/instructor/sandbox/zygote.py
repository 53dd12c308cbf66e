"""The zygote: a clean Python that forks every sandboxed child, started before anything secret is loaded.

A child forked from the grading process would hold all of it in memory: the oracle,
the checks, the seed; `del sys.modules[...]` hides nothing from `gc.get_objects()`.
So the grader starts this process with `python -m grader.instructor.sandbox.zygote`,
with an empty environment and nothing of the grading run on its command line. It
starts its sweeper (sweeper.py: it kills what a child left behind, and a fork from a
small process is cheap), then imports only PRELOAD (third-party modules a submission
uses, agtool.inventory and agtool.contract, the lab's modules a student's tools.py
imports, the child-side runner and the sandbox's own confinement code), runs one small
graph of its own (so that every child forks with what LangGraph builds on a first run), then
forks one child per request.
A child probing stage N imports the trusted code of the stages below N (stage
isolation needs it) after the fork, before the fence goes up, and nothing more.

Control protocol, over a SOCK_SEQPACKET socket (its fd is argv[1]), one JSON message each way:
  {"op": "fork", "job": {...}} + three fds (the child's ends of its channel, and of the pipe on
                                  which it says it is confined) -> {"pid": p, "uid": u | None}
                                  (u: a uid no child of this zygote had before, uids.py)
  {"op": "reap", "pid": p, "uid": u | None}
                                  -> {"status": wait status, "removed": None | what could not be
                                     removed of its workdir}  (every process of uid u is killed
                                     first, as root; strays, this zygote's other children, are
                                     killed and reaped too; the workdir goes here, so that no
                                     moment is left where neither the zygote nor a live grader
                                     would remove it)
  {"op": "link"}                  -> {"linked": true} + one fd: a control socket of its own, served
                                     like the first, for a process the grader forks (a pool worker)
A link that closes with sessions still open (its worker was killed) has them ended here: each
child is killed, its uid swept, it is reaped and its workdir removed. The zygote ends when the
first socket closes, or when the grader dies (PDEATHSIG: SIGTERM), ending every open session
the same way first; its children die with it.
"""

import contextlib
import ctypes
import functools
import gc
import importlib
import json
import os
import select
import signal
import socket
import sys
import traceback

from grader.instructor.sandbox.sweeper import Sweeper, uid_of
from grader.instructor.sandbox.uids import Lease

PRELOAD = (
    "langgraph.graph",
    "langgraph.runtime",
    "jsonschema",
    "agtool.inventory",
    "agtool.contract",
    "grader.kit.boundary.runner",
    "grader.kit.boundary.channel",
    "grader.kit.compiled",
    "grader.instructor.sandbox.confine",
    "pyseccomp",
)
TRUSTED = "grader.instructor.trusted"
UNCAUGHT = 70  # a child's exit code when an exception escaped everything
CONFINED = b"confined"  # what a child says, on a pipe its submission never holds, once every layer is up
_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36
_FOLDERS: set[str] = set()  # every folder a workdir of ours was made in


class _GraderGone(Exception):
    """SIGTERM: the parent-death signal (the grader was killed, even by SIGKILL), or a stop."""


def _grader_gone(signum, frame) -> None:
    raise _GraderGone


def main() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    grader = os.getppid()
    # SIGTERM, not SIGKILL, when the grader dies: the sessions it left open are ended first.
    signal.signal(signal.SIGTERM, _grader_gone)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != grader:
        return
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # a submission's orphans come back here
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is the grader's to handle
    sweeper = Sweeper() if os.geteuid() == 0 else None  # before the preloads: small
    lease = Lease() if sweeper else None
    if sweeper and lease:  # a block an earlier grader held: nothing of its children may be left
        for uid in _uids_running(lease):
            sweeper.sweep(uid)
    links: dict[socket.socket, dict[int, dict]] = {}  # each socket's open sessions: pid -> job
    try:
        for name in PRELOAD:
            importlib.import_module(name)
        _prepare_confinement()
        _warm_langgraph()
        gc.collect()
        gc.freeze()  # what every child shares stays shared (no copy on write by the collector)
        _serve(socket.socket(fileno=int(sys.argv[1])), links, sweeper, lease)
    except _GraderGone:
        pass
    finally:
        # The grader is going: nothing of ours outlives this process, not even as a zombie or a workdir.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for sessions in links.values():
            _end_all(sessions, sweeper)
        _kill_strays(set())
        for folder in _FOLDERS:  # the graders' folders of workdirs, once empty (a pool worker's exit skips its own)
            with contextlib.suppress(OSError):
                os.rmdir(folder)


def _prepare_confinement() -> None:
    """What every child's confinement computes alike, computed here once: the children inherit it."""
    # Here, not at the top: main() imports them as PRELOAD, after the sweeper has forked (a small
    # process forks cheaply); these names only reach what PRELOAD has loaded by now.
    from grader.instructor.sandbox import confine, seccomp

    confine.readable_paths()
    if seccomp.available() is None:
        seccomp.program()


def _warm_langgraph() -> None:
    """Compile and run a small graph of the lab's shape once, so that every child forks with what
    LangGraph builds lazily on a first compile and a first run (a fifth of a stage-6 child's first
    answer). Nothing of the lab's: the graph is this one, and LangGraph's sync run leaves no thread
    (a thread left here would make every fork unsafe: tests/sandbox look for one)."""
    from dataclasses import dataclass
    from typing import TypedDict

    from langgraph.graph import END, StateGraph
    from langgraph.runtime import Runtime

    class State(TypedDict, total=False):
        count: int
        path: list

    @dataclass
    class Context:
        limit: int = 1

    def step(state: State, runtime: Runtime[Context]) -> dict:
        return {"count": state.get("count", 0) + 1, "path": [*state.get("path", []), "step"]}

    def after(state: State, runtime: Runtime[Context]) -> str:
        return END if state["count"] >= runtime.context.limit else "step"

    graph = StateGraph(State, context_schema=Context)
    graph.add_node("step", step)
    graph.set_entry_point("step")
    graph.add_conditional_edges("step", after, ["step", END])
    compiled = graph.compile()
    compiled.invoke({}, config={"recursion_limit": 5}, context=Context(limit=2))
    for _ in compiled.stream({}, stream_mode=["values", "updates"], context=Context()):
        pass


def _serve(
    first: socket.socket, links: dict[socket.socket, dict[int, dict]], sweeper: Sweeper | None, lease: Lease | None
) -> None:
    """Answer the orders on every link until the first one closes."""
    ours = {sweeper.pid} if sweeper else set()  # children that are not strays
    links[first] = {}

    def drop(link: socket.socket) -> None:  # the grader, or a worker of its, is gone: so are its sessions
        _end_all(links[link], sweeper)
        del links[link]
        link.close()

    while first in links:
        for link in select.select(list(links), [], [])[0]:
            try:
                message, fds, _, _ = socket.recv_fds(link, 1 << 16, 3)
            except OSError:
                message, fds = b"", []
            if not message:
                drop(link)
                continue
            order = json.loads(message)
            sessions = links[link]
            handed: list[socket.socket] = []  # sockets that go out with the answer
            if order["op"] == "fork":
                job = order["job"]
                job["uid"] = lease.next() if lease and job["layers"]["drop_user"] else None
                _FOLDERS.add(os.path.dirname(job["workdir"]))
                zygote = os.getpid()  # before the fork: should it die before the child confines, the child knows
                pid = os.fork()
                if pid == 0:
                    signal.signal(signal.SIGTERM, signal.SIG_DFL)
                    for each in links:
                        each.close()
                    _child(job, zygote, *fds)  # never returns
                for fd in fds:
                    os.close(fd)
                sessions[pid] = job
                answer: dict = {"pid": pid, "uid": job["uid"]}
            elif order["op"] == "reap":
                if sweeper and order.get("uid") is not None:
                    sweeper.sweep(order["uid"])
                status, removed = 0, None
                if order["pid"] in sessions:
                    status = os.waitpid(order["pid"], 0)[1]
                    removed = remove(sessions.pop(order["pid"])["workdir"])  # here: a worker may die next
                live = [job for each in links.values() for job in each.values()]
                _kill_strays({pid for each in links.values() for pid in each} | ours, live)
                answer = {"status": status, "removed": removed}
            elif order["op"] == "link":
                ours_end, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                links[ours_end] = {}
                answer, handed = {"linked": True}, [theirs]
            else:
                answer = {"error": f"no such op: {order['op']!r}"}
            try:
                socket.send_fds(link, [json.dumps(answer).encode()], [each.fileno() for each in handed])
            except OSError:  # it stopped between its order and this answer (a worker killed mid-request)
                drop(link)
            for each in handed:
                each.close()


def _end_all(sessions: dict[int, dict], sweeper: Sweeper | None) -> None:
    """End every session of a link, each forgotten only once it is ended (a SIGTERM may come between)."""
    while sessions:
        pid, job = next(iter(sessions.items()))
        _end(pid, job, sweeper)
        del sessions[pid]


def _end(pid: int, job: dict, sweeper: Sweeper | None) -> None:
    """End a session whose grading process died: what its own close would have done."""
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(pid, signal.SIGKILL)
    if sweeper and job["uid"] is not None:
        sweeper.sweep(job["uid"])
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
    remove(job["workdir"])
    with contextlib.suppress(OSError):  # and the dead process's folder of workdirs, once it is empty
        os.rmdir(os.path.dirname(job["workdir"]))


def remove(workdir: str) -> str | None:
    """Remove a child's workdir; what could not be removed, said (never ignored, never raised).

    Iterative, one directory open at a time, every step relative to an open directory: a
    child's tree may be thousands of levels deep (shutil.rmtree recurses on Python 3.11 and
    raises RecursionError there), longer than PATH_MAX, and wider than the fd limit. Links
    are removed, never followed. Each step back up is checked to land in the very directory it
    came down from: a process of the child still alive (without a uid of its own, strays are
    killed after this) could move a directory mid-walk, and ".." must never lead out of the tree.
    """
    problems: list[str] = []
    try:
        _remove_tree(workdir, problems)
    except Exception as error:  # a removal that fails is reported, not raised: the grade goes on
        problems.append(f"{workdir}: {error!r}")
    return f"could not remove {problems[0]}" if problems else None


_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _remove_tree(top: str, problems: list[str]) -> None:
    try:
        here = os.open(top, _DIRECTORY)
    except FileNotFoundError:
        return
    below: list[str] = []  # the names from top down to `here`
    above: list[tuple[int, int]] = []  # (device, inode) of each directory above `here`
    stuck: list[set[str]] = [set()]  # per level, the names that would not go (not tried again)
    try:
        while True:
            into = None
            with os.scandir(here) as entries:
                for entry in entries:
                    if entry.name in stuck[-1]:
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        into = entry.name
                        break
                    try:
                        os.unlink(entry.name, dir_fd=here)
                    except OSError as error:
                        problems.append(f"{os.path.join(top, *below, entry.name)}: {error.strerror}")
                        stuck[-1].add(entry.name)
            if into is not None:
                try:
                    deeper = os.open(into, _DIRECTORY, dir_fd=here)
                except OSError as error:
                    problems.append(f"{os.path.join(top, *below, into)}: {error.strerror}")
                    stuck[-1].add(into)
                    continue
                above.append(_identity(here))
                os.close(here)
                here = deeper
                below.append(into)
                stuck.append(set())
                continue
            if not below:
                break
            name, left = below.pop(), stuck.pop()
            upper = os.open("..", _DIRECTORY, dir_fd=here)
            os.close(here)
            here = upper
            if _identity(here) != above.pop():
                problems.append(f"{os.path.join(top, *below, name)}: moved while it was removed")
                return
            if left:  # not empty: it cannot go, and what stopped it is said already
                stuck[-1].add(name)
                continue
            try:
                os.rmdir(name, dir_fd=here)
            except OSError as error:
                problems.append(f"{os.path.join(top, *below, name)}: {error.strerror}")
                stuck[-1].add(name)
    finally:
        os.close(here)
    if not stuck[0]:
        try:
            os.rmdir(top)
        except OSError as error:
            problems.append(f"{top}: {error.strerror}")


def _identity(fd: int) -> tuple[int, int]:
    status = os.fstat(fd)
    return status.st_dev, status.st_ino


def _kill_strays(sessions: set[int], live: list[dict] | None = None) -> None:
    """Kill and reap every child of this zygote that is not a live session (orphans of a submission),
    but those of a live session's own uid: a classmate's child, graded beside, may be waiting on its
    own (a daemon it double-forked). Without uids no orphan can be told apart: while another session
    lives, none is killed here (each is when the last session ends, or the zygote does)."""
    uids = {job["uid"] for job in live or ()}
    if None in uids:
        return
    for _ in range(1000):
        strays = {pid for pid in _children() - sessions if uid_of(pid) not in uids}
        if not strays:
            return
        for pid in strays:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in strays:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _children() -> set[int]:
    pids: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as children:
            pids.update(map(int, children.read().split()))
    return pids


def _uids_running(lease: Lease) -> set[int]:
    """The uids of the lease's block that some process still runs as (a grader that was killed)."""
    uids = (uid_of(int(entry)) for entry in os.listdir("/proc") if entry.isdigit())
    return {uid for uid in uids if uid is not None and uid in lease}


def _child(job: dict, zygote: int, from_parent: int, to_parent: int, confined: int) -> None:
    """Confine this process, say so on `confined`, then serve requests until the parent closes
    the channel. Never returns.

    Only this code, before any of the submission's, holds `confined`: what comes on it is the
    grader's own word, where an exit code (any submission can os._exit(anything)) is not.
    """
    # PRELOAD's, loaded in main(): named here, not at the top, for the sweeper's small fork (above).
    from grader.instructor.sandbox import confine
    from grader.kit import compiled
    from grader.kit.boundary import channel, runner

    code = UNCAUGHT
    try:
        stage = job["stage"]
        trusted = [
            importlib.import_module(f"{TRUSTED}.{name}")
            for number, name in _trusted_modules().items()
            if number < stage
        ]
        bind = importlib.import_module(TRUSTED).bind if trusted else (lambda module, below: {})
        try:
            confine.enter(job, keep={from_parent, to_parent, confined}, zygote=zygote)
        except BaseException as error:
            traceback.print_exc()
            os.write(confined, f"{type(error).__name__}: {error}".encode()[:1000])
            os._exit(1)
        os.write(confined, CONFINED)
        # Compiled before any of the submission runs, so its digest, said here, is the grader's word too.
        # After CONFINED: a compile that kills the child is the submission's doing, not the sandbox's.
        compiled_code = compiled.prepare(job, confined)
        os.close(confined)
        _hide_grader()
        channel.serve(
            functools.partial(runner.Child, shown=job["shown"]),
            job["path"],
            lambda module: bind(module, stage),
            from_parent,
            to_parent,
            compiled_code,
        )
        code = 0
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code)


def _trusted_modules() -> dict[int, str]:
    return importlib.import_module(TRUSTED).MODULES


class _HideGrader:
    """Refuses any module of the grader not already loaded: with Landlock its files are unreadable too."""

    def find_spec(self, name, path=None, target=None):
        if name == "grader" or name.startswith("grader."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def _hide_grader() -> None:
    sys.modules["__main__"] = type(sys)("__main__")  # this zygote runs as __main__
    sys.meta_path.insert(0, _HideGrader())


if __name__ == "__main__":
    main()
