"""Stage 4 · call_tool(name, args): the door. Whatever happens behind it, out comes an envelope.

A case is a table of one or two spy tools and a few calls through the door.
The parent predicts each envelope and each call's body runs with the trusted
door (oracle.call_tool) over the same spies; when args or a result fail several
checks, any failing reason is right. check_args and check_result are the
grader's own while this stage is probed.
"""

from dataclasses import dataclass

from hypothesis import strategies as st

from grader.kit import draw, values
from grader.kit.checks.common import (GOOD_ARGS, SEED_ARGS, SEED_RETURNS, call, entry,
                                   got_text, parent_tools, py, request, show_table)
from grader.kit.probing import Mismatch, Stage
from grader.kit.trusted import oracle

ENVELOPE_KEYS = ["error", "ok", "value"]


@dataclass(frozen=True)
class Case:
    table: dict
    calls: tuple   # (name, args) in JSON spelling


def probe(case: Case) -> dict:
    return request(4, case.table, [call("call_tool", name, args) for name, args in case.calls])


def expect(case: Case) -> list[dict]:
    """Per call, by the trusted door over the same spies: the envelope (plain data), every right error,
    and the body runs."""
    tools, spies = parent_tools(case.table)
    expected = []
    for name, args in case.calls:
        name, args = values.decode(name), values.decode(args)
        before = {tool: spy.runs for tool, spy in spies.items()}
        envelope = oracle.call_tool(tools, name, args)
        runs = {tool: spy.runs - before[tool] for tool, spy in spies.items() if spy.runs != before[tool]}
        tool = tools.get(name, {"args": {}, "returns": {}, "fn": None}) if isinstance(name, str) else {}
        last = spies[name].last if runs else None
        errors = oracle.door_errors(envelope["error"], tool.get("args", {}), args, tool.get("returns", {}), last)
        expected.append(answer(envelope, runs, errors))
    return expected


def answer(envelope: dict, runs: dict, errors: set) -> dict:
    """One expected door answer as data: the envelope, the errors that are right too, the body runs."""
    return {"envelope": values.to_plain(envelope), "errors": sorted(errors, key=repr), "runs": runs}


def mismatch(expected: dict, result: dict, exact_keys: bool = False) -> str | None:
    """What is wrong with one observed door answer, or None."""
    envelope, runs = expected["envelope"], expected["runs"]
    got = result.get("value")
    if "raised" in result:
        return "an exception got out of the door"
    if type(got) is not dict or not {"ok", "value", "error"} <= got.keys():
        return "not an envelope with ok, value and error"
    if exact_keys and sorted(got) != ENVELOPE_KEYS:
        return "keys other than ok, value and error"
    if not (values.same(got["ok"], envelope["ok"]) and got["error"] in expected["errors"]
            and values.same(got["value"], envelope["value"])):
        return "another envelope"
    if runs != result["runs"]:
        return "the body ran another number of times"
    return None


def compare(case: Case, expected: list[dict], observation: dict, exact_keys: bool = False) -> Mismatch | None:
    for (name, args), want, result in zip(case.calls, expected, observation["results"]):
        problem = mismatch(want, result, exact_keys)
        if problem:
            return Mismatch(f"call_tool({py(name)}, {py(args)})", show_answer(want),
                            f"{show_got(result)} ({problem})")
    return None


def show_answer(expected: dict) -> str:
    """A trusted envelope and its body runs, as the student reads them."""
    return f"{py(expected['envelope'])}, body runs: {sum(expected['runs'].values())}"


def show_got(result: dict) -> str:
    return f"{got_text(result)}, body runs: {sum(result['runs'].values())}"


def show(case: Case) -> str:
    return show_table(case.table)


STAGE = Stage(4, probe, show, expect, compare)


# ── drawing cases ────────────────────────────────────────────────────────────

@st.composite
def tables(d, body: str) -> dict:
    """One or two tools whose bodies return a good value, a bad one, or raise."""
    table = {}
    for name in draw.names(d, 1, 2):
        args, returns = draw.contract(d), draw.returns(d)
        table[name] = entry(args=args, returns=returns, body=[spy_step(d, body, returns)])
    return table


def spy_step(d, body: str, returns: dict) -> dict:
    if body == "raise":
        return {"raise": draw.pick(d, ("KeyError", "ValueError", "ZeroDivisionError", "TimeoutError",
                                       "InventoryDown"))}
    value = draw.result_dict(d, returns)
    if body == "bad result":
        broken = [key for key, spec in returns.items() if "min" in spec or "max" in spec]
        how = draw.pick(d, ("not a dict", "missing key", "out of range"))
        if how == "not a dict" or not returns:
            value = draw.pick(d, draw.NOT_A_DICT)
        elif how == "out of range" and broken:
            key = draw.pick(d, broken)
            value[key] = draw.outside(d, returns[key])
        else:
            del value[draw.pick(d, list(returns))]
    return {"return": value}


_BAD_NAMES = (5, None, 1.5, [1, "a"], "", "stock lookup")
_NOT_DICTS = ([], "sku=A-100", None, 3, {"$tuple": []}, [["sku", "A-100"]])


def door_call(d, table: dict, path: str) -> tuple:
    """(name, args) for a door path: ok args, an unknown tool, args not a dict, or bad args."""
    name = draw.pick(d, list(table))
    args = draw.valid_args(d, table[name]["args"])
    if path == "unknown tool":
        return draw.pick(d, _BAD_NAMES + (draw.fresh_name(table, d(draw.NAMES)),)), args
    if path == "args not a dict":
        return name, draw.pick(d, _NOT_DICTS)
    if path == "bad args":
        contract = table[name]["args"]
        arg = draw.pick(d, list(contract) + [draw.fresh_name(contract, d(draw.NAMES))])
        spec = contract.get(arg, {"type": "any", "required": False})
        if spec.get("required", True) and (spec["type"] == "any" or draw.pick(d, ("drop", "wrong")) == "drop"):
            args.pop(arg, None)
        elif spec["type"] != "any":
            args[arg] = draw.pick(d, draw.WRONG[spec["type"]])
        else:  # an invented name
            args[draw.fresh_name(contract, arg)] = d(draw.LEAF)
    return name, args


@st.composite
def cases(d, body: str, paths: tuple[str, ...]) -> Case:
    table = d(tables(body))
    return Case(table, tuple(door_call(d, table, draw.pick(d, paths)) for _ in range(d(st.integers(1, 4)))))


_ANY_BODY = st.sampled_from(["good", "bad result", "raise"])
_ALL_PATHS = ("ok", "unknown tool", "args not a dict", "bad args")


# ── the lesson's incidents, tried under every seed ───────────────────────────

def stock(body: list, *calls: tuple) -> Case:
    return Case({"stock_lookup": entry(args=SEED_ARGS, returns=SEED_RETURNS, body=body)}, calls)


ROWS = {"sku": "A-100", "rows": [{"region": "seoul", "qty": 5}]}
INCIDENTS = {
    "ok": (stock([{"return": ROWS}], ("stock_lookup", GOOD_ARGS)),),
    "unknown": (stock([{"return": ROWS}], ("stock_lookup_v3", GOOD_ARGS), (["stock_lookup"], GOOD_ARGS),
                      ("stock_lookup", "sku=A-100")),),
    "bad args": (stock([{"return": ROWS}], ("stock_lookup", {**GOOD_ARGS, "sku_id": "A-100"}),
                       ("stock_lookup", {**GOOD_ARGS, "limit": True})),),
    "raise": (stock([{"raise": "KeyError"}], ("stock_lookup", GOOD_ARGS)),),
    "bad result": (stock([{"return": {"sku": "Z-999", "rows": []}}], ("stock_lookup", GOOD_ARGS)),
                   stock([{"return": {"sku": "D-400", "rows": [{"region": "seoul", "qty": 11}] * 20}}],
                         ("stock_lookup", GOOD_ARGS))),
    "order": (stock([{"raise": "KeyError"}], ("nope", "sku=A-100"), ("stock_lookup", {"limit": True})),),
}


# ── the checks ───────────────────────────────────────────────────────────────

@STAGE.check(number=1, points=3, always=INCIDENTS["ok"],
             compare=lambda case, expected, observation: compare(case, expected, observation, exact_keys=True))
def answers_ok():
    """call_tool returns exactly {ok, value, error}, ok with the tool's value, when every check passes

    Return exactly {"ok": True, "value": value, "error": None}; failures have value None.
    """
    return cases("good", ("ok",))


@STAGE.check(number=2, points=2, always=INCIDENTS["unknown"])
def refuses_unknown_tools():
    """call_tool says tool:unknown:<name> for an unknown or non-str name, args:shape:args for args that are no dict

    Before anything else: a name that is not a str or not in TOOLS is tool:unknown:<name> (and `name in
    TOOLS` raises for a list); args that are not a dict are args:shape:args.
    """
    return _ANY_BODY.flatmap(lambda body: cases(body, ("unknown tool", "args not a dict")))


@STAGE.check(number=3, points=3, always=INCIDENTS["bad args"])
def refuses_bad_args_without_running():
    """call_tool refuses bad args with args:<reason> and never runs the tool's body

    Check the args before the call and return args:<reason> at once: the body must not run on bad args.
    """
    return _ANY_BODY.flatmap(lambda body: cases(body, ("bad args",)))


@STAGE.check(number=4, points=3, always=INCIDENTS["raise"])
def catches_exceptions():
    """call_tool turns an exception inside the tool into tool:raised:<ExceptionType>

    Wrap the call in try/except Exception and return tool:raised:<type(e).__name__>; a KeyError inside a
    tool must not end the run.
    """
    return cases("raise", ("ok",))


@STAGE.check(number=5, points=3, always=INCIDENTS["bad result"])
def checks_results():
    """call_tool checks the result: result:<reason>, with value None

    Check the value after the call: result:<reason> from check_result, with value None.
    """
    return cases("bad result", ("ok",))


@STAGE.check(number=6, points=1, examples=15, always=INCIDENTS["order"])
def checks_in_order():
    """call_tool checks in the spec's order: tool, args shape, args, the body, the result

    The order is: tool name, args shape, args, the call, the result.
    """
    return _ANY_BODY.flatmap(lambda body: cases(body, _ALL_PATHS))
