"""JupyterLab in a real headless Chromium: `make lab` as a student meets it, and the panel.

One `make lab` and one Chromium serve both tests (each starts in seconds of CPU, the
suite's dearest fixtures); each test has a page of its own.

The lab runs the Makefile's own `lab` rule (not a copy of its command line, so the
two cannot drift) in a copy of the repository in a temporary folder; the real
agtool/tools.py is never touched. Only what a test needs on top of `make lab` is set
from outside: a free port, no token, and a "browser" that writes down the address
JupyterLab asks it to open (in a jupyter_server_config.json of this run's own),
PYTHONPATH so the kernel imports the copy's agtool rather than the editable install,
and VENV, the Makefile's own variable, naming the venv these tests run in (`-o` so
make does not reinstall it). Debian's Chromium, driven by Playwright (no Playwright
browser download: it cannot happen here), then

- opens that address, as a student's browser would, finds agtool/ and notebooks/ at
  the top of the file browser, opens tools.py with clicks, edits a tool description,
  saves, re-runs the notebook's describe_tools() cell and sees the new description,
  with no kernel restart (%autoreload);
- opens tests/lab/browser/panel_demo.ipynb (copied beside them), runs all its cells from
  the Run menu and reads the panel's rendered text;
- opens notebook 02 and finds "What the grade judges" folded at its end, a Markdown list once opened.

The screenshots land in tests/artifacts/lab_*.png and panel.png.
"""

import os
import re
import shutil
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest

from tests.lab.browser_support import (
    ARTIFACTS,
    SECONDS,
    chromium,  # noqa: F401  (a fixture: pytest finds it by its name in this module)
    get_json,
    kernel_idle,
    lab_config,
    served_at,
    shut_down,
)

pytestmark = pytest.mark.browser  # its tests share one worker, for the module fixtures: see conftest.py

ROOT = Path(__file__).resolve().parents[2]
FIRST = "notebooks/01_contract.ipynb"
# A line of agtool/tools.py that notebook 01's describe_tools() cell prints.
DESCRIPTION = "Days for a SKU to reach a region."
EDITED = "Days for a SKU to reach a region, edited in the browser."
DESCRIBE_CELL = "lab.attempt(tools.describe_tools)"
PANEL_DEMO = Path(__file__).parent / "browser" / "panel_demo.ipynb"


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """What `make lab` needs of the repository, copied (mtimes kept), without caches, and the panel's demo."""
    copy = tmp_path_factory.mktemp("lab") / "repo"
    for folder in ("agtool", "notebooks"):
        shutil.copytree(ROOT / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_*"))
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copy2(ROOT / name, copy / name)
    shutil.copy(PANEL_DEMO, copy)
    assert DESCRIPTION in (copy / "agtool" / "tools.py").read_text()
    return copy


@pytest.fixture(scope="module")
def make_lab(chromium, repo):
    """(url opened, url of the server, server, log) for `make lab` run in the copy; stopped whatever happens.
    After chromium: a missing browser fails before JupyterLab starts."""
    folder = repo.parent  # the module's own temporary folder
    lab_env, opened = lab_config(folder)
    env = {**os.environ, **lab_env, "PYTHONPATH": str(repo)}
    for inherited in ("MAKEFLAGS", "MAKELEVEL"):  # a `make test` above us must not pass its flags down
        env.pop(inherited, None)
    venv = Path(sys.prefix)
    command = ["make", "--no-print-directory", "-o", f"{venv}/.installed", "lab", f"VENV={venv}"]
    log = folder / "make-lab.log"
    with log.open("w") as output:
        server = subprocess.Popen(
            command,
            cwd=repo,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        first, url = served_at(server, opened, log)
        yield first, url, server, log
    finally:
        shut_down(server)


def saving(path: str):
    """Is this response the server's to the page's saving `path` (a PUT of the contents API)?"""
    return lambda response: (
        response.request.method == "PUT" and urllib.parse.urlsplit(response.url).path.endswith(f"/api/contents/{path}")
    )


def listing(page) -> list[str]:
    """The names the file browser shows, in its order."""
    return page.locator(".jp-FileBrowser .jp-DirListing-item .jp-DirListing-itemText").all_inner_texts()


def open_in_file_browser(page, name: str):
    """Double-click `name` in the file browser's listing, as a student does."""
    page.locator(
        ".jp-FileBrowser .jp-DirListing-item",
        has=page.locator(".jp-DirListing-itemText", has_text=re.compile(rf"^{re.escape(name)}$")),
    ).dblclick()


def cell(page, source: str):
    return page.locator(".jp-Notebook .jp-Cell", has=page.locator(".jp-InputArea", has_text=source))


def test_make_lab_serves_the_repository_and_an_edit_to_tools_py_reaches_the_notebook(chromium, make_lab, repo):
    from playwright.sync_api import expect

    first, url, _, log = make_lab
    command = log.read_text().splitlines()[0]  # make echoes the recipe it runs: what a student's terminal shows
    assert "jupyter lab" in command and FIRST in command, command
    assert ("--allow-root" in command) == (os.getuid() == 0), command
    assert get_json(f"{url}/api/contents/agtool/tools.py")["path"] == "agtool/tools.py"  # 404 when notebooks/ was root

    page = chromium.new_page(viewport={"width": 1600, "height": 1000})
    page.goto(first)  # what `make lab` asked the browser to open: the first notebook
    expect(page).to_have_url(re.compile(rf"/lab/tree/{re.escape(FIRST)}"), timeout=60 * SECONDS)
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=90 * SECONDS)
    kernel_idle(page, FIRST, 90)
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
    describe = cell(page, DESCRIBE_CELL)
    expect(describe.locator(".jp-OutputArea")).to_contain_text(DESCRIPTION, timeout=120 * SECONDS)
    # the copy's module, not the real one (text_content: a cell scrolled out of view renders no inner text)
    module_line = cell(page, 'print("Your module:"').locator(".jp-OutputArea").text_content()
    assert f"Your module: {repo / 'agtool' / 'tools.py'}" in module_line, module_line

    # The file browser, at the server's root: the repository, not notebooks/.
    page.locator(".jp-BreadCrumbs-home").click()
    expect(page.locator(".jp-FileBrowser .jp-DirListing-itemText", has_text=re.compile("^agtool$"))).to_be_visible()
    assert {"agtool", "notebooks", "Makefile"} <= set(listing(page)), listing(page)
    open_in_file_browser(page, "agtool")
    expect(page.locator(".jp-FileBrowser .jp-DirListing-itemText", has_text=re.compile(r"^tools\.py$"))).to_be_visible()
    open_in_file_browser(page, "tools.py")
    editor = page.locator(".jp-FileEditor .cm-content")
    expect(editor).to_be_visible(timeout=30 * SECONDS)

    # Put the cursor just inside the description's closing quote and type: a student's edit.
    original = (repo / "agtool" / "tools.py").read_text()
    (line_number,) = [n for n, line in enumerate(original.splitlines()) if DESCRIPTION in line]
    editor.click()
    page.keyboard.press("Control+Home")
    for _ in range(line_number):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("End")
    line = original.splitlines()[line_number]
    for _ in range(len(line) - line.index(DESCRIPTION) - len(DESCRIPTION) + 1):  # back over '",' and the '.'
        page.keyboard.press("ArrowLeft")
    page.keyboard.type(EDITED[len(DESCRIPTION) - 1 : -1])  # ", edited in the browser", before the '.'
    expect(page.locator(".jp-FileEditor .cm-line", has_text=EDITED)).to_have_count(1)
    with page.expect_response(saving("agtool/tools.py"), timeout=30 * SECONDS) as saved:
        page.keyboard.press("Control+s")
    assert saved.value.ok, saved.value.status  # the server's answer: the file is written by then
    assert (repo / "agtool" / "tools.py").read_text() == original.replace(DESCRIPTION, EDITED)  # nothing else changed
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "lab_editor.png")

    # Back to the notebook: re-run the one cell, no restart; autoreload picks the edit up.
    page.locator(".lm-TabBar-tab", has_text="01_contract.ipynb").click()
    assert EDITED not in describe.locator(".jp-OutputArea").text_content()
    describe.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    expect(describe.locator(".jp-OutputArea")).to_contain_text(EDITED, timeout=60 * SECONDS)
    assert "Traceback" not in describe.locator(".jp-OutputArea").text_content()
    describe.scroll_into_view_if_needed()
    page.screenshot(path=ARTIFACTS / "lab_rerun.png")


def run_all_cells(page):
    """Run ▸ Run All Cells, from JupyterLab's menu bar."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()


def test_the_panel_renders_counters_reasons_and_path_in_jupyterlab(chromium, make_lab, repo):
    from playwright.sync_api import expect

    _, url, _, _ = make_lab
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{url}/lab/tree/{PANEL_DEMO.name}")
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=90 * SECONDS)
    kernel_idle(page, PANEL_DEMO.name, 90)
    run_all_cells(page)

    panel = page.locator(".agtool-panel")
    # The last cell's graph run is the last thing the panel shows.
    expect(panel.locator(".agtool-run-status")).to_have_text("status: answered", timeout=90 * SECONDS)

    outputs = page.locator(".jp-OutputArea-output").all_inner_texts()
    assert f"kernel: {sys.executable}" in "\n".join(outputs), outputs  # this venv's Python
    assert f"agtool: {repo / 'agtool' / '__init__.py'}" in "\n".join(outputs), outputs  # the copy's, as make lab's

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


def test_notebook_07s_chart_is_drawn_by_jupyterlab_itself(chromium, make_lab):
    """The chart is Vega-Lite (the kit installs no plotting stack): JupyterLab draws notebook 07's stored chart
    with its own Vega renderer, offline, its two panels' titles on it."""
    from playwright.sync_api import expect

    _, url, _, _ = make_lab
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{url}/lab/tree/notebooks/07_noisy_model.ipynb")
    chart = page.locator(".jp-RenderedVegaCommon5").first  # JupyterLab's Vega-Lite 5 renderer's output
    chart.scroll_into_view_if_needed(timeout=90 * SECONDS)
    expect(chart.locator("canvas, svg").first).to_be_visible(timeout=60 * SECONDS)
    ARTIFACTS.mkdir(exist_ok=True)
    chart.screenshot(path=ARTIFACTS / "chart.png")
    box = chart.bounding_box()
    assert box and box["width"] > 600  # both panels, side by side


def test_what_the_grade_judges_is_folded_at_the_notebooks_end_and_unfolds_as_markdown(chromium, make_lab):
    """The appendix `<details>` cell renders closed in JupyterLab; opened, its rules are a Markdown list."""
    from playwright.sync_api import expect

    _, url, _, _ = make_lab
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{url}/lab/tree/notebooks/02_check_args.ipynb")
    # the notebook in front: the workspace may keep the other tests' notebooks open in hidden tabs
    notebook = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    expect(notebook).to_have_count(1, timeout=90 * SECONDS)
    notebook.locator(".jp-Cell").first.wait_for(timeout=90 * SECONDS)
    appendix = notebook.locator(".jp-MarkdownCell details")
    box = notebook.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for _ in range(60):  # JupyterLab draws the cells near the view: wheel down (60 turns pass the end) till it is drawn
        if appendix.count():
            break
        page.mouse.wheel(0, 2000)
    expect(appendix).to_have_count(1, timeout=30 * SECONDS)
    appendix.scroll_into_view_if_needed()
    assert appendix.get_attribute("open") is None
    expect(appendix.locator("summary")).to_have_text("What the grade judges")
    first_rule = appendix.locator("li", has=page.locator("strong", has_text=re.compile(r"^2\.1$")))
    expect(first_rule).to_be_hidden()
    appendix.locator("summary").click()
    expect(first_rule).to_be_visible()
    expect(first_rule).to_contain_text("reads TOOLS[name] when it is called")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "lab_what_the_grade_judges.png")
