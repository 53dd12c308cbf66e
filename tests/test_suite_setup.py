"""How `make test` runs the suite in parallel (the repository's conftest.py): what must share a worker does."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
    assert work_unit("tests/browser/panel_demo.ipynb::Cell 0") == "tests/browser/panel_demo.ipynb"
    assert (
        work_unit("tests/test_browser_lab.py::test_x") == work_unit("tests/test_browser_panel.py::test_y") == "browser"
    )
    ordinary = [
        "tests/test_release.py::test_a",
        "tests/test_release.py::test_b",
        "tests/test_stage3_check_result.py::test_never_raises[nan]",
    ]
    assert [work_unit(nodeid) for nodeid in ordinary] == ordinary


def test_make_test_runs_on_every_core():
    rule = (ROOT / "Makefile").read_text().split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "-m pytest -n auto" in rule
