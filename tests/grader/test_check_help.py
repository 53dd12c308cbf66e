"""A check's help paragraph (its docstring after the title) says how to get the check right.

A student reads it under the rule (agtool/rules.py, quoted in the feedback) and, when the judge
found nothing more precise, in place of a hint: so it restates neither the rule nor any hint the
check's stage gives, each of which the student may read beside it. The hints are the texts of
the stage module's hint maps (`HINTS`, `..._HINTS`) and hint constants (`..._HINT`).
"""

import importlib
import re

import pytest

from grader.kit.checks import CHECKLISTS, every_check

pytestmark = pytest.mark.grader

RUN = 6  # words in a row that two texts share: a clause said again ("args equal up to key order" is 5.1's rule)


def runs(text: str) -> set[tuple[str, ...]]:
    """Every RUN words in a row of the text, as a reader compares them (case, code marks and commas aside)."""
    words = re.findall(r"[\w:<>.'()=]+", text.lower().replace("`", ""))
    words = [word.strip(".,;:()'") for word in words]
    return {tuple(words[at : at + RUN]) for at in range(len(words) - RUN + 1)}


def hints_of(stage: int) -> dict[str, str]:
    """name -> text of every hint the stage's checks module keeps (a map's entries named map[key])."""
    module = importlib.import_module(f"grader.kit.checks.stage{stage}")
    found = {}
    for name, value in vars(module).items():
        if name.endswith("HINTS") and isinstance(value, dict):
            found.update({f"{name}[{key!r}]": text for key, text in value.items() if isinstance(text, str)})
        elif name.endswith("_HINT") and isinstance(value, str):
            found[name] = value
    return found


@pytest.mark.parametrize("check", every_check(), ids=lambda check: check.label)
def test_a_checks_help_restates_neither_its_rule_nor_a_hint(check):
    help_runs = runs(check.hint)
    assert help_runs, f"{check.label} has no help paragraph"
    said = help_runs & runs(check.rule.text)
    assert not said, f"{check.label}'s help restates its rule: {' '.join(sorted(said)[0])!r}"
    for name, hint in hints_of(check.stage).items():
        said = help_runs & runs(hint)
        assert not said, f"{check.label}'s help repeats {name}: {' '.join(sorted(said)[0])!r}"


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
    assert runs(was_22) & set().union(*map(runs, hints_of(2).values()))
    assert runs(was_23) & runs(CHECKLISTS[2].checks[2].rule.text)
    assert not runs(was_23) & runs(CHECKLISTS[2].checks[3].rule.text)
