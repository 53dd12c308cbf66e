"""The instructor's books hold up: a class of every case an instructor meets on the night grades are due,
graded with `class`, checked against numbers computed here by hand.

The class: correct modules (one named `zoë` in decomposed form, as macOS unzips), beginners, five copies
of one beginner's file (renamed, reordered, stripped: more than a quarter of the class), a copy of a
classmate's file handed in as encoded text run with `exec`, an empty file, a file that never names TOOLS,
a syntax error, a folder without tools.py and a name a spreadsheet would run (a full-width `=1+1`).
"""

import ast
import contextlib
import csv
import html
import io
import json
import os
import re
import shutil
import unicodedata
from pathlib import Path

import pytest

import agtool
from grader.__main__ import main
from grader.instructor.graded import Graded
from grader.instructor.records import read_record
from grader.instructor.sandbox.confine import Layers
from tests.instructor.test_class_term import TERM as CLASS_TERM
from tests.instructor.test_classroom import _number
from tests.instructor.test_similarity import disguise
from tests.lab.browser_support import ARTIFACTS, chromium  # noqa: F401 (a fixture)

pytestmark = pytest.mark.grader

ROOT = Path(agtool.__file__).resolve().parents[1]
SUBMISSIONS = ROOT / "tests" / "submissions"
REFERENCE = (ROOT / "agtool" / "tools.py").read_text()
BEN = (SUBMISSIONS / "beginner" / "ben.py").read_text()
ENCODED = SUBMISSIONS / "hostile" / "integrity" / "encoded_exec_copy.py"
ZOE = "zoe\u0308"  # zoë, decomposed: the file's name as macOS writes it
FORMULA = "\uff1d1+1"  # =1+1 with a full-width equals sign, which a spreadsheet runs as =
COPIES = ("bea", "ben", "bert", "bill", "bo")
TERM = CLASS_TERM + "grace_minutes = 5\n"  # test_class_term's: 10 a day started, at most 30
# When each handed in, and what that costs by hand: (hours late, periods started, points off before the cap)
HANDED_IN = {
    "alice": "2026-12-10T20:00:00+09:00",  # on time
    "zoë": "2026-12-11T00:03:00+09:00",  # 4 minutes late: within the grace of 5
    "ana": "2026-12-11T00:59:00+09:00",  # 1 h: one day started, -10
    "chloe": "2026-12-13T10:00:00+09:00",  # 58 h 01 min: three days, -30 (the cap)
    "kit": "2026-12-12T23:59:30+09:00",  # 48 h 00 min 30 s: three days started, -30
    "enzo": "2026-12-10T23:00:00+09:00",
    **dict.fromkeys(COPIES, "2026-12-10T12:00:00+09:00"),
    "empty": "2026-12-12T09:00:00+09:00",  # late, but a 0 has no points to take
    "notools": "2026-12-10T09:00:00+09:00",
    "zed": "2026-12-10T09:00:00+09:00",
    FORMULA: "2026-12-10T09:00:00+09:00",
    "nora": "2026-12-10T09:00:00+09:00",  # in the LMS's export, not in the class: listed, not refused
}
LATE = {"alice": (0, 0), "zoë": (0, 0), "ana": (1, 10), "chloe": (58.02, 30), "kit": (48.01, 30)}
OVERRIDES = """student,check,points,reason
ana,2.2,3,the rule's example was unclear (TA: Kim)
empty,total,5,handed in by mail; graded from the paper copy
finn,total,40,graded from the file mailed to the TA
"""
SECTIONS = {"A": ("alice", "zoë", "kit", "ben", "bo", "bill", "empty", "finn"), "B": ()}
UNGRADED = {
    "empty": "tools.py is empty",
    "notools": "tools.py never names TOOLS",
    "finn": "no tools.py in it",
}


def reordered(source: str) -> str:
    """source with its longest run of top-level functions in reverse order (it still imports)."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    runs, run = [], []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.decorator_list:
            run.append(node)
        else:
            runs.append(run)
            run = []
    runs.append(run)
    longest = max(runs, key=len)
    begin, end = longest[0].lineno - 1, longest[-1].end_lineno or longest[-1].lineno
    blocks = ["".join(lines[node.lineno - 1 : node.end_lineno]) + "\n\n" for node in longest]
    return "".join(lines[:begin]) + "".join(reversed(blocks)) + "".join(lines[end:])


def without_comments(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#")) + "\n"


def roster() -> str:
    rows = ["student,Student,ID,SIS User ID,SIS Login ID,Section"]
    for number, name in enumerate(sorted(HANDED_IN.keys() - {"nora"} | {"finn"}), start=1001):
        section = "A" if name in SECTIONS["A"] else "B"
        rows.append(f"{name},{name.title()},{number},s{number},{name},{section}")
    return "\n".join(rows) + "\n"


def build_class(folder: Path) -> None:
    shutil.copy(ROOT / "agtool" / "tools.py", folder / "alice.py")
    shutil.copy(SUBMISSIONS / "correct" / "kit_straightforward.py", folder / f"{ZOE}.py")
    shutil.copy(SUBMISSIONS / "beginner" / "ana.py", folder / "ana.py")
    shutil.copy(SUBMISSIONS / "beginner" / "chloe.py", folder / "chloe.py")
    shutil.copy(SUBMISSIONS / "correct" / "kit_minimal.py", folder / "kit.py")
    shutil.copy(ENCODED, folder / "enzo.py")
    shutil.copy(SUBMISSIONS / "beginner" / "sam.py", folder / f"{FORMULA}.py")
    variants = (BEN, disguise(BEN), reordered(BEN), disguise(reordered(BEN)), without_comments(BEN))
    for name, text in zip(COPIES, variants, strict=True):
        (folder / f"{name}.py").write_text(text)
    (folder / "empty.py").write_text("")
    (folder / "notools.py").write_text("def check_args(name, args):\n    return None\n")
    (folder / "zed.py").write_text("def check_args(name, args:\n    return None\n")
    (folder / "finn").mkdir()
    (folder / "finn" / "notes.txt").write_text("my tools.py is on my other laptop")


def write_term(out: Path, handed_in: dict[str, str] = HANDED_IN) -> None:
    (out / "term.toml").write_text(TERM)
    (out / "submitted.csv").write_text(
        "student,submitted\n" + "".join(f"{name},{when}\n" for name, when in handed_in.items())
    )
    (out / "overrides.csv").write_text(OVERRIDES)
    (out / "roster.csv").write_text(roster())


def run_class(*argv: str) -> tuple[int, str]:
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        code = main(["class", *argv])
    return code, said.getvalue()


def table(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def book(out: Path) -> dict[str, dict[str, str]]:
    return {row["student"]: row for row in table(out / "gradebook.csv")}


def number(text: str) -> float:
    return float(text)


def found(pattern: str, text: str, flags: int = 0) -> str:
    """The first group of pattern's first match in text (failing the test when there is none)."""
    match = re.search(pattern, text, flags)
    assert match, pattern
    return match[1]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class graded once, with its term, its roster and --similar: (DIR, OUT, what the run said)."""
    folder, out = tmp_path_factory.mktemp("class"), tmp_path_factory.mktemp("out")
    build_class(folder)
    write_term(out)
    code, said = run_class(str(folder), "--out", str(out), "--jobs", "2", "--seed", "3", "--similar")
    assert code == 0, said
    return folder, out, said


# ── item 1: no silent fallback ───────────────────────────────────────────────


def test_a_name_in_another_unicode_form_is_the_same_student(graded):
    _, out, said = graded
    rows = book(out)
    assert "zoë" in rows and ZOE not in rows  # one student, named in NFC
    assert (out / "students" / "zoë" / "results.json").is_file()
    assert rows["zoë"]["late"] == "0" and rows["zoë"]["final"] == "100"  # 4 minutes: the grace
    assert "not in roster.csv" not in said
    canvas = {row["ID"]: row["agtool lab (4242)"] for row in table(out / "canvas.csv")[1:]}
    ids = {row["student"]: row["ID"] for row in table(out / "roster.csv")}
    assert canvas[ids["zoë"]] == "100"


def test_rows_of_submitted_csv_that_name_no_student_are_listed_in_the_summary(graded):
    _, _, said = graded
    assert "submitted.csv: 1 row names no student in DIR (an LMS lists everyone): nora" in said


def test_a_graded_student_without_a_row_in_submitted_csv_is_refused_before_grading(tmp_path):
    folder, out = tmp_path / "class", tmp_path / "out"
    folder.mkdir()
    out.mkdir()
    shutil.copy(SUBMISSIONS / "beginner" / "ana.py", folder / "ana.py")
    shutil.copy(SUBMISSIONS / "correct" / "kit_minimal.py", folder / f"{ZOE}.py")
    (out / "term.toml").write_text(TERM)
    # Ana for ana (the LMS's capital), zoë in NFC for the decomposed file name: only the first is wrong
    (out / "submitted.csv").write_text("student,submitted\nAna,2026-12-10T20:00:00+09:00\nzoë,2026-12-10T20:00:00Z\n")
    code, said = run_class(str(folder), "--out", str(out), "--jobs", "1")
    assert code == 2
    refusal = "submitted.csv: ana has no row ('Ana' is the closest): write the name as DIR names it"
    assert said == f"grader class: {refusal}\n"
    assert not (out / "students").exists() and not (out / "gradebook.csv").exists()


def test_without_submitted_csv_the_file_time_is_read_once_shown_and_kept_by_force(tmp_path):
    folder, out = tmp_path / "class", tmp_path / "out"
    folder.mkdir()
    out.mkdir()
    shutil.copy(SUBMISSIONS / "correct" / "kit_minimal.py", folder / "kit.py")
    (out / "term.toml").write_text(TERM)
    os.utime(folder / "kit.py", (1797000000, 1797000000))  # 2026-12-11T14:40:00Z: 23 h 41 min late
    code, said = run_class(str(folder), "--out", str(out), "--jobs", "1")
    assert code == 0, said
    row = book(out)["kit"]
    assert "handed in 2026-12-11T14:40:00+00:00 (the file's modification time: no submitted.csv)" in row["notes"]
    assert (row["raw"], row["hours_late"], row["late"], row["final"]) == ("100", "23.68", "10", "90")
    os.utime(folder / "kit.py", (1797300000, 1797300000))  # touched since, 3 days late: the same bytes, the same time
    code, said = run_class(str(folder), "--out", str(out), "--jobs", "1", "--force")
    assert code == 0, said
    assert "1 graded now" in said and book(out)["kit"] == row


# ── item 2: one number everywhere ────────────────────────────────────────────


def test_every_final_is_raw_less_late_plus_override_computed_by_hand(graded):
    _, out, _ = graded
    rows = book(out)
    assert len(rows) == 16 and "'" + FORMULA in rows
    for name, row in rows.items():
        raw = sum(number(row[f"stage{n}"]) for n in range(1, 7))
        assert number(row["raw"]) == raw, name
        assert number(row["final"]) == raw - number(row["late"]) + number(row["override"]), name
    for name, (hours, off) in LATE.items():
        raw = number(rows[name]["raw"])
        assert number(rows[name]["hours_late"]) == hours, name
        assert number(rows[name]["late"]) == min(off, raw), name
    assert [rows[name]["raw"] for name in ("alice", "zoë", "kit", "enzo")] == ["100"] * 4
    assert rows["kit"]["final"] == "70"
    ana = rows["ana"]  # 2.2 regraded to 3 first, then -10
    was = record(out, "ana").checks["2.2"]
    assert number(ana["final"]) == number(ana["raw"]) - was + 3 - 10
    assert rows["empty"]["final"] == "5" and rows["finn"]["final"] == "40"


def test_each_students_feedback_and_results_show_the_final_the_gradebook_and_canvas_give(graded):
    _, out, _ = graded
    canvas = {row["ID"]: row["agtool lab (4242)"] for row in table(out / "canvas.csv")[1:]}
    ids = {row["student"]: row["ID"] for row in table(out / "roster.csv")}
    for name, row in book(out).items():
        student = name.removeprefix("'")
        folder = out / "students" / student
        feedback = (folder / "feedback.md").read_text()
        results = json.loads((folder / "results.json").read_text())
        assert feedback.startswith(f"# agtool lab: {row['final']} / 100\n"), name
        assert results["score"] == number(row["final"]), name
        assert canvas[ids[student]] == row["final"], name
        if row["final"] != row["raw"] or row["notes"]:
            said = f"**Final: {row['final']} / 100** = {row['raw']} (the checks) - {row['late']} late"
            assert said + f" + {row['override']} override" in feedback, name
            assert said in results["output"], name
        for note in filter(None, row["notes"].split("; ")):
            assert note in feedback and note in results["output"], (name, note)


# ── item 3: not graded is said ───────────────────────────────────────────────


def test_every_file_not_graded_in_full_has_a_row_a_note_and_a_line_in_not_graded_csv(graded):
    _, out, _ = graded
    rows = book(out)
    why = {row["student"]: row["why"] for row in table(out / "not_graded.csv")}
    assert sorted(why) == ["empty", "finn", "notools", "zed"]
    for name, reason in UNGRADED.items():
        assert why[name] == reason and f"not graded: {reason}" in rows[name]["notes"], name
    assert why["zed"].startswith("does not import (SyntaxError") and "line 1" in why["zed"]
    assert rows["zed"]["notes"].startswith("not graded: does not import (SyntaxError")
    assert rows["notools"]["raw"] == rows["zed"]["raw"] == "0"


def test_feedback_of_a_file_not_graded_names_nothing_internal_and_is_the_same_every_run(graded, tmp_path):
    folder, out, _ = graded
    for name in ("empty", "notools", "zed", "finn"):
        feedback = (out / "students" / name / "feedback.md").read_text()
        assert "submission_" not in feedback and "not graded" in feedback, name
    again = tmp_path / "again"
    again.mkdir()
    write_term(again)
    code, said = run_class(str(folder), "--out", str(again), "--jobs", "2", "--seed", "3")
    assert code == 0, said
    for name in ("empty", "notools", "zed", "finn"):
        for file in ("feedback.md", "graded.json"):
            first, second = (base / "students" / name / file for base in (out, again))
            assert first.read_bytes() == second.read_bytes(), (name, file)


# ── item 4: sandbox layers ───────────────────────────────────────────────────


def test_class_prints_and_records_its_sandbox_layers(graded):
    _, out, said = graded
    layers = Layers.here().describe()
    assert layers in said
    assert record(out, "alice").sandbox == layers
    assert layers in (out / "report.html").read_text()


def test_class_require_sandbox_refuses_on_a_machine_without_every_layer(tmp_path, monkeypatch):
    from grader.instructor import classroom

    monkeypatch.setattr(classroom.Layers, "here", classmethod(lambda cls: Layers(False, False, 0)))
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "amy.py").write_text(REFERENCE)
    code, said = run_class(str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--require-sandbox")
    assert code == 2 and "--require-sandbox" in said and "missing: no seccomp filter" in said
    assert not (tmp_path / "out" / "students").exists()


# ── item 5: the report ───────────────────────────────────────────────────────


def by_hand_median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def pearson(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    covariance = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    spread_x = sum((x - mean_x) ** 2 for x in xs) ** 0.5
    spread_y = sum((y - mean_y) ** 2 for y in ys) ** 0.5
    return covariance / (spread_x * spread_y)


def record(out: Path, student: str) -> Graded:
    """The student's record (graded.json), as the class wrote it."""
    graded = read_record(out, student)
    assert graded is not None, student
    return graded


def graded_in_full(out: Path) -> dict[str, Graded]:
    """student -> their record, for each file graded in full."""
    rows = book(out)
    return {
        name.removeprefix("'"): record(out, name.removeprefix("'"))
        for name, row in rows.items()
        if not row["notes"].startswith("not graded")
    }


def test_the_reports_figures_are_the_ones_computed_by_hand(graded):
    _, out, _ = graded
    page = (out / "report.html").read_text()
    rows = book(out)
    full = graded_in_full(out)
    assert len(full) == 12
    median = by_hand_median([number(rows[name if name != FORMULA else "'" + name]["final"]) for name in full])
    summary = found(r'<p id="summary">(.*?)</p>', page)
    assert f"median final score {median:g} of 100" in summary
    assert "16 graded in the gradebook (12 in full, 4 not)" in summary


def test_the_report_says_per_check_who_failed_it_and_how_well_it_discriminates(graded):
    _, out, _ = graded
    page = (out / "report.html").read_text()
    full = graded_in_full(out)
    scores = {name: graded.checks for name, graded in full.items()}
    totals = {name: graded.raw for name, graded in full.items()}
    checked = 0
    for label in scores["alice"]:
        failed = sorted(name for name in full if label in full[name].failed)
        row = found(rf'<tr class="check" data-label="{re.escape(label)}">(.*?)</tr>', page, re.S)
        who = found(r'<td class="who">(.*?)</td>', row, re.S)
        assert re.findall(r"<li>(.*?)</li>", who) == [html.escape(name) for name in failed], label
        passed = [0.0 if name in failed else 1.0 for name in full]
        rest = [totals[name] - scores[name][label] for name in full]
        shown = found(r'<td class="num discrimination[^"]*">(.*?)</td>', row)
        if 0 < len(failed) < len(full) and len(set(rest)) > 1:
            assert shown.startswith(f"{pearson(passed, rest):+.2f}"), label
            checked += 1
        else:
            assert shown == "-", label
    assert checked >= 5


def test_the_report_gives_each_section_its_figures(graded):
    _, out, _ = graded
    page = (out / "report.html").read_text()
    rows = book(out)
    full = graded_in_full(out)
    others = tuple(name for name in HANDED_IN if name != "nora" and name not in SECTIONS["A"])
    for section, names in (("A", SECTIONS["A"]), ("B", others)):
        keys = {(n if n != FORMULA else "'" + n) for n in names} | ({"finn"} if section == "A" else set())
        keys = {key for key in keys if key in rows}
        in_full = [number(rows[key]["final"]) for key in keys if key.removeprefix("'") in full]
        row = found(rf'<tr class="section" data-section="{section}">(.*?)</tr>', page, re.S)
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        assert cells[:4] == [section, str(len(keys)), str(len(in_full)), f"{by_hand_median(in_full):g}"], section


# ── item 6: the integrity report ─────────────────────────────────────────────


def test_a_cluster_of_copies_larger_than_a_quarter_of_the_class_is_listed_whole(graded):
    _, out, _ = graded
    page = (out / "integrity.html").read_text()
    rows = re.findall(r'<tr class="cluster">(.*?)</tr>', page, re.S)
    clusters = [sorted(re.findall(r"<li>(.*?)</li>", row)) for row in rows]
    assert sorted(COPIES) in clusters
    pairs = re.findall(r'<tr class="pair" data-first="(.*?)" data-second="(.*?)">', page)
    assert {(first, second) for first, second in pairs} >= {
        (a, b) for i, a in enumerate(sorted(COPIES)) for b in sorted(COPIES)[i + 1 :]
    }
    assert not [pair for pair in pairs if set(pair) - set(COPIES) - {"alice", "kit"}], pairs  # no honest pair


def test_each_pair_shows_the_lines_each_file_holds_side_by_side(graded):
    folder, out, _ = graded
    page = (out / "integrity.html").read_text()
    pair = found(r'<tr class="pair" data-first="ben" data-second="bert">(.*?)</tr>', page, re.S)
    first, second = re.findall(r'<td class="lines"><pre>(.*?)</pre></td>', pair, re.S)
    for name, shown in (("ben", first), ("bert", second)):
        source = (folder / f"{name}.py").read_text().splitlines()
        quoted = re.findall(r"^ *(\d+)  (.*)$", html.unescape(shown), re.M)
        assert len(quoted) > 50
        assert all(source[int(line) - 1] == text for line, text in quoted), name


def test_code_that_builds_and_runs_code_at_run_time_is_listed(graded):
    _, out, _ = graded
    page = (out / "integrity.html").read_text()
    listed = found(r'<table id="runs-code">(.*?)</table>', page, re.S)
    assert "enzo" in listed and "exec(compile(zlib.decompress(base64.b64decode(" in html.unescape(listed)
    assert [name for name in ("alice", "kit", *COPIES) if f"<td>{name}</td>" in listed] == []
    assert book(out)["enzo"]["raw"] == "100"  # it scores what it copied: the listing is the evidence


def test_the_integrity_report_is_kept_until_the_next_similar(graded):
    folder, out, _ = graded
    before = (out / "integrity.html").read_bytes()
    code, said = run_class(str(folder), "--out", str(out), "--jobs", "2", "--seed", "3")
    assert code == 0, said
    assert (out / "integrity.html").read_bytes() == before
    assert 'href="integrity.html"' in (out / "report.html").read_text()


def test_every_cell_a_spreadsheet_could_run_is_quoted_full_width_too(graded):
    _, out, _ = graded
    for name in ("gradebook.csv", "canvas.csv", "not_graded.csv"):
        with open(out / name, newline="", encoding="utf-8") as file:
            cells = [cell for row in csv.reader(file) for cell in row]
        runnable = [c for c in cells if unicodedata.normalize("NFKC", c.lstrip()[:1]) in ("=", "+", "-", "@")]
        assert [c for c in runnable if not _number(c)] == [], name
    assert "'" + FORMULA in book(out)


# ── item 2 again, and item 7: the term changes, a hand edit ──────────────────


def test_a_term_change_updates_feedback_and_results_without_regrading_and_a_hand_edit_names_its_cells(graded):
    folder, out, _ = graded
    stamps = {path: path.stat().st_ino for path in out.glob("students/*/graded.json")}
    edited = (out / "gradebook.csv").read_text().replace("\nkit,70,", "\nkit,69,")
    (out / "gradebook.csv").write_text(edited)
    with open(out / "overrides.csv", "a") as file:
        file.write("kit,6.6,0,a hard-coded recursion limit found by hand\n")
    code, said = run_class(str(folder), "--out", str(out), "--jobs", "2", "--seed", "3")
    assert code == 0, said
    assert {path: path.stat().st_ino for path in out.glob("students/*/graded.json")} == stamps  # not regraded
    assert "kept aside: gradebook.csv was edited by hand" in said and "kit's final: 70 -> 69" in said
    kit = book(out)["kit"]
    six = next(result.check.points for result in record(out, "kit").grade.results if result.check.label == "6.6")
    assert kit["final"] == f"{70 - six:g}"
    assert (out / "students" / "kit" / "feedback.md").read_text().startswith(f"# agtool lab: {kit['final']} / 100\n")
    assert json.loads((out / "students" / "kit" / "results.json").read_text())["score"] == number(kit["final"])


# ── the report, in the real browser ──────────────────────────────────────────


def test_the_report_and_the_integrity_report_open_in_the_real_browser(graded, chromium):  # noqa: F811
    _, out, _ = graded
    page = chromium.new_page(viewport={"width": 1400, "height": 900})
    page.goto((out / "report.html").as_uri())
    assert page.locator("svg.histogram").count() == 7
    assert page.locator("#sections tr.section").count() == 2
    who = page.locator('#checks tr.check[data-label="1.6"] td.who')
    assert "bea" not in who.inner_text()  # folded until asked for
    who.locator("summary").click()
    assert "bea" in who.inner_text()  # each of the copies fails it as ben does
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "class_books_report.png", full_page=True)
    page.goto((out / "integrity.html").as_uri())
    assert page.locator("tr.cluster").count() >= 1 and "enzo" in page.locator("#runs-code").inner_text()
    page.screenshot(path=ARTIFACTS / "class_books_integrity.png")  # its top: the pairs' lines run long
    page.close()
