"""agtool.experiment: noisy requests through a naive agent, the door alone and the retry graph."""

from collections import Counter

import altair as alt
import jsonschema
import pytest

from agtool import experiment, inventory, tools
from agtool.experiment import AGENTS, OUTCOMES, counting_bodies, judge, make_requests, run_experiment, true_answer

pytestmark = pytest.mark.stage6

N = 60


@pytest.fixture(scope="module")
def ran():
    return run_experiment(N, seed=0)


def test_requests_are_the_users_and_reproducible():
    """The same seed gives the same requests; they use the lab's tools, SKUs (and one unknown) and regions."""
    requests = make_requests(200, seed=4)
    assert requests == make_requests(200, seed=4) != make_requests(200, seed=5)
    assert {r["tool"] for r in requests} == {"stock_lookup", "stock_lookup_v2", "delivery_eta"}
    skus = {r["args"]["sku"] for r in requests}
    assert skus == {sku for sku, *_ in inventory.PRODUCTS} | {experiment.UNKNOWN_SKU}
    assert all(tools.check_args(r["tool"], r["args"]) is None for r in requests)  # the users ask well


@pytest.mark.parametrize(
    "request_, expected",
    [
        ({"tool": "stock_lookup", "args": {"sku": "Z-999", "region": "seoul", "limit": 2}}, None),
        ({"tool": "delivery_eta", "args": {"sku": "A-100", "region": "jeju"}}, None),  # 72 hours, not days
        ({"tool": "delivery_eta", "args": {"sku": "E-500", "region": "jeju"}}, None),  # no route: KeyError
        (
            {"tool": "delivery_eta", "args": {"sku": "A-100", "region": "busan"}},
            {"sku": "A-100", "region": "busan", "days": 2},
        ),
        (
            {"tool": "stock_lookup", "args": {"sku": "D-400", "region": "seoul", "limit": 1}},
            {"sku": "D-400", "rows": [{"region": "seoul", "qty": 30}]},
        ),  # from the upgrade
    ],
    ids=["unknown sku", "hours", "no route", "answerable", "old endpoint"],
)
def test_the_true_answer(request_, expected):
    """The right endpoint's value for the request as asked, when it meets the output schema; else None."""
    assert true_answer(request_) == expected


@pytest.mark.parametrize(
    "status, detail, truth, outcome",
    [
        ("answered", {"a": 1}, {"a": 1}, "correct"),
        ("answered", {"a": 2}, {"a": 1}, "made_up"),
        ("answered", {"rows": []}, None, "made_up"),
        ("gave_up", "args:type:limit", {"a": 1}, "gave_up"),
        ("crashed", "KeyError: 'jeju'", None, "crashed"),
    ],
)
def test_judge(status, detail, truth, outcome):
    """An answer is correct only when it is the true one; with no true answer, any answer is made up."""
    assert judge(status, detail, truth) == outcome


def test_every_request_goes_through_every_agent_once(ran):
    """N runs per agent, each judged one of the four outcomes, all with the same picks."""
    assert Counter(run.agent for run in ran.runs) == dict.fromkeys(AGENTS, N)
    assert {run.outcome for run in ran.runs} <= set(OUTCOMES)
    for start in range(0, len(ran.runs), len(AGENTS)):
        group = ran.runs[start : start + len(AGENTS)]
        assert [run.agent for run in group] == list(AGENTS)
        assert all(
            (run.request, run.pick, run.truth) == (group[0].request, group[0].pick, group[0].truth) for run in group
        )


def test_the_lessons_claim(ran):
    """Naive crashes and makes answers up; the door never does either; the graph answers more than the door."""
    table = {agent: dict(zip([*OUTCOMES, "runs"], counts, strict=True)) for agent, *counts in ran.table().rows}
    assert table["naive"]["crashed"] > 0 and table["naive"]["made_up"] > 0 and table["naive"]["gave_up"] == 0
    assert table["door"]["crashed"] == table["door"]["made_up"] == 0
    assert table["graph"]["crashed"] == 0
    assert table["graph"]["correct"] > table["door"]["correct"]
    for agent, row in table.items():
        assert row["crashed"] + row["made_up"] + row["correct"] + row["gave_up"] == N, agent


def test_correct_means_the_true_answer_and_a_give_up_has_a_reason(ran):
    """The outcome labels hold run by run."""
    for run in ran.runs:
        if run.outcome == "correct":
            assert run.detail == run.truth is not None
        if run.outcome == "gave_up":
            assert isinstance(run.detail, str) and ":" in run.detail


def test_the_door_runs_no_body_for_a_pick_it_refuses(ran):
    """Bad args never reach a body through the door; naively they do, or crash."""
    refused = [run for run in ran.where("door", "gave_up") if run.detail.startswith(("args:", "tool:unknown"))]
    assert refused and all(run.body_runs == 0 for run in refused)


def test_the_same_seed_gives_the_same_table():
    """Reproducible: the same n and seed give the same outcome table."""
    assert str(run_experiment(20, seed=3).table()) == str(run_experiment(20, seed=3).table())


def test_table_and_chart(ran):
    """The table prints as Markdown and as HTML; the chart is a Vega-Lite spec (Altair) that Vega-Lite's own
    schema accepts, with one panel for how runs ended and one for body runs, holding the table's numbers."""
    table = ran.table()
    text = str(table)
    assert text.splitlines()[0] == "| " + " | ".join(table.columns) + " |"
    assert all(f"| {agent} |" in text for agent in AGENTS) and f"{N} noisy requests" in text
    assert "<table>" in table._repr_html_()
    chart = ran.chart()
    assert isinstance(chart, alt.HConcatChart)
    spec = chart.to_dict()  # Altair validates it against the Vega-Lite schema it ships; so do we, below
    jsonschema.Draft7Validator(alt.load_schema()).validate(spec)
    outcomes, body_runs = spec["hconcat"]
    ended = {(row["agent"], row["outcome"]): row["runs"] for row in outcomes["data"]["values"]}
    per_request = {row["agent"]: row["runs"] for row in body_runs["data"]["values"]}
    for agent, *counts, runs in table.rows:
        assert [ended[agent, label] for label in OUTCOMES.values()] == counts
        assert per_request[agent] == round(runs, 2)
    assert "application/vnd.vegalite.v5+json" in chart._repr_mimebundle_()[0]  # what JupyterLab draws itself


def test_counting_bodies_counts_runs_and_gives_the_bodies_back():
    """A body is counted when it starts; args it cannot take raise Python's own TypeError uncounted."""
    bodies = {name: entry["fn"] for name, entry in tools.TOOLS.items()}
    with pytest.raises(RuntimeError), counting_bodies() as runs:
        tools.TOOLS["delivery_eta"]["fn"](sku="A-100", region="busan")
        with pytest.raises(TypeError, match="unexpected keyword argument 'location'"):
            tools.TOOLS["delivery_eta"]["fn"](sku="A-100", location="busan")
        assert runs == {"delivery_eta": 1}
        raise RuntimeError("the bodies come back even so")
    assert {name: entry["fn"] for name, entry in tools.TOOLS.items()} == bodies


def test_an_unfinished_module_gives_a_value_that_names_the_stage(table, monkeypatch):
    """Before the stages it needs are written, the experiment says which one, as a value, never a traceback."""
    eta = table.pop("delivery_eta")
    missing_tool = run_experiment(5)
    assert repr(missing_tool.table()).startswith("not implemented yet: Stage 1: TOOLS has no delivery_eta")
    table["delivery_eta"] = eta

    def stub(name, args):
        raise NotImplementedError("Stage 4: call_tool — see notebooks/04_door.ipynb")

    monkeypatch.setattr(tools, "call_tool", stub)
    unfinished = run_experiment(5)
    assert unfinished.runs == [] and unfinished.where("graph", "correct") == []
    assert repr(unfinished.chart()) == "not implemented yet: Stage 4: call_tool — see notebooks/04_door.ipynb"
