"""The lab's six field incidents, for real on the SQLite-backed tools, and what the lab makes of them.

Each test first shows the incident with the bare tool body (as the lab's agent called it),
then the same call through the lab's door, memo or graph.
"""

from typing import Any

import pytest

from agtool import inventory, lab, tools

ASK = {"region": "seoul", "limit": 2}


def body_of(name):
    """The tool's bare body, the way the lab's agent called it: no contract in between."""
    return tools.TOOLS[name]["fn"]


@pytest.mark.stage2
def test_invented_argument_name(table, spy):
    """Incident 1: the model sends sku_id. Bare: TypeError. Door: args:unknown:sku_id, body not run."""
    with pytest.raises(TypeError, match="sku_id"):
        body_of("stock_lookup_v2")(sku_id="A-100", **ASK)

    body = table["stock_lookup_v2"]["fn"] = spy(wraps=body_of("stock_lookup_v2"))
    envelope = tools.call_tool("stock_lookup_v2", {"sku_id": "A-100", **ASK})
    assert envelope == {"ok": False, "value": None, "error": "args:unknown:sku_id"}
    assert body.calls == []

    state = tools.run({"tool": "stock_lookup_v2", "args": {"sku_id": "A-100", **ASK}})
    assert state["status"] == "answered" and state["args"]["sku"] == "A-100"
    assert body.calls == [{"sku": "A-100", **ASK}]


@pytest.mark.stage3
def test_empty_result_passed_on_as_success():
    """Incident 2: an unknown SKU. Bare: an empty list that looks like an answer. Door: result:empty:rows."""
    assert body_of("stock_lookup_v2")(sku="Z-999", **ASK) == {"sku": "Z-999", "rows": []}

    envelope = tools.call_tool("stock_lookup_v2", {"sku": "Z-999", **ASK})
    assert envelope == {"ok": False, "value": None, "error": "result:empty:rows"}

    state = tools.run({"tool": "stock_lookup_v2", "args": {"sku": "Z-999", **ASK}})
    assert (state["status"], state["answer"], state["attempts"]) == ("gave_up", None, 1)


@pytest.mark.stage3
def test_old_api_ignores_limit():
    """Incident 3: old stock_lookup returns all 20 bays of bulk D-400 for limit=2. Door: result:too_big:rows."""
    assert len(body_of("stock_lookup")(sku="D-400", **ASK)["rows"]) == 20
    assert len(body_of("stock_lookup")(sku="A-100", **ASK)["rows"]) == 2  # ordinary SKUs are fine

    envelope = tools.call_tool("stock_lookup", {"sku": "D-400", **ASK})
    assert envelope == {"ok": False, "value": None, "error": "result:too_big:rows"}


@pytest.mark.stage6
def test_old_api_ignoring_limit_is_fixed_by_its_upgrade():
    """Incident 3, fixed: the graph switches to stock_lookup_v2, which honours limit."""
    state = tools.run({"tool": "stock_lookup", "args": {"sku": "D-400", **ASK}})
    assert state["reasons"] == ["result:too_big:rows"]
    assert (state["tool"], state["status"]) == ("stock_lookup_v2", "answered")
    rows = state["result"]["value"]["rows"]
    assert rows == [{"region": "seoul", "qty": 30}, {"region": "seoul", "qty": 29}]


@pytest.mark.stage5
def test_the_same_lookup_again_and_again(table, spy):
    """Incident 4: the same lookup five times. Bare: five queries. Memo: the body runs once."""
    body = table["stock_lookup_v2"]["fn"] = spy(wraps=body_of("stock_lookup_v2"))
    for _ in range(5):
        body(sku="B-200", **ASK)
    assert body.runs == 5

    body.calls.clear()
    memo: dict = {}
    envelopes = [tools.call_memo("stock_lookup_v2", {"sku": "B-200", **ASK}, memo) for _ in range(5)]
    assert body.runs == 1
    assert all(e == envelopes[0] for e in envelopes) and envelopes[0]["ok"]
    assert envelopes[0]["value"]["rows"] == [{"region": "seoul", "qty": 2}, {"region": "busan", "qty": 7}]


@pytest.mark.stage5
def test_the_same_lookup_in_five_runs_sharing_a_memo(table, spy):
    """Incident 4 across runs: five graph runs sharing one memo query the inventory once."""
    body = table["stock_lookup_v2"]["fn"] = spy(wraps=body_of("stock_lookup_v2"))
    memo: dict = {}
    answers = {
        tools.run({"tool": "stock_lookup_v2", "args": {"sku": "B-200", **ASK}}, memo=memo)["answer"] for _ in range(5)
    }
    assert len(answers) == 1 and None not in answers
    assert body.runs == 1


# The seed agent's plan: stock first, then when it arrives in Jeju, then in Busan.
PLAN: list[tuple[str, dict]] = [
    ("stock_lookup_v2", {"sku": "E-500", **ASK}),
    ("delivery_eta", {"sku": "E-500", "region": "jeju"}),
    ("delivery_eta", {"sku": "E-500", "region": "busan"}),
]


def naive_run(plan):
    """The lab's agent loop: call each body in turn, no door."""
    return [body_of(name)(**args) for name, args in plan]


@pytest.mark.stage4
def test_key_error_inside_a_tool_ends_the_run():
    """Incident 5: daejeon has no route to Jeju. Bare: KeyError ends the run. Door: tool:raised:KeyError."""
    with pytest.raises(KeyError, match="jeju"):
        naive_run(PLAN)

    envelopes = [tools.call_tool(name, args) for name, args in PLAN]
    assert [e["ok"] for e in envelopes] == [True, False, True]
    assert envelopes[1] == {"ok": False, "value": None, "error": "tool:raised:KeyError"}
    assert envelopes[2]["value"]["days"] == 2


@pytest.mark.stage6
def test_key_error_inside_a_tool_is_a_path_in_the_graph():
    """Incident 5 in the graph: the run ends as gave_up with the reason, not with a traceback."""
    state = tools.run({"tool": "delivery_eta", "args": {"sku": "E-500", "region": "jeju"}})
    assert (state["status"], state["reasons"]) == ("gave_up", ["tool:raised:KeyError"])


@pytest.mark.stage3
def test_hours_reported_as_days():
    """The Jeju sea-freight partner counts hours: 72 "days". Door: result:range:days, unfixable: give up."""
    assert body_of("delivery_eta")(sku="A-100", region="jeju")["days"] == 72
    assert body_of("delivery_eta")(sku="A-100", region="busan")["days"] == 2

    envelope = tools.call_tool("delivery_eta", {"sku": "A-100", "region": "jeju"})
    assert envelope == {"ok": False, "value": None, "error": "result:range:days"}
    state = tools.run({"tool": "delivery_eta", "args": {"sku": "A-100", "region": "jeju"}})
    assert (state["status"], state["attempts"]) == ("gave_up", 1)


# Incident 6, a write: the order desk writes what it is handed, and Jeju's confirmation times out after the write.
TEAPOTS = {"sku": "B-200", "qty": 2, "region": "busan"}
TIN_TO_JEJU = {"sku": "C-300", "qty": 1, "region": "jeju"}


@pytest.fixture
def desk(table):
    """The lab's table with the order desk in it, as notebook 06 puts it there."""
    table["place_order"] = lab.PLACE_ORDER
    return table


def placed(fn, *args, **kwargs) -> tuple[int, Any]:
    """How many orders fn wrote, and what it returned (lab.orders_placed, as the notebook counts)."""
    counted = lab.orders_placed(fn, *args, **kwargs)
    return counted["orders placed"], counted["returned"]


@pytest.mark.stage2
@pytest.mark.parametrize(("qty", "reason"), [(True, "args:type:qty"), ("2", "args:type:qty"), (40, "args:range:qty")])
def test_a_bad_order_is_refused_before_anything_is_written(desk, qty, reason):
    """Incident 6: bare, the desk writes qty=True as an order of 1. Door: refused, nothing written."""
    assert placed(inventory.place_order, **{**TEAPOTS, "qty": qty})[0] == 1
    assert placed(tools.call_tool, "place_order", {**TEAPOTS, "qty": qty}) == (0, tools.failure(reason))


@pytest.mark.stage5
def test_a_memo_answers_the_second_order_from_memory(desk):
    """Incident 6: the same order twice through the memo writes one; the second says ok with the first's number."""
    memo: dict = {}
    first, second = (placed(tools.call_memo, "place_order", TEAPOTS, memo) for _ in range(2))
    assert (first[0], second[0]) == (1, 0)
    assert first[1]["ok"] and second[1] == first[1]
    assert placed(tools.call_tool, "place_order", TEAPOTS)[0] == 1  # the door alone writes each order asked


@pytest.mark.stage4
def test_a_blind_retry_writes_the_order_again_each_time(desk):
    """Incident 6: the confirmation times out after the write; retrying until ok writes one order a try."""
    count, outcome = placed(lab.retry_until_ok, "place_order", TIN_TO_JEJU, budget=5)
    assert count == 5 and outcome == {"door calls": 5, "ok": False, "failures": {"tool:raised:TimeoutError": 5}}


@pytest.mark.stage6
def test_the_graph_writes_once_and_gives_up_on_a_lost_confirmation(desk):
    """Incident 6 in the graph: tool:raised has no fix, so one order is written and the run gives up."""
    count, state = placed(tools.run, {"tool": "place_order", "args": TIN_TO_JEJU})
    assert count == 1
    assert (state["status"], state["reasons"], state["attempts"]) == ("gave_up", ["tool:raised:TimeoutError"], 1)


@pytest.mark.stage6
def test_the_graphs_fix_changes_what_a_write_buys(desk):
    """What the notebook warns of: clamping qty 40 into range orders 10 and answers as if that were the order."""
    count, state = placed(tools.run, {"tool": "place_order", "args": {**TEAPOTS, "qty": 40}})
    assert count == 1 and state["status"] == "answered"
    assert state["result"]["value"]["qty"] == 10 and state["reasons"] == ["args:range:qty"]


@pytest.mark.stage4
def test_a_request_id_makes_the_retry_safe(desk):
    """Incident 6, mended in the service: one request_id an intended order; the retry gets the order written."""
    count, outcome = placed(lab.retry_until_ok, "place_order", {**TIN_TO_JEJU, "request_id": "t-incident"}, budget=5)
    assert count == 1 and outcome == {"door calls": 2, "ok": True, "failures": {"tool:raised:TimeoutError": 1}}
