"""The panel in a real browser: JupyterLab 4 in headless Chromium runs a notebook that uses it.

JupyterLab serves a temp dir holding tests/browser/panel_demo.ipynb on a
free loopback port, with no token. Debian's Chromium, driven by Playwright
(no Playwright browser download: it cannot happen here), opens the notebook,
runs all its cells from the Run menu and reads the panel's rendered text.
The screenshot lands in tests/artifacts/panel.png.
"""

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import agtool

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
# Headless, and quiet: without the networking flags Chromium keeps calling
# Google's hosts, which this machine's closed network refuses.
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
NOTEBOOK = Path(__file__).parent / "browser" / "panel_demo.ipynb"
ARTIFACTS = Path(__file__).parent / "artifacts"
SECONDS = 1000  # Playwright counts in milliseconds


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


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
    """SIGTERM (the server then shuts its kernels down), then SIGKILL for whatever is left of its group."""
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=10)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.pid, signal.SIGKILL)


@pytest.fixture
def lab(tmp_path):
    """(url, server, log) of a JupyterLab serving tmp_path; shut down whatever happens."""
    shutil.copy(NOTEBOOK, tmp_path)
    config = tmp_path / ".jupyter"  # this run's own settings, not the user's
    (config / "labconfig").mkdir(parents=True)
    # The news announcement would pop up over the notebook; it is a plugin like any other.
    (config / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}))
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(config), "JUPYTER_RUNTIME_DIR": str(tmp_path / ".runtime"),
           "IPYTHONDIR": str(tmp_path / ".ipython")}
    port, log = free_port(), tmp_path / "jupyterlab.log"
    # sys.executable runs JupyterLab, so the kernelspec's "python" is this venv's Python too.
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
               f"--ServerApp.port={port}", "--ServerApp.port_retries=0", "--IdentityProvider.token=",
               "--ServerApp.password=", "--ServerApp.allow_root=True", f"--ServerApp.root_dir={tmp_path}",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    with log.open("w") as output:
        server = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env=env,
                                  cwd=tmp_path, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for("JupyterLab answering", lambda: get_json(f"{url}/api/status"), 120, server, log)
        yield url, server, log
    finally:
        shut_down(server)


@pytest.fixture
def chromium():
    """Debian's Chromium under Playwright; a missing piece fails the test with what to install."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("The browser test needs Playwright for Python: pip install -r requirements.txt")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"The browser test needs Debian's Chromium at {CHROMIUM}: "
                    "apt-get install -y chromium (make browser-deps does it as root)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def kernel_idle(url: str) -> bool:
    sessions = get_json(f"{url}/api/sessions")
    return any(s["path"].endswith("panel_demo.ipynb") and s["kernel"]["execution_state"] == "idle"
               for s in sessions)


def run_all_cells(page):
    """Run ▸ Run All Cells, from JupyterLab's menu bar."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()


def test_the_panel_renders_counters_reasons_and_path_in_jupyterlab(chromium, lab):
    from playwright.sync_api import expect

    url, server, log = lab  # after chromium: a missing browser fails before JupyterLab starts
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{url}/lab/tree/panel_demo.ipynb")
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=90 * SECONDS)
    wait_for("the notebook's kernel starting", lambda: kernel_idle(url), 90, server, log)
    run_all_cells(page)

    panel = page.locator(".agtool-panel")
    # The last cell's graph run is the last thing the panel shows.
    expect(panel.locator(".agtool-run-status")).to_have_text("status: answered", timeout=90 * SECONDS)

    outputs = page.locator(".jp-OutputArea-output").all_inner_texts()
    assert f"kernel: {sys.executable}" in "\n".join(outputs), outputs  # this venv's Python
    assert f"agtool: {agtool.__file__}" in "\n".join(outputs), outputs  # the editable install

    def counters(tool):
        return panel.locator(f".agtool-tool-{tool} .widget-label").all_inner_texts()

    # refused once at the door, one body run then a memo hit, two door calls in the run (one refused)
    assert counters("stock_lookup") == ["stock_lookup", "body runs: 2", "door calls: 4", "memo hits: 1"]
    assert counters("stock_lookup_v2") == ["stock_lookup_v2", "body runs: 1", "door calls: 1", "memo hits: 0"]
    assert counters("delivery_eta") == ["delivery_eta", "body runs: 1", "door calls: 1", "memo hits: 0"]
    expect(panel.locator(".agtool-memo")).to_have_text("memo entries: 1")

    expect(panel.locator(".agtool-stage-args")).to_contain_text("#1 args:allowed:region")
    expect(panel.locator(".agtool-stage-args")).to_contain_text("#3 args:range:limit")
    expect(panel.locator(".agtool-stage-tool")).to_contain_text("#2 tool:raised:KeyError")
    expect(panel.locator(".agtool-stage-result")).to_contain_text("#4 result:too_big:rows")
    expect(panel.locator(".agtool-reasons mark")).to_have_text("#4 result:too_big:rows")

    expect(panel.locator(".agtool-path")).to_have_text("path: pick → call → fix → call → fix → call → answer")
    expect(panel.locator(".agtool-attempts")).to_have_text("attempts: 3 of 3")
    expect(panel.locator(".agtool-envelope")).to_contain_text('"ok": true')

    page_text = page.locator("body").inner_text()
    assert "Traceback" not in page_text and "Error displaying widget" not in page_text

    ARTIFACTS.mkdir(exist_ok=True)
    panel.screenshot(path=ARTIFACTS / "panel.png")
    page.screenshot(path=ARTIFACTS / "lab.png")
