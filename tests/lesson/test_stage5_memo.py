"""Stage 5 · memo: memo_key(name, args) and call_memo(name, args, memo): never ask the same thing twice."""

import json

import pytest

from agtool import tools

pytestmark = pytest.mark.stage5

GOOD = {"sku": "A-100", "region": "seoul", "limit": 2}
STOCK = {"sku": "A-100", "rows": [{"region": "seoul", "qty": 5}]}


# ── memo_key ─────────────────────────────────────────────────────────────────


def test_key_is_the_name_plus_sorted_json():
    """The key holds the name and json.dumps(args, sort_keys=True)."""
    key = tools.memo_key("stock_lookup", GOOD)
    assert key is not None
    assert key.startswith("stock_lookup") and key.endswith(json.dumps(GOOD, sort_keys=True))


def test_key_order_does_not_matter_nested_too():
    """Args equal up to key order, at any depth, share one key."""
    a = {"sku": "A-100", "filters": {"region": "seoul", "min": {"qty": 1, "bay": 2}}}
    b = {"filters": {"min": {"bay": 2, "qty": 1}, "region": "seoul"}, "sku": "A-100"}
    assert tools.memo_key("search", a) == tools.memo_key("search", b)


@pytest.mark.parametrize(
    "a, b",
    [
        ({"limit": 1}, {"limit": 1.0}),
        ({"limit": 1}, {"limit": True}),
        ({"limit": 1.0}, {"limit": True}),
        ({"limit": 0}, {"limit": False}),
        ({"x": None}, {}),
        ({"x": [1, 2]}, {"x": [2, 1]}),
        ({"x": "1"}, {"x": 1}),
        ({"x": {"a": 1}}, {"x": {"a": 1, "b": 2}}),
    ],
    ids=[
        "1 vs 1.0",
        "1 vs True",
        "1.0 vs True",
        "0 vs False",
        "None vs absent",
        "list order",
        "str vs int",
        "nested extra key",
    ],
)
def test_different_args_get_different_keys(a, b):
    """1, 1.0 and True are different args, and so are lists in another order."""
    assert tools.memo_key("t", a) != tools.memo_key("t", b)


def test_different_tools_get_different_keys():
    """The same args for two tools are two questions."""
    assert tools.memo_key("stock_lookup", GOOD) != tools.memo_key("stock_lookup_v2", GOOD)


@pytest.mark.parametrize(
    "args",
    [
        {"x": float("nan")},
        {"x": float("inf")},
        {"x": (1, 2)},
        {"x": {1, 2}},
        {"x": b"A-100"},
        {1: "int key"},
        {"x": {1: "int key"}},
        {"x": [{"deep": object()}]},
        {"x": 10**5000},
    ],
    ids=["NaN", "inf", "tuple", "set", "bytes", "int key", "nested int key", "object", "5001 digits"],
)
def test_args_json_cannot_hold_exactly_get_no_key(args):
    """No key when JSON cannot hold the args exactly (json.dumps would turn (1, 2) into [1, 2])."""
    assert tools.memo_key("t", args) is None


def test_a_name_that_is_not_a_str_gets_no_key():
    """Only a tool name can be part of a key."""
    assert tools.memo_key(None, GOOD) is None  # type: ignore[arg-type]  # the wrong type is the test
    assert tools.memo_key(["stock_lookup"], GOOD) is None  # type: ignore[arg-type]  # the wrong type is the test


# ── call_memo ────────────────────────────────────────────────────────────────


@pytest.fixture
def body(table, spy):
    """A counting body in place of stock_lookup's, returning a good value."""
    table["stock_lookup"]["fn"] = spy(value=STOCK)
    return table["stock_lookup"]["fn"]


def test_a_hit_does_not_run_the_body(body):
    """The second call with the same args returns the remembered envelope; the body ran once."""
    memo: dict[str, dict] = {}
    first = tools.call_memo("stock_lookup", dict(GOOD), memo)
    second = tools.call_memo("stock_lookup", {"limit": 2, "region": "seoul", "sku": "A-100"}, memo)
    assert first == second == {"ok": True, "value": STOCK, "error": None}
    assert body.runs == 1 and len(memo) == 1


def test_a_miss_goes_through_the_door(body, monkeypatch):
    """A miss is a call_tool call (read through the module's globals)."""
    calls = []

    def door(name, args):
        calls.append((name, args))
        return {"ok": True, "value": {"from": "door"}, "error": None}

    monkeypatch.setattr(tools, "call_tool", door)
    assert tools.call_memo("stock_lookup", dict(GOOD), {})["value"] == {"from": "door"}
    assert calls == [("stock_lookup", GOOD)] and body.runs == 0


def test_different_args_are_a_miss(body):
    """Another question runs the body again."""
    memo: dict[str, dict] = {}
    tools.call_memo("stock_lookup", dict(GOOD), memo)
    tools.call_memo("stock_lookup", {**GOOD, "limit": 1}, memo)
    assert body.runs == 2 and len(memo) == 2


@pytest.mark.parametrize(
    "value, args",
    [
        ({"sku": "A-100", "rows": []}, GOOD),
        ({"sku": "A-100", "rows": [{"region": "seoul", "qty": 5}]}, {**GOOD, "limit": 9}),
    ],
    ids=["bad result", "bad args"],
)
def test_failures_are_not_remembered(table, spy, value, args):
    """A failed envelope is returned but not remembered: the same call runs the door again."""
    table["stock_lookup"]["fn"] = spy(value=value)
    memo: dict[str, dict] = {}
    first = tools.call_memo("stock_lookup", dict(args), memo)
    again = tools.call_memo("stock_lookup", dict(args), memo)
    assert not first["ok"] and first == again and memo == {}


def test_a_raising_body_is_not_remembered_and_runs_again(table, spy):
    """After a failure the body is asked again, so a cause that went away is not replayed."""
    timeouts = [TimeoutError()]  # the first run times out, the later ones answer

    def body(**args):
        if timeouts:
            raise timeouts.pop()
        return dict(STOCK)

    flaky = table["stock_lookup"]["fn"] = spy(wraps=body)
    memo: dict[str, dict] = {}
    assert tools.call_memo("stock_lookup", dict(GOOD), memo)["error"] == "tool:raised:TimeoutError"
    assert tools.call_memo("stock_lookup", dict(GOOD), memo)["ok"]
    assert tools.call_memo("stock_lookup", dict(GOOD), memo)["ok"]
    assert flaky.runs == 2


def test_args_without_a_key_run_every_time(put_tool, spy):
    """Args JSON cannot hold are never remembered; each call runs the body."""
    body = put_tool(
        "measure",
        spy(value={"ok": "yes"}),
        args={"x": {"type": "float", "required": False}},
        returns={"ok": {"type": "str"}},
    )
    memo: dict[str, dict] = {}
    for _ in range(3):
        assert tools.call_memo("measure", {"x": float("inf")}, memo)["ok"]
    assert body.runs == 3 and memo == {}


def test_a_value_json_cannot_hold_is_returned_not_remembered(put_tool, spy):
    """An ok value with a tuple in an extra key is handed out, but not kept (JSON would make it a list)."""
    body = put_tool("coords", spy(value={"name": "seoul", "at": (37.5, 127.0)}), returns={"name": {"type": "str"}})
    memo: dict[str, dict] = {}
    for _ in range(2):
        assert tools.call_memo("coords", {}, memo)["value"] == {"name": "seoul", "at": (37.5, 127.0)}
    assert body.runs == 2 and memo == {}


def test_mutating_a_returned_value_does_not_change_later_hits(body):
    """Whatever the caller does to a returned value, the next hit returns the original."""
    memo: dict[str, dict] = {}
    first = tools.call_memo("stock_lookup", dict(GOOD), memo)
    first["value"]["rows"].append({"region": "mars", "qty": 99})
    first["ok"] = False
    hit = tools.call_memo("stock_lookup", dict(GOOD), memo)
    hit["value"]["rows"][0]["qty"] = 0
    assert tools.call_memo("stock_lookup", dict(GOOD), memo) == {"ok": True, "value": STOCK, "error": None}
    assert body.runs == 1


def test_the_memo_is_the_callers_dict(body):
    """Pass a new dict to forget everything: the body runs again."""
    tools.call_memo("stock_lookup", dict(GOOD), {})
    tools.call_memo("stock_lookup", dict(GOOD), {})
    assert body.runs == 2
