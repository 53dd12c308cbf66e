"""A check's help paragraph helps: it neither restates the rule the check judges nor repeats a hint.

The rule is agtool/rules.py's, and feedback quotes it; a hint is chosen from what came back
(the hint maps, `*HINTS`, and the stage's hint constants), and the help paragraph is
shown only when no hint fits. A help paragraph that says one of them again is one more text to
keep in step and nothing new for the student (issue 35, item 3). The stages whose checks keep
their hints beside them are listed; a stage joins once its checks do.
"""

import difflib
import importlib

import pytest

from agtool.rules import RULES
from grader.kit.checks import CHECKLISTS

pytestmark = pytest.mark.grader

STAGES = (2, 3)
REPEAT = 7  # words in a row, case and punctuation aside, that say a text again ("an int too big for a float")


def words(text: str) -> list[str]:
    return [word.strip(".,;:()`'\"") for word in text.lower().split()]


def repeated(text: str, others: list[str]) -> str:
    """The longest run of words text shares with any of others."""
    mine = words(text)
    longest: list[str] = []
    for other in map(words, others):
        found = difflib.SequenceMatcher(None, mine, other, autojunk=False).find_longest_match(
            0, len(mine), 0, len(other)
        )
        if found.size > len(longest):
            longest = mine[found.a : found.a + found.size]
    return " ".join(longest)


def hints_of(stage: int) -> list[str]:
    """Every hint a stage's checks may give: its hint maps' entries and its hint constants."""
    module = importlib.import_module(f"grader.kit.checks.stage{stage}")
    found = []
    for name, value in vars(module).items():
        if name.endswith("HINTS"):
            found += value.values()
        elif name.isupper() and isinstance(value, str):
            found.append(value)
    return found


@pytest.mark.parametrize("stage", STAGES)
def test_a_help_paragraph_restates_neither_its_rule_nor_a_hint(stage):
    hints = hints_of(stage)
    assert len(hints) > len(CHECKLISTS[stage].checks), f"stage {stage}: its hints were not found"
    for check in CHECKLISTS[stage].checks:
        said = repeated(check.hint, [RULES[check.label].text, *hints])
        assert len(said.split()) < REPEAT, f"{check.label}'s help paragraph says again: {said!r}"


def test_a_help_paragraph_that_says_a_hint_or_its_rule_again_is_found():
    """2.2's help paragraph was once its hint entry, and 2.3's its rule, word for word."""
    was_22 = (
        "Look at every name in args, not only the contract's: a name the contract does not have is "
        "unknown:<name> (the model invents sku_id for sku)."
    )
    was_23 = (
        "A required arg (required is True unless the spec says False) that is absent is missing:<arg>; an "
        "absent optional arg is fine"
    )
    assert repeated(was_22, hints_of(2)) == " ".join(words(was_22))
    assert len(repeated(was_23, [RULES["2.3"].text]).split()) >= REPEAT
    assert len(repeated(was_23, [RULES["2.4"].text]).split()) < REPEAT
