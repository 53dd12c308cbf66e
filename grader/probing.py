"""Checks, and running one with Hypothesis against a session.

A check is a function whose docstring is the title a student sees and which
returns the Hypothesis strategy of its cases; `Stage.check` registers it with
its points, hint and the stage's way to probe (case -> request), judge (case,
observation -> Mismatch or None, in the parent, against grader/oracle.py) and
show (case -> the setting as Python).

`run_check` draws cases seeded (same seed, same draws), sends each to the
session, and on the first mismatch lets Hypothesis shrink it; the last failing
case it records is the smallest one found. Shrinking is capped by a count of
cases, not by time, so the result stays reproducible.
"""

import inspect
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

import hypothesis
from hypothesis import HealthCheck, Phase, Verbosity, strategies as st

from grader.errors import SessionDied
from grader.session import Session

SHRINK_CASES = 100   # cases tried after the first failure, at most


@dataclass(frozen=True)
class Mismatch:
    """One wrong answer: the call as Python, what a correct module gives, what came back."""
    call: str
    expected: str
    got: str


@dataclass(frozen=True)
class Check:
    stage: int
    number: int
    title: str
    points: int
    hint: str
    cases: st.SearchStrategy
    examples: int
    probe: Callable[[Any], dict]
    judge: Callable[[Any, dict], Mismatch | None]
    show: Callable[[Any], str]
    needs: tuple[int, ...] = ()
    always: tuple = ()          # cases tried under every seed, before the drawn ones: the lesson's incidents

    @property
    def label(self) -> str:
        return f"{self.stage}.{self.number}"


@dataclass
class Stage:
    """One stage's checks, and how its cases become requests and are judged."""
    number: int
    probe: Callable[[Any], dict]
    judge: Callable[[Any, dict], Mismatch | None]
    show: Callable[[Any], str]
    checks: list[Check] = field(default_factory=list)

    def check(self, points: int, examples: int = 12, needs: tuple[int, ...] = (), always: tuple = (),
              probe: Callable | None = None, judge: Callable | None = None, show: Callable | None = None):
        """Register the decorated function: it returns the strategy of cases; its docstring's first
        line is the title a student sees, the rest the hint that names the lesson's pitfall.

        probe, judge and show default to the stage's own.
        """
        def register(cases: Callable[[], st.SearchStrategy]):
            title, _, hint = inspect.getdoc(cases).partition("\n\n")
            self.checks.append(Check(
                stage=self.number, number=len(self.checks) + 1, title=title, hint=" ".join(hint.split()),
                points=points, cases=cases(), examples=examples,
                probe=probe or self.probe, judge=judge or self.judge, show=show or self.show,
                needs=needs, always=always))
            return cases
        return register


@dataclass(frozen=True)
class Failure:
    """The smallest failing case found, as the student will read it."""
    setting: str
    call: str
    expected: str
    got: str


@dataclass(frozen=True)
class CheckResult:
    check: Check
    passed: bool
    message: str                 # one line: "passed on 120 inputs", "not implemented yet: ..."
    failure: Failure | None = None
    died: bool = False           # the session died: the stage's later checks cannot run

    @property
    def score(self) -> int:
        return self.check.points if self.passed else 0


class _Failed(AssertionError):
    """A wrong answer: Hypothesis shrinks the case."""


class _Stop(BaseException):
    """Ends a Hypothesis run at once (Hypothesis lets BaseExceptions through): nothing more to learn."""


_SUPPRESSED = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]


def run_check(check: Check, session: Session, seed: int, scale: float = 1.0) -> CheckResult:
    """Probe one check with Hypothesis, seeded, and judge every observation in this process."""
    found: dict[str, Any] = {"failure": None, "stop": None, "died": False, "inputs": 0, "after": 0}

    def probe_once(case):
        if found["failure"] is not None:
            found["after"] += 1
            if found["after"] > SHRINK_CASES:
                raise _Stop
        try:
            observation = session.request(check.probe(case))
        except SessionDied as died:
            found.update(stop=died.reason, died=True)
            raise _Stop
        blocked = blocker(observation)
        if blocked:
            found["stop"] = blocked
            raise _Stop
        found["inputs"] += len(observation["results"])
        try:
            mismatch = check.judge(case, observation)
        except Exception as error:  # an answer so odd the judge choked on it: still the answer's fault
            mismatch = Mismatch("(an answer the grader could not read)", "an answer of the shape the spec gives",
                                f"{observation!r:.300} ({error!r:.100})")
        if mismatch:
            found["failure"] = Failure(check.show(case), mismatch.call, mismatch.expected, mismatch.got)
            raise _Failed

    test = hypothesis.settings(
        max_examples=max(1, round(check.examples * scale)), database=None, deadline=None,
        derandomize=False, phases=[Phase.explicit, Phase.generate, Phase.shrink],
        report_multiple_bugs=False, print_blob=False, verbosity=Verbosity.quiet,
        suppress_health_check=_SUPPRESSED,
    )(hypothesis.seed(case_seed(seed, check))(
        hypothesis.given(check.cases)(_with_examples(check.always, probe_once))))
    try:
        test()
    except (_Stop, _Failed):
        pass
    except Exception:  # Flaky (an answer that changes between runs), or Hypothesis gave up shrinking
        if found["failure"] is None and found["stop"] is None:
            raise
    if found["stop"] is not None:
        return CheckResult(check, False, found["stop"], died=found["died"])
    if found["failure"] is not None:
        return CheckResult(check, False, "found a wrong answer", found["failure"])
    return CheckResult(check, True, f"passed on {found['inputs']} inputs")


def _with_examples(cases: tuple, test: Callable) -> Callable:
    for case in reversed(cases):   # decorators apply inside out; keep the written order
        test = hypothesis.example(case)(test)
    return test


def case_seed(seed: int, check: Check) -> int:
    """Each check its own stream of draws, fixed by the seed: --only replays exactly that check."""
    return zlib.crc32(f"{seed}/{check.label}".encode())


def blocker(observation: dict) -> str | None:
    """Why no case of this check can be judged (cannot import, not implemented), or None."""
    if observation.get("error") == "import":
        return f"tools.py could not be imported: {observation['message']}"
    if "error" in observation:
        return f"the grader could not run tools.py: {observation['message']}"
    for result in observation["results"]:
        if "not_implemented" in result:
            return f"not implemented yet ({result['not_implemented']})"
    return None
