"""The input a failure shows is the smallest that fails alike (grader/kit/smaller.py, issue 33 item 5).

A check's fixed cases are the lesson's incidents, written whole (a stock table with rows and
bays, a state with every key the graph gives a fix, fifty invented names); once one fails,
the grader cuts it down. These tests hold the cutting to its promises: a cut never breaks a
value the grader spells ({"$power": [10, 4300]} stays 10 ** 4300), the result is 1-minimal
(no single cut of it fails alike), the count of probes is bounded, and cases outside what the
checks draw (a table the contract rules refuse) are never probed. Then the same on modules
written from the kit, graded as a student is: every cut of the input shown passes, or fails
for another cause.
"""

import re

import pytest

from grader.kit import smaller
from grader.kit.checks import CHECKLISTS
from grader.kit.grading import grade
from grader.kit.local import LocalSession
from grader.kit.probing import judged
from tests.beginners import ONE_BUG, write


def test_a_cut_never_breaks_a_spelled_value_but_may_shorten_its_parts():
    value = {"n": {"$power": [10, 4300]}, "t": {"$tuple": [1, 2]}, "b": {"$bytes": "ab"}}
    found = [cut for _, cut in smaller.cuts(value)]
    assert all(cut.get("n", {"$power": [10, 4300]}) == {"$power": [10, 4300]} for cut in found)
    assert all(cut.get("b", {"$bytes": "ab"}) == {"$bytes": "ab"} for cut in found)
    assert {**value, "t": {"$tuple": [2]}} in found and {**value, "t": {"$tuple": [1]}} in found
    assert {"t": value["t"], "b": value["b"]} in found  # a key of a plain dict may go


def test_larger_cuts_come_first_and_outer_parts_before_inner_ones():
    found = [cut for _, cut in smaller.cuts({"a": [1, 2, 3, 4], "b": 0})]
    assert found[:2] == [{"b": 0}, {"a": [1, 2, 3, 4]}]  # a whole key, before any item of a
    assert found[2:4] == [{"a": [3, 4], "b": 0}, {"a": [1, 2], "b": 0}]  # half of a list, before one item


def test_the_smallest_is_one_minimal_and_fails_alike():
    case = {"a": [1, 2, 3, 4, 5, 6, 7, 8], "b": {"x": 1, "y": 2, "z": {"$tuple": [1, 2, 3]}}}

    def fails(candidate):  # fails while 3 is in a and y in b
        return "failure" if 3 in candidate.get("a", []) and "y" in candidate.get("b", {}) else None

    found, failure = smaller.smallest(case, lambda c: {}, fails)
    assert (found, failure) == ({"a": [3], "b": {"y": 2}}, "failure")
    assert all(fails(cut) is None for _, cut in smaller.cuts(found))


def test_a_case_no_cut_keeps_failing_is_given_back_as_it_was():
    case = {"a": [1, 2]}
    assert smaller.smallest(case, lambda c: {}, lambda c: None) == (case, None)


def test_the_probes_are_counted_and_bounded():
    asked = []

    def fails(candidate):
        asked.append(candidate)
        return None  # nothing keeps the failure: every cut is tried, up to the bound

    smaller.smallest({"a": list(range(200))}, lambda c: {}, fails, tries=7)
    assert len(asked) == 7


def test_a_table_the_contract_rules_refuse_is_never_probed():
    table = {"t": {"args": {"n": {"type": "int", "min": 1}}, "returns": {}, "body": [{"return": {}}]}}
    asked = []

    def fails(candidate):
        asked.append(candidate)
        return "failure"

    found, _ = smaller.smallest({"table": table}, lambda case: {"table": case["table"]}, fails)
    assert all(smaller.in_domain(case) for case in asked)
    assert not smaller.in_domain({"table": {"t": {**table["t"], "args": {"n": {"min": 1}}}}})  # no type
    assert not smaller.in_domain({"table": {"t": {**table["t"], "body": [{}]}}})  # a step that does nothing
    assert found == {"table": {}}  # every tool may go; no part of one that leaves it refused


# ── on modules written from the kit ──────────────────────────────────────────


@pytest.mark.parametrize(
    ("module", "label"), [(module, label) for module, one in sorted(ONE_BUG.items()) for label in one.checks]
)
def test_the_input_shown_is_one_minimal(module, label, tmp_path):
    """No single cut of the case a failure shows fails for the same cause: each part shown is needed."""
    stage = int(label.split(".")[0])
    (written,) = write(tmp_path, [module])
    path = str(written)
    graded = grade(path, LocalSession, seed=0, stages=(stage,))
    (result,) = [result for result in graded.results if result.check.label == label]
    assert result.mismatch is not None and result.case is not None, f"{module} passes {label}"
    check, failure, session = result.check, result.mismatch, LocalSession(path)
    try:
        for _, cut in smaller.candidates(result.case, check.request, result.case):
            try:
                want = check.expect(cut)
            except Exception:
                continue
            observation = session.request(check.request(cut))
            again = judged(check, cut, observation, lambda: check.compare(cut, want, observation))  # noqa: B023
            assert again is None or (again.hint, again.raised) != (failure.hint, failure.raised), (
                f"{module} {label}: a smaller input fails alike:\n{again.setting}\n{again.call}"
            )
    finally:
        session.close()


@pytest.mark.parametrize("module", ["ana.py", "kai.py"])
def test_a_failure_shows_no_spelling_of_the_graders(module, tmp_path):
    """10 ** 4300, {'new'}, 2 ** 1100: never {'$power': ...}, {'$set': ...} or 400 digits."""
    (path,) = write(tmp_path, [module])
    graded = grade(str(path), LocalSession, seed=0, stages=tuple(CHECKLISTS))
    shown = [
        f"{result.mismatch.setting}\n{result.mismatch.call}\n{result.mismatch.expected}\n{result.mismatch.got}"
        for result in graded.results
        if result.mismatch is not None
    ]
    assert shown
    for text in shown:
        assert "'$" not in text and '"$' not in text, text
        assert not re.search(r"\d{60}", text), text
