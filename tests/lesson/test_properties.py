"""Hypothesis properties: the door never raises, check_args agrees with jsonschema, memo keys are exact.

Example counts are modest so the file runs in seconds; raise max_examples locally to search harder.
"""

import json
import re

import jsonschema
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from agtool import tools
from tests.contract_strategies import arg_fields, args_for, json_args, json_leaves

# No deadline and no too_slow check: two CPUs are shared by several engineers, so timings vary.
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ── values ───────────────────────────────────────────────────────────────────
# JSON values (tests/contract_strategies.py) are what a model can send; odd values are what a
# careless caller or a broken tool can produce on top of them: NaN, inf, bytes, tuples, sets,
# non-str keys, objects.

hashable_odd = (
    st.text(max_size=4)
    | st.integers()
    | st.floats()
    | st.none()
    | st.booleans()
    | st.binary(max_size=3)
    | st.tuples(st.integers(), st.text(max_size=2))
)
odd_leaves = (
    json_leaves
    | st.floats()
    | st.binary(max_size=4)
    | st.complex_numbers()
    | st.sets(st.integers(), max_size=3)
    | st.frozensets(st.text(max_size=2), max_size=2)
    | st.builds(object)
    | st.sampled_from([Ellipsis, NotImplemented, str, len])
)
odd_values = st.recursive(
    odd_leaves,
    lambda inner: (
        st.lists(inner, max_size=3) | st.tuples(inner, inner) | st.dictionaries(hashable_odd, inner, max_size=3)
    ),
    max_leaves=10,
)

GOOD = {"sku": "A-100", "region": "seoul", "limit": 2}
tool_names = st.sampled_from(sorted(tools.TOOLS)) | st.text(max_size=12) | odd_values


@st.composite
def door_args(draw):
    """Good args with one arg changed, added or removed; any dict; or anything that is not a dict."""
    kind = draw(st.sampled_from(["near", "dict", "any"]))
    if kind == "near":
        args = dict(GOOD)
        key = draw(st.sampled_from(sorted(GOOD)) | hashable_odd)
        if draw(st.booleans()):
            args[key] = draw(odd_values)
        else:
            args.pop(key, None)
        return args
    if kind == "dict":
        return draw(st.dictionaries(hashable_odd, odd_values, max_size=4))
    return draw(odd_values)


# A value shaped like stock_lookup's, odd anywhere, so the result check's every branch is reached.
stock_values = st.fixed_dictionaries(
    {
        "sku": st.text(max_size=3) | odd_values,
        "rows": st.lists(
            st.fixed_dictionaries({"region": st.text(max_size=3) | odd_values, "qty": st.integers(-2, 5) | odd_values})
            | odd_values,
            max_size=3,
        )
        | odd_values,
    },
    optional={"extra": odd_values},
)
results = stock_values | odd_values


REASON = re.compile(r"(shape|empty|too_big|range):\S+")


def assert_envelope(envelope):
    assert set(envelope) == {"ok", "value", "error"}
    if envelope["ok"]:
        assert envelope["error"] is None
    else:
        assert envelope["value"] is None
        assert envelope["error"].split(":")[0] in {"tool", "args", "result"}


# ── stage 3 and 4: nothing raises ────────────────────────────────────────────


@pytest.mark.stage3
@SETTINGS
@given(value=results)
def test_check_result_never_raises(value):
    """check_result answers any value with None or a <check>:<field> reason."""
    reason = tools.check_result("stock_lookup", value)
    assert reason is None or REASON.fullmatch(reason)


@pytest.mark.stage4
@SETTINGS
@given(name=tool_names, args=door_args())
def test_the_door_never_raises_on_any_input(name, args):
    """call_tool on the real tools: any name, any args, always exactly the three-key envelope."""
    assert_envelope(tools.call_tool(name, args))


@pytest.mark.stage4
@SETTINGS
@given(value=results, error=st.sampled_from([None, KeyError, ValueError, RecursionError, TypeError]))
def test_the_door_never_raises_whatever_the_body_does(restoring, value, error):
    """A body that returns anything or raises any Exception still gives an envelope."""

    def body(**args):
        if error:
            raise error("boom")
        return value

    with restoring() as table:
        table["stock_lookup"]["fn"] = body
        envelope = tools.call_tool("stock_lookup", dict(GOOD))
    assert_envelope(envelope)
    if error:
        assert envelope["error"] == f"tool:raised:{error.__name__}"


# ── stage 2: check_args agrees with jsonschema ───────────────────────────────
# The oracle is Draft 2020-12 validation of the schema describe_tools() sends the model, with one
# type changed: JSON Schema's "integer" is mathematical, so 1.0 is an integer (Draft 4 on), but
# the contract's "int" is Python's int, since the body receives the value as it is: 1.0 is refused.
# bool is already right: jsonschema (the library) counts True as neither integer nor number, as
# the contract does. NaN is left out of the values: JSON has no NaN, and jsonschema lets it pass
# minimum/maximum (every comparison with NaN is False) where the contract refuses it on purpose;
# the stage 2 tests pin that down.
# `allowed` is drawn for scalar types only: for a list or dict, Python's == says [True] == [1]
# where JSON Schema's enum keeps bool and int apart, so the two would disagree by design.


def is_python_int(checker, value):
    return isinstance(value, int) and not isinstance(value, bool)


ContractValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", is_python_int),
)

# Which jsonschema keyword fails for each check of the contract.
KEYWORD = {
    "unknown": "additionalProperties",
    "missing": "required",
    "type": "type",
    "range": ("minimum", "maximum"),
    "allowed": "enum",
}

# Flat contracts (each arg a type, maybe bounds, allowed, optional): jsonschema names the arg
# that fails in its error's path, which a nested field's dotted reason cannot be compared with.
contracts = arg_fields(depth=0)


def assert_agrees_with_jsonschema(name, args):
    """check_args passes exactly when jsonschema does, and its reason names a check jsonschema also fails."""
    (described,) = [d for d in tools.describe_tools() if d["function"]["name"] == name]
    schema = described["function"]["parameters"]
    ContractValidator.check_schema(schema)
    errors = list(ContractValidator(schema).iter_errors(args))
    reason = tools.check_args(name, args)
    event(f"check_args: {reason.split(':')[0] if reason else 'passes'}")  # --hypothesis-show-statistics
    assert (reason is None) == (not errors), (reason, [e.message for e in errors])
    if reason:
        check, arg = reason.split(":", 1)
        keywords = KEYWORD[check]
        if check in ("unknown", "missing"):  # reported on the whole object, naming the arg
            assert any(e.validator in keywords and repr(arg) in e.message for e in errors), reason
        else:
            assert any(e.validator in keywords and list(e.path) == [arg] for e in errors), reason


@pytest.mark.stage2
@SETTINGS
@given(name=st.sampled_from(sorted(tools.TOOLS)), data=st.data())
def test_check_args_agrees_with_jsonschema_on_the_lab_table(name, data):
    """On the lab's own tools, check_args and jsonschema say the same of every generated args."""
    assert_agrees_with_jsonschema(name, data.draw(args_for(tools.TOOLS[name]["args"])))


@pytest.mark.stage2
@settings(SETTINGS, max_examples=300)
@given(contract=contracts, data=st.data())
def test_check_args_agrees_with_jsonschema_on_generated_tables(restoring, contract, data):
    """Put a generated contract into TOOLS: check_args and jsonschema still agree."""
    with restoring() as table:
        table["generated"] = {"fn": dict, "description": "a generated contract", "args": contract, "returns": {}}
        tools.check_table(table)
        assert_agrees_with_jsonschema("generated", data.draw(args_for(contract)))


# ── stage 5: memo keys are exact ─────────────────────────────────────────────
# "Equal args" here means equal as JSON values: the same type at every level (so 1, 1.0 and
# True differ, as the spec says), floats equal bit for bit, dict keys in any order. -0.0 and
# 0.0 are == in Python, but json.dumps writes "-0.0", so they get different keys: we keep that
# and call them different args. A tool may tell them apart (a bearing, math.copysign), and
# treating them as two questions costs at most one extra call, never a wrong replay.


def same_json(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return a.hex() == b.hex()
    if type(a) is dict:
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if type(a) is list:
        return len(a) == len(b) and all(map(same_json, a, b))
    return a == b


def json_holds(value) -> bool:
    """Does value survive a JSON round trip unchanged (no NaN, tuple, set, int key, ...)?"""
    try:
        return same_json(json.loads(json.dumps(value, allow_nan=False)), value)
    except (TypeError, ValueError):
        return False


def neighbours(leaf) -> list:
    """Values that look like leaf (1 -> 1.0, True; 0.0 -> -0.0; "a" -> "a ") and may or may not equal it."""
    if type(leaf) is dict:
        return [[], {**leaf, "": None}]
    if type(leaf) is list:
        return [{}, [*leaf, None]]
    if type(leaf) is bool:
        return [int(leaf), float(leaf), not leaf]
    if type(leaf) is int:
        return [float(leaf), leaf + 1, *([bool(leaf)] if leaf in (0, 1) else [])]
    if type(leaf) is float:
        return [-leaf, leaf + 1.0, *([int(leaf)] if leaf.is_integer() else [])]
    if type(leaf) is str:
        return [leaf + " ", leaf.upper(), 0]
    return [0, "", False]  # None


@st.composite
def tweaked(draw, value):
    """value with one leaf (or one empty container) swapped for a neighbour."""
    if type(value) in (dict, list) and value and draw(st.booleans()):
        where = draw(st.sampled_from(sorted(value) if type(value) is dict else range(len(value))))
        changed = dict(value) if type(value) is dict else list(value)
        changed[where] = draw(tweaked(value[where]))
        return changed
    return draw(st.sampled_from(neighbours(value)))


@st.composite
def reordered(draw, value):
    """value with every dict's keys in a new order, at every depth."""
    if type(value) is dict:
        keys = draw(st.permutations(list(value)))
        return {k: draw(reordered(value[k])) for k in keys}
    if type(value) is list:
        return [draw(reordered(v)) for v in value]
    return value


@st.composite
def arg_pairs(draw):
    """Two args: the same reordered, a near miss reordered, or two independent draws."""
    a = draw(json_args)
    how = draw(st.sampled_from(["same", "near", "other"]))
    b = a if how == "same" else draw(tweaked(a)) if how == "near" else draw(json_args)
    return a, draw(reordered(b))


@pytest.mark.stage5
@settings(SETTINGS, max_examples=300)
@given(pair=arg_pairs())
def test_memo_keys_are_equal_exactly_when_args_are_equal(pair):
    """memo_key(a) == memo_key(b) exactly when a and b are the same JSON value, up to key order."""
    a, b = pair
    event(f"same args: {same_json(a, b)}")
    assert (tools.memo_key("t", a) == tools.memo_key("t", b)) == same_json(a, b)


@pytest.mark.stage5
@SETTINGS
@given(args=odd_values | json_args)
def test_memo_key_is_none_exactly_when_json_cannot_hold_the_args(args):
    """No key for args a JSON round trip would change or refuse; a str key otherwise."""
    key = tools.memo_key("t", args)
    assert (key is None) == (not json_holds(args))


# ── stage 6: a run never raises ──────────────────────────────────────────────


@pytest.mark.stage6
@settings(SETTINGS, max_examples=60)
@given(
    request_=st.fixed_dictionaries({"tool": tool_names, "args": door_args()}) | odd_values,
    max_attempts=st.integers(-1, 4) | odd_values,
)
def test_run_never_raises(request_, max_attempts):
    """Any request, any attempt limit: a final state with a status, within the attempt limit."""
    state = tools.run(request_, max_attempts=max_attempts)
    assert state["status"] in {"answered", "gave_up"}
    assert (state["answer"] is None) == (state["status"] == "gave_up")
    if isinstance(max_attempts, int) and not isinstance(max_attempts, bool):
        assert state["attempts"] <= max(max_attempts, 0)
