"""The kit's self-check accepts exactly what the grade accepts, check by check.

In the kit, check(N) judges the public cases on the student's own earlier stages (no trusted ones:
grader/kit/oracle_access.py's bind gives none there); the grade puts the grader's trusted stages in
their place. A reasonable choice an earlier stage allows (an item named by its position, rows.0.qty;
an exception named by a dotted name, builtins.KeyError; a tool name that is no str spelt another way)
then reaches a later stage's reasons in the kit only: each must pass both, and every correct module
must get the same verdict from both, check by check.
"""

import functools
from pathlib import Path

import pytest

from grader.kit import oracle_access, public, selfcheck
from grader.kit.checks import CHECKLISTS
from grader.kit.grading import grade
from grader.kit.local import LocalSession
from tests.mutation import REFERENCE, edited

pytestmark = pytest.mark.grader

SUBMISSIONS = Path(__file__).resolve().parents[1] / "submissions"
CORRECT = sorted((SUBMISSIONS / "correct").glob("*.py"))
# The reference, written in each spelling an earlier stage allows: (old, new) edits of agtool/tools.py.
SPELLINGS = {
    "item by position": (
        'reason = check_fields(spec["items"], element, prefix=f"{prefix}{key}.")',
        'reason = check_fields(spec["items"], element, prefix=f"{prefix}{key}.{item.index(element)}.")',
    ),
    "dotted exception": (
        'return failure(f"tool:raised:{type(error).__name__}")',
        'return failure(f"tool:raised:{type(error).__module__}.{type(error).__qualname__}")',
    ),
    "non-str name spelt its own way": (
        'return failure(f"tool:unknown:{name}")',
        'return failure(f"tool:unknown:{name if isinstance(name, str) else type(name).__name__ + repr(name)}")',
    ),
}


@functools.cache
def kit_cases() -> dict:
    return public.loads(public.release_text())


def kit_verdicts(path: Path, monkeypatch) -> dict[str, bool]:
    """label -> passed, as the kit's check(N) judges each stage: public cases, the student's own earlier stages."""
    with monkeypatch.context() as patch:
        patch.setattr(oracle_access, "bind", lambda module: {})
        found = {}
        for stage in CHECKLISTS:
            graded = grade(str(path), LocalSession, stages=(stage,), public=kit_cases())
            found.update({result.check.label: result.passed for result in graded.results})
    return found


def grade_verdicts(path: Path) -> dict[str, bool]:
    return {result.check.label: result.passed for result in grade(str(path), LocalSession, seed=0).results}


def spelt(name: str, folder: Path) -> Path:
    path = folder / "tools.py"
    path.write_text(edited(f"spelling {name!r}", SPELLINGS[name]))
    return path


@pytest.mark.parametrize("path", [REFERENCE, *CORRECT], ids=lambda path: path.stem)
def test_a_correct_module_gets_the_same_verdict_from_the_kit_and_the_grade(path, monkeypatch):
    kit, graded = kit_verdicts(path, monkeypatch), grade_verdicts(path)
    assert kit == graded
    assert all(graded.values()), [label for label, passed in graded.items() if not passed]


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_every_allowed_spelling_passes_both_the_kit_and_the_grade(name, tmp_path, monkeypatch):
    path = spelt(name, tmp_path)
    kit, graded = kit_verdicts(path, monkeypatch), grade_verdicts(path)
    assert [label for label, passed in graded.items() if not passed] == []
    assert [label for label, passed in kit.items() if not passed] == []


def test_the_kit_names_the_earlier_stage_a_failure_may_come_from(tmp_path, monkeypatch):
    """In the kit, stage 4 runs the student's own check_result: one that passes every value shows as a door
    that passes bad results (4.5). check(4) then names stage 3 and its failing checks; the grade does not need
    to (its trusted stage 3 stands in), and a module whose earlier stages pass gets no such note."""
    path = tmp_path / "tools.py"
    path.write_text(
        edited(
            "check_result passes every dict",
            ('    return check_fields(TOOLS[name]["returns"], value, prefix="")', "    return None"),
        )
    )
    monkeypatch.setattr(oracle_access, "bind", lambda module: {})
    monkeypatch.setattr(oracle_access, "present", lambda: False)
    monkeypatch.setattr(public, "FILE", tmp_path / "tools.py")  # any file: the public cases are loaded below
    monkeypatch.setattr(
        public, "load", lambda stages: {label: kept for label, kept in kit_cases().items() if int(label[0]) in stages}
    )
    report = selfcheck.check(4, str(path))
    assert not report.passed
    assert "stage 3's check_result() fails 3." in report.note and "not stage 4's" in report.note
    assert "may be" not in selfcheck.check(4, str(REFERENCE)).note
