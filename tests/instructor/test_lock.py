"""The locks (grader/instructor/locks/): the lab's, the kit's and Gradescope's, one environment locked three ways."""

import subprocess
import sys

import pytest

from grader.instructor import lock

pytestmark = pytest.mark.grader


@pytest.mark.parametrize("which", lock.ALL, ids=lambda which: which.name)
def test_each_lock_pins_exactly_what_is_installed(which):
    """Every package the lock is for, and nothing else, at the version this environment (the tests') has."""
    assert lock.disagreements(which) == [], "run `python -m grader lock`"
    assert set(lock.read(which.path)) == lock.needed(which.names()) | set(which.data_pins())


@pytest.mark.parametrize("part", [lock.STUDENT, lock.GRADING], ids=lambda which: which.name)
def test_the_kits_and_gradescopes_locks_are_parts_of_the_labs(part):
    """Drawn from the instructor's lock: a student and the grading image get the tests' versions."""
    lab, pinned = lock.read(lock.LAB.path), lock.read(part.path)
    assert pinned and {name: lab.get(name) for name in pinned} == pinned


def test_the_kit_installs_the_labs_runtime_and_none_of_the_instructors_tools():
    """What the kit pins: the lesson, JupyterLab and the notebooks' imports; never the grader's, lint or test tools."""
    kit = lock.read(lock.STUDENT.path)
    assert {"langgraph", "jsonschema", "hypothesis", "jupyterlab", "ipykernel", "ipywidgets", "altair", "mcp"} <= set(
        kit
    )
    instructors = {"cosmic-ray", "ruff", "mypy", "playwright", "pytest-xdist", "copydetect", "openai", "anthropic"}
    assert not instructors & set(kit)
    assert not {"matplotlib", "numpy"} & set(kit)  # the chart is Vega-Lite: no plotting stack to install


def test_the_data_is_pinned_where_the_notebooks_run_at_the_version_its_one_file_says():
    """requirements-data.txt (installed --no-deps) is in the lab's and the kit's locks, at its own pin, and none of
    what it declares it needs (vllm, numpy: a harness the lab never runs); Gradescope runs no notebook."""
    pins = lock.data_pins()
    assert pins == {"bfcl-eval": "2026.3.23"}
    for which in (lock.LAB, lock.STUDENT):
        locked = lock.read(which.path)
        assert {name: locked.get(name) for name in pins} == pins
        assert not {"vllm", "sentence-transformers", "torch", "mistralai"} & set(locked)
    assert "numpy" not in lock.read(lock.STUDENT.path)  # bfcl-eval declares numpy==1.26.4: not followed
    assert not set(pins) & set(lock.read(lock.GRADING.path))


def test_a_data_line_that_pins_no_one_version_is_refused_naming_it():
    said = r"notebooks/requirements-data\.txt: 'bfcl-eval>=2026' must pin one version exactly"
    with pytest.raises(LookupError, match=said):
        lock.data_pins("# the data\nbfcl-eval>=2026\n")
    assert lock.data_pins("BFCL_eval==1.0  # why\n") == {"bfcl-eval": "1.0"}


def test_a_lock_that_disagrees_with_the_data_pin_says_so(tmp_path, monkeypatch):
    """A bumped requirements-data.txt without `python -m grader lock`: a stale lock, though it matches the venv."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / lock.DATA).write_text("bfcl-eval==2099.1.1\n")
    monkeypatch.setattr(lock, "ROOT", tmp_path)
    said = lock.disagreements(lock.STUDENT)
    assert "bfcl-eval: notebooks/requirements-data.txt pins 2099.1.1, the lock 2026.3.23" in said


def test_extras_are_followed():
    """mcp asks for pyjwt[crypto]: cryptography comes with that extra, and the kit's lock pins it too."""
    assert "cryptography" in lock.needed(["pyjwt[crypto]"])
    assert "cryptography" not in lock.needed(["pyjwt"])


def test_lines_for_gives_the_projects_own_lines_or_names_what_is_missing():
    project = "# the lesson\nlanggraph>=1.0,<2  # why\nJSONSchema>=4.21\n"
    assert lock.lines_for(["jsonschema", "langgraph"], project) == "JSONSchema>=4.21\nlanggraph>=1.0,<2\n"
    with pytest.raises(LookupError, match=r"requirements\.txt does not list mcp"):
        lock.lines_for(["mcp"], project)


def test_a_stale_lock_is_one_line_naming_the_file_the_package_and_the_command(tmp_path, monkeypatch):
    (tmp_path / "kit.txt").write_text(lock.STUDENT.path.read_text().replace("altair==", "altair==0.0.0+"))
    monkeypatch.setattr(lock, "LOCKS", tmp_path)
    said = lock.stale(lock.STUDENT)
    assert said.count("\n") == 0 and "kit.txt" in said and "altair: locked 0.0.0+" in said
    assert "python -m grader lock" in said


def test_lock_writes_all_three_and_says_so(tmp_path):
    """`python -m grader lock`, run where the locks are moved to an empty folder: it writes what is installed."""
    moved = (
        "import pathlib, sys\nfrom grader.instructor import lock\n"
        "lock.LOCKS = pathlib.Path(sys.argv[1])\nsys.exit(lock.run(None))"
    )
    done = subprocess.run(
        [sys.executable, "-c", moved, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gradescope.txt", "kit.txt", "lab.txt"]
    for which in lock.ALL:
        assert (tmp_path / which.path.name).read_text() == which.path.read_text()
    assert done.stdout.count("packages pinned") == 3
