"""Notebook kernels forked from a pre-imported Python, for the suite's nbval runs (a pytest plugin).

A kernel started the usual way spends seconds of CPU importing ipykernel, LangGraph
(through agtool.tools), jsonschema and Hypothesis before its first cell, and the suite
starts about 25 of them. With this plugin, jupyter_client's launch of `python -m
ipykernel_launcher -f CONNECTION` starts a small client instead (python -S: a few ms),
which asks a server to fork the kernel from a process that imported those once.

- The server imports third-party modules only, never agtool or grader: each kernel
  imports the lab's modules itself, from the sys.path its own environment gives
  (its cwd, then its PYTHONPATH: the kit's, in the kit's runs), as a fresh one would.
- The client is the process jupyter_client manages: it hands its stdio over, relays
  SIGINT (an interrupt), SIGTERM and SIGHUP to the kernel, and ends when the kernel
  ends. A kernel whose client is killed sees its connection close and exits at once.
- One server for a whole run: the first process that needs it starts it, and its
  address in AGTOOL_KERNEL_SERVER reaches the pytest runs started below (the kit's).

Loaded by the root conftest.py, and with `-p` by tests/test_release.py's nbval runs in
a kit (their PYTHONPATH holds this checkout after the kit, for this module alone: it is
taken off again for the kernel).
"""

import contextlib
import gc
import importlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ADDRESS = "AGTOOL_KERNEL_SERVER"
HERE = str(Path(__file__).resolve().parents[1])  # the checkout: on PYTHONPATH for this module only
# Third-party only: what a kernel of the lab imports first, and costs most.
PRELOAD = (
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "langgraph.graph",
    "langgraph.runtime",
    "jsonschema",
    "hypothesis",
)
_PR_SET_PDEATHSIG = 1

# The client, run as `python -S -c CLIENT SOCKET ARG...`: standard library only, and small.
CLIENT = """
import json, os, signal, socket, sys
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.connect(sys.argv[1])
order = {"argv": sys.argv[2:], "cwd": os.getcwd(), "env": dict(os.environ)}
socket.send_fds(server, [json.dumps(order).encode() + b"\\n"], [0, 1, 2])
kernel = int(server.makefile().readline())
for each in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(each, lambda number, frame: os.kill(kernel, number))
while server.recv(1):
    pass
"""

_STARTED: subprocess.Popen | None = None  # the server, if this process started it


def address() -> str:
    """The server's socket, started now if no process of this run has started it yet."""
    global _STARTED
    if ADDRESS not in os.environ:
        folder = tempfile.mkdtemp(prefix="agtool-kernels-")
        path = os.path.join(folder, "socket")
        _STARTED = subprocess.Popen(
            [sys.executable, "-m", __name__, path], cwd=HERE, stdin=subprocess.DEVNULL, start_new_session=True
        )
        while not os.path.exists(path):  # it listens once its imports are done
            if _STARTED.poll() is not None:
                raise RuntimeError(f"the kernel server ended (exit code {_STARTED.returncode})")
            select.select([], [], [], 0.02)
        os.environ[ADDRESS] = path
    return os.environ[ADDRESS]


def pytest_configure(config):
    from jupyter_client.provisioning import local_provisioner

    launch = local_provisioner.launch_kernel

    def forked(cmd, **kwargs):
        if cmd[1:3] != ["-m", "ipykernel_launcher"]:
            return launch(cmd, **kwargs)
        env = dict(kwargs.get("env") or os.environ)
        env.pop(ADDRESS, None)
        path = [entry for entry in env.get("PYTHONPATH", "").split(os.pathsep) if entry and entry != HERE]
        env["PYTHONPATH"] = os.pathsep.join(path)
        if not path:
            del env["PYTHONPATH"]
        return launch([sys.executable, "-S", "-c", CLIENT, address(), *cmd[3:]], **{**kwargs, "env": env})

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
    for name in PRELOAD:
        importlib.import_module(name)
    assert threading.active_count() == 1, "a thread started before fork() would be missing in every kernel"
    assert not [name for name in sys.modules if name.split(".")[0] in ("agtool", "grader")]
    gc.collect()
    gc.freeze()  # what every kernel shares stays shared: no collection walks (and so copies) it
    own = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    base = [entry for entry in sys.path[1:] if entry not in own]  # what every Python here has
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernels are reaped as they end
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".new")
    listener.listen(16)
    os.rename(path + ".new", path)
    while True:
        client, _ = listener.accept()
        message, fds, _, _ = socket.recv_fds(client, 1 << 20, 3)
        while not message.endswith(b"\n"):
            message += client.recv(1 << 20)
        order = json.loads(message)
        pid = os.fork()
        if pid == 0:
            listener.close()
            _kernel(order, fds, client, base)  # never returns
        for fd in fds:
            os.close(fd)
        client.sendall(f"{pid}\n".encode())
        client.close()


def _kernel(order: dict, fds: list[int], client: socket.socket, base: list[str]) -> None:
    """Become `python -m ipykernel_launcher ARGV` as started in the order's cwd and environment."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(order["cwd"])
        os.environ.clear()
        os.environ.update(order["env"])
        pythonpath = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
        sys.path[:] = [os.getcwd(), *pythonpath, *base]  # as `python -m` would have it
        sys.argv = [sys.executable, *order["argv"]]
        threading.Thread(target=_exit_with, args=(client,), daemon=True).start()
        from ipykernel import kernelapp

        kernelapp.launch_new_instance()
        code = 0
    finally:
        os._exit(code)


def _exit_with(client: socket.socket) -> None:
    """Its client is gone (jupyter_client killed it): so is this kernel."""
    while client.recv(1):
        pass
    os._exit(1)


if __name__ == "__main__":
    serve(sys.argv[1])
