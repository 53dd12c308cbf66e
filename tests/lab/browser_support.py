"""What the browser tests share: Debian's Chromium under Playwright, and waiting on a JupyterLab.

A missing piece fails the test with what to install, never skips it: `make test`
installs Chromium (browser-deps) and requirements.txt brings Playwright.
"""

import contextlib
import html
import json
import os
import re
import select
import shlex
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
# Headless, and quiet: without the networking flags Chromium keeps calling
# Google's hosts, which this machine's closed network refuses.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"  # tests/artifacts/, which git ignores
SECONDS = 1000  # Playwright counts in milliseconds
# The news announcement would pop up over the notebook; it is a plugin like any other. The app, as
# window.jupyterapp: a test waits on its kernel connection's state (kernel_idle), not on the server's.
PAGE_CONFIG = {
    "disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True},
    "exposeAppInBrowser": "true",
}


def lab_config(folder: Path) -> tuple[dict[str, str], Path]:
    """(environment, file) for a JupyterLab a test starts in `folder`: a jupyter_server_config.json of its
    own with no token, port 0 (the kernel picks a free one as the server binds: a port chosen by the
    test and bound later could be taken by another server meanwhile), and a "browser" that writes the
    address it is asked to open into `file`, a FIFO (served_at reads it, and the port with it)."""
    config, opened = folder / "jupyter-config", folder / "opened"
    os.mkfifo(opened)  # read by served_at as the browser writes it: no file to poll for
    (config / "labconfig").mkdir(parents=True)
    (config / "labconfig" / "page_config.json").write_text(json.dumps(PAGE_CONFIG))
    record = [sys.executable, "-c", "import sys; open(sys.argv[1], 'a').write(sys.argv[2] + '\\n')", str(opened), "%s"]
    (config / "jupyter_server_config.json").write_text(
        json.dumps(
            {
                "ServerApp": {
                    "ip": "127.0.0.1",
                    "port": 0,
                    "port_retries": 0,
                    "browser": shlex.join(record),
                },
                "IdentityProvider": {"token": ""},
                "LabApp": {"check_for_updates_class": "jupyterlab.NeverCheckForUpdate"},
            }
        )
    )
    env = {
        "JUPYTER_CONFIG_DIR": str(config),
        "JUPYTER_RUNTIME_DIR": str(folder / "runtime"),
        "IPYTHONDIR": str(folder / "ipython"),
    }
    return env, opened


def served_at(server: subprocess.Popen, opened: Path, log: Path) -> tuple[str, str]:
    """(the address the server asked the browser to open, the server's own address), once it is serving."""
    first = told(opened, server, log, 120).split()[0]
    if first.startswith("file:"):  # JupyterLab's redirect file: the address it leads to, port and all
        redirect = Path(urllib.parse.unquote(urllib.parse.urlsplit(first).path)).read_text()
        found = re.search(r'url=([^"]+)"', redirect)
        assert found, f"JupyterLab's redirect file {first} names no address"
        first = html.unescape(found[1])
    parts = urllib.parse.urlsplit(first)
    url = f"{parts.scheme}://{parts.netloc}"
    # It listens before it opens a browser (the address names the port it bound): this waits for its answer.
    get_json(f"{url}/api/status", timeout=60)
    return first, url


def told(fifo: Path, server: subprocess.Popen, log: Path, seconds: float) -> str:
    """The line the "browser" writes into `fifo` once JupyterLab opens it; fails if the server ends first,
    or after `seconds` (a bound for a server that hangs, not a time to wait)."""
    said = b""
    reading = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # no writer yet: reads as empty, not as ended
    ended = os.pidfd_open(server.pid)
    try:
        deadline = time.monotonic() + seconds
        while not said.endswith(b"\n"):
            ready = select.select([reading, ended], [], [], max(0.0, deadline - time.monotonic()))[0]
            if ended in ready:
                pytest.fail(f"JupyterLab exited with code {server.wait()}:\n{log.read_text()[-3000:]}")
            if not ready:
                pytest.fail(f"JupyterLab opened no browser within {seconds} s; it said:\n{log.read_text()[-3000:]}")
            said += os.read(reading, 4096)
    finally:
        os.close(reading)
        os.close(ended)
    return said.decode()


def get_json(url: str, timeout: float = 5):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.load(response)


def shut_down(server: subprocess.Popen):
    """SIGTERM to the server's whole group (the server then shuts its kernels down; a `make` in
    front of it stops too), then SIGKILL for whatever is left of the group."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=10)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.pid, signal.SIGKILL)


def kernel_idle(page, notebook: str, seconds: float) -> None:
    """Return once the page shows `notebook` with its kernel connected and idle, as JupyterLab's own kernel
    connection has it (what Run All Cells sends its cells through)."""
    ready = """notebook => {
        const context = window.jupyterapp?.shell.currentWidget?.sessionContext;
        const kernel = context?.session?.kernel;
        return context?.path.endsWith(notebook) && kernel?.connectionStatus === "connected" && kernel.status === "idle";
    }"""
    page.wait_for_function(ready, arg=notebook, timeout=seconds * SECONDS)


# One for the module (tests/lab/test_browser.py), not for the session: while Playwright's sync API is
# open, the thread's asyncio loop counts as running, and every later anyio.run in that worker
# refuses to start. The module's tests share a worker (conftest.py), so it closes before any other.
@pytest.fixture(scope="module")
def chromium():
    """Debian's Chromium under Playwright; a missing piece fails the test with what to install."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("The browser test needs Playwright for Python: pip install -r requirements.txt")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"The browser test needs Debian's Chromium at {CHROMIUM}: "
            "apt-get install -y chromium (make browser-deps does it as root)"
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()
