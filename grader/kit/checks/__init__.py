"""The checks, one module per stage; CHECKLISTS is what `grade` runs, in order."""

import importlib
from collections.abc import Iterator, Mapping

from agtool.syllabus import STAGES
from grader.kit.probing import Check, Checklist


class _Checklists(Mapping[int, Checklist]):
    """stage number -> its Checklist, the stage's module (grader.kit.checks.stageN) imported on first use.

    Lazy because check(N) needs stage N's module alone: a dict built at import (every stage's module,
    jsonschema and their strategies) cost a student's first check(N) about 0.15 s more of its 1.5 s goal
    (2026-12-05). Iterating the numbers, `in` and len() import nothing; values() and items() import every
    stage, in order.
    """

    def __getitem__(self, number: int) -> Checklist:
        if number not in STAGES:
            raise KeyError(number)
        return importlib.import_module(f"{__name__}.stage{number}").CHECKLIST

    def __iter__(self) -> Iterator[int]:
        return iter(STAGES)

    def __len__(self) -> int:
        return len(STAGES)

    def __contains__(self, number: object) -> bool:
        return number in STAGES


CHECKLISTS: Mapping[int, Checklist] = _Checklists()


def every_check() -> list[Check]:
    """Every stage's checks, stage by stage, in order (this imports every stage's module)."""
    return [check for checklist in CHECKLISTS.values() for check in checklist.checks]
