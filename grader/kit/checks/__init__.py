"""The probes, one module per stage; STAGES is what `grade` runs, in order."""

import importlib
from collections.abc import Iterator, Mapping

from agtool.syllabus import LESSONS
from grader.kit.probing import Stage


class _Stages(Mapping[int, Stage]):
    """stage number -> its Stage, the stage's module (grader.kit.checks.stageN) imported on first use.

    Lazy on purpose: check(N) needs stage N's module (and what it imports) alone, and the six
    with jsonschema and their strategies cost 0.15 to 0.25 s of a student's first check(N)
    (python -X importtime, in a released kit on 2 cores). Iterating the numbers, `in` and len()
    import nothing; values() and items() import every stage, in order.
    """

    def __getitem__(self, number: int) -> Stage:
        if number not in LESSONS:
            raise KeyError(number)
        return importlib.import_module(f"{__name__}.stage{number}").STAGE

    def __iter__(self) -> Iterator[int]:
        return iter(LESSONS)

    def __len__(self) -> int:
        return len(LESSONS)

    def __contains__(self, number: object) -> bool:
        return number in LESSONS

    def __repr__(self) -> str:
        return f"STAGES({', '.join(map(str, self))})"


STAGES: Mapping[int, Stage] = _Stages()
