"""How `make test` runs the suite in parallel (the repository's conftest.py): what must share a worker does."""

import json
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from jupyter_client import KernelManager

from tests import forked_python
from tests.processes import wait_ended

ROOT = Path(__file__).resolve().parents[2]


def root_conftest(config):
    (module,) = [
        plugin
        for plugin in config.pluginmanager.get_plugins()
        if getattr(plugin, "__file__", None) == str(ROOT / "conftest.py")
    ]
    return module


def test_a_notebooks_cells_go_to_one_worker_and_other_tests_each_alone(pytestconfig):
    work_unit = root_conftest(pytestconfig).work_unit
    cells = {work_unit(f"notebooks/04_door.ipynb::Cell {n}") for n in range(12)}
    assert cells == {"notebooks/04_door.ipynb"}
    assert work_unit("tests/lab/browser/panel_demo.ipynb::Cell 0") == "tests/lab/browser/panel_demo.ipynb"
    ordinary = [
        "tests/instructor/test_classroom.py::test_a",
        "tests/instructor/test_classroom.py::test_b",
        "tests/lesson/test_stage3_check_result.py::test_never_raises[nan]",
    ]
    assert [work_unit(nodeid) for nodeid in ordinary] == ordinary


def test_make_test_runs_on_every_core():
    rule = (ROOT / "Makefile").read_text().split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "-m pytest -n auto" in rule


def make_rule(target: str) -> str:
    return (ROOT / "Makefile").read_text().split(f"\n{target}:", 1)[1].split("\n\n", 1)[0]


def test_make_test_lints_first_with_ruff_and_mypy():
    """Like minitorch's CI: lint fails fast, before the suite's many minutes."""
    rule = make_rule("test")
    assert rule.index("lint") < rule.index("-m pytest")
    lint = make_rule("lint")
    assert all(step in lint for step in ("ruff check", "ruff format --no-cache --check", "mypy"))


def test_the_linters_are_pinned_exactly():
    """A new ruff or mypy adds rules: CI must not fail with no change in the repository."""
    pins = dict(line.split("==") for line in (ROOT / "requirements.txt").read_text().splitlines() if "==" in line)
    assert pins.keys() >= {"ruff", "mypy"}


def test_ruff_skips_the_template_the_submissions_and_the_notebooks():
    """Files broken on purpose, and a template that is not TOML yet, are not linted."""
    listed = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "ruff"), "check", "--show-files", "agtool", "grader", "tests", "notebooks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    linted = [Path(line).resolve().relative_to(ROOT).as_posix() for line in listed if line.strip()]
    assert "tests/project/test_suite_setup.py" in linted
    skipped = ("grader/instructor/kit_template/", "tests/submissions/", "notebooks/")
    assert not [path for path in linted if path.startswith(skipped)]
    assert list((ROOT / "tests" / "submissions").rglob("*.py")) and list((ROOT / "notebooks").glob("*.ipynb"))


def test_the_student_kit_has_no_lint_step():
    """A student is graded on the stages, not on formatting: the kit's Makefile runs no linter."""
    from grader.instructor.release import kit_files

    files = kit_files()
    assert "ruff" not in files["Makefile"].decode() and "mypy" not in files["Makefile"].decode()
    assert "[tool.ruff" not in files["pyproject.toml"].decode() and "[tool.mypy" not in files["pyproject.toml"].decode()


def test_pytest_loads_the_plugins_pyproject_names_and_no_other(pytestconfig):
    """Found by entry point, every installed package's plugin would load (langsmith's, anyio's,
    platformdirs'), and each such package is assertion-rewritten module by module as it is imported."""
    installed = {entry.name for entry in entry_points(group="pytest11")}
    assert {"langsmith_plugin", "anyio"} <= installed  # what the named list keeps out is there to keep out
    loaded = {name for name in installed if pytestconfig.pluginmanager.has_plugin(name)}
    assert loaded == {"xdist", "nbval", "hypothesispytest"}
    kit = (ROOT / "grader" / "instructor" / "kit_template" / "pyproject.toml").read_text()  # a template, not TOML
    assert 'addopts = "--disable-plugin-autoload -p nbval ' in kit


def test_no_process_of_the_lab_builds_jsonschemas_iri_parser():
    """rfc3987_syntax builds an Earley parser at import (seconds of CPU per process): the grader, the
    sandbox's zygote preloads and pytest itself (nbval imports jsonschema) all go without it."""
    probe = (
        "import sys; {imports}; import jsonschema; "
        "print(sys.modules.get('rfc3987_syntax', 'absent'), '_rfc3987_is_valid_syntax' in vars(jsonschema._format))"
    )
    for imports in ("import grader.kit.grading", "import agtool.schema", "import grader.instructor.sandbox.zygote"):
        out = subprocess.run(
            [sys.executable, "-c", probe.format(imports=imports)], capture_output=True, text=True, cwd=ROOT, check=True
        ).stdout.split()
        assert out == ["None", "False"], imports
    # A Python the suite forks (a kernel, a kit's check: tests/forked_python.py) is one of the lab's too.
    forked = forked_python.command([sys.executable, "-c", probe.format(imports="import agtool.schema")])
    out = subprocess.run(forked, capture_output=True, text=True, cwd=ROOT, check=True).stdout.split()
    assert out == ["None", "False"], "forked"
    assert "rfc3987_syntax" not in sys.modules or sys.modules["rfc3987_syntax"] is None  # this very worker


def test_every_module_of_the_lab_imports_first():
    """No import cycle waits for the right order: each module of agtool/ and grader/ is imported as the
    first of the lab's modules in a process (a zygote, a CLI, a test file each start from a different one)."""
    script = """
import pkgutil, sys, importlib
import agtool, grader
names = [m.name for package in (agtool, grader)
         for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
failed = []
for name in names:
    for loaded in [key for key in sys.modules if key.split(".")[0] in ("agtool", "grader") and "." in key]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as error:
        failed.append(f"{name}: {error!r}")
print(len(names)); print("\\n".join(failed))
"""
    # A fork of the suite's pre-imported Python holds none of the lab's modules either (tests/forked_python.py).
    python = forked_python.command([sys.executable, "-c", script])
    out = subprocess.run(python, capture_output=True, text=True, cwd=ROOT, check=True).stdout
    count, *failed = out.strip().split("\n")
    assert int(count) > 40 and failed == [], failed


@pytest.mark.parametrize(
    "path",
    [
        "tests/grader/test_mutation_tool.py",
        "tests/adapters/test_providers.py",
        "tests/lab/test_browser.py",
        "tests/instructor/test_release.py",
        "tests/lab/test_door_speed.py",
        "tests/adapters/test_mcp_server.py",
    ],
)
def test_the_tests_of_a_file_that_share_something_dear_share_one_worker(pytestconfig, path):
    work_unit = root_conftest(pytestconfig).work_unit
    units = {work_unit(f"{path}::test_{n}") for n in range(5)}
    assert units == {path}


@pytest.mark.parametrize(
    ("module", "dear"),
    [
        # every worker collects every file; the SDKs are imported by the one worker that runs the tests
        ("tests.adapters.test_providers", ["anthropic", "openai"]),
        ("tests.lab.test_door_speed", ["agtool.door_speed", "langchain_core.tools"]),
        ("tests.adapters.test_mcp_server", ["mcp", "agtool.mcp_server"]),
        # xdist's controller loads the fixtures' conftest too, and runs no test
        ("tests.conftest", ["agtool.tools", "grader.kit.boundary.spies"]),
    ],
)
def test_loading_a_test_module_imports_nothing_dear_before_a_test_needs_it(module, dear):
    script = f"import sys, {module}; print(sorted(set({dear!r}) & set(sys.modules)))"
    python = [sys.executable, "-c", script]  # not a fork of the suite's server: it imported LangGraph
    assert subprocess.run(python, capture_output=True, text=True, cwd=ROOT, check=True).stdout.strip() == "[]"


# ── the notebooks' kernels (tests/forked_python.py) ─────────────────────────


@pytest.fixture
def kernel():
    manager = KernelManager(kernel_name="python3")
    manager.start_kernel(cwd=str(ROOT / "notebooks"))
    client = manager.blocking_client()
    client.start_channels()
    client.wait_for_ready(timeout=60)
    yield manager, client
    client.stop_channels()
    if manager.is_alive():
        manager.shutdown_kernel(now=True)


def run_cell(client, code: str, timeout: float = 30) -> tuple[str, dict]:
    """What the cell printed, and its execute reply's content."""
    printed: list[str] = []
    reply = client.execute_interactive(
        code,
        timeout=timeout,
        output_hook=lambda message: printed.append(message["content"].get("text", "")),
    )
    return "".join(printed), reply["content"]


def test_a_kernel_is_forked_from_the_server_and_imports_the_lab_as_a_fresh_one_would(kernel):
    manager, client = kernel
    printed, _ = run_cell(
        client,
        "import json, os, sys, agtool.tools\n"
        "print(json.dumps([os.getpid(), os.getppid(), os.getcwd(), agtool.tools.__file__, sys.path,"
        " 'AGTOOL_PYTHON_SERVER' in os.environ]))",
    )
    pid, parent, cwd, tools, path, leaked = json.loads(printed)
    assert pid != manager.provisioner.process.pid  # not the launched process: a fork of the server
    assert Path(f"/proc/{parent}/cmdline").read_bytes().split(b"\0")[2] == b"tests.forked_python"
    assert cwd == str(ROOT / "notebooks") and tools == str(ROOT / "agtool" / "tools.py")
    # As ipykernel_launcher and IPython leave it: the cwd as "", after the standard library.
    assert path[0] != cwd and "" in path and path.index("") < min(i for i, p in enumerate(path) if "site-packages" in p)
    assert not leaked


def test_an_interrupt_reaches_the_forked_kernel(kernel):
    manager, client = kernel
    asked = client.execute("import time; print('sleeping', flush=True); time.sleep(60)")
    said: list[str] = []
    while "sleeping" not in "".join(said):  # the cell runs: the interrupt lands in its sleep, not before it
        message = client.get_iopub_msg(timeout=60)  # queue.Empty, failing the test, if it never says so
        if message["parent_header"].get("msg_id") == asked and message["msg_type"] == "stream":
            said.append(message["content"]["text"])
    manager.interrupt_kernel()
    reply = client.get_shell_msg(timeout=30)  # well within the cell's 60 s: a lost interrupt leaves it silent
    assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt"


def test_a_forked_kernel_ends_with_the_process_jupyter_client_started(kernel):
    manager, client = kernel
    printed, _ = run_cell(client, "import os; print(os.getpid())")
    forked = int(printed)
    manager.provisioner.process.kill()  # as jupyter_client's last resort does
    assert not wait_ended([forked], 60)


def test_a_stages_marker_runs_the_grader_checks_of_that_stage_too():
    """`pytest -m stage4` collects the reference's stage-4 tests and the grader's tests about stage 4
    (its checks, its mutants), and no grader test about another stage."""
    files = [
        "tests/lesson/test_stage4_door.py",
        "tests/grader/test_public_cases.py",
        "tests/grader/test_mutation_matrix.py",
    ]
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-m", "stage4", *files],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout.splitlines()
    ids = [line for line in collected if "::" in line]
    assert any(line.startswith("tests/lesson/test_stage4_door.py::") for line in ids)
    assert any("test_public_cases.py::" in line and "[4.1]" in line for line in ids)
    assert any("test_mutation_matrix.py::" in line and "door" in line for line in ids)
    assert not any(re.search(r"\[[1235689]\.\d+\]", line) for line in ids), ids
