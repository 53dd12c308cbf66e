"""One-line mutants of the reference, and the per-check verdicts a grade gives them.

A mutant is one rule of the spec broken the way a student would break it: a single
line of agtool/tools.py replaced (the old text must occur exactly once). Its verdicts
are {label: passed} over every check, judged in-process (LocalSession) with the
grader's trusted earlier stages standing in, so a mutant can only fail its own stage.
"""

from dataclasses import dataclass
from pathlib import Path

import agtool
from grader.kit.checks import CHECKLISTS
from grader.kit.grading import grade
from grader.kit.local import LocalSession

REFERENCE = Path(agtool.__file__).with_name("tools.py")


@dataclass(frozen=True)
class Mutant:
    rule: str  # the spec's rule it breaks, in words
    old: str  # the reference's text, found exactly once
    new: str
    fails: frozenset  # the labels of the checks that must fail, and no others

    def source(self) -> str:
        return edited(f"mutant {self.rule!r}", (self.old, self.new))


def edited(what: str, *edits: tuple[str, str]) -> str:
    """The reference with each (old, new) edit made; old must occur exactly once (else the edit names `what`)."""
    text = REFERENCE.read_text()
    for old, new in edits:
        count = text.count(old)
        if count != 1:
            raise AssertionError(f"{what}: {old!r} occurs {count} times in tools.py")
        text = text.replace(old, new)
    return text


def mutant(rule: str, old: str, new: str, *fails: str) -> Mutant:
    return Mutant(rule, old, new, frozenset(fails))


def verdicts(path: Path, seed: int, stages: tuple[int, ...] | None = None) -> dict[str, bool]:
    """label -> passed, for every check of `stages` (all by default)."""
    graded = grade(str(path), LocalSession, seed=seed, stages=stages or tuple(CHECKLISTS))
    return {result.check.label: result.passed for result in graded.results}
