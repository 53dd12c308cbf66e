"""Stage 4 · call_tool(name, args): the door. Whatever happens behind it, out comes an envelope.

A case is a table of spy tools and a few calls through the door; the parent predicts each envelope and body
run with the trusted door over the same spies (check_args and check_result are the grader's own while this
stage is probed). One mistake costs one check: 4.1 alone judges the envelope's form, 4.2 to 4.6 judge ok,
error and the body runs of their own path. Where args or a result fail several checks, any failing reason is
right; tool:raised: may name the class by a dotted name that ends in its __name__, and tool:unknown: of a name
that is no str may be spelt any way (`right_error`). Each check's fixed cases hold every edge of its rule (each
exception family, the BaseExceptions that are no Exception, names that are no str, args that are no dict), so
a verdict never hangs on the seed.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from agtool.contract import spelt_alike
from grader.kit import draw
from grader.kit.boundary import spies, values
from grader.kit.checks import stage2, stage3
from grader.kit.checks.common import GOOD_ARGS, LAB_ARGS, LAB_RETURNS, call, entry, got_text, py, request, show_table
from grader.kit.oracle_access import oracle
from grader.kit.pasteable import Setting
from grader.kit.probing import Checklist, Mismatch, exception_name

# ── the stage's case, request, judge and show, shared by its checks ──────────


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
    tools, bodies = spies.spy_table(case.table)
    expected = []
    for name, args in case.calls:
        name, args = values.decode(name), values.decode(args)
        before = spies.runs(bodies)
        try:
            envelope = oracle.call_tool(tools, name, args)
        except BaseException as error:  # only the spy's own: the door lets it out
            if not getattr(error, spies.SPY_MARK, False):
                raise
            expected.append({"raises": type(error).__name__, "runs": {name: 1}})
            continue
        runs = spies.runs_since(bodies, before)
        tool = tools.get(name, {}) if isinstance(name, str) else {}
        last = bodies[name].last if runs else None
        errors = oracle.door_errors(envelope["error"], tool.get("args", {}), args, tool.get("returns", {}), last)
        expected.append({**answer(envelope, runs, errors), "returned": values.to_plain(last)})
    return expected


def answer(envelope: dict, runs: dict, errors: set) -> dict:
    """One expected door answer as data: the envelope, the errors that are right too, the body runs."""
    return {"envelope": values.to_plain(envelope), "errors": sorted(errors, key=repr), "runs": runs}


RAISED = "tool:raised:"
_NO_NAME = object()  # the call's name is not known (stage 5's judge): no tool:unknown spelling is read


def right_error(rights: list, error: Any, entry: dict | None = None, name: Any = _NO_NAME, args: Any = None) -> bool:
    """Is `error` one of the right errors, in any spelling every reasonable module may use where nothing later
    reads the rest? tool:raised: with a dotted name that ends in the class's __name__ (builtins.KeyError),
    tool:unknown:<any text> for a name that is no str, and, given the tool's entry (decoded) and the args,
    an args: or result: reason's field as stages 2 and 3 read it."""
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


# The hints more than one check gives; a check's own are in its section.
HINTS = {
    "form": 'The door returns exactly {"ok": ..., "value": ..., "error": ...}, whatever happened.',
    "raised": "An exception from the tool's body got out of the door: any Exception there becomes "
    "tool:raised:<its class's name> in an envelope, so that one broken tool never ends the agent's run.",
    "type error": "An exception got out of the door: a name that is not a str (a list cannot be looked up in "
    "a dict) is tool:unknown:<name>; args that are not a dict are args:shape:args.",
    "ran": "The body ran on args the door refuses: args are checked before the call, and a refusal "
    "(args:<reason>) means the body never runs.",
    "str name": "A name that is a str goes into the reason as it is (tool:unknown:stock_lookup_v3), not its "
    "repr: as in every reason, the field is the name itself, which the agent reads back.",
}

Problem = tuple[str, str] | None  # (what is wrong with one answer, its hint), or None when it is right


def refusal_problem(expected: dict, result: dict) -> Problem:
    """The judge of 4.2-4.6: ok False with a right reason (value is 4.1's), the body run as often as it
    must be; a KeyboardInterrupt, SystemExit or GeneratorExit out of the body gets out of the door."""
    got = result.get("value")
    if "raises" in expected:
        if "raised" in result and exception_name(result) == expected["raises"]:
            return None
        return f"{expected['raises']} must get out of the door", CATCH_HINTS["let out"]
    if "raised" in result:
        return "an exception got out of the door", HINTS[
            "type error" if exception_name(result) == "TypeError" else "raised"
        ]
    if type(got) is not dict or not {"ok", "error"} <= got.keys():
        return "not an envelope with ok, value and error", HINTS["form"]
    if result["runs"] != expected["runs"]:
        ran = (
            "the body ran another number of times" if expected["runs"] else "the body ran on args the door must refuse"
        )
        return ran, HINTS["ran"]
    if got["ok"] is not False or got["error"] not in expected["errors"]:
        return "another ok or error", misspelt_hint(expected, got["error"]) if got["ok"] is False else ""
    return None


def misspelt_hint(expected: dict, error) -> str:
    """The hint for an ok False whose error is of a right kind, spelt wrong ("" for another error)."""
    rights = [right for right in expected["errors"] if type(right) is str]
    for kind, hint in ((RAISED, CATCH_HINTS["class name"]), ("tool:unknown:", HINTS["str name"])):
        if type(error) is str and error.startswith(kind) and any(right.startswith(kind) for right in rights):
            return hint
    return ""


def compare_with(judge: Callable[[dict, dict], Problem]) -> Callable[[Case, list[dict], dict], Mismatch | None]:
    """The compare that judges each call's answer with `judge` and shows the first wrong one."""

    def compare(case: Case, expected: list[dict], observation: dict) -> Mismatch | None:
        calls = zip(case.calls, expected, observation["results"], strict=True)
        for at, ((name, args), want, result) in enumerate(calls):
            problem = judge(want, read_spelling(case.table, name, args, want, result))
            if problem:
                diagnosis, hint = problem
                return Mismatch(
                    f"call_tool({py(name, runnable=True)}, {py(args, runnable=True)})",
                    show_answer(want),
                    f"{show_got(result)} ({diagnosis})",
                    hint,
                    show_tool(case.table, name),
                    exception=exception_name(result),
                    problem=diagnosis,
                    at=at,
                )
        return None

    return compare


def show_answer(expected: dict) -> str:
    """A trusted envelope and its body runs, as the student reads them."""
    if "raises" in expected:
        return f"raises {expected['raises']}, body runs: 1"
    return f"{py(expected['envelope'], 10**4)}, body runs: {sum(expected['runs'].values())}"


def show_got(result: dict) -> str:
    return f"{got_text(result)}, body runs: {sum(result['runs'].values())}"


def show_tool(table: dict, name) -> Setting:
    """The one tool a call names (none when the name is no tool of the table: then the table's names, and any
    tool may be read)."""
    name = values.decode(name)
    if isinstance(name, str) and name in table:
        return show_table({name: table[name]})
    return Setting(table="TOOLS = {" + ", ".join(repr(tool) + ": {...}" for tool in table) + "}")


CHECKLIST = Checklist(4, request_for, lambda case: show_table(case.table), expect, compare_with(refusal_problem))


# ── the stage's drawn cases ──────────────────────────────────────────────────


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
def cases(d, body: str | tuple[str, ...], paths: tuple[str, ...]) -> Case:
    """A table whose bodies do `body` (or one of them, picked), and 1-3 calls, each down one of `paths`."""
    table = d(tables(body if isinstance(body, str) else draw.pick(d, body)))
    return Case(table, tuple(door_call(d, table, draw.pick(d, paths)) for _ in range(d(st.integers(1, 3)))))


_ANY_BODY = st.sampled_from(["good", "bad result", "raise"])
# every door path (tests/grader/test_grader_oracle.py)
_ALL_PATHS = ("ok", "unknown tool", "args not a dict", "bad args")


# ── the stage's fixed cases: the lab's stock_lookup, its incidents' bodies ───


def tools_with(bodies: dict, *calls: tuple) -> Case:
    """One stock_lookup-like tool per body: a failing call's setting shows its own tool only."""
    return Case({name: entry(args=LAB_ARGS, returns=LAB_RETURNS, body=body) for name, body in bodies.items()}, calls)


def each_called(bodies: dict) -> Case:
    """One stock_lookup-like tool per body, each called once with good args."""
    return tools_with(bodies, *[(name, GOOD_ARGS) for name in bodies])


ROWS = {"sku": "A-100", "rows": [{"region": "seoul", "qty": 5}]}
STOCK = {"stock_lookup": [{"return": ROWS}]}
EMPTY = {"sku": "Z-999", "rows": []}


# ── 4.1 · the envelope's form ────────────────────────────────────────────────

FORM_HINTS = {
    "ok": 'When every check passes, return {"ok": True, "value": value, "error": None}, value the very value the '
    "body returned, after one run of the body.",
    "as given": "The body must get exactly the args the call gave, as keywords: an optional arg the call left out "
    "stays out (its default is documentation: the tool's own default applies), and no arg is added or dropped.",
    "failure value": "A failure has value None: its envelope holds the reason as error, never the bad value or the "
    "reason as value.",
}
ENVELOPE_KEYS = ["error", "ok", "value"]


def form_problem(expected: dict, result: dict) -> Problem:
    """4.1's judge: an ok call gives exactly the ok envelope, the body run once; any ok False has value None
    and a str error, any ok True error None (and the body's value, where the trusted door ran it too).
    Which envelope a failing call deserves, and exceptions out of it, are other checks'."""
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
            if called_otherwise(expected["envelope"]["value"], got["value"]):
                return "the body was called with other args than the call gave", FORM_HINTS["as given"]
            return "another envelope", FORM_HINTS["ok"]
        if result["runs"] != expected["runs"]:
            return "the body ran another number of times", FORM_HINTS["ok"]
        return None
    if got["ok"] is False:
        if got["value"] is not None:
            return "a failure must have value None", FORM_HINTS["failure value"]
        if type(got["error"]) is not str:
            return "a failure's error must be a reason (a str)", HINTS["form"]
        return None
    if got["ok"] is True:
        if got["error"] is not None:
            return "ok with an error", HINTS["form"]
        if result["runs"] and expected["runs"] and not values.same(got["value"], expected["returned"]):
            return "ok, but not with the value the body returned", FORM_HINTS["ok"]
        return None
    return "ok is neither True nor False", HINTS["form"]


def called_otherwise(want: Any, got: Any) -> bool:
    """Did an echoing body (its value holds "got": the args it was called with) get other args than expected?"""
    return type(want) is dict and type(got) is dict and "got" in want and not values.same(got.get("got"), want["got"])


# Ok calls and one failure of each path, in one table (one request: 4.1 is the stage's first check).
FORMS = tools_with(
    {**STOCK, "broken": [{"raise": "KeyError"}], "empty": [{"return": EMPTY}]},
    ("stock_lookup", GOOD_ARGS),
    ("stock_lookup", {**GOOD_ARGS, "limit": 1}),
    ("stock_lookup_v3", GOOD_ARGS),
    ("stock_lookup", "sku=A-100"),
    ("stock_lookup", {**GOOD_ARGS, "limit": True}),
    ("broken", GOOD_ARGS),
    ("empty", GOOD_ARGS),
    ("stock_lookup", GOOD_ARGS),
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


@CHECKLIST.check(number=1, points=3, examples=6, always=(FORMS, ECHO), compare=compare_with(form_problem))
def answers_ok():
    """call_tool returns exactly {ok, value, error}: ok with the body's value when every check passes, value None on a failure

    Build the two envelopes in one place (a small function each for ok and for a failure) and return
    through them on every path: the agent, the memo and the graph all read the same three keys.
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return cases(("good", "good", "bad result", "raise"), ("ok", "ok", "args not a dict", "bad args"))


# ── 4.2 · an unknown tool, args that are no dict ─────────────────────────────

NO_TOOL = ("stock_lookup_v3", "", "Stock_lookup")
NO_STR: tuple = (5, None, 1.5, True, ["stock_lookup"], {"name": "stock_lookup"}, {"$tuple": ["stock_lookup"]})
NOT_DICTS_SHOWN: tuple = ("sku=A-100", None, 3, [], [["sku", "A-100"]], {"$tuple": []})
UNKNOWNS = tools_with(
    STOCK, *[(name, GOOD_ARGS) for name in NO_TOOL + NO_STR], *[("stock_lookup", args) for args in NOT_DICTS_SHOWN]
)


@CHECKLIST.check(number=2, points=2, examples=4, always=(UNKNOWNS,))
def refuses_unknown_tools():
    """call_tool says tool:unknown:<name> for an unknown or non-str name, args:shape:args for args that are no dict

    Test that the name is a str before `name in TOOLS`: for a list, that lookup itself raises TypeError,
    where the door must answer with an envelope.
    """
    return _ANY_BODY.flatmap(lambda body: cases(body, ("unknown tool", "args not a dict")))


# ── 4.3 · bad args, the body never run ───────────────────────────────────────

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


REFUSED = tools_with(STOCK, *[("stock_lookup", args) for args in BAD_ARGS])


@CHECKLIST.check(number=3, points=3, examples=4, always=(REFUSED,))
def refuses_bad_args_without_running():
    """call_tool refuses bad args with args:<reason> and never runs the tool's body

    The body is the tool's side effect (a query, an order): return check_args' refusal before it is
    called, so an invented sku_id or limit=True never reaches it.
    """
    return _ANY_BODY.flatmap(lambda body: cases(body, ("bad args",)))


# ── 4.4 · exceptions in the body ─────────────────────────────────────────────

# The hints only 4.4's cases draw: the stage's judge (refusal_problem) gives them.
CATCH_HINTS = {
    "let out": "KeyboardInterrupt, SystemExit, GeneratorExit and asyncio.CancelledError are not Exceptions: catch "
    "Exception, never BaseException (or a bare except), so Ctrl-C still stops the program. Re-raising a few named "
    "ones and catching BaseException after them still swallows the rest (CancelledError).",
    "class name": "The reason names the exception's class (tool:raised:KeyError), not its message or repr; a dotted "
    "name that ends in the class's name is right too.",
}
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
LET_OUT = ("KeyboardInterrupt", "SystemExit", "GeneratorExit", "CancelledError")


RAISING = tuple(
    each_called({f"raises_{kind.lower()}": [{"raise": kind}] for kind in kinds}) for kinds in (FAMILIES, LET_OUT)
)


@CHECKLIST.check(number=4, points=3, examples=4, always=RAISING)
def catches_exceptions():
    """call_tool turns any Exception inside the tool into tool:raised:<ExceptionType>, and lets every BaseException that is no Exception out

    Catch Exception around the body's call alone, so that the door's own checks never hide in the
    try, and name the exception's type in the reason: a KeyError inside one tool then ends no run.
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return cases("raise", ("ok",))


# ── 4.5 · the result checked ─────────────────────────────────────────────────

BAD_RESULTS = {
    "empty": EMPTY,
    "too_big": {"sku": "D-400", "rows": [{"region": "seoul", "qty": 11}] * 3},
    "range": {"sku": "A-100", "rows": [{"region": "seoul", "qty": -1}]},
    "item_shape": {"sku": "A-100", "rows": [{"region": "seoul", "qty": 2.5}]},
    "missing": {"rows": [{"region": "seoul", "qty": 5}]},
    "sku_type": {"sku": 100, "rows": [{"region": "seoul", "qty": 5}]},
    "not_a_dict": [["sku", "A-100"]],
    "none": None,
}
GIVING = each_called({f"gives_{how}": [{"return": value}] for how, value in BAD_RESULTS.items()})


@CHECKLIST.check(number=5, points=3, examples=4, always=(GIVING,))
def checks_results():
    """call_tool checks the result: result:<reason> for a value check_result refuses

    Run check_result on the body's value before the ok envelope is built: an empty list, or 20 rows
    where 2 were asked, passed on as a success is what the model then builds its answer on.
    """
    return cases("bad result", ("ok",))


# ── 4.6 · the order of the checks ────────────────────────────────────────────

ORDER = tools_with(STOCK, ("nope", "sku=A-100"), ("nope", None), ("nope", {"limit": True}), ("nope", GOOD_ARGS))


@CHECKLIST.check(number=6, points=1, examples=3, always=(ORDER,))
def checks_in_order():
    """call_tool checks the name first: an unknown name is tool:unknown:<name> whatever the args

    Write the door's checks as early returns, in the rule's order: a model that invents a tool's name
    often invents its args too, and the reason names the first thing wrong.
    """
    return _ANY_BODY.flatmap(lambda body: cases(body, ("unknown first",)))
