"""The same module gets the same verdict from every check, whatever the seed.

A student who hands in the same file twice must get the same grade: for every rule
the spec states, the check that owns it runs fixed cases that expose a violation
of that rule under any seed, and the random draws only add to them. Judged on the
reference, every module of tests/submissions/correct/ and every beginner module (tests/beginners.py)
(the beginners' with their real bugs in: a clamp that repairs every out-of-range arg
once lost 6.3 at some seeds only) and every broken submission (in-process, as
tests/grader/test_grader_core.py does), and on the hostile submissions in the real sandbox.

A broken submission differs from the reference in one stage. Every other stage is
probed with the grader's trusted earlier stages standing in, so there it runs the
reference's very code and draws, whose ten seeds are judged above (that it loses
nothing there is tests/grader/test_grader_core.py's to show): its own stage is graded under
all ten.
"""

import functools
import runpy
from pathlib import Path

import pytest

from grader.instructor.sandbox.session import Limits, SandboxSession
from grader.kit.checks import CHECKLISTS
from grader.kit.grading import grade
from tests.beginners import BUGS, source
from tests.mutation import REFERENCE, verdicts
from tests.sandboxing import SLOW_ATTACK_SECONDS

pytestmark = pytest.mark.grader

SUBMISSIONS = Path(__file__).resolve().parents[1] / "submissions"
BROKEN = runpy.run_path(str(SUBMISSIONS / "broken" / "table.py"))["BROKEN"]
SEEDS = tuple(range(10))


def broken(name: str, folder: Path) -> Path:
    old, new, _ = BROKEN[name]
    path = folder / name
    path.write_text(REFERENCE.read_text().replace(old, new))
    return path


# The reference, and every module written without it: the correct ones, and the beginners' as handed in,
# each real bug still in it (tests/submissions/beginner/table.py): a bug's check fails at every seed or none.
# name -> the module's text (a one-bug module of the beginners' is made, not read: tests/beginners.py).
WHOLE: dict[str, str] = {
    "reference": REFERENCE.read_text(),
    **{f"correct/{path.stem}": path.read_text() for path in sorted((SUBMISSIONS / "correct").glob("*.py"))},
    **{f"beginner/{Path(module).stem}": source(module) for module in BUGS},
}


@functools.cache
def reference_verdicts(seed: int) -> dict[str, bool]:
    return verdicts(REFERENCE, seed)


@pytest.mark.parametrize("name", sorted(WHOLE))
def test_every_seed_gives_the_same_verdicts(name, tmp_path):
    path = tmp_path / f"{Path(name).name}.py"
    path.write_text(WHOLE[name])
    first = verdicts(path, SEEDS[0])
    for seed in SEEDS[1:]:
        assert verdicts(path, seed) == first, f"seed {seed} against seed {SEEDS[0]}"


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_submission_gets_the_same_verdicts_under_every_seed(name, tmp_path):
    path = broken(name, tmp_path)
    stage = BROKEN[name][2]
    own = verdicts(path, SEEDS[0], stages=(stage,))
    assert not all(own.values()), "its own stage must catch it"
    for seed in SEEDS[1:]:
        assert verdicts(path, seed, stages=(stage,)) == own, f"stage {stage}, seed {seed} against seed {SEEDS[0]}"


HOSTILE = sorted(path.stem for path in (SUBMISSIONS / "hostile").glob("*.py"))


@pytest.mark.parametrize("twist", HOSTILE)
def test_a_hostile_submission_gets_the_same_verdicts_under_every_seed(twist, tmp_path):
    """In the real sandbox: whole under one seed; the stages where its twist shows (its verdicts there are
    not the reference's) under all ten. Elsewhere it gave the reference's verdicts: the reference's code."""
    path = tmp_path / "tools.py"
    path.write_text(REFERENCE.read_text() + "\n\n" + (SUBMISSIONS / "hostile" / f"{twist}.py").read_text())
    # A hang costs its check the answer deadline, ten times over: 0.5 s. An honest answer takes
    # milliseconds: the slowest of 852 (the reference under three seeds, three CPU hogs on two cores) took 48.
    deadline = SLOW_ATTACK_SECONDS.get(twist, 0.5)
    sandbox = functools.partial(SandboxSession, limits=Limits(answer_seconds=deadline, stage_seconds=60))

    def seen(seed, stages=tuple(CHECKLISTS)):
        graded = grade(str(path), sandbox, seed=seed, stages=stages)
        return {result.check.label: result.passed for result in graded.results}

    whole = seen(SEEDS[0])
    reference = reference_verdicts(SEEDS[0])
    shown = tuple(sorted({int(label.split(".")[0]) for label in whole if whole[label] != reference[label]}))
    own = {label: passed for label, passed in whole.items() if int(label.split(".")[0]) in shown}
    for seed in SEEDS[1:] if shown else ():
        assert seen(seed, shown) == own, f"stages {shown}, seed {seed} against seed {SEEDS[0]}"
