"""The student kit: `python -m grader release OUTDIR`, its skeleton rule, its leak rule, and its notebooks.

The nbval runs execute the kit's notebooks in a fresh kernel with PYTHONPATH set
to the kit, so `import agtool` and `import grader` load the kit's copies rather
than the repository's editable install; test_the_kernel_imports_the_kits_agtool
proves that this is so.
"""

import importlib.util
import inspect
import json
import os
import re
import runpy
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import nbformat
import pytest
import setuptools
from nbclient import NotebookClient
from packaging.requirements import Requirement

from grader.instructor import kit_trial, lock, release
from grader.instructor.release import ReleaseError
from grader.kit.grading import STAGE_POINTS
from tests import forked_python

pytestmark = pytest.mark.release

ROOT = release.ROOT
REFERENCE = (ROOT / release.STUDENT_MODULE).read_text()
STAGE_NOTEBOOKS = [
    "01_contract.ipynb",
    "02_check_args.ipynb",
    "03_check_result.ipynb",
    "04_door.ipynb",
    "05_memo.ipynb",
    "06_retry_graph.ipynb",
]
NOTEBOOKS = {n: name for n, name in enumerate(STAGE_NOTEBOOKS, 1)}

# The student module's public names (fixed API), and for each function the stage whose stub it must raise.
SPEC_FUNCTIONS = {
    "describe_tools": 1,
    "check_args": 2,
    "check_result": 3,
    "call_tool": 4,
    "memo_key": 5,
    "call_memo": 5,
    "build_graph": 6,
    "run": 6,
}
SPEC_NAMES = {"TOOLS", "check_table", "MAX_ATTEMPTS", "DEFAULT_REGION", "FIXES", *SPEC_FUNCTIONS}


def kit_env(kit: Path) -> dict:
    """The environment in which `import agtool` means the kit's agtool (PYTHONPATH beats the editable install)."""
    return {**os.environ, "PYTHONPATH": str(kit)}


def in_kit(kit: Path, command: list[str], timeout: int) -> subprocess.CompletedProcess:
    """`command` run in the kit, as its student would (kit_env), with its output captured as text."""
    return subprocess.run(command, cwd=kit, env=kit_env(kit), capture_output=True, text=True, timeout=timeout)


# The kits are built once per test process (under pytest-xdist this file's tests share one
# worker: conftest.py), and shared by every test that reads or runs them: a build costs seconds.
@pytest.fixture(scope="session")
def kit_files():
    return release.kit_files()


@pytest.fixture(scope="session")
def built_kit(kit_files, tmp_path_factory) -> tuple[Path, dict[str, bytes]]:
    """A kit written by the same code as the CLI (without the leak refusal, tested on its own below),
    and its files as written, read before any test runs code in it."""
    out = tmp_path_factory.mktemp("release") / "kit"
    release.write_kit(kit_files, out)
    return out, read_tree(out)


@pytest.fixture(scope="session")
def kit(built_kit) -> Path:
    return built_kit[0]


@pytest.fixture(scope="session")
def kit_tree(built_kit) -> dict[str, bytes]:
    """What the release wrote: running code in the kit may leave caches behind (whatever test ran
    first in this process), so the tests of what ships judge this, not the folder as it is now."""
    return built_kit[1]


@pytest.fixture(scope="session")
def finished_kit(kit_files, tmp_path_factory) -> Path:
    """A kit whose student has written everything (here: the reference itself); its tests only run it."""
    finished = tmp_path_factory.mktemp("release") / "finished"
    release.write_kit(kit_files, finished)
    shutil.copy(ROOT / release.STUDENT_MODULE, finished / release.STUDENT_MODULE)
    return finished


def read_tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def import_by_path(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ── The skeleton rule ─────────────────────────────────────────────────────────

SOURCE = '''\
"""A module."""
# ── Stage 1 · contract ──
# BEGIN SOLUTION
TABLE = {"a": 1}
# END SOLUTION
# BEGIN PROMPT
# TABLE = {}   # Stage 1: write the table
#
# END PROMPT


def lookup(key):
    """The value of key."""
    # BEGIN SOLUTION
    return TABLE[key]
    # END SOLUTION


# ── Stage 2 · methods ──
class Box:
    def open(self):
        """Open it."""
        if True:
            # BEGIN SOLUTION
            return "open"
            # END SOLUTION
'''


def test_a_function_body_becomes_a_stub_naming_stage_function_and_notebook():
    """An indented solution block becomes a NotImplementedError stub at its indentation; the docstring stays."""
    out = release.skeleton(SOURCE, "m.py", NOTEBOOKS)
    assert (
        'def lookup(key):\n    """The value of key."""\n'
        '    raise NotImplementedError("Stage 1: lookup — see notebooks/01_contract.ipynb")\n'
    ) in out
    assert '            raise NotImplementedError("Stage 2: open — see notebooks/02_check_args.ipynb")\n' in out


def test_a_module_level_block_is_removed_and_its_prompt_uncommented():
    """A module-level solution block goes; the PROMPT block after it loses its '# ' and its markers."""
    out = release.skeleton(SOURCE, "m.py", NOTEBOOKS)
    assert 'TABLE = {"a": 1}' not in out
    assert "TABLE = {}   # Stage 1: write the table\n\n" in out
    assert "BEGIN" not in out and "END " not in out
    compile(out, "m.py", "exec")


@pytest.mark.parametrize(
    "source, line, message",
    [
        ("# ── Stage 1 · x ──\n# BEGIN SOLUTION\n# BEGIN SOLUTION\n# END SOLUTION\n", 3, "nested"),
        ("# ── Stage 1 · x ──\n# END SOLUTION\n", 2, "without a matching"),
        ("# ── Stage 1 · x ──\ndef f():\n    # BEGIN SOLUTION\n    pass\n", 3, "never closed"),
        ("# ── Stage 1 · x ──\ndef f():\n    # BEGIN SOLUTION\n    pass\n# END SOLUTION\n", 5, "not indented like"),
        ("# ── Stage 1 · x ──\n# BEGIN PROMPT\n# x = 1\n# END PROMPT\n", 2, "must directly follow"),
        ("def f():\n    # BEGIN SOLUTION\n    pass\n    # END SOLUTION\n", 2, "before any"),
        ("# ── Stage 1 · x ──\nx = 1\n    # BEGIN SOLUTION\n    pass\n    # END SOLUTION\n", 3, "inside a function"),
        ("# ── Stage 1 · x ──\n#BEGIN  SOLUTION\n", 2, "malformed marker"),
        ("# ── Stage 7 · x ──\ndef f():\n    # BEGIN SOLUTION\n    pass\n    # END SOLUTION\n", 3, "no notebooks/07_"),
        (
            "# ── Stage 1 · x ──\n# BEGIN SOLUTION\n# END SOLUTION\n# BEGIN PROMPT\nx = 1\n# END PROMPT\n",
            5,
            "must start with '# '",
        ),
    ],
)
def test_bad_markers_are_refused_naming_file_and_line(source, line, message):
    """Unbalanced, nested, misplaced or malformed markers: a ReleaseError naming file:line and the fault."""
    with pytest.raises(ReleaseError, match=rf"^m\.py:{line}: .*{re.escape(message)}"):
        release.skeleton(source, "m.py", NOTEBOOKS)


def test_the_reference_skeleton_is_derived_the_same_way_every_time():
    """Same reference, same skeleton: nothing depends on time, order of a dict or the machine."""
    assert release.skeleton(REFERENCE, "t.py", NOTEBOOKS) == release.skeleton(REFERENCE, "t.py", NOTEBOOKS)


# ── The leak rule ─────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "line",
    [
        "",
        "    # a comment",
        ")",
        "  }})  # end",
        "return None",
        "continue",
        "else:",
        "return envelope",
        "if not item:",
        "kind = type(value)",
        "except Exception as error:",
        "value = args.pop(arg)  # say why",
    ],
)
def test_trivial_lines_are_not_solution_lines(line):
    """No literal and fewer than five names: what any Python file holds."""
    assert not release.is_meaningful(release.code_of(line))


@pytest.mark.parametrize(
    "code",
    [
        'return f"type:{arg}"',
        "return 0",
        "args[closest[0]] = value",
        "return all(map(is_json, value))",
        "for key, spec in specs.items():",
        'if "min" in spec and not value >= spec["min"]:',
    ],
)
def test_code_with_a_literal_or_five_names_is_meaningful(code):
    assert release.is_meaningful(code)


def test_solution_lines_leave_out_code_the_reference_also_has_outside_its_blocks():
    """A line also written outside the blocks is lab-provided code, shipped on purpose."""
    source = (
        "# ── Stage 1 · x ──\nx = compute(1)\ndef f():\n    # BEGIN SOLUTION\n"
        "    x = compute(1)\n    y = secret(2)  # why\n    return None\n    # END SOLUTION\n"
    )
    assert release.solution_lines(source, "m.py") == {"y = secret(2)"}


def test_solution_lines_leave_out_code_of_the_lab_provided_part():
    """A line the lab's part (agtool/contract.py) also has is lab-provided code too: the table check
    moved out of tools.py writes `if "items" in spec:` as arg_schema's solution does."""
    source = (
        '# ── Stage 1 · x ──\ndef f(spec):\n    # BEGIN SOLUTION\n    if "items" in spec:\n'
        "        y = secret(2)\n    # END SOLUTION\n"
    )
    assert release.solution_lines(source, "m.py", provided="") == {'if "items" in spec:', "y = secret(2)"}
    assert release.solution_lines(source, "m.py", provided='    if "items" in spec:\n') == {"y = secret(2)"}
    assert 'if "items" in spec:' not in release.solution_lines(source, "m.py")  # this repository's contract.py


# A real solution line of the reference, whatever the reference says today: its longest.
PLANTED = max(sorted(release.solution_lines(REFERENCE)), key=len)


def test_a_planted_solution_line_is_found_in_a_notebook_cell_and_in_a_file():
    """The leak check reads every text file, and every line of every notebook cell."""
    line = PLANTED
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"def k(name, args):\n    {line}")])
    files = {
        "notebooks/x.ipynb": nbformat.writes(notebook).encode(),
        "agtool/x.py": f"    {line}  # copied\n".encode(),
        "picture.png": b"\x89PNG\xff\xfe",
    }
    assert release.leaks(files, release.solution_lines(REFERENCE)) == [
        f"notebooks/x.ipynb:cell 1 line 2: {line}",
        f"agtool/x.py:1: {line}  # copied",
    ]


def test_release_refuses_a_kit_that_would_leak_and_writes_nothing(tmp_path):
    """A notebook quoting the solution makes release refuse, naming the place; OUTDIR is not created."""
    root = tmp_path / "root"
    for folder in ("agtool", "grader", "notebooks"):
        shutil.copytree(ROOT / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("requirements.txt", lock.DATA, "pyproject.toml", "Makefile"):
        shutil.copy(ROOT / name, root / name)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"    {PLANTED}")])
    (root / "notebooks" / "99_leak.ipynb").write_text(nbformat.writes(notebook))
    with pytest.raises(ReleaseError, match=re.escape(f"notebooks/99_leak.ipynb:cell 1 line 1: {PLANTED}")):
        release.release(tmp_path / "out", root=root)
    assert not (tmp_path / "out").exists()


# ── The kit ───────────────────────────────────────────────────────────────────


def test_the_kit_has_what_students_need(kit, kit_tree):
    """Notebooks, the skeleton and the lab's other modules, the grader, and the files that set it all up."""
    files = set(kit_tree)
    for needed in [
        "README.md",
        "Makefile",
        "requirements.txt",
        "pyproject.toml",
        ".gitignore",
        "agtool/__init__.py",
        "agtool/tools.py",
        "agtool/contract.py",
        "agtool/inventory.py",
        "agtool/lab.py",
        "agtool/panel.py",
        *(f"notebooks/{name}" for name in STAGE_NOTEBOOKS),
    ]:
        assert needed in files
    assert {
        "grader/__init__.py",
        "grader/kit/public_cases.json",
        "grader/kit/selfcheck.py",  # check() needs them
        "grader/__main__.py",
        "grader/kit/check_command.py",
    } <= files  # and check N too
    assert "constraints.txt" in files
    assert "notebooks/09_real_world.ipynb" in files and "agtool/realworld.py" in files


def test_the_kit_installs_the_data_from_its_one_pin_without_its_dependencies(kit, kit_tree):
    """requirements-data.txt ships as it is; the kit's Makefile and every README way install it with --no-deps,
    by that file's name: no other file of the kit names the version."""
    assert kit_tree[lock.DATA] == (ROOT / lock.DATA).read_bytes()
    (version,) = lock.data_pins().values()
    makefile, readme = (kit / "Makefile").read_text(), (kit / "README.md").read_text()
    assert f"--no-deps -r {lock.DATA}" in makefile and lock.DATA in makefile.split(".installed:")[1].split("\n")[0]
    for block, after, path in (
        ("sh", "**Without `make`**", lock.DATA),
        ("bat", "Windows, in PowerShell", lock.DATA.replace("/", "\\")),
    ):
        (line,) = [line for line in kit_trial.readme_block(kit, block, after) if path in line]
        assert "--no-deps" in line
    # the hosted cells run beside the notebook (JupyterHub) or above the kit (Colab): the file by its name
    pips = [line for line in readme.splitlines() if line.strip().startswith("%pip")]
    hosted = [line for line in pips if "requirements-data.txt" in line]
    assert len(hosted) == 2 and all("--no-deps" in line for line in hosted)
    named = [path for path, content in kit_tree.items() if path != lock.DATA and version.encode() in content]
    assert named == ["constraints.txt"], named  # the kit's lock pins what it pins: tests/instructor/test_lock.py


def test_the_kit_installs_the_labs_runtime_pinned_by_the_kit_lock(kit_tree):
    """requirements.txt: the project's own lines for what the kit installs (lock.KIT), none of the instructor's;
    constraints.txt: the kit's lock, as it is."""
    lines = [line for line in kit_tree["requirements.txt"].decode().splitlines() if not line.startswith("#")]
    assert [lock.canonical(Requirement(line).name) for line in lines] == list(lock.KIT)
    assert set(lines) <= set((ROOT / "requirements.txt").read_text().splitlines())
    assert kit_tree["constraints.txt"] == lock.STUDENT.path.read_bytes()


# The lab's table validation, which lives in agtool/contract.py: none of it is the lesson.
TABLE_VALIDATION = (
    "def check_table",
    "class ContractError",
    "def _check_spec",
    "def _check_keys",
    "def _check_args",
    "def _check_returns",
    "def _table_value",
    "_ARG_KEYS",
    "_ENTRY_KEYS",
)


def test_the_kits_tools_py_is_the_lesson_and_contract_py_the_labs_table_check(kit_tree):
    """The student scrolls past no lab code: check_table and its helpers ship in agtool/contract.py, as they are."""
    skeleton, contract = kit_tree["agtool/tools.py"].decode(), kit_tree["agtool/contract.py"].decode()
    for code in TABLE_VALIDATION:
        assert code not in skeleton, code
        assert code in contract, code
    assert contract == (ROOT / "agtool" / "contract.py").read_text()
    assert "from agtool.contract import" in skeleton and skeleton.rstrip().endswith(
        "check_table(TOOLS)  # this module's own table, whatever name it is imported under"
    )


def test_the_skeleton_takes_the_constants_from_the_lab_and_6_1_judges_a_module_that_changes_them(tmp_path):
    """MAX_ATTEMPTS and DEFAULT_REGION are the lab's (agtool.contract), not the student's to write; the
    stage-6 check of them still fails a module that sets its own."""
    from grader.kit.grading import grade
    from grader.kit.local import LocalSession

    for name, value, expected in (("MAX_ATTEMPTS", "5", "3"), ("DEFAULT_REGION", "'jeju'", "'seoul'")):
        path = tmp_path / f"{name}.py"
        path.write_text(f"{REFERENCE}{name} = {value}\n")
        (result,) = grade(str(path), LocalSession, only="6.1", stages=(6,)).results
        assert not result.passed and result.mismatch is not None, result.message
        assert (result.mismatch.call, result.mismatch.expected, result.mismatch.got) == (name, expected, value)
    (result,) = grade(str(ROOT / release.STUDENT_MODULE), LocalSession, only="6.1", stages=(6,)).results
    assert result.passed, result.message


def test_the_kit_has_no_oracle_and_no_instructor_commands(kit, kit_tree):
    """The oracle solves every stage; grading strangers' code and making kits are the instructor's.
    grader/__main__.py ships, and in the kit it offers `check` alone."""
    files = set(kit_tree)
    assert not any(path.startswith("grader/instructor/") for path in files)
    for kept_back in [
        "oracle",
        "sandbox",
        "session",
        "zygote",
        "landlock",
        "confine",
        "classroom",
        "bundle",
        "grading_speed",
        "release",
        "lock",
        "trusted/args",
    ]:
        assert not any(path.startswith("grader/") and path.endswith(f"/{kept_back}.py") for path in files), kept_back
    helped = in_kit(kit, [sys.executable, "-m", "grader", "--help"], timeout=120)
    assert helped.returncode == 0, helped.stderr[-2000:]
    commands = re.findall(r"^    (\w+)", helped.stdout, re.M)
    assert commands == ["check"], helped.stdout
    refused = in_kit(kit, [sys.executable, "-m", "grader", "grade", "agtool/tools.py"], timeout=120)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr


# What a kit's check(N) gives: run with only the kit on the path (nothing of the repository's grader).
KIT_CHECK = """
import json, sys
from grader import check
paths = json.loads(sys.argv[1])
reports = [repr(check(stage, path)) for stage, path in paths]
loaded = {name: module.__file__ for name, module in sys.modules.items() if name.split(".")[0] == "grader"}
print(json.dumps({"reports": reports, "loaded": loaded}))
"""


def run_in_kit(kit: Path, script: str, argument: object) -> dict:
    """What `script` prints (JSON, with the grader modules it "loaded"), run in the kit on json.dumps(argument):
    every module of the grader it loaded is the kit's, and the oracle is not among them."""
    done = in_kit(kit, forked_python.command([sys.executable, "-c", script, json.dumps(argument)]), timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout)
    assert "grader.instructor.oracle" not in found["loaded"]
    assert all(file.startswith(str(kit)) for file in found["loaded"].values()), found["loaded"]
    return found


def kit_check(kit: Path, paths: list[tuple[int, str | None]]) -> list[str]:
    """check(stage, path)'s text for each (None: the kit's own agtool/tools.py)."""
    return run_in_kit(kit, KIT_CHECK, paths)["reports"]


def test_the_kits_check_runs_without_the_oracle_and_finds_nothing_written_yet(kit):
    """On the skeleton, every check of every stage is "not implemented yet", and the table says once
    that it is judged on public cases, on the student's own earlier stages."""
    for stage, report in zip(NOTEBOOKS, kit_check(kit, [(stage, None) for stage in NOTEBOOKS]), strict=True):
        checks = [line for line in report.splitlines() if re.match(r"[✓✗] \d\.\d ", line)]
        assert checks and all(line.startswith("✗") for line in checks)
        assert report.count("not implemented yet") == len(checks)
        assert report.count("public cases") == 1 and "hidden random inputs" in report
        assert ("your own stage" in report) == (stage > 1)


def selfcheck(kit: Path) -> subprocess.CompletedProcess:
    """The kit's `make test`: its one-line summary of every stage."""
    return in_kit(kit, forked_python.command([sys.executable, "-m", "grader.kit.selfcheck"]), timeout=300)


def test_the_kits_check_passes_the_reference_and_make_test_says_so(finished_kit):
    finished = finished_kit
    for stage, report in zip(NOTEBOOKS, kit_check(finished, [(stage, None) for stage in NOTEBOOKS]), strict=True):
        assert "✗" not in report and f"{STAGE_POINTS[stage]} / {STAGE_POINTS[stage]} points" in report, report
    assert "python -m grader.kit.selfcheck" in (finished / "Makefile").read_text()
    done = selfcheck(finished)
    assert done.returncode == 0 and "✗" not in done.stdout, done.stdout[-3000:]
    assert done.stdout.count("\n") == 1 and done.stdout.startswith("6 of 6 stages pass"), done.stdout


def test_make_test_on_the_skeleton_is_one_line_naming_what_shows_why(kit):
    done = selfcheck(kit)
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stdout.count("\n") == 1 and done.stdout.startswith("0 of 6 stages pass"), done.stdout
    assert done.stdout.rstrip().endswith("see why: .venv/bin/python -m grader check 1")


def test_the_kits_replay_line_runs_in_a_terminal_and_shows_the_same_failure(kit_files, tmp_path):
    """check(2)'s table names `.venv/bin/python -m grader check 2`; run in the kit, it prints that very table
    and exits 1. (The kit's .venv is the repository's, linked: what `make lab` would have made.)"""
    broken = runpy.run_path(str(ROOT / "tests" / "submissions" / "broken" / "table.py"))["BROKEN"]
    old, new = next((old, new) for old, new, stage in broken.values() if stage == 2)
    student = tmp_path / "student"
    release.write_kit(kit_files, student)
    (student / release.STUDENT_MODULE).write_text(REFERENCE.replace(old, new))
    (student / ".venv").symlink_to(Path(sys.executable).parents[1], target_is_directory=True)
    (report,) = kit_check(student, [(2, None)])
    replay = re.search(r"^From a terminal: (.+)$", report, re.M)
    assert replay and replay[1] == ".venv/bin/python -m grader check 2", report
    done = in_kit(student, shlex.split(replay[1]), timeout=300)
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stdout.rstrip("\n") == report and "✗ 2." in done.stdout


def test_the_kits_check_catches_every_broken_submission_in_its_stage(kit, tmp_path):
    """Each realistic mistake fails its own stage's public cases (later stages may fail too: no isolation)."""
    broken = runpy.run_path(str(ROOT / "tests" / "submissions" / "broken" / "table.py"))["BROKEN"]
    paths: list[tuple[int, str | None]] = []
    for name, (old, new, stage) in broken.items():
        (tmp_path / name).write_text(REFERENCE.replace(old, new))
        paths.append((stage, str(tmp_path / name)))
    for (_stage, path), report in zip(paths, kit_check(kit, paths), strict=True):
        assert re.search(r"^✗ \d\.\d ", report, re.M) and "\n      expected: " in report, (path, report)


def test_the_readme_states_the_set_up_as_the_bench_measured_it(kit):
    """No placeholder is left, and each way's time and disk are the figures the kit-setup bench wrote."""
    readme = (kit / "README.md").read_text()
    assert not re.search(r"\{\w+\}", readme)
    figures = json.loads(release.SETUP_FIGURES.read_text())
    for way in ("make", "hosted"):
        assert figures[way]["seconds"] > 0 and figures[way]["bytes"] > 0, "run `python -m grader.bench --kit-setup`"
        assert f"about {figures[way]['seconds']} s" in readme and f"{figures[way]['bytes'] / 1e6:.0f} MB" in readme
    assert f"for {figures['download']['bytes'] / 1e6:.0f} MB" in readme


def test_the_readme_lists_what_each_stage_writes(kit):
    """The README's table is drawn from the markers: every stub and PROMPT name in its stage's row."""
    rows = {
        int(m[1]): m[2]
        for m in re.finditer(r"^\| (\d) \| `notebooks/\S+` \| (.*) \|$", (kit / "README.md").read_text(), re.M)
    }
    assert set(rows) == set(NOTEBOOKS)
    for name, stage in {**SPEC_FUNCTIONS, "TOOLS": 1, "FIXES": 6}.items():
        assert f"`{name}`" in rows[stage]


def test_the_kit_makefile_is_whole_and_its_lab_rule_the_repositorys(kit):
    """Every variable the kit's Makefile uses it defines itself (a rule copied from the repository once named
    the repository's $(LOCK), and every student's first `make lab` stopped there); its lab rule is the
    repository's own, which the browser test runs. tests/instructor/test_kit_as_received.py runs it."""
    makefile = (kit / "Makefile").read_text()
    assert release._make_rule(ROOT / "Makefile", "lab") in makefile and "{" not in makefile
    defined = set(re.findall(r"^(\w+)\s*[:?]?=", makefile, re.M))
    used = set(re.findall(r"\$\((\w+)\)", makefile)) - {"if", "filter", "shell"}
    assert used <= defined, used - defined
    assert "-c constraints.txt" in makefile


def test_the_kit_pyproject_installs_both_packages_and_runs_its_notebooks(kit):
    """`pip install .` in the kit installs agtool, grader, grader.kit.checks and the public cases;
    its pytest runs the notebooks under nbval."""
    kit_project = tomllib.loads((kit / "pyproject.toml").read_text())
    repo_project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    dependencies = kit_project["project"].pop("dependencies")  # what a hosted notebook installs with the kit
    assert kit_project["project"] == repo_project["project"]
    assert [lock.canonical(Requirement(line).name) for line in dependencies] == list(lock.KERNEL)
    found = setuptools.find_packages(str(kit), include=kit_project["tool"]["setuptools"]["packages"]["find"]["include"])
    assert {"agtool", "grader", "grader.kit.checks"} <= set(found)
    assert "*.json" in kit_project["tool"]["setuptools"]["package-data"]["grader"]
    pytest_options = kit_project["tool"]["pytest"]["ini_options"]
    assert pytest_options["testpaths"] == ["notebooks"]
    assert "--nbval-lax" in pytest_options["addopts"] and "--nbval-current-env" in pytest_options["addopts"]


def test_no_cache_checkpoint_or_bytecode_ships(kit_tree):
    junk = [p for p in kit_tree if re.search(r"__pycache__|\.pyc$|\.ipynb_checkpoints|\.hypothesis|egg-info", p)]
    assert junk == []


def test_notebooks_ship_without_outputs_or_execution_counts(kit):
    """Nor a NBVAL_CHECK_OUTPUT marker: nbval would compare the cell with an output the kit does not store."""
    for path in sorted((kit / "notebooks").glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "code":
                assert (cell.outputs, cell.execution_count) == ([], None), f"{path.name}: {cell.source[:40]}"
                assert release.CHECK_OUTPUT not in cell.source, f"{path.name}: {cell.source[:40]}"
            assert set(cell.metadata) <= {"tags"}
        assert set(notebook.metadata) == {"kernelspec", "language_info"}


def test_two_releases_are_byte_identical(kit_tree, tmp_path):
    """Generation is deterministic: a second release, written anew, matches the first byte for byte."""
    release.write_kit(release.kit_files(), tmp_path / "again")
    assert read_tree(tmp_path / "again") == kit_tree


def test_no_solution_line_survives(kit_files):
    """No meaningful line of the reference's SOLUTION blocks is in any text file of the kit."""
    found = release.leaks(kit_files, release.solution_lines(REFERENCE))
    assert not found, f"{len(found)} solution lines in the kit:\n" + "\n".join(found)


def test_the_skeleton_imports_and_keeps_every_public_name(kit):
    """Every public name of the spec is there; every spec function raises its own stage's stub."""
    skeleton = import_by_path(kit / "agtool" / "tools.py", "kit_skeleton_tools")
    assert set(dir(skeleton)) >= SPEC_NAMES
    assert (skeleton.TOOLS, skeleton.FIXES, skeleton.MAX_ATTEMPTS, skeleton.DEFAULT_REGION) == ({}, {}, 3, "seoul")
    arguments = {
        "describe_tools": (),
        "build_graph": (),
        "run": ({"tool": "x", "args": {}},),
        "call_memo": ("x", {}, {}),
    }
    for name, stage in SPEC_FUNCTIONS.items():
        with pytest.raises(NotImplementedError) as stub:
            getattr(skeleton, name)(*arguments.get(name, ("x", {})))
        assert str(stub.value) == f"Stage {stage}: {name} — see notebooks/{NOTEBOOKS[stage]}"
        assert (kit / "notebooks" / NOTEBOOKS[stage]).exists()


def test_the_skeleton_keeps_signatures_and_docstrings(kit):
    skeleton = import_by_path(kit / "agtool" / "tools.py", "kit_skeleton_signatures")
    reference = import_by_path(ROOT / "agtool" / "tools.py", "kit_reference_signatures")
    for name in SPEC_FUNCTIONS:
        ours, theirs = getattr(skeleton, name), getattr(reference, name)
        assert inspect.signature(ours) == inspect.signature(theirs)
        assert ours.__doc__ == theirs.__doc__


def test_release_cli_refuses_a_non_empty_outdir(tmp_path):
    """An OUTDIR with something in it is left alone unless --force: exit 1 and a message, not a traceback."""
    (tmp_path / "keep.txt").write_text("mine")
    done = subprocess.run(
        [sys.executable, "-m", "grader", "release", str(tmp_path)], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode != 0
    assert "--force" in done.stderr and "Traceback" not in done.stderr
    assert read_tree(tmp_path) == {"keep.txt": b"mine"}


# ── The kit's notebooks under nbval, against the skeleton and against the reference ──


def test_the_kernel_imports_the_kits_agtool(kit):
    """The mechanism the nbval runs rely on: a kernel started with kit_env imports the kit's modules."""
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "import agtool.tools, grader\nprint(agtool.tools.__file__, list(grader.__path__)[0])"
            )
        ]
    )
    client = NotebookClient(
        notebook, kernel_name="python3", timeout=60, resources={"metadata": {"path": str(kit / "notebooks")}}
    )
    client.execute(env=kit_env(kit))
    tools_file, grader_path = notebook.cells[0].outputs[0]["text"].split()
    assert tools_file == str(kit / "agtool" / "tools.py")
    assert grader_path == str(kit / "grader")


def run_nbval(kit: Path) -> subprocess.CompletedProcess:
    """pytest on the kit's notebooks, configured by the kit's own pyproject (nbval-lax, current env),
    their kernels forked as the repository's are (tests/forked_python.py: the checkout after the
    kit on PYTHONPATH is for that plugin alone, and is taken off the kernels' again)."""
    env = {**kit_env(kit), forked_python.ADDRESS: forked_python.address()}
    env["PYTHONPATH"] += os.pathsep + forked_python.HERE
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.forked_python", "notebooks"],
        cwd=kit,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_kit_notebooks_run_top_to_bottom_against_the_skeleton(kit):
    """A student who has written nothing yet runs every notebook without an error cell."""
    done = run_nbval(kit)
    assert done.returncode == 0, done.stdout[-4000:]
    assert re.search(r"\d+ passed", done.stdout)


def test_kit_notebooks_run_top_to_bottom_against_the_reference(finished_kit):
    """A student who has written everything (here: the reference itself) runs them too."""
    done = run_nbval(finished_kit)
    assert done.returncode == 0, done.stdout[-4000:]


# ── The grade: 0 for the skeleton, 100 for the reference ──────────────────────


def grade(path: Path, results: Path) -> float:
    done = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(path), "--results", str(results)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(results.read_text())["score"]


def test_the_skeleton_grades_0_and_the_reference_100(kit, tmp_path):
    assert grade(kit / "agtool" / "tools.py", tmp_path / "skeleton.json") == 0
    assert grade(ROOT / release.STUDENT_MODULE, tmp_path / "reference.json") == 100


# ── a lab module that does a stage's job ─────────────────────────────────────

OWN_SCHEMA = """
def object_schema(specs):
    return {"type": "object", "properties": {key: arg_schema(spec) for key, spec in specs.items()}}


def arg_schema(spec):
    return {"type": {"int": "integer"}.get(spec["type"], "string")}
"""
WRAPPER = """
from agtool import tools


def call_memo(name, args, memo):
    print("calling", name)
    return tools.call_memo(name, args, memo)
"""


def test_a_lab_module_that_gives_a_stages_function_of_its_own_is_refused():
    """agtool/schema.py once held object_schema and arg_schema, stage 1's job, under their names: a
    student could copy or call them. A lab module may wrap the student's function, never replace it."""
    functions = release.solution_functions(REFERENCE)
    files = {"agtool/schema.py": OWN_SCHEMA.encode(), "agtool/panel.py": WRAPPER.encode()}
    assert release.shadows(files, functions) == [
        "agtool/schema.py:2: defines object_schema, which the student writes",
        "agtool/schema.py:6: defines arg_schema, which the student writes",
    ]
    assert release.shadows(release.kit_files(), functions) == []  # today's kit: the dialects build on tools.py


KIT_VERDICTS = """
import json, sys
from grader import check
from grader.kit.checks import CHECKLISTS
paths = json.loads(sys.argv[1])
verdicts = {path: [stage for stage in CHECKLISTS if not check(stage, path).passed] for path in paths}
loaded = {name: module.__file__ for name, module in sys.modules.items() if name.split(".")[0] == "grader"}
print(json.dumps({"verdicts": verdicts, "loaded": loaded}))
"""
SUBMISSIONS = ROOT / "tests" / "submissions"


def test_the_kits_self_check_and_the_grade_agree_on_every_module_of_the_corpus(kit, tmp_path):
    """On every correct and beginner module in tests/submissions/ (as handed in, and with every
    fix applied), the kit's check(N) fails every stage the grade takes points from, and passes every
    stage the grade gives full marks, but for stages after one the grade also takes points from: there
    the kit runs the student's own earlier stages (its notebooks say so), the grade trusted ones."""
    from grader.kit.grading import grade
    from grader.kit.local import LocalSession
    from tests.beginners import BUGS, write
    from tests.grader.test_validity import fixed

    (tmp_path / "fixed").mkdir()
    paths = sorted(str(path) for path in (SUBMISSIONS / "correct").glob("*.py"))
    paths += [str(path) for path in write(tmp_path / "beginner")]
    paths += [str(fixed(module, tmp_path / "fixed")) for module in BUGS]
    kit_fails = run_in_kit(kit, KIT_VERDICTS, paths)["verdicts"]
    disagree = {}
    for path in paths:
        scores = grade(path, LocalSession, seed=0).stage_scores()
        graded = {stage for stage, points in scores.items() if points != STAGE_POINTS[stage]}
        kit = set(kit_fails[path])
        spilled = {stage for stage in kit - graded if graded and stage > min(graded)}
        if graded - kit or kit - graded - spilled:
            disagree[Path(path).name] = f"the grade takes points in {sorted(graded)}, the kit fails {sorted(kit)}"
    assert not disagree, disagree
    assert all(not kit_fails[path] for path in paths if "/correct/" in path or "/fixed/" in path)
