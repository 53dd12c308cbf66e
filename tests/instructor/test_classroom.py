"""`python -m grader class`: a whole class graded in parallel, resumably, with a gradebook."""

import csv
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import agtool
from grader.__main__ import main
from grader.instructor.gradebook import read_cell, text_cell
from grader.instructor.sandbox.session import SandboxSession
from grader.kit.grading import grade
from grader.kit.intake import find_tools
from tests.instructor.telling_class import Told
from tests.processes import wait_ended

pytestmark = pytest.mark.grader

REFERENCE = Path(agtool.__file__).with_name("tools.py").read_text()
ROOT = Path(agtool.__file__).resolve().parents[1]
HOSTILE = Path(__file__).resolve().parents[1] / "submissions" / "hostile"
NO_RESULT_CHECK = REFERENCE + "\n\ndef check_result(name, value):\n    return None\n"  # loses stage 3
STAGES = ["stage1", "stage2", "stage3", "stage4", "stage5", "stage6"]
HEADER = ["student", "final", "raw", "late", "override", "hours_late", *STAGES, "notes"]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def klass(tmp_path):
    """A class: two correct students (a file, a whole lab folder), one with a stage-3 mistake,
    one whose module exits at import, a folder with no tools.py in it and a zip."""
    folder = tmp_path / "submissions"
    write(folder / "alice.py", REFERENCE)
    write(folder / "bob" / "agtool" / "tools.py", REFERENCE)
    write(folder / "bob" / "notes.txt", "not a submission")
    write(folder / "carol.py", NO_RESULT_CHECK)
    write(folder / "dan" / "tools.py", REFERENCE + (HOSTILE / "os_exit_at_import.py").read_text())
    (folder / "erin").mkdir()
    write(folder / "fay.zip", "")
    return folder


def gradebook(out: Path) -> list[dict]:
    with open(out / "gradebook.csv", newline="") as file:
        rows = list(csv.reader(file))
    assert rows[0] == HEADER
    return [dict(zip(HEADER, row, strict=True)) for row in rows[1:]]


def inodes(out: Path) -> dict[str, int]:
    """student -> inode of their results.json: a rewrite (temp file, then replace) changes it."""
    return {path.parent.name: path.stat().st_ino for path in out.glob("students/*/results.json")}


def test_a_class_is_graded_into_a_gradebook_results_and_feedback(klass, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["class", str(klass), "--out", str(out), "--jobs", "2", "--seed", "7"]) == 0
    book = {row["student"]: row for row in gradebook(out)}
    assert sorted(book) == ["alice", "bob", "carol", "dan", "erin"]
    assert (book["erin"]["final"], book["erin"]["notes"]) == ("0", "not graded: no tools.py in it")
    full = ["100", "100", "0", "0", "0", "10", "20", "20", "15", "15", "20", ""]
    assert [book["alice"][column] for column in HEADER[1:]] == [book["bob"][column] for column in HEADER[1:]] == full
    assert book["dan"]["final"] == "0" and book["dan"]["notes"].startswith("not graded: no check could run (")
    assert [stage for stage in STAGES if book["carol"][stage] != book["alice"][stage]] == ["stage3"]
    for student, row in book.items():
        results = json.loads((out / "students" / student / "results.json").read_text())
        assert float(row["final"]) == results["score"] == sum(float(row[stage]) for stage in STAGES)
        assert {"score", "tests"} <= results.keys()
        assert "execution_time" not in results  # the same grade, the same bytes
        assert (out / "students" / student / "feedback.md").read_text().startswith("# agtool lab:")
    err = capsys.readouterr().err
    assert "not graded: erin: no tools.py in it" in err
    assert "not graded: dan: no check could run (the submission's process ended" in err
    assert "not graded: fay.zip: neither a .py file nor a folder" in err
    assert (out / "report.html").read_text().count('<svg class="histogram"') == 7
    alone = grade(str(klass / "carol.py"), SandboxSession, seed=7)  # graded alone: the same
    results = json.loads((out / "students" / "carol" / "results.json").read_text())
    assert [test["score"] for test in results["tests"]] == [check.score for check in alone.results]


def failed_sections(feedback: str) -> dict[str, str]:
    """check label -> its section of a feedback.md, for each failed check."""
    return {
        label: section.strip()
        for label, section in re.findall(r"^### ✗ (\d\.\d+) .*?\n\n(.*?)(?=\n\n##|\Z)", feedback, re.M | re.S)
    }


def test_the_class_feedback_names_the_file_as_handed_in_and_replays_in_the_students_kit(tmp_path):
    """No path of the instructor's reaches a student; the replay line is the kit's own command, and the
    instructor's replay of the same check (grade --seed --only) finds the same failure."""
    folder, out = tmp_path / "submissions", tmp_path / "out"
    write(folder / "carol" / "lab" / "tools.py", NO_RESULT_CHECK)
    assert main(["class", str(folder), "--out", str(out), "--jobs", "1", "--seed", "7"]) == 0
    feedback = (out / "students" / "carol" / "feedback.md").read_text()
    results = (out / "students" / "carol" / "results.json").read_text()
    assert str(tmp_path) not in feedback and str(tmp_path) not in results
    assert "carol/lab/tools.py" in feedback
    label, section = next(iter(failed_sections(feedback).items()))
    assert "replay in your kit:" in section and f"`.venv/bin/python -m grader check {label[0]}`" in section
    replay = f"{sys.executable} -m grader grade {folder / 'carol' / 'lab' / 'tools.py'} --seed 7 --only {label}"
    done = subprocess.run(shlex.split(replay), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    replayed = failed_sections(done.stdout)
    assert list(replayed) == [label]
    shown = re.compile(r"```python\n.*?```", re.S)  # the same smallest failing input, as found alone
    assert shown.findall(replayed[label]) == shown.findall(section)


def test_a_second_run_regrades_only_what_changed(tmp_path, capsys):
    klass, out = tmp_path / "submissions", tmp_path / "out"
    write(klass / "alice.py", REFERENCE)
    write(klass / "carol.py", NO_RESULT_CHECK)
    assert main(["class", str(klass), "--out", str(out), "--jobs", "2"]) == 0
    first = inodes(out)
    assert main(["class", str(klass), "--out", str(out), "--jobs", "2"]) == 0
    assert inodes(out) == first
    assert "0 graded now, 2 kept" in capsys.readouterr().err
    write(klass / "carol.py", REFERENCE)  # carol fixes her mistake
    assert main(["class", str(klass), "--out", str(out), "--jobs", "2"]) == 0
    changed = {student for student, inode in inodes(out).items() if inode != first[student]}
    assert changed == {"carol"}
    assert {row["student"]: row["final"] for row in gradebook(out)}["carol"] == "100"
    assert main(["class", str(klass), "--out", str(out), "--jobs", "2", "--seed", "8"]) == 0
    assert set(inodes(out).values()).isdisjoint(first.values())  # another seed: everyone again


FORMULAS = ("=HYPERLINK(1)", "@SUM(1)", "+cmd", "-x", "'=quoted")  # a spreadsheet runs a cell that starts so


def test_no_cell_a_student_names_opens_as_a_formula_and_the_books_still_read_back(tmp_path):
    """A student's name is whatever their file is called: in the instructor's spreadsheet it must stay text
    (a leading ' keeps it so), and the next run must still know them by that name (changes.csv)."""
    klass, out = tmp_path / "submissions", tmp_path / "out"
    for name in FORMULAS:
        write(klass / f"{name}.py", NO_RESULT_CHECK)
    write(klass / "=broken.py", "def (")
    assert main(["class", str(klass), "--out", str(out), "--jobs", "2"]) == 0
    write(klass / "@SUM(1).py", REFERENCE)  # one fixes her mistake: the run knows her from the last one
    assert main(["class", str(klass), "--out", str(out), "--jobs", "2"]) == 0
    books = {}
    for book in ("gradebook.csv", "not_graded.csv", "changes.csv"):
        with open(out / book, newline="") as file:
            books[book] = list(csv.reader(file))
        cells = [cell for row in books[book] for cell in row]
        assert not [cell for cell in cells if cell[:1] in ("=", "@", "+", "-", "\t", "\r") and not _number(cell)], book
    named = sorted(row[0] for row in books["gradebook.csv"][1:])
    assert named == sorted("'" + name for name in (*FORMULAS, "=broken"))
    assert [row[0] for row in books["not_graded.csv"][1:]] == ["'=broken"]
    assert [(row[0], row[3]) for row in books["changes.csv"][1:]] == [("'@SUM(1)", "+16")]


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


# = + - @ and their full-width and small look-alikes, which a spreadsheet may run as them too
LOOK_ALIKES = "\uff1d\uff0b\uff0d\uff20\ufe66\ufe62\ufe63\ufe6b\u2212"


@given(st.text(st.sampled_from("=+-@'\t\r1.aé \u3000" + LOOK_ALIKES)))
def test_every_cell_reads_back_as_it_was_and_none_opens_as_a_formula(cell):
    written = text_cell(cell)
    assert read_cell(written) == cell
    first = unicodedata.normalize("NFKC", written.lstrip(" \u3000")[:1]).replace("\u2212", "-")
    assert _number(written) or first not in ("=", "+", "-", "@", "\t", "\r")


def test_a_run_killed_half_way_loses_nothing_and_resumes(tmp_path):
    folder, out = tmp_path / "submissions", tmp_path / "out"
    for student in ("amy", "ben", "cat"):
        write(folder / f"{student}.py", REFERENCE)
    write(folder / "zed.py", REFERENCE + (HOSTILE / "infinite_loop.py").read_text())  # zed holds the run up
    told = Told([str(folder), "--out", str(out), "--jobs", "1"], start_new_session=True, stderr=subprocess.DEVNULL)
    try:
        # amy, ben, cat are graded before zed; zed's stage-3 session is open (its loop holds it), so the zygote
        # knows it. (Between the workdir's creation and the fork, a few ms, a grader killed outright still
        # leaves the workdir.)
        _, zygote, workdir = told.until("open zed 3 ").split(" ", 2)
        assert os.path.exists(workdir) and (out / "students" / "cat" / "graded.json").exists()
    finally:
        os.killpg(told.run.pid, signal.SIGKILL)
        told.run.wait()
        told.close()
    # The zygote outlives the grader by a moment (its parent-death signal): it ends zed's session, then itself.
    assert not wait_ended([int(zygote)], 60), "the zygote outlived its grader"
    assert not os.path.exists(workdir), "a killed run left its sandbox's workdir"
    assert not os.path.exists(os.path.dirname(workdir)), "nor their folder"
    # The zygote outlives the grader by a moment (its parent-death signal): it ends zed's session, then itself.
    kept = inodes(out)
    assert sorted(kept) == ["amy", "ben", "cat"]
    if (out / "gradebook.csv").exists():  # it may not have caught up yet
        assert {row["student"] for row in gradebook(out)} <= {"amy", "ben", "cat"}
    (folder / "zed.py").unlink()
    assert main(["class", str(folder), "--out", str(out), "--jobs", "2"]) == 0
    assert inodes(out) == kept
    assert [(row["student"], row["final"]) for row in gradebook(out)] == [
        ("amy", "100"),
        ("ben", "100"),
        ("cat", "100"),
    ]


# ── bad input: one clear line, exit code 2, no traceback ─────────────────────


def bad_input(tmp_path: Path) -> dict[str, tuple[list[str], str]]:
    submissions = tmp_path / "submissions"
    write(submissions / "alice.py", REFERENCE)
    write(tmp_path / "both" / "alice.py", REFERENCE)
    write(tmp_path / "both" / "alice" / "tools.py", REFERENCE)
    (tmp_path / "empty").mkdir()
    write(tmp_path / "a-file", "")
    return {
        "missing DIR": ([str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")], "DIR"),
        "empty DIR": ([str(tmp_path / "empty"), "--out", str(tmp_path / "out")], "holds no submissions"),
        "two of one student": ([str(tmp_path / "both"), "--out", str(tmp_path / "out")], "both alice.py and alice/"),
        "OUT is a file": ([str(submissions), "--out", str(tmp_path / "a-file")], "--out"),
        "OUT under a file": ([str(submissions), "--out", str(tmp_path / "a-file" / "out")], "--out"),
        "no jobs": ([str(submissions), "--out", str(tmp_path / "out"), "--jobs", "0"], "--jobs"),
    }


@pytest.mark.parametrize(
    "case", ["missing DIR", "empty DIR", "two of one student", "OUT is a file", "OUT under a file", "no jobs"]
)
def test_bad_input_gets_one_clear_line_and_exit_code_2(case, tmp_path, capsys):
    argv, words = bad_input(tmp_path)[case]
    code: int | str | None
    try:
        code = main(["class", *argv])
    except SystemExit as exit:  # argparse's own refusals
        code = exit.code
    err = capsys.readouterr().err
    assert code == 2
    assert words in err and "Traceback" not in err
    assert not (tmp_path / "out" / "gradebook.csv").exists()


# ── where a student's tools.py is ────────────────────────────────────────────


def test_find_tools_prefers_the_top_then_the_shallowest_and_skips_hidden_folders(tmp_path):
    write(tmp_path / "a" / "deep" / "er" / "tools.py", "")
    write(tmp_path / "a" / "lab" / "tools.py", "")
    write(tmp_path / "a" / ".git" / "tools.py", "")
    write(tmp_path / "a" / "__MACOSX" / "tools.py", "")
    assert find_tools(tmp_path / "a") == tmp_path / "a" / "lab" / "tools.py"
    write(tmp_path / "a" / "tools.py", "")
    assert find_tools(tmp_path / "a") == tmp_path / "a" / "tools.py"
    write(tmp_path / "b" / ".hidden" / "tools.py", "")
    assert find_tools(tmp_path / "b") is None


# ── Ctrl-C: stop soon, leave nothing running, keep what was graded ───────────


def start_time(pid: int) -> str | None:
    """A process's start time (field 22 of its stat): it tells a reused pid apart."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (FileNotFoundError, ProcessLookupError):
        return None


def process_tree(pid: int) -> set[tuple[int, str]]:
    """(pid, start time) of pid and every process below it."""
    found, todo = set(), [pid]
    while todo:
        pid = todo.pop()
        start = start_time(pid)
        if start is None:
            continue
        found.add((pid, start))
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                todo += map(int, Path(f"/proc/{pid}/task/{task}/children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return found


def alive(processes: set[tuple[int, str]]) -> set[tuple[int, str]]:
    """The processes still there and not zombies (a zombie runs nothing: it waits for its parent to reap it)."""
    return {(pid, start) for pid, start in processes if start_time(pid) == start and state(pid) not in ("Z", "X")}


def state(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return None


def outlived(processes: set[tuple[int, str]], seconds: float) -> dict[int, str]:
    """pid -> command line of those still alive once each has ended, or `seconds` have passed."""
    wait_ended({pid for pid, _ in alive(processes)}, seconds)
    return {pid: command_line(pid) for pid, _ in alive(processes)}


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return "?"


def mentioning(text: str) -> list[int]:
    """Processes whose command line holds text."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and text.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            pass
    return found


@pytest.mark.parametrize("how", ["Ctrl-C in a terminal", "SIGTERM"])
def test_an_interrupted_class_stops_at_once_leaves_nothing_running_and_resumes(how, tmp_path):
    """amy is graded, bob loops forever in stage 3, cat waits her turn: the stop comes while bob runs."""
    folder, out = tmp_path / "submissions", tmp_path / "out"
    write(folder / "amy.py", REFERENCE)
    write(folder / "bob.py", REFERENCE + (HOSTILE / "infinite_loop.py").read_text())
    write(folder / "cat.py", REFERENCE)
    told = Told(
        [str(folder), "--out", str(out), "--jobs", "1"], start_new_session=True, stderr=subprocess.PIPE, text=True
    )
    run = told.run
    try:
        told.until("graded amy")
        child = int(told.until("open bob 3 ").split()[0])  # bob's stage 3: his loop holds it open
        tree = process_tree(run.pid)  # the run, its worker, the worker's zygote, bob's child
        assert child in {pid for pid, _ in tree}, tree
        if how == "SIGTERM":
            run.send_signal(signal.SIGTERM)
        else:  # a terminal sends it to the whole foreground group
            os.killpg(run.pid, signal.SIGINT)
        try:
            _, err = run.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            pytest.fail(f"class still running 20 s after {how}")
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
        told.close()
    assert run.returncode == 130, err[-3000:]
    assert "Traceback" not in err and "run the same command to resume" in err
    assert [row["student"] for row in gradebook(out)] == ["amy"]
    left = outlived(tree, seconds=5)  # a zygote kills and reaps its child on its way out: give it a moment
    assert left == {}, f"processes of the run outlived it: {left}"
    assert mentioning(str(folder)) == []
    kept = inodes(out)
    write(folder / "bob.py", REFERENCE)  # bob fixes his loop; the rerun grades him and cat
    assert main(["class", str(folder), "--out", str(out), "--jobs", "2"]) == 0
    assert inodes(out)["amy"] == kept["amy"]
    assert [(row["student"], row["final"]) for row in gradebook(out)] == [
        ("amy", "100"),
        ("bob", "100"),
        ("cat", "100"),
    ]
