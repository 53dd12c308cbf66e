"""agtool.pickers: NoisyPicker makes the lesson's mistakes, reproducibly by seed, and fits the graph's model seat."""

from typing import Any

import pytest

from agtool import tools
from agtool.experiment import make_requests
from agtool.pickers import DEFAULT_RATES, INVENTED_REGIONS, INVENTED_TOOLS, MISTAKES, SYNONYMS, NoisyPicker

pytestmark = pytest.mark.stage6

STOCK: dict[str, Any] = {"tool": "stock_lookup", "args": {"sku": "A-100", "region": "busan", "limit": 2}}
NEVER = dict.fromkeys(MISTAKES, 0.0)


def only(mistake):
    return {**NEVER, mistake: 1.0}


def test_with_no_mistakes_the_request_passes_through():
    """Rates of 0: the pick is the request, as the rules picker makes it."""
    picker = NoisyPicker(seed=1, rates=NEVER)
    assert picker.pick(STOCK) == ("stock_lookup", STOCK["args"], [])
    assert picker(STOCK) == tools.pick_by_rules(STOCK)


# (mistake, what the pick must show)
EACH = [
    (
        "synonym",
        lambda tool, args: (
            tool == "stock_lookup"
            and any(
                set(args) == set(STOCK["args"]) - {name} | {synonym}
                for name, synonyms in SYNONYMS.items()
                for synonym in synonyms
            )
        ),
    ),
    ("number_as_string", lambda tool, args: args == {**STOCK["args"], "limit": "2"}),
    ("invented_region", lambda tool, args: args["region"] in INVENTED_REGIONS),
    ("too_many_rows", lambda tool, args: args["limit"] == 20),
    ("unknown_tool", lambda tool, args: tool in INVENTED_TOOLS and tool not in tools.TOOLS),
]


@pytest.mark.parametrize("mistake, shows", EACH, ids=[e[0] for e in EACH])
def test_each_mistake(mistake, shows):
    """Each mistake, made every time: a near synonym, "2" for 2, a region nobody serves, 20 rows, no such tool."""
    picker = NoisyPicker(seed=3, rates=only(mistake))
    for _ in range(20):
        tool, args, made = picker.pick(STOCK)
        assert made == [mistake] and shows(tool, args), (tool, args)


def test_the_request_is_never_changed():
    """The picker copies: the request a caller holds keeps its args."""
    request = {"tool": "stock_lookup", "args": dict(STOCK["args"])}
    NoisyPicker(seed=0, rates=dict.fromkeys(MISTAKES, 1.0)).pick(request)
    assert request == STOCK


def test_a_mistake_with_nothing_to_change_is_not_made():
    """delivery_eta has no limit: asking for too many rows cannot happen to it, and is not reported."""
    eta = {"tool": "delivery_eta", "args": {"sku": "A-100", "region": "jeju"}}
    assert NoisyPicker(seed=0, rates=only("too_many_rows")).pick(eta) == ("delivery_eta", eta["args"], [])


def test_the_same_seed_gives_the_same_picks_and_another_seed_others():
    """Reproducible by seed: one seed, one sequence of requests, one sequence of picks."""
    requests = make_requests(100, seed=0)
    first, again, other = NoisyPicker(5), NoisyPicker(5), NoisyPicker(6)
    picks = [first.pick(r) for r in requests]
    assert picks == [again.pick(r) for r in requests]
    assert picks != [other.pick(r) for r in requests]
    assert any(made for *_, made in picks) and not all(made for *_, made in picks)


def test_the_stream_does_not_shift_with_what_a_request_holds():
    """Whatever one request gives to get wrong, the next request's mistakes are the same."""
    stock, eta = STOCK, {"tool": "delivery_eta", "args": {"sku": "A-100", "region": "jeju"}}
    half = dict.fromkeys(MISTAKES, 0.5)
    a, b = NoisyPicker(seed=9, rates=half), NoisyPicker(seed=9, rates=half)
    a.pick(stock), b.pick(eta)
    assert [a.pick(stock) for _ in range(10)] == [b.pick(stock) for _ in range(10)]


def test_rates_follow_their_chances_roughly():
    """Over many requests each mistake is made about as often as its rate says."""
    picker = NoisyPicker(seed=0)
    made = [name for _ in range(2000) for name in picker.pick(STOCK)[2]]
    for name, rate in DEFAULT_RATES.items():
        assert abs(made.count(name) / 2000 - rate) < 0.03, name


@pytest.mark.parametrize(
    "rates, word",
    [
        ({"typo": 0.1}, "typo"),
        ({"synonym": 1.5}, "synonym"),
        ({"synonym": True}, "synonym"),
        ({"synonym": "0.1"}, "synonym"),
    ],
)
def test_bad_rates_are_refused_with_a_clear_error(rates, word):
    with pytest.raises(ValueError, match=word):
        NoisyPicker(rates=rates)


@pytest.mark.parametrize("request_", [None, "stock", {}])
def test_a_request_that_is_not_one_gets_no_arg_mistakes(request_):
    """Not a request: no args to get wrong, only a tool to invent; the door reports the rest."""
    tool, args, made = NoisyPicker(seed=0, rates=dict.fromkeys(MISTAKES, 1.0)).pick(request_)
    assert (args, made) == ({}, ["unknown_tool"]) and tool in INVENTED_TOOLS


def test_args_that_are_not_a_dict_are_left_as_they_are():
    """Args that are not a dict are not touched: the door says args:shape:args."""
    request = {"tool": "stock_lookup", "args": ["A-100"]}
    assert NoisyPicker(seed=0, rates=dict.fromkeys(MISTAKES, 1.0)).pick(request) == ("stock_lookup", ["A-100"], [])


def test_the_graph_runs_with_a_noisy_model_in_the_pick_node():
    """run(..., picker=NoisyPicker): the graph fixes a near synonym (sku_id -> sku) and answers."""
    picker = NoisyPicker(seed=0, rates=only("synonym"))
    for _ in range(30):
        state = tools.run(STOCK, picker=picker)
        assert state["status"] in ("answered", "gave_up") and state["attempts"] <= tools.MAX_ATTEMPTS
        if state["reasons"] == ["args:unknown:sku_id"]:
            assert state["status"] == "answered" and state["args"] == STOCK["args"]
            break
    else:
        pytest.fail("sku_id never came up in 30 picks")
