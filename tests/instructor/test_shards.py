"""One class over several machines: `class --shard I/N` on each, then `merge`, is one `class` run, byte for byte."""

import csv
import json
import os
import re
import shutil
import textwrap
from pathlib import Path

import pytest
import yaml

import agtool
from grader.__main__ import main
from grader.instructor import classroom
from grader.instructor.shards import Shard, parse_shard

pytestmark = pytest.mark.grader

ROOT = Path(agtool.__file__).resolve().parents[1]
SUBMISSIONS = ROOT / "tests" / "submissions"
TERM = 'assignment = "lab"\n[late]\ndue = 2026-01-01T00:00:00Z\npenalty = 5\nper = "hour"\ncap = 20\n'


def outputs(out: Path) -> dict[str, bytes]:
    """Every file of an OUT (a class's results.json has no execution_time: nothing a run's timing decides)."""
    files = {}
    for path in sorted(out.rglob("*")):
        if path.is_file() and not path.name.startswith(".") and "edited" not in path.name:
            data = path.read_bytes()
            if path.name == "results.json":
                assert "execution_time" not in json.loads(data), path
            files[path.relative_to(out).as_posix()] = data
    return files


@pytest.fixture(scope="module")
def klass(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("class")
    for name in ("amy", "bo", "cy", "di"):
        shutil.copy(ROOT / "agtool" / "tools.py", folder / f"{name}.py")
    for name in ("ana", "ben", "chloe"):
        shutil.copy(SUBMISSIONS / "beginner" / f"{name}.py", folder / f"{name}.py")
    (folder / "zed.py").write_text("def f(:\n")  # does not import
    (folder / "notes.zip").write_text("")  # not a submission: listed, by the shard that holds it
    for index, path in enumerate(sorted(folder.iterdir())):
        os.utime(path, (1767225600 + 3600 * index,) * 2)  # handed in an hour apart, from the due time on
    return folder


def test_four_shards_merged_are_one_run_byte_for_byte(klass, tmp_path):
    one, merged = tmp_path / "one", tmp_path / "merged"
    for out in (one, merged):
        out.mkdir()
        (out / "term.toml").write_text(TERM)
    assert main(["class", str(klass), "--out", str(one), "--jobs", "2", "--seed", "4"]) == 0
    shards = [tmp_path / f"shard{index}" for index in range(1, 5)]
    for index, out in enumerate(shards, start=1):
        command = ["class", str(klass), "--out", str(out), "--jobs", "2", "--seed", "4", "--shard", f"{index}/4"]
        assert main(command) == 0
    held = [path.name for out in shards for path in out.glob("students/*")]
    assert sorted(held) == sorted(path.name for path in (one / "students").iterdir())  # each student once
    assert sum(1 for out in shards if any(out.glob("students/*"))) >= 3  # spread over the shards
    assert main(["merge", *map(str, shards), "--out", str(merged)]) == 0
    expected, got = outputs(one), outputs(merged)
    assert got.keys() == expected.keys()
    assert [name for name in expected if got[name] != expected[name]] == []
    assert b"late" in expected["gradebook.csv"] and b"zed" in expected["not_graded.csv"]
    assert b"notes.zip" in expected["not_graded.csv"]
    assert {"students/amy/feedback.md", "students/amy/results.json", "students/amy/graded.json"} <= got.keys()

    # A shard delivered twice, or merged again: nothing changes, and changes.csv says so.
    assert main(["merge", *map(str, shards), str(shards[1]), "--out", str(merged)]) == 0
    again = outputs(merged)
    assert again.pop("changes.csv") == b"student,before,after,change\n" and again == got


def test_a_student_graded_differently_in_two_shards_is_refused_by_name(klass, tmp_path, capsys):
    first, second, merged = tmp_path / "a", tmp_path / "b", tmp_path / "m"
    assert main(["class", str(klass), "--out", str(first), "--jobs", "2", "--seed", "1", "--shard", "1/1"]) == 0
    shutil.copytree(first, second)
    stamp = second / "students" / "amy" / "graded.json"
    record = json.loads(stamp.read_text())
    record["stamp"]["seed"] = 2
    stamp.write_text(json.dumps(record))
    capsys.readouterr()
    assert main(["merge", str(first), str(second), "--out", str(merged)]) == 2
    err = capsys.readouterr().err
    assert "amy was graded differently" in err and err.count("\n") == 1
    del record["modified"]  # a graded.json of an earlier release: refused in one line, not a traceback
    record["stamp"]["seed"] = 1
    stamp.write_text(json.dumps(record))
    assert main(["merge", str(second), "--out", str(merged)]) == 2
    err = capsys.readouterr().err
    assert "amy's results" in err and "grade that shard again" in err and err.count("\n") == 1


def test_a_students_shard_is_fixed_by_their_name_and_the_shards_cover_the_class():
    names = [f"student{number}" for number in range(400)]
    shards = [Shard(index, 4) for index in range(1, 5)]
    assert all(sum(shard.holds(name) for shard in shards) == 1 for name in names)
    assert all(60 <= sum(shard.holds(name) for name in names) <= 140 for shard in shards)
    assert parse_shard("2/4") == Shard(2, 4)
    for bad in ("0/4", "5/4", "2", "a/b", "2/0"):
        with pytest.raises(ValueError, match="must be I/N"):
            parse_shard(bad)


def test_the_docs_kubernetes_job_runs_one_shard_per_index_of_as_many_shards_as_completions():
    """docs/beyond-one-machine.md's Indexed Job. (PyYAML comes with langchain-core, which requirements.txt lists.)"""
    manifest = re.search(r"```yaml\n(.*?)```", (ROOT / "docs" / "beyond-one-machine.md").read_text(), re.S)
    assert manifest, "docs/beyond-one-machine.md shows the Indexed Job"
    job = yaml.safe_load(textwrap.dedent(manifest[1]))
    spec = job["spec"]
    assert job["kind"] == "Job" and spec["completionMode"] == "Indexed"
    (command,) = spec["template"]["spec"]["containers"][0]["args"]
    shard = re.search(r"--shard \$\(\(JOB_COMPLETION_INDEX \+ 1\)\)/(\d+)", command)
    assert shard, command
    shards = int(shard[1])
    assert shards == spec["completions"] and "--out /class/out-$JOB_COMPLETION_INDEX" in command


def test_merge_refuses_shards_that_are_not_the_whole_class_and_partial_says_so_in_the_books(klass, tmp_path, capsys):
    """Two shards of three: refused, naming the third; with --partial, merged, and the books name it."""
    shards = {index: tmp_path / f"shard{index}" for index in (1, 3)}
    for index, out in shards.items():
        assert (
            main(["class", str(klass), "--out", str(out), "--jobs", "2", "--seed", "4", "--shard", f"{index}/3"]) == 0
        )
    held = sorted(path.name for out in shards.values() for path in out.glob("students/*"))
    missing = sorted(path.stem for path in klass.glob("*.py") if Shard(2, 3).holds(path.stem))
    assert missing, "the third shard holds someone: its absence must show"
    merged = tmp_path / "merged"
    capsys.readouterr()
    assert main(["merge", *map(str, shards.values()), "--out", str(merged)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("grader merge: shard 2/3 is missing") and err.count("\n") == 1
    assert not (merged / "gradebook.csv").exists()

    assert main(["merge", *map(str, shards.values()), "--out", str(merged), "--partial"]) == 0
    err = capsys.readouterr().err
    assert "partial: shard 2/3 not merged" in err and "partial: shard 2/3 missing" in err
    with open(merged / "gradebook.csv", newline="") as file:
        assert sorted(row["student"] for row in csv.DictReader(file)) == held
    with open(merged / "not_graded.csv", newline="") as file:
        why = {row["student"]: row["why"] for row in csv.DictReader(file)}
    assert why["shard 2/3"] == "not merged (merge --partial): its students have no row in these books"
    assert "Partial: shard 2/3 not merged" in (merged / "report.html").read_text()


def test_merge_refuses_shards_of_two_splits_and_an_out_that_records_no_shard(klass, tmp_path, capsys):
    halves, thirds = tmp_path / "half", tmp_path / "third"
    assert main(["class", str(klass), "--out", str(halves), "--jobs", "2", "--seed", "4", "--shard", "1/2"]) == 0
    assert main(["class", str(klass), "--out", str(thirds), "--jobs", "2", "--seed", "4", "--shard", "2/3"]) == 0
    capsys.readouterr()
    assert main(["merge", str(halves), str(thirds), "--out", str(tmp_path / "m")]) == 2
    assert "different classes' splits" in capsys.readouterr().err
    (halves / ".shard.json").unlink()
    assert main(["merge", str(halves), "--out", str(tmp_path / "m")]) == 2
    assert "records no shard" in capsys.readouterr().err


def test_merge_reads_who_was_not_graded_from_the_shards_record_and_refuses_a_shard_without_one(klass, tmp_path, capsys):
    """An entry with no row (notes.zip: no submission) is in the shard's record of them, .no_row.json, which
    merge reads; not_graded.csv is a view, never read back. A shard without that record is refused in one line."""
    shard, merged = tmp_path / "shard", tmp_path / "merged"
    assert main(["class", str(klass), "--out", str(shard), "--jobs", "2", "--seed", "4", "--shard", "1/1"]) == 0
    expected = (shard / "not_graded.csv").read_bytes()
    assert b"notes.zip" in expected and b"zed" in expected
    (shard / "not_graded.csv").write_text("student,why\n")
    assert main(["merge", str(shard), "--out", str(merged)]) == 0
    assert (merged / "not_graded.csv").read_bytes() == expected
    (shard / ".no_row.json").unlink()  # a shard an earlier release graded
    capsys.readouterr()
    assert main(["merge", str(shard), "--out", str(merged)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"grader merge: {shard / '.no_row.json'}: missing") and err.count("\n") == 1


def test_merge_refuses_a_shard_whose_run_stopped_before_grading_everyone(klass, tmp_path, monkeypatch, capsys):
    """A shard stopped half-way (Ctrl-C, SIGTERM) has written its books: merging it would drop the students it
    had left to grade without a word. Its record names them, and merge refuses it, in one line."""
    shard = tmp_path / "shard"

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt  # Ctrl-C before anyone was graded

    monkeypatch.setattr(classroom, "_grade_pending", stopped)
    with pytest.raises(KeyboardInterrupt):
        classroom.grade_class(klass, shard, shard=Shard(1, 1), progress=False)
    capsys.readouterr()
    assert main(["merge", str(shard), "--out", str(tmp_path / "merged")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"grader merge: {shard}: its run stopped before grading 8 students (amy, ana, ben, …)")
    assert err.count("\n") == 1
