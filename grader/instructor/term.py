"""The term around a class's grades: overrides, a late policy, extensions, as files beside the gradebook.

The grader's scores (raw) are never edited; what an instructor decides about them is data in OUT, read on
every run of `class` and applied after grading, so a rerun keeps it:

- OUT/overrides.csv (student, check, points, reason): the score a check gets ("2.3"), or
  the final total ("total": the last word, late penalty included). Every row needs a reason.
- OUT/term.toml: the late policy and the LMS's assignment name:

      assignment = "agtool lab"            # the Canvas column (name it as Canvas does, id included)
      [late]
      due = 2026-12-10T23:59:00+09:00      # a time zone is required
      penalty = 10                         # points off per period started late
      per = "day"                          # or "hour"
      cap = 30                             # at most this many points off (default: all)
      grace_minutes = 5                    # late by no more than this is on time (default 0)

- OUT/extensions.csv (student, due): a student's own due time.
- OUT/submitted.csv (student, submitted): when each student handed in (an LMS export). Every student with a
  file to grade needs a row; rows naming no student are listed, not refused (an LMS lists the whole course).
  Without it, the graded file's modification time, read once (records.py keeps it) and said in the notes.

Names are compared in Unicode's NFC (one name unzipped on another machine may be spelt in another form).
Bad input is refused before any grading, in one line naming the file, the row and the field.
final = raw - late + override, and the notes say why.
"""

import csv
import difflib
import math
import tomllib
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

OVERRIDES = "overrides.csv"
EXTENSIONS = "extensions.csv"
SUBMITTED = "submitted.csv"
TERM = "term.toml"
TOTAL = "total"  # an override's check: the final total
PERIODS = {"day": timedelta(days=1), "hour": timedelta(hours=1)}
DEFAULT_ASSIGNMENT = "agtool lab"
POINT_DIGITS = 6  # decimals of the term's numbers (points): more than the books show (:g)


class TermError(Exception):
    """A term file the grader cannot use: the message names the file, the row, the field and the fix."""


@dataclass(frozen=True)
class Override:
    check: str  # a check's label, or TOTAL
    points: float
    reason: str


@dataclass(frozen=True)
class LatePolicy:
    due: datetime
    penalty: float  # points per period started
    per: str  # a key of PERIODS
    cap: float | None = None
    grace: timedelta = timedelta(0)

    def penalty_for(self, late_by: timedelta) -> tuple[float, int]:
        """(points off, periods started) for a submission late_by after its due time."""
        if late_by <= self.grace:
            return 0.0, 0
        periods = math.ceil(late_by / PERIODS[self.per])
        off = periods * self.penalty
        return (off if self.cap is None else min(off, self.cap)), periods


@dataclass(frozen=True)
class Term:
    """What OUT says about the term; an OUT with none of the files is the empty Term (raw = final)."""

    overrides: dict[str, list[Override]] = field(default_factory=dict)
    late: LatePolicy | None = None
    extensions: dict[str, datetime] = field(default_factory=dict)
    submitted: dict[str, datetime] | None = None  # None: no submitted.csv (the files' times are used)
    assignment: str = DEFAULT_ASSIGNMENT
    unmatched: tuple[str, ...] = ()  # submitted.csv's rows that name no student of the class

    def files(self, out: Path) -> list[str]:
        """The term files in use, as the run's last line names them."""
        names = (TERM, OVERRIDES, EXTENSIONS, SUBMITTED)
        return [name for name in names if (out / name).is_file()]


@dataclass(frozen=True)
class Final:
    """The term's adjustments to one student's checks' total (raw, their record's), every one explained."""

    late: float
    override: float
    hours_late: float  # 0 when on time (or no late policy)
    notes: tuple[str, ...]

    def of(self, raw: float) -> float:
        return points(raw - self.late + self.override)


def points(value: float) -> float:
    """value to the term's precision: its numbers are decimals an instructor typed, and 3 * 0.1 is 0.3 of them
    (the books would show an override of 2.9e-15)."""
    return round(value, POINT_DIGITS)


def same_name(name: str) -> str:
    """A student's name as every file is compared in: Unicode's NFC."""
    return unicodedata.normalize("NFC", name)


def read_term(out: Path, students: set[str], checks: dict[str, int], handed_in: set[str] | None = None) -> Term:
    """The term files in OUT, checked against the class (its students, names in NFC) and the checks
    (label -> points). handed_in: the students with a file graded (default: all), each of whom needs a row
    in submitted.csv when there is one."""
    term = _read_toml(out / TERM)
    submitted, unmatched = _read_submitted(out / SUBMITTED, students, students if handed_in is None else handed_in)
    overrides = _read_overrides(out / OVERRIDES, students, checks)
    late = _late_policy(term["late"]) if "late" in term else None
    if late is None and (out / EXTENSIONS).is_file():
        raise TermError(f"{EXTENSIONS}: extensions need a late policy: add [late] to {TERM}")
    extensions = _read_times(out / EXTENSIONS, "due", students)
    return Term(overrides, late, extensions, submitted, _assignment(term), unmatched)


def apply(term: Term, student: str, raw: float, checks: Mapping[str, float], modified: float | None) -> Final:
    """The term's adjustments to a student's raw score; `checks` are their check scores, `modified` the
    graded file's modification time as first read (used without submitted.csv; None: no file, no late)."""
    notes = []
    adjusted = raw
    total = None
    for override in term.overrides.get(student, []):
        if override.check == TOTAL:
            total = override
            continue
        was = checks.get(override.check, 0.0)
        adjusted += override.points - was
        notes.append(f"{override.check}: {was:g} -> {override.points:g} ({override.reason})")
    late, hours = 0.0, 0.0
    # read_term made sure of a row in submitted.csv for each student with a file
    if term.submitted is not None:
        submitted = term.submitted.get(student)
    else:
        submitted = None if modified is None else datetime.fromtimestamp(modified, UTC)
    if term.late is not None and submitted is not None:
        if term.submitted is None:
            when = submitted.isoformat(timespec="seconds")
            notes.append(f"handed in {when} (the file's modification time: no {SUBMITTED})")
        due = term.extensions.get(student, term.late.due)
        off, periods = term.late.penalty_for(submitted - due)
        if periods:
            hours = round((submitted - due) / timedelta(hours=1), 2)
            late = min(off, max(adjusted, 0.0))
            capped = " (the cap)" if term.late.cap is not None and off == term.late.cap else ""
            taken = f"-{late:g}{capped}" if late else "no points to take"
            notes.append(f"late {hours:g} h, {periods} {term.late.per}(s) started: {taken}")
    final = adjusted - late
    if total is not None:
        final = total.points
        notes.append(f"total set to {total.points:g} ({total.reason})")
    return Final(points(late), points(final - raw + late), hours, tuple(notes))


# ── reading the files ────────────────────────────────────────────────────────


def _read_toml(path: Path) -> dict:
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise TermError(f"{path.name}: not TOML ({error}): see `python -m grader class --help`") from None
    unknown = set(data) - {"assignment", "late"}
    if unknown:
        raise TermError(f"{path.name}: unknown key {sorted(unknown)[0]!r}: the keys are assignment and [late]")
    return data


def _assignment(term: dict) -> str:
    name = term.get("assignment", DEFAULT_ASSIGNMENT)
    if type(name) is not str or not name.strip() or "," in name or "\n" in name:
        raise TermError(f"{TERM}: assignment must be the assignment's name as the LMS shows it, not {name!r}")
    return name.strip()


LATE_KEYS = {"due", "penalty", "per", "cap", "grace_minutes"}


def _late_policy(late) -> LatePolicy:
    where = f"{TERM} [late]"
    if type(late) is not dict:
        raise TermError(f"{where}: must be a table ([late] with due, penalty and per under it)")
    unknown = set(late) - LATE_KEYS
    if unknown:
        raise TermError(f"{where}: unknown key {sorted(unknown)[0]!r}: the keys are {', '.join(sorted(LATE_KEYS))}")
    for key in ("due", "penalty", "per"):
        if key not in late:
            raise TermError(
                f'{where}: no {key}: add it (e.g. due = 2026-12-10T23:59:00+09:00, penalty = 10, per = "day")'
            )
    due = late["due"]
    if type(due) is not datetime or due.tzinfo is None:
        raise TermError(f"{where}: due must be a date and time with its time zone, such as 2026-12-10T23:59:00+09:00")
    if late["per"] not in PERIODS:
        raise TermError(f'{where}: per must be "day" or "hour", not {late["per"]!r}')
    penalty = _points(late["penalty"], f"{where}: penalty")
    cap = _points(late["cap"], f"{where}: cap") if "cap" in late else None
    grace = _points(late.get("grace_minutes", 0), f"{where}: grace_minutes")
    return LatePolicy(due, penalty, late["per"], cap, timedelta(minutes=grace))


def _points(value, where: str) -> float:
    if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
        raise TermError(f"{where} must be a number of 0 or more, not {value!r}")
    return float(value)


def read_rows(path: Path, columns: tuple[str, ...]) -> list[tuple[str, dict[str, str]]]:
    """(where, row) for each row of a CSV whose header is exactly `columns`: where names the file and line."""
    if not path.is_file():
        return []
    try:
        text = path.read_text(encoding="utf-8-sig")  # a spreadsheet's byte-order mark is no column
    except UnicodeDecodeError:
        raise TermError(f"{path.name}: not UTF-8 text: save it as CSV UTF-8") from None
    reader = csv.reader(text.splitlines())
    header = [name.strip() for name in next(reader, [])]
    if tuple(header) != columns:
        raise TermError(f"{path.name}: its first line must be {','.join(columns)}, not {','.join(header) or 'empty'}")
    rows = []
    for number, cells in enumerate(reader, start=2):
        where = f"{path.name} line {number}"
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(columns):
            raise TermError(f"{where}: {len(cells)} cells, not {len(columns)} ({','.join(columns)})")
        rows.append((where, dict(zip(columns, (cell.strip() for cell in cells), strict=True))))
    return rows


def _student(row: dict[str, str], students: set[str], where: str) -> str:
    student = same_name(row["student"])
    if student not in students:
        raise TermError(f"{where}: no student {student!r} in the class: write the name as DIR names them")
    return student


def _read_overrides(path: Path, students: set[str], checks: dict[str, int]) -> dict[str, list[Override]]:
    found: dict[str, list[Override]] = {}
    for where, row in read_rows(path, ("student", "check", "points", "reason")):
        student = _student(row, students, where)
        check = row["check"]
        most = sum(checks.values()) if check == TOTAL else checks.get(check)
        if most is None:
            raise TermError(f"{where}: check {check!r} is no check: use a label such as 2.3, or {TOTAL}")
        try:
            points = float(row["points"])
        except ValueError:
            raise TermError(f"{where}: points {row['points']!r} is not a number") from None
        if not 0 <= points <= most:  # NaN too
            raise TermError(f"{where}: points {row['points']} is not between 0 and {most} ({check}'s most)")
        if not row["reason"]:
            raise TermError(f"{where}: no reason: say why, so that the number can be explained to the student")
        if any(override.check == check for override in found.get(student, [])):
            raise TermError(f"{where}: a second override of {check} for {student}: keep one")
        found.setdefault(student, []).append(Override(check, points, row["reason"]))
    return found


def _read_submitted(
    path: Path, students: set[str], handed_in: set[str]
) -> tuple[dict[str, datetime] | None, tuple[str, ...]]:
    """(submitted.csv's times, or None without one; its rows that name no student). A student in
    handed_in without a row is refused, in one line naming them and the closest row."""
    if not path.is_file():
        return None, ()
    outside: set[str] = set()
    found = _read_times(path, "submitted", students, outside)
    unmatched = tuple(sorted(outside))
    missing = sorted(handed_in - found.keys())
    if missing:
        student, more = missing[0], f" ({len(missing) - 1} more with none)" if len(missing) > 1 else ""
        raise TermError(
            f"{path.name}: {student} has no row ({_closest(student, unmatched)}){more}: write the name as DIR names it"
        )
    return found, unmatched


def _closest(student: str, names: tuple[str, ...]) -> str:
    """The row most like student's name, said for a refusal: the same letters in another case first."""
    if not names:
        return "no row names anyone outside the class"
    folded = [name for name in names if name.casefold() == student.casefold()]
    best = folded or difflib.get_close_matches(student, names, n=1, cutoff=0.0)
    return f"{best[0]!r} is the closest"


def _read_times(path: Path, column: str, students: set[str], outside: set[str] | None = None) -> dict[str, datetime]:
    """student -> the time in `column`. A row naming no student is refused, or with `outside` (an LMS's export
    lists the whole course: no mistake) added to it."""
    found = {}
    for where, row in read_rows(path, ("student", column)):
        if outside is not None and same_name(row["student"]) not in students:
            outside.add(same_name(row["student"]))
            continue
        student = _student(row, students, where)
        try:
            when = datetime.fromisoformat(row[column])
        except ValueError:
            when = None
        if when is None or when.tzinfo is None:
            raise TermError(
                f"{where}: {column} {row[column]!r} is not a time with its time zone, such as 2026-12-10T23:59:00+09:00"
            )
        if student in found:
            raise TermError(f"{where}: {student} is named twice: keep one row")
        found[student] = when
    return found
