"""A check's help paragraph (its docstring after the title) says how to get the check right.

A student reads it under the rule (agtool/rules.py, quoted in the feedback) and, when the judge
found nothing more precise, in place of a hint: so it restates neither the rule nor any hint the
check's stage gives, each of which the student may read beside it. The hints are the texts of
the stage module's hint maps (`HINTS`, `..._HINTS`) and hint constants (`..._HINT`).

The stages whose checks keep a check in one place, its hint maps by it (issue 35): 4 and 5.
"""

import importlib
import re

import pytest

from grader.kit.checks import CHECKLISTS

pytestmark = pytest.mark.grader

STAGES = (4, 5)
RUN = 5  # words in a row that two texts share: "args equal up to key order" restates 5.1's rule


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
            found.update({f"{name}[{key!r}]": text for key, text in value.items()})
        elif name.endswith("_HINT") and isinstance(value, str):
            found[name] = value
    return found


CHECKS = [check for stage in STAGES for check in CHECKLISTS[stage].checks]


def test_each_stage_keeps_its_shared_hints_and_its_checks_own_where_this_test_reads_them():
    for stage in STAGES:
        names = hints_of(stage)
        assert any(name.startswith("HINTS[") for name in names), f"stage {stage} has no HINTS map"
        assert any(not name.startswith("HINTS[") for name in names), f"stage {stage} has no hint of one check's own"


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.label)
def test_a_checks_help_restates_neither_its_rule_nor_a_hint(check):
    help_runs = runs(check.hint)
    assert help_runs, f"{check.label} has no help paragraph"
    said = help_runs & runs(check.rule.text)
    assert not said, f"{check.label}'s help restates its rule: {' '.join(sorted(said)[0])!r}"
    for name, hint in hints_of(check.stage).items():
        said = help_runs & runs(hint)
        assert not said, f"{check.label}'s help repeats {name}: {' '.join(sorted(said)[0])!r}"
