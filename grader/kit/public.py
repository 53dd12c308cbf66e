"""Public cases: fixed cases for every check, each with what a correct module gives, for the student kit.

The kit cannot carry the oracle, so at release `draw_cases` stores each check's incidents and a fixed
draw of others (RELEASE_SEED), smallest first, with the oracle's expect(case); in the kit, `load` reads
them back and `probing.run_public` judges with the checks' compare alone. The grade draws hidden cases.
"""

import dataclasses
import importlib
import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

import hypothesis
from hypothesis import HealthCheck, Phase, Verbosity

from grader.kit.checks import every_check
from grader.kit.probing import Check, case_seed

FILE = Path(__file__).with_name("public_cases.json")
RELEASE_SEED = 20_260_101
DRAWN = 20  # drawn cases per check, besides its incidents (fewer where there are fewer to draw)
# Stage 6's cases are whole graph runs, and a student runs check(6) after every edit: 7 a check keep it quick
# (bench --first-check).
DRAWN_FOR_STAGE = {6: 7}
_CASES_IN = "grader.kit.checks."


def drawn_cases(check: Check, count: int | None = None) -> list:
    """count cases of the check's strategy, the same ones every time (none for a check of fixed cases alone)."""
    collected: list = []
    if not check.examples:
        return collected
    count = DRAWN_FOR_STAGE.get(check.stage, DRAWN) if count is None else count

    @hypothesis.settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck),
    )
    @hypothesis.seed(case_seed(RELEASE_SEED, check))
    @hypothesis.given(check.cases)
    def collect(case):
        collected.append(case)

    collect()
    return collected


def draw_cases(checks: list[Check]) -> dict[str, list[dict]]:
    """label -> its cases, {"case": ..., "expected": ...}, smallest first, no case twice (needs the oracle)."""
    public = {}
    for check in checks:
        cases: dict[str, Any] = {}
        for case in [*check.always, *drawn_cases(check)]:
            cases.setdefault(json.dumps(case_to_json(case), ensure_ascii=False), case)
        public[check.label] = [
            {"case": case_to_json(case), "expected": check.expect(case)}
            for _, case in sorted(cases.items(), key=lambda item: len(item[0]))
        ]
    return public


def dumps(public: dict[str, list[dict]]) -> str:
    """The cases file: one case a line, so a diff of two releases reads case by case."""
    parts = []
    for label, entries in public.items():
        lines = ",\n".join(json.dumps(entry, ensure_ascii=False) for entry in entries)
        parts.append(f"{json.dumps(label)}: [\n{lines}\n]")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def release_text() -> str:
    """The public cases of every check, as the kit carries them."""
    return dumps(draw_cases(every_check()))


def load(stages: Collection[int] | None = None) -> dict[str, list[tuple[Any, Any]]]:
    return loads(FILE.read_text(encoding="utf-8"), stages)


def loads(text: str, stages: Collection[int] | None = None) -> dict[str, list[tuple[Any, Any]]]:
    """label -> [(case, expected)], from what release_text wrote; of the checks of `stages` alone if
    given (a case names its stage's module, which the other stages' cases would import too)."""
    stored = json.loads(text)
    return {
        label: [(case_from_json(entry["case"]), entry["expected"]) for entry in entries]
        for label, entries in stored.items()
        if stages is None or int(label.partition(".")[0]) in stages
    }


# ── cases as JSON ────────────────────────────────────────────────────────────


def case_to_json(case: Any) -> dict:
    kind = type(case)
    return {
        "type": f"{kind.__module__}.{kind.__qualname__}",
        "fields": {field.name: getattr(case, field.name) for field in dataclasses.fields(case)},
    }


def case_from_json(data: dict) -> Any:
    """The case again; a field declared a tuple is a tuple again (JSON made it a list)."""
    module, _, name = data["type"].rpartition(".")
    if not module.startswith(_CASES_IN):
        raise ValueError(f"a public case names {data['type']!r}, not a case of grader.kit.checks")
    kind = getattr(importlib.import_module(module), name)
    return kind(
        **{
            field.name: tuple(data["fields"][field.name]) if field.type is tuple else data["fields"][field.name]
            for field in dataclasses.fields(kind)
        }
    )
