"""The term's files (grader/instructor/term.py): read, refused in one line when wrong, applied so that
final = raw - late + override and every number has its note."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from grader.instructor.gradebook import read_roster
from grader.instructor.term import TermError, apply, read_term

pytestmark = pytest.mark.grader

STUDENTS = {"amy", "ben", "cat"}
CHECKS = {"1.1": 2, "2.3": 2, "6.6": 2, "2.1": 94}  # 100 points in all, as the lab's checks
DUE = datetime(2026, 12, 10, 23, 59, tzinfo=UTC)
POLICY = 'assignment = "agtool lab (77)"\n[late]\ndue = 2026-12-10T23:59:00Z\npenalty = 10\nper = "day"\ncap = 25\n'


def term_in(tmp_path: Path, handed_in: set[str] | None = None, **files: str):
    for name, text in files.items():
        (tmp_path / name.replace("_csv", ".csv").replace("_toml", ".toml")).write_text(text)
    return read_term(tmp_path, STUDENTS, CHECKS, handed_in)


def at(delta: timedelta) -> float:
    return (DUE + delta).timestamp()


def test_no_term_files_make_the_final_the_raw_score(tmp_path):
    term = term_in(tmp_path)
    final = apply(term, "amy", 87, {"2.3": 0}, at(timedelta(days=30)))
    assert (final.late, final.override, final.of(87), final.notes) == (0, 0, 87, ())
    assert term.assignment == "agtool lab"


def test_a_late_submission_loses_the_penalty_per_period_started_up_to_the_cap(tmp_path):
    term = term_in(tmp_path, term_toml=POLICY)
    assert term.assignment == "agtool lab (77)"
    on_time = apply(term, "amy", 90, {}, at(-timedelta(minutes=1)))
    a_minute = apply(term, "amy", 90, {}, at(timedelta(minutes=1)))
    two_days = apply(term, "amy", 90, {}, at(timedelta(days=1, hours=1)))
    a_week = apply(term, "amy", 90, {}, at(timedelta(days=7)))
    assert [f.of(90) for f in (on_time, a_minute, two_days, a_week)] == [90, 80, 70, 65]
    assert a_week.late == 25 and "the cap" in a_week.notes[-1] and a_week.hours_late == 168
    assert a_week.notes[0] == "handed in 2026-12-17T23:59:00+00:00 (the file's modification time: no submitted.csv)"
    little = apply(term, "amy", 4, {}, at(timedelta(days=7)))
    assert (little.late, little.of(4)) == (4, 0)  # a penalty never takes a score below zero


def test_an_extension_moves_one_students_due_time_and_submitted_csv_beats_the_files_time(tmp_path):
    term = term_in(
        tmp_path,
        {"ben"},
        term_toml=POLICY,
        extensions_csv="student,due\nben,2026-12-13T23:59:00+00:00\n",
        submitted_csv="student,submitted\nben,2026-12-12T10:00:00+00:00\nzed,2026-12-01T00:00:00+00:00\n",
    )
    ben = apply(term, "ben", 90, {}, at(timedelta(days=30)))
    assert (ben.of(90), ben.notes) == (90, ())  # submitted.csv's time, within ben's due: the file's is not read
    assert term.unmatched == ("zed",)  # an LMS lists everyone: listed, not refused
    assert apply(term, "cat", 0, {}, None).notes == ()  # no file (a folder without tools.py): no time, no late


def test_every_student_with_a_file_needs_a_row_in_submitted_csv_compared_in_nfc(tmp_path):
    submitted = "student,submitted\nAmy,2026-12-12T10:00:00+00:00\nbe\u0301n,2026-12-12T10:00:00+00:00\n"
    (tmp_path / "term.toml").write_text(POLICY)
    (tmp_path / "submitted.csv").write_text(submitted)
    with pytest.raises(TermError) as refused:
        read_term(tmp_path, {"amy", "bén", "cy"}, CHECKS, {"amy", "bén", "cy"})
    assert str(refused.value) == (
        "submitted.csv: amy has no row ('Amy' is the closest) (1 more with none): write the name as DIR names it"
    )
    term = read_term(tmp_path, {"amy", "bén"}, CHECKS, {"bén"})
    assert term.submitted == {"bén": datetime(2026, 12, 12, 10, tzinfo=UTC)} and term.unmatched == ("Amy",)


def test_overrides_set_a_checks_score_or_the_final_total_and_each_says_why(tmp_path):
    term = term_in(
        tmp_path,
        term_toml=POLICY,
        overrides_csv="student,check,points,reason\namy,2.3,2,regraded by hand\nben,total,99,excused\n",
    )
    amy = apply(term, "amy", 80, {"2.3": 0}, at(timedelta(hours=2)))
    assert (amy.late, amy.override, amy.of(80)) == (10, 2, 72)
    assert amy.notes[0] == "2.3: 0 -> 2 (regraded by hand)" and amy.notes[2].startswith("late 2 h")
    ben = apply(term, "ben", 60, {}, at(timedelta(days=3)))
    assert ben.of(60) == 99 == 60 - ben.late + ben.override  # the total is the last word
    assert ben.notes[-1] == "total set to 99 (excused)"


@pytest.mark.parametrize(
    "files, said",
    [
        ({"overrides_csv": "student,points\n"}, "overrides.csv: its first line must be student,check,points,reason"),
        ({"overrides_csv": "student,check,points,reason\nzed,2.3,1,x\n"}, "overrides.csv line 2: no student 'zed'"),
        ({"overrides_csv": "student,check,points,reason\namy,9.9,1,x\n"}, "check '9.9' is no check"),
        ({"overrides_csv": "student,check,points,reason\namy,2.3,3,x\n"}, "points 3 is not between 0 and 2"),
        ({"overrides_csv": "student,check,points,reason\namy,2.3,nan,x\n"}, "points nan is not between"),
        ({"overrides_csv": "student,check,points,reason\namy,total,50,\n"}, "line 2: no reason"),
        (
            {"overrides_csv": "student,check,points,reason\namy,2.3,1,a\namy,2.3,2,b\n"},
            "line 3: a second override of 2.3 for amy",
        ),
        ({"term_toml": "[late]\npenalty = 10\nper = 'day'\n"}, "term.toml [late]: no due"),
        ({"term_toml": "[late]\ndue = 2026-12-10T23:59:00\npenalty = 1\nper = 'day'\n"}, "with its time zone"),
        ({"term_toml": "[late]\ndue = 2026-12-10T23:59:00Z\npenalty = 1\nper = 'week'\n"}, 'per must be "day"'),
        ({"term_toml": "[late]\ndue = 2026-12-10T23:59:00Z\npenalty = -1\nper = 'day'\n"}, "penalty must be"),
        ({"term_toml": "[late]\ndue = 2026-12-10T23:59:00Z\npenality = 1\n"}, "unknown key 'penality'"),
        ({"term_toml": "due = 3\n"}, "term.toml: unknown key 'due'"),
        ({"term_toml": "[late\n"}, "term.toml: not TOML"),
        ({"extensions_csv": "student,due\namy,2026-12-12T00:00:00Z\n"}, "extensions need a late policy"),
        (
            {"term_toml": POLICY, "extensions_csv": "student,due\namy,tomorrow\n"},
            "extensions.csv line 2: due 'tomorrow'",
        ),
    ],
)
def test_a_bad_term_file_is_refused_in_one_line_naming_the_file_row_and_field(tmp_path, files, said):
    with pytest.raises(TermError) as refused:
        term_in(tmp_path, **files)
    assert said in str(refused.value) and "\n" not in str(refused.value)


def test_a_fractional_penalty_leaves_no_float_noise_in_the_numbers(tmp_path):
    """0.1 a day for 3 days is 0.3 off, not 0.30000000000000004: the override stays 0 and the final 84.7."""
    policy = POLICY.replace("penalty = 10", "penalty = 0.1")
    final = apply(term_in(tmp_path, term_toml=policy), "amy", 85, {}, at(timedelta(days=2, hours=1)))
    assert (final.late, final.override, final.of(85)) == (0.3, 0, 84.7)
    assert repr(final.of(85)) == "84.7"  # as results.json writes the score


ROSTER_HEADER = "student,Student,ID,SIS User ID,SIS Login ID,Section\n"


@pytest.mark.parametrize(
    "rows, said",
    [
        ("amy,Amy,1001\n", "roster.csv line 2: 3 cells, not 6 (student,Student,ID,SIS User ID,SIS Login ID,Section)"),
        ("amy,Amy,,,amy,A\n", "roster.csv line 2: needs a student and Canvas's ID or SIS User ID"),
        ("amy,Amy,1,s1,amy,A\nAmy,Amy,2,s2,amy2,A\namy,Amy,3,s3,amy3,A\n", "roster.csv line 4: amy is named twice"),
    ],
)
def test_a_bad_roster_row_is_refused_in_one_line_naming_it(tmp_path, rows, said):
    """roster.csv is read as every term file is: a short row is refused, not filled in with empty cells."""
    (tmp_path / "roster.csv").write_text(ROSTER_HEADER + rows)
    with pytest.raises(TermError) as refused:
        read_roster(tmp_path)
    assert str(refused.value).startswith(said)


def test_a_roster_maps_each_student_in_nfc_to_canvas_columns(tmp_path):
    (tmp_path / "roster.csv").write_text("\ufeff" + ROSTER_HEADER + "be\u0301n , Ben,1001,s1001,ben,A\n,,,,,\n")
    assert read_roster(tmp_path) == {
        "bén": {"Student": "Ben", "ID": "1001", "SIS User ID": "s1001", "SIS Login ID": "ben", "Section": "A"}
    }
    assert read_roster(tmp_path / "nowhere") is None
