"""Stage 5 · memo_key(name, args) and call_memo(name, args, memo): never ask the same thing twice.

Key checks draw pairs of args, equal up to key order or different in one small
way (1, 1.0, True), and judge whether the keys are equal exactly when the args
are. Memo checks run a script of calls through one memo, against spy tools,
and compare every envelope and body run with the trusted memo over the same
spies (oracle.call_memo). call_tool is the grader's own while this stage is probed.
"""

import random
from dataclasses import dataclass

from hypothesis import strategies as st

from grader.kit import draw, values
from grader.kit.checks import stage4
from grader.kit.checks.common import (GOOD_ARGS, SEED_ARGS, SEED_RETURNS, call, entry,
                                   got_text, parent_tools, py, request, show_table)
from grader.kit.probing import Mismatch, Stage, without_oracle
from grader.kit.trusted import oracle

MEMO = {"$memo": 0}


# ── memo scripts: calls through one memo ─────────────────────────────────────

@dataclass(frozen=True)
class Script:
    table: dict
    calls: tuple   # (name, args, change the returned envelope afterwards?)


def probe(case: Script) -> dict:
    return request(5, case.table, [call("call_memo", name, args, MEMO, mutate=change)
                                   for name, args, change in case.calls])


def expect(case: Script) -> list[dict]:
    """Per call, by the trusted memo over the same spies: the envelope and the body runs (one right error)."""
    tools, spies = parent_tools(case.table)
    memo: dict = {}
    expected = []
    for name, args, change in case.calls:
        before = {tool: spy.runs for tool, spy in spies.items()}
        envelope = oracle.call_memo(tools, name, values.decode(args), memo)
        runs = {tool: spy.runs - before[tool] for tool, spy in spies.items() if spy.runs != before[tool]}
        expected.append(stage4.answer(envelope, runs, {envelope["error"]}))
    return expected


def compare(case: Script, expected: list[dict], observation: dict) -> Mismatch | None:
    said = []   # the calls so far, as the student would type them
    for (name, args, change), want, result in zip(case.calls, expected, observation["results"]):
        said.append(f"call_memo({name!r}, {py(args)}, memo)")
        problem = stage4.mismatch(want, result)
        if problem:
            return Mismatch("\n".join(said), stage4.show_answer(want),
                            f"{stage4.show_got(result)} ({problem})")
        if change:
            said[-1] = f"envelope = {said[-1]}\nchange_everything_in(envelope)"
    return None


def show(case: Script) -> str:
    return show_table(case.table) + "\nmemo = {}"


STAGE = Stage(5, probe, show, expect, compare)


def reorder(d, value):
    """value with every dict's keys in another order (equal args, another spelling)."""
    shuffle = random.Random(d(st.integers(0, 2 ** 16))).shuffle

    def walk(node):
        if type(node) is dict:
            keys = list(node)
            shuffle(keys)
            return {key: walk(node[key]) for key in keys}
        if type(node) is list:
            return [walk(item) for item in node]
        return node

    return walk(value)


@st.composite
def scripts(d, bodies: tuple[tuple[str, ...], ...], change: bool = False, bad_args: bool = False) -> Script:
    """One or two spy tools whose bodies follow one of `bodies`, and 2-5 calls asking 1-2 questions
    again and again, each time with the keys in another order."""
    table = {}
    for name in draw.names(d, 1, 2):
        returns = draw.returns(d, least=1)
        table[name] = entry(args=draw.contract(d), returns=returns,
                            body=[stage4.spy_step(d, body, returns) for body in draw.pick(d, bodies)])
    questions = []
    for _ in range(d(st.integers(1, 2))):
        if bad_args and d(draw.BOOL):
            questions.append(stage4.door_call(d, table, "bad args"))
        else:
            name = draw.pick(d, list(table))
            questions.append((name, draw.valid_args(d, table[name]["args"])))
    calls = []
    for _ in range(d(st.integers(2, 5))):
        name, args = draw.pick(d, questions)
        calls.append((name, reorder(d, args), change))
    return Script(table, tuple(calls))


# ── memo keys ────────────────────────────────────────────────────────────────

@dataclass(frozen=True)
class Pairs:
    pairs: tuple   # (name, args, other name, other args)


def probe_keys(case: Pairs) -> dict:
    calls = []
    for name, args, other_name, other_args in case.pairs:
        calls += [call("memo_key", name, args), call("memo_key", other_name, other_args)]
    return request(5, None, calls)


def judge_keys(case: Pairs, observation: dict) -> Mismatch | None:
    results = observation["results"]
    for (name, args, other_name, other_args), first, second in zip(case.pairs, results[::2], results[1::2]):
        equal = name == other_name and values.same(args, other_args)
        keys = [first.get("value"), second.get("value")]
        if "raised" in first or "raised" in second or any(type(key) is not str for key in keys) \
                or (keys[0] == keys[1]) != equal:
            return Mismatch(f"memo_key({name!r}, {py(args)}) and memo_key({other_name!r}, {py(other_args)})",
                            "two equal keys (str)" if equal else "two different keys (str)",
                            f"{got_text(first)} and {got_text(second)}")
    return None


def show_keys(case: Pairs) -> str:
    return ""   # the failing pair says it all


def args_dict(d) -> dict:
    return {name: draw.plain(d) for name in draw.names(d, 1, 3)}


def variant(d, value):
    """value changed in one small place: 1 -> 1.0 or True, a key added or dropped, ..."""
    if type(value) is dict and value and d(draw.BOOL):
        key = draw.pick(d, list(value))
        return {**value, key: variant(d, value[key])}
    if type(value) is list and value and d(draw.BOOL):
        at = d(st.integers(0, len(value) - 1))
        return value[:at] + [variant(d, value[at])] + value[at + 1:]
    return draw.pick(d, _variants(value))


def _variants(value) -> list:
    kind = type(value)
    if kind is bool:
        return [int(value), float(value), not value]
    if kind is int:
        return [float(value), str(value), value + 1] + ([bool(value)] if value in (0, 1) else [])
    if kind is float:
        return ([int(value)] if value.is_integer() else []) + [str(value), value + 1.0]
    if kind is str:
        return [value + "a", None]
    if value is None:
        return [0, False, "", []]
    if kind is list:
        return [value + [None], value[:-1] if value else [[]], {"list": value}]
    return [{**value, "added": 1}, dict(list(value.items())[:-1]) if value else {"a": None}]


@st.composite
def equal_pairs(d) -> Pairs:
    pairs = []
    for _ in range(d(st.integers(1, 4))):
        name, args = d(draw.NAMES), args_dict(d)
        pairs.append((name, args, name, reorder(d, args)))
    return Pairs(tuple(pairs))


@st.composite
def different_pairs(d) -> Pairs:
    pairs = []
    for _ in range(d(st.integers(1, 4))):
        name, args = d(draw.NAMES), args_dict(d)
        if d(st.integers(0, 4)):
            pairs.append((name, args, name, reorder(d, variant(d, args))))
        else:
            pairs.append((name, args, draw.fresh_name({name}, d(draw.NAMES)), reorder(d, args)))
    return Pairs(tuple(pairs))


# ── args JSON cannot hold: no key, never remembered ──────────────────────────

_UNHOLDABLE = (draw.NAN, draw.INF, -draw.INF, {"$tuple": [1, 2]}, {"$set": [1]}, {"$bytes": "A-100"},
               {"$object": 0}, {"$intkeys": [[1, "a"]]}, [{"$tuple": []}], {"deep": {"$intkeys": [[2, 2]]}})


@dataclass(frozen=True)
class Unholdable:
    tool: str
    args: tuple   # each: {"x": [..an unholdable value somewhere..]}


def probe_unholdable(case: Unholdable) -> dict:
    table = {case.tool: entry(args={"x": {"type": "list"}}, returns={"ok": {"type": "bool"}},
                              body=[{"return": {"ok": True}}])}
    calls = []
    for args in case.args:
        calls += [call("memo_key", case.tool, args), call("call_memo", case.tool, args, MEMO),
                  call("call_memo", case.tool, args, MEMO)]
    return request(5, table, calls)


def judge_unholdable(case: Unholdable, observation: dict) -> Mismatch | None:
    results = observation["results"]
    for at, args in enumerate(case.args):
        key, first, again = results[3 * at: 3 * at + 3]
        if key.get("value", "raised") is not None:
            return Mismatch(f"memo_key({case.tool!r}, {py(args)})", "None", got_text(key))
        value = again.get("value")
        if again.get("runs") != {case.tool: 1} or type(value) is not dict or value.get("ok") is not True:
            return Mismatch(f"call_memo({case.tool!r}, {py(args)}, memo) for the second time",
                            "{'ok': True, ...}, body runs: 1 (args without a key are never remembered)",
                            stage4.show_got(again))
    return None


def show_unholdable(case: Unholdable) -> str:
    return f"TOOLS[{case.tool!r}]['args'] = {{'x': {{'type': 'list'}}}}"


@st.composite
def unholdable(d) -> Unholdable:
    tool, args = d(draw.NAMES), []
    for _ in range(d(st.integers(1, 3))):
        inner = [draw.plain(d, 1) for _ in range(d(st.integers(0, 2)))]
        inner.insert(d(st.integers(0, len(inner))), draw.pick(d, _UNHOLDABLE))
        args.append({"x": inner})
    return Unholdable(tool, tuple(args))


# ── the lesson's incidents, tried under every seed ───────────────────────────

NESTED = {"sku": "A-100", "filter": {"region": "seoul", "min": {"qty": 1, "bay": 2}}}
REORDERED = {"filter": {"min": {"bay": 2, "qty": 1}, "region": "seoul"}, "sku": "A-100"}
ROWS = {"sku": "A-100", "rows": [{"region": "seoul", "qty": 5}]}


def stock(body: list, *calls: tuple) -> Script:
    table = {"stock_lookup": entry(args=SEED_ARGS, returns=SEED_RETURNS, body=body)}
    return Script(table, tuple(("stock_lookup", args, change) for args, change in calls))


INCIDENTS = {
    "equal": (Pairs((("stock_lookup", GOOD_ARGS, "stock_lookup", dict(reversed(GOOD_ARGS.items()))),
                     ("search", NESTED, "search", REORDERED))),),
    "different": (Pairs((("stock_lookup", {**GOOD_ARGS, "limit": 1}, "stock_lookup", {**GOOD_ARGS, "limit": 1.0}),
                         ("stock_lookup", {**GOOD_ARGS, "limit": 1}, "stock_lookup", {**GOOD_ARGS, "limit": True}),
                         ("stock_lookup", GOOD_ARGS, "stock_lookup_v2", GOOD_ARGS))),),
    "unholdable": (Unholdable("t", ({"x": [draw.NAN]}, {"x": [{"$tuple": [1, 2]}]},
                                    {"x": [{"$intkeys": [[1, "a"]]}]})),),
    "repeated": (stock([{"return": ROWS}], *[(GOOD_ARGS, False)] * 5),),
    "failing": (stock([{"raise": "TimeoutError"}, {"raise": "TimeoutError"}, {"return": ROWS}],
                      *[(GOOD_ARGS, False)] * 4),
                stock([{"return": {"sku": "Z-999", "rows": []}}], *[(GOOD_ARGS, False)] * 3)),
    "changed": (stock([{"return": ROWS}], *[(GOOD_ARGS, True)] * 3),),
}


# ── the checks ───────────────────────────────────────────────────────────────

_GOOD = (("good",),)
_FAILING = (("raise",), ("bad result",), ("raise", "good"), ("bad result", "good"), ("raise", "raise", "good"))


@STAGE.check(number=1, points=3, probe=probe_keys, show=show_keys, always=INCIDENTS["equal"], **without_oracle(judge_keys))
def keys_ignore_key_order():
    """memo_key gives equal keys for args equal up to key order, nested too

    json.dumps(args, sort_keys=True) sorts the keys at every depth; str(args) or
    repr(sorted(args.items())) do not.
    """
    return equal_pairs()


@STAGE.check(number=2, points=3, probe=probe_keys, show=show_keys, always=INCIDENTS["different"],
             **without_oracle(judge_keys))
def keys_tell_args_apart():
    """memo_key gives different keys for different args (1, 1.0 and True differ) and for different tools

    1, 1.0 and True are different args: JSON tells them apart (1, 1.0, true), str() of a dict of them
    may not. The tool name is part of the key.
    """
    return different_pairs()


@STAGE.check(number=3, points=2, probe=probe_unholdable, show=show_unholdable, **without_oracle(judge_unholdable),
             always=INCIDENTS["unholdable"])
def no_key_for_unholdable_args():
    """memo_key gives None for args JSON cannot hold exactly (NaN, tuples, int keys); call_memo never keeps them

    json.dumps writes NaN (not JSON at all), turns a tuple into a list and a key 1 into "1": give None
    unless JSON holds the args exactly, and never remember a call without a key.
    """
    return unholdable()


@STAGE.check(number=4, points=3, always=INCIDENTS["repeated"])
def repeated_call_runs_once():
    """call_memo runs a repeated call's body once and returns the same envelope every time

    On a hit, return the remembered envelope without calling call_tool.
    """
    return scripts(_GOOD)


@STAGE.check(number=5, points=2, always=INCIDENTS["failing"])
def failures_are_not_remembered():
    """call_memo never remembers a failure: every failing call runs again

    Remember only ok envelopes: a failure remembered is replayed long after its cause is gone.
    """
    return scripts(_FAILING, bad_args=True)


@STAGE.check(number=6, points=2, always=INCIDENTS["changed"])
def changes_do_not_leak():
    """changing an envelope call_memo returned does not change what a later hit returns

    Store a copy (json.dumps the envelope) and hand out a fresh copy on every hit: a caller who changes
    a returned value must not change the memo.
    """
    return scripts(_GOOD, change=True)
