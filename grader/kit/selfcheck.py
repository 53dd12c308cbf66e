"""check(N): a stage's checks on the student's tools.py, in this process, as a table; and the kit's `make test`.

In the repository check() judges random cases against the oracle, on trusted earlier stages; in the
kit, the public cases (public.py), on the student's own. `python -m grader.kit.selfcheck` (the kit's
`make test`) prints one line for every stage's check() and exits 1 unless all pass.
"""

import html
import importlib.util
import sys
from dataclasses import dataclass

from agtool.syllabus import STAGES
from grader.kit import oracle_access, public
from grader.kit.checks import CHECKLISTS
from grader.kit.grading import Grade, grade
from grader.kit.intake import NotASubmission, Submission, read_submission
from grader.kit.local import LocalSession
from grader.kit.report import check_command, html_table, text_table

CHECK_SCALE = 0.5  # check() draws half the grader's cases: under a second the first time (bench --first-check)


@dataclass(frozen=True)
class CheckReport:
    """What check() returns: a table in Jupyter, plain text anywhere else."""

    grade: Grade | None = None  # None when `problem` says why nothing ran
    problem: str = ""
    note: str = ""  # said once above the table
    replay: str = ""  # the terminal command that shows this very table again

    @property
    def score(self) -> int:
        return self.grade.score if self.grade else 0

    @property
    def passed(self) -> bool:
        return self.grade is not None and self.grade.score == self.grade.max_score

    def __repr__(self) -> str:
        if self.problem or self.grade is None:
            return self.problem
        return "\n".join(filter(None, (self.note, text_table(self.grade), self._replay_line())))

    def _repr_html_(self) -> str:
        if self.problem or self.grade is None:
            return f"<p>{html.escape(self.problem)}</p>"
        note = f"<p><i>{html.escape(self.note)}</i></p>" if self.note else ""
        replay = f"<p>{html.escape(self._replay_line())}</p>" if self._replay_line() else ""
        return note + html_table(self.grade) + replay

    def _replay_line(self) -> str:
        return f"From a terminal: {self.replay}" if self.replay and not self.passed else ""


def check(stage: int, path: str | Submission | None = None, seed: int = 0) -> CheckReport:
    """Run stage `stage`'s checks on tools.py (None: the one `import agtool.tools` would load, read afresh),
    in this process, and return a table of the results; nothing here raises for a student's mistake."""
    if stage not in CHECKLISTS:
        return CheckReport(problem=f"check(stage): stage is {stage!r}; use one of {', '.join(map(str, CHECKLISTS))}")
    given = path.shown if isinstance(path, Submission) else path
    replay = check_command(stage, given) if seed == 0 else ""  # the command has no --seed: it checks as check(N) does
    path = path or student_module_path()
    if not path:
        return CheckReport(problem="check(): no agtool/tools.py found; pass path='.../tools.py'")
    try:
        submission = path if isinstance(path, Submission) else read_submission(path)
    except NotASubmission as refusal:
        return CheckReport(problem=f"check(): {refusal}")
    if oracle_access.present():
        return CheckReport(
            grade(submission, LocalSession, seed=seed, stages=(stage,), scale=CHECK_SCALE), replay=replay
        )
    if not public.FILE.exists():
        return CheckReport(problem=f"check(): {public.FILE} is missing; get the kit again")
    graded = _public_grade(submission, stage)
    causes = earlier_causes(submission, stage) if graded.score < graded.max_score else ""
    return CheckReport(graded, note=" ".join(filter(None, (public_note(stage), causes))), replay=replay)


def _public_grade(submission: Submission, stage: int) -> Grade:
    """One stage judged on the kit's public cases, on the student's own earlier stages."""
    return grade(submission, LocalSession, stages=(stage,), public=public.load(stages=(stage,)))


def earlier_causes(submission: Submission, stage: int) -> str:
    """In the kit, where a failure of `stage` may come from: each earlier stage (2 up to it) that fails its own
    public cases; "" when they all pass. (The grade runs trusted earlier stages.)"""
    said = []
    for earlier in range(2, stage):
        failed = [result.check.label for result in _public_grade(submission, earlier).results if not result.passed]
        if failed:
            said.append(f"stage {earlier}'s {STAGES[earlier].writes} fails {', '.join(failed)}")
    if not said:
        return ""
    return (
        f"Stage {stage} runs your earlier stages, and {'; '.join(said)} on its own cases: a failure below may "
        f"be {'that' if len(said) == 1 else 'those'}, not stage {stage}'s. Fix the earlier stage first (check(N))."
    )


def public_note(stage: int) -> str:
    """What a kit's table is judged on, said once."""
    below = {1: "", 2: "your own stage 1"}.get(stage, f"your own stages 1 to {stage - 1}")
    earlier = f" Stage {stage} runs on {below}: a mistake there can show up here." if below else ""
    return (
        f"Judged on the kit's public cases: fixed inputs with a correct module's answers.{earlier} "
        "Your grade uses other, hidden random inputs."
    )


def student_module_path() -> str | None:
    """The file `import agtool.tools` would load, without importing it."""
    try:
        spec = importlib.util.find_spec("agtool.tools")
    except ImportError:
        return None
    return spec.origin if spec else None


def summary(reports: dict) -> str:
    """One line for a CheckReport per stage."""
    passed = [stage for stage, report in reports.items() if report.passed]
    stages = ", ".join(
        f"{stage} {'✓' if report.passed else '✗'} {_points(report)}" for stage, report in reports.items()
    )
    line = f"{len(passed)} of {len(reports)} stages pass ({stages})"
    failing = [stage for stage in reports if stage not in passed]
    return line + (f"; see why: {check_command(failing[0])}" if failing else "")


def _points(report) -> str:
    return f"{report.grade.score}/{report.grade.max_score}" if report.grade else "not run"


def main() -> int:
    reports = {stage: check(stage) for stage in CHECKLISTS}
    print(summary(reports))
    return 0 if all(report.passed for report in reports.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
