"""Stage 6 · retry graph: FIXES, build_graph(), run(): failure is a path, not an exception."""

import math

import pytest
from langgraph.graph.state import CompiledStateGraph

from agtool import tools

pytestmark = pytest.mark.stage6

GOOD = {"sku": "A-100", "region": "seoul", "limit": 2}
STATE_KEYS = {"tool", "args", "result", "reasons", "path", "attempts", "status", "answer"}


def run_v2(**changes):
    """run() on the SQLite-backed stock_lookup_v2 with GOOD args changed."""
    return tools.run({"tool": "stock_lookup_v2", "args": {**GOOD, **changes}})


def test_constants():
    """Three attempts at most; the default region is seoul."""
    assert (tools.MAX_ATTEMPTS, tools.DEFAULT_REGION) == (3, "seoul")


def test_build_graph_is_a_compiled_langgraph_with_the_five_nodes():
    """A compiled StateGraph with nodes pick, call, fix, answer, give_up."""
    graph = tools.build_graph()
    assert isinstance(graph, CompiledStateGraph)
    assert {"pick", "call", "fix", "answer", "give_up"} <= set(graph.get_graph().nodes)


def test_a_good_request_is_answered_in_one_call():
    """pick -> call -> answer; the state holds every field; answer is built from the value."""
    state = run_v2()
    assert set(state) >= STATE_KEYS
    assert (state["status"], state["path"], state["attempts"], state["reasons"]) == (
        "answered",
        ["pick", "call", "answer"],
        1,
        [],
    )
    assert state["result"] == {
        "ok": True,
        "error": None,
        "value": {"sku": "A-100", "rows": [{"region": "seoul", "qty": 5}, {"region": "busan", "qty": 3}]},
    }
    assert state["answer"].startswith("stock_lookup_v2") and '"qty": 5' in state["answer"]


# ── FIXES and find_fix ───────────────────────────────────────────────────────


def test_fixes_cover_the_four_fixable_reasons():
    """args:allowed:region, args:range, args:unknown and result:too_big have fixes."""
    assert {"args:allowed:region", "args:range", "args:unknown", "result:too_big"} <= set(tools.FIXES)


@pytest.mark.parametrize(
    "reason, fix",
    [
        ("args:allowed:region", "args:allowed:region"),
        ("args:range:limit", "args:range"),
        ("args:unknown:sku_id", "args:unknown"),
        ("args:unknown:weird:name", "args:unknown"),
        ("result:too_big:rows", "result:too_big"),
    ],
)
def test_find_fix_by_full_reason_then_prefix(reason, fix):
    """The full reason is looked up first, then its <stage>:<check> prefix."""
    assert tools.find_fix(reason) is tools.FIXES[fix]


@pytest.mark.parametrize(
    "reason",
    [
        "result:empty:rows",
        "tool:raised:KeyError",
        "args:allowed:colour",
        "args:type:limit",
        "args:missing:sku",
        "tool:unknown:x",
        "result:range:days",
    ],
)
def test_find_fix_has_nothing_for_unfixable_reasons(reason):
    """Everything else has no fix."""
    assert tools.find_fix(reason) is None


def test_a_fix_for_the_full_reason_wins_over_the_prefix(table):
    """FIXES is read at call time, and "args:range:limit" beats "args:range"."""
    tools.FIXES["args:range:limit"] = lambda state: {"args": {**state["args"], "limit": 1}}
    state = run_v2(limit=9)
    assert state["status"] == "answered" and state["args"]["limit"] == 1


# ── each fix, end to end ─────────────────────────────────────────────────────


def test_a_region_nobody_serves_becomes_the_default_region():
    """args:allowed:region -> region seoul, then answered."""
    state = run_v2(region="tokyo")
    assert state["reasons"] == ["args:allowed:region"]
    assert state["path"] == ["pick", "call", "fix", "call", "answer"]
    assert (state["args"]["region"], state["status"], state["attempts"]) == ("seoul", "answered", 2)


@pytest.mark.parametrize("limit, clamped", [(9, 2), (0, 1), (-5, 1)])
def test_an_out_of_range_arg_is_clamped_into_range(limit, clamped):
    """args:range -> the nearest bound of the contract."""
    state = run_v2(limit=limit)
    assert state["reasons"] == ["args:range:limit"]
    assert (state["args"]["limit"], state["status"]) == (clamped, "answered")


def test_nan_is_clamped_to_min(put_tool, spy):
    """NaN is outside every range; the fix puts it on min."""
    body = put_tool(
        "weigh",
        spy(value={"kg": 1.0}),
        args={"kg": {"type": "float", "min": 0.5, "max": 3}},
        returns={"kg": {"type": "float"}},
    )
    state = tools.run({"tool": "weigh", "args": {"kg": math.nan}})
    assert state["status"] == "answered" and body.calls == [{"kg": 0.5}]


def test_an_invented_name_close_to_a_contract_arg_is_renamed():
    """args:unknown -> renamed to the closest free contract name (sku_id -> sku, regoin -> region)."""
    state = tools.run({"tool": "stock_lookup_v2", "args": {"sku_id": "B-200", "regoin": "busan", "limit": 1}})
    assert state["reasons"] == ["args:unknown:sku_id", "args:unknown:regoin"]
    assert state["args"] == {"sku": "B-200", "region": "busan", "limit": 1}
    assert state["status"] == "answered" and state["attempts"] == 3


def test_an_unknown_name_close_to_nothing_is_dropped():
    """args:unknown with no close contract name -> the arg is dropped."""
    state = run_v2(colour="blue")
    assert state["args"] == GOOD and state["status"] == "answered"


def test_an_unknown_name_is_not_renamed_onto_an_arg_already_given():
    """sku is given: sku_id is dropped, not written over it."""
    state = run_v2(sku_id="B-200")
    assert state["args"]["sku"] == "A-100" and "sku_id" not in state["args"]


def test_too_many_rows_switch_to_the_upgrade():
    """result:too_big -> the tool's upgrade: old stock_lookup -> stock_lookup_v2."""
    state = tools.run({"tool": "stock_lookup", "args": {**GOOD, "sku": "D-400"}})
    assert state["reasons"] == ["result:too_big:rows"]
    assert (state["tool"], state["status"], len(state["result"]["value"]["rows"])) == ("stock_lookup_v2", "answered", 2)


def test_too_many_rows_without_an_upgrade_gives_up(table, spy):
    """No upgrade to switch to: the fix cannot help, so the run gives up."""
    table["stock_lookup_v2"]["fn"] = spy(value={"sku": "A-100", "rows": [{"region": "seoul", "qty": 1}] * 3})
    state = run_v2()
    assert (state["status"], state["answer"], state["attempts"]) == ("gave_up", None, 1)
    assert state["path"] == ["pick", "call", "fix", "give_up"]


# ── giving up ────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "request_, reason",
    [
        ({"tool": "stock_lookup_v2", "args": {**GOOD, "sku": "Z-999"}}, "result:empty:rows"),
        ({"tool": "delivery_eta", "args": {"sku": "E-500", "region": "jeju"}}, "tool:raised:KeyError"),
        ({"tool": "delivery_eta", "args": {"sku": "A-100", "region": "jeju"}}, "result:range:days"),
        ({"tool": "stock_lookup_v2", "args": {**GOOD, "limit": "2"}}, "args:type:limit"),
        ({"tool": "stock_lookup_v2", "args": {"region": "seoul", "limit": 2}}, "args:missing:sku"),
        ({"tool": "stock_lookup_v9", "args": GOOD}, "tool:unknown:stock_lookup_v9"),
    ],
    ids=["empty", "raised", "hours for days", "type", "missing", "unknown tool"],
)
def test_an_unfixable_reason_gives_up_at_once(request_, reason):
    """No fix: give up after the first call, no answer."""
    state = tools.run(request_)
    assert (state["status"], state["answer"], state["attempts"]) == ("gave_up", None, 1)
    assert state["reasons"] == [reason] and state["path"] == ["pick", "call", "give_up"]
    assert state["result"] == {"ok": False, "value": None, "error": reason}


def test_the_same_reason_twice_gives_up(table):
    """The default region is not served either: allowed:region again, so give up after two calls."""
    table["stock_lookup_v2"]["args"]["region"]["allowed"] = ["busan", "jeju"]
    state = run_v2(region="tokyo")
    assert state["reasons"] == ["args:allowed:region", "args:allowed:region"]
    assert (state["status"], state["attempts"]) == ("gave_up", 2)
    assert state["path"] == ["pick", "call", "fix", "call", "give_up"]


@pytest.fixture
def outages(put_tool):
    """A tool that raises a new exception type on every run, and a fix that just tries again."""
    kinds = [type(f"Outage{i}", (Exception,), {}) for i in range(10)]
    runs = []

    def body():
        runs.append(1)
        raise kinds[len(runs) - 1]()

    put_tool("flaky", body)
    tools.FIXES["tool:raised"] = lambda state: {"args": dict(state["args"])}
    return runs


@pytest.mark.parametrize("max_attempts", [1, 2, 3, 5, 9])
def test_never_more_door_calls_than_max_attempts(outages, max_attempts):
    """Every reason is new and fixable, yet the run stops after max_attempts calls (and no sooner:
    9 calls are 19 graph steps, more than a recursion limit below 2 * max_attempts + 2 allows)."""
    state = tools.run({"tool": "flaky", "args": {}}, max_attempts=max_attempts)
    assert len(outages) == state["attempts"] == max_attempts
    assert state["reasons"] == [f"tool:raised:Outage{i}" for i in range(max_attempts)]
    assert state["status"] == "gave_up" and state["path"][-1] == "give_up"


def test_the_default_limit_is_max_attempts(outages):
    """Without max_attempts the limit is MAX_ATTEMPTS."""
    assert tools.run({"tool": "flaky", "args": {}})["attempts"] == tools.MAX_ATTEMPTS == len(outages)


def test_a_huge_limit_costs_nothing_until_the_calls_are_made():
    """Any int is a limit: max_attempts=2**40 answers a good request at once."""
    state = tools.run({"tool": "stock_lookup_v2", "args": GOOD}, max_attempts=2**40)
    assert (state["status"], state["attempts"]) == ("answered", 1)


@pytest.mark.parametrize("max_attempts", [0, -1])
def test_no_attempts_allowed_means_no_call(outages, max_attempts):
    """A limit below 1 gives up without calling anything."""
    state = tools.run({"tool": "flaky", "args": {}}, max_attempts=max_attempts)
    assert (state["path"], state["attempts"], state["status"]) == (["pick", "give_up"], 0, "gave_up")
    assert outages == []


def test_a_fix_that_raises_gives_up_instead_of_crashing(table):
    """A broken fix cannot help: the run gives up with its reasons."""

    def broken(state: tools.RunState) -> dict:
        return {"args": 1 / 0}

    tools.FIXES["args:allowed:region"] = broken
    state = run_v2(region="tokyo")
    assert state["status"] == "gave_up" and state["reasons"] == ["args:allowed:region"]


# ── memo, never raising, picker ──────────────────────────────────────────────


def test_calls_go_through_the_memo(table, spy):
    """A memo shared by two runs: the second run's answer comes without running the body."""
    body = table["stock_lookup_v2"]["fn"] = spy(wraps=table["stock_lookup_v2"]["fn"])
    request, memo = {"tool": "stock_lookup_v2", "args": GOOD}, dict[str, str]()
    alone = tools.run(request)  # a memo of its own: runs the body
    first, second = tools.run(request, memo=memo), tools.run(request, memo=memo)
    assert alone["answer"] == first["answer"] == second["answer"] and body.runs == 2
    assert len(memo) == 1


ODD_REQUESTS: dict[str, object] = {
    "None": None,
    "list": [],
    "str": "stock_lookup",
    "empty": {},
    "no args": {"tool": "stock_lookup"},
    "no tool": {"args": GOOD},
    "list tool": {"tool": ["stock_lookup"], "args": GOOD},
    "None args": {"tool": "stock_lookup", "args": None},
    "list args": {"tool": "stock_lookup", "args": [("sku", "A-100")]},
    "NaN limit": {"tool": "stock_lookup", "args": {**GOOD, "limit": math.nan}},
    "5001-digit limit": {"tool": "stock_lookup", "args": {**GOOD, "limit": 10**5000}},
    "dict sku": {"tool": "stock_lookup", "args": {**GOOD, "sku": {"$ne": None}}},
}


@pytest.mark.parametrize("request_", ODD_REQUESTS.values(), ids=ODD_REQUESTS)
def test_run_never_raises_whatever_the_request(request_):
    """Any request ends as a state with a status, never as an exception."""
    state = tools.run(request_)
    assert state["status"] in {"answered", "gave_up"} and 1 <= state["attempts"] <= tools.MAX_ATTEMPTS


@pytest.mark.parametrize("max_attempts", ["3", 2.0, None, True])
def test_run_never_raises_whatever_the_attempt_limit(max_attempts):
    """A limit that is not an int gives up with a reason naming it; no call is made."""
    state = tools.run({"tool": "stock_lookup_v2", "args": GOOD}, max_attempts=max_attempts)
    assert (state["status"], state["attempts"], state["reasons"]) == ("gave_up", 0, ["run:type:max_attempts"])


HOLDS_ITSELF: list = [()]
HOLDS_ITSELF.append(HOLDS_ITSELF)  # json.dumps: ValueError (a circular reference)


@pytest.mark.parametrize(
    "value",
    [
        {"n": 1, 2: "int key"},
        {"n": 1, (1, 2): "tuple key"},
        {"n": 10**5000},
        {"n": 1, "at": {1, 2}},
        {"n": 1, "log": HOLDS_ITSELF},
    ],
    ids=["int key", "tuple key", "5001 digits", "set", "a list that holds itself"],
)
def test_run_never_raises_whatever_the_tool_returns(put_tool, spy, value):
    """An ok value JSON cannot print still ends as answered (extra keys are allowed)."""
    put_tool("odd", spy(value=value), returns={"n": {"type": "int"}})
    state = tools.run({"tool": "odd", "args": {}})
    assert state["status"] == "answered" and state["answer"].startswith("odd answered")


def test_the_answer_shows_non_ascii_text_as_it_is(put_tool, spy):
    """É stays É in the answer, never an escape."""
    put_tool("accented", spy(value={"n": 1, "city": "Séoul"}), returns={"n": {"type": "int"}})
    state = tools.run({"tool": "accented", "args": {}})
    assert "Séoul" in state["answer"] and "\\u00e9" not in state["answer"]


def test_a_picker_replaces_the_rules():
    """run(picker=...) puts another picker (where a model would sit) in the pick node."""
    state = tools.run(
        "how many kettles in busan?", picker=lambda text: ("stock_lookup_v2", {**GOOD, "region": text.split()[-1][:-1]})
    )
    assert state["status"] == "answered" and state["args"]["region"] == "busan"
