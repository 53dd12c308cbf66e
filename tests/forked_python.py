"""The suite's Pythons forked from a pre-imported one: notebook kernels, and command lines (a pytest plugin).

A Python that imports ipykernel, LangGraph (through agtool.tools), jsonschema, Hypothesis
or the MCP SDK spends seconds of CPU on it before its first line, and the suite starts
dozens: nbval's kernels, the kit's, `python -c KIT_CHECK`, `python -m agtool.mcp_server`.
`command([python, *args])` gives a command line that runs `python *args` as a fork of a
server that imported those once: a small client (python -S: a few ms) hands its stdio,
cwd, environment and arguments to the server, which forks; the fork becomes that Python.
jupyter_client's launches of `python -m ipykernel_launcher` go through it (this plugin).

- The server imports third-party modules only, never agtool or grader: each fork imports
  the lab's modules itself, from the sys.path its own cwd and PYTHONPATH give, as a fresh
  Python would (the kit's, in the kit's runs).
- The client is the process its caller manages: it relays SIGINT (an interrupt), SIGTERM
  and SIGHUP to the fork, and exits as the fork did (its code, or the same signal). A fork
  whose client is killed sees its connection close and exits at once.
- One server for a run: the first process that needs it starts it, and its address in
  AGTOOL_PYTHON_SERVER reaches the pytest runs started below (the kit's nbval runs).

Loaded by the root conftest.py, and with `-p` by tests/instructor/test_release.py's nbval runs in a kit
(their PYTHONPATH holds this checkout after the kit, for this module alone: the launch hook
takes it off again for the kernel).
"""

import builtins
import contextlib
import gc
import importlib
import io
import json
import os
import runpy
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import traceback
import types
from pathlib import Path

ADDRESS = "AGTOOL_PYTHON_SERVER"
HERE = str(Path(__file__).resolve().parents[1])  # the checkout: on PYTHONPATH for this module only
# Third-party only: what the suite's Pythons import first, and costs most.
PRELOAD = (
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "langgraph.graph",
    "langgraph.runtime",
    "jsonschema",
    "hypothesis",
    "mcp.server.lowlevel",
    "mcp.server.stdio",
)
_PR_SET_PDEATHSIG = 1
LISTENING = b"listening\n"  # what the server says on its stdout once it accepts clients

# The client, run as `python -S -c CLIENT SOCKET ARG...`: standard library only, and small.
CLIENT = """
import json, os, signal, socket, sys
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.connect(sys.argv[1])
order = {"argv": sys.argv[2:], "cwd": os.getcwd(), "env": dict(os.environ)}
socket.send_fds(server, [json.dumps(order).encode() + b"\\n"], [0, 1, 2])
answers = server.makefile()
child = int(answers.readline())
for each in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(each, lambda number, frame: os.kill(child, number))
code = os.waitstatus_to_exitcode(int(answers.readline() or 0))
if code < 0:
    signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
sys.exit(code)
"""

_STARTED: subprocess.Popen | None = None  # the server, if this process started it


def address() -> str:
    """The server's socket, started now if no process of this run has started it yet."""
    global _STARTED
    if ADDRESS not in os.environ:
        path = os.path.join(tempfile.mkdtemp(prefix="agtool-python-"), "socket")
        _STARTED = subprocess.Popen(
            [sys.executable, "-m", __name__, path],
            cwd=HERE,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        assert _STARTED.stdout is not None
        with _STARTED.stdout as said:  # a line once it listens (its imports done); nothing if it ends first
            if said.readline() != LISTENING:
                raise RuntimeError(f"the forking server ended (exit code {_STARTED.wait()})")
        os.environ[ADDRESS] = path
    return os.environ[ADDRESS]


def command(argv: list[str]) -> list[str]:
    """`python ARGS` (argv[0] this Python), as a fork of the server."""
    assert argv[0] == sys.executable and argv[1] in ("-m", "-c"), argv
    return [sys.executable, "-S", "-c", CLIENT, address(), *argv[1:]]


def pytest_configure(config):
    try:
        from jupyter_client.provisioning import local_provisioner
    except ImportError:  # .venv-newest (Makefile: test-newest) has no Jupyter, and so no kernel to launch
        return

    launch = local_provisioner.launch_kernel

    def forked(cmd, **kwargs):
        if cmd[:3] != [sys.executable, "-m", "ipykernel_launcher"]:
            return launch(cmd, **kwargs)
        env = dict(kwargs.get("env") or os.environ)
        env.pop(ADDRESS, None)
        path = [entry for entry in env.get("PYTHONPATH", "").split(os.pathsep) if entry and entry != HERE]
        env["PYTHONPATH"] = os.pathsep.join(path)
        if not path:
            del env["PYTHONPATH"]
        return launch(command(cmd), **{**kwargs, "env": env})

    local_provisioner.launch_kernel = forked  # type: ignore[assignment]  # the same call, by keywords


def pytest_unconfigure(config):
    if _STARTED is not None:
        _STARTED.kill()
        _STARTED.wait()
        path = os.environ.pop(ADDRESS)
        for remove, name in ((os.unlink, path), (os.rmdir, os.path.dirname(path))):
            with contextlib.suppress(OSError):
                remove(name)


# ── the server ───────────────────────────────────────────────────────────────


def serve(path: str) -> None:
    import ctypes

    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # it goes with its pytest
    # What agtool/__init__.py does in every lab process, before jsonschema is imported here (the
    # forks are lab processes, and agtool itself must not be imported here): no IRI parser.
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
    for name in PRELOAD:
        importlib.import_module(name)
    assert threading.active_count() == 1, "a thread started before fork() would be missing in every fork"
    assert not [name for name in sys.modules if name.split(".")[0] in ("agtool", "grader")]
    gc.collect()
    gc.freeze()  # what every fork shares stays shared: no collection walks (and so copies) it
    own = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    base = [entry for entry in sys.path[1:] if entry not in own]  # what every Python here has
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".new")
    listener.listen(16)
    os.rename(path + ".new", path)
    os.write(1, LISTENING)  # to the process that started this one (address()), which waits for it
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)  # the pipe goes; fd 1 stays taken (a fork's stdout, received, is put there)
    os.close(quiet)
    running: dict[int, tuple[int, socket.socket]] = {}  # pidfd -> (pid, its client)
    while True:
        waiting: list = [listener, *running]
        for ready in select.select(waiting, [], [])[0]:
            if ready in running:  # a fork ended: its client exits as it did
                pid, client = running.pop(ready)
                status = os.waitpid(pid, 0)[1]
                with contextlib.suppress(OSError):
                    client.sendall(f"{status}\n".encode())
                client.close()
                os.close(ready)
                continue
            client, _ = listener.accept()
            message, fds, _, _ = socket.recv_fds(client, 1 << 20, 3)
            while not message.endswith(b"\n"):
                message += client.recv(1 << 20)
            pid = os.fork()
            if pid == 0:
                listener.close()
                for pidfd, (_, other) in running.items():
                    os.close(pidfd)
                    other.close()
                _become(json.loads(message), fds, client, base)  # never returns
            for fd in fds:
                os.close(fd)
            client.sendall(f"{pid}\n".encode())
            running[os.pidfd_open(pid)] = (pid, client)


def _become(order: dict, fds: list[int], client: socket.socket, base: list[str]) -> None:
    """Become `python ARGV` as started in the order's cwd and environment; exit as it would."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    for name, fd in (("stdin", 0), ("stdout", 1), ("stderr", 2)):  # made for these fds, as at a start
        setattr(sys, name, _stream(fd))
        setattr(sys, f"__{name}__", getattr(sys, name))
    os.chdir(order["cwd"])
    os.environ.clear()
    os.environ.update(order["env"])
    threading.Thread(target=_exit_with, args=(client,), daemon=True).start()
    option, target, *args = order["argv"]
    pythonpath = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
    sys.path[:] = [os.getcwd() if option == "-m" else "", *pythonpath, *base]  # as a fresh `python -m`/`-c`
    try:
        if option == "-m":
            sys.argv = [target, *args]  # runpy puts the module's path first
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            sys.argv = ["-c", *args]
            main = types.ModuleType("__main__")
            main.__builtins__ = builtins  # type: ignore[attr-defined]
            sys.modules["__main__"] = main
            exec(compile(target, "<string>", "exec"), main.__dict__)
    except SystemExit:
        raise
    except BaseException as error:  # what a fresh Python prints, without this module's frames
        traceback.print_exception(type(error), error, error.__traceback__.tb_next if error.__traceback__ else None)
        if isinstance(error, KeyboardInterrupt):
            sys.stderr.flush()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        raise SystemExit(1) from None
    raise SystemExit(0)


def _stream(fd: int) -> io.TextIOWrapper:
    """sys.stdin, sys.stdout or sys.stderr as Python makes them: stderr line-buffered and
    backslash-escaping, stdout line-buffered on a terminal only."""
    raw = io.FileIO(fd, "r" if fd == 0 else "w", closefd=False)
    if fd == 0:
        return io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8")
    buffered = io.BufferedWriter(raw)
    if fd == 2:
        return io.TextIOWrapper(buffered, encoding="utf-8", errors="backslashreplace", line_buffering=True)
    return io.TextIOWrapper(buffered, encoding="utf-8", line_buffering=raw.isatty())


def _exit_with(client: socket.socket) -> None:
    """Its client is gone (killed: a timeout, or jupyter_client's last resort): so is this Python."""
    while client.recv(1):
        pass
    os._exit(1)


if __name__ == "__main__":
    serve(sys.argv[1])
