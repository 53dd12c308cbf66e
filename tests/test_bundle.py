"""`python -m grader gradescope OUT.zip`: the bundle, unpacked into a fake /autograder tree and run."""

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

import agtool
from grader.__main__ import main
from grader.instructor.bundle import REQUIREMENTS
from grader.instructor.release import leaks, solution_lines

pytestmark = pytest.mark.grader

PROJECT = Path(agtool.__file__).resolve().parent.parent
REFERENCE = (PROJECT / "agtool" / "tools.py").read_text()


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "autograder.zip"
    assert main(["gradescope", str(out)]) == 0
    return out


def autograder(bundle: Path, tmp_path: Path, submission: dict[str, str]) -> Path:
    """A fake /autograder laid out as Gradescope does: source/ holds the unpacked zip,
    run_autograder is copied to the top, submission/ holds the student's files."""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
        for entry in archive.infolist():                 # extractall drops the Unix mode
            os.chmod(root / "source" / entry.filename, entry.external_attr >> 16 & 0o777)
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    for name, text in submission.items():
        (root / "submission" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "submission" / name).write_text(text)
    return root


def run_autograder(root: Path) -> tuple[subprocess.CompletedProcess, dict]:
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable}
    done = subprocess.run([str(root / "run_autograder")], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)
    return done, json.loads((root / "results" / "results.json").read_text())


def test_the_reference_scores_100_from_anywhere_under_submission(bundle, tmp_path):
    root = autograder(bundle, tmp_path, {"my-lab/agtool/tools.py": REFERENCE, "my-lab/README.md": "hi"})
    done, results = run_autograder(root)
    assert done.returncode == 0, done.stderr
    assert results["score"] == 100
    assert f"grader: {root / 'source' / 'grader'}" in done.stdout     # the bundled grader, not this checkout's
    assert {test["status"] for test in results["tests"]} == {"passed"}


def test_a_broken_submission_loses_points_and_still_gets_results(bundle, tmp_path):
    broken = REFERENCE + "\n\ndef check_result(name, value):\n    return None\n"
    done, results = run_autograder(autograder(bundle, tmp_path, {"tools.py": broken}))
    assert done.returncode == 0, done.stderr
    failed = {test["number"].split(".")[0] for test in results["tests"] if test["status"] == "failed"}
    assert failed == {"3"} and results["score"] < 100
    assert "replay: `python -m grader grade agtool/tools.py --seed 0 --only 3." in json.dumps(results)


def test_a_submission_without_tools_py_gets_a_clear_zero(bundle, tmp_path):
    done, results = run_autograder(autograder(bundle, tmp_path, {"tool.py": REFERENCE}))
    assert done.returncode == 0, done.stderr
    assert results["score"] == 0 and "No tools.py was found" in results["output"]


def test_the_bundle_holds_what_gradescope_runs_and_no_solution(bundle):
    with zipfile.ZipFile(bundle) as archive:
        files = {entry.filename: archive.read(entry) for entry in archive.infolist()}
        modes = {entry.filename: entry.external_attr >> 16 for entry in archive.infolist()}
    for script in ("setup.sh", "run_autograder"):
        assert modes[script] & stat.S_IXUSR
        assert subprocess.run(["bash", "-n", "-c", files[script].decode()]).returncode == 0
    assert {"grader/__main__.py", "grader/grading.py", "grader/sandbox.py", "agtool/inventory.py"} <= files.keys()
    assert "agtool/tools.py" not in files
    agtool_files = {name: content for name, content in files.items() if name.startswith("agtool/")}
    assert leaks(agtool_files, solution_lines(REFERENCE)) == []
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in files)


def test_the_bundle_requirements_are_the_projects_own_lines(bundle):
    with zipfile.ZipFile(bundle) as archive:
        lines = archive.read("requirements.txt").decode().splitlines()
    project = (PROJECT / "requirements.txt").read_text().splitlines()
    assert lines and set(lines) <= set(project)
    assert [Requirement(line).name for line in lines] == list(REQUIREMENTS)


# Grade the reference as run_autograder does, in an interpreter where every distribution
# outside `allowed` is as good as not installed: what Gradescope's fresh venv would have.
ONLY_ALLOWED = """
import json, re, sys
import importlib.metadata as md
from pathlib import Path
allowed, owners = set(json.loads(sys.argv[2])), md.packages_distributions()

class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        dists = {re.sub(r"[-_.]+", "-", dist).lower() for dist in owners.get(name.partition(".")[0], [])}
        if dists and not dists & allowed:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, NotInstalled())
from grader.instructor.bundle import autograde
autograde(Path(sys.argv[1]))
"""


def installed_with(requirements) -> set[str]:
    """The distributions pip would install for requirements: them and what they require."""
    seen, todo = set(), list(requirements)
    while todo:
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name not in seen:
            seen.add(name)
            for line in metadata.requires(name) or []:
                requirement = Requirement(line)
                if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                    todo.append(requirement.name)
    return seen


def test_grading_needs_nothing_beyond_the_bundle_requirements(bundle, tmp_path):
    root = autograder(bundle, tmp_path, {"tools.py": REFERENCE})
    allowed = sorted(installed_with(REQUIREMENTS) | {"agtool-lab"})    # agtool-lab: the bundled source
    done = subprocess.run([sys.executable, "-c", ONLY_ALLOWED, str(root), json.dumps(allowed)],
                          cwd=root / "source", capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads((root / "results" / "results.json").read_text())["score"] == 100


@pytest.mark.parametrize("out, words", [("autograder.tar", "must end in .zip"),
                                         ("nowhere/autograder.zip", "does not exist")])
def test_bad_output_gets_one_clear_line_and_exit_code_2(out, words, tmp_path, capsys):
    assert main(["gradescope", str(tmp_path / out)]) == 2
    err = capsys.readouterr().err
    assert words in err and "OUT.zip" in err and "Traceback" not in err


def test_the_bundle_is_byte_identical_when_built_twice(bundle, tmp_path):
    again = tmp_path / "again.zip"
    assert main(["gradescope", str(again)]) == 0
    assert again.read_bytes() == bundle.read_bytes()
