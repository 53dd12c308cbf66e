"""`python -m grader gradescope OUT.zip`: the bundle, unpacked into a fake /autograder tree and run."""

import json
import os
import re
import runpy
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

import agtool
from grader.__main__ import main
from grader.instructor import kit_trial, lock
from grader.instructor.bundle import STUDENT, autograde
from grader.instructor.release import leaks, solution_lines
from grader.instructor.sandbox import confine
from grader.instructor.sandbox.session import SandboxSession
from grader.instructor.sandbox.zygote import remove
from grader.kit.grading import grade
from grader.kit.intake import SEARCHED_DEPTH, SEARCHED_ENTRIES, NotASubmission, find_tools
from grader.kit.report import results_json

pytestmark = pytest.mark.grader

PROJECT = Path(agtool.__file__).resolve().parent.parent
REFERENCE = (PROJECT / "agtool" / "tools.py").read_text()
BROKEN = REFERENCE + "\n\ndef check_result(name, value):\n    return None\n"  # loses stage 3
SEED = 5


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "autograder.zip"
    assert main(["gradescope", str(out), "--seed", str(SEED)]) == 0
    return out


def settings(zip_path: Path) -> dict:
    with zipfile.ZipFile(zip_path) as archive:
        return json.loads(archive.read("settings.json"))


def autograder(bundle: Path, tmp_path: Path, submission: dict[str, str]) -> Path:
    """A fake /autograder laid out as Gradescope does: source/ holds the unpacked zip,
    run_autograder is copied to the top, submission/ holds the student's files."""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
        for entry in archive.infolist():  # extractall drops the Unix mode
            os.chmod(root / "source" / entry.filename, entry.external_attr >> 16 & 0o777)
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    for name, text in submission.items():
        (root / "submission" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "submission" / name).write_text(text)
    return root


def run_autograder(root: Path) -> tuple[subprocess.CompletedProcess, dict]:
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable}
    done = subprocess.run(
        [str(root / "run_autograder")], cwd=root, env=env, capture_output=True, text=True, timeout=300
    )
    return done, json.loads((root / "results" / "results.json").read_text())


def test_the_reference_scores_100_from_anywhere_under_submission(bundle, tmp_path):
    root = autograder(bundle, tmp_path, {"my-lab/agtool/tools.py": REFERENCE, "my-lab/README.md": "hi"})
    done, results = run_autograder(root)
    assert done.returncode == 0, done.stderr
    assert results["score"] == 100
    assert f"grader: {root / 'source' / 'grader'}" in done.stdout  # the bundled grader, not this checkout's
    assert {test["status"] for test in results["tests"]} == {"passed"}


def test_a_broken_submission_is_graded_on_the_bundles_seed_which_no_student_sees(bundle, tmp_path):
    root = autograder(bundle, tmp_path, {"tools.py": BROKEN})
    done, results = run_autograder(root)
    assert done.returncode == 0, done.stderr
    failed = {test["number"].split(".")[0] for test in results["tests"] if test["status"] == "failed"}
    assert failed == {"3"} and results["score"] < 100
    shown = json.dumps(results)
    for said in (shown, done.stdout):  # a seed's value must not show
        assert "--seed" not in said and not re.search(r"seed\W{0,3}\d", said, re.I)
    assert "Replay in your kit: `.venv/bin/python -m grader check 3`" in shown
    expected = results_json(grade(str(root / "submission" / "tools.py"), SandboxSession, seed=SEED), STUDENT)
    assert [test["output"] for test in results["tests"]] == [test["output"] for test in expected["tests"]]


def test_a_failed_checks_hidden_input_is_shown_after_the_due_date_and_its_score_at_once(bundle, tmp_path):
    """Gradescope shows each check's title, score and pass or fail at once; the smallest failing hidden
    input, with expected and got, goes in a 0-point entry of its own, shown after the due date."""
    root = autograder(bundle, tmp_path, {"tools.py": BROKEN})
    done, results = run_autograder(root)
    assert done.returncode == 0, done.stderr
    scored = [test for test in results["tests"] if test["max_score"] > 0]
    inputs = [test for test in results["tests"] if test["max_score"] == 0]
    assert {test["visibility"] for test in scored} == {"visible"}
    assert sum(test["score"] for test in scored) == results["score"] < 100
    failed = [test["number"] for test in scored if test["status"] == "failed"]
    assert failed and [test["number"] for test in inputs] == failed
    for test in scored:
        assert "expected:" not in test["output"] and "got:" not in test["output"]
    for test in inputs:
        assert test["visibility"] == "after_due_date" and test["score"] == 0
        assert "The smallest failing input the grader found" in test["output"] and "expected:" in test["output"]
    assert all("shown after the due date" in test["output"] for test in scored if test["status"] == "failed")


@pytest.mark.parametrize("shown", ["after_published", "hidden", "visible"])
def test_the_bundle_says_when_the_hidden_inputs_are_shown(shown, tmp_path):
    out = tmp_path / "b.zip"
    assert main(["gradescope", str(out), "--seed", "1", "--inputs-shown", shown]) == 0
    assert settings(out)["inputs_shown"] == shown


def test_an_unknown_visibility_gets_one_line_and_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["gradescope", str(tmp_path / "b.zip"), "--inputs-shown", "tomorrow"])
    assert exited.value.code == 2
    assert "argument --inputs-shown: invalid choice: 'tomorrow'" in capsys.readouterr().err


def test_without_a_seed_each_bundle_draws_a_secret_that_gives_each_submission_its_own_seed(tmp_path, capsys):
    secrets, seeds = [], []
    for name in ("one.zip", "two.zip"):
        assert main(["gradescope", str(tmp_path / name)]) == 0
        assert "a seed per submission" in capsys.readouterr().out
        chosen = settings(tmp_path / name)
        assert chosen["seed"] is None and re.fullmatch("[0-9a-f]{64}", chosen["secret"])
        secrets.append(chosen["secret"])
        for submission in ("1001", "1002"):
            assert main(["gradescope", str(tmp_path / name), "--seed-of", submission]) == 0
            seeds.append(int(capsys.readouterr().out))
    assert secrets[0] != secrets[1]
    assert len(set(seeds)) == 4 and all(0 <= seed < 2**31 for seed in seeds)  # per submission, per bundle
    assert main(["gradescope", str(tmp_path / "one.zip"), "--seed-of", "1001"]) == 0
    assert int(capsys.readouterr().out) == seeds[0]  # the same id, the same seed: a replay


@pytest.fixture(scope="module")
def seedless(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("seedless") / "autograder.zip"
    assert main(["gradescope", str(out), "--max-submissions", "3"]) == 0
    return out


def test_each_submission_is_graded_on_the_seed_its_id_gives_and_no_student_sees_it(seedless, tmp_path, capsys):
    secret = settings(seedless)["secret"]
    for submission in ("1001", "1002"):
        root = autograder(seedless, tmp_path / submission, {"tools.py": BROKEN})
        (root / "submission_metadata.json").write_text(json.dumps({"id": int(submission), "previous_submissions": []}))
        done, results = run_autograder(root)
        assert done.returncode == 0, done.stderr
        assert main(["gradescope", str(seedless), "--seed-of", submission]) == 0
        seed = int(capsys.readouterr().out)
        said = json.dumps(results)
        assert secret not in said and secret not in done.stdout and str(seed) not in said
        replayed = results_json(grade(str(root / "submission" / "tools.py"), SandboxSession, seed=seed), STUDENT)
        assert [t["output"] for t in results["tests"]] == [t["output"] for t in replayed["tests"]]
        assert results["score"] == replayed["score"]
        # The instructor's log names the submission whose seed graded it, never the seed itself.
        assert f"seed: submission {submission}'s (`--seed-of {submission}`)" in done.stdout
    # (Shrinking often ends at the same smallest input under any seed: that is no sign of one seed for all.)


def test_past_the_cap_a_submission_is_not_graded_and_the_last_counted_grade_stands(seedless, tmp_path):
    root = autograder(seedless, tmp_path, {"tools.py": BROKEN})
    last = {"score": 91.0, "tests": [{"name": "1.1", "score": 2, "max_score": 2}]}
    previous = [{"score": 40.0, "results": {"score": 40.0}}, {"score": 77.0}, {"score": 91.0, "results": last}]
    (root / "submission_metadata.json").write_text(json.dumps({"id": 7, "previous_submissions": previous}))
    done, results = run_autograder(root)
    assert done.returncode == 0, done.stderr
    assert results["score"] == 91.0 and results["tests"] == last["tests"]
    assert "Not graded: this is submission 4, and 3 count" in results["output"]
    assert "grading " not in done.stdout  # nothing of the submission ran
    (root / "submission_metadata.json").write_text(json.dumps({"id": 8, "previous_submissions": previous[:2]}))
    done, results = run_autograder(root)
    assert done.returncode == 0 and results["score"] < 100 and results["tests"][0]["number"] == "1.1"


def test_where_a_submission_cannot_be_confined_nothing_is_graded_and_results_say_why(tmp_path, monkeypatch, capsys):
    """No Landlock signal scoping and not root: a submission could forge results.json or kill the grader."""
    monkeypatch.setattr(confine.Layers, "here", classmethod(lambda cls, landlock_cap=None: cls(False, True, 0)))
    source = tmp_path / "source"
    (source).mkdir()
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "tools.py").write_text(REFERENCE)
    (source / "settings.json").write_text(json.dumps({"seed": 1, "require_confinement": True}))
    assert autograde(root, source) == 0
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0 and results["tests"] == []
    assert "cannot confine" in results["output"] and "--allow-unconfined" in results["output"]
    assert "grading" not in capsys.readouterr().out
    # Built with --allow-unconfined it goes on (here to the next refusal: nothing to grade).
    (root / "submission" / "tools.py").rename(root / "submission" / "tool.py")
    (source / "settings.json").write_text(json.dumps({"seed": 1, "require_confinement": False}))
    assert autograde(root, source) == 0
    assert "No tools.py" in json.loads((root / "results" / "results.json").read_text())["output"]


def test_a_sandbox_that_fails_twice_is_said_in_results_json_as_the_graders_failure(tmp_path, monkeypatch):
    """A zygote that dies under a grade twice: a results.json still, that blames the autograder."""
    from grader.instructor import confined
    from grader.kit.errors import GraderError

    def fails(path, seed, only=None, hidden=()):
        raise GraderError("the sandbox's zygote ended while a child was being graded")

    monkeypatch.setattr(confined, "grade_confined", fails)
    source, root = tmp_path / "source", tmp_path / "autograder"
    source.mkdir()
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "tools.py").write_text(REFERENCE)
    (source / "settings.json").write_text(json.dumps({"seed": 1, "require_confinement": False}))
    assert autograde(root, source) == 0
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["tests"] == [] and "autograder itself failed" in results["output"]


def test_whatever_fails_in_the_grader_a_results_json_is_written(tmp_path, monkeypatch, capsys):
    """A failure no one foresaw (here a RecursionError from intake) still ends in a results.json that blames
    the autograder, and its traceback for the instructor."""
    from grader.instructor import bundle

    def fails(folder):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(bundle, "find_tools", fails)
    source, root = tmp_path / "source", tmp_path / "autograder"
    source.mkdir()
    (root / "submission").mkdir(parents=True)
    (source / "settings.json").write_text(json.dumps({"seed": 1, "require_confinement": False}))
    assert autograde(root, source) == 0
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0 and "autograder itself failed" in results["output"]
    assert "RecursionError" in capsys.readouterr().out


# The bundle's own run_autograder, with the layers of a kernel without Landlock (and, for the
# second case, without a mount namespace either, as in Docker's default profile).
CAPPED = """
import sys
from dataclasses import replace
from pathlib import Path
from grader.instructor.sandbox import confine
layers = replace(confine.Layers.here(landlock_cap=0), private_mounts={mounts})
confine.Layers.here = classmethod(lambda cls, landlock_cap=None: layers)
from grader.instructor.bundle import autograde
sys.exit(autograde(Path(sys.argv[1])))
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid layer needs the autograder to run as root")
@pytest.mark.parametrize("which", ["bundle", "seedless"])
@pytest.mark.parametrize("mounts", [False, True], ids=["uid-and-modes", "mount-namespace"])
def test_without_landlock_no_secret_of_the_bundle_reaches_a_students_results(which, mounts, request):
    """Gradescope's kernels are not documented: with Landlock off, the child's own uid and the
    bundle's sealed modes (or a mount namespace where one can be made) keep its settings (the seed),
    the grader's source and Gradescope's metadata out of reach: none of it reaches results.json."""
    bundle = request.getfixturevalue(which)  # a seed for all, or a secret that makes one per submission
    top = Path(tempfile.mkdtemp(prefix="autograder-", dir="/tmp"))  # reachable by any uid, as /autograder is
    try:
        twist = (PROJECT / "tests" / "submissions" / "hostile" / "reads_secrets.py").read_text()
        root = autograder(bundle, top, {"tools.py": REFERENCE + "\n\n" + twist})
        (root / "submission_metadata.json").write_text('{"users": [{"email": "alice@example.edu"}]}')
        for folder in (top, root, root / "submission"):
            folder.chmod(0o755)
        (root / "results").mkdir(mode=0o755)
        done = subprocess.run(
            [sys.executable, "-c", CAPPED.format(mounts=mounts), str(root)],
            cwd=root / "source",
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        assert "Landlock off" in done.stdout and "sealed:" in done.stdout
        said = (root / "results" / "results.json").read_text()
        assert json.loads(said)["score"] == 100, said
        for secret in ('"seed"', "alice@example.edu", "def ", "BEGIN SOLUTION", "ref: refs/heads"):
            assert secret not in said
        if which == "seedless":
            assert settings(bundle)["secret"] not in said
    finally:
        shutil.rmtree(top)


def test_setup_sh_builds_the_grading_venv_and_run_autograder_grades_with_it(bundle, tmp_path):
    """The bundle as Gradescope receives it: its own setup.sh makes AUTOGRADER_ROOT/venv from the index (the
    grader's runtime alone, at the lock's versions), and run_autograder grades the reference with that venv."""
    root = autograder(bundle, tmp_path, {"tools.py": REFERENCE})
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    built = subprocess.run(
        ["bash", str(root / "source" / "setup.sh")],
        env={**env, "AUTOGRADER_ROOT": str(root)},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    python = root / "venv" / "bin" / "python"
    found = kit_trial.installed(python)
    pinned = lock.read(lock.GRADING.path)
    assert {name: found.get(name) for name in pinned} == pinned and set(found) - set(pinned) <= {"pip", "setuptools"}
    done = subprocess.run(
        [str(root / "run_autograder")],
        cwd=root,
        env={**env, "AUTOGRADER_ROOT": str(root)},  # run_autograder's own default: ROOT/venv
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads((root / "results" / "results.json").read_text())["score"] == 100


def test_the_bundle_installs_with_the_gradescope_lock(bundle):
    """What the grading image installs is grader/instructor/locks/gradescope.txt, as it is: pinned, and the
    grader's runtime alone (tests/instructor/test_lock.py holds the lock to what is installed)."""
    with zipfile.ZipFile(bundle) as archive:
        assert archive.read("constraints.txt") == lock.GRADING.path.read_bytes()
        setup = archive.read("setup.sh").decode()
        shipped = {name for name in archive.namelist() if name.startswith("grader/instructor/locks/")}
    assert '-c "$source/constraints.txt"' in setup and "libseccomp2" in setup
    assert "pyseccomp" in lock.read(lock.GRADING.path) and "jupyterlab" not in lock.read(lock.GRADING.path)
    assert shipped == set()  # the other locks are the lab's and the kit's


def test_a_stale_lock_refuses_to_build(tmp_path, monkeypatch, capsys):
    (tmp_path / "gradescope.txt").write_text(
        lock.GRADING.path.read_text().replace("hypothesis==", "hypothesis==0.0.0+")
    )
    monkeypatch.setattr(lock, "LOCKS", tmp_path)
    assert main(["gradescope", str(tmp_path / "b.zip"), "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert "python -m grader lock" in err and "hypothesis" in err and err.count("\n") == 1
    assert not (tmp_path / "b.zip").exists()


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
    assert {
        "grader/__main__.py",
        "grader/kit/grading.py",
        "grader/instructor/sandbox/session.py",
        "agtool/inventory.py",
        "constraints.txt",
        "settings.json",
    } <= files.keys()
    assert settings(bundle) == {"seed": SEED, "require_confinement": True, "inputs_shown": "after_due_date"}
    assert "agtool/tools.py" not in files
    agtool_files = {name: content for name, content in files.items() if name.startswith("agtool/")}
    assert leaks(agtool_files, solution_lines(REFERENCE)) == []
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in files)


def test_the_bundle_requirements_are_the_projects_own_lines(bundle):
    with zipfile.ZipFile(bundle) as archive:
        lines = archive.read("requirements.txt").decode().splitlines()
    project = (PROJECT / "requirements.txt").read_text().splitlines()
    assert lines and set(lines) <= set(project)
    assert [Requirement(line).name for line in lines] == list(lock.GRADESCOPE)


# Grade the reference as run_autograder does, in an interpreter where every distribution
# outside `allowed` is as good as not installed: what Gradescope's fresh venv would have.
ONLY_ALLOWED = """
import json, re, sys
import importlib.metadata as md
from pathlib import Path
allowed, owners = set(json.loads(sys.argv[2])), md.packages_distributions()

class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        # The lab's own modules come from the bundle (the cwd) alone: an editable install of the
        # repository would otherwise lend a module the bundle forgot to ship.
        if name.partition(".")[0] in ("agtool", "grader"):
            here = Path.cwd().joinpath(*name.split("."))
            if not (here.with_suffix(".py").is_file() or (here / "__init__.py").is_file()):
                raise ModuleNotFoundError(f"No module named {name!r} in the bundle", name=name)
        dists = {re.sub(r"[-_.]+", "-", dist).lower() for dist in owners.get(name.partition(".")[0], [])}
        if dists and not dists & allowed:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, NotInstalled())
from grader.instructor.bundle import autograde
autograde(Path(sys.argv[1]))
"""


def test_grading_needs_nothing_beyond_the_bundle_requirements(bundle, tmp_path):
    root = autograder(bundle, tmp_path, {"tools.py": REFERENCE})
    allowed = sorted(lock.needed(lock.GRADESCOPE) | {"agtool-lab"})  # agtool-lab: the bundled source
    done = subprocess.run(
        [sys.executable, "-c", ONLY_ALLOWED, str(root), json.dumps(allowed)],
        cwd=root / "source",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads((root / "results" / "results.json").read_text())["score"] == 100


@pytest.mark.parametrize(
    "out, words", [("autograder.tar", "must end in .zip"), ("nowhere/autograder.zip", "does not exist")]
)
def test_bad_output_gets_one_clear_line_and_exit_code_2(out, words, tmp_path, capsys):
    assert main(["gradescope", str(tmp_path / out)]) == 2
    err = capsys.readouterr().err
    assert words in err and "OUT.zip" in err and "Traceback" not in err


def test_the_bundle_is_byte_identical_when_built_twice(bundle, tmp_path):
    again = tmp_path / "again.zip"
    assert main(["gradescope", str(again), "--seed", str(SEED)]) == 0
    assert again.read_bytes() == bundle.read_bytes()


# ── whatever the submission's folder holds, a grade ends with a results.json ──

UPLOADS = PROJECT / "tests" / "submissions" / "hostile" / "uploads"


def nested_folders(submission: Path, levels: int = 1500, bottom: str | None = None) -> None:
    """tests/submissions/hostile/uploads/nested_folders.py's chain, planted in `submission`."""
    runpy.run_path(str(UPLOADS / "nested_folders.py"))["plant"](submission, levels, bottom)


@pytest.fixture
def chained(tmp_path):
    """A folder the test plants a chain of folders in, removed one level at a time afterwards: pytest's
    own clean-up (shutil.rmtree) recurses once per level on Python 3.11."""
    yield tmp_path
    assert remove(str(tmp_path)) is None


def test_a_chain_of_nested_folders_beside_tools_py_is_graded(bundle, chained):
    """1,500 nested folders ended the bundle with RecursionError before it graded anything (no results.json)."""
    root = autograder(bundle, chained, {"tools.py": REFERENCE})
    nested_folders(root / "submission")
    done, results = run_autograder(root)
    assert done.returncode == 0, done.stderr
    assert results["score"] == 100


def test_a_tools_py_past_the_folders_the_bundle_walks_gets_a_zero_that_says_why(bundle, chained):
    root = autograder(bundle, chained, {"README.md": "hi"})
    nested_folders(root / "submission", bottom=REFERENCE)
    done, results = run_autograder(root)
    assert done.returncode == 0, done.stderr
    assert results["score"] == 0 and results["tests"] == []
    assert f"no tools.py within {SEARCHED_DEPTH} folders" in results["output"]
    assert "Upload your agtool/tools.py" in results["output"]


def test_finding_tools_py_looks_at_a_bounded_number_of_entries_and_says_so(tmp_path):
    """A top-level tools.py is found whatever lies beside it; below a folder of too many entries, the
    search stops and names the bound (one line), instead of walking all of it."""
    for n in range(SEARCHED_ENTRIES + 1):
        (tmp_path / f"f{n}").touch()
    (tmp_path / "lab").mkdir()
    (tmp_path / "lab" / "tools.py").write_text(REFERENCE)
    with pytest.raises(NotASubmission, match=f"first {SEARCHED_ENTRIES:,} files and folders"):
        find_tools(tmp_path)
    (tmp_path / "tools.py").write_text(REFERENCE)
    assert find_tools(tmp_path) == tmp_path / "tools.py"


def test_finding_tools_py_keeps_its_order_and_follows_no_folder_link(tmp_path):
    """The shallowest tools.py, the first by path among equals; hidden folders and linked folders skipped;
    a tools.py that is a link or a FIFO is found (and refused when read), a folder named tools.py is not."""
    for name in ("b/tools.py", "a/x/tools.py", ".git/tools.py", "__MACOSX/tools.py", "outside/tools.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    top = tmp_path / "top"
    top.mkdir()
    for name in ("b", "a", ".git", "__MACOSX"):
        (tmp_path / name).rename(top / name)
    (top / "c").symlink_to(tmp_path / "outside", target_is_directory=True)
    assert find_tools(top) == top / "b" / "tools.py"
    (top / "a" / "tools.py").mkdir()
    assert find_tools(top) == top / "b" / "tools.py"
    (top / "b" / "tools.py").unlink()
    os.mkfifo(top / "b" / "tools.py")
    assert find_tools(top) == top / "b" / "tools.py"
