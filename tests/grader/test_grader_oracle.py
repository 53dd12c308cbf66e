"""The grader's oracle (grader/instructor/oracle.py) against jsonschema and against the reference module.

The oracle is written from the spec, apart from agtool/tools.py; these tests are
where the two meet. They draw with the grader's own strategies (grader/checks/),
so they cover exactly what students are judged on.
"""

import ast
import difflib
import math
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.instructor import oracle
from grader.kit import oracle_access
from grader.kit.boundary import spies, values
from grader.kit.boundary.runner import load
from grader.kit.checks import stage2, stage3, stage4, stage5, stage6
from grader.kit.errors import GraderError

pytestmark = pytest.mark.grader

REFERENCE, _ = load(str(Path(__file__).resolve().parents[2] / "agtool" / "tools.py"))  # a private copy
SETTINGS = settings(
    max_examples=60, deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
ARG_MISTAKES = st.sampled_from(
    [(), ("unknown",), ("missing",), ("type",), ("range",), ("allowed",), ("nested",), ("type", "nested", "unknown")]
)


def with_table(table: dict):
    """The reference module with TOOLS holding this table (spy bodies built from the case)."""
    tools, bodies = spies.spy_table(table)
    REFERENCE.TOOLS.clear()
    REFERENCE.TOOLS.update(tools)
    return bodies


def leaves(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from leaves(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from leaves(item)
    else:
        yield value


def schema_sees_it_as_we_do(contract: dict, args: dict) -> bool:
    """JSON Schema and the contract differ where JSON does: 2.0 is an integer there, NaN passes minimum."""
    return not any(isinstance(leaf, float) and (leaf.is_integer() or math.isnan(leaf)) for leaf in leaves(args))


@SETTINGS
@given(ARG_MISTAKES.flatmap(lambda mistakes: stage2.cases(*mistakes)))
def test_arg_reasons_agree_with_jsonschema(case):
    """Args pass the oracle exactly when they validate against the schema the oracle says describe_tools gives."""
    contract = values.decode(case.table[case.tool]["args"])
    schema = oracle.object_schema(contract)
    jsonschema.Draft202012Validator.check_schema(schema)
    for args in map(values.decode, case.calls):
        if schema_sees_it_as_we_do(contract, args):
            assert jsonschema.Draft202012Validator(schema).is_valid(args) == (not oracle.arg_reasons(contract, args))


@SETTINGS
@given(ARG_MISTAKES.flatmap(lambda mistakes: stage2.cases(*mistakes)))
def test_arg_reason_is_the_references_and_really_fails(case):
    """The one-answer oracle gives the reference's reason; that reason is among every failing reason."""
    with_table(case.table)
    contract = values.decode(case.table[case.tool]["args"])
    for args in map(values.decode, case.calls):
        answer = REFERENCE.check_args(case.tool, args)
        assert oracle.arg_reason(contract, args) == answer
        reasons = oracle.arg_reasons(contract, args)
        assert answer is None if not reasons else answer in reasons


@SETTINGS
@given(st.sampled_from([None, *sorted(stage3._PLANTS)]).flatmap(stage3.cases))
def test_result_reason_is_the_references_and_really_fails(case):
    with_table(case.table)
    returns = values.decode(case.table[case.tool]["returns"])
    for value in map(values.decode, case.calls):
        answer = REFERENCE.check_result(case.tool, value)
        assert oracle.result_reason(returns, value) == answer
        assert (answer is None) == (not oracle.result_reasons(returns, value))


@SETTINGS
@given(stage3.odd_values())
def test_result_oracle_never_raises_and_agrees_on_odd_values(case):
    with_table(case.table)
    returns = values.decode(case.table[case.tool]["returns"])
    for value in map(values.decode, case.calls):
        assert oracle.result_reason(returns, value) == REFERENCE.check_result(case.tool, value)


@SETTINGS
@given(st.sampled_from(["good", "bad result", "raise"]).flatmap(lambda body: stage4.cases(body, stage4._ALL_PATHS)))
def test_door_gives_the_references_envelopes_and_body_runs(case):
    ours, our_spies = spies.spy_table(case.table)
    their_spies = with_table(case.table)
    for name, args in case.calls:
        name, args = values.decode(name), values.decode(args)
        expected, got = oracle.call_tool(ours, name, args), REFERENCE.call_tool(name, args)
        assert values.same(values.to_plain(expected), values.to_plain(got))
        assert spies.runs(our_spies) == spies.runs(their_spies)


_UNHOLDABLE = st.sampled_from(
    [
        {"x": float("nan")},
        {"x": (1, 2)},
        {"x": {1, 2}},
        {1: "a"},
        {"x": [{2: 2}]},
        {"x": b"A"},
        {"x": 10**5000},
        {"x": [object()]},
        {"x": -math.inf},
    ]
)


@SETTINGS
@given(st.one_of(stage5.different_pairs().map(lambda case: case.pairs[0][1]), _UNHOLDABLE))
def test_memo_key_is_the_references(args):
    assert oracle.memo_key("t", args) == REFERENCE.memo_key("t", args)


@settings(max_examples=40, deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(
        [
            stage6.answers,
            stage6.fixes_what_it_can,
            stage6.gives_up_at_once,
            stage6.gives_up_on_repeats,
            stage6.stops_at_the_limit,
        ]
    ).flatmap(lambda check: check())
)
def test_run_comes_to_what_the_reference_comes_to(case):
    """The trusted loop predicts the reference graph's runs: status, attempts, reasons, last envelope, body runs."""
    assert_runs_agree(case)


@pytest.mark.parametrize("case", stage6.ANSWERED, ids=lambda case: case.table["stock"]["body"][0].keys())
def test_run_answers_what_the_reference_answers(case):
    """6.2's fixed cases too: a value JSON cannot show (keys of mixed types, a list that holds itself) is answered."""
    assert_runs_agree(case)
    assert all(state["status"] == "answered" for state, _ in stage6.expected_runs(case))


def assert_runs_agree(case: stage6.Case) -> None:
    bodies = with_table(case.table)
    memo: dict = {}
    for (req, limit, shared), (state, runs) in zip(case.runs, stage6.expected_runs(case), strict=True):
        before = spies.runs(bodies)
        kwargs = stage6.kwargs_of(limit) | ({"memo": memo} if shared else {})
        final = REFERENCE.run(values.decode(req), **kwargs)
        assert spies.runs_since(bodies, before) == runs
        assert (final["status"], final["attempts"], final["reasons"]) == (
            state["status"],
            state["attempts"],
            state["reasons"],
        )
        assert values.same(values.to_plain(final["result"]), values.to_plain(state["result"]))


@SETTINGS
@given(st.builds(lambda case: case.table, stage2.cases()))
def test_object_schema_is_what_the_reference_describes(table):
    with_table(table)
    described = {entry["function"]["name"]: entry["function"]["parameters"] for entry in REFERENCE.describe_tools()}
    for name, tool in table.items():
        assert described[name] == oracle.object_schema(values.decode(tool["args"]))


def edits(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        row, above = [i], row
        for j, y in enumerate(b, 1):
            row.append(min(above[j] + 1, row[j - 1] + 1, above[j - 1] + (x != y)))
    return row[-1]


@pytest.mark.stage6
def test_misspellings_are_close_to_one_name_only():
    """Stage 6's misspelt names leave no doubt which arg was meant, whatever closeness a student uses."""
    names = [*stage6.LONG_NAMES, "sku"]
    for name, typos in stage6.TYPOS.items():
        assert typos, name
        for typo in typos:
            assert difflib.get_close_matches(typo, names, n=2, cutoff=0.6) == [name]
            assert edits(typo, name) <= 2
            assert all(edits(typo, other) >= 3 for other in names if other != name)
    for far in stage6.FAR_NAMES:
        assert not difflib.get_close_matches(far, names, cutoff=0.3)
        assert all(edits(far, name) >= 3 for name in names)


def test_oracle_never_imports_the_reference():
    """The oracle is the spec's, not a copy of the reference's accidents: of agtool, only the constants both
    share (agtool.contract)."""
    tree = ast.parse(Path(oracle.__file__).read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {
        node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
    }  # None: from . import
    assert [name for name in imported if name.startswith("agtool")] == ["agtool.contract"]


def test_in_the_kit_a_use_of_the_oracle_names_itself():
    """The kit has no oracle: a judge that reaches for it anyway raises the grader's own error, naming the call."""
    absent = oracle_access._Absent("grader.instructor.oracle")
    with pytest.raises(GraderError, match=r"oracle\.object_schema: the oracle is not in the student kit"):
        absent.object_schema({})
    assert getattr(absent, "__file__", None) is None  # what tools ask of any module: answered, not raised
    assert oracle_access.oracle is oracle and oracle_access.present()  # here, in the repository, the real one
