"""The panel in a real browser: JupyterLab 4 in headless Chromium runs a notebook that uses it.

JupyterLab serves a temp dir holding tests/browser/panel_demo.ipynb on a
free loopback port, with no token. Debian's Chromium, driven by Playwright
(no Playwright browser download: it cannot happen here), opens the notebook,
runs all its cells from the Run menu and reads the panel's rendered text.
The screenshot lands in tests/artifacts/panel.png.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import agtool
from tests.browser_support import (
    ARTIFACTS,
    PAGE_CONFIG,
    SECONDS,
    chromium,  # noqa: F401  (a fixture: pytest finds it by its name in this module)
    free_port,
    get_json,
    kernel_idle,
    shut_down,
    wait_for,
)

pytestmark = pytest.mark.browser  # one worker runs both browser tests: see conftest.py

NOTEBOOK = Path(__file__).parent / "browser" / "panel_demo.ipynb"


@pytest.fixture
def lab(tmp_path):
    """(url, server, log) of a JupyterLab serving tmp_path; shut down whatever happens."""
    shutil.copy(NOTEBOOK, tmp_path)
    config = tmp_path / ".jupyter"  # this run's own settings, not the user's
    (config / "labconfig").mkdir(parents=True)
    (config / "labconfig" / "page_config.json").write_text(json.dumps(PAGE_CONFIG))
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(config),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / ".runtime"),
        "IPYTHONDIR": str(tmp_path / ".ipython"),
    }
    port, log = free_port(), tmp_path / "jupyterlab.log"
    # sys.executable runs JupyterLab, so the kernelspec's "python" is this venv's Python too.
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        "--ServerApp.allow_root=True",
        f"--ServerApp.root_dir={tmp_path}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    with log.open("w") as output:
        server = subprocess.Popen(
            command, stdout=output, stderr=subprocess.STDOUT, env=env, cwd=tmp_path, start_new_session=True
        )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for("JupyterLab answering", lambda: get_json(f"{url}/api/status"), 120, server, log)
        yield url, server, log
    finally:
        shut_down(server)


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
    wait_for("the notebook's kernel starting", lambda: kernel_idle(url, "panel_demo.ipynb"), 90, server, log)
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
