"""Validity, measured both ways, with modules written without the reference.

Modules written by helpers who saw only the student kit (tests/submissions/beginner/README.md):

- every module in tests/submissions/correct/ scores 100, under three seeds: no correct choice
  where the kit is silent costs a point;
- every beginner module with all its fixes applied (tests/submissions/beginner/table.py) scores 100;
- every listed bug, left alone in its module (every other fix applied), costs points in its own
  stage and in no other.

In-process, with LocalSession (the trusted earlier stages stand in, as in the sandbox). The KNOWN
GAPS below are the cases that fail today: the grader misses a real bug, or takes points for a
correct choice. Each is a strict xfail, so the suite stays green and a gap fails loudly once
the checks close it: then delete its line. The list is the to-do for the checks.

Time: 97 grades (6 correct modules under 3 seeds, 14 fixed modules, 59 bugs), each of all six
stages, so that a point lost in another stage shows: 16 s for the file with -n 2 on this 2-core
machine (issue 33's count). A grade is a third of a second or so.
"""

import runpy
from pathlib import Path

import pytest

from grader.kit.grading import STAGE_POINTS, Grade, grade
from grader.kit.local import LocalSession

pytestmark = pytest.mark.grader

SUBMISSIONS = Path(__file__).resolve().parents[1] / "submissions"
CORRECT = sorted(path.name for path in (SUBMISSIONS / "correct").glob("*.py"))
BEGINNER = SUBMISSIONS / "beginner"
BUGS = runpy.run_path(str(BEGINNER / "table.py"))["BUGS"]
SEEDS = (0, 1, 2)  # a correct module, under each
SEED = 0  # a beginner module, fixed or with one bug left

# ── KNOWN GAPS: what the checks get wrong today ──────────────────────────────
# A correct module that loses points: module -> which check, and why the choice is right.
PENALISED: dict[str, str] = {}
# A real bug the grade misses, or punishes elsewhere: (module, words of its `what`) -> which check should see it.
MISSED: dict[tuple[str, str], str] = {}


def pairs(bug) -> list[tuple[str, str]]:
    olds = (bug.old,) if isinstance(bug.old, str) else bug.old
    news = (bug.new,) if isinstance(bug.new, str) else bug.new
    assert len(olds) == len(news), bug.what
    return list(zip(olds, news, strict=True))


def fixed(module: str, folder: Path, leave: int | None = None) -> Path:
    """The beginner module with every fix of the table applied but the one at index `leave`."""
    source = (BEGINNER / module).read_text()
    for index, bug in enumerate(BUGS[module]):
        if index != leave:
            for old, new in pairs(bug):
                assert source.count(old) == 1, f"{module}: {old!r} is not found once; update table.py"
                source = source.replace(old, new)
    path = folder / module
    path.write_text(source)
    return path


def lost(result: Grade) -> dict[int, int]:
    scores = result.stage_scores()
    return {stage: STAGE_POINTS[stage] - scores[stage] for stage in scores if scores[stage] != STAGE_POINTS[stage]}


def failures(result: Grade) -> str:
    return "\n".join(f"{r.check.label} {r.message} {r.mismatch}" for r in result.results if not r.passed)


def gap_of(module: str, what: str) -> str | None:
    hits = [reason for (name, words), reason in MISSED.items() if name == module and words in what]
    assert len(hits) <= 1, f"{module}: two KNOWN GAPS name one bug"
    return hits[0] if hits else None


def xfail_if(reason: str | None) -> list:
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


# ── the corpus is what it says ───────────────────────────────────────────────


def test_the_table_lists_every_beginner_module_and_every_known_gap_names_one_bug():
    assert sorted(BUGS) == sorted(path.name for path in BEGINNER.glob("*.py") if path.name != "table.py")
    for module, words in MISSED:
        assert sum(words in bug.what for bug in BUGS[module]) == 1, (module, words)
    assert set(PENALISED) <= set(CORRECT)


@pytest.mark.parametrize("module", sorted(BUGS))
def test_every_fix_replaces_text_found_once_in_its_module(module):
    source = (BEGINNER / module).read_text()
    for bug in BUGS[module]:
        assert bug.stage in STAGE_POINTS, bug.what
        for old, new in pairs(bug):
            assert source.count(old) == 1, f"{old!r} occurs {source.count(old)} times"
            assert old != new


# ── correct modules score 100 ────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("module", "seed"),
    [pytest.param(module, seed, marks=xfail_if(PENALISED.get(module))) for module in CORRECT for seed in SEEDS],
)
def test_a_module_written_from_the_kit_alone_gets_full_marks(module, seed):
    result = grade(str(SUBMISSIONS / "correct" / module), LocalSession, seed=seed)
    assert result.score == 100, failures(result)


@pytest.mark.parametrize("module", sorted(BUGS))
def test_a_beginner_module_with_all_its_fixes_gets_full_marks(module, tmp_path):
    result = grade(str(fixed(module, tmp_path)), LocalSession, seed=SEED)
    assert result.score == 100, failures(result)


# ── each bug costs points in its own stage, and nothing else does ────────────


@pytest.mark.parametrize(
    ("module", "index"),
    [
        pytest.param(
            module,
            index,
            id=f"{module}-{index}-stage{bug.stage}",
            marks=[getattr(pytest.mark, f"stage{bug.stage}"), *xfail_if(gap_of(module, bug.what))],
        )
        for module, bugs in BUGS.items()
        for index, bug in enumerate(bugs)
    ],
)
def test_a_bug_left_alone_costs_points_in_its_own_stage_only(module, index, tmp_path):
    bug = BUGS[module][index]
    result = grade(str(fixed(module, tmp_path, leave=index)), LocalSession, seed=SEED)
    assert list(lost(result)) == [bug.stage], f"{bug.what}\n{failures(result)}"
