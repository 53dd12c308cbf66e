"""Stage 2 · argument check: check_args(name, args) -> None or one reason, before the body runs."""

import math

import pytest

from agtool import tools

pytestmark = pytest.mark.stage2

NAN, INF = float("nan"), float("inf")
GOOD = {"sku": "A-100", "region": "seoul", "limit": 2}


def stock(**changes):
    """stock_lookup's good args with some changed; a value of ... removes the arg."""
    args = {**GOOD, **changes}
    return {k: v for k, v in args.items() if v is not ...}


def test_good_args_pass():
    """Args that meet the contract give None."""
    assert tools.check_args("stock_lookup", stock()) is None
    assert tools.check_args("delivery_eta", {"sku": "A-100", "region": "jeju"}) is None


@pytest.mark.parametrize(
    "args, reason",
    [
        (stock(sku_id="A-100"), "unknown:sku_id"),
        (stock(sku=...), "missing:sku"),
        (stock(limit="2"), "type:limit"),
        (stock(limit=3), "range:limit"),
        (stock(limit=0), "range:limit"),
        (stock(region="mars"), "allowed:region"),
    ],
    ids=["unknown", "missing", "type", "range above", "range below", "allowed"],
)
def test_each_reason(args, reason):
    """Each failing check gives its reason: unknown, missing, type, range, allowed, with the arg's name."""
    assert tools.check_args("stock_lookup", args) == reason


def test_bounds_are_inclusive():
    """min and max are inclusive."""
    assert tools.check_args("stock_lookup", stock(limit=1)) is None
    assert tools.check_args("stock_lookup", stock(limit=2)) is None


# ── which reason when several checks fail ───────────────────────────────────


def test_unknown_args_come_first():
    """An unknown arg is reported before a missing, mistyped or out-of-range one."""
    args = {"limit": 99, "region": 7, "sku_id": "A-100"}
    assert tools.check_args("stock_lookup", args) == "unknown:sku_id"


def test_contract_args_are_checked_in_table_order():
    """After unknown args, each contract arg in table order: sku before region before limit."""
    assert tools.check_args("stock_lookup", {"limit": 99, "region": "mars"}) == "missing:sku"
    assert tools.check_args("stock_lookup", {"sku": 1, "limit": 99, "region": "mars"}) == "type:sku"
    assert tools.check_args("stock_lookup", {"sku": "x", "limit": 99, "region": "mars"}) == "allowed:region"
    assert tools.check_args("stock_lookup", {"sku": "x", "limit": 99}) == "missing:region"


def test_within_one_arg_type_then_range_then_allowed(put_tool, spy):
    """For one arg: type before range before allowed."""
    put_tool("pick", spy(), args={"n": {"type": "int", "min": 1, "max": 3, "allowed": [1, 3, 7]}})
    assert tools.check_args("pick", {"n": "7"}) == "type:n"
    assert tools.check_args("pick", {"n": 7}) == "range:n"
    assert tools.check_args("pick", {"n": 2}) == "allowed:n"
    assert tools.check_args("pick", {"n": 3}) is None


# ── types ────────────────────────────────────────────────────────────────────

# (contract type, values that pass, values that fail)
TYPES = [
    ("str", ["", "A-100", "4개"], [1, None, b"A-100", ["A"], True]),
    ("int", [0, -3, 10**30], [True, False, 1.0, "1", None, NAN]),
    ("float", [0.5, -1.0, 2, 0, INF], [True, False, "0.5", None]),
    ("bool", [True, False], [0, 1, "true", None]),
    ("list", [[], [1, "a"]], [(), {1}, "ab", {}, None]),
    ("dict", [{}, {"a": 1}], [[], "ab", None, [("a", 1)]]),
]


@pytest.mark.parametrize("kind, passing, failing", TYPES, ids=[t[0] for t in TYPES])
def test_types(put_tool, spy, kind, passing, failing):
    """Each contract type takes its own values only: bool is not an int or a float, an int is a float."""
    put_tool("typed", spy(), args={"x": {"type": kind}})
    for value in passing:
        assert tools.check_args("typed", {"x": value}) is None, value
    for value in failing:
        assert tools.check_args("typed", {"x": value}) == "type:x", value


def test_bool_never_passes_for_int_even_in_range():
    """limit=True would run as 1 (bool is an int in Python); the contract refuses it."""
    assert tools.check_args("stock_lookup", stock(limit=True)) == "type:limit"


def test_int_passes_for_float_and_is_range_checked(put_tool, spy):
    """An int is a fine float, and its range is still checked."""
    put_tool("weigh", spy(), args={"kg": {"type": "float", "min": 0, "max": 2.5}})
    assert tools.check_args("weigh", {"kg": 2}) is None
    assert tools.check_args("weigh", {"kg": 3}) == "range:kg"
    assert tools.check_args("weigh", {"kg": False}) == "type:kg"


@pytest.mark.parametrize(
    "spec", [{"min": 0}, {"max": 10}, {"min": -1, "max": 1}], ids=["min only", "max only", "min and max"]
)
def test_nan_is_outside_every_range(put_tool, spy, spec):
    """NaN lies outside any range with a bound (every comparison with NaN is False)."""
    put_tool("measure", spy(), args={"x": {"type": "float", **spec}})
    assert tools.check_args("measure", {"x": NAN}) == "range:x"
    assert tools.check_args("measure", {"x": 0.0}) is None


def test_infinity_is_outside_a_bounded_range(put_tool, spy):
    """inf is above any max, -inf below any min."""
    put_tool("measure", spy(), args={"x": {"type": "float", "min": -5, "max": 5}})
    assert tools.check_args("measure", {"x": INF}) == "range:x"
    assert tools.check_args("measure", {"x": -INF}) == "range:x"


# ── optional args ────────────────────────────────────────────────────────────


def test_absent_optional_args_are_fine_present_ones_are_checked(put_tool, spy):
    """required: False means it may be left out; when given it is checked like any other."""
    put_tool(
        "opt", spy(), args={"sku": {"type": "str"}, "limit": {"type": "int", "min": 1, "max": 2, "required": False}}
    )
    assert tools.check_args("opt", {"sku": "A-100"}) is None
    assert tools.check_args("opt", {"sku": "A-100", "limit": 5}) == "range:limit"
    assert tools.check_args("opt", {"limit": 1}) == "missing:sku"


def test_a_tool_without_args_takes_none(put_tool, spy):
    """An empty contract accepts {} and nothing else."""
    put_tool("ping", spy())
    assert tools.check_args("ping", {}) is None
    assert tools.check_args("ping", {"x": 1}) == "unknown:x"


def test_non_str_arg_names_are_unknown():
    """A key that is not a str can never be a contract arg."""
    assert tools.check_args("stock_lookup", {**GOOD, 1: "x"}) == "unknown:1"
    assert tools.check_args("stock_lookup", {1: 2}) == "unknown:1"
    assert tools.check_args("stock_lookup", {**GOOD, None: "x"}) == "unknown:None"


def test_nan_passes_a_float_with_no_bounds(put_tool, spy):
    """NaN is refused only by a bound: a float arg with neither min nor max, or an any arg, lets it through."""
    put_tool("free", spy(), args={"x": {"type": "float"}, "v": {"type": "any", "required": False}})
    assert tools.check_args("free", {"x": NAN}) is None
    assert tools.check_args("free", {"x": 1.5, "v": NAN}) is None
    assert tools.check_args("free", {"x": INF}) is None


def test_a_present_falsy_value_is_never_missing(put_tool, spy):
    """None, 0, False and "" are values: type-checked, never missing."""
    put_tool(
        "falsy", spy(), args={"n": {"type": "int"}, "b": {"type": "bool"}, "s": {"type": "str"}, "v": {"type": "any"}}
    )
    assert tools.check_args("falsy", {"n": 0, "b": False, "s": "", "v": None}) is None
    assert tools.check_args("falsy", {"n": None, "b": False, "s": "", "v": None}) == "type:n"


# ── the table is read at call time ──────────────────────────────────────────


def test_an_edited_table_is_honoured_at_once(table):
    """Raise limit's max after import: the next check uses the new bound."""
    assert tools.check_args("stock_lookup", stock(limit=5)) == "range:limit"
    table["stock_lookup"]["args"]["limit"]["max"] = 5
    assert tools.check_args("stock_lookup", stock(limit=5)) is None


def test_a_replaced_entry_is_honoured_at_once(table, spy):
    """Replace a whole entry: its new contract is the one checked."""
    table["stock_lookup"] = {"fn": spy(), "description": "d", "args": {"q": {"type": "str"}}, "returns": {}}
    assert tools.check_args("stock_lookup", {"q": "mug"}) is None
    assert tools.check_args("stock_lookup", stock()) == "unknown:sku"


def test_check_args_does_not_change_the_args():
    """The args are only read."""
    args = stock(limit=NAN)
    assert tools.check_args("stock_lookup", args) == "type:limit"
    assert list(args) == ["sku", "region", "limit"] and math.isnan(args["limit"])
