"""Grading one submission: each stage in its own fresh session, checks in order, scores.

A stage's score depends only on its own functions: while stage N is probed the child runs trusted
versions of the earlier stages (boundary/runner.py). A session that dies (hang, crash, flood) costs
the check it died in and the stage's later checks, never another stage. The submission is read once
(intake.py) and every stage gets those bytes, so what one stage's child does to the file reaches no other.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass

from agtool.syllabus import STAGES
from grader.kit.boundary.exchange import Session, SessionFactory
from grader.kit.checks import CHECKLISTS
from grader.kit.errors import SessionDied
from grader.kit.intake import NotASubmission, Submission, submission_at
from grader.kit.probing import NOT_IMPORTED, Check, CheckResult, run_check, run_public, shrunk

STAGE_POINTS = {number: stage.points for number, stage in STAGES.items()}  # what each stage's checks add up to


@dataclass(frozen=True)
class Grade:
    path: str
    seed: int
    results: list[CheckResult]
    seconds: float

    @property
    def score(self) -> int:
        return sum(result.score for result in self.results)

    @property
    def max_score(self) -> int:
        return sum(result.check.points for result in self.results)

    @property
    def broken(self) -> str | None:
        """Why tools.py does not import at all (a syntax error, an import that raises), or None."""
        if self.results and all(result.message.startswith(NOT_IMPORTED) for result in self.results):
            return self.results[0].message.removeprefix(NOT_IMPORTED)
        return None

    def stage_scores(self) -> dict[int, int]:
        scores: dict[int, int] = {}
        for result in self.results:
            scores[result.check.stage] = scores.get(result.check.stage, 0) + result.score
        return scores


def grade(
    submission: Submission | str,
    session_factory: SessionFactory,
    seed: int = 0,
    only: str | None = None,
    stages: tuple[int, ...] = tuple(CHECKLISTS),
    scale: float = 1.0,
    public: dict | None = None,
) -> Grade:
    """Grade a submission as read (intake.py), or the tools.py at a path, read here once. only="2.3" runs that
    one check; scale < 1 draws fewer cases; public (label -> [(case, expected)], public.py) replaces the draws."""
    started = time.perf_counter()
    read = read_once(submission, seed, only, stages)
    if isinstance(read, Grade):
        return read

    def run(check: Check, session) -> CheckResult:
        if public is not None:
            return run_public(check, session, public[check.label])
        return run_check(check, session, seed, scale)

    results = []
    for number in stages:
        checks = [check for check in CHECKLISTS[number].checks if only in (None, check.label)]
        if checks:
            results += grade_stage(checks, read, session_factory, run, cut=public is None)
    return Grade(read.path, seed, results, time.perf_counter() - started)


def read_once(
    submission: Submission | str, seed: int, only: str | None = None, stages: tuple[int, ...] = tuple(CHECKLISTS)
) -> Submission | Grade:
    """The submission as read (a path is read here, once); for a file that is no submission, its grade."""
    try:
        return submission_at(submission)
    except NotASubmission as why:
        return refused(str(submission), seed, str(why), only, stages)  # a path: a Submission is never refused


def refused(
    path: str, seed: int, why: str, only: str | None = None, stages: tuple[int, ...] = tuple(CHECKLISTS)
) -> Grade:
    """The grade of a file that is no submission (intake.py's refusal): every check not run, saying why."""
    return Grade(path, seed, _unrun(f"not run: {why}", only, stages), 0.0)


def not_graded(path: str, seed: int, why: str) -> Grade:
    """A grade of 0 that says why nothing could be judged: results.json is written all the same."""
    return Grade(path, seed, _unrun(f"not graded: {why}"), 0.0)


def _unrun(message: str, only: str | None = None, stages: tuple[int, ...] = tuple(CHECKLISTS)) -> list[CheckResult]:
    """Every check (of `stages`, or `only` that one) failed with `message`, as when no session could start."""
    return [
        CheckResult(check, False, message, died=True)
        for number in stages
        for check in CHECKLISTS[number].checks
        if only in (None, check.label)
    ]


def grade_stage(
    checks: list[Check],
    submission: Submission,
    session_factory: SessionFactory,
    run: Callable[[Check, Session], CheckResult],
    cut: bool = False,
) -> list[CheckResult]:
    """The stage's checks in order, in one session; with `cut`, each failing case then cut down to the smallest
    that fails alike (probing.shrunk needs the oracle: the kit's stored cases are shown whole)."""
    results: list[CheckResult] = []
    try:
        session = session_factory(submission, checks[0].stage)
    except SessionDied as died:
        return [CheckResult(check, False, f"not run: {died.reason}", died=True) for check in checks]
    try:
        for check in checks:
            done = {result.check.name: result for result in results}
            ended = next((result.message for result in results if result.died), None)
            unmet = [done[need] for need in check.needs if need in done and not done[need].passed]
            if ended:
                result = CheckResult(check, False, f"not run: {ended}")
            elif unmet and unmet[0].mismatch is None:  # blocked (cannot import, not implemented): say why again
                result = CheckResult(check, False, unmet[0].message)
            elif unmet:
                result = CheckResult(check, False, f"not run: needs check {unmet[0].check.label} to pass first")
            else:
                result = run(check, session)
            results.append(result)
        if cut:
            results = shrunk(results, session)
    finally:
        session.close()
    return results
