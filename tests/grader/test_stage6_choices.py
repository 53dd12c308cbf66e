"""Stage 6's choices: a lost point is a real mistake, and a real mistake always shows.

Each variant is the reference with a few lines changed. A reasonable choice the spec leaves
open costs nothing in stage 6; each real bug that modules written from the kit alone had
(tests/mutants/stage6.py holds the single-rule mutants) costs exactly its checks, under every
seed tried, and its feedback says what to change.
"""

from dataclasses import dataclass

import pytest

from grader.kit.grading import grade
from grader.kit.local import LocalSession
from tests.mutation import edited

pytestmark = pytest.mark.grader

SEEDS = (0, 5, 9)


@dataclass(frozen=True)
class Variant:
    rule: str
    edits: tuple  # (old, new): old occurs once in the reference
    fails: frozenset = frozenset()  # the checks it must fail, and no others
    says: str = ""  # what the first failing check's feedback must say

    def source(self) -> str:
        return edited(self.rule, *self.edits)


def variant(rule: str, *edits: tuple, fails: tuple = (), says: str = "") -> Variant:
    return Variant(rule, edits, frozenset(fails), says)


CLAMP_IF = '    if "min" in spec and not value >= spec["min"]:  # NaN lands on min\n'
RECURSION = '"recursion_limit": 2 * max(max_attempts, 1) + 5}'
PICK = '    tool, args = picker(state["request"])\n'
ODD_REASONS = '"reasons": ["run:type:max_attempts"], "path": [], "attempts": 0,'


def picker_as_reason(reason: str) -> tuple:
    """pick turns the picker's exception into `reason` and the run gives up at once (before_call reads it)."""
    return (
        (
            PICK,
            "    try:\n"
            '        tool, args = picker(state["request"])\n'
            "    except Exception as error:\n"
            f'        return {{"tool": None, "args": None, "attempts": 0, "result": None, "path": ["pick"],\n'
            f'                "status": "gave_up", "reasons": [{reason}]}}\n',
        ),
        (
            'return "call" if state["attempts"] < runtime.context.max_attempts else "give_up"',
            'return "call" if state["attempts"] < runtime.context.max_attempts and state.get("status") != "gave_up" '
            'else "give_up"',
        ),
    )


CHOICES = [
    variant(
        "use_default_region gives up where the contract does not allow seoul",
        (
            '    return {"args": {**state["args"], "region": DEFAULT_REGION}}\n',
            '    allowed = TOOLS[state["tool"]]["args"]["region"].get("allowed", [DEFAULT_REGION])\n'
            '    return {"args": {**state["args"], "region": DEFAULT_REGION}} if DEFAULT_REGION in allowed else None\n',
        ),
    ),
    variant("clamp_into_range gives up on NaN", (CLAMP_IF, "    if value != value:\n        return None\n" + CLAMP_IF)),
    variant(
        "switch_to_upgrade answers {'tool': None} when there is no upgrade",
        ('    return {"tool": upgrade} if upgrade else None', '    return {"tool": upgrade}'),
    ),
    variant(
        "the picker's exception becomes a reason that names it",
        *picker_as_reason('f"pick:raised:{type(error).__name__}"'),
    ),
    variant(
        "a max_attempts that is not an int: another state that gives up at once",
        (ODD_REASONS, '"reasons": ["run:not_an_int:max_attempts"], "path": ["give_up"], "attempts": 0,'),
    ),
    variant(
        "the smallest recursion_limit that never cuts a run short",
        (RECURSION, '"recursion_limit": 2 * max(max_attempts, 0) + 3}'),
    ),
]

BUGS = [
    variant(
        "rename_or_drop renames onto an arg the caller gave",
        (
            'free = [name for name in TOOLS[state["tool"]]["args"] if name not in args]',
            'free = list(TOOLS[state["tool"]]["args"])',
        ),
        fails=("6.3", "6.8"),
        says="not given yet",
    ),
    variant("a fixed recursion_limit", (RECURSION, '"recursion_limit": 100}'), fails=("6.6",), says="recursion_limit"),
    variant(
        "a recursion_limit below 1 for a negative max_attempts",
        (RECURSION, '"recursion_limit": 2 * max_attempts + 5}'),
        fails=("6.6",),
        says="recursion_limit",
    ),
    variant(
        "clamp_into_range calls math.isnan on an int of any size",
        (CLAMP_IF, '    if "min" in spec and (math.isnan(value) or value < spec["min"]):\n'),
        fails=("6.3", "6.8"),
        says="OverflowError",
    ),
    variant(
        "NaN lands on max when min is 0 (spec.get('min') or spec.get('max')): a number within the bounds",
        (CLAMP_IF, '    if value != value:\n        value = spec.get("min") or spec.get("max")\n    el' + CLAMP_IF[4:]),
    ),
    variant(
        "NaN lands on the middle of its bounds",
        (
            CLAMP_IF,
            '    if value != value and "min" in spec and "max" in spec:\n'
            '        value = (spec["min"] + spec["max"]) / 2\n    el' + CLAMP_IF[4:],
        ),
    ),
    variant(
        "NaN lands outside its bounds (below min)",
        (CLAMP_IF, '    if value != value and "min" in spec:\n        value = spec["min"] - 1\n    el' + CLAMP_IF[4:]),
        fails=("6.8",),
        says="within the bounds",
    ),
    variant(
        "memo or {} replaces the caller's empty memo",
        ("memo={} if memo is None else memo,", "memo=memo or {},"),
        fails=("6.2",),
        says="empty dict",
    ),
    variant(
        "switch_to_upgrade raises KeyError when there is no upgrade",
        ('upgrade = TOOLS[state["tool"]].get("upgrade")', 'upgrade = TOOLS[state["tool"]]["upgrade"]'),
        fails=("6.8",),
        says="never raises",
    ),
    variant(
        "find_fix takes the prefix with rsplit",
        ('FIXES.get(":".join(reason.split(":")[:2]))', 'FIXES.get(reason.rsplit(":", 1)[0])'),
        fails=("6.3",),
        says="first two parts",
    ),
    variant(
        "a max_attempts that is not an int gives up with a reason that does not name it",
        (ODD_REASONS, '"reasons": ["not an int"], "path": [], "attempts": 0,'),
        fails=("6.6",),
        says="names it",
    ),
    variant(
        "the picker's exception becomes a reason that does not name it",
        *picker_as_reason('"pick:failed"'),
        fails=("6.9",),
    ),
]


@pytest.mark.parametrize("case", CHOICES + BUGS, ids=[case.rule for case in CHOICES + BUGS])
def test_a_choice_costs_nothing_and_a_bug_costs_its_own_checks(case, tmp_path):
    path = tmp_path / "tools.py"
    path.write_text(case.source())
    for seed in SEEDS:
        graded = grade(str(path), LocalSession, seed=seed, stages=(6,))
        failed = [result for result in graded.results if not result.passed]
        assert {result.check.label for result in failed} == set(case.fails), f"seed {seed}"
        if case.says:
            feedback = " ".join(f"{result.mismatch.got} {result.mismatch.hint}" for result in failed if result.mismatch)
            assert case.says in feedback, f"seed {seed}: {feedback}"
