"""agtool.experiment: noisy requests through three agents, the lesson's claim made visible.

A model is wrong differently each time. NoisyPicker plays one; every request
is picked once, and three agents get the same pick, so they differ only in what
they do with it:

    naive   runs the tool body with whatever the model picked and answers what comes back
    door    one call through call_tool: answers an ok value, gives up on a failure with its reason
    graph   run(): the retry graph fixes what it can within MAX_ATTEMPTS and gives up on the rest

Each run ends one way:

    crashed   an exception came out of the agent: the run, and the conversation, are over
    made up   an answer, but not the true one (the request has no true answer, or another one)
    correct   the true answer
    gave up   no answer, and a reason why

The true answer to a request is what the right endpoint (a tool's upgrade, if it
has one) returns for the request as the user asked it, before any mistake, when
that meets the contract's output schema, as jsonschema judges it (not the door
under test). When it does not (an unknown SKU, hours where days belong, no
route) nothing true can be said, and giving up is the only right outcome.

A run succeeds when it is right: the true answer, or giving up where nothing true
can be said. run_trials runs the same requests again and again, each time a new
pick of the same noisy model, and gives pass^k as τ-bench reports it (Yao et al.
2024, "τ-bench: A Benchmark for Tool-Agent-User Interaction in Real-World Domains",
arXiv:2406.12045): the chance that all k trials of a request succeed.

It runs on the student's own agtool/tools.py. Until the stages it needs are
written, the experiment is a value that says which one is missing.
"""

import contextlib
import copy
import functools
import inspect
import math
import random
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import altair as alt
import jsonschema

from agtool import inventory, schema, student
from agtool.lab import Raised, Table
from agtool.pickers import NoisyPicker

# The chart is Vega-Lite: JupyterLab, Notebook 7 and VS Code draw it themselves, offline, from its
# mimetype; Colab draws it from HTML that loads Vega from a CDN (Altair's renderer for it).
alt.renderers.enable("colab" if "google.colab" in sys.modules else "mimetype")

UNKNOWN_SKU = "Z-999"  # a SKU the inventory has never heard of: its lookup is empty
OUTCOMES = {
    "crashed": "crashed runs",
    "made_up": "made-up answers",
    "correct": "correct answers",
    "gave_up": "given up with a reason",
}
COLOURS = {"crashed": "#b2182b", "made_up": "#ef8a62", "gave_up": "#999999", "correct": "#1a9850"}
AGENT_COLOURS = {"naive": "#d95f02", "door": "#7570b3", "graph": "#1b9e77"}
TRIALS = 8  # τ-bench reports pass^1 to pass^8


def make_requests(n: int = 200, seed: int = 0) -> list[dict]:
    """n requests as users ask them: a stock lookup (old or new endpoint) or a delivery estimate."""
    rng = random.Random(f"requests {seed}")  # not the picker's stream: requests and mistakes stay independent
    skus = [sku for sku, *_ in inventory.PRODUCTS] + [UNKNOWN_SKU]
    requests = []
    for _ in range(n):
        tool = rng.choice(["stock_lookup", "stock_lookup_v2", "delivery_eta"])
        args: dict[str, str | int] = {"sku": rng.choice(skus), "region": rng.choice(inventory.REGIONS)}
        if tool != "delivery_eta":
            args["limit"] = rng.choice([1, 2])
        requests.append({"tool": tool, "args": args})
    return requests


def true_answer(request: dict) -> dict | None:
    """The value the right endpoint gives for the request as asked, or None when nothing true can be said."""
    table = student.module().TOOLS
    entry = table[request["tool"]]
    right = table[entry.get("upgrade", request["tool"])]
    try:
        value = right["fn"](**request["args"])
    except Exception:  # no route, say: there is no true answer to give
        return None
    validator = jsonschema.Draft202012Validator(schema.returns_schema(right["returns"]))
    return value if validator.is_valid(value) else None


# ── The three agents ─────────────────────────────────────────────────────────
# Each takes the model's pick and returns (status, detail): "answered" and the
# value, "gave_up" and the reason, or "crashed" and the exception.


def naive_agent(tool: Any, args: Any) -> tuple[str, Any]:
    """Look the tool up and run its body with the model's args: no contract, no checks."""
    try:
        return "answered", student.module().TOOLS[tool]["fn"](**args)
    except Exception as error:
        return "crashed", f"{type(error).__name__}: {error}"


def door_agent(tool: Any, args: Any) -> tuple[str, Any]:
    """One call through the door: an ok value is the answer, a failure is a reason."""
    try:
        envelope = student.module().call_tool(tool, args)
    except NotImplementedError:  # a stage still to write: the experiment says which
        raise
    except Exception as error:  # a door that raises crashes its agent, as any exception out of an agent does
        return "crashed", f"{type(error).__name__}: {error}"
    return ("answered", envelope["value"]) if envelope["ok"] else ("gave_up", envelope["error"])


def graph_agent(tool: Any, args: Any) -> tuple[str, Any]:
    """The retry graph, with the model's pick in the pick node."""
    try:
        state = student.module().run({"tool": tool, "args": args}, picker=lambda request: (tool, args))
    except NotImplementedError:
        raise
    except Exception as error:  # run never raises (stage 6): one that does crashes its agent
        return "crashed", f"{type(error).__name__}: {error}"
    if state["status"] == "answered":
        return "answered", state["result"]["value"]
    return "gave_up", " -> ".join(state["reasons"]) or "no attempts left"


AGENTS: dict[str, Callable[[Any, Any], tuple[str, Any]]] = {
    "naive": naive_agent,
    "door": door_agent,
    "graph": graph_agent,
}


# ── Counting tool-body runs ──────────────────────────────────────────────────


@contextlib.contextmanager
def counting_bodies():
    """Inside the block every TOOLS body counts its runs into the Counter it yields; then the bodies are back."""
    runs: Counter[str] = Counter()
    table = student.module().TOOLS
    saved = {name: entry["fn"] for name, entry in table.items()}
    for name, fn in saved.items():
        table[name]["fn"] = _counted(name, fn, runs)
    try:
        yield runs
    finally:
        for name, fn in saved.items():
            table[name]["fn"] = fn


def _counted(name: str, fn: Callable, runs: Counter) -> Callable:
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def body(*args, **kwargs):
        try:
            signature.bind(*args, **kwargs)
        except TypeError:  # args the body cannot take never start it: let Python say so in its own words
            return fn(*args, **kwargs)
        runs[name] += 1
        return fn(*args, **kwargs)

    return body


# ── The experiment ───────────────────────────────────────────────────────────


@dataclass
class Run:
    """One request through one agent."""

    agent: str
    request: dict
    pick: tuple  # (tool, args) as the model picked them
    mistakes: list[str]  # what the model got wrong, by NoisyPicker's names
    outcome: str  # a key of OUTCOMES
    detail: Any  # the answer, the reason given up with, or the exception
    body_runs: int  # tool-body runs this run caused
    truth: dict | None  # the true answer, None when there is none

    @property
    def succeeded(self) -> bool:
        """Right, as the experiment judges it: the true answer, or giving up where nothing true can be said."""
        return self.outcome == "correct" or (self.outcome == "gave_up" and self.truth is None)


@dataclass
class Experiment:
    """Every run of the experiment, and its outcome table and chart; or the stage it still needs."""

    runs: list[Run] = field(default_factory=list)
    not_ready: NotImplementedError | None = None

    def table(self) -> "OutcomeTable | Raised":
        if self.not_ready is not None:
            return Raised(self.not_ready)
        rows = []
        for agent in AGENTS:
            mine = [run for run in self.runs if run.agent == agent]
            counts = Counter(run.outcome for run in mine)
            rows.append(
                (
                    agent,
                    *(counts[outcome] for outcome in OUTCOMES),
                    sum(run.body_runs for run in mine) / max(len(mine), 1),
                )
            )
        requests, answerable = len(self.runs) // len(AGENTS), self.answerable()
        return OutcomeTable(
            ["agent", *OUTCOMES.values(), "tool-body runs per request"],
            rows,
            f"{requests} noisy requests per agent; {answerable} of them have a true answer",
            requests=requests,
            answerable=answerable,
        )

    def answerable(self) -> int:
        """How many requests have a true answer: the most correct answers any agent can give."""
        return sum(run.truth is not None for run in self.runs if run.agent == next(iter(AGENTS)))

    def chart(self) -> "alt.HConcatChart | Raised":
        table = self.table()
        return table if isinstance(table, Raised) else outcome_chart(table)

    def where(self, agent: str, outcome: str) -> list[Run]:
        """The runs of one agent that ended one way, to look at."""
        return [run for run in self.runs if run.agent == agent and run.outcome == outcome]

    def success_rate(self, agent: str) -> Fraction:
        """The share of one agent's runs that succeeded (Run.succeeded)."""
        known_agent(agent)
        mine = [run.succeeded for run in self.runs if run.agent == agent]
        if not mine:
            raise ValueError(f"{agent} has no runs here; run_experiment(n) with n of 1 or more gives some")
        return Fraction(sum(mine), len(mine))


def known_agent(agent: str) -> None:
    """Nothing when agent names one of AGENTS; else a ValueError that lists them."""
    if agent not in AGENTS:
        raise ValueError(f"agent is {agent!r}; name one of {', '.join(AGENTS)}")


def run_experiment(n: int = 200, seed: int = 0, rates: dict[str, float] | None = None) -> Experiment:
    """n noisy requests (NoisyPicker(seed, rates)) through each agent, once; the same seed gives the same runs."""
    once = run_trials(n, 1, seed, rates)
    return once.trials[0] if once.not_ready is None else Experiment(not_ready=once.not_ready)


def run_trials(
    n: int = 200, trials: int = TRIALS, seed: int = 0, rates: dict[str, float] | None = None
) -> "Reliability":
    """The same n requests, `trials` times through each agent, each time a new pick by the same noisy model.

    One NoisyPicker picks trial after trial, as a model asked the same things again would: trial 1 is
    run_experiment(n, seed, rates), each later one errs elsewhere, and the same seed gives the same trials."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n is {n!r}; give how many requests to make, an int of 1 or more")
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ValueError(f"trials is {trials!r}; give how many times each request runs, an int of 1 or more")
    picker = NoisyPicker(seed, rates)
    try:
        requests, truths = requests_with_truths(n, seed)
        return Reliability([one_trial(requests, truths, picker) for _ in range(trials)])
    except NotImplementedError as stub:  # a stage of the student's module still to write: say which
        return Reliability(not_ready=stub)


def requests_with_truths(n: int, seed: int) -> tuple[list[dict], list[dict | None]]:
    """n requests as users ask them, and the true answer to each (None where there is none)."""
    table = student.module().TOOLS
    missing = [name for name in ("stock_lookup", "stock_lookup_v2", "delivery_eta") if name not in table]
    if missing:
        raise NotImplementedError(f"Stage 1: TOOLS has no {missing[0]} yet — see notebooks/01_contract.ipynb")
    requests = make_requests(n, seed)
    return requests, [true_answer(request) for request in requests]


def one_trial(requests: list[dict], truths: list[dict | None], picker: NoisyPicker) -> Experiment:
    """Each request picked once by the model, and that one pick handed to every agent."""
    experiment = Experiment()
    picks = [picker.pick(request) for request in requests]
    with counting_bodies() as body_runs:
        for request, truth, (tool, args, mistakes) in zip(requests, truths, picks, strict=True):
            for agent, act in AGENTS.items():
                before = body_runs.total()
                status, detail = act(tool, copy.deepcopy(args))  # no agent sees another's changes
                experiment.runs.append(
                    Run(
                        agent,
                        request,
                        (tool, args),
                        mistakes,
                        judge(status, detail, truth),
                        detail,
                        body_runs.total() - before,
                        truth,
                    )
                )
    return experiment


def judge(status: str, detail: Any, truth: dict | None) -> str:
    """The outcome of a run: an answer is correct only when it is the true one."""
    if status == "answered":
        return "correct" if truth is not None and detail == truth else "made_up"
    return status


# ── Reliability: pass^k ──────────────────────────────────────────────────────


def task_pass_k(trials: int, successes: int, k: int) -> Fraction:
    """For one request run `trials` times with `successes` of them right, the chance that k of its
    trials, drawn without replacement, all succeed: C(successes, k) / C(trials, k), τ-bench's estimate."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= trials:
        raise ValueError(f"k is {k!r}; give an int from 1 to the {trials} trials that ran")
    if isinstance(successes, bool) or not isinstance(successes, int) or not 0 <= successes <= trials:
        raise ValueError(f"successes is {successes!r}; give an int from 0 to the {trials} trials that ran")
    return Fraction(math.comb(successes, k), math.comb(trials, k))


def pass_k(successes: list[int], trials: int, k: int) -> Fraction:
    """pass^k: task_pass_k averaged over the requests, given each one's count of successes."""
    if not successes:
        raise ValueError("successes is empty; give one count a request, for one request or more")
    return sum((task_pass_k(trials, count, k) for count in successes), Fraction(0)) / len(successes)


@dataclass
class Reliability:
    """The trials of the experiment, and pass^1 to pass^trials per agent; or the stage it still needs."""

    trials: list[Experiment] = field(default_factory=list)
    not_ready: NotImplementedError | None = None
    which: str = "noisy requests"  # what the requests are, for the caption

    def successes(self, agent: str) -> list[int]:
        """Per request, in order, how many of its trials the agent got right (τ-bench's c)."""
        known_agent(agent)
        per_trial = [[run.succeeded for run in trial.runs if run.agent == agent] for trial in self.trials]
        return [sum(column) for column in zip(*per_trial, strict=True)]

    def only(self, answerable: bool) -> "Reliability":
        """The same trials on the requests that have a true answer (True), or on those that have none (False)."""
        if self.not_ready is not None:
            return self
        kept = [
            Experiment([run for run in trial.runs if (run.truth is not None) == answerable]) for trial in self.trials
        ]
        return Reliability(kept, which="requests with a true answer" if answerable else "requests with no true answer")

    def table(self) -> "PassKTable | Raised":
        if self.not_ready is not None:
            return Raised(self.not_ready)
        trials, requests = len(self.trials), len(self.successes(next(iter(AGENTS))))
        if not requests:
            raise ValueError(f"there are no {self.which} here; run_trials(n) with a larger n gives some")
        rows = [
            (agent, *(float(pass_k(self.successes(agent), trials, k)) for k in range(1, trials + 1)))
            for agent in AGENTS
        ]
        caption = (
            f"{requests} {self.which}, each run {trials} times through each agent; pass^k: the chance"
            " that all k trials of a request succeed (the true answer, or giving up where there is none)"
        )
        columns = ["agent", *(f"pass^{k}" for k in range(1, trials + 1))]
        return PassKTable(columns, rows, caption, requests=requests, trials=trials, which=self.which)

    def chart(self) -> "alt.LayerChart | Raised":
        table = self.table()
        return table if isinstance(table, Raised) else pass_k_chart(table)


# ── Showing it ───────────────────────────────────────────────────────────────


@dataclass(repr=False, kw_only=True)
class OutcomeTable(Table):
    """Per agent: runs ending each way, and tool-body runs per request."""

    requests: int
    answerable: int


@dataclass(repr=False, kw_only=True)
class PassKTable(Table):
    """Per agent: pass^1 to pass^trials."""

    requests: int
    trials: int
    which: str


def outcome_chart(table: OutcomeTable) -> alt.HConcatChart:
    """Two panels: how each agent's runs ended (stacked), and its tool-body runs per request.

    A Vega-Lite chart (Altair): JupyterLab, Colab and VS Code draw it themselves, so the kit needs
    no plotting stack of its own (matplotlib and numpy were half of the kit's disk)."""
    agents = [row[0] for row in table.rows]
    ended = [
        {"agent": row[0], "outcome": label, "order": order, "runs": row[order]}
        for row in table.rows
        for order, label in enumerate(OUTCOMES.values(), start=1)
    ]
    y = alt.Y("agent:N", sort=agents, title=None)
    colour = alt.Color(
        "outcome:N",
        scale=alt.Scale(domain=list(OUTCOMES.values()), range=[COLOURS[key] for key in OUTCOMES]),
        legend=alt.Legend(orient="bottom", title=None),
    )
    bars = alt.Chart(alt.Data(values=ended)).encode(
        x=alt.X(
            "runs:Q",
            stack="zero",
            title=f"runs, of {table.requests} noisy requests ({table.answerable} with a true answer)",
        ),
        y=y,
        order=alt.Order("order:Q"),
    )
    outcomes = alt.layer(
        bars.mark_bar().encode(color=colour),
        bars.mark_text(color="white")
        .encode(x=alt.X("runs:Q", stack="zero", bandPosition=0.5), text="runs:Q")
        .transform_filter("datum.runs > 0"),
    ).properties(width=480, height=120)
    per_request = [{"agent": row[0], "runs": round(row[-1], 2)} for row in table.rows]
    runs = alt.Chart(alt.Data(values=per_request)).encode(
        x=alt.X("runs:Q", title="tool-body runs per request"), y=y, text=alt.Text("runs:Q", format=".2f")
    )
    body_runs = alt.layer(runs.mark_bar(color="#4575b4"), runs.mark_text(align="left", dx=3)).properties(
        width=160, height=120
    )
    return alt.hconcat(outcomes, body_runs).properties(title="The same noisy model picks, three agents")


def pass_k_chart(table: PassKTable) -> alt.LayerChart:
    """pass^k against k, a line per agent: how fast each one's reliability falls as the same request returns."""
    agents = [row[0] for row in table.rows]
    points = [
        {"agent": row[0], "k": k, "pass_k": round(value, 3)} for row in table.rows for k, value in enumerate(row[1:], 1)
    ]
    lines = alt.Chart(alt.Data(values=points)).encode(
        x=alt.X(
            "k:O",
            axis=alt.Axis(labelAngle=0),
            title=f"k: trials of the same request that must all succeed (of {table.trials})",
        ),
        y=alt.Y("pass_k:Q", scale=alt.Scale(domain=[0, 1]), title="pass^k"),
        color=alt.Color(
            "agent:N",
            scale=alt.Scale(domain=agents, range=[AGENT_COLOURS[agent] for agent in agents]),
            legend=alt.Legend(orient="bottom", title=None),
        ),
    )
    return alt.layer(
        lines.mark_line(),
        lines.mark_point(filled=True),
        lines.mark_text(align="left", dx=6)
        .encode(text=alt.Text("pass_k:Q", format=".2f"))
        .transform_filter(f"datum.k == {table.trials}"),
    ).properties(width=480, height=240, title=f"pass^k on {table.requests} {table.which}")
