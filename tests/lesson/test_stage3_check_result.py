"""Stage 3 · result check: check_result(name, value) -> None or one reason, after the body ran."""

import re

import pytest

from agtool import tools

pytestmark = pytest.mark.stage3

NAN = float("nan")


def rows(*qtys, region="seoul"):
    return [{"region": region, "qty": q} for q in qtys]


def stock_value(**changes):
    return {"sku": "A-100", "rows": rows(5, 3), **changes}


def test_a_good_value_passes():
    """A value that meets the contract gives None."""
    assert tools.check_result("stock_lookup", stock_value()) is None
    assert tools.check_result("delivery_eta", {"sku": "A-100", "region": "busan", "days": 2}) is None


@pytest.mark.parametrize(
    "value",
    [None, [], "ok", 3, ("sku", "rows"), [stock_value()]],
    ids=["None", "list", "str", "int", "tuple", "list of the value"],
)
def test_a_value_that_is_not_a_dict_is_shape_result(value):
    """Anything but a dict is shape:result."""
    assert tools.check_result("stock_lookup", value) == "shape:result"


@pytest.mark.parametrize(
    "value, reason",
    [
        ({"rows": rows(1)}, "shape:sku"),
        (stock_value(sku=100), "shape:sku"),
        (stock_value(rows={"seoul": 5}), "shape:rows"),
        (stock_value(rows=tuple(rows(1))), "shape:rows"),
        (stock_value(rows=[]), "empty:rows"),
        (stock_value(sku=""), "empty:sku"),
        (stock_value(rows=rows(1, 2, 3)), "too_big:rows"),
        (stock_value(rows=rows(-1)), "range:rows.qty"),
        (stock_value(rows=rows("4개")), "shape:rows.qty"),
        (stock_value(rows=rows(True)), "shape:rows.qty"),
        (stock_value(rows=rows(1.0)), "shape:rows.qty"),
        (stock_value(rows=[{"qty": 1}]), "shape:rows.region"),
        (stock_value(rows=rows(1, region="")), "empty:rows.region"),
        (stock_value(rows=[{"region": "seoul", "qty": 1}, "busan: 3"]), "shape:rows"),
    ],
    ids=[
        "missing key",
        "wrong type",
        "dict for list",
        "tuple for list",
        "empty list",
        "empty str",
        "too big",
        "range in items",
        "str for int in items",
        "bool for int in items",
        "float for int in items",
        "missing key in items",
        "empty str in items",
        "item not a dict",
    ],
)
def test_each_reason(value, reason):
    """Each failing check gives its reason, inside items with a dotted path (rows.qty)."""
    assert tools.check_result("stock_lookup", value) == reason


def test_max_len_is_inclusive():
    """Exactly max_len items pass; one more is too_big."""
    assert tools.check_result("stock_lookup", stock_value(rows=rows(1, 2))) is None
    assert tools.check_result("stock_lookup", stock_value(rows=rows(*range(20)))) == "too_big:rows"


@pytest.mark.parametrize(
    "days, reason",
    [
        (0, None),
        (14, None),
        (15, "range:days"),
        (720, "range:days"),
        (-1, "range:days"),
        (NAN, "shape:days"),
        (14.0, "shape:days"),
    ],
)
def test_range_of_days(days, reason):
    """delivery_eta's days lie in 0..14 inclusive: 720 (hours, not days) is range:days."""
    value = {"sku": "A-100", "region": "jeju", "days": days}
    assert tools.check_result("delivery_eta", value) == reason


def test_nan_is_outside_every_range_in_a_result(put_tool, spy):
    """A float with a bound: NaN is range, never a pass."""
    put_tool("temp", spy(), returns={"c": {"type": "float", "min": -50, "max": 60}})
    assert tools.check_result("temp", {"c": NAN}) == "range:c"
    assert tools.check_result("temp", {"c": 21}) is None  # an int is a fine float
    assert tools.check_result("temp", {"c": False}) == "shape:c"


def test_allow_empty_lets_an_empty_value_pass(put_tool, spy):
    """allow_empty: True accepts [], {} and "" for that key only."""
    put_tool(
        "maybe",
        spy(),
        returns={
            "hits": {"type": "list", "allow_empty": True},
            "meta": {"type": "dict", "allow_empty": True},
            "note": {"type": "str"},
        },
    )
    assert tools.check_result("maybe", {"hits": [], "meta": {}, "note": "none"}) is None
    assert tools.check_result("maybe", {"hits": [], "meta": {}, "note": ""}) == "empty:note"


def test_an_any_key_takes_every_type_but_not_an_empty_value(put_tool, spy):
    """An any key: every type passes, NaN too (no bound); an empty list, dict or str is still empty."""
    put_tool("anything", spy(), returns={"v": {"type": "any"}})
    for value in (None, True, 0, NAN, "x", [1], {"a": 1}):
        assert tools.check_result("anything", {"v": value}) is None
    for value in ("", [], {}):
        assert tools.check_result("anything", {"v": value}) == "empty:v"


def test_zero_false_and_none_are_not_empty(put_tool, spy):
    """Only a list, dict or str can be empty."""
    put_tool("falsy", spy(), returns={"n": {"type": "int"}, "b": {"type": "bool"}, "f": {"type": "float"}})
    assert tools.check_result("falsy", {"n": 0, "b": False, "f": 0.0}) is None
    assert tools.check_result("falsy", {"n": 0, "b": False, "f": NAN}) is None  # no bound: NaN passes


def test_empty_dict_is_empty(put_tool, spy):
    """An empty dict is empty unless allowed."""
    put_tool("meta", spy(), returns={"meta": {"type": "dict"}})
    assert tools.check_result("meta", {"meta": {}}) == "empty:meta"


def test_nested_items_give_a_dotted_path_at_every_depth(put_tool, spy):
    """items inside items: the field is the whole path, orders.lines.qty."""
    put_tool(
        "orders",
        spy(),
        returns={
            "orders": {
                "type": "list",
                "items": {
                    "id": {"type": "str"},
                    "lines": {"type": "list", "items": {"qty": {"type": "int", "min": 1}}},
                },
            }
        },
    )
    good = {"orders": [{"id": "o1", "lines": [{"qty": 1}, {"qty": 2}]}]}
    assert tools.check_result("orders", good) is None
    bad = {"orders": [{"id": "o1", "lines": [{"qty": 1}]}, {"id": "o2", "lines": [{"qty": 0}]}]}
    assert tools.check_result("orders", bad) == "range:orders.lines.qty"
    assert tools.check_result("orders", {"orders": [{"id": "o1", "lines": [3]}]}) == "shape:orders.lines"


def test_every_item_is_checked_not_only_the_first():
    """The last row breaking the contract is found too."""
    assert tools.check_result("stock_lookup", stock_value(rows=rows(5, -2))) == "range:rows.qty"


def test_extra_keys_are_allowed():
    """Keys the contract does not name are allowed, at the top and inside items."""
    value = {"sku": "A-100", "source": "v1", "rows": [{"region": "seoul", "qty": 5, "bay": "01"}]}
    assert tools.check_result("stock_lookup", value) is None


ODD_VALUES = [
    float("nan"),
    b"rows",
    {1, 2},
    object(),
    {"sku": b"A"},
    {"sku": "A", "rows": None},
    {"sku": "A", "rows": [None]},
    {"sku": "A", "rows": [[]]},
    {"sku": "A", "rows": "rows"},
    {"sku": "A", "rows": [{"region": "x", "qty": float("inf")}]},
    {(1, 2): "tuple key"},
    {"sku": "A", "rows": [{"region": "x", "qty": 10**400}]},
    {"sku": "A", "rows": [{"region": {}, "qty": 1}]},
]


# ids without memory addresses: each xdist worker collects them, and all must agree
@pytest.mark.parametrize("value", ODD_VALUES, ids=[re.sub(r" at 0x[0-9a-f]+", "", repr(v))[:40] for v in ODD_VALUES])
def test_never_raises(value):
    """Whatever the body returned, check_result answers with None or a reason."""
    reason = tools.check_result("stock_lookup", value)
    assert reason is None or reason.split(":")[0] in {"shape", "empty", "too_big", "range"}


def test_the_table_is_read_at_call_time(table):
    """Allow more rows after import: the next check uses the new max_len."""
    value = stock_value(rows=rows(1, 2, 3))
    assert tools.check_result("stock_lookup", value) == "too_big:rows"
    table["stock_lookup"]["returns"]["rows"]["max_len"] = 3
    assert tools.check_result("stock_lookup", value) is None
