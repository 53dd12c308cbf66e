"""agtool.lab: the helpers the notebooks show things with. Every demonstration must say what it claims."""

import math
from concurrent.futures import ThreadPoolExecutor

import pytest

from agtool import inventory, lab, tools

pytestmark = pytest.mark.release


def in_fresh_inventory(fn):
    """Run fn in a new thread: it gets its own in-memory inventory, so a restock touches no other test."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn).result()


def test_attempt_turns_an_exception_into_the_last_line_of_its_traceback():
    assert lab.attempt(int, "7") == 7
    raised = lab.attempt(inventory.delivery_eta, "E-500", "jeju")
    assert isinstance(raised, lab.Raised) and repr(raised) == "raised KeyError: 'jeju'"


def test_a_stage_not_written_yet_says_so():
    def stub():
        raise NotImplementedError("Stage 4: call_tool — see notebooks/04_door.ipynb")

    assert repr(lab.attempt(stub)) == "not implemented yet: Stage 4: call_tool — see notebooks/04_door.ipynb"


def test_attempt_lets_keyboard_interrupt_through():
    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        lab.attempt(interrupted)


def test_examples_compare_type_and_value_all_the_way_down():
    """True is not 1 in a worked example (the lesson's first pitfall), and NaN is NaN."""
    table = lab.examples(
        lambda value: value, [((True,), 1), ((1,), 1), ((math.nan,), math.nan), (({"a": [1.0]},), {"a": [1]})]
    )
    assert table.marks() == ["✗", "✓", "✓", "✗"]
    assert table.summary() == "2 of 4 agree with the spec"
    assert "<table>" in table._repr_html_()


def test_examples_accept_every_spelling_the_rules_allow_and_no_other():
    """As the grade judges it: an item's position after its list, a dotted exception name, any spelling of a
    tool name that is no str; a str name spelt as it is, and another check's reason, are still wrong."""

    def door(name, reason):
        return {"ok": False, "value": None, "error": reason}

    rows = [
        ((["stock_lookup"], "tool:unknown:list(['stock_lookup'])"), door(0, "tool:unknown:['stock_lookup']")),
        (("stock_v3", "tool:unknown:'stock_v3'"), door(0, "tool:unknown:stock_v3")),
        (("t", "tool:raised:builtins.KeyError"), door(0, "tool:raised:KeyError")),
        (("t", "tool:raised:builtins.KeyErrorX"), door(0, "tool:raised:KeyError")),
        (("t", "result:range:rows.1.qty"), door(0, "result:range:rows.qty")),
        (("t", "result:range:rows[1].qty"), door(0, "result:range:rows.qty")),
        (("t", "result:empty:rows"), door(0, "result:range:rows.qty")),
    ]
    assert lab.examples(door, rows).marks() == ["✓", "✗", "✓", "✗", "✓", "✓", "✗"]
    assert lab.examples(lambda reason: reason, [(("range:points.1",), "range:points")]).marks() == ["✓"]


def test_examples_say_once_that_a_stage_is_not_written():
    def stub(_):
        raise NotImplementedError("Stage 2: check_args — see notebooks/02_check_args.ipynb")

    table = lab.examples(stub, [(("x",), None), (("y",), "type:y")])
    assert table.marks() == ["…", "…"]
    assert table.summary() == "2 of 2 not implemented yet: Stage 2: check_args — see notebooks/02_check_args.ipynb"


def test_the_naive_agent_answers_until_an_invented_name_ends_the_run(capsys):
    requests = [
        {"tool": "stock_lookup", "args": {"sku": "A-100", "region": "seoul", "limit": 2}},
        {"tool": "stock_lookup", "args": {"sku_id": "B-200", "region": "busan", "limit": 2}},
        {"tool": "delivery_eta", "args": {"sku": "C-300", "region": "jeju"}},
    ]
    assert repr(lab.attempt(lab.naive_agent, requests)).startswith("raised TypeError")
    assert capsys.readouterr().out == "A-100: 5 in seoul, 3 in busan.\n"


def test_the_stand_in_model_turns_an_empty_result_into_in_stock_and_hours_into_days():
    assert "is in stock" in lab.reply("stock_lookup", inventory.stock_lookup("Z-999", "seoul", 2))
    assert lab.reply("delivery_eta", inventory.delivery_eta("A-100", "jeju")) == "A-100 reaches jeju in 72 days."


def test_the_handwritten_description_accepts_what_the_contract_refuses():
    call = {"sku": "A-100", "region": "daegu", "limit": 20}
    assert lab.schema_errors(lab.HANDWRITTEN, call) == []
    assert lab.schema_errors("stock_lookup", call) == [
        "'daegu' is not one of ['busan', 'jeju', 'seoul']",
        "20 is greater than the maximum of 2",
    ]


def test_the_lab_contracts_pass_check_table_and_their_bodies_meet_them(table):
    table.update(price_quote=lab.PRICE_QUOTE, stock_report=lab.STOCK_REPORT)
    tools.check_table(table)
    assert tools.call_tool("price_quote", {"sku": "B-200", "quantity": 2, "discount": 0.5}) == {
        "ok": True,
        "value": {"sku": "B-200", "total": 24.5},
        "error": None,
    }
    report = tools.call_tool("stock_report", {"skus": ["A-100", "Z-999"], "where": {"region": "busan"}})
    assert report["value"] == {"rows": [{"sku": "A-100", "region": "busan", "qty": 3}]}


def test_restock_changes_the_inventory_under_the_agent():
    def restocked():
        before = inventory.stock_lookup_v2("Z-999", "busan", 2)
        lab.restock("Z-999", "busan-1", 4)
        lab.restock("Z-999", "busan-1", 4)  # twice is still 4: re-running a cell does not double the stock
        return before, inventory.stock_lookup_v2("Z-999", "busan", 2)

    assert in_fresh_inventory(restocked) == (
        {"sku": "Z-999", "rows": []},
        {"sku": "Z-999", "rows": [{"region": "busan", "qty": 4}]},
    )


def test_the_naive_memo_misses_on_key_order_and_replays_a_failure():
    def replayed():
        memo: dict[str, dict]
        memo, z999 = {}, {"sku": "Z-999", "region": "busan", "limit": 2}
        lab.naive_memo_call("stock_lookup", {"sku": "A-100", "region": "seoul", "limit": 2}, memo)
        lab.naive_memo_call("stock_lookup", {"region": "seoul", "sku": "A-100", "limit": 2}, memo)
        first = lab.naive_memo_call("stock_lookup", z999, memo)
        lab.restock("Z-999", "busan-1", 4)
        return len(memo), first, lab.naive_memo_call("stock_lookup", z999, memo), tools.call_tool("stock_lookup", z999)

    entries, first, replay, door = in_fresh_inventory(replayed)
    assert entries == 3
    assert first == replay == tools.failure("result:empty:rows")
    assert door["ok"]


def test_retry_until_ok_spends_its_whole_budget_on_an_unfixable_failure():
    result = lab.retry_until_ok("stock_lookup", {"sku": "Z-999", "region": "seoul", "limit": 2}, budget=7)
    assert result == {"door calls": 7, "ok": False, "failures": {"result:empty:rows": 7}}
    assert lab.retry_until_ok("delivery_eta", {"sku": "A-100", "region": "busan"})["door calls"] == 1


def test_the_countdown_graph_loops_on_a_conditional_edge():
    assert lab.countdown_graph().invoke({"left": 3}) == {"left": 0, "said": ["3", "2", "1"]}
