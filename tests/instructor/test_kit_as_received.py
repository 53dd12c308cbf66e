"""The student kit as a student receives it: released into a folder of its own and used there with its own
commands and its own environments, never this repository's venv (grader/instructor/kit_trial.py).

- `make test` builds the kit's environment with the kit's own Makefile, then says of the skeleton that
  nothing passes and why, and of a finished kit (the reference) six of six;
- `make lab` serves JupyterLab over HTTP, and `make notebooks` runs every notebook, 08 and 09 included, under
  nbval in the kit's own environment (09 reads BFCL's data, installed by the kit's Makefile with --no-deps);
- the README's commands without make build a second environment, start the lab and run the self-check,
  and its Windows commands are the same commands with Windows's interpreter path;
- the README's hosted-notebook cell installs the kit, and the data without its dependencies, into a bare
  kernel's environment (a hub's Jupyter and nothing of the lab), where the notebooks run under nbval, 08 and
  09 included, and the self-check passes;
- the kit's modules import where fcntl, resource, termios, pwd and signal.SIGKILL do not exist (Windows).

These build real environments from the package index; pip's cache is what keeps them quick.
"""

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from grader.instructor import kit_trial, lock, release
from tests.lab.browser_support import get_json, lab_config, served_at, shut_down

pytestmark = pytest.mark.release

REFERENCE = (release.ROOT / release.STUDENT_MODULE).read_text()
INSTALL = 900  # seconds: a fresh environment from the index, on a slow day
INSTRUCTORS = {"cosmic-ray", "ruff", "mypy", "playwright", "pytest-xdist", "copydetect", "openai", "anthropic", "tqdm"}


@pytest.fixture(scope="module")
def kit(tmp_path_factory) -> Path:
    """One kit for the make path, as released: the skeleton until a test finishes it."""
    return kit_trial.released(tmp_path_factory.mktemp("make"))


@pytest.fixture(scope="module")
def skeleton_make_test(kit) -> subprocess.CompletedProcess:
    """The student's first `make test`: it builds .venv with the kit's Makefile, then checks the skeleton."""
    return kit_trial.run(kit, ["make", "--no-print-directory", "test"], timeout=INSTALL)


def test_make_test_builds_the_kits_environment_and_says_of_the_skeleton_that_nothing_passes(kit, skeleton_make_test):
    done = skeleton_make_test
    assert (kit / ".venv" / ".installed").exists(), done.stderr[-3000:]
    assert done.returncode != 0
    line = done.stdout.strip().splitlines()[-1]
    assert line.startswith("0 of 6 stages pass") and line.endswith("see why: .venv/bin/python -m grader check 1"), line


def test_the_kits_environment_is_the_kit_lock_and_none_of_the_instructors_tools(kit, skeleton_make_test):
    """Every package at the kit lock's version; nothing of the grader's, the linters' or the tests' tools."""
    found = kit_trial.installed(kit / ".venv" / "bin" / "python")
    pinned = lock.read(kit / "constraints.txt")
    assert {name: found[name] for name in pinned} == pinned
    assert set(found) - set(pinned) <= {"pip", "setuptools"}, set(found) - set(pinned)
    assert not INSTRUCTORS & set(found)


def test_make_test_on_a_finished_kit_passes_six_of_six(kit, skeleton_make_test):
    (kit / release.STUDENT_MODULE).write_text(REFERENCE)
    done = kit_trial.run(kit, ["make", "--no-print-directory", "test"], timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1].startswith("6 of 6 stages pass"), done.stdout


def test_make_notebooks_runs_every_notebook_in_the_kits_environment_08_and_09_included(kit, skeleton_make_test):
    (kit / release.STUDENT_MODULE).write_text(REFERENCE)
    done = kit_trial.run(kit, ["make", "--no-print-directory", "notebooks"], timeout=900)
    assert done.returncode == 0, done.stdout[-4000:]
    ran = set(re.findall(r"^notebooks/(\d\d)_\w+\.ipynb", done.stdout, re.M))
    assert ran == {f"{n:02d}" for n in range(1, 10)}, done.stdout[-3000:]


def test_the_kits_environment_has_the_data_and_none_of_what_it_declares(kit, skeleton_make_test):
    """bfcl-eval at its one pin, installed --no-deps: none of its harness's packages (vllm, numpy, ...)."""
    found = kit_trial.installed(kit / ".venv" / "bin" / "python")
    assert {name: found.get(name) for name in lock.data_pins()} == lock.data_pins()
    assert not {"vllm", "numpy", "sentence-transformers", "torch", "pandas"} & set(found)


def serve(kit: Path, command: list[str], folder: Path) -> tuple[str, str]:
    """Start `command` (a JupyterLab) in the kit, fetch its first page over HTTP, stop it: (the command it ran as
    make echoed it or as given, the page's HTML)."""
    env, opened = lab_config(folder)
    log = folder / "lab.log"
    with log.open("w") as output:
        server = subprocess.Popen(
            command,
            cwd=kit,
            env=kit_trial.student_env(**env),
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        first, url = served_at(server, opened, log)
        assert first.startswith(f"{url}/lab/tree/notebooks/01_contract.ipynb"), first
        assert get_json(f"{url}/api/contents/agtool/tools.py")["path"] == "agtool/tools.py"
        with urllib.request.urlopen(first, timeout=30) as page:
            html = page.read().decode()
    finally:
        shut_down(server)
    return log.read_text().splitlines()[0], html


def test_make_lab_serves_jupyterlab_on_the_first_notebook(kit, skeleton_make_test, tmp_path):
    echoed, html = serve(kit, ["make", "--no-print-directory", "lab"], tmp_path)
    assert echoed.startswith(".venv/bin/jupyter lab") and ("--allow-root" in echoed) == (os.getuid() == 0), echoed
    assert "<title>JupyterLab</title>" in html


def test_the_commands_without_make_build_a_second_environment_that_serves_and_checks(tmp_path):
    """The README's Linux and macOS commands, one by one, in a fresh kit; the lab line served and stopped."""
    kit = kit_trial.released(tmp_path)
    commands = kit_trial.readme_block(kit, "sh", "**Without `make`**")
    assert commands[0] == "python3 -m venv .venv" and "-c constraints.txt" in commands[1]
    for command in commands:
        if " jupyter lab " in command:
            root = ["--allow-root"] if os.getuid() == 0 else []  # as the README says to, as root
            _, html = serve(kit, [*command.split(), *root], tmp_path)
            assert "<title>JupyterLab</title>" in html
            continue
        done = kit_trial.run(kit, command, timeout=INSTALL)
        if command.endswith("grader.kit.selfcheck"):
            assert done.returncode == 1 and done.stdout.startswith("0 of 6 stages pass"), done.stdout
        else:
            assert done.returncode == 0, f"{command}: {done.stderr[-3000:]}"
    assert (kit / ".venv" / "bin" / "python").exists()


def test_the_windows_commands_are_the_same_with_windows_interpreter_path(kit):
    """Nothing to run them on here: they must say what the POSIX ones say, with py and .venv\\Scripts\\."""
    posix = kit_trial.readme_block(kit, "sh", "**Without `make`**")
    windows = kit_trial.readme_block(kit, "bat", "Windows, in PowerShell")
    as_windows = [
        line.replace("python3 -m venv", "py -m venv").replace(".venv/bin/", ".venv\\Scripts\\").replace("/", "\\")
        for line in posix
    ]
    assert windows == as_windows


def test_the_hosted_cell_installs_the_kit_into_a_bare_kernel_where_the_notebooks_run(tmp_path):
    """A hub's kernel (ipykernel, nothing of the lab) runs the README's cell in notebooks/ (IPython runs %pip as a
    notebook does); new kernels then import the kit's agtool, installed editable, and run every notebook."""
    kit = kit_trial.released(tmp_path, tools=REFERENCE)
    python = kit_trial.bare_python(tmp_path / "hub", timeout=INSTALL)
    cell = kit_trial.hosted_cell(kit)
    lines = cell.splitlines()
    beside = Path(lock.DATA).relative_to("notebooks")  # the cell runs in notebooks/, beside the data's pin
    assert all(line.startswith("%pip install") for line in lines) and f"--no-deps -r {beside}" in lines[-1]
    done = kit_trial.run(kit, [str(python), "-m", "IPython", "-c", cell], timeout=INSTALL, cwd=kit / "notebooks")
    assert done.returncode == 0 and "ERROR" not in done.stderr, done.stdout[-2000:] + done.stderr[-2000:]
    found = kit_trial.installed(python)
    assert not INSTRUCTORS & set(found) and {"langgraph", "altair", "mcp", *lock.data_pins()} <= set(found)
    assert "vllm" not in found
    where = kit_trial.run(kit, [str(python), "-c", "import agtool.tools; print(agtool.tools.__file__)"], timeout=60)
    assert where.stdout.strip() == str(kit / "agtool" / "tools.py"), where.stderr
    notebooks = kit_trial.run(kit, [str(python), "-m", "pytest", "-q", "notebooks"], timeout=900)
    assert notebooks.returncode == 0, notebooks.stdout[-4000:]
    collected = kit_trial.run(kit, [str(python), "-m", "pytest", "--collect-only", "-q"], 120).stdout
    assert "08_mcp.ipynb" in collected and "09_real_world.ipynb" in collected
    selfcheck = kit_trial.run(kit, [str(python), "-m", "grader.kit.selfcheck"], timeout=300)
    assert selfcheck.returncode == 0 and selfcheck.stdout.startswith("6 of 6 stages pass"), selfcheck.stdout


# Every module of the kit, imported where the modules and names that only POSIX has are missing. The
# packages the kit depends on are imported first, as they are: on Windows they take their own paths.
WITHOUT_POSIX = """
import importlib, json, pkgutil, signal, sys
for dependency in ("langgraph.graph", "jsonschema", "hypothesis", "ipywidgets", "altair", "mcp", "anyio", "sqlite3"):
    importlib.import_module(dependency)
for name in ("fcntl", "resource", "termios", "pwd", "grp"):
    sys.modules[name] = None  # an import of it fails, as on Windows
del signal.SIGKILL
import agtool, grader
names = [
    info.name
    for package in (agtool, grader)
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
    if not info.name.endswith(".__main__")
]
for name in names:
    importlib.import_module(name)
print(json.dumps(names))
"""


def test_the_kits_modules_import_without_what_only_posix_has(kit):
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_POSIX],
        cwd=kit,
        env={**kit_trial.student_env(), "PYTHONPATH": str(kit)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    modules = [p.relative_to(kit).with_suffix("") for p in (kit / "agtool").rglob("*.py")]
    modules += [p.relative_to(kit).with_suffix("") for p in (kit / "grader").rglob("*.py")]
    expected = {
        ".".join(m.parts[:-1] if m.name == "__init__" else m.parts) for m in modules if m.name != "__main__"
    } - {"agtool", "grader"}
    assert set(json.loads(done.stdout)) == expected
