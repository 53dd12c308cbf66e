"""Stage 6 · FIXES, build_graph(), run(): failure is a path, not an exception.

A case is a small world (the tool "stock", maybe its upgrade "stock_v2", spy bodies that answer well, too much,
nothing, or raise) and one to three runs of requests with faults put in, some fixable, some not. The parent
predicts every run with the trusted loop (oracle.run) over the same spies; call_memo and what it uses are the
grader's own. Draws stay clear of what the spec leaves open (a misspelt name is one edit from exactly one
contract name; no NaN in a run), and where it leaves a choice every choice it allows is right.

What the checks share comes first; then each check's section: its fixed cases, its draws, its judge and hints.
"""

import difflib
import json
import math
import re
from dataclasses import dataclass
from functools import partial
from itertools import repeat
from typing import Any

from hypothesis import strategies as st

from agtool.contract import MAX_INT_BITS, spelt_alike
from grader.kit import draw
from grader.kit.boundary import spies, values
from grader.kit.boundary.spies import SPY_MARK
from grader.kit.checks.common import (
    DEFAULT_REGION,
    LAB_ARGS,
    MAX_ATTEMPTS,
    ODD_LIMIT,
    call,
    entry,
    got_text,
    parent_tools,
    py,
    request,
    show_table,
)
from grader.kit.oracle_access import oracle
from grader.kit.pasteable import Setting
from grader.kit.probing import Checklist, Mismatch, exception_name, without_oracle

# ── what the checks share: the case, its request, judge, show and hints ──────

MEMO = {"$memo": 0}
JUDGED = ("status", "attempts", "reasons", "tool", "args", "result")  # what run_problem reads of a state
SHARED_HINTS = {  # what a fix does wrong in a run (6.3) and called alone (6.8) alike
    "huge": "The arg is an int too big for a float (2 ** 1100): turning it into a float, as math.isnan does, "
    "raises OverflowError. The rule clamps an int of any size: compared with min and max as it is, it is "
    "exact.",
    "rename": "rename_or_drop renames only onto a contract arg not given yet: {arg!r} was given ({given}), so "
    "the misspelt name is dropped and {arg!r} stays as the caller gave it.",
}


@dataclass(frozen=True)
class Case:
    table: dict
    runs: tuple  # (request, how run is called, share one memo?): how is None (the default limit), an int
    # (max_attempts), or run's keyword arguments as JSON ({"max_attempts": True}, {"picker": {"$spy": t}})

    def keeps_form_of(self, original: "Case") -> bool:
        """A smaller case (grader/kit/smaller.py) asks as the original did: a request with a tool and args
        keeps both (the odd requests of 6.7 are shown as they are)."""
        whole = all(type(req) is dict and {"tool", "args"} <= req.keys() for req, _, _ in original.runs)
        return not whole or all(type(req) is dict and {"tool", "args"} <= req.keys() for req, _, _ in self.runs)


def request_for(case: Case) -> dict:
    calls = [
        call("run", req, kwargs={**kwargs_of(how), **({"memo": MEMO} if shared else {})})
        for req, how, shared in case.runs
    ]
    return request(6, case.table, calls)


def kwargs_of(how) -> dict:
    """run's keyword arguments for a run's `how`: None (the default), a limit, or the keyword arguments."""
    if type(how) is dict:
        return how
    return {} if how is None else {"max_attempts": how}


def call_text(req, how, shared) -> str:
    kwargs = kwargs_of(how)
    more = "".join(
        f", max_attempts={py(kwargs['max_attempts'])}" if key == "max_attempts" else f", picker={kwargs[key]['$spy']}"
        for key in kwargs
    ) + (", memo=memo" if shared else "")
    return f"run({py(req, 10**4, runnable=True)}{more})"


def expected_runs(case: Case) -> list[list]:
    """Per run: [the trusted final state (what is judged of it, plain data), the body runs it takes]; for a
    picker that raises, {"raises": its exception's name} for the state."""
    tools, bodies = parent_tools(case.table)
    memo: dict = {}
    expected = []
    for req, how, shared in case.runs:
        kwargs = kwargs_of(how)
        before = spies.runs(bodies)
        limit = kwargs.get("max_attempts", MAX_ATTEMPTS)
        picker = bodies[kwargs["picker"]["$spy"]] if "picker" in kwargs else None
        try:
            state = oracle.run(tools, values.decode(req), limit, memo if shared else None, picker)
            judged = {key: values.to_plain(state[key]) for key in JUDGED if key in state}
            if state["status"] == "answered":
                judged["texts"] = texts_of(state["result"]["value"])
        except Exception as error:  # only the picker's own: run lets it out
            if not getattr(error, SPY_MARK, False):
                raise
            judged = {"raises": type(error).__name__}
        expected.append([judged, spies.runs_since(bodies, before)])
    return expected


def run_problem(state: dict, runs: dict, result: dict) -> str | None:
    """What is wrong in an observed run, field by field, or None."""
    if unreadable := not_a_state(result):
        return unreadable
    got = result["value"]
    answered = state["status"] == "answered"
    answer = answer_shows(got.get("answer"), state.get("texts", [])) if answered else got.get("answer") is None
    envelope = same_envelope(got.get("result"), state["result"]) or (
        state["attempts"] == 0 and got.get("result") is None
    )
    wrong = not_right(
        status=got.get("status") == state["status"],
        answer=answer,
        attempts=values.same(got.get("attempts"), state["attempts"]),
        reasons=same_reasons(got.get("reasons"), state["reasons"]),
        result=envelope,
        tool=not answered or values.same(got.get("tool"), state["tool"]),
        args=not answered or values.same(got.get("args"), state["args"]),
        body_runs=result["runs"] == runs,
    )
    return f"{', '.join(wrong)} not as expected" if wrong else None


def not_a_state(result: dict) -> str | None:
    """Why what run gave is no final state to judge, or None."""
    if "raised" in result:
        return "run raised"
    return None if type(result.get("value")) is dict else "run must return the final state, a dict"


def not_right(**fields: bool) -> list[str]:
    """The fields whose test failed, in order, as a student reads them ("body runs")."""
    return [field.replace("_", " ") for field, right in fields.items() if not right]


def same_reason(got: Any, want: str | None) -> bool:
    """Is `got` the reason `want`, in a spelling the earlier stages' checks accept (agtool.contract.spelt_alike),
    so that the kit's self-check, which runs a student's own stages 2 to 4 under stage 6, accepts what the
    grade does? An unknown tool's name in any spelling: stage 6 reads none, and 4.2 judges a str name's."""
    return (got is None and want is None) or spelt_alike(got, want, odd_name=True)


def same_reasons(got: Any, want: list) -> bool:
    return type(got) is list and len(got) == len(want) and all(map(same_reason, got, want))


def same_envelope(got: Any, want: Any) -> bool:
    """The last envelope, its error in a spelling the earlier stages accept."""
    if type(got) is not dict or type(want) is not dict or got.keys() != want.keys():
        return values.same(got, want)
    rest = [key for key in want if key != "error"]
    return all(values.same(got[key], want[key]) for key in rest) and same_reason(got.get("error"), want.get("error"))


def not_given_up_at_once(got: dict, naming: str) -> list[str]:
    """The fields of a final state that are not those of a run given up before any call (status gave_up,
    attempts 0, no answer) with a reason that names `naming`."""
    reasons = got.get("reasons")
    return not_right(
        status=got.get("status") == "gave_up",
        attempts=values.same(got.get("attempts"), 0),
        answer=got.get("answer") is None,
        reasons=type(reasons) is list and any(type(r) is str and naming in r for r in reasons),
    )


def answer_shows(answer, texts: list[str]) -> bool:
    """A non-empty sentence that shows the text of every str of the value (texts_of): as it is, or with the
    escapes json.dumps or repr write for quotes, backslashes and control characters; a non-ASCII letter
    ("É") as it is, never "\\u00c9"."""
    forms = [{text, json.dumps(text, ensure_ascii=False)[1:-1], repr(text)[1:-1]} for text in texts]
    return type(answer) is str and answer != "" and all(any(form in answer for form in text) for text in forms)


def texts_of(value: Any) -> list[str]:
    """Every str of an ok value, keys and items at any depth (a list that holds itself once), sorted: the text
    its answer shows; none where the value holds an int of over 4,300 digits: json.dumps, repr and str all
    refuse to write it, so no way of writing the value is the lesson's, and any sentence is right."""
    found: set[str] = set()
    todo, seen = [value], set()
    while todo:
        item = todo.pop()
        if type(item) is str:
            found.add(item)
        elif type(item) is int and item.bit_length() > MAX_INT_BITS:
            return []
        elif type(item) in (list, tuple, set, dict) and id(item) not in seen:
            seen.add(id(item))
            todo.extend(item.items() if type(item) is dict else item)
    return sorted(found)


def judge_run(run: tuple, want: list, result: dict) -> tuple[str, str, str] | None:
    """A run judged in full (run_problem): None, or (what is wrong, the trusted state shown, the hint).
    Whichever check's case it is, a run's fixes are 6.3's lesson (fixing_hint), its memo and answer 6.2's."""
    req, _, shared = run
    state, runs = want
    if not (problem := run_problem(state, runs, result)):
        return None
    raised = result.get("raised", "")
    if "OverflowError" in raised:
        hint = SHARED_HINTS["huge"]
    elif shared and "body runs" in problem:
        hint = ANSWER_HINTS["memo"]
    else:
        fixing = type(result.get("value")) is dict
        hint = (fixing and fixing_hint(req, state, result["value"])) or answer_hint(state, problem, raised)
    return problem, show_state(state, runs), hint


def compare(case: Case, expected: list | None, observation: dict, judge=judge_run) -> Mismatch | None:
    """The first run `judge` finds wrong, as a Mismatch. A judge is handed the run (request, how, shared), what
    is expected of it (None: a judge without the oracle) and what came back, and gives None or (what is wrong,
    what a correct module gives, the hint)."""
    judged = zip(case.runs, expected or repeat(None), observation["results"], strict=False)
    for at, (run, want, result) in enumerate(judged):
        if found := judge(run, want, result):
            problem, shown, hint = found
            return Mismatch(
                call_text(*run),
                shown,
                f"{show_got(result)} ({problem})",
                hint,
                exception=exception_name(result),
                problem=problem,
                at=at,
            )
    return None


def _field(reason: str) -> str:
    """The field a reason names: all of it after <stage>:<check>, ':' and '.' included."""
    return reason.split(":", 2)[-1]


def show_state(state: dict, runs: dict) -> str:
    shown = {key: state[key] for key in ("status", "attempts", "reasons", "tool", "args") if key in state}
    result = state["result"]
    if type(result) is dict and values.anywhere(result.get("value"), values.is_marker):
        # a value JSON cannot carry (its keys, an int of over 4,300 digits) is named as what the body
        # returned, the value the setting shows, never the grader's marker
        result = {**result, "value": _Named("<the value the tool's body returned, as above>")}
    shown["result"] = result
    answer = "None"
    if state["status"] == "answered":
        answer = "a sentence that shows " + ("the text of every str in the value" if state.get("texts") else "it")
    return f"{py(shown, 10**4)}, answer {answer}, body runs: {sum(runs.values())}"


class _Named(str):
    __repr__ = str.__str__  # py writes it as it reads, with no quotes


def show_got(result: dict) -> str:
    value = result.get("value")
    if type(value) is dict:
        value = {key: value[key] for key in (*JUDGED, "answer") if key in value}
        return f"{py(value, 10**4)}, body runs: {sum(result['runs'].values())}"
    return got_text(result)


CHECKLIST = Checklist(6, request_for, lambda case: show_table(case.table), expected_runs, compare)


# ── the world the checks' cases are drawn from ───────────────────────────────

ROW = {"qty": {"type": "int", "min": 0}, "bays": {"type": "list", "max_len": 1, "allow_empty": True}}
RETURNS = {"sku": {"type": "str"}, "rows": {"type": "list", "max_len": 2, "items": ROW}}
_ROW = {"qty": 3, "bays": []}
BODIES: dict[str, list[dict[str, Any]]] = {
    "good": [{"return": {"sku": "A-100", "rows": [_ROW]}}],
    "empty": [{"return": {"sku": "Z-999", "rows": []}}],
    "too_big": [{"return": {"sku": "D-400", "rows": [_ROW] * 20}}],
    "too_big_inside": [{"return": {"sku": "D-400", "rows": [{"qty": 3, "bays": [1, 2]}]}}],
    "out_of_range": [{"return": {"sku": "A-100", "rows": [{"qty": -1, "bays": []}]}}],
    "not_a_dict": [{"return": [["sku", "A-100"]]}],
    "raise": [{"raise": "KeyError"}],
    "flaky": [{"raise": "TimeoutError"}, {"return": {"sku": "A-100", "rows": [_ROW]}}],
    "accented": [{"return": {"sku": "É-100 à Jeju", "rows": [_ROW]}}],
    # quotes, a backslash and a tab, which json.dumps and repr both escape: either spelling shows the text
    "quoted": [{"return": {"sku": 'A-100 "Jeju" \\ \t', "rows": [_ROW]}}],
    # an extra key that is no str: check_result lets it be, json.dumps(..., sort_keys=True) cannot sort the keys
    "mixed_keys": [{"return": {"$intkeys": [["sku", "A-100"], ["rows", [_ROW]], [1, "extra"]]}}],
    # an extra key holding a list that holds itself: json.dumps raises ValueError (a circular reference), where
    # a repr writes [(), [...]]; the tuple first makes is_json refuse it at once (no memo), never recurse
    "holds_itself": [{"return": {"sku": "A-100", "rows": [_ROW], "log": {"$cycle": [{"$tuple": []}]}}}],
    # an extra key holding an int of 4,301 digits: json.dumps, repr and str all raise ValueError on it
    "huge_int": [{"return": {"sku": "A-100", "rows": [_ROW], "total": {"$power": [10, 4300]}}}],
}
# The answer's own bodies are 6.2's fixed cases alone: a draw of another check never meets them.
ANSWER_BODIES = ("accented", "quoted", "mixed_keys", "holds_itself", "huge_int")
DRAWN_BODIES = tuple(body for body in BODIES if body not in ANSWER_BODIES)

# The arg names a world's contracts use: far apart, so a misspelling is close to one only.
LONG_NAMES = ("region", "limit", "budget", "warehouse", "color")
FAR_NAMES = ("x9", "zz", "qx", "z_1")  # no letter in common with any contract name


def _typos(name: str, among: tuple[str, ...] = (*LONG_NAMES, "sku")) -> list[str]:
    """One-edit misspellings of name (past its first two letters) close to it and to nothing else among."""
    edits = {name[:i] + name[i + 1 :] for i in range(2, len(name))}
    edits |= {name[:i] + name[i + 1] + name[i] + name[i + 2 :] for i in range(2, len(name) - 1)}
    edits |= {name[:i] + name[i] + name[i:] for i in range(2, len(name))}
    others = [other for other in among if other != name]
    return sorted(
        typo
        for typo in edits - {name}
        if difflib.SequenceMatcher(None, typo, name).ratio() >= 0.8
        and all(difflib.SequenceMatcher(None, typo, other).ratio() < 0.5 for other in others)
    )


TYPOS = {name: _typos(name) for name in LONG_NAMES}

# How far out of range an int is drawn: a step or two, or more than any float holds (2 ** 1100).
INT_OFFSETS = st.one_of(st.integers(1, 3), st.integers(1025, 1100).map(lambda bits: 2**bits))


def _out_of_range(d, spec):
    """Below min or above max (never NaN: a run meets no NaN); an int may be of any size."""
    offset = d(INT_OFFSETS) if spec["type"] == "int" else float(d(st.integers(1, 3)))
    if "max" in spec and d(draw.BOOL):
        return spec["max"] + offset
    return spec["min"] - offset


def _misspell(d, args):
    present = [name for name in args if name in TYPOS]
    if present:
        name = draw.pick(d, present)
        args = {draw.pick(d, TYPOS[name]) if key == name else key: value for key, value in args.items()}
    return args


def _set(req: dict, arg: str, value) -> dict:
    return {**req, "args": {**req["args"], arg: value}}


# fault -> (the contract args it needs, what it does to the request)
FAULTS = {
    "region": (("region",), lambda d, req: _set(req, "region", draw.pick(d, ("mars", "Seoul", "")))),
    "limit": (("limit",), lambda d, req: _set(req, "limit", _out_of_range(d, req["specs"]["limit"]))),
    "budget": (("budget",), lambda d, req: _set(req, "budget", _out_of_range(d, req["specs"]["budget"]))),
    "warehouse": (("warehouse",), lambda d, req: _set(req, "warehouse", -d(INT_OFFSETS))),
    "typo": ((), lambda d, req: {**req, "args": _misspell(d, req["args"])}),
    "invented": ((), lambda d, req: {**req, "args": {**req["args"], draw.pick(d, FAR_NAMES): d(draw.LEAF)}}),
    "missing": (("sku",), lambda d, req: {**req, "args": {k: v for k, v in req["args"].items() if k != "sku"}}),
    "type": (("limit",), lambda d, req: _set(req, "limit", draw.pick(d, ("2", True, 2.0)))),
    "color": (("color",), lambda d, req: _set(req, "color", "green")),
    "tool": ((), lambda d, req: {**req, "tool": draw.pick(d, ("stock_v9", "Stock", "stock_lookup"))}),
}
FIXABLE = ("region", "limit", "budget", "warehouse", "typo", "invented")
UNFIXABLE = ("missing", "type", "color", "tool")


def stock_table(contract: dict, body: str, upgrade: str | None) -> dict:
    table = {"stock": entry(args=contract, returns=RETURNS, body=BODIES[body], upgrade="stock_v2" if upgrade else None)}
    if upgrade:
        table["stock_v2"] = entry(args=contract, returns=RETURNS, body=BODIES[upgrade])
    return table


@st.composite
def worlds(
    d, faults: tuple[str, ...], body: str, upgrade: str | None, seoul: bool = True, limits=None, runs: int = 1
) -> Case:
    """The tool "stock" (body `body`; upgrade "stock_v2" with body `upgrade`, if any), and runs of requests to
    it, each with every fault of `faults` put in; each run's max_attempts drawn from `limits`."""
    limits = st.sampled_from([None, 3, 4, 5]) if limits is None else limits
    regions = {draw.pick(d, ("busan", "jeju", "daegu"))} | ({"seoul"} if seoul else set())
    specs: dict[str, dict] = {
        "sku": {"type": "str"},
        "region": {"type": "str", "allowed": sorted(regions)},
        "limit": {"type": "int", "min": 1, "max": d(st.integers(1, 5))},
        "budget": {"type": "float", "min": 0.5, "max": d(st.integers(1, 5)) + 0.5},
        "warehouse": {"type": "int", "min": 0},
        "color": {"type": "str", "allowed": ["blue", "red"]},
    }
    needed = {arg for fault in faults for arg in FAULTS[fault][0]} | {"sku"}
    chosen = needed | {name for name in specs if d(draw.BOOL)}
    contract = {name: spec for name, spec in specs.items() if name in chosen}
    planned: list[tuple] = []
    for _ in range(d(st.integers(1, runs))):
        if planned and d(draw.BOOL):  # the same question again
            planned.append((planned[-1][0], d(limits), d(draw.BOOL)))
            continue
        req = {
            "tool": "stock",
            "args": draw.valid_args(d, {k: {**v, "required": True} for k, v in contract.items()}),
            "specs": contract,
        }
        for fault in faults:
            req = FAULTS[fault][1](d, req)
        planned.append(({"tool": req["tool"], "args": req["args"]}, d(limits), runs > 1 and d(draw.BOOL)))
    return Case(stock_table(contract, body, upgrade), tuple(planned))


def some(choices: tuple[str, ...], least: int, most: int):
    return st.lists(st.sampled_from(choices), min_size=least, max_size=most, unique=True).map(tuple)


# What the fixed cases of the checks ask: a request to "stock" under the lab's contract (one region fewer).
STOCK_ARGS = {**LAB_ARGS, "region": {"type": "str", "allowed": ["busan", "seoul"]}}
ASK = {"tool": "stock", "args": {"sku": "A-100", "region": "seoul", "limit": 1}}
EVERYTHING_WRONG = {"tool": "stock", "args": {"sku": "D-400", "region": "mars", "limit": 5}}


def stock(body: str, upgrade: str | None, *runs: tuple, contract: dict = STOCK_ARGS) -> Case:
    """A fixed case: stock_table's world, and runs of (request, how) with no memo shared."""
    return Case(stock_table(contract, body, upgrade), tuple((request, how, False) for request, how in runs))


# ── 6.1 · the constants, and the graph build_graph() gives at work ───────────
# The graph is judged by what it does, never by what the child says it is: while run answers three requests,
# the child follows the graph the submission's build_graph() gives (grader/kit/boundary/runner.py, "follow") and
# sends the nodes it walked and what each returned. The walk must be the trusted loop's path, with the spy body
# run, here, as often as that path needs, and the call node's update must hold what the body returned: a value
# drawn for the case that the child only learns by running it.

NODES = ("pick", "call", "fix", "answer", "give_up")
TOKEN_LETTERS = "0123456789abcdef"
# The requests the graph walks for 6.1, one for each way through it, each as every other stage-6
# check expects the spec's loop to take it: answered at once, fixed by its full reason (no prefix,
# no clamp, no rename to judge), and given up on a reason with no fix (no body run).
GRAPH_RUNS = (
    ASK,
    {"tool": "stock", "args": {"sku": "A-100", "region": "mars", "limit": 1}},
    {"tool": "stock_v9", "args": {"sku": "A-100"}},
)
GRAPH_HINT = (
    "run must go through the graph build_graph() gives: a compiled StateGraph with the nodes pick, call, fix, "
    "answer and give_up. The grader watches the very graph build_graph() returns while run answers."
)


@dataclass(frozen=True)
class Setup:
    token: str  # the graph's tool's body answers with it in its value

    @property
    def table(self) -> dict:
        return {
            "stock": entry(args=STOCK_ARGS, returns=RETURNS, body=[{"return": {"sku": self.token, "rows": [_ROW]}}])
        }


CONSTANTS = (("MAX_ATTEMPTS", MAX_ATTEMPTS), ("DEFAULT_REGION", DEFAULT_REGION))  # read first, in this order


def request_for_setup(case: Setup) -> dict:
    return request(
        6,
        case.table,
        [call(name, get=True) for name, _ in CONSTANTS]
        + [call("run", req, follow="build_graph") for req in GRAPH_RUNS],
    )


def expect_walks(case: Setup) -> list[tuple[list, dict]]:
    """Per run of GRAPH_RUNS, the trusted loop's path (the nodes the graph must walk) and its body runs."""
    tools, bodies = parent_tools(case.table)
    expected = []
    for req in GRAPH_RUNS:
        before = spies.runs(bodies)
        expected.append((oracle.run(tools, values.decode(req))["path"], spies.runs_since(bodies, before)))
    return expected


def holds(value: Any, text: str) -> bool:
    """Is the str `text` in value, a key or an item anywhere inside it?"""
    if type(value) is str:
        return text in value
    if type(value) is list:
        return any(holds(item, text) for item in value)
    if type(value) is dict:
        return any(holds(key, text) or holds(item, text) for key, item in value.items())
    return False


def walk_problem(case: Setup, path: list, runs: dict, result: dict) -> str | None:
    """What is wrong with the walk of one followed run, or None. What comes back is the walks run made of the
    graph, each a list of [node, its update]: of these, the spec's nodes are judged."""
    if "raised" in result:
        return f"run raised {result['raised']}"
    got = result.get("value")
    if type(got) is not dict or type(got.get("walks")) is not list:
        return "no record of a walk came back"
    steps = [step for walk in got["walks"] if type(walk) is list for step in walk]
    steps = [step for step in steps if type(step) is list and len(step) == 2 and step[0] in NODES]
    nodes = [node for node, _ in steps]
    if not nodes:
        return "run never invoked the graph that build_graph() gave"
    if nodes != path:
        return f"the graph walked {' -> '.join(nodes)}"
    if runs and not any(holds(update, case.token) for node, update in steps if node == "call"):
        return "no update of its call node holds what the tool's body returned"
    if result["runs"] != runs:
        return f"the tool's body ran {sum(result['runs'].values())} times"
    return None


def compare_setup(case: Setup, expected: list, observation: dict) -> Mismatch | None:
    # The skeleton imports both from agtool.contract; a module that defines its own is judged on its value.
    constants, runs = observation["results"][: len(CONSTANTS)], observation["results"][len(CONSTANTS) :]
    for at, ((name, want), result) in enumerate(zip(CONSTANTS, constants, strict=True)):
        if not values.same(result.get("value"), want):
            return Mismatch(
                name, py(want), got_text(result), setting=Setting(), exception=exception_name(result), at=at
            )
    for at, (req, (path, body_runs), result) in enumerate(
        zip(GRAPH_RUNS, expected, runs, strict=False), len(CONSTANTS)
    ):
        problem = walk_problem(case, path, body_runs, result)
        if problem:
            return Mismatch(
                f"run({py(req, 10**4, runnable=True)})  # watching the graph build_graph() gives",
                f"build_graph()'s graph walks {' -> '.join(path)}, body runs: {sum(body_runs.values())}",
                problem,
                GRAPH_HINT,
                at=at,
            )
    return None


@CHECKLIST.check(
    number=1,
    points=2,
    examples=1,
    request=request_for_setup,
    expect=expect_walks,
    compare=compare_setup,
)
def constants_and_graph():
    """MAX_ATTEMPTS is 3, DEFAULT_REGION "seoul", and run walks build_graph()'s graph: pick, call, fix, answer, give_up

    The skeleton imports MAX_ATTEMPTS and DEFAULT_REGION from agtool.contract: keep that import rather
    than values of your own. build_graph() returns graph.compile(), and run invokes that graph.
    """
    return st.builds(Setup, st.text(TOKEN_LETTERS, min_size=12, max_size=12).filter(lambda token: len(set(token)) > 1))


# ── 6.2 · an answer, through the memo run is given ───────────────────────────

ANSWERED = (
    stock("good", None, (ASK, None), (ASK, 1)),
    *(stock(body, None, (ASK, None)) for body in ANSWER_BODIES),
    Case(stock_table(STOCK_ARGS, "good", None), ((ASK, {}, True), (ASK, {}, True), (ASK, {"max_attempts": 1}, True))),
)
ANSWER_HINTS = {
    "answer": "The answer shows the ok value's text: every str in it, non-ASCII letters as they are (json.dumps "
    "escapes them to \\u00c9 unless told otherwise). Where json.dumps cannot write the value (keys of mixed "
    "types to sort, a list that holds itself) it raises, yet the value still has a text: its repr. Only an "
    "int of over 4,300 digits has none in Python; then any sentence will do.",
    "no text": "This ok value holds an int of over 4,300 digits, and Python refuses to write such an int as "
    "text: json.dumps, repr and str all raise ValueError on it, a fallback to repr too. run never raises: for "
    "a value that has no text, any sentence is an answer.",
    "memo": "The body ran where the memo run was given should have answered: run uses the memo it is "
    "given, an empty dict too. An empty dict is falsy, so a test of its truth swaps it for a new one that the "
    'caller never sees fill; only a memo that is None is the caller\'s "no memo".',
}


def answer_hint(state: dict, problem: str, raised: str) -> str:
    """The answer's hint when the answer is what went wrong: its text, or a raise on a value JSON cannot show
    (`raised`: what run raised, if it did)."""
    if state.get("status") != "answered":
        return ""
    cannot_show = values.anywhere(state["result"]["value"], values.is_marker)
    if problem == "run raised" and cannot_show and raised.startswith("ValueError") and "digits" in raised:
        return ANSWER_HINTS["no text"]
    return ANSWER_HINTS["answer"] if problem.startswith("answer") or (problem == "run raised" and cannot_show) else ""


@CHECKLIST.check(number=2, points=2, examples=3, always=ANSWERED)
def answers():
    """run answers a request whose call succeeds, one door call, through the memo it is given

    after_call sends an ok envelope to answer, never to fix; pass the memo run is given on to call_memo.
    """
    return worlds((), "good", None, limits=st.sampled_from([None, 1, 2, 4]), runs=3)


# ── 6.3 · a fix by full reason, then by prefix ───────────────────────────────

MISSPELT = {"tool": "stock", "args": {"sku": "A-100", "regoin": "busan", "limit": 1}}
# A fix changes only the field its reason names. skuu is closest to sku, which the caller gave: skuu is dropped,
# and the run answers about A-100, never B-200. A misspelt "sku:" (a field may hold ":"; one edit from sku) is
# renamed to sku, found by its prefix args:unknown; an int no float holds is clamped like any other.
CLASH = {"tool": "stock", "args": {"sku": "A-100", "skuu": "B-200", "region": "seoul", "limit": 1}}
COLON = {"tool": "stock", "args": {"sku:": "A-100", "region": "seoul", "limit": 1}}
HUGE_ARG = {"tool": "stock", "args": {"sku": "A-100", "region": "seoul", "limit": 2**1100}}
BUDGET_ARGS = {**STOCK_ARGS, "budget": {"type": "float", "min": 0.5, "max": 5.5, "required": False}}
TWO_RANGES = {"tool": "stock", "args": {"sku": "A-100", "region": "seoul", "limit": 5, "budget": 0.1}}
TWO_UNKNOWN = {"tool": "stock", "args": {"sku": "A-100", "regoin": "busan", "limit": 1, "zz": 1}}
CODE_ARGS = {"sku": {"type": "str"}, "region_code": {"type": "str", "allowed": ["KR"]}}
SHARED_PREFIX = {"tool": "stock", "args": {"sku": "A-100", "region_code": "JP"}}
FIXED = (
    stock("too_big", "good", (EVERYTHING_WRONG, 5)),
    # a reason that shares the start of a FIXES key: args:allowed:region_code is neither args:allowed:region
    # nor has the prefix args:allowed a fix: no fix, one door call
    stock("good", None, (SHARED_PREFIX, None), contract=CODE_ARGS),
    # two fields fail at once: each fix repairs its own, one call each (a fix that repairs both saves a call)
    stock("good", None, (TWO_RANGES, None), (TWO_UNKNOWN, None), contract=BUDGET_ARGS),
    stock("good", None, (MISSPELT, None)),
    stock("good", None, (CLASH, None), (COLON, None), (HUGE_ARG, None)),
)
FIX_KEYS = ("args:allowed:region", "args:range", "args:unknown", "result:too_big")  # the lesson's FIXES
FIXING_HINTS = {
    "starts": "{reason} has no fix: neither the full reason nor its <stage>:<check> prefix is a key of FIXES. "
    "A key it merely starts with is another reason's fix (args:allowed:region is region's), so the run gives "
    "up after one call.",
    "one field": "Here two fields fail ({reasons}): each reason's fix repairs its own field and calls again, "
    "one call a reason. This run answered after another number of calls: a fix changed more than the field "
    "its reason names.",
    "prefix": "A fix is looked up by the full reason, then by its <stage>:<check> prefix, the reason's first "
    "two parts: a field may hold ':' itself (args:unknown:sku: has the prefix args:unknown), so the prefix is "
    "not everything before the last ':'.",
}


def fixing_hint(req, state: dict, got: dict) -> str:
    """The hint for a run that came back as a state whose fixes went wrong, or ""."""
    given = req.get("args") if type(req) is dict else None
    if state["status"] == "answered" and type(given) is dict and type(got.get("args")) is dict:
        for arg, value in given.items():
            kept = arg in state["args"] and values.same(state["args"][arg], value)
            if kept and not values.same(got["args"].get(arg), value):
                return SHARED_HINTS["rename"].format(arg=arg, given=py(value))
    starts = _starts_a_fix_key(state["reasons"])
    if starts and got.get("attempts") != state["attempts"]:
        return FIXING_HINTS["starts"].format(reason=starts)
    answered_sooner = got.get("status") == state["status"] == "answered" and got.get("attempts") != state["attempts"]
    if answered_sooner and sum(reason.startswith("args:") for reason in state["reasons"]) > 1:
        return FIXING_HINTS["one field"].format(reasons=", ".join(state["reasons"]))
    fields = [_field(reason) for reason in state["reasons"]]
    if any(":" in field for field in fields) and got.get("status") != state["status"]:
        return FIXING_HINTS["prefix"]
    no_float = type(given) is dict and any(type(value) is int and value.bit_length() > 1024 for value in given.values())
    return SHARED_HINTS["huge"] if no_float and got.get("status") != state["status"] else ""


def _starts_a_fix_key(reasons: list) -> str:
    """A reason that starts with a key of the lesson's FIXES without being it or having it as its prefix."""
    for reason in reasons:
        prefix = ":".join(reason.split(":")[:2])
        if any(reason.startswith(key) and key not in (reason, prefix) for key in FIX_KEYS):
            return reason
    return ""


@CHECKLIST.check(number=3, points=3, examples=5, always=FIXED)
def fixes_what_it_can():
    """run fixes what FIXES fix (region, range, misspelt or invented names, too_big), by full reason, then by prefix

    Two slips are common: a lookup by how the reason starts (startswith), which hands
    args:allowed:region_code the region's fix; and a fix found but not applied: the fix node writes what
    the fix returns into the state, and its edge leads back to call.
    """

    def world(faults: tuple[str, ...], body: str):
        upgrade = None if body == "good" else "good"
        # Limits away from 6.6's boundary: a run of n calls takes 2n + 1 graph steps, so a recursion limit of
        # max_attempts + 5 (too small for a long run) must still let these runs of at most 4 calls finish.
        limits = [None, 3, 4, 5] if len(faults) + (upgrade is not None) < 3 else [5, 6]
        return worlds(faults, body, upgrade, limits=st.sampled_from(limits))

    return st.tuples(some(FIXABLE, 1, 2), st.sampled_from(["good", "too_big", "too_big_inside"])).flatmap(
        lambda plan: world(*plan)
    )


# ── 6.4 · give up at once on a reason with no fix ────────────────────────────


@CHECKLIST.check(
    number=4, points=3, examples=4, always=(stock("empty", None, (ASK, None)), stock("raise", None, (ASK, None)))
)
def gives_up_at_once():
    """run gives up at once on a reason it cannot fix (result:empty above all): one door call, one body run at most

    after_call decides: a reason FIXES has no fix for (tool:raised and args:missing have none either)
    leads to give_up, not to fix.
    """
    return st.one_of(
        st.sampled_from(UNFIXABLE).flatmap(lambda fault: worlds((fault,), "good", None)),
        st.sampled_from(["empty", "raise", "out_of_range", "not_a_dict", "flaky"]).flatmap(
            lambda body: worlds((), body, None)
        ),
    )


# ── 6.5 · give up when a reason comes back or a fix cannot help ──────────────

WHERE = {"type": "dict", "properties": {"min_qty": {"type": "int", "min": 0}}}
REPEATS = (
    stock(
        "good", None, (EVERYTHING_WRONG, None), contract={**STOCK_ARGS, "region": {"type": "str", "allowed": ["busan"]}}
    ),
    # stock's upgrade is stock_v2 and stock_v2's is stock, both too big: the fix helps (another tool each time),
    # yet the same reason comes back on the second call, whatever else a module chooses.
    Case(
        {
            "stock": entry(args=STOCK_ARGS, returns=RETURNS, body=BODIES["too_big"], upgrade="stock_v2"),
            "stock_v2": entry(args=STOCK_ARGS, returns=RETURNS, body=BODIES["too_big"], upgrade="stock"),
        },
        ((ASK, None, False),),
    ),
    # the fix cannot help: a dotted field, no arg of the contract, and a tool with no upgrade
    stock(
        "good",
        None,
        ({"tool": "stock", "args": {"sku": "A-100", "where": {"min_qty": -1}}}, None),
        ({"tool": "stock", "args": {"sku": "A-100", "where": {"min_qty": 1, "max_qty": 5}}}, None),
        contract={"sku": {"type": "str"}, "where": WHERE},
    ),
    stock("too_big", None, (ASK, None)),
)


def judge_repeat(run: tuple, want: list, result: dict) -> tuple[str, str, str] | None:
    """Where the trusted run gives up on a reason that came back, a module may give up sooner (its fix could
    not help: use_default_region where the contract does not allow DEFAULT_REGION), never later: after at most
    as many door calls, with the trusted reasons so far, no answer and no extra body run. Giving up too soon
    for another cause is 6.3's to judge. Any other run is judged in full (judge_run)."""
    (state, runs), got = want, result.get("value")
    reasons = state.get("reasons") or []
    gave_up_sooner = (
        state.get("status") == "gave_up"
        and len(reasons) > 1
        and reasons[-1] in reasons[:-1]
        and "raised" not in result
        and type(got) is dict
        and type(calls := got.get("attempts")) is int
        and 1 <= calls <= state["attempts"]
        and got.get("status") == "gave_up"
        and got.get("answer") is None
        and same_reasons(got.get("reasons"), reasons[:calls])
        and all(ran <= runs.get(tool, 0) for tool, ran in result["runs"].items())
    )
    return None if gave_up_sooner else judge_run(run, want, result)


@CHECKLIST.check(number=5, points=2, examples=3, always=REPEATS, compare=partial(compare, judge=judge_repeat))
def gives_up_on_repeats():
    """run gives up when the same reason comes back, or when the fix cannot help (no upgrade, a dotted field)

    Keep every reason in the state: after_call gives up when the newest one is already there. A fix that
    returns None, or raises, leaves the fix node no tool to call, and after_fix gives up.
    """
    return worlds(("region",), "good", None, seoul=False)


# ── 6.6 · never more door calls than max_attempts, never cut short ───────────

# Six distinct fixable reasons in a row (unknown:regoin, unknown:limti, unknown:zz, allowed:region, range:limit,
# result:too_big), then the upgrade answers: 7 door calls, 15 graph steps, more than a recursion limit below
# 2 * max_attempts + 2 allows.
CHAIN = {"tool": "stock", "args": {"sku": "D-400", "regoin": "mars", "limti": 5, "zz": 1}}
HUGE_LIMIT = 2**40  # any int is a limit: run must not build anything of max_attempts' size
# A run never cut short, at little cost: fifty invented names dropped one a call (all three contract args are
# given, so none is renamed), then the answer: 51 door calls, 103 graph steps, past a fixed recursion limit of
# 100 and LangGraph's default while the submission runs (25: grader/kit/boundary/runner.py; its own, 10,007,
# would take 5,000 calls to reach: too dear to probe).
LONG_CALLS = 51  # the fewest past a fixed limit of 100: the longest fixed case
LONG = {
    "tool": "stock",
    "args": {"sku": "A-100", "region": "seoul", "limit": 1, **{f"x{i}": i for i in range(LONG_CALLS - 1)}},
}
LIMITED = (
    stock("too_big", "good", *[(EVERYTHING_WRONG, limit) for limit in (None, 0, 2, 1, -1)]),
    stock("too_big", "good", (CHAIN, 7), (ASK, HUGE_LIMIT)),
    stock("good", None, (LONG, LONG_CALLS), (ASK, -HUGE_LIMIT)),
    stock("good", None, *[(ASK, {"max_attempts": limit}) for limit in (True, False, 2.0, "3", [3], draw.NAN)]),
    stock("good", None, (ASK, {"max_attempts": None})),
)
ODD_STATE = (
    "the run gives up at once: status 'gave_up', attempts 0, answer None, no body run, and a reason that names "
    f"max_attempts (the lab's own state: {py(ODD_LIMIT)})"
)
LIMIT_HINTS = {
    "odd": "Check max_attempts first: unless it is an int (and not a bool, which Python counts as one), "
    "give up at once, without calling anything, with a reason that names it (run:type:max_attempts).",
    "recursion": "LangGraph stops a run whose steps reach its recursion_limit (a ValueError below 1): a run of "
    "max_attempts = n calls takes up to 2n + 1 steps, and 2 (pick, give_up) when n <= 0, and the grade runs "
    "with LangGraph's default at 25. So run sets its own recursion_limit, one that grows with max_attempts and "
    "stays above those steps for every int, 0 and negative ones too.",
}


def judge_limit(run: tuple, want: list, result: dict) -> tuple[str, str, str] | None:
    """Never more door calls than max_attempts, and a long run is never cut short; a max_attempts that is not
    an int makes no call and gives up at once, with a reason that names max_attempts."""
    (state, runs), limit = want, kwargs_of(run[1]).get("max_attempts", MAX_ATTEMPTS)
    odd = isinstance(limit, bool) or not isinstance(limit, int)  # no int: Python counts a bool as one
    if not (problem := not_a_state(result) or limit_problem(state, result, limit, odd)):
        return None
    raised = result.get("raised", "")
    recursion = raised.startswith("GraphRecursionError") or "recursion_limit" in raised or "cut short" in problem
    hint = LIMIT_HINTS["odd"] if odd else LIMIT_HINTS["recursion"] if recursion else ""
    return problem, ODD_STATE if odd else show_state(state, runs), hint


def limit_problem(state: dict, result: dict, limit, odd: bool) -> str | None:
    got = result["value"]
    if odd:
        wrong = not_given_up_at_once(got, naming="max_attempts") + ([] if not result["runs"] else ["body runs"])
        return f"{', '.join(wrong)} not as for a max_attempts that is not an int" if wrong else None
    calls = got["path"].count("call") if type(got.get("path")) is list else 0
    attempts = got["attempts"] if type(got.get("attempts")) is int else 0
    most = max(limit, 0)
    if sum(result["runs"].values()) > most or calls > most or attempts > most:
        return f"more door calls than max_attempts={limit}"
    # Cut short without raising (a caught GraphRecursionError, say): after a fix, and before the calls it needs.
    # Giving up at the first call is another bug's, and another check's (no fix found: 6.3).
    if state["attempts"] >= LONG_CALLS and got.get("status") == "gave_up" and 1 < attempts < state["attempts"]:
        return f"cut short: {state['attempts']} calls were needed, max_attempts={limit} allows them"
    return None


@CHECKLIST.check(number=6, points=2, examples=3, always=LIMITED, compare=partial(compare, judge=judge_limit))
def stops_at_the_limit():
    """run never makes more door calls than max_attempts (MAX_ATTEMPTS by default); one that is not an int makes none

    Count door calls in the state and test the count before each call (before_call); set LangGraph's
    recursion_limit from max_attempts, so that it never ends a run first.
    """
    return some(FIXABLE, 2, 4).flatmap(
        lambda faults: worlds(faults, "too_big", "good", limits=st.sampled_from([None, 0, 1, 2, -3]))
    )


# ── 6.7 · the state's form, odd requests too ─────────────────────────────────

STATE_KEYS = ("tool", "args", "result", "reasons", "path", "attempts", "status", "answer")
STATE_FORM = (
    f"a final state with {', '.join(STATE_KEYS)}; path a walk pick -> call -> (fix -> call)* -> answer | give_up"
)
PATH = re.compile(r"pick(,call(,fix,call)*(,answer|,fix,give_up|,give_up)|,give_up)")
# What the spec leaves open (give up at once, or after one door call?) is judged here only by the state's form.
ODD_REQUESTS = (
    None,
    "stock",
    [["tool", "stock"]],
    {"tool": None},
    {"tool": "stock"},
    {"args": {"sku": "A-100"}},
    {"tool": 5, "args": []},
    {"tool": ["stock"], "args": {}},
    {"tool": "stock", "args": "sku=A-100"},
)


def judge_form(run: tuple, want: None, result: dict) -> tuple[str, str, str] | None:
    """Every field the spec names is in the state, and the path is a walk through the graph."""
    if result.get("raised", "").startswith("GraphRecursionError"):
        return None  # a loop that did not stop at max_attempts: 6.6's to judge, not the state's form
    problem = not_a_state(result) or form_problem(result["value"])
    return (problem, STATE_FORM, "") if problem else None


def form_problem(got: dict) -> str | None:
    missing = [key for key in STATE_KEYS if key not in got]
    if missing:
        return f"no {', '.join(missing)}"
    path, attempts = got["path"], got["attempts"]
    if type(path) is not list or not all(type(node) is str for node in path) or not PATH.fullmatch(",".join(path)):
        return "path is not a walk through the graph"
    if path.count("call") != attempts:
        return "attempts does not count the calls in path"
    if got["status"] != ("answered" if path[-1] == "answer" else "gave_up"):
        return "status does not match the path's end"
    if type(got["reasons"]) is not list or not all(type(reason) is str for reason in got["reasons"]):
        return "reasons is not a list of str"
    return None


@st.composite
def odd_or_not(d) -> Case:
    limits = st.sampled_from([None, 1, 2, 3])
    case = d(worlds(d(some(FIXABLE + UNFIXABLE, 0, 2)), draw.pick(d, DRAWN_BODIES), "good", limits=limits, runs=2))
    runs = [
        (draw.pick(d, ODD_REQUESTS), how, shared) if d(draw.BOOL) else (req, how, shared)
        for req, how, shared in case.runs
    ]
    return Case(case.table, tuple(runs))


@CHECKLIST.check(
    number=7,
    points=2,
    examples=4,
    **without_oracle(lambda case, observation: compare(case, None, observation, judge_form)),
    always=(Case(stock_table(STOCK_ARGS, "good", None), tuple((req, {}, False) for req in ODD_REQUESTS)),),
)
def keeps_the_state():
    """run returns the state (tool, args, result, reasons, path, attempts, status, answer); odd requests too

    Return what build_graph().invoke(...) gives back, each node appending its name to path. Odd requests
    give up; nothing raises.
    """
    return odd_or_not()


# ── 6.8 · the FIXES table, probed without run ────────────────────────────────

FIX_ARGS: dict[str, dict[str, Any]] = {
    "sku": {"type": "str"},
    "region": {"type": "str", "allowed": ["busan", "seoul"]},
    "limit": {"type": "int", "min": 1, "max": 2},
    "budget": {"type": "float", "min": 0.5, "max": 5.5},
    "cap": {"type": "float", "max": 5.5},
    "floor": {"type": "int", "min": 0},
    "ratio": {"type": "float", "min": 0.0, "max": 5.0},  # a min of 0: `spec.get("min") or ...` skips it
    "where": WHERE,
}
FIX_TABLE = {
    "stock": entry(args=FIX_ARGS, returns=RETURNS, upgrade="stock_v2"),
    "stock_v2": entry(args=FIX_ARGS, returns=RETURNS),
    "lone": entry(args=FIX_ARGS, returns=RETURNS),
}
BASE = {"sku": "A-100", "region": "seoul", "limit": 1}
# What a fix's state holds after one failed call (request_for_fixes): a failure's smaller case may hold fewer.
STATE_PARTS = ("request", "tool", "args", "result", "reasons", "path", "attempts")


@dataclass(frozen=True)
class Fixes:
    calls: tuple  # (FIXES key, tool, args, reason)
    state: tuple = STATE_PARTS  # the keys each fix's state holds: all of them, or those a failure needs shown

    def keeps_form_of(self, original: "Fixes") -> bool:
        """A smaller case (grader/kit/smaller.py) still hands each fix a state after a failed call: its tool,
        args and result, and in the args the field an args: reason names."""
        return not original.in_form() or self.in_form()

    def in_form(self) -> bool:
        return {"tool", "args", "result"} <= set(self.state) and all(
            not reason.startswith("args:") or (type(args) is dict and _field(reason).split(".")[0] in args)
            for _, _, args, reason in self.calls
        )

    @property
    def table(self) -> dict:
        """FIX_TABLE cut to what the calls read: the tools they name (and an upgrade), and of the contract the
        arg each reason names, the args each state holds, and the arg a misspelt name is renamed onto. What
        a fix answers is the same as over the whole table; the input a student is shown is the smallest."""
        names, tools = set(), set()
        for key, tool, args, reason in self.calls:
            field = _field(reason).split(".")[0]
            names |= {name for name in (*args, field) if name in FIX_ARGS}
            if key == "args:unknown":  # the closest free contract arg, as the oracle finds it over all of them
                free = [name for name in FIX_ARGS if name not in args]
                names |= set(difflib.get_close_matches(_field(reason), free, n=1, cutoff=0.6))
            tools |= {tool, FIX_TABLE[tool].get("upgrade", tool)} if key == "result:too_big" else {tool}
        specs = {name: spec for name, spec in FIX_ARGS.items() if name in names}
        upgrades = {tool: entry.get("upgrade") for tool, entry in FIX_TABLE.items() if entry.get("upgrade") in tools}
        # no fix reads what a tool returns, nor its body: the smallest of each
        return {tool: entry(args=specs, upgrade=upgrades.get(tool)) for tool in FIX_TABLE if tool in tools}


def request_for_fixes(case: Fixes) -> dict:
    """Each fix called with the state the graph's fix node hands it after one failed call (its keys of
    case.state alone), kept: the state's args as the fix left them come back too."""
    calls = []
    for key, tool, args, reason in case.calls:
        state = {
            "request": {"tool": tool, "args": args},
            "tool": tool,
            "args": args,
            "result": {"ok": False, "value": None, "error": reason},
            "reasons": [reason],
            "path": ["pick", "call"],
            "attempts": 1,
        }
        calls.append(call(["FIXES", key], {part: state[part] for part in state if part in case.state}, kept=True))
    return request(6, case.table, calls)


def unkept(result: dict) -> tuple[dict, Any]:
    """(the fix's outcome as if called plainly, the state's args as the fix left them, or None unknown)."""
    got = result.get("value")
    if type(got) is not dict or got.keys() != {"returned", "args"} or type(got["args"]) is not list:
        return result, None
    (state,) = got["args"] if len(got["args"]) == 1 else (None,)
    return {**result, "value": got["returned"]}, state.get("args") if type(state) is dict else None


def expect_fixes(case: Fixes) -> list:
    """Per call: {"fixed": (tool, args) after the trusted fix, or None: it cannot help; "gives_up": how a
    module may give up instead}: "no" (it must make that change), "may" (NaN: it may also return None or
    raise), "none" (no upgrade: None, or {"tool": None}; no raise), "any" (a dotted field: None, a raise or
    no change)."""
    tools, _ = parent_tools(case.table)
    expected = []
    for key, tool, args, reason in case.calls:
        given = values.decode(args)
        try:
            fixed, raised = oracle.FIXES[key](tools, tool, given, reason), False
        except (KeyError, TypeError, AttributeError):  # the field is no top-level arg: the fix cannot help
            fixed, raised = None, True
        nan = type(value := given.get(_field(reason))) is float and math.isnan(value)
        gives_up = "any" if raised else "none" if fixed is None else "may" if nan else "no"
        expected.append({"fixed": None if fixed is None else values.to_plain(list(fixed)), "gives_up": gives_up})
    return expected


def fix_problem(tool: str, args, reason: str, want: dict, result: dict) -> bool:
    """Is what the fix gave wrong?"""
    got: Any = result.get("value")
    raised = "raised" in result
    helped = not raised and type(got) is dict and bool(got) and got.get("tool", tool) is not None
    if want["fixed"] is None:
        if want["gives_up"] == "none":
            return raised or not (got is None or (type(got) is dict and "tool" in got and got["tool"] is None))
        return helped
    if not helped:  # given up on: right for a NaN alone
        return not (want["gives_up"] == "may" and (raised or got is None))
    after = [got.get("tool", tool), got.get("args", args)]
    if want["gives_up"] == "may":  # NaN: or set to any number within the bounds
        return not _nan_repaired(tool, args, reason, after)
    return not values.same(after, want["fixed"])


def _nan_repaired(tool: str, args, reason: str, after: list) -> bool:
    """Is `after` ([tool, args]) the same tool and args, but for the NaN field, now a number within its bounds?"""
    field = _field(reason)
    spec = FIX_ARGS.get(field, {})
    if after[0] != tool or type(after[1]) is not dict:
        return False
    value, rest = after[1].get(field), {key: item for key, item in after[1].items() if key != field}
    within = (
        type(value) in (int, float)
        and value == value
        and ("min" not in spec or value >= spec["min"])
        and ("max" not in spec or value <= spec["max"])
    )
    return within and values.same(rest, {key: item for key, item in args.items() if key != field})


def compare_fixes(case: Fixes, expected: list, observation: dict) -> Mismatch | None:
    """The first fix that answered wrong, or changed the args it was handed, with its call and the tool it
    reads written out (for a failure alone: the tool is cut from the table)."""
    judged = zip(case.calls, expected, observation["results"], strict=False)
    for at, ((key, tool, args, reason), want, kept) in enumerate(judged):
        result, left = unkept(kept)
        if left is not None and not values.same(left, args):
            shown, got = f"state['args'] as it was: {py(args, 10**4)}", f"state['args'] became {py(left, 10**4)}"
            hint, exception = FIX_HINTS["in place"], ""
        elif fix_problem(tool, args, reason, want, result):
            shown, got = fix_shown(tool, want), got_text(result)
            hint, exception = fix_hint(key, args, reason, want, result), exception_name(result)
        else:
            continue
        asked = (
            f"FIXES[{key!r}](state)  # state['tool'] = {tool!r}, state['args'] = {py(args, 10**4)}, "
            f"state['result']['error'] = {reason!r}"
        )
        setting = show_table({tool: case.table[tool]}, ("args", "upgrade"))
        return Mismatch(asked, shown, got, hint, setting, exception=exception, at=at)
    return None


def fix_shown(tool: str, want: dict) -> str:
    """What a correct fix gives, as a student reads it."""
    if want["gives_up"] == "none":
        return "None (cannot help: the tool has no upgrade), or {'tool': None}"
    if want["fixed"] is None:
        return "cannot help: None"
    changes = [
        f"{part} {py(value, 10**4)}"
        for part, value in zip(("tool", "args"), want["fixed"], strict=True)
        if part == "args" or value != tool
    ]
    nan = " — or None (cannot help), or any number within the bounds: NaN is neither below min nor above max"
    return "a change to " + (" and ".join(changes) or "no change") + (nan if want["gives_up"] == "may" else "")


FIX_HINTS = {
    "in place": "The fix changed the dict in state['args'] in place. That dict is the caller's (the request's args, "
    "or a picker's, which go to the door as they are): a fix returns a new args dict and leaves the one "
    "it was handed as it was.",
    "no upgrade": "This tool has no upgrade (its entry has no 'upgrade' key at all): the fix cannot help, and says "
    "so with None (or {'tool': None}, which the fix node reads the same); it never raises.",
    "one bound": "A spec may have only max, or only min: the fix raised KeyError reading a bound this spec does not "
    "have.",
    "nan": "The value is NaN, and every comparison with NaN is False: it is neither below min nor above max. "
    "The fix may give up (None), or set the field to a number within the bounds; it left it outside. "
    "A bound of 0 is a bound too: a test of its truth skips it.",
    "default region": "use_default_region gave region {region}: the rule sets DEFAULT_REGION whatever the value "
    "was. A near miss resembles an allowed region, but which one the user meant is a guess; the default is "
    "the lab's stated choice.",
    "dotted": "A dotted field (where.min_qty) is no arg of the contract: the fix cannot help (None, or it raises).",
    "one field": "A fix changes only the field its reason names ({field}): {arg} was {before}, and became {after}.",
}


def fix_hint(key: str, args, reason: str, want: dict, result: dict) -> str:
    """The hint for what a fix gave; "" keeps the check's own."""
    field, raised, got = _field(reason), result.get("raised", ""), result.get("value")
    if "OverflowError" in raised:
        return SHARED_HINTS["huge"]
    if want["gives_up"] == "none":
        return FIX_HINTS["no upgrade"]
    if raised and field in FIX_ARGS and "KeyError" in raised:
        return FIX_HINTS["one bound"]
    if want["gives_up"] == "may":
        return FIX_HINTS["nan"]
    after = got.get("args") if type(got) is dict else None
    if key == "args:allowed:region" and type(after) is dict and after.get("region") != DEFAULT_REGION:
        return FIX_HINTS["default region"].format(region=py(after.get("region")))
    if "." in field:
        return FIX_HINTS["dotted"]
    if type(args) is not dict or type(after) is not dict:
        return ""
    for arg, value in args.items():
        if arg != field and not (arg in after and values.same(after[arg], value)):  # a given arg changed
            if key == "args:unknown":
                return SHARED_HINTS["rename"].format(arg=arg, given=py(value))
            became = py(after[arg]) if arg in after else "gone"
            return FIX_HINTS["one field"].format(field=field, arg=arg, before=py(value), after=became)
    return ""


FIX_CALLS = (
    ("args:allowed:region", "stock", {**BASE, "region": "mars"}, "args:allowed:region"),
    ("args:range", "stock", {**BASE, "limit": 5}, "args:range:limit"),
    ("args:range", "stock", {**BASE, "limit": 0}, "args:range:limit"),
    ("args:range", "stock", {**BASE, "limit": 2**1100}, "args:range:limit"),
    ("args:range", "stock", {**BASE, "budget": 0.1}, "args:range:budget"),
    ("args:range", "stock", {**BASE, "budget": draw.NAN}, "args:range:budget"),
    ("args:range", "stock", {**BASE, "ratio": draw.NAN}, "args:range:ratio"),
    ("args:range", "stock", {**BASE, "cap": 9.5}, "args:range:cap"),
    ("args:range", "stock", {**BASE, "cap": draw.NAN}, "args:range:cap"),
    ("args:range", "stock", {**BASE, "floor": -3}, "args:range:floor"),
    ("args:range", "stock", {**BASE, "floor": -(2**1100)}, "args:range:floor"),
    ("args:range", "stock", {**BASE, "where": {"min_qty": -1}}, "args:range:where.min_qty"),
    ("args:unknown", "stock", {"sku": "A-100", "regoin": "busan", "limit": 1}, "args:unknown:regoin"),
    ("args:unknown", "stock", {**BASE, "skuu": "B-200"}, "args:unknown:skuu"),
    ("args:unknown", "stock", {"sku:": "A-100", "region": "seoul", "limit": 1}, "args:unknown:sku:"),
    ("args:unknown", "stock", {**BASE, "zz": 1}, "args:unknown:zz"),
    ("args:unknown", "stock", {**BASE, "where": {"min_qty": 1, "max_qty": 5}}, "args:unknown:where.max_qty"),
    ("result:too_big", "stock", BASE, "result:too_big:rows"),
    ("result:too_big", "lone", BASE, "result:too_big:rows"),
    # two fields fail at once: the fix changes the one its reason names, the other stays as given
    ("args:range", "stock", {**BASE, "limit": 5, "budget": 0.1}, "args:range:limit"),
    ("args:range", "stock", {**BASE, "limit": 0, "floor": -3}, "args:range:floor"),
    ("args:allowed:region", "stock", {**BASE, "region": "Busan", "limit": 5}, "args:allowed:region"),
    ("args:unknown", "stock", {"sku": "A-100", "regoin": "busan", "limti": 1}, "args:unknown:regoin"),
    ("result:too_big", "stock", {**BASE, "limit": 5}, "result:too_big:rows"),
)


def by_table(calls: tuple) -> tuple[Fixes, ...]:
    """The calls as cases, one a table: the calls that read the same small table (Fixes.table) go in one
    request, in their order, so a failing call is shown with the table it reads, and the stage's fixed
    cases cost a request a table rather than one a call."""
    groups: dict[str, list] = {}
    for fixed in calls:
        groups.setdefault(json.dumps(Fixes((fixed,)).table, sort_keys=True), []).append(fixed)
    return tuple(Fixes(tuple(group)) for group in groups.values())


# The draws, built into shape: a number out of range (a step or two, or of any size for an int), or a name
# misspelt from one contract arg (which the caller may have given already) or invented.
GIVEN = {"sku": "A-100", "region": "seoul", "limit": 1, "budget": 1.5, "cap": 2.5, "floor": 3, "ratio": 1.0}


def _range_call(plan: tuple) -> tuple:
    arg, above, offset = plan
    spec = FIX_ARGS[arg]
    if spec["type"] == "float":
        offset = float(min(offset, 10**300))
    value = spec["max"] + offset if ("max" in spec and above) or "min" not in spec else spec["min"] - offset
    return ("args:range", "stock", {**BASE, arg: value}, f"args:range:{arg}")


def _unknown_call(plan: tuple) -> tuple:
    (typo, name), given, value = plan
    args = {key: item for key, item in {**BASE, name: GIVEN[name]}.items() if key != name or given}
    return ("args:unknown", "stock", {**args, typo: value}, f"args:unknown:{typo}")


FIX_OFFSETS = st.one_of(st.integers(1, 50), st.integers(1025, 1100).map(lambda bits: 2**bits))
FIX_TYPOS = tuple((typo, name) for name in GIVEN for typo in _typos(name, tuple(GIVEN)))
RANGE_CALLS = st.tuples(st.sampled_from(("limit", "budget", "cap", "floor", "ratio")), draw.BOOL, FIX_OFFSETS)
UNKNOWN_CALLS = st.tuples(st.sampled_from(FIX_TYPOS + tuple((far, "sku") for far in FAR_NAMES)), draw.BOOL, draw.LEAF)


@CHECKLIST.check(
    number=8,
    points=2,
    examples=3,
    request=request_for_fixes,
    expect=expect_fixes,
    compare=compare_fixes,
    show=lambda case: Setting(),
    always=by_table(FIX_CALLS),
)
def fixes_table():
    """each fix in FIXES, called alone with a state, gives the change the spec says (run not needed)

    Each fix takes the state and returns {"tool": ...} and/or {"args": ...}, or None when it cannot help;
    it reads its field from the reason, after the <stage>:<check> prefix.
    """
    calls = st.one_of(RANGE_CALLS.map(_range_call), UNKNOWN_CALLS.map(_unknown_call))
    return st.lists(calls, min_size=1, max_size=3).map(lambda calls: Fixes(tuple(calls)))


# ── 6.9 · a picker instead of the rules ──────────────────────────────────────

GOOD_PICK = {"$tuple": ["stock", {"sku": "A-100", "region": "seoul", "limit": 1}]}
PICKER_STEPS = (  # (what the spy picker does, the request run is given), run after run
    ({"return": GOOD_PICK}, {"tool": "nope"}),
    ({"return": GOOD_PICK}, None),
    ({"return": {"$tuple": [5, []]}}, ASK),
    ({"return": {"$tuple": ["stock", "sku=A-100"]}}, ASK),
    ({"return": ["stock", {"sku": "A-100", "region": "seoul", "limit": 2}]}, {"tool": "stock"}),
    ({"raise": "ValueError"}, ASK),
    ({"raise": "PickerDown"}, ASK),
)
PICKS = (
    Case(
        {
            "stock": entry(args=STOCK_ARGS, returns=RETURNS, body=BODIES["good"]),
            "picker": entry(body=[step for step, _ in PICKER_STEPS]),
        },
        tuple((req, {"picker": {"$spy": "picker"}}, False) for _, req in PICKER_STEPS),
    ),
)


def judge_picker(run: tuple, want: list, result: dict) -> tuple[str, str, str] | None:
    """A picker that raised: its exception goes out of run, or the run gives up at once (no door call, no
    answer) with a reason that names the exception's type; either way no body but the picker's runs. A run
    whose picker answered is judged in full (judge_run)."""
    (state, runs), got = want, result.get("value")
    if "raises" not in state:
        return judge_run(run, want, result)
    name = state["raises"]
    if result["runs"] != runs:
        problem = "the bodies ran another number of times"
    elif "raised" in result:
        problem = "" if result["raised"].split(":")[0] == name else f"run raised, but not the picker's {name}"
    elif type(got) is not dict:
        problem = f"the picker's {name} must get out of run, or end it gave_up"
    elif wrong := ", ".join(not_given_up_at_once(got, naming=name)):
        why = f"(it gets out of run, or the run gives up at once, attempts 0, with a reason that names {name})"
        problem = f"{wrong} not as for a picker that raised {name} {why}"
    else:
        problem = ""
    if not problem:
        return None
    shown = (
        f"raises {name} (the picker's), or gives up at once (attempts 0, answer None) with a reason "
        f"that names {name}; body runs: {sum(runs.values())} (the picker's)"
    )
    return problem, shown, SHARED_HINTS["huge"] if "OverflowError" in result.get("raised", "") else ""


@CHECKLIST.check(number=9, points=2, examples=0, always=PICKS, compare=partial(compare, judge=judge_picker))
def uses_the_picker():
    """run(request, picker=...) calls picker(request) once instead of the rules; its exception leaves run or ends it

    In pick, use runtime.context.picker when there is one (pick_by_rules otherwise), and call it once,
    with the request.
    """
    return st.nothing()  # the picker's table of answers is fixed: PICKS holds every row of it
