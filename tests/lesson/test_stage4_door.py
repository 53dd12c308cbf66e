"""Stage 4 · door: call_tool(name, args) -> {"ok", "value", "error"}; every failure is a value."""

import pytest

from agtool import tools
from grader.kit.boundary.spies import Spy

pytestmark = pytest.mark.stage4

GOOD = {"sku": "A-100", "region": "seoul", "limit": 2}
STOCK = {"sku": "A-100", "rows": [{"region": "seoul", "qty": 5}]}


@pytest.fixture
def body(table, spy):
    """A counting body in place of stock_lookup's, returning a good value."""
    table["stock_lookup"]["fn"] = spy(value=STOCK)
    return table["stock_lookup"]["fn"]


def test_a_spy_counts_exactly_the_runs_it_records():
    """The grader's Spy, every test's body: runs is len(calls), read-only, so no count strays from the record.

    A raising run is a run; a positional arg (a picker's request) is kept under its index; a run the
    parent does for the submission's process (step) records None, as its args stay in that process.
    """
    body = Spy(steps=[{"return": (1,)}, {"raise": "KeyError"}])
    assert body(sku="A-100") == (1,) == body.last
    with pytest.raises(KeyError):
        body({"tool": "stock_lookup"})
    assert body.step() == {"raise": "KeyError"}  # the last step again once the list is used up
    assert body.calls == [{"sku": "A-100"}, {0: {"tool": "stock_lookup"}}, None] and body.runs == 3
    with pytest.raises(AttributeError):
        body.runs = 0  # type: ignore[misc]
    body.calls.clear()
    assert body.runs == 0


def test_ok_envelope_has_exactly_three_keys(body):
    """A good call: {"ok": True, "value": <the body's value>, "error": None}, nothing else."""
    envelope = tools.call_tool("stock_lookup", dict(GOOD))
    assert envelope == {"ok": True, "value": STOCK, "error": None}
    assert body.calls == [GOOD]


def test_the_body_gets_the_args_as_keywords(body):
    """The args dict becomes keyword arguments, whatever their order."""
    tools.call_tool("stock_lookup", {"limit": 1, "region": "busan", "sku": "B-200"})
    assert body.calls == [{"sku": "B-200", "region": "busan", "limit": 1}]


@pytest.mark.parametrize("name", ["stock_lookup_v3", "", None, 7, ["stock_lookup"], ("stock_lookup",)])
def test_unknown_tool(body, name):
    """A name not in TOOLS, or not a str, is tool:unknown:<name>; no body runs."""
    assert tools.call_tool(name, dict(GOOD)) == {"ok": False, "value": None, "error": f"tool:unknown:{name}"}
    assert body.calls == []


@pytest.mark.parametrize("args", [None, [("sku", "A-100")], "sku=A-100", ("A-100", "seoul", 2)])
def test_args_not_a_dict(body, args):
    """Args that are not a dict are args:shape:args; no body runs."""
    assert tools.call_tool("stock_lookup", args) == {"ok": False, "value": None, "error": "args:shape:args"}
    assert body.calls == []


@pytest.mark.parametrize(
    "args, reason",
    [
        ({**GOOD, "sku_id": "A-100"}, "args:unknown:sku_id"),
        ({"region": "seoul", "limit": 2}, "args:missing:sku"),
        ({**GOOD, "limit": True}, "args:type:limit"),
        ({**GOOD, "limit": 20}, "args:range:limit"),
        ({**GOOD, "region": "tokyo"}, "args:allowed:region"),
    ],
)
def test_bad_args_are_refused_before_the_body_runs(body, args, reason):
    """check_args' reason r becomes args:r, and the body is not run."""
    assert tools.call_tool("stock_lookup", args) == {"ok": False, "value": None, "error": reason}
    assert body.calls == []


class InventoryDown(Exception):
    pass


@pytest.mark.parametrize("error", [KeyError("jeju"), ZeroDivisionError(), InventoryDown("503")])
def test_a_raising_body_is_tool_raised_with_the_exception_type(table, spy, error):
    """Any Exception from the body is tool:raised:<type name>; it does not leave the door."""
    table["stock_lookup"]["fn"] = spy(raises=error)
    envelope = tools.call_tool("stock_lookup", dict(GOOD))
    assert envelope == {"ok": False, "value": None, "error": f"tool:raised:{type(error).__name__}"}


@pytest.mark.parametrize(
    "value, reason",
    [
        ({"sku": "A-100", "rows": []}, "result:empty:rows"),
        ({"sku": "A-100", "rows": [{"region": "seoul", "qty": -1}]}, "result:range:rows.qty"),
        ([STOCK], "result:shape:result"),
    ],
)
def test_a_bad_value_is_result_reason_and_not_passed_on(table, spy, value, reason):
    """check_result's reason r becomes result:r; the bad value is not handed out."""
    table["stock_lookup"]["fn"] = spy(value=value)
    assert tools.call_tool("stock_lookup", dict(GOOD)) == {"ok": False, "value": None, "error": reason}


def test_unknown_tool_is_checked_before_the_args(body):
    """Both name and args wrong: the name is reported."""
    assert tools.call_tool("nope", None)["error"] == "tool:unknown:nope"  # type: ignore[arg-type]  # None: wrong on purpose


@pytest.mark.parametrize("error", [KeyboardInterrupt(), SystemExit(2)])
def test_base_exceptions_are_not_swallowed(table, spy, error):
    """Ctrl-C and sys.exit() inside a tool still stop the program: only Exceptions become values."""
    table["stock_lookup"]["fn"] = spy(raises=error)
    with pytest.raises(type(error)):
        tools.call_tool("stock_lookup", dict(GOOD))


def test_the_door_uses_the_checks_through_the_module_globals(body, monkeypatch):
    """Replace check_args and check_result in the module: the door calls the replacements."""
    seen = []

    def check_args(name, args):
        seen.append("args")

    def check_result(name, value):
        seen.append("result")
        return "shape:mine"

    monkeypatch.setattr(tools, "check_args", check_args)
    monkeypatch.setattr(tools, "check_result", check_result)
    assert tools.call_tool("stock_lookup", {"anything": 1})["error"] == "result:shape:mine"
    assert seen == ["args", "result"] and body.calls == [{"anything": 1}]


def test_the_door_reads_the_table_at_call_time(put_tool, spy):
    """A tool added after import is callable through the door at once."""
    put_tool("echo", spy(value={"said": "hi"}), args={"text": {"type": "str"}}, returns={"said": {"type": "str"}})
    assert tools.call_tool("echo", {"text": "hi"}) == {"ok": True, "value": {"said": "hi"}, "error": None}


def test_the_real_tool_answers_through_the_door():
    """The SQLite-backed stock_lookup_v2 answers a good question with an ok envelope."""
    envelope = tools.call_tool("stock_lookup_v2", dict(GOOD))
    assert envelope["ok"] and envelope["error"] is None
    assert envelope["value"] == {"sku": "A-100", "rows": [{"region": "seoul", "qty": 5}, {"region": "busan", "qty": 3}]}
