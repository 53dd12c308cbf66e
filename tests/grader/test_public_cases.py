"""The public cases (grader/kit/public.py): what the student kit's check(N) judges without the oracle.

Stored answers must judge exactly as the oracle does: same cases after JSON,
same verdict and feedback from compare(case, stored expected, observation) as
from judge(case, observation), on correct and broken modules alike.
"""

import json
import runpy
from functools import partial
from pathlib import Path

import pytest

from grader.kit import public
from grader.kit.checks import CHECKLISTS, every_check
from grader.kit.grading import grade
from grader.kit.local import LocalSession
from grader.kit.probing import blocker, judged

pytestmark = pytest.mark.grader

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "agtool" / "tools.py"
SUBMISSIONS = Path(__file__).resolve().parents[1] / "submissions"
BROKEN = runpy.run_path(str(SUBMISSIONS / "broken" / "table.py"))["BROKEN"]
CHECKS = every_check()


@pytest.fixture(scope="module")
def text() -> str:
    return public.release_text()


@pytest.fixture(scope="module")
def cases(text) -> dict:
    return public.loads(text)


def as_json(value) -> str:
    return json.dumps(value)  # key order kept: it is part of a case (a contract's order, a request's)


def test_every_check_has_public_cases_smallest_first_with_its_incidents(text):
    stored = json.loads(text)
    assert list(stored) == [check.label for check in CHECKS]
    for check in CHECKS:
        sizes = [len(json.dumps(entry["case"], ensure_ascii=False)) for entry in stored[check.label]]
        assert sizes == sorted(sizes), check.label
        cases = {as_json(entry["case"]) for entry in stored[check.label]}
        assert {as_json(public.case_to_json(case)) for case in check.always} <= cases, check.label
        assert len(cases) == len(stored[check.label])


def test_public_cases_are_the_same_every_release(text):
    assert public.release_text() == text


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.label)
def test_a_case_comes_back_from_json_the_same(check):
    """Decoded, a case makes the same request, shows the same setting and expects the same answers."""
    for case in [*check.always, *public.drawn_cases(check, 8)]:
        again = public.case_from_json(json.loads(json.dumps(public.case_to_json(case))))
        assert as_json(check.request(again)) == as_json(check.request(case))
        assert check.show(again) == check.show(case)
        assert as_json(check.expect(again)) == as_json(check.expect(case))


def write_patched(folder: Path, name: str, old: str, new: str) -> Path:
    path = folder / name
    path.write_text(REFERENCE.read_text().replace(old, new))
    return path


def same_verdicts(path: Path, stage: int, cases: dict) -> int:
    """Judge every public case of the stage both ways; how many answers were wrong."""
    session, wrong = LocalSession(str(path)), 0
    try:
        for check in CHECKLISTS[stage].checks:
            for case, expected in cases[check.label]:
                observation = session.request(check.request(case))
                if blocker(observation):
                    continue
                by_oracle = judged(check, case, observation, partial(check.judge, case, observation))
                stored = judged(check, case, observation, partial(check.compare, case, expected, observation))
                assert by_oracle == stored, (check.label, case)
                wrong += by_oracle is not None
    finally:
        session.close()
    return wrong


@pytest.mark.parametrize("stage", CHECKLISTS)
def test_stored_answers_judge_the_reference_as_the_oracle_does(stage, cases):
    assert same_verdicts(REFERENCE, stage, cases) == 0


@pytest.mark.parametrize("name", BROKEN)
def test_stored_answers_judge_a_broken_module_as_the_oracle_does_and_catch_it(name, cases, tmp_path):
    old, new, stage = BROKEN[name]
    path = write_patched(tmp_path, name, old, new)
    assert same_verdicts(path, stage, cases) > 0
    result = grade(str(path), LocalSession, stages=(stage,), public=cases)
    assert result.score < result.max_score
