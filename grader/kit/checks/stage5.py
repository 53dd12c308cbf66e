"""Stage 5 · memo_key(name, args) and call_memo(name, args, memo): never ask the same thing twice.

Key checks draw pairs of args, equal up to key order or different in one small
way (1, 1.0, True), and judge whether the keys are equal exactly when the args
are. Memo checks run a script of calls through one memo, against one spy tool,
the same question spelt the same way each time (key order is 5.1's alone), and
compare every envelope and body run with the trusted memo over the same spies
(oracle.call_memo). call_tool is the grader's own while this stage is probed.
Fixed cases (`INCIDENTS`) hold every edge: each value JSON cannot hold, the
14,000-bit boundary for ints, names that are no str, args that are no dict.
"""

import functools
import random
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from agtool.contract import MAX_INT_BITS
from grader.kit import draw, values
from grader.kit.checks import stage4
from grader.kit.checks.common import (
    GOOD_ARGS,
    SEED_ARGS,
    SEED_RETURNS,
    call,
    entry,
    got_text,
    parent_tools,
    py,
    request,
    show_table,
)
from grader.kit.probing import Mismatch, Stage, without_oracle
from grader.kit.trusted import oracle

MEMO = {"$memo": 0}


# ── memo scripts: calls through one memo ─────────────────────────────────────


@dataclass(frozen=True)
class Script:
    table: dict
    calls: tuple  # (name, args, change the returned envelope afterwards?)


def probe(case: Script) -> dict:
    return request(
        5, case.table, [call("call_memo", name, args, MEMO, mutate=change) for name, args, change in case.calls]
    )


def expect(case: Script) -> list[dict]:
    """Per call, by the trusted memo over the same spies: the envelope and the body runs (one right error)."""
    tools, spies = parent_tools(case.table)
    memo: dict = {}
    expected = []
    for name, args, _change in case.calls:
        before = {tool: spy.runs for tool, spy in spies.items()}
        envelope = oracle.call_memo(tools, name, values.decode(args), memo)
        runs = {tool: spy.runs - before[tool] for tool, spy in spies.items() if spy.runs != before[tool]}
        expected.append(stage4.answer(envelope, runs, {envelope["error"]}))
    return expected


def compare(case: Script, expected: list[dict], observation: dict, runs: str = "all") -> Mismatch | None:
    """Every envelope as the trusted memo's; body runs: "all" of them (5.4), only where the trusted memo
    ran the body (5.5: a failure runs again), or none (5.6: what a hit returns)."""
    said = []  # the calls so far, as the student would type them
    for (name, args, change), want, result in zip(case.calls, expected, observation["results"], strict=True):
        said.append(f"call_memo({name!r}, {py(args, 10**4)}, memo)")
        judged_runs = want["runs"] if runs == "all" or (runs == "misses" and want["runs"]) else result["runs"]
        problem = stage4.mismatch({**want, "runs": judged_runs}, result)
        if problem:
            return Mismatch(
                "\n".join(said),
                stage4.show_answer(want),
                f"{stage4.show_got(result)} ({problem})",
                memo_hint(runs, want, result, problem),
            )
        if change:
            said[-1] = f"envelope = {said[-1]}\nchange_everything_in(envelope)"
    return None


def memo_hint(runs: str, want: dict, result: dict, problem: str) -> str:
    if problem.startswith("an exception"):
        return (
            "call_memo goes through call_tool, which never raises: look the memo up with the key, "
            "or skip it when the key is None."
        )
    if runs == "all" and sum(result["runs"].values()) > sum(want["runs"].values()):
        return "On a hit, return the remembered envelope without calling call_tool."
    if runs == "misses" and want["runs"] and not result["runs"]:
        return "Remember only ok envelopes: a failure remembered is replayed long after its cause is gone."
    return ""


def show(case: Script) -> str:
    return show_table(case.table) + "\nmemo = {}"


STAGE = Stage(5, probe, show, expect, compare)


def reorder(d, value):
    """value with every dict's keys in another order (equal args, another spelling)."""
    shuffle = random.Random(d(st.integers(0, 2**16))).shuffle

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
    """One spy tool whose body follows one of `bodies`, and 2-4 calls asking 1-2 questions again and
    again, spelt the same each time (key order is memo_key's check, 5.1; one tool, so a key without
    the tool's name is 5.2's alone)."""
    name = d(draw.NAMES)
    returns = draw.returns(d, least=1)
    table = {
        name: entry(
            args=draw.contract(d),
            returns=returns,
            body=[stage4.spy_step(d, body, returns) for body in draw.pick(d, bodies)],
        )
    }
    good = draw.valid_args(d, table[name]["args"])
    questions = [(name, good)]
    if bad_args:  # refused for an arg missing or unknown: no key mistake can mix the two questions up
        required = [arg for arg, spec in table[name]["args"].items() if spec.get("required", True)]
        bad = (
            {arg: value for arg, value in good.items() if arg != required[0]}
            if required and d(draw.BOOL)
            else {**good, draw.fresh_name(good, "zz"): 1}
        )
        questions.append((name, bad))
    calls = tuple((*draw.pick(d, questions), change) for _ in range(d(st.integers(2, 4))))
    return Script(table, calls)


# ── memo keys ────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Pairs:
    pairs: tuple  # (name, args, other name, other args)


def probe_keys(case: Pairs) -> dict:
    calls = []
    for name, args, other_name, other_args in case.pairs:
        calls += [call("memo_key", name, args), call("memo_key", other_name, other_args)]
    return request(5, None, calls)


def judge_keys(case: Pairs, observation: dict) -> Mismatch | None:
    results = observation["results"]
    for (name, args, other_name, other_args), first, second in zip(
        case.pairs, results[::2], results[1::2], strict=True
    ):
        equal = name == other_name and values.same(args, other_args)
        keys = [first.get("value"), second.get("value")]
        if (
            "raised" in first
            or "raised" in second
            or any(type(key) is not str for key in keys)
            or (keys[0] == keys[1]) != equal
        ):
            return Mismatch(
                f"memo_key({show_value(name)}, {show_value(args)}) and "
                f"memo_key({show_value(other_name)}, {show_value(other_args)})",
                "two equal keys (str)" if equal else "two different keys (str)",
                f"{got_text(first)} and {got_text(second)}",
                key_hint(name, args, other_name, other_args, first, second),
                "",
            )
    return None


def key_hint(name, args, other_name, other_args, first: dict, second: dict) -> str:
    """The hint for what went wrong with one pair of keys."""
    if "raised" in first or "raised" in second:
        return (
            "memo_key never raises: json.dumps(args, sort_keys=True) takes args of any shape JSON holds "
            "(a list, a str), where args.items() or sorted(args) do not."
        )
    if any(type(result.get("value")) is not str for result in (first, second)):
        return "A key is a str: the tool's name and json.dumps(args, sort_keys=True)."
    if name == other_name and values.same(args, other_args):
        return (
            "json.dumps(args, sort_keys=True) sorts the keys at every depth; str(args) or "
            "repr(sorted(args.items())) do not."
        )
    if name != other_name:
        return "The tool name is part of the key: two tools asked the same args are two questions."
    kinds = {type(leaf) for leaf in _leaves(args) + _leaves(other_args)}
    if bool in kinds or float in kinds:
        return (
            "1, 1.0 and True are different args: JSON tells them apart (1, 1.0, true); "
            "str() or hash() of a dict of them may not (1 == 1.0 == True in Python)."
        )
    return "Different args give different keys: write all of them, at every depth, into the key."


def _leaves(value) -> list:
    if type(value) is dict:
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if type(value) is list:
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


class _Shown:
    """A value written as a student would type it (2 ** 14000 rather than its 4,215 digits)."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _readable(value):
    if type(value) is int and value.bit_length() > 64:
        bits = value.bit_length()
        if value == 2 ** (bits - 1):
            return _Shown(f"2 ** {bits - 1}")
        if value == 2**bits - 1:
            return _Shown(f"2 ** {bits} - 1")
        return _Shown(f"<an int of {bits} bits>")
    if values.tagged(value):
        return value
    if type(value) is list:
        return [_readable(item) for item in value]
    if type(value) is dict:
        return {key: _readable(item) for key, item in value.items()}
    return value


def show_value(value) -> str:
    """value as Python, whole: big ints written as powers of two, never cut."""
    return py(_readable(value), 10**5)


def show_keys(case: Pairs) -> str:
    return ""  # the failing pair says it all


def args_dict(d) -> dict:
    return {name: draw.plain(d) for name in draw.names(d, 1, 3)}


def variant(d, value):
    """value changed in one small place: 1 -> 1.0 or True, a key added or dropped, ..."""
    if type(value) is dict and value and d(draw.BOOL):
        key = draw.pick(d, list(value))
        return {**value, key: variant(d, value[key])}
    if type(value) is list and value and d(draw.BOOL):
        at = d(st.integers(0, len(value) - 1))
        return [*value[:at], variant(d, value[at]), *value[at + 1 :]]
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
        return [[*value, None], value[:-1] if value else [[]], {"list": value}]
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


# ── args JSON cannot hold, names that are no str: no key, never remembered ──

_UNHOLDABLE: tuple[Any, ...] = (
    draw.NAN,
    draw.INF,
    -draw.INF,
    {"$tuple": [1, 2]},
    {"$set": [1]},
    {"$bytes": "A-100"},
    {"$object": 0},
    {"$intkeys": [[1, "a"]]},
    [{"$tuple": []}],
    {"deep": {"$intkeys": [[2, 2]]}},
    2**MAX_INT_BITS,
    -(2**MAX_INT_BITS),
)
NO_KEY_TOOL = "t"
NO_KEY_ARGS = {"x": {"type": "list"}}


@dataclass(frozen=True)
class Unholdable:
    tool: str
    args: tuple  # each: {"x": [..an unholdable value somewhere..]}
    names: tuple = ()  # (name, args, has a key?): names that are no str get none; an int of 14,000 bits one


def probe_unholdable(case: Unholdable) -> dict:
    table = {case.tool: entry(args=NO_KEY_ARGS, returns={"ok": {"type": "bool"}}, body=[{"return": {"ok": True}}])}
    calls = []
    for args in case.args:
        calls += [
            call("memo_key", case.tool, args),
            call("call_memo", case.tool, args, MEMO),
            call("call_memo", case.tool, args, MEMO),
        ]
    calls += [call("memo_key", name, args) for name, args, _ in case.names]
    return request(5, table, calls)


def judge_unholdable(case: Unholdable, observation: dict) -> Mismatch | None:
    results = observation["results"]
    for at, args in enumerate(case.args):
        key, _first, again = results[3 * at : 3 * at + 3]
        if key.get("value", "raised") is not None:
            return Mismatch(
                f"memo_key({case.tool!r}, {show_value(args)})", "None", key_text(key), unholdable_hint(args), ""
            )
        value = again.get("value")
        if again.get("runs") != {case.tool: 1} or type(value) is not dict or value.get("ok") is not True:
            return Mismatch(
                f"call_memo({case.tool!r}, {show_value(args)}, memo)\n"
                f"call_memo({case.tool!r}, {show_value(args)}, memo)",
                "{'ok': True, ...}, body runs: 1 (args without a key are never remembered)",
                stage4.show_got(again),
                "A call without a key is never remembered: check "
                "`key is not None` before you look the memo up and before you store.",
            )
    for (name, args, holds), key in zip(case.names, results[3 * len(case.args) :], strict=True):
        right = type(key.get("value")) is str if holds else ("value" in key and key["value"] is None)
        if not right:
            return Mismatch(
                f"memo_key({show_value(name)}, {show_value(args)})",
                "a key (str)" if holds else "None",
                key_text(key),
                unholdable_hint(args)
                if type(name) is str
                else "A name that is not a str gets no key: the door refuses it anyway.",
                "",
            )
    return None


def key_text(result: dict) -> str:
    """A key as the student reads it: whole when short, else said in words (never cut)."""
    key = result.get("value")
    if type(key) is str and len(key) > 200:
        return f"a key (a str of {len(key)} characters, starting {key[:40]!r})"
    return got_text(result)


def unholdable_hint(args) -> str:
    """The hint for the one value JSON cannot hold that got a key (or an int that fits that got none)."""
    leaves = _leaves(args)
    text = repr(args)
    if any(type(leaf) is int and leaf.bit_length() > 64 for leaf in leaves):
        return (
            f"An int of more than {MAX_INT_BITS:,} bits gets no key (is_json: value.bit_length() <= "
            f"MAX_INT_BITS); one of {MAX_INT_BITS:,} bits or fewer gets one."
        )
    if any(type(leaf) is float for leaf in leaves):
        return "json.dumps writes NaN and infinities (not JSON at all): a float gets a key only if math.isfinite."
    if "$intkeys" in text:
        return 'json.dumps turns a key 1 into "1", and the two would collide: a dict needs str keys, at every depth.'
    if "$tuple" in text:
        return "json.dumps turns a tuple into a list, and the two would collide: only lists are JSON lists."
    return (
        "Give None unless JSON holds the args exactly: None, str, int, bool, finite float, lists, dicts "
        "with str keys; a set, bytes or any other object gets no key."
    )


def show_unholdable(case: Unholdable) -> str:
    return f"TOOLS[{case.tool!r}]['args'] = {NO_KEY_ARGS!r}"


@st.composite
def unholdable(d) -> Unholdable:
    tool, args = d(draw.NAMES), []
    for _ in range(d(st.integers(1, 2))):
        inner = [draw.plain(d, 1) for _ in range(d(st.integers(0, 2)))]
        inner.insert(d(st.integers(0, len(inner))), draw.pick(d, _UNHOLDABLE))
        args.append({"x": inner})
    return Unholdable(tool, tuple(args))


# ── the lesson's incidents, tried under every seed ───────────────────────────

NESTED: dict[str, Any] = {"sku": "A-100", "filter": {"region": "seoul", "min": {"qty": 1, "bay": 2}}}
REORDERED = {"filter": {"min": {"bay": 2, "qty": 1}, "region": "seoul"}, "sku": "A-100"}
ROWS = {"sku": "A-100", "rows": [{"region": "seoul", "qty": 5}]}


def stock(body: list, *calls: tuple) -> Script:
    table = {"stock_lookup": entry(args=SEED_ARGS, returns=SEED_RETURNS, body=body)}
    return Script(table, tuple(("stock_lookup", args, change) for args, change in calls))


DEEP = {"where": [{"b": {"y": 1, "x": [1, {"q": None, "p": "s"}]}, "a": 2}], "sku": "A-100"}
DEEP_REORDERED = {"sku": "A-100", "where": [{"a": 2, "b": {"x": [1, {"p": "s", "q": None}], "y": 1}}]}
INCIDENTS = {
    "equal": (
        Pairs(
            (
                ("stock_lookup", GOOD_ARGS, "stock_lookup", dict(reversed(GOOD_ARGS.items()))),
                ("search", NESTED, "search", REORDERED),
                ("search", DEEP, "search", DEEP_REORDERED),
            )
        ),
    ),
    "different": (
        Pairs(
            (
                ("stock_lookup", {**GOOD_ARGS, "limit": 1}, "stock_lookup", {**GOOD_ARGS, "limit": 1.0}),
                ("stock_lookup", {**GOOD_ARGS, "limit": 1}, "stock_lookup", {**GOOD_ARGS, "limit": True}),
                ("stock_lookup", {**GOOD_ARGS, "limit": 1.0}, "stock_lookup", {**GOOD_ARGS, "limit": True}),
                ("stock_lookup", {"sku": 0}, "stock_lookup", {"sku": False}),
                ("stock_lookup", {"sku": None}, "stock_lookup", {"sku": ""}),
                ("stock_lookup", {"sku": []}, "stock_lookup", {"sku": {}}),
                ("search", NESTED, "search", {**NESTED, "filter": {**NESTED["filter"], "min": {"qty": 1}}}),
                ("stock_lookup", GOOD_ARGS, "stock_lookup_v2", GOOD_ARGS),
                ("t", ["sku", "A-100"], "t", {"sku": "A-100"}),
                ("t", "sku=A-100", "t", ["sku=A-100"]),
            )
        ),
    ),
    "unholdable": (
        Unholdable(
            "t",
            (
                {"x": [draw.NAN]},
                {"x": [draw.INF]},
                {"x": [{"$tuple": [1, 2]}]},
                {"x": [{"$intkeys": [[1, "a"]]}]},
                {"x": [{"$set": [1]}]},
                {"x": [{"$bytes": "A-100"}]},
                {"x": [{"$object": 0}]},
                {"x": [{"deep": [{"$tuple": []}]}]},
                {"x": [2**MAX_INT_BITS]},
            ),
            (
                (5, {"x": [1]}, False),
                (None, {"x": [1]}, False),
                (["t"], {"x": [1]}, False),
                ("t", {"x": [2**MAX_INT_BITS - 1]}, True),
                ("t", {"x": [-(2**MAX_INT_BITS - 1)]}, True),
            ),
        ),
    ),
    "repeated": (stock([{"return": ROWS}], *[(GOOD_ARGS, False)] * 4),),
    "failing": (
        stock([{"raise": "TimeoutError"}, {"raise": "TimeoutError"}, {"return": ROWS}], *[(GOOD_ARGS, False)] * 4),
        stock([{"return": {"sku": "Z-999", "rows": []}}, {"return": ROWS}], *[(GOOD_ARGS, False)] * 3),
        stock([{"return": ROWS}], *[({**GOOD_ARGS, "limit": 3}, False)] * 2),
    ),
    "changed": (stock([{"return": ROWS}], *[(GOOD_ARGS, True)] * 3),),
}
SPEC = {
    "equal": "Equal for args equal up to key order, nested too.",
    "different": "1, 1.0 and True give different keys, and so do two tool names.",
    "never raises": "memo_key never raises: args that are not a dict get a key too, when JSON holds them exactly.",
    "no key": "None when the name is not a str, or when JSON cannot hold the args exactly: NaN and infinities, "
    "tuples, sets, bytes and other objects, keys that are not str, and ints of more than 14,000 bits.",
    "never kept": "A call without a key is never remembered.",
    "hit": "A hit returns the remembered envelope without running the body.",
    "ok only": "Only ok envelopes are remembered.",
    "copy": "Each is kept as JSON text, so a caller who changes a returned value cannot change what a later hit "
    "returns.",
}


# ── the checks ───────────────────────────────────────────────────────────────

# 5.1 and 5.2 call memo_key alone and judge its keys without the oracle.
_KEYS = {"probe": probe_keys, "show": show_keys, **without_oracle(judge_keys)}
_GOOD = (("good",),)
_FAILING = (("raise",), ("bad result",), ("raise", "good"), ("bad result", "good"), ("raise", "raise", "good"))


@STAGE.check(number=1, points=3, examples=5, always=INCIDENTS["equal"], spec=(SPEC["equal"],), **_KEYS)
def keys_ignore_key_order():
    """memo_key gives equal keys for args equal up to key order, nested too

    json.dumps(args, sort_keys=True) sorts the keys at every depth; str(args) or
    repr(sorted(args.items())) do not.
    """
    return equal_pairs()


@STAGE.check(
    number=2,
    points=3,
    examples=5,
    always=INCIDENTS["different"],
    spec=(SPEC["different"], SPEC["never raises"]),
    **_KEYS,
)
def keys_tell_args_apart():
    """memo_key gives different keys (str) for different args (1, 1.0 and True differ, a list is no dict) and for different tools

    1, 1.0 and True are different args: JSON tells them apart (1, 1.0, true), str() of a dict of them
    may not. The tool name is part of the key.
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return different_pairs()


@STAGE.check(
    number=3,
    points=2,
    examples=4,
    probe=probe_unholdable,
    show=show_unholdable,
    always=INCIDENTS["unholdable"],
    spec=(SPEC["no key"], SPEC["never kept"]),
    **without_oracle(judge_unholdable),
)
def no_key_for_unholdable_args():
    """memo_key gives None for a name that is no str and for args JSON cannot hold exactly (NaN, inf, tuples, sets, bytes, objects, int keys, ints over 14,000 bits), a key for an int of 14,000 bits; call_memo never keeps a call without a key

    json.dumps writes NaN (not JSON at all), turns a tuple into a list and a key 1 into "1": give None
    unless JSON holds the args exactly, and never remember a call without a key.
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return unholdable()


@STAGE.check(number=4, points=3, examples=4, always=INCIDENTS["repeated"], spec=(SPEC["hit"],))
def repeated_call_runs_once():
    """call_memo runs a repeated call's body once and returns the same envelope every time

    On a hit, return the remembered envelope without calling call_tool.
    """
    return scripts(_GOOD)


@STAGE.check(
    number=5,
    points=2,
    examples=4,
    always=INCIDENTS["failing"],
    spec=(SPEC["ok only"],),
    compare=functools.partial(compare, runs="misses"),
)
def failures_are_not_remembered():
    """call_memo never remembers a failure: every failing call runs again

    Remember only ok envelopes: a failure remembered is replayed long after its cause is gone.
    """
    return scripts(_FAILING, bad_args=True)


@STAGE.check(
    number=6,
    points=2,
    examples=4,
    always=INCIDENTS["changed"],
    spec=(SPEC["copy"],),
    compare=functools.partial(compare, runs="none"),
)
def changes_do_not_leak():
    """changing an envelope call_memo returned does not change what a later hit returns

    Store a copy (json.dumps the envelope) and hand out a fresh copy on every hit: a caller who changes
    a returned value must not change the memo.
    """
    return scripts(_GOOD, change=True)
