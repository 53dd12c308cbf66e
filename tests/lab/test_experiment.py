"""agtool.experiment: noisy requests through a naive agent, the door alone and the retry graph; once, and
again and again for pass^k."""

import re
from collections import Counter
from fractions import Fraction

import altair as alt
import jsonschema
import pytest

from agtool import experiment, inventory, tools
from agtool.experiment import (
    AGENTS,
    OUTCOMES,
    Run,
    counting_bodies,
    judge,
    make_requests,
    pass_k,
    run_experiment,
    run_trials,
    task_pass_k,
    true_answer,
)

pytestmark = pytest.mark.stage6

N = 60
TRIALS = 8


@pytest.fixture(scope="module")
def ran():
    return run_experiment(N, seed=0)


@pytest.fixture(scope="module")
def tried():
    return run_trials(N, TRIALS, seed=0)


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


# ── pass^k ───────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "trials, successes, k, expected",
    [
        (4, 2, 2, Fraction(1, 6)),  # C(2,2)/C(4,2): 1 of the 6 pairs of trials is both right
        (4, 2, 1, Fraction(1, 2)),  # pass^1 is the share of right trials
        (4, 3, 2, Fraction(1, 2)),  # 3 of the 6 pairs
        (5, 3, 3, Fraction(1, 10)),  # 1 of the 10 triples
        (4, 4, 4, Fraction(1)),
        (4, 3, 4, Fraction(0)),  # one wrong trial and all 4 cannot be right
        (8, 0, 1, Fraction(0)),
    ],
)
def test_the_estimate_for_one_request(trials, successes, k, expected):
    """C(c, k) / C(n, k), τ-bench's estimate, on cases counted by hand; not (c/n)^k (1/4 for the first)."""
    assert task_pass_k(trials, successes, k) == expected


def test_pass_k_averages_over_requests():
    """Two requests of 4 trials, 2 and 4 right: pass^2 = (1/6 + 1) / 2, pass^4 = (0 + 1) / 2."""
    assert pass_k([2, 4], 4, 2) == Fraction(7, 12)
    assert pass_k([2, 4], 4, 4) == Fraction(1, 2)


@pytest.mark.parametrize(
    "successes, trials, k, message",
    [
        ([2], 4, 5, "k is 5; give an int from 1 to the 4 trials that ran"),
        ([2], 4, 0, "k is 0; give an int from 1 to the 4 trials that ran"),
        ([2], 4, True, "k is True; give an int"),
        ([5], 4, 1, "successes is 5; give an int from 0 to the 4 trials that ran"),
        ([-1], 4, 1, "successes is -1; give an int from 0"),
        ([], 4, 1, "successes is empty; give one count a request"),
    ],
)
def test_pass_k_refuses_what_it_cannot_estimate(successes, trials, k, message):
    """One line that names the bad value and what to give instead."""
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        pass_k(successes, trials, k)


@pytest.mark.parametrize(
    "outcome, truth, succeeded",
    [
        ("correct", {"a": 1}, True),
        ("gave_up", None, True),  # nothing true can be said: giving up is the right outcome
        ("gave_up", {"a": 1}, False),  # there was a true answer to give
        ("made_up", None, False),
        ("made_up", {"a": 1}, False),
        ("crashed", None, False),
    ],
)
def test_a_run_succeeds_when_it_is_right(outcome, truth, succeeded):
    """The experiment's own notion of a right outcome: the true answer, or giving up where there is none."""
    run = Run("door", {}, ("t", {}), [], outcome, None, 0, truth)
    assert run.succeeded is succeeded


def test_trial_1_is_the_one_run_experiment_and_later_trials_are_new_picks(tried, ran):
    """The same requests every trial; the picks are new draws of the same model; the first trial is run_experiment."""
    assert len(tried.trials) == TRIALS and tried.trials[0].runs == ran.runs
    requests = [[run.request for run in trial.runs] for trial in tried.trials]
    picks = [[run.pick for run in trial.runs] for trial in tried.trials]
    assert all(these == requests[0] for these in requests)
    assert len({repr(these) for these in picks}) == TRIALS
    assert str(run_trials(20, 3, seed=5).table()) == str(run_trials(20, 3, seed=5).table())


def test_pass_1_is_the_one_run_success_rate(tried, ran):
    """pass^1 over the trials is the mean of their one-run success rates; with one trial, run_experiment's rate."""
    once = run_trials(N, 1, seed=0)
    for agent in AGENTS:
        rates = [trial.success_rate(agent) for trial in tried.trials]
        assert pass_k(tried.successes(agent), TRIALS, 1) == sum(rates) / TRIALS
        assert pass_k(once.successes(agent), 1, 1) == ran.success_rate(agent)
        assert ran.success_rate(agent) == Fraction(
            len([run for run in ran.runs if run.agent == agent and run.succeeded]), N
        )


def test_successes_count_the_right_trials_of_each_request(tried):
    """c per request, in request order, is the number of trials whose run of that request succeeded."""
    for agent in AGENTS:
        mine = [[run for run in trial.runs if run.agent == agent] for trial in tried.trials]
        expected = [sum(runs[i].succeeded for runs in mine) for i in range(N)]
        assert tried.successes(agent) == expected
        assert 0 < sum(expected) < N * TRIALS, agent  # neither all right nor all wrong: the figures say something


def test_the_reliability_claim(tried):
    """pass^k falls with k for every agent; the naive agent keeps the smallest share of its pass^1; where there is
    no true answer the door gives up every time (pass^8 = 1) and the naive agent is never right."""
    rows = {agent: figures for agent, *figures in tried.table().rows}
    for agent, figures in rows.items():
        assert figures == sorted(figures, reverse=True) and figures[0] > figures[-1], agent
    kept = {agent: figures[-1] / figures[0] for agent, figures in rows.items()}
    assert kept["naive"] < min(kept["door"], kept["graph"])
    assert rows["graph"][0] > rows["door"][0] > rows["naive"][0]
    none = {agent: figures for agent, *figures in tried.only(answerable=False).table().rows}
    assert none["door"] == [1.0] * TRIALS and none["naive"] == [0.0] * TRIALS


def test_only_splits_the_requests_by_whether_they_have_a_true_answer(tried, ran):
    """The two halves hold every run once, and their captions say which requests they count."""
    answerable, unanswerable = tried.only(answerable=True), tried.only(answerable=False)
    for agent in AGENTS:
        assert len(answerable.successes(agent)) == ran.answerable()
        assert sum(answerable.successes(agent)) + sum(unanswerable.successes(agent)) == sum(tried.successes(agent))
    assert f"{ran.answerable()} requests with a true answer" in str(answerable.table())
    assert f"{N - ran.answerable()} requests with no true answer" in str(unanswerable.table())


def test_pass_k_table_and_chart(tried):
    """The table prints as Markdown and HTML, a column a k; the chart is a Vega-Lite spec that Vega-Lite's own
    schema accepts, a line per agent holding the table's numbers."""
    table = tried.table()
    text = str(table)
    assert text.splitlines()[0] == "| agent | " + " | ".join(f"pass^{k}" for k in range(1, TRIALS + 1)) + " |"
    assert f"{N} noisy requests, each run {TRIALS} times" in text and "<table>" in table._repr_html_()
    chart = tried.chart()
    assert isinstance(chart, alt.LayerChart)
    spec = chart.to_dict()
    jsonschema.Draft7Validator(alt.load_schema()).validate(spec)
    points = {(row["agent"], row["k"]): row["pass_k"] for row in spec["data"]["values"]}
    for agent, *figures in table.rows:
        assert [points[agent, k] for k in range(1, TRIALS + 1)] == [round(value, 3) for value in figures]
    assert "application/vnd.vegalite.v5+json" in chart._repr_mimebundle_()[0]


def test_trials_and_agents_are_checked(tried):
    """A bad count, agent name or an empty split is one line that says what to give."""
    with pytest.raises(ValueError, match=r"^trials is 0; give how many times each request runs"):
        run_trials(5, 0)
    with pytest.raises(ValueError, match=r"^n is -1; give how many requests to make"):
        run_trials(-1)
    with pytest.raises(ValueError, match=r"^agent is 'robot'; name one of naive, door, graph$"):
        tried.successes("robot")
    with pytest.raises(ValueError, match=r"^agent is 'robot'; name one of"):
        tried.trials[0].success_rate("robot")
    with pytest.raises(ValueError, match=r"^door has no runs here; run_experiment\(n\) with n of 1 or more"):
        experiment.Experiment().success_rate("door")
    all_answerable = run_trials(2, 1, seed=0)  # both of its requests have a true answer
    assert all(run.truth is not None for run in all_answerable.trials[0].runs)
    with pytest.raises(
        ValueError, match=r"^there are no requests with no true answer here; run_trials\(n\) with a larger n"
    ):
        all_answerable.only(answerable=False).table()


def test_an_unfinished_module_gives_trials_that_name_the_stage(monkeypatch):
    """Before the stages it needs are written, pass^k says which one, as a value, never a traceback."""

    def stub(request, max_attempts=3, memo=None, picker=None):
        raise NotImplementedError("Stage 6: run — see notebooks/06_retry_graph.ipynb")

    monkeypatch.setattr(tools, "run", stub)
    unfinished = run_trials(5, 2)
    assert unfinished.trials == []
    for shown in (unfinished.table(), unfinished.chart(), unfinished.only(answerable=True).table()):
        assert repr(shown) == "not implemented yet: Stage 6: run — see notebooks/06_retry_graph.ipynb"


def test_a_door_or_graph_that_raises_is_a_crashed_run_not_a_traceback(monkeypatch):
    """An exception out of the student's door or graph ends that agent's run as "crashed", as the naive agent's
    exceptions do: the experiment goes on, and the table shows it."""

    def door(name, args):
        raise KeyError("oops")

    def run(request, max_attempts=3, memo=None, picker=None):
        raise ValueError("no graph")

    monkeypatch.setattr(tools, "call_tool", door)
    monkeypatch.setattr(tools, "run", run)
    result = run_experiment(10, seed=0)
    for agent, raised in (("door", "KeyError: 'oops'"), ("graph", "ValueError: no graph")):
        mine = [one for one in result.runs if one.agent == agent]
        assert len(mine) == 10 and {(one.outcome, one.detail) for one in mine} == {("crashed", raised)}
