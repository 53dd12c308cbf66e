"""A graded student of a class: the one record, written once, of which every file `class` writes is a view.

`class` grades a student into a `Graded` and writes it as OUT/students/<student>/graded.json (to_json); a
resumed run or `merge` reads it back (from_json). results.json, feedback.md, the gradebook's and Canvas's rows
and report.html are drawn from it with the term applied (`with_term`): nothing reads a rendered file back.
"""

from dataclasses import asdict, dataclass, fields, replace
from functools import cache, cached_property
from typing import Any

from agtool.syllabus import STAGES
from grader.instructor.term import Final, Term, apply
from grader.kit.checks import every_check
from grader.kit.grading import Grade
from grader.kit.probing import CheckResult, Mismatch, hinted

STAGE_NUMBERS = sorted(STAGES)  # the gradebook's stage columns, in order
REASON_LIMIT = 120  # characters of one failed check's reason (failure_reason)


@dataclass(frozen=True)
class Graded:
    """One student: who, their grade (checks and failures as data), how it was graded and handed in."""

    student: str  # their entry in DIR, in NFC
    shown: str  # their file as DIR holds it, as the student knows it: their feedback names it so
    grade: Grade
    stamp: dict  # what the grade depends on (records.stamp): a resumed run or a merge compares it
    ungraded: str | None = None  # why the file was not graded in full (empty, does not import …), or None
    modified: float | None = None  # when the file was handed in, as first read; None: no file
    sandbox: str = ""  # the sandbox's layers it was graded under (Layers.describe)
    applied: Final | None = None  # the term's adjustments, once with_term applied them; never written

    @property
    def raw(self) -> float:  # the checks' total, before the term
        return float(self.grade.score)

    @cached_property
    def stages(self) -> dict[int, float]:
        """stage -> the stage's score, every stage named (0 for one not graded)."""
        scores = self.grade.stage_scores()
        return {stage: float(scores.get(stage, 0)) for stage in STAGE_NUMBERS}

    @cached_property
    def checks(self) -> dict[str, int]:  # label -> the check's score
        return {result.check.label: result.score for result in self.grade.results}

    @cached_property  # the report asks each student for each check
    def failed(self) -> dict[str, str]:
        """label -> why, for each failed check (failure_reason)."""
        return {result.check.label: failure_reason(result) for result in self.grade.results if not result.passed}

    def with_term(self, term: Term) -> "Graded":
        """This record with the term's adjustments, as every view after grading shows it."""
        return replace(self, applied=apply(term, self.student, self.raw, self.checks, self.modified))

    @property
    def adjustments(self) -> Final:
        if self.applied is None:
            raise ValueError(f"{self.student}: the term is not applied yet (Graded.with_term)")
        return self.applied

    @property
    def final(self) -> float:
        """The score the student is given: raw - late + override."""
        return self.adjustments.of(self.raw)

    @property
    def notes(self) -> tuple[str, ...]:
        """Why the final differs from the checks: not graded in full first, then how the term made it."""
        return ((f"not graded: {self.ungraded}",) if self.ungraded else ()) + self.adjustments.notes

    def to_json(self) -> dict:
        """The record as graded.json holds it. Neither the grading's time nor the term is in it: the same
        grade is the same bytes, and the term is applied on every run."""
        return {
            "student": self.student,
            "shown": self.shown,
            "stamp": self.stamp,
            "ungraded": self.ungraded,
            "modified": self.modified,
            "sandbox": self.sandbox,
            "path": self.grade.path,
            "seed": self.grade.seed,
            "checks": [
                {
                    "label": result.check.label,
                    "passed": result.passed,
                    "message": result.message,
                    "died": result.died,
                    "failure": None if result.mismatch is None else asdict(result.mismatch),
                }
                for result in self.grade.results
            ],
        }

    @classmethod
    def from_json(cls, data: dict) -> "Graded":
        """The record to_json wrote; KeyError, TypeError or ValueError for one of an earlier release."""
        results = [_result(entry, _checks_by_label()) for entry in data["checks"]]
        modified = data["modified"]
        return cls(
            student=str(data["student"]),
            shown=str(data["shown"]),
            grade=Grade(str(data["path"]), int(data["seed"]), results, 0.0),
            stamp=dict(data["stamp"]),
            ungraded=None if data["ungraded"] is None else str(data["ungraded"]),
            modified=None if modified is None else float(modified),
            sandbox=str(data["sandbox"]),
        )

    def __reduce__(self):
        """Pickled (from a pool's worker to the class) as its record: a check holds functions no pickle takes."""
        return (Graded.from_json, (self.to_json(),))


def _result(entry: dict, checks: dict) -> CheckResult:
    """A check's result as to_json wrote it, its check hinted for its failure as the student read it."""
    failure = None if entry["failure"] is None else _mismatch(entry["failure"])
    check = checks[entry["label"]] if failure is None else hinted(checks[entry["label"]], failure)
    return CheckResult(check, bool(entry["passed"]), str(entry["message"]), failure, bool(entry["died"]))


def _mismatch(data: dict) -> Mismatch:
    """A failure as to_json wrote it (asdict made its tuples lists)."""
    values: dict[str, Any] = {}
    for field in fields(Mismatch):
        value = data[field.name]
        values[field.name] = tuple(value) if isinstance(value, list) else value
    return Mismatch(**values)


@cache
def _checks_by_label() -> dict:
    return {check.label: check for check in every_check()}


def failure_reason(result: CheckResult) -> str:
    """What a failed check's result has in common with others' (the report counts them): the exception
    its smallest failing input raised, else the problem its judge named, else its one-line message."""
    failure = result.mismatch
    if failure is not None and failure.exception:
        why = f"raised {failure.exception}"
    elif failure is not None and failure.problem:
        why = failure.problem
    else:
        why = result.message
    return why if len(why) <= REASON_LIMIT else why[: REASON_LIMIT - 1] + "…"
