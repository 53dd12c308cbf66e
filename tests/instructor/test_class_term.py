"""A term of grading, as an instructor runs it: a class of the project's own submissions with a late
policy, extensions and overrides; the gradebook, Canvas's CSV, the report (in the real browser) and the
similar pairs; then a hand edit, a changed override, a changed lab and --force."""

import csv
import hashlib
import shutil
from pathlib import Path

import pytest

import agtool
from grader.__main__ import main
from grader.instructor.records import lab_files, lab_hash
from tests.lab.browser_support import ARTIFACTS, chromium  # noqa: F401 (a fixture)

pytestmark = pytest.mark.grader

ROOT = Path(agtool.__file__).resolve().parents[1]
SUBMISSIONS = ROOT / "tests" / "submissions"
REFERENCE = ROOT / "agtool" / "tools.py"
TERM = """assignment = "agtool lab (4242)"
[late]
due = 2026-12-10T23:59:00+09:00
penalty = 10
per = "day"
cap = 30
"""
SUBMITTED = """student,submitted
alice,2026-12-10T20:00:00+09:00
alfie,2026-12-12T08:00:00+09:00
ana,2026-12-11T00:59:00+09:00
ben,2026-12-14T09:00:00+09:00
kit,2026-12-10T23:00:00+09:00
zoe,2026-12-10T22:00:00+09:00
"""
ROSTER = """student,Student,ID,SIS User ID,SIS Login ID,Section
alice,"Liddell, Alice",1001,s1001,alice,A
alfie,Alfie,1002,s1002,alfie,A
ana,Ana,1003,s1003,ana,B
ben,Ben,1004,s1004,ben,B
kit,Kit,1005,s1005,kit,B
nora,Nora,1006,s1006,nora,B
"""


def table(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as file:
        return list(csv.DictReader(file))


def book(out: Path) -> dict[str, dict[str, str]]:
    return {row["student"]: row for row in table(out / "gradebook.csv")}


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    """The class, graded once with its term files: (DIR, OUT, the run's stderr)."""
    folder, out = tmp_path_factory.mktemp("class"), tmp_path_factory.mktemp("out")
    shutil.copy(REFERENCE, folder / "alice.py")
    # alfie hands in alice's file, with her comments cut out: the similarity report must list them
    copied = "\n".join(line for line in REFERENCE.read_text().splitlines() if not line.lstrip().startswith("#"))
    (folder / "alfie.py").write_text(copied + "\n")
    shutil.copy(SUBMISSIONS / "beginner" / "ana.py", folder / "ana.py")
    shutil.copy(SUBMISSIONS / "beginner" / "ben.py", folder / "ben.py")
    shutil.copy(SUBMISSIONS / "correct" / "kit_minimal.py", folder / "kit.py")
    (folder / "zoe.py").write_text("def check_args(name, args:\n    return None\n")  # does not import
    (out / "term.toml").write_text(TERM)
    (out / "submitted.csv").write_text(SUBMITTED)
    (out / "extensions.csv").write_text("student,due\nben,2026-12-15T23:59:00+09:00\n")
    (out / "overrides.csv").write_text(
        "student,check,points,reason\nana,2.2,3,the rule's example was unclear (TA: Kim)\nalfie,total,0,copied\n"
    )
    (out / "roster.csv").write_text(ROSTER)
    return folder, out


@pytest.fixture(scope="module")
def graded(term):
    folder, out = term
    import contextlib
    import io

    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        assert main(["class", str(folder), "--out", str(out), "--jobs", "2", "--seed", "3", "--similar"]) == 0
    return folder, out, said.getvalue()


def test_every_final_is_raw_less_late_plus_override_and_says_why(graded):
    _, out, said = graded
    rows = book(out)
    assert sorted(rows) == ["alfie", "alice", "ana", "ben", "kit", "zoe"]
    for name, row in rows.items():
        assert float(row["final"]) == float(row["raw"]) - float(row["late"]) + float(row["override"]), name
        assert float(row["raw"]) == sum(float(row[f"stage{n}"]) for n in range(1, 7)), name
    assert [rows[name]["final"] for name in ("alice", "kit")] == ["100", "100"]  # on time, correct
    ana = rows["ana"]  # 1 h late: one day started, -10; 2.2 regraded to full marks (+3) first
    assert (ana["late"], ana["override"], ana["hours_late"]) == ("10", "3", "1")
    assert "2.2: 0 -> 3 (the rule's example was unclear (TA: Kim))" in ana["notes"]
    assert rows["ben"]["late"] == "0"  # late for the class, within his extension
    assert (rows["alfie"]["final"], rows["alfie"]["late"]) == ("0", "20")  # 32 h late, and the total set to 0
    assert "total set to 0 (copied)" in rows["alfie"]["notes"]
    assert rows["zoe"]["final"] == "0"
    assert "the term from term.toml, overrides.csv, extensions.csv, submitted.csv" in said


def test_a_file_that_does_not_import_is_listed_apart_with_its_error_and_line(graded):
    _, out, _ = graded
    why = {row["student"]: row["why"] for row in table(out / "not_graded.csv")}
    assert list(why) == ["zoe"] and "SyntaxError" in why["zoe"] and "line 1" in why["zoe"]


def test_canvas_csv_has_the_import_columns_a_points_row_and_each_rostered_students_final(graded):
    _, out, said = graded
    with open(out / "canvas.csv", newline="") as file:
        rows = list(csv.reader(file))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "agtool lab (4242)"]
    assert rows[1] == ["Points Possible", "", "", "", "", "100"]
    finals = {name: row["final"] for name, row in book(out).items()}
    by_id = {row[1]: row[5] for row in rows[2:]}
    assert by_id == {
        "1001": finals["alice"],
        "1002": finals["alfie"],
        "1003": finals["ana"],
        "1004": finals["ben"],
        "1005": finals["kit"],
        "1006": "",  # nora handed nothing in: her grade in Canvas stays as it is
    }
    assert {row[1]: row[0] for row in rows[2:]}["1001"] == "Liddell, Alice"  # a comma in a name stays one cell
    assert "graded students not in roster.csv: zoe" in said


def test_the_report_shows_the_class_in_the_real_browser(graded, chromium):  # noqa: F811
    _, out, _ = graded
    page = chromium.new_page(viewport={"width": 1400, "height": 900})
    page.goto((out / "report.html").as_uri())
    assert page.locator("svg.histogram").count() == 7
    total = page.locator('svg.histogram[data-title="total (of 100 points)"]')
    assert total.bounding_box()["width"] >= 800  # wide enough to read: no slivers
    assert "not graded" in (total.text_content() or "")  # zoe stands apart from honest zeros
    checks = page.locator("#checks tr.check")
    assert checks.count() == 43
    reasons = page.locator('#checks tr.check[data-label="6.6"]').inner_text()
    assert "1 ×" in reasons or "2 ×" in reasons  # the beginners' mistakes, counted
    assert "zoe" in page.locator("#apart").inner_text()
    assert "copied" in page.locator("#term").inner_text()
    page.locator("#similar a").click()  # the integrity report, in its own file
    # Five independent solutions are too few for the lab's common code to show (similarity.py): the list
    # is a ranking here, the copy first.
    first = page.locator("#pairs tr.pair").first
    assert (first.get_attribute("data-first"), first.get_attribute("data-second")) == ("alfie", "alice")
    assert "100% of theirs" in first.inner_text()
    page.go_back()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "class_report.png", full_page=True)
    page.close()


def test_term_changes_apply_without_regrading_and_a_hand_edit_is_kept_aside(graded, capsys):
    folder, out, _ = graded
    records = {path: path.stat().st_ino for path in out.glob("students/*/graded.json")}
    results = {path.parent.name: path.stat().st_ino for path in out.glob("students/*/results.json")}
    edited = (out / "gradebook.csv").read_text().replace("\nkit,100,", "\nkit,99,")
    (out / "gradebook.csv").write_text(edited)  # a TA's hand edit: the next run must not lose it
    with open(out / "overrides.csv", "a") as file:
        file.write("kit,6.6,0,a hard-coded recursion limit found by hand\n")
    assert main(["class", str(folder), "--out", str(out), "--jobs", "2", "--seed", "3"]) == 0
    said = capsys.readouterr().err
    assert {path: path.stat().st_ino for path in out.glob("students/*/graded.json")} == records  # not regraded
    rewritten = {
        path.parent.name
        for path in out.glob("students/*/results.json")
        if path.stat().st_ino != results[path.parent.name]
    }
    assert rewritten == {"kit"}  # the one student whose final changed is handed the new one
    assert "0 graded now, 6 kept" in said
    kept = list(out.glob("gradebook.edited-*.csv"))
    assert len(kept) == 1 and kept[0].read_text() == edited and "put changes in overrides.csv" in said
    assert book(out)["kit"]["final"] == "98"
    assert "kit's final: 100 -> 99" in said
    assert table(out / "changes.csv") == [{"student": "kit", "before": "100", "after": "98", "change": "-2"}]


def test_force_grades_everyone_again(graded, capsys):
    folder, out, _ = graded
    results = {path: path.stat().st_ino for path in out.glob("students/*/graded.json")}
    assert main(["class", str(folder), "--out", str(out), "--jobs", "2", "--seed", "3", "--force"]) == 0
    assert "6 graded now, 0 kept" in capsys.readouterr().err
    after = {path: path.stat().st_ino for path in out.glob("students/*/graded.json")}
    assert after.keys() == results.keys() and all(after[path] != results[path] for path in results)
    assert table(out / "changes.csv") == []  # the same lab grades the same


def test_the_stamp_covers_every_lab_file_a_grade_reads(tmp_path):
    """A change of agtool/contract.py (MAX_INT_BITS) or agtool/syllabus.py once kept every old grade."""
    names = {path.relative_to(ROOT).as_posix() for path in lab_files()}
    assert {"agtool/contract.py", "agtool/syllabus.py", "agtool/rules.py", "grader/kit/checks/stage5.py"} <= names
    for package in ("agtool", "grader"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    before = lab_hash(tmp_path)
    contract = tmp_path / "agtool" / "contract.py"
    contract.write_text(contract.read_text() + "\n# MAX_INT_BITS changed\n")
    assert lab_hash(tmp_path) != before
    assert hashlib.sha256(b"").hexdigest() not in (before, lab_hash(tmp_path))


def test_a_gradebook_of_an_earlier_release_is_kept_aside_not_overwritten(tmp_path):
    from grader.instructor.gradebook import keep_hand_edits

    (tmp_path / "gradebook.csv").write_text("student,total\nkit,99\n")  # no copy of what was written beside it
    kept = keep_hand_edits(tmp_path)
    assert kept and (tmp_path / kept.name).read_text() == "student,total\nkit,99\n"
    assert kept.changed == ()  # nothing to compare it with: it is kept whole
    assert not (tmp_path / "gradebook.csv").exists() and keep_hand_edits(tmp_path) is None


def test_a_hand_edit_kept_aside_names_each_cell_changed_and_each_row_added_or_removed(tmp_path):
    from grader.instructor.gradebook import GRADEBOOK, WRITTEN, keep_hand_edits

    written = "student,final,notes\n'=cmd,90,\nkit,100,\nzoe,0,not graded: tools.py is empty\n"
    edited = "student,final,notes\n'=cmd,90,\nkit,99,regraded\nnew,50,\n"
    (tmp_path / WRITTEN).write_text(written)
    (tmp_path / GRADEBOOK).write_text(edited)
    kept = keep_hand_edits(tmp_path)
    assert kept and kept.changed == (
        "kit's final: 100 -> 99",
        "kit's notes:  -> regraded",
        "new's row added",
        "zoe's row removed",
    )
    assert "(kit's final: 100 -> 99; kit's notes:  -> regraded; new's row added; zoe's row removed)" in kept.said()
