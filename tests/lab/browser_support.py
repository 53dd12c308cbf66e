"""What the browser tests share: Debian's Chromium under Playwright, and waiting on a JupyterLab.

A missing piece fails the test with what to install, never skips it: `make test`
installs Chromium (browser-deps) and requirements.txt brings Playwright.
"""

import contextlib
import html
import json
import os
import re
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
# The news announcement would pop up over the notebook; it is a plugin like any other.
PAGE_CONFIG = {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}


def lab_config(folder: Path) -> tuple[dict[str, str], Path]:
    """(environment, file) for a JupyterLab a test starts in `folder`: a jupyter_server_config.json of its
    own with no token, port 0 (the kernel picks a free one as the server binds: a port chosen by the
    test and bound later could be taken by another server meanwhile), and a "browser" that writes the
    address it is asked to open into `file` (served_at reads it, and the port with it)."""
    config, opened = folder / "jupyter-config", folder / "opened.txt"
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
    first = wait_for(
        "JupyterLab opening a browser", lambda: opened.exists() and opened.read_text().split(), 120, server, log
    )[0]
    if first.startswith("file:"):  # JupyterLab's redirect file: the address it leads to, port and all
        redirect = Path(urllib.parse.unquote(urllib.parse.urlsplit(first).path)).read_text()
        found = re.search(r'url=([^"]+)"', redirect)
        assert found, f"JupyterLab's redirect file {first} names no address"
        first = html.unescape(found[1])
    parts = urllib.parse.urlsplit(first)
    url = f"{parts.scheme}://{parts.netloc}"
    wait_for("JupyterLab answering", lambda: get_json(f"{url}/api/status"), 60, server, log)
    return first, url


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)


def wait_for(what: str, ready, seconds: float, server: subprocess.Popen, log: Path):
    """Poll ready() until it gives something true; fail naming `what` (with the server's log) if not."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"JupyterLab exited with code {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            found = ready()
        except OSError:  # not listening yet
            found = None
        if found:
            return found
        time.sleep(0.25)
    pytest.fail(f"{what} did not happen within {seconds} s; JupyterLab said:\n{log.read_text()[-3000:]}")


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


def kernel_idle(url: str, notebook: str) -> bool:
    sessions = get_json(f"{url}/api/sessions")
    return any(s["path"].endswith(notebook) and s["kernel"]["execution_state"] == "idle" for s in sessions)


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
