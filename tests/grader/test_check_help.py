"""A check's help paragraph (its docstring after the title) says something of its own.

The feedback prints the rule, then the hint: the check's help, or the entry of its stage's hint
maps that fits what was observed. So a help paragraph that repeats the rule (agtool/rules.py) or
a hint entry is read twice. Each stage's checks module holds its hints as `*_HINTS` maps and
`*_HINT` strs. The stages listed in HELD are those whose checks modules were rewritten to hold a
check in one place (issue 35, item 3); the others join as theirs are.
"""

import importlib
import re

import pytest

from agtool.rules import RULES

HELD = (6,)
WORDS = 6  # a run of this many words in common is a repeat; fewer is a shared term ("the <stage>:<check> prefix")


def runs_of_words(text: str) -> set[tuple[str, ...]]:
    words = re.findall(r"[\w<>:().'\"-]+", text.lower())
    return {tuple(words[start : start + WORDS]) for start in range(len(words) - WORDS + 1)}


def hint_texts(module) -> list[str]:
    """Every hint entry of a checks module: the values of its *_HINTS maps, and its *_HINT strs."""
    texts = []
    for name, value in vars(module).items():
        if name.endswith("_HINTS") and type(value) is dict:
            texts += [text for text in value.values() if type(text) is str]
        elif name.endswith("_HINT") and type(value) is str:
            texts.append(value)
    return texts


def checks_held():
    for stage in HELD:
        module = importlib.import_module(f"grader.kit.checks.stage{stage}")
        yield from (pytest.param(module, check, id=check.label) for check in module.CHECKLIST.checks)


@pytest.mark.parametrize("module, check", list(checks_held()))
def test_help_repeats_neither_the_rule_nor_a_hint(module, check):
    assert check.hint, f"{check.label}: no help paragraph"
    assert hint_texts(module), f"{module.__name__}: no *_HINTS or *_HINT found: the test would read nothing"
    for text in [RULES[check.label].text, *hint_texts(module)]:
        repeated = runs_of_words(check.hint) & runs_of_words(text)
        assert not repeated, f"{check.label}'s help repeats {' '.join(min(repeated))!r} of {text[:60]!r}"
