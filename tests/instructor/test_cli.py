"""`python -m grader`: every bad input to every command is one line that says what to do, and exit 2.

No grading happens here: each refusal comes before any work.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import agtool
from grader.__main__ import main

pytestmark = pytest.mark.grader

ROOT = Path(agtool.__file__).resolve().parents[1]
REFERENCE = ROOT / "agtool" / "tools.py"


def cases(tmp: Path) -> dict[str, tuple[list[str], str]]:
    """name -> (argv, words the one line must hold)."""
    os.mkfifo(tmp / "fifo.py")
    (tmp / "folder.py").mkdir()
    (tmp / "a-file").write_text("")
    (tmp / "empty").mkdir()
    (tmp / "big.py").write_text("#" * (2 * 1024 * 1024))
    (tmp / "out.zip").mkdir()
    ok = str(REFERENCE)
    return {
        "grade: not a .py file": (["grade", str(ROOT / "README.md")], "not a .py file"),
        "grade: a folder": (["grade", str(tmp / "folder.py")], "is a folder"),
        "grade: missing": (["grade", str(tmp / "nowhere.py")], "cannot be read"),
        "grade: a FIFO": (["grade", str(tmp / "fifo.py")], "not a regular file"),
        "grade: over-size": (["grade", str(tmp / "big.py")], "over 1 MB"),
        "grade: --results is a folder": (["grade", ok, "--results", str(tmp / "empty")], "--results"),
        "grade: --feedback under a file": (["grade", ok, "--feedback", str(tmp / "a-file" / "f.md")], "--feedback"),
        "grade: --only no such check": (["grade", ok, "--only", "9.9"], "--only"),
        "grade: --seed not a number": (["grade", ok, "--seed", "x"], "--seed"),
        "class: no submissions": (["class", str(tmp / "empty"), "--out", str(tmp / "out")], "holds no submissions"),
        "class: OUT is a file": (
            ["class", str(ROOT / "tests" / "submissions" / "correct"), "--out", str(tmp / "a-file")],
            "--out",
        ),
        "gradescope: OUT is a folder": (["gradescope", str(tmp / "out.zip")], "is a folder"),
        "gradescope: not a zip": (["gradescope", str(tmp / "out.tar")], "must end in .zip"),
        "gradescope: --seed negative": (["gradescope", str(tmp / "b.zip"), "--seed", "-1"], "--seed"),
        "release: OUTDIR is a file": (["release", str(tmp / "a-file")], "OUTDIR"),
        "check: no such stage": (["check", "9"], "stage must be one of"),
        "check: not a .py file": (["check", "2", str(ROOT / "README.md")], "not a .py file"),
        "no such command": (["regrade"], "invalid choice"),
    }


def _names() -> list[str]:
    """The cases' names, from a throwaway folder (the cases themselves are made in each test's own)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        return list(cases(Path(folder)))


@pytest.mark.parametrize("case", _names())
def test_bad_input_gets_one_line_that_says_what_to_do_and_exit_code_2(case, tmp_path, capsys):
    argv, words = cases(tmp_path)[case]
    code: int | str | None
    try:
        code = main(argv)
    except SystemExit as exit:  # argparse's refusals
        code = exit.code
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, (out, err)
    assert len(lines) == 1 and words in lines[0], err
    assert "Traceback" not in err and not list(tmp_path.glob("**/results.json"))


# Root reads a file of mode 000 anyway: the grader drops to nobody once its modules are loaded
# (the interpreter itself may live where nobody cannot read).
AS_NOBODY = """
import os, sys
from grader.__main__ import main
from grader.instructor import bundle, classroom, cli, lock, outputs, release
from grader.kit import intake
if os.geteuid() == 0:
    os.setgid(65534)
    os.setuid(65534)
sys.exit(main(sys.argv[1:]))
"""


def test_an_unreadable_file_gets_one_line_and_exit_code_2(tmp_path):
    secret = tmp_path / "tools.py"
    secret.write_text(REFERENCE.read_text())
    secret.chmod(0)
    done = subprocess.run(
        [sys.executable, "-c", AS_NOBODY, "grade", str(secret)], cwd="/", capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "cannot be read (Permission denied)" in done.stderr


def test_the_kits_commands_run_where_there_is_no_instructor_package(tmp_path):
    """A grader/ without instructor/ (as in the kit) offers check, and refuses grade in one line."""
    (tmp_path / "grader").mkdir()
    for name in ("__init__.py", "__main__.py"):
        (tmp_path / "grader" / name).write_bytes((ROOT / "grader" / name).read_bytes())
    (tmp_path / "grader" / "kit").symlink_to(ROOT / "grader" / "kit", target_is_directory=True)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
    helped = subprocess.run(
        [sys.executable, "-m", "grader", "--help"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert helped.returncode == 0 and "check" in helped.stdout
    assert not any(word in helped.stdout for word in ("grade ", "class", "gradescope", "release", "lock"))
    refused = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(REFERENCE)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "invalid choice" in refused.stderr
