"""Stage 4 · call_tool(name, args): the door. Whatever happens behind it, out comes an envelope.

A case is a table of spy tools and a few calls through the door. The parent
predicts each envelope and each call's body runs with the trusted door
(oracle.call_tool) over the same spies; when args or a result fail several
checks, any failing reason is right. check_args and check_result are the
grader's own while this stage is probed.

One mistake costs one check: 4.1 alone judges the envelope's form (exact keys,
value None on a failure); 4.2-4.6 judge ok, error and the body runs of their
own path only. Fixed cases (`INCIDENTS`) hold every edge of every rule (each
exception family, KeyboardInterrupt, SystemExit, GeneratorExit and asyncio's
CancelledError, names that are no str, args that are no dict), so a verdict never
hangs on the seed.

What every reasonable spelling shares is judged, not the reference's spelling,
where nothing later reads the rest (`right_error`): tool:raised: names the class by
its __name__ or by a dotted name that ends in it (__qualname__, or with its module);
tool:unknown: of a name that is no str may be spelled any way.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from agtool.contract import spelt_alike
from grader.kit import draw
from grader.kit.boundary import values
from grader.kit.boundary.spies import SPY_MARK
from grader.kit.checks import stage2, stage3
from grader.kit.checks.common import (
    GOOD_ARGS,
    LAB_ARGS,
    LAB_RETURNS,
    call,
    entry,
    got_text,
    parent_tools,
    py,
    request,
    show_table,
)
from grader.kit.oracle_access import oracle
from grader.kit.probing import Checklist, Mismatch

ENVELOPE_KEYS = ["error", "ok", "value"]


@dataclass(frozen=True)
class Case:
    table: dict
    calls: tuple  # (name, args) in JSON spelling


def request_for(case: Case) -> dict:
    return request(4, case.table, [call("call_tool", name, args) for name, args in case.calls])


def expect(case: Case) -> list[dict]:
    """Per call, by the trusted door over the same spies: the envelope (plain data), every right error,
    the body runs and what the body returned; or, for a KeyboardInterrupt, SystemExit or GeneratorExit
    out of the body, the name of what must get out of the door."""
    tools, spies = parent_tools(case.table)
    expected = []
    for name, args in case.calls:
        name, args = values.decode(name), values.decode(args)
        before = {tool: spy.runs for tool, spy in spies.items()}
        try:
            envelope = oracle.call_tool(tools, name, args)
        except BaseException as error:  # only the spy's own: the door lets it out
            if not getattr(error, SPY_MARK, False):
                raise
            expected.append({"raises": type(error).__name__, "runs": {name: 1}})
            continue
        runs = {tool: spy.runs - before[tool] for tool, spy in spies.items() if spy.runs != before[tool]}
        tool = tools.get(name, {"args": {}, "returns": {}, "fn": None}) if isinstance(name, str) else {}
        last = spies[name].last if runs else None
        errors = oracle.door_errors(envelope["error"], tool.get("args", {}), args, tool.get("returns", {}), last)
        expected.append({**answer(envelope, runs, errors), "returned": values.to_plain(last)})
    return expected


RAISED = "tool:raised:"


_NO_NAME = object()  # the call's name is not known (stage 5's judge): no tool:unknown spelling is read


def right_error(rights: list, error: Any, entry: dict | None = None, name: Any = _NO_NAME, args: Any = None) -> bool:
    """Is `error` one of the right errors, spelt in any way every reasonable spelling allows, where
    nothing later reads the rest? The exception's class by a dotted name that ends in its __name__
    (tool:raised:builtins.KeyError); tool:unknown:<any text> for a name that is no str; and, with the
    tool's table entry (decoded) and the args, the field of an args: or result: reason as stage 2 and
    stage 3 read it (an item's position after its list, a name that is no str spelt any way)."""
    if error in rights:
        return True
    if type(error) is not str:
        return False
    kind = error.split(":", 2)[:2]
    same_kind = [right for right in rights if type(right) is str and right.split(":", 2)[:2] == kind]
    if kind == ["tool", "unknown"]:
        return bool(same_kind) and name is not _NO_NAME and not isinstance(name, str)
    if kind == ["tool", "raised"]:
        return any(spelt_alike(error, right) for right in same_kind)
    if entry is None:
        return False
    if error.startswith("args:"):
        reasons = [right.removeprefix("args:") for right in rights if type(right) is str and right.startswith("args:")]
        return isinstance(args, dict) and stage2.right_reason(entry["args"], args, reasons, error.removeprefix("args:"))
    reasons = [right.removeprefix("result:") for right in rights if type(right) is str and right.startswith("result:")]
    return error.startswith("result:") and stage3.right_reason(entry["returns"], reasons, error.removeprefix("result:"))


def read_spelling(table: dict, name: Any, args: Any, want: dict, result: dict) -> dict:
    """The observed answer with its error read as the right error it spells (right_error), so that every
    check judges a reasonable spelling as the reference's; any other answer as it is."""
    got = result.get("value")
    if "errors" not in want or type(got) is not dict or "error" not in got or got["error"] in want["errors"]:
        return result
    name, args = values.decode(name), values.decode(args)
    entry = values.decode(table[name]) if isinstance(name, str) and name in table else None
    if not right_error(want["errors"], got["error"], entry, name, args):
        return result
    return {**result, "value": {**got, "error": want["envelope"]["error"]}}


def answer(envelope: dict, runs: dict, errors: set) -> dict:
    """One expected door answer as data: the envelope, the errors that are right too, the body runs."""
    return {"envelope": values.to_plain(envelope), "errors": sorted(errors, key=repr), "runs": runs}


def mismatch(expected: dict, result: dict, exact_keys: bool = False, called: str = "the door") -> str | None:
    """What is wrong with one observed answer of `called` (the door, or stage 5's call_memo), whole, or None."""
    envelope, runs = expected["envelope"], expected["runs"]
    got = result.get("value")
    if "raised" in result:
        return f"an exception got out of {called}"
    if type(got) is not dict or not {"ok", "value", "error"} <= got.keys():
        return "not an envelope with ok, value and error"
    if exact_keys and sorted(got) != ENVELOPE_KEYS:
        return "keys other than ok, value and error"
    if not (
        values.same(got["ok"], envelope["ok"])
        and right_error(expected["errors"], got["error"])
        and values.same(got["value"], envelope["value"])
    ):
        return "another envelope"
    if runs != result["runs"]:
        return "the body ran another number of times"
    return None


# Each check judges its own part of an answer, so that one mistake costs one check.


def form_problem(expected: dict, result: dict) -> tuple[str, str] | None:
    """4.1: an ok call gives exactly the ok envelope, the body run once; an envelope with ok False has
    value None and a str error; an envelope with ok True has error None (and the body's value, where the
    trusted door ran the body too).
    Which envelope a failing call deserves, and exceptions out of a failing call, are other checks'."""
    got = result.get("value")
    if "envelope" not in expected:
        return None
    ok_call = expected["envelope"]["ok"] is True
    if "raised" in result:
        return ("an exception got out of the door", HINTS["form"]) if ok_call else None
    if type(got) is not dict or sorted(got) != ENVELOPE_KEYS:
        return "not exactly the keys ok, value and error", HINTS["form"]
    if ok_call:
        if not values.same(got, expected["envelope"]):
            if _passed_on_otherwise(expected["envelope"]["value"], got["value"]):
                return "the body was called with other args than the call gave", HINTS["as given"]
            return "another envelope", HINTS["ok"]
        if result["runs"] != expected["runs"]:
            return "the body ran another number of times", HINTS["ok"]
        return None
    if got["ok"] is False:
        if got["value"] is not None:
            return "a failure must have value None", HINTS["failure value"]
        if type(got["error"]) is not str:
            return "a failure's error must be a reason (a str)", HINTS["form"]
        return None
    if got["ok"] is True:
        if got["error"] is not None:
            return "ok with an error", HINTS["form"]
        if result["runs"] and expected["runs"] and not values.same(got["value"], expected["returned"]):
            return "ok, but not with the value the body returned", HINTS["ok"]
        return None
    return "ok is neither True nor False", HINTS["form"]


def _passed_on_otherwise(want: Any, got: Any) -> bool:
    """Did an echoing body (its value holds "got": the args it was called with) get other args than expected?"""
    return type(want) is dict and type(got) is dict and "got" in want and not values.same(got.get("got"), want["got"])


def refusal_problem(expected: dict, result: dict) -> tuple[str, str] | None:
    """4.2-4.6: ok False with a right reason (value is 4.1's), the body run as often as it must be;
    a KeyboardInterrupt, SystemExit or GeneratorExit out of the body gets out of the door."""
    got = result.get("value")
    if "raises" in expected:
        if "raised" in result and result["raised"].split(":")[0] == expected["raises"]:
            return None
        return f"{expected['raises']} must get out of the door", HINTS["let out"]
    if "raised" in result:
        raised = result["raised"].split(":")[0]
        return "an exception got out of the door", HINTS["raised"] if raised != "TypeError" else HINTS["type error"]
    if type(got) is not dict or not {"ok", "error"} <= got.keys():
        return "not an envelope with ok, value and error", HINTS["form"]
    if result["runs"] != expected["runs"]:
        return (
            "the body ran on args the door must refuse"
            if not expected["runs"]
            else "the body ran another number of times"
        ), HINTS["ran"]
    if got["ok"] is not False or got["error"] not in expected["errors"]:
        return "another ok or error", wrong_error_hint(expected, got["error"]) if got["ok"] is False else ""
    return None


def wrong_error_hint(expected: dict, error) -> str:
    """The hint for an ok False whose error is wrong, chosen from the right ones and the one given."""
    if type(error) is not str:
        return ""
    rights = [right for right in expected["errors"] if type(right) is str]
    if error.startswith(RAISED) and any(right.startswith(RAISED) for right in rights):
        return HINTS["class name"]
    if error.startswith("tool:unknown:") and any(right.startswith("tool:unknown:") for right in rights):
        return HINTS["str name"]
    return ""


def compare_with(judge: Callable[[dict, dict], tuple[str, str] | None]) -> Callable[..., Mismatch | None]:
    def compare(case: Case, expected: list[dict], observation: dict) -> Mismatch | None:
        for (name, args), want, result in zip(case.calls, expected, observation["results"], strict=True):
            problem = judge(want, read_spelling(case.table, name, args, want, result))
            if problem:
                diagnosis, hint = problem
                return Mismatch(
                    f"call_tool({py(name)}, {py(args)})",
                    show_answer(want),
                    f"{show_got(result)} ({diagnosis})",
                    hint,
                    show_tool(case.table, name),
                )
        return None

    return compare


HINTS = {
    "form": 'The door returns exactly {"ok": ..., "value": ..., "error": ...}, whatever happened.',
    "ok": (
        'When every check passes, return {"ok": True, "value": value, "error": None}, value the very '
        "value the body returned, after one run of the body."
    ),
    "as given": (
        "The body must get exactly the args the call gave, as keywords: an optional arg the call left out stays "
        "out (its default is documentation: the tool's own default applies), and no arg is added or dropped."
    ),
    "failure value": "A failure has value None: its envelope holds the reason as error, never the bad value or "
    "the reason as value.",
    "let out": (
        "KeyboardInterrupt, SystemExit, GeneratorExit and asyncio.CancelledError are not Exceptions: catch "
        "Exception, never BaseException (or a bare except), so Ctrl-C still stops the program. Re-raising a "
        "few named ones and catching BaseException after them still swallows the rest (CancelledError)."
    ),
    "raised": (
        "An exception from the tool's body got out of the door: any Exception there becomes "
        "tool:raised:<its class's name> in an envelope, so that one broken tool never ends the agent's run."
    ),
    "type error": (
        "An exception got out of the door: a name that is not a str (a list cannot be looked up in "
        "a dict) is tool:unknown:<name>; args that are not a dict are args:shape:args."
    ),
    "ran": "The body ran on args the door refuses: args are checked before the call, and a refusal "
    "(args:<reason>) means the body never runs.",
    "class name": (
        "The reason names the exception's class (tool:raised:KeyError), not its message or repr; a dotted "
        "name that ends in the class's name is right too."
    ),
    "str name": (
        "A name that is a str goes into the reason as it is (tool:unknown:stock_lookup_v3), "
        "not its repr: as in every reason, the field is the name itself, which the agent reads back."
    ),
}
LET_OUT = ("KeyboardInterrupt", "SystemExit", "GeneratorExit", "CancelledError")  # no Exception: let out


def show_answer(expected: dict) -> str:
    """A trusted envelope and its body runs, as the student reads them."""
    if "raises" in expected:
        return f"raises {expected['raises']}, body runs: 1"
    return f"{py(expected['envelope'], 10**4)}, body runs: {sum(expected['runs'].values())}"


def show_got(result: dict) -> str:
    return f"{got_text(result)}, body runs: {sum(result['runs'].values())}"


def show_tool(table: dict, name) -> str:
    """The one tool a call names (none when the name is no tool of the table)."""
    name = values.decode(name)
    if isinstance(name, str) and name in table:
        return show_table({name: table[name]})
    return "TOOLS = {" + ", ".join(repr(tool) + ": {...}" for tool in table) + "}"


def compare(case: Case, expected: list[dict], observation: dict) -> Mismatch | None:
    return compare_with(refusal_problem)(case, expected, observation)


def show(case: Case) -> str:
    return show_table(case.table)


CHECKLIST = Checklist(4, request_for, show, expect, compare)


# ── drawing cases ────────────────────────────────────────────────────────────


@st.composite
def tables(d, body: str) -> dict:
    """One or two tools whose bodies return a good value, a bad one, or raise."""
    table = {}
    for name in draw.names(d, 1, 2):
        args, returns = draw.contract(d), draw.returns(d)
        table[name] = entry(args=args, returns=returns, body=[spy_step(d, body, returns)])
    return table


_RAISED = ("KeyError", "ValueError", "ZeroDivisionError", "TimeoutError", "InventoryDown")


def spy_step(d, body: str, returns: dict) -> dict:
    if body == "raise":
        return {"raise": draw.pick(d, _RAISED)}
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
_NOT_DICTS: tuple = ([], "sku=A-100", None, 3, {"$tuple": []}, [["sku", "A-100"]])
_NOT_DICTS_SHOWN: tuple = ("sku=A-100", None, 3, [], [["sku", "A-100"]], {"$tuple": []})  # 4.2's fixed case, this order


def door_call(d, table: dict, path: str) -> tuple:
    """(name, args) for a door path: ok args, an unknown tool, args not a dict, bad args, or (order)
    an unknown str name with args that are no dict or bad."""
    name = draw.pick(d, list(table))
    args = draw.valid_args(d, table[name]["args"])
    if path == "unknown tool":
        return draw.pick(d, (*_BAD_NAMES, draw.fresh_name(table, d(draw.NAMES)))), args
    if path == "args not a dict":
        return name, draw.pick(d, _NOT_DICTS)
    if path == "unknown first":
        return draw.fresh_name(table, d(draw.NAMES)), draw.pick(d, (*_NOT_DICTS, args))
    if path == "bad args":
        contract = table[name]["args"]
        arg = draw.pick(d, [*contract, draw.fresh_name(contract, d(draw.NAMES))])
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
    return Case(table, tuple(door_call(d, table, draw.pick(d, paths)) for _ in range(d(st.integers(1, 3)))))


_ANY_BODY = st.sampled_from(["good", "bad result", "raise"])
_ALL_PATHS = (
    "ok",
    "unknown tool",
    "args not a dict",
    "bad args",
)  # every door path (tests/grader/test_grader_oracle.py)


# ── the lesson's incidents and every rule's edge, tried under every seed ─────


def stock(body: list, *calls: tuple) -> Case:
    return Case({"stock_lookup": entry(args=LAB_ARGS, returns=LAB_RETURNS, body=body)}, calls)


def tools_with(bodies: dict, *calls: tuple) -> Case:
    """One stock_lookup-like tool per body: a failing call's setting shows its own tool only."""
    return Case({name: entry(args=LAB_ARGS, returns=LAB_RETURNS, body=body) for name, body in bodies.items()}, calls)


ROWS = {"sku": "A-100", "rows": [{"region": "seoul", "qty": 5}]}
# Each family of exception a body can raise: LookupError, ValueError, TypeError, ArithmeticError,
# AttributeError, RuntimeError, OSError, StopIteration, the tool's own; and the BaseExceptions that are
# no Exception, which the door lets out.
FAMILIES = (
    "KeyError",
    "IndexError",
    "ValueError",
    "TypeError",
    "ZeroDivisionError",
    "AttributeError",
    "RuntimeError",
    "RecursionError",
    "TimeoutError",
    "ConnectionError",
    "OSError",
    "StopIteration",
    "InventoryDown",
)
BAD_RESULTS = {
    "empty": {"sku": "Z-999", "rows": []},
    "too_big": {"sku": "D-400", "rows": [{"region": "seoul", "qty": 11}] * 3},
    "range": {"sku": "A-100", "rows": [{"region": "seoul", "qty": -1}]},
    "item_shape": {"sku": "A-100", "rows": [{"region": "seoul", "qty": 2.5}]},
    "missing": {"rows": [{"region": "seoul", "qty": 5}]},
    "sku_type": {"sku": 100, "rows": [{"region": "seoul", "qty": 5}]},
    "not_a_dict": [["sku", "A-100"]],
    "none": None,
}
BAD_ARGS = (
    {**GOOD_ARGS, "sku_id": "A-100"},
    {**GOOD_ARGS, "limit": True},
    {"region": "seoul", "limit": 2},
    {**GOOD_ARGS, "limit": 3},
    {**GOOD_ARGS, "limit": 0},
    {**GOOD_ARGS, "region": "mars"},
    {**GOOD_ARGS, "sku": 100},
    {**GOOD_ARGS, "limit": 1.0},
    {**GOOD_ARGS, "limit": draw.NAN},
)
# Every shape an arg's spec takes, each optional: a default that is documentation only, a dict with
# named keys, a list with an item spec, an any, a bool. The body echoes what it was called with, so the
# args the door passed on are part of the value: exactly the args given, no default filled in, none dropped.
SHAPES = {
    "n": {"type": "int", "required": False, "default": 3, "min": 1},
    "where": {"type": "dict", "required": False, "properties": {"qty": {"type": "int", "required": False}}},
    "tags": {"type": "list", "required": False, "items": {"type": "str"}},
    "extra": {"type": "any", "required": False, "default": None},
    "rush": {"type": "bool", "required": False, "default": False},
}
ECHO = Case(
    {"t": entry(args=SHAPES, body=[{"echo": {}}])},
    (
        ("t", {}),
        ("t", {"n": 1}),
        ("t", {"where": {}, "tags": []}),
        ("t", {"where": {"qty": 2}, "tags": ["a"], "extra": None, "rush": False}),
    ),
)
INCIDENTS = {
    "ok": (stock([{"return": ROWS}], ("stock_lookup", GOOD_ARGS), ("stock_lookup", {**GOOD_ARGS, "limit": 1})),),
    # ok calls and one failure of each path, in one table (one request: 4.1 is the stage's first check)
    "form": (
        tools_with(
            {
                "stock_lookup": [{"return": ROWS}],
                "broken": [{"raise": "KeyError"}],
                "empty": [{"return": BAD_RESULTS["empty"]}],
            },
            ("stock_lookup", GOOD_ARGS),
            ("stock_lookup", {**GOOD_ARGS, "limit": 1}),
            ("stock_lookup_v3", GOOD_ARGS),
            ("stock_lookup", "sku=A-100"),
            ("stock_lookup", {**GOOD_ARGS, "limit": True}),
            ("broken", GOOD_ARGS),
            ("empty", GOOD_ARGS),
            ("stock_lookup", GOOD_ARGS),
        ),
    ),
    "unknown": (
        stock(
            [{"return": ROWS}],
            *[
                (name, GOOD_ARGS)
                for name in (
                    "stock_lookup_v3",
                    "",
                    "Stock_lookup",
                    5,
                    None,
                    1.5,
                    True,
                    ["stock_lookup"],
                    {"name": "stock_lookup"},
                    {"$tuple": ["stock_lookup"]},
                )
            ],
            *[("stock_lookup", args) for args in _NOT_DICTS_SHOWN],
        ),
    ),
    "bad args": (stock([{"return": ROWS}], *[("stock_lookup", args) for args in BAD_ARGS]),),
    "raise": (
        tools_with(
            {f"raises_{name.lower()}": [{"raise": name}] for name in FAMILIES},
            *[(f"raises_{name.lower()}", GOOD_ARGS) for name in FAMILIES],
        ),
        tools_with(
            {f"raises_{name.lower()}": [{"raise": name}] for name in LET_OUT},
            *[(f"raises_{name.lower()}", GOOD_ARGS) for name in LET_OUT],
        ),
    ),
    "bad result": (
        tools_with(
            {f"gives_{how}": [{"return": value}] for how, value in BAD_RESULTS.items()},
            *[(f"gives_{how}", GOOD_ARGS) for how in BAD_RESULTS],
        ),
    ),
    "order": (
        stock(
            [{"return": ROWS}], ("nope", "sku=A-100"), ("nope", None), ("nope", {"limit": True}), ("nope", GOOD_ARGS)
        ),
    ),
}


# ── the checks ───────────────────────────────────────────────────────────────


@st.composite
def ok_or_failing(d) -> Case:
    """Mostly ok calls; now and then a call that fails in any way but through an unhashable name."""
    table = d(tables(draw.pick(d, ("good", "good", "bad result", "raise"))))
    paths = ("ok", "ok", "args not a dict", "bad args")
    return Case(table, tuple(door_call(d, table, draw.pick(d, paths)) for _ in range(d(st.integers(1, 3)))))


@CHECKLIST.check(
    number=1,
    points=3,
    examples=6,
    always=(*INCIDENTS["form"], ECHO),
    compare=compare_with(form_problem),
)
def answers_ok():
    """call_tool returns exactly {ok, value, error}: ok with the body's value when every check passes, value None on a failure

    An envelope has exactly ok, value and error: ok True with the body's very value and error None when
    every check passes; ok False with value None and the reason as error when one does not.
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return ok_or_failing()


@CHECKLIST.check(number=2, points=2, examples=4, always=INCIDENTS["unknown"])
def refuses_unknown_tools():
    """call_tool says tool:unknown:<name> for an unknown or non-str name, args:shape:args for args that are no dict

    Before anything else: a name that is not a str or not in TOOLS is tool:unknown:<name> (and `name in
    TOOLS` raises for a list); args that are not a dict are args:shape:args.
    """
    return _ANY_BODY.flatmap(lambda body: cases(body, ("unknown tool", "args not a dict")))


@CHECKLIST.check(number=3, points=3, examples=4, always=INCIDENTS["bad args"])
def refuses_bad_args_without_running():
    """call_tool refuses bad args with args:<reason> and never runs the tool's body

    Args are checked before the call: bad args are args:<reason>, and the body never runs on them.
    """
    return _ANY_BODY.flatmap(lambda body: cases(body, ("bad args",)))


@CHECKLIST.check(
    number=4,
    points=3,
    examples=4,
    always=INCIDENTS["raise"],
)
def catches_exceptions():
    """call_tool turns any Exception inside the tool into tool:raised:<ExceptionType>, and lets every BaseException that is no Exception out

    Any Exception from the body becomes tool:raised:<its class's name>: a KeyError inside a tool must not
    end the run. What is no Exception, Ctrl-C (KeyboardInterrupt), SystemExit, GeneratorExit and a cancelled
    task (asyncio.CancelledError), still gets out.
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return cases("raise", ("ok",))


@CHECKLIST.check(number=5, points=3, examples=4, always=INCIDENTS["bad result"])
def checks_results():
    """call_tool checks the result: result:<reason> for a value check_result refuses

    The value is checked after the call: a value check_result refuses is result:<reason>.
    """
    return cases("bad result", ("ok",))


@CHECKLIST.check(number=6, points=1, examples=3, always=INCIDENTS["order"])
def checks_in_order():
    """call_tool checks the name first: an unknown name is tool:unknown:<name> whatever the args

    The order is: tool name, args shape, args, the call, the result.
    """
    return _ANY_BODY.flatmap(lambda body: cases(body, ("unknown first",)))
