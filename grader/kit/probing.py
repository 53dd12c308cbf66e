"""Checks, and running one against a session.

A check is a function whose docstring is the title a student sees (then its hint) and which
returns the Hypothesis strategy of its cases; `Checklist.check` registers it. Judging comes in
two halves, so that the kit can judge without the oracle: expect (case -> what a correct module
gives, from grader/instructor/oracle.py) and compare (case, expected, observation -> Mismatch or
None). `run_check` sends a check's fixed cases, then its seeded random ones; on the first mismatch
Hypothesis shrinks it, capped by a count of cases (not time), so the result is reproducible.
`run_public` judges the kit's stored public cases instead (grader/kit/public.py).
"""

import contextlib
import dataclasses
import functools
import inspect
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import hypothesis
from hypothesis import HealthCheck, Phase, Verbosity
from hypothesis import strategies as st

from agtool.rules import RULES, Rule
from grader.kit.errors import SessionDied
from grader.kit.pasteable import Setting, pasteable
from grader.kit.smaller import smallest as cut_down

if TYPE_CHECKING:  # a type only: importing session here (it imports trusted, the oracle, the checks) is a cycle
    from grader.kit.boundary.exchange import Session

SHRINK_CASES = 100  # cases tried after the first failure, at most


def _draws_from_the_seed_alone() -> None:
    """Keep the literal constants of the process's own modules out of Hypothesis's draws.

    Hypothesis now and then draws a constant found in the source of a module loaded from outside
    site-packages and the standard library, so a seed's draws would depend on what the process had
    imported (the student's module in a notebook, the order a test run graded its files). There is
    no public setting for it, so its private collector is replaced by one that finds nothing
    (tests/grader/test_grader_core.py shows a new module changes no draw).
    """
    from hypothesis.internal.conjecture import providers

    if not hasattr(providers, "_get_local_constants"):  # an older Hypothesis (a student's, say): none drawn
        return
    nothing = providers.Constants()
    providers._get_local_constants = lambda: nothing
    providers.CONSTANTS_CACHE.cache.clear()


_draws_from_the_seed_alone()


@dataclass(frozen=True)
class Mismatch:
    """One wrong answer: the call as Python, what a correct module gives, what came back. A judge
    leaves `setting` None for the whole of the case's setting; `written` fills in the code to paste."""

    call: str
    expected: str
    got: str
    hint: str = ""  # the hint for what was observed; "" keeps the check's own
    setting: Setting | str | None = None  # the part of the setting this call needs; once written, code
    raised: tuple[str, ...] = ()  # the kinds of exception the case's calls raised, by name, sorted
    exception: str = ""  # the kind of exception the failing call raised (exception_name); "": it returned
    problem: str = ""  # what the judge found wrong, in words, where got says it in brackets
    # The index in the request's calls of the first call `call` shows (the failing one, or the first of a
    # sequence shown with it). None: `call` shows none of them (a name read).
    at: int | None = None
    pasteable: bool = False  # the setting and call, as written, run pasted alone

    @property
    def shown(self) -> str:
        """The failing input as its reader reads it: the setting, then the call."""
        setting = self.setting.text if isinstance(self.setting, Setting) else self.setting
        return "\n".join(part for part in (setting, self.call) if part)


@dataclass(frozen=True)
class Check:
    stage: int
    number: int
    title: str
    points: int
    hint: str
    cases: st.SearchStrategy
    examples: int
    request: Callable[[Any], dict]
    expect: Callable[[Any], Any]  # case -> JSON data, from the oracle
    compare: Callable[[Any, Any, dict], Mismatch | None]  # case, expected, observation; no oracle
    show: Callable[[Any], Setting]
    name: str = ""  # the function that registered it: what other checks name in `needs`
    needs: tuple[str, ...] = ()
    always: tuple = ()  # cases tried under every seed, before the drawn ones: the lesson's incidents

    @property
    def label(self) -> str:
        return f"{self.stage}.{self.number}"

    @property
    def rule(self) -> Rule:
        """What this check judges, as agtool/rules.py states it."""
        return RULES[self.label]

    def judge(self, case: Any, observation: dict) -> Mismatch | None:
        return self.compare(case, self.expect(case), observation)


def without_oracle(judge: Callable[[Any, dict], Mismatch | None]) -> dict:
    """expect and compare for a judge that needs nothing from the oracle (it reads the answer alone)."""
    return {"expect": lambda case: None, "compare": lambda case, expected, observation: judge(case, observation)}


@dataclass
class Checklist:
    """One stage's checks, and how its cases become requests and are judged."""

    number: int
    request: Callable[[Any], dict]
    show: Callable[[Any], Setting]
    expect: Callable[[Any], Any]
    compare: Callable[[Any, Any, dict], Mismatch | None]
    checks: list[Check] = field(default_factory=list)

    def check(
        self,
        number: int,
        points: int,
        examples: int = 12,
        needs: tuple[str, ...] = (),
        always: tuple = (),
        request: Callable | None = None,
        expect: Callable | None = None,
        compare: Callable | None = None,
        show: Callable | None = None,
    ):
        """Register the decorated function: it returns the strategy of cases; its docstring's first
        line is the title, the rest the hint. request, expect, compare and show default to the stage's.
        `number` is written out, never counted, so a replay label ("2.3") stays when checks move.
        examples=0: the fixed cases (always) are the check's whole table."""

        def register(cases: Callable[[], st.SearchStrategy]):
            doc = inspect.getdoc(cases)
            if not doc:
                raise ValueError(f"check {self.number}.{number} has no docstring: its first line is the title shown")
            title, _, hint = doc.partition("\n\n")
            if f"{self.number}.{number}" not in RULES:
                raise ValueError(f"check {self.number}.{number} judges no rule: write it in agtool/rules.py first")
            if examples == 0 and not always:
                raise ValueError(f"check {self.number}.{number} has no cases: examples=0 needs always=")
            if any(check.number == number for check in self.checks):
                raise ValueError(f"stage {self.number}: two checks numbered {number}")
            unknown = [need for need in needs if need not in {check.name for check in self.checks}]
            if unknown:
                raise ValueError(f"check {self.number}.{number} needs {unknown[0]!r}, no earlier check of its stage")
            self.checks.append(
                Check(
                    stage=self.number,
                    number=number,
                    name=cases.__name__,
                    title=title,
                    hint=" ".join(hint.split()),
                    points=points,
                    cases=cases(),
                    examples=examples,
                    request=request or self.request,
                    expect=expect or self.expect,
                    compare=compare or self.compare,
                    show=show or self.show,
                    needs=needs,
                    always=always,
                )
            )
            return cases

        return register


@dataclass(frozen=True)
class CheckResult:
    check: Check
    passed: bool
    message: str  # one line: "passed on 120 inputs", "not implemented yet: ..."
    mismatch: Mismatch | None = None
    died: bool = False  # the session died: the stage's later checks cannot run
    case: Any = None  # the case of the failure, as data: what grader/kit/smaller.py cuts down

    @property
    def score(self) -> int:
        return self.check.points if self.passed else 0


class _Failed(AssertionError):
    """A wrong answer: Hypothesis shrinks the case."""


class _Stop(BaseException):
    """Ends a Hypothesis run at once (Hypothesis lets BaseExceptions through): nothing more to learn."""


@dataclass
class _Probing:
    """What one run of a check has learnt so far; its verdict is the check's result."""

    mismatch: Mismatch | None = None  # the last failing case recorded (the smallest found), as the judge wrote it
    case: Any = None  # its case
    observation: dict | None = None  # and what came back for it
    stop: str | None = None  # why no case can be judged any more (died, not implemented)
    died: bool = False
    inputs: int = 0  # calls judged, what "passed on N inputs" counts
    after: int = 0  # cases tried since the first failure: shrinking's budget

    def probe(self, ask: Callable[[dict], dict], check: Check, case: Any, judge: Callable) -> bool:
        """Ask the case's request and judge the answer (judge(observation)); True when it failed or no
        case can be judged any more. The last failure recorded is the smallest: a passing case keeps it."""
        try:
            observation = ask(check.request(case))
        except SessionDied as died:
            self.stop, self.died = died.reason, True
            return True
        blocked = blocker(observation)
        if blocked:
            self.stop = blocked
            return True
        self.inputs += len(observation["results"])
        failure = wrong(observation, functools.partial(judge, observation))
        if failure is not None:
            self.mismatch, self.case, self.observation = failure, case, observation
        return failure is not None

    def verdict(self, check: Check) -> CheckResult:
        if self.stop is not None:
            return CheckResult(check, False, self.stop, died=self.died)
        if self.mismatch is not None:  # written out once, for the smallest case alone
            assert self.observation is not None
            failure = written(check, self.case, self.observation, self.mismatch)
            return CheckResult(hinted(check, failure), False, "found a wrong answer", failure, case=self.case)
        return CheckResult(check, True, f"passed on {self.inputs} inputs")


def run_check(check: Check, session: "Session", seed: int, scale: float = 1.0) -> CheckResult:
    """Probe one check with Hypothesis, seeded, and judge every observation in this process."""
    found = _Probing()
    tape = _Tape(session)  # the session, or what it already answered (see _drawn)

    def try_case(case: Any) -> None:
        if found.mismatch is not None:
            found.after += 1
            if found.after > SHRINK_CASES:
                raise _Stop
        if found.probe(tape.request, check, case, functools.partial(check.judge, case)):
            raise _Stop if found.stop is not None else _Failed

    # The fixed cases first, each once, in the written order, outside Hypothesis: they are the same
    # under every seed and are never shrunk, and as @example each cost Hypothesis a pretty-printed
    # repr (about a third of grading time). The first one that fails is the failure shown.
    try:
        for case in check.always:
            try_case(case)
        _drawn(check, seed, scale, try_case, found, tape)
    except (_Stop, _Failed):
        pass
    except ReplayDiverged:  # the grader's bug, whatever was found before it
        raise
    except Exception:  # Flaky (an answer that changes between runs), or Hypothesis gave up shrinking
        if found.mismatch is None and found.stop is None:
            raise
    return found.verdict(check)


# (label, strategy, seed, scale) -> every case Hypothesis draws for the check, in order, as a passing module has them.
# What it pays: 0.25 to 0.51 s a submission with it, 0.34 to 0.94 s with each submission drawing its own,
# bench 1/37 to 1/73 against 1/20 to 1/40; one process grading the reference, 0.58 s replayed against
# 1.24 s drawn (2026-12-05, 2 cores under load 2 to 4).
_PASSED_DRAWS: dict[tuple[str, st.SearchStrategy, int, float], tuple[Any, ...]] = {}


class ReplayDiverged(RuntimeError):
    """The cases replayed to this submission are not the ones Hypothesis draws: a grader bug, never a score."""


class _Diverged(BaseException):
    """Hypothesis asked another request than the one replayed (a BaseException: Hypothesis lets it through)."""


class _Tape:
    """The session as try_case sees it: each request goes to the child, unless it answered it already
    (`play`); while `noted` is a list, each (request, observation) is noted there."""

    def __init__(self, session: "Session"):
        self.session = session
        self.noted: list[tuple[dict, dict]] | None = None
        self.playing: list[tuple[dict, dict]] = []  # what is answered without the child, the next one last

    def request(self, req: dict) -> dict:
        if self.playing:
            asked, observation = self.playing[-1]
            if repr(asked) != repr(req):  # the child's JSON spelling, as far as it goes (repr: NaN != NaN)
                raise _Diverged
            self.playing.pop()
            return observation
        observation = self.session.request(req)
        if self.noted is not None:
            self.noted.append((req, observation))
        return observation


def _drawn(
    check: Check, seed: int, scale: float, try_case: Callable[[Any], None], found: _Probing, tape: _Tape
) -> None:
    """The check's random cases, drawn once a process (cases_of: until an answer is wrong the draws depend on
    the check, seed and scale alone), each probed in turn. Once one fails, Hypothesis runs from its start to
    shrink, and what the child already answered comes from the tape: the child never sees a case twice, so a
    module that remembers what it was asked gets the same verdict whatever this process drew before."""
    inputs, noted = found.inputs, list[tuple[dict, dict]]()
    tape.noted = noted
    try:
        for case in cases_of(check, seed, scale):
            try_case(case)
        return
    except _Failed:
        found.mismatch, found.after, found.inputs = None, 0, inputs
    finally:
        tape.noted = None
    tape.playing = noted[::-1]
    try:
        _draw(check, seed, scale, try_case)
    finally:  # whatever ends Hypothesis's run, _Diverged included
        unasked, tape.playing = tape.playing, []
        if unasked:
            raise ReplayDiverged(
                f"check {check.label}: the cases replayed are not the ones Hypothesis draws at seed {seed} "
                "(a grader bug; `grade` grades this file alone)"
            ) from None


def cases_of(check: Check, seed: int, scale: float = 1.0) -> tuple[Any, ...]:
    """Every case Hypothesis draws for the check at the seed, in order, for a module that passes them all:
    drawn once a process (_PASSED_DRAWS)."""
    key = (check.label, check.cases, seed, scale)
    if key not in _PASSED_DRAWS:
        drawn: list[Any] = []

        def passes(case: Any) -> None:  # a function of Python's: Hypothesis reads its code
            drawn.append(case)

        _draw(check, seed, scale, passes)
        _PASSED_DRAWS[key] = tuple(drawn)
    return _PASSED_DRAWS[key]


def draw_ahead(checks: list[Check], seed: int) -> None:
    """Draw every check's random cases now: a process that forks graders (class's pool) calls this first,
    so that its workers inherit the draws instead of each drawing them again."""
    for check in checks:
        cases_of(check, seed)


def _draw(check: Check, seed: int, scale: float, try_case: Callable[[Any], None]) -> None:
    """Hypothesis's cases of the check, seeded, shrunk after the first failure (try_case counts them)."""
    if not check.examples:  # the fixed cases are the check's whole table
        return
    test = hypothesis.settings(
        max_examples=max(1, round(check.examples * scale)),
        database=None,
        deadline=None,
        derandomize=False,
        phases=[Phase.generate, Phase.shrink],
        report_multiple_bugs=False,
        print_blob=False,
        verbosity=Verbosity.quiet,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
    )(hypothesis.seed(case_seed(seed, check))(hypothesis.given(check.cases)(try_case)))
    test()


def run_public(check: Check, session: "Session", cases: list[tuple[Any, Any]]) -> CheckResult:
    """Judge fixed cases, each with its stored expected data, in order; the first wrong answer is the one shown."""
    found = _Probing()
    for case, expected in cases:
        if found.probe(session.request, check, case, functools.partial(check.compare, case, expected)):
            break
    return found.verdict(check)


def hinted(check: Check, failure: Mismatch) -> Check:
    """The check as the student reads it for this failure: its hint is the one chosen from what was observed."""
    return dataclasses.replace(check, hint=failure.hint) if failure.hint else check


CHOKED = "(an answer the grader could not read)"  # a Mismatch's call when the judge itself raised


def judged(check: Check, case: Any, observation: dict, judge: Callable[[], Mismatch | None]) -> Mismatch | None:
    """The failure the student reads, or None when the answer is right."""
    mismatch = wrong(observation, judge)
    return None if mismatch is None else written(check, case, observation, mismatch)


def wrong(observation: dict, judge: Callable[[], Mismatch | None]) -> Mismatch | None:
    """What the judge found wrong, as the judge wrote it (not yet as code to paste), or None when it is right."""
    try:
        mismatch = judge()
    except Exception as error:  # an answer so odd the judge choked on it: still the answer's fault
        mismatch = Mismatch(CHOKED, "an answer of the shape the spec gives", f"{observation!r:.300} ({error!r:.100})")
    return None if mismatch is None else dataclasses.replace(mismatch, raised=raised_in(observation))


def written(check: Check, case: Any, observation: dict, mismatch: Mismatch) -> Mismatch:
    """The failure as the student reads it: its setting and call written out as code they can paste."""
    drawn = check.show(case) if mismatch.setting is None else mismatch.setting
    assert isinstance(drawn, Setting), f"check {check.label}: a setting written out already"
    code = None
    with contextlib.suppress(Exception):  # a grader bug in writing it out: shown as the check wrote it, not a crash
        code = pasteable(check.request(case), observation, drawn, mismatch.call, mismatch.at)
    if code is None:  # the reader is told it does not run pasted alone (report.failing_input)
        return dataclasses.replace(mismatch, setting=drawn.text)
    setting, call = code
    return dataclasses.replace(mismatch, setting=setting, call=call, pasteable=True)


def raised_in(observation: dict) -> tuple[str, ...]:
    """The kinds of exception a module raised in a request's calls, each once: a case cut down to fewer
    calls raises fewer of them, for the same cause."""
    results = [result for result in observation.get("results", ()) if type(result) is dict]
    return tuple(sorted({exception_name(result) for result in results if type(result.get("raised")) is str}))


def exception_name(result: dict) -> str:
    """The kind of exception one call raised ("KeyError" of {"raised": "KeyError: 'x'"}), or "" when it raised none."""
    raised = result.get("raised")
    return raised.partition(":")[0] if type(raised) is str else ""


def shrunk(results: list[CheckResult], session: "Session") -> list[CheckResult]:
    """The stage's results, each failure's case cut down to the smallest that fails alike (grader/kit/smaller.py):
    with the same hint and the same exceptions, the same cause in fewer lines. Run once the stage's checks
    have all run: a smaller case that kills the session ends the cutting, never a check."""
    alive = True

    def smaller(result: CheckResult) -> CheckResult:
        nonlocal alive
        check, failure = result.check, result.mismatch
        if not alive or failure is None or result.case is None:
            return result

        def fails_alike(case: Any) -> tuple[Mismatch, dict] | None:
            nonlocal alive
            try:
                want = check.expect(case)
            except Exception:  # a case the oracle cannot answer is no case of the lesson's
                return None
            try:
                observation = session.request(check.request(case))
            except SessionDied:
                alive = False
                raise _Stop from None
            if blocker(observation):
                return None
            found = wrong(observation, functools.partial(check.compare, case, want, observation))
            if found is None or (found.call == CHOKED) != (failure.call == CHOKED):
                return None
            return (found, observation) if (found.hint, found.raised) == (failure.hint, failure.raised) else None

        try:
            case, smallest = cut_down(result.case, check.request, fails_alike)
        except _Stop:
            return result
        if smallest is None:
            return result
        try:  # written out once, for the smallest case alone
            shown = written(check, case, smallest[1], smallest[0])
        except Exception:  # a case the check cannot write out: the larger one, as it was shown
            return result
        return dataclasses.replace(result, mismatch=shown, case=case)

    return [smaller(result) for result in results]


def case_seed(seed: int, check: Check) -> int:
    """Each check its own stream of draws, fixed by the seed: --only replays exactly that check."""
    return zlib.crc32(f"{seed}/{check.label}".encode())


NOT_IMPORTED = "tools.py could not be imported: "  # a blocker's start: the file is broken (Grade.broken)


def blocker(observation: dict) -> str | None:
    """Why no case of this check can be judged (cannot import, not implemented), or None."""
    if observation.get("error") == "import":
        return f"{NOT_IMPORTED}{observation['message']}"
    if "error" in observation:
        return f"the grader could not run tools.py: {observation['message']}"
    for result in observation["results"]:
        if "not_implemented" in result:
            return f"not implemented yet ({result['not_implemented']})"
    return None
