"""Stage 5 · memo_key(name, args) and call_memo(name, args, memo): never ask the same thing twice.

What is judged is what every correct memo shares, not the reference's text: two calls get one key exactly
when they are the same call (key order aside), memo_key never raises, a str name with dict args JSON holds
exactly gets a key and args it cannot hold none. Where nothing observable depends on the choice (a name that
is no str, args that are no dict, ints over 14,000 bits) None and a key of its own are both right. 5.1 to 5.3
judge memo_key's answers alone or in pairs; 5.4 to 5.6 run a script of calls through one memo and compare
every envelope and body run with the trusted memo's over the same spies (call_tool is the grader's own while
this stage is probed).
"""

import dataclasses
import functools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from agtool.contract import MAX_INT_BITS
from grader.kit import draw
from grader.kit.boundary import spies, values
from grader.kit.checks import stage4
from grader.kit.checks.common import GOOD_ARGS, LAB_ARGS, LAB_RETURNS, call, entry, got_text, py, request, show_table
from grader.kit.oracle_access import oracle
from grader.kit.pasteable import Setting
from grader.kit.probing import Checklist, Mismatch, exception_name, without_oracle

MEMO = {"$memo": 0}

# ── the stage's case (a script through one memo), request, judge and show ─────


@dataclass(frozen=True)
class Script:
    table: dict
    calls: tuple  # (name, args, change the returned envelope afterwards?)


def request_for(case: Script) -> dict:
    return request(
        5, case.table, [call("call_memo", name, args, MEMO, mutate=change) for name, args, change in case.calls]
    )


def expect(case: Script) -> list[dict]:
    """Per call, by the trusted memo over the same spies: the envelope and the body runs (one right error)."""
    tools, bodies = spies.spy_table(case.table)
    memo: dict = {}
    expected = []
    for name, args, _change in case.calls:
        before = spies.runs(bodies)
        envelope = oracle.call_memo(tools, name, values.decode(args), memo)
        expected.append(stage4.answer(envelope, spies.runs_since(bodies, before), {envelope["error"]}))
    return expected


def mismatch(expected: dict, result: dict) -> str | None:
    """What is wrong with one answer of call_memo, whole, or None."""
    envelope = expected["envelope"]
    got = result.get("value")
    if "raised" in result:
        return "an exception got out of call_memo"
    if type(got) is not dict or not {"ok", "value", "error"} <= got.keys():
        return "not an envelope with ok, value and error"
    if not (
        values.same(got["ok"], envelope["ok"])
        and stage4.right_error(expected["errors"], got["error"])
        and values.same(got["value"], envelope["value"])
    ):
        return "another envelope"
    if expected["runs"] != result["runs"]:
        return "the body ran another number of times"
    return None


# The hints more than one check gives; a check's own are in its section.
HINTS = {
    "never raises": "call_memo raised, and it never does: it goes through call_tool, which never raises, and a call "
    "without a key (None) goes to the door unremembered.",
    "name raised": "memo_key raised on a tool name that is not a str ({name}): it never raises. Such a name may get "
    "None (the door refuses it anyway) or a key of its own.",
    "args raised": "memo_key raised on args of a shape JSON holds (a list, a str, a dict nested deep): it never "
    "raises. Args that are not a dict may get None or a key of their own; what JSON cannot hold exactly gets None.",
    "not a str": "A key is a str made of the tool's name and the args' JSON text; None where there is none.",
    "str words": "A str is JSON whatever it says: these args are JSON, so they get a key. Judge each value by its type "
    '(is_json), not by the text json.dumps writes: a str "NaN-1" is no NaN.',
    "no key": "A str name with dict args JSON holds exactly always gets a key, or the memo never answers them: judge "
    "each value by its type, at every depth.",
}


def never_raises(problem: str) -> str:
    """The hint of every memo check for an exception out of call_memo; "" for any other problem."""
    return HINTS["never raises"] if problem.startswith("an exception") else ""


Hint = Callable[[Script, dict, dict, str], str]  # (case, expected, observed answer, problem) -> the hint


def compare(
    case: Script,
    expected: list[dict],
    observation: dict,
    runs: str = "all",
    hint: Hint = lambda case, want, result, problem: never_raises(problem),
    shown: Callable[[Script, dict], str] = lambda case, want: stage4.show_answer(want),
) -> Mismatch | None:
    """Every envelope as the trusted memo's; body runs: "all" of them (5.4), only where the trusted memo
    ran the body (5.5: a failure runs again), or none (5.6: an ok value JSON cannot hold exactly may be
    remembered exactly or not at all). `hint` and `shown` (the expected answer as read) are the check's own."""
    said = []  # the calls so far, as the student would type them
    for (name, args, change), want, result in zip(case.calls, expected, observation["results"], strict=True):
        said.append(f"call_memo({name!r}, {py(args, 10**4, runnable=True)}, memo)")
        judged_runs = want["runs"] if runs == "all" or (runs == "misses" and want["runs"]) else result["runs"]
        problem = mismatch({**want, "runs": judged_runs}, result)
        if problem:
            return Mismatch(
                "\n".join(said),
                shown(case, want),
                f"{stage4.show_got(result)} ({problem})",
                hint(case, want, result, problem),
                exception=exception_name(result),
                problem=problem,
                at=0,  # the calls so far, shown from the first
            )
        if change:
            said[-1] = f"envelope = {said[-1]}\nchange_everything_in(envelope)"
    return None


CHECKLIST = Checklist(
    5, request_for, lambda case: dataclasses.replace(show_table(case.table), rest="memo = {}"), expect, compare
)


@st.composite
def scripts(d, bodies: tuple[tuple[str, ...], ...], change: bool = False, bad_args: bool = False) -> Script:
    """One spy tool whose body follows one of `bodies`, and 2-4 calls asking 1-2 questions again and
    again, spelt the same each time (key order is memo_key's check, 5.1; one tool, so a key without
    the tool's name is 5.2's alone)."""
    name, returns = d(draw.NAMES), draw.returns(d, least=1)
    contract = draw.contract(d)
    steps = [stage4.spy_step(d, body, returns) for body in draw.pick(d, bodies)]
    table = {name: entry(args=contract, returns=returns, body=steps)}
    good = draw.valid_args(d, contract)
    questions = [(name, good)]
    if bad_args:  # refused for an arg missing or unknown: no key mistake can mix the two questions up
        required = [arg for arg, spec in contract.items() if spec.get("required", True)]
        bad = (
            {arg: value for arg, value in good.items() if arg != required[0]}
            if required and d(draw.BOOL)
            else {**good, draw.fresh_name(good, "zz"): 1}
        )
        questions.append((name, bad))
    calls = tuple((*draw.pick(d, questions), change) for _ in range(d(st.integers(2, 4))))
    return Script(table, calls)


GOOD = (("good",),)  # bodies that return a good value
ROWS = stage4.ROWS


def stock(body: list, *calls: tuple) -> Script:
    table = {"stock_lookup": entry(args=LAB_ARGS, returns=LAB_RETURNS, body=body)}
    return Script(table, tuple(("stock_lookup", args, change) for args, change in calls))


def leaves(value) -> list:
    """The values inside lists and dicts, at every depth."""
    if type(value) is dict:
        return [leaf for item in value.values() for leaf in leaves(item)]
    if type(value) is list:
        return [leaf for item in value for leaf in leaves(item)]
    return [value]


def show_value(value) -> str:
    """value as Python a student can paste (py's runnable), whole (big ints written as powers of two), never cut."""
    return py(value, 10**5, runnable=True)


def key_call(name, args) -> str:
    return f"memo_key({show_value(name)}, {show_value(args)})"


def key_text(result: dict) -> str:
    """A key as the student reads it: whole when short, else said in words (never cut)."""
    key = result.get("value")
    if type(key) is str and len(key) > 200:
        return f"a key (a str of {len(key)} characters, starting {key[:40]!r})"
    return got_text(result)


# ── memo_key's answers in pairs, 5.1's and 5.2's ─────────────────────────────


@dataclass(frozen=True)
class Pairs:
    pairs: tuple  # (name, args, other name, other args)


def request_for_keys(case: Pairs) -> dict:
    calls = []
    for name, args, other_name, other_args in case.pairs:
        calls += [call("memo_key", name, args), call("memo_key", other_name, other_args)]
    return request(5, None, calls)


def judge_keys(case: Pairs, observation: dict) -> Mismatch | None:
    """Per pair: nothing raised; each answer a str, or None where None is allowed; equal answers for the
    same call (key order aside: 5.1's pairs), and never one key for two different calls (5.2's)."""
    results = observation["results"]
    pairs = zip(case.pairs, results[::2], results[1::2], strict=True)
    for at, ((name, args, other_name, other_args), first, second) in enumerate(pairs):
        equal = values.same(name, other_name) and values.same(args, other_args)
        problem = key_problem(name, args, first) or key_problem(other_name, other_args, second)
        keys = [first.get("value"), second.get("value")]
        if problem is None and equal and keys[0] != keys[1]:
            problem = "unequal"
        if problem is None and not equal and type(keys[0]) is str and keys[0] == keys[1]:
            problem = "shared"
        if problem:
            allowed = sorted(
                {why for why in (no_key_allowed(name, args), no_key_allowed(other_name, other_args)) if why}
            )
            wanted = "two equal keys (str)" if equal else "two different keys (str)"
            return Mismatch(
                f"({key_call(name, args)}, {key_call(other_name, other_args)})",  # a tuple: both answers show
                wanted + (f", or None for {' and '.join(allowed)}" if allowed else ""),
                f"{key_text(first)} and {key_text(second)}",
                keys_hint(problem, name, args, other_name, other_args, keys),
                Setting(),
                exception=exception_name(first) or exception_name(second),
                at=2 * at,
            )
    return None


# request, show, expect and compare of 5.1 and 5.2, memo_key's keys in pairs, judged without the oracle
IN_PAIRS = {
    "request": request_for_keys,
    "show": lambda case: Setting(),  # the failing pair says it all
    **without_oracle(judge_keys),
}


def no_key_allowed(name, args) -> str:
    """Why memo_key may give None here ("" when it must give a key): a name that is no str or args that
    are no dict (the door refuses both, so no memo ever keeps them), an int over the lab's limit."""
    if type(name) is not str:
        return "a name that is not a str"
    if type(args) is not dict:
        return "args that are not a dict"
    if any(type(leaf) is int and leaf.bit_length() > MAX_INT_BITS for leaf in leaves(values.decode(args))):
        return f"an int of more than {MAX_INT_BITS:,} bits"
    return ""


def key_problem(name, args, result: dict) -> str | None:
    """What is wrong with one answer of memo_key taken alone (None when it may stand)."""
    if "raised" in result:
        return "raised"
    key = result.get("value")
    if key is not None and type(key) is not str:
        return "not a str"
    if key is None and not no_key_allowed(name, args):
        return "no key"
    return None


def keys_hint(problem: str, name, args, other_name, other_args, keys: list) -> str:
    """The hint for a pair of memo_key's answers: unequal keys for equal calls (5.1), one key for two calls (5.2),
    or an answer wrong alone (key_problem's): it raised, is no str, or is None where a key is due."""
    if problem == "unequal":
        return UNEQUAL_HINT
    if problem == "shared":
        return shared_key_hint(name, args, other_name, other_args, keys)
    if problem == "raised":
        odd = name if type(name) is not str else other_name
        return HINTS["name raised"].format(name=py(odd)) if type(odd) is not str else HINTS["args raised"]
    if problem == "not a str":
        return HINTS["not a str"]
    strs = [leaf for leaf in leaves(args) + leaves(other_args) if type(leaf) is str]
    if any(word in leaf for leaf in strs for word in ("NaN", "Infinity")):
        return HINTS["str words"]
    return HINTS["no key"]


def args_dict(d, leaf: Callable = draw.plain) -> dict:
    return {name: leaf(d) for name in draw.names(d, 1, 3)}


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


def nest(depth: int, leaf: Any, flip: bool = False) -> dict:
    """{"next": {"next": ... leaf ..., "at": 1}, "at": 0}, `depth` dicts deep; `flip`: every dict's keys
    the other way round."""
    value = leaf
    for at in reversed(range(depth)):
        value = {"at": at, "next": value} if flip else {"next": value, "at": at}
    return value


NESTED: dict[str, Any] = {"sku": "A-100", "filter": {"region": "seoul", "min": {"qty": 1, "bay": 2}}}
# Dicts deep: far deeper than any args a model writes, far from Python's recursion limit. Deeper nesting
# is not sent: near the limit whether a correct module answers depends on how deep the caller's stack
# already is (the self-check runs in a notebook's kernel, the grade in a child), so no answer there could
# be judged the same in both.
FAR = 40


# ── 5.1 · equal args, one key ────────────────────────────────────────────────

UNEQUAL_HINT = (
    "These args are equal, their keys in another order (at some depth): equal args share a key. A text of the dict "
    "as Python or JSON writes it follows the keys' order unless told to sort them, at every depth."
)
_JSON_WORDS = ("NaN", "Infinity", "-Infinity", "NaN-1", "null", "true", "[1]", '{"a": 1}')


def word_or_plain(d) -> Any:
    """A plain value, or once in three a str that reads like JSON: is_json judges types, not text."""
    return d(st.sampled_from(_JSON_WORDS)) if draw.chance(d, 3) else draw.plain(d)


@st.composite
def equal_pairs(d) -> Pairs:
    pairs = []
    for _ in range(d(st.integers(1, 4))):
        name, args = d(draw.NAMES), args_dict(d, word_or_plain)
        pairs.append((name, args, name, reorder(d, args)))
    return Pairs(tuple(pairs))


REORDERED = {"filter": {"min": {"bay": 2, "qty": 1}, "region": "seoul"}, "sku": "A-100"}
DEEP = {"where": [{"b": {"y": 1, "x": [1, {"q": None, "p": "s"}]}, "a": 2}], "sku": "A-100"}
DEEP_REORDERED = {"sku": "A-100", "where": [{"a": 2, "b": {"x": [1, {"p": "s", "q": None}], "y": 1}}]}
EQUAL = Pairs(
    (
        ("stock_lookup", GOOD_ARGS, "stock_lookup", dict(reversed(GOOD_ARGS.items()))),
        ("search", NESTED, "search", REORDERED),
        ("search", DEEP, "search", DEEP_REORDERED),
        ("t", {"sku": "NaN-1", "note": "Infinity"}, "t", {"note": "Infinity", "sku": "NaN-1"}),
        ("t", {"q": "-Infinity", "r": ["NaN"]}, "t", {"r": ["NaN"], "q": "-Infinity"}),
        ("search", nest(FAR, "A-100"), "search", nest(FAR, "A-100", flip=True)),
    )
)


@CHECKLIST.check(number=1, points=3, examples=5, always=(EQUAL,), **IN_PAIRS)
def keys_ignore_key_order():
    """memo_key gives equal keys (str) for args equal up to key order, nested too, whatever their strs say ("NaN-1" too)

    Two spellings of one question must meet in one key: write the args as a text whose dicts are sorted
    by key, at every depth, and build the key from that text.
    """
    return equal_pairs()


# ── 5.2 · different calls, different keys ────────────────────────────────────

SHARED_KEY_HINTS = {
    "name not a str": "A name that is not a str may get None (the door refuses it anyway) or a key of its own: "
    'str(5) is "5", so a key built with str() gives the name 5 the key of the tool "5".',
    "name into args": 'The key must keep the name apart from the args: written side by side, ("t1", 2) and ("t", 12) '
    "both read t12. Something between them that no tool name holds keeps them apart.",
    "name": "The tool name is part of the key: two tools asked the same args are two questions.",
    "numbers": "1, 1.0 and True are different args: JSON tells them apart (1, 1.0, true); str() or hash() of a dict "
    "of them may not (1 == 1.0 == True in Python).",
    "args": "Different args give different keys: write all of them, at every depth, into the key.",
}


def shared_key_hint(name, args, other_name, other_args, keys: list) -> str:
    """5.2's hint for two different calls with one key."""
    if not values.same(name, other_name):
        if type(name) is not str or type(other_name) is not str:
            return SHARED_KEY_HINTS["name not a str"]
        if all(type(key) is str and key.startswith(tool) for key in keys for tool in (name, other_name)):
            return SHARED_KEY_HINTS["name into args"]
        return SHARED_KEY_HINTS["name"]
    kinds = {type(leaf) for leaf in leaves(args) + leaves(other_args)}
    return SHARED_KEY_HINTS["numbers" if bool in kinds or float in kinds else "args"]


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
def different_pairs(d) -> Pairs:
    pairs = []
    for _ in range(d(st.integers(1, 4))):
        name, args = d(draw.NAMES), args_dict(d)
        if d(st.integers(0, 4)):
            pairs.append((name, args, name, reorder(d, variant(d, args))))
        else:
            pairs.append((name, args, draw.fresh_name({name}, d(draw.NAMES)), reorder(d, args)))
    return Pairs(tuple(pairs))


BIG = 2**14_280  # 4,299 digits: an int of more than 14,000 bits that json.dumps still writes (4,300 at most)
DIFFERENT = Pairs(
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
        ("t1", 2, "t", 12),
        ("search", nest(FAR, 1), "search", nest(FAR, 1.0)),
        (5, {"x": 1}, "5", {"x": 1}),
        (None, {"x": 1}, "None", {"x": 1}),
        (["t"], {"x": 1}, "['t']", {"x": 1}),
        ("t", {"x": 2**MAX_INT_BITS}, "t", {"x": 2**MAX_INT_BITS + 1}),
        ("t", {"x": [BIG]}, "t", {"x": [-BIG]}),
        # 4,301 and 4,302 digits: json.dumps raises (no key is needed, but memo_key never raises)
        ("t", {"x": {"$power": [10, 4300]}}, "t", {"x": {"$power": [10, 4301]}}),
    )
)


@CHECKLIST.check(number=2, points=3, examples=5, always=(DIFFERENT,), **IN_PAIRS)
def keys_tell_args_apart():
    """memo_key never gives two different calls one key (1, 1.0 and True differ, and so do two tools, ("t1", 2) and ("t", 12)), and never raises

    Try a key on pairs of calls that differ in one small place: an int against a float or a bool, a
    tool name that runs into its args, one level of nesting more. Each pair must give two keys.
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return different_pairs()


# ── 5.3 · args JSON cannot hold: no key, never remembered ────────────────────


@dataclass(frozen=True)
class Unholdable:
    tool: str
    args: tuple  # each: {"x": [..an unholdable value somewhere..]}
    names: tuple = ()  # (name, args, has a key?): an int of 14,000 bits has one


NO_KEY_ARGS = {"x": {"type": "list"}}


def request_for_unholdable(case: Unholdable) -> dict:
    table = {case.tool: entry(args=NO_KEY_ARGS, returns={"ok": {"type": "bool"}}, body=[{"return": {"ok": True}}])}
    calls = []
    for args in case.args:  # its key, then the call twice: the second must run the body again
        calls += [call("memo_key", case.tool, args), *[call("call_memo", case.tool, args, MEMO) for _ in range(2)]]
    calls += [call("memo_key", name, args) for name, args, _ in case.names]
    return request(5, table, calls)


def judge_unholdable(case: Unholdable, observation: dict) -> Mismatch | None:
    results = observation["results"]
    for at, args in enumerate(case.args):
        key, _first, again = results[3 * at : 3 * at + 3]
        if key.get("value", "raised") is not None:
            return unholdable_mismatch(case.tool, args, "None", key, 3 * at)
        value = again.get("value")
        if again.get("runs") != {case.tool: 1} or type(value) is not dict or value.get("ok") is not True:
            return Mismatch(
                f"call_memo({case.tool!r}, {show_value(args)}, memo)\n"
                f"call_memo({case.tool!r}, {show_value(args)}, memo)",
                "{'ok': True, ...}, body runs: 1 (args without a key are never remembered)",
                stage4.show_got(again),
                NO_KEY_HINTS["remembered"],
                exception=exception_name(again),
                at=3 * at + 1,  # the call that remembers, then the one that must run the body again
            )
    after = 3 * len(case.args)  # the calls of case.names come after those of case.args
    for at, ((name, args, holds), key) in enumerate(zip(case.names, results[after:], strict=True), after):
        right = type(key.get("value")) is str if holds else ("value" in key and key["value"] is None)
        if not right:
            return unholdable_mismatch(name, args, "a key (str)" if holds else "None", key, at)
    return None


def unholdable_mismatch(name, args, expected: str, key: dict, at: int) -> Mismatch:
    return Mismatch(
        key_call(name, args),
        expected,
        key_text(key),
        unholdable_hint(args),
        Setting(),
        exception=exception_name(key),
        at=at,
    )


NO_KEY_HINTS = {
    "cycle": "A list that holds itself has no JSON text (json.dumps raises ValueError) and is_json must not recurse "
    "into it forever (RecursionError): remember the lists and dicts you are inside and say False when you meet one "
    "again, or catch RecursionError and say False.",
    "big int": f"An int of up to {MAX_INT_BITS:,} bits is JSON and gets a key (value.bit_length() <= MAX_INT_BITS): "
    f"2 ** 14_000 - 1 has {MAX_INT_BITS:,} bits.",
    "not finite": "json.dumps writes NaN and infinities (not JSON at all): a float gets a key only if math.isfinite.",
    "int keys": 'json.dumps turns a key 1 into "1", and the two would collide: a dict needs str keys, at every depth.',
    "tuple": "json.dumps turns a tuple into a list, and the two would collide: only lists are JSON lists.",
    "other": "Give None unless JSON holds the args exactly: None, str, int, bool, finite float, lists, dicts with str "
    "keys; a set, bytes or any other object gets no key.",
    "remembered": "A call without a key (memo_key gave None) is never remembered: the memo is neither read nor "
    "written for it, so the body runs every time.",
}


def unholdable_hint(args) -> str:
    """The hint for the one value JSON cannot hold that got a key or made memo_key raise (or an int that
    fits that got none)."""
    found, text = leaves(args), repr(args)
    if "$cycle" in text:
        return NO_KEY_HINTS["cycle"]
    if any(type(leaf) is int and leaf.bit_length() > 64 for leaf in found):
        return NO_KEY_HINTS["big int"]
    if any(type(leaf) is float and not math.isfinite(leaf) for leaf in found):
        return NO_KEY_HINTS["not finite"]
    return NO_KEY_HINTS["int keys" if "$intkeys" in text else "tuple" if "$tuple" in text else "other"]


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
    {"$cycle": [1]},
    {"$cycle": []},
    {"deep": [{"$cycle": ["a"]}]},
)


@st.composite
def unholdable(d) -> Unholdable:
    tool, args = d(draw.NAMES), []
    for _ in range(d(st.integers(1, 2))):
        inner = [draw.plain(d, 1) for _ in range(d(st.integers(0, 2)))]
        inner.insert(d(st.integers(0, len(inner))), draw.pick(d, _UNHOLDABLE))
        args.append({"x": inner})
    return Unholdable(tool, tuple(args))


UNHOLDABLES = Unholdable(
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
        {"x": [{"$cycle": [1]}]},
        {"x": [{"deep": {"$cycle": []}}]},
    ),
    (("t", {"x": [2**MAX_INT_BITS - 1]}, True), ("t", {"x": [-(2**MAX_INT_BITS - 1)]}, True)),
)


@CHECKLIST.check(
    number=3,
    points=2,
    examples=4,
    request=request_for_unholdable,
    show=lambda case: Setting(table=f"TOOLS[{case.tool!r}]['args'] = {NO_KEY_ARGS!r}", tools=(case.tool,)),
    always=(UNHOLDABLES,),
    **without_oracle(judge_unholdable),
)
def no_key_for_unholdable_args():
    """memo_key gives None for args JSON cannot hold exactly (NaN, inf, tuples, sets, bytes, objects, int keys, a list that holds itself), a key for an int of 14,000 bits; call_memo never keeps a call without a key

    Decide with a small function over the values' types (is_json), before any json.dumps: json.dumps
    accepts some of what JSON cannot hold. When memo_key gives None, call_memo goes straight to the door.
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return unholdable()


# ── 5.4 · a repeated call runs once ──────────────────────────────────────────

HIT_HINT = "On a hit, return the remembered envelope without calling call_tool."


def hit_hint(case: Script, want: dict, result: dict, problem: str) -> str:
    """5.4's hint for a call that ran the body where the memo had the answer."""
    ran_again = sum(result["runs"].values()) > sum(want["runs"].values())
    return never_raises(problem) or (HIT_HINT if ran_again else "")


REPEATED = stock([{"return": ROWS}], *[(GOOD_ARGS, False)] * 4)


@CHECKLIST.check(number=4, points=3, examples=4, always=(REPEATED,), compare=functools.partial(compare, hint=hit_hint))
def repeated_call_runs_once():
    """call_memo runs a repeated call's body once and returns the same envelope every time

    An agent asks the same lookup again and again in one run: look its key up in the memo first, and
    call the door only on a miss.
    """
    return scripts(GOOD)


# ── 5.5 · failures never remembered ──────────────────────────────────────────

ONLY_OK_HINT = "Remember only ok envelopes: a failure remembered is replayed long after its cause is gone."


def failure_hint(case: Script, want: dict, result: dict, problem: str) -> str:
    """5.5's hint for a failure that was not asked again."""
    return never_raises(problem) or (ONLY_OK_HINT if want["runs"] and not result["runs"] else "")


FAILING_BODIES = (("raise",), ("bad result",), ("raise", "good"), ("bad result", "good"), ("raise", "raise", "good"))
FAILING = (
    stock([{"raise": "TimeoutError"}, {"raise": "TimeoutError"}, {"return": ROWS}], *[(GOOD_ARGS, False)] * 4),
    stock([{"return": stage4.EMPTY}, {"return": ROWS}], *[(GOOD_ARGS, False)] * 3),
    stock([{"return": ROWS}], *[({**GOOD_ARGS, "limit": 3}, False)] * 2),
)


@CHECKLIST.check(
    number=5,
    points=2,
    examples=4,
    always=FAILING,
    compare=functools.partial(compare, runs="misses", hint=failure_hint),
)
def failures_are_not_remembered():
    """call_memo never remembers a failure: every failing call runs again

    Many failures pass: a timeout, a tool briefly down, an empty answer that the next minute fills.
    Test the envelope's ok before storing it, so the next same call asks the tool again.
    """
    return scripts(FAILING_BODIES, bad_args=True)


# ── 5.6 · a hit is a copy ────────────────────────────────────────────────────

# What an ok value may hold that JSON cannot hold exactly, each in a key its contract does not name.
_ODD: tuple[Any, ...] = (
    {"$set": ["new"]},
    {"$tuple": [37.5, 127.0]},
    {"$intkeys": [[1, 5]]},
    {"$cycle": ["started"]},
    {"$bytes": "A-100"},
    {"$object": 0},
    draw.NAN,
    [{"$tuple": []}],
    {"deep": [{"$set": []}]},
    {"$power": [10, 4300]},
)
ODD_HINTS = {
    "raised": "call_memo never raises, and this ok value holds {odd}: json.dumps raises TypeError for a set, bytes or "
    "an object and ValueError for a list that holds itself or an int of over 4,300 digits (or NaN, with "
    "allow_nan=False). Such a value is not remembered (the next call runs the body again), or it is remembered "
    "exactly.",
    "changed": "A hit must equal the envelope it remembers, and this value holds {odd}: json.loads gives back a list "
    'for a tuple and "1" for a key 1. Such a value is not remembered (the next call runs the body again), or it is '
    "remembered exactly.",
}
_ODD_WORDS = (
    ("$set", "a set"),
    ("$tuple", "a tuple"),
    ("$intkeys", "a key that is no str"),
    ("$cycle", "a list that holds itself"),
    ("$bytes", "bytes"),
    ("$object", "an object"),
    ("$power", "an int of over 4,300 digits"),
)


def odd_in(case: Script) -> str:
    """What the ok value of the case's one body holds that JSON cannot hold exactly, in words ("" for nothing)."""
    steps = [step for tool in case.table.values() for step in tool["body"] if "return" in step]
    text = "".join(map(repr, steps))
    found = [words for tag, words in _ODD_WORDS if tag in text]
    if any(type(leaf) is float and not math.isfinite(leaf) for step in steps for leaf in leaves(step["return"])):
        found.append("NaN or an infinity")
    return ", ".join(found)


def odd_answer(case: Script, want: dict) -> str:
    """The envelope the body's value makes, written as Python (a tuple as a tuple), and the runs allowed."""
    if not odd_in(case) or not want["envelope"].get("ok"):
        return stage4.show_answer(want)
    (tool,) = case.table.values()
    envelope = {"ok": True, "value": tool["body"][-1]["return"], "error": None}
    return f"{py(envelope, 10**4)}, on every call (the body run again, or a hit that equals it)"


def odd_hint(case: Script, want: dict, result: dict, problem: str) -> str:
    """5.6's hint for an ok value JSON cannot hold exactly that made call_memo raise or come back changed."""
    odd = odd_in(case)
    if odd and problem.startswith("an exception"):
        return ODD_HINTS["raised"].format(odd=odd)
    if odd and problem == "another envelope":
        return ODD_HINTS["changed"].format(odd=odd)
    return never_raises(problem)


@st.composite
def odd_scripts(d) -> Script:
    """One spy tool whose ok value holds, in a key its contract does not name, what JSON cannot hold
    exactly; the same call 2-3 times, the returned envelope now and then changed by the caller."""
    name = d(draw.NAMES)
    returns = draw.returns(d, least=1)
    value = draw.result_dict(d, returns)
    value[draw.fresh_name(value, "extra")] = draw.pick(d, _ODD)
    table = {name: entry(args=draw.contract(d), returns=returns, body=[{"return": value}])}
    args = draw.valid_args(d, table[name]["args"])
    return Script(table, tuple((name, args, d(draw.BOOL)) for _ in range(d(st.integers(2, 3)))))


CHANGED = stock([{"return": ROWS}], *[(GOOD_ARGS, True)] * 3)
# ok values with what JSON cannot hold exactly in a key the contract does not name: json.dumps raises
# (a set: TypeError; a list that holds itself: ValueError) or loses it (a tuple, a key 1)
ODD = tuple(
    stock([{"return": {**ROWS, key: odd}}], (GOOD_ARGS, True), (GOOD_ARGS, False))
    for key, odd in (
        ("tags", {"$set": ["new"]}),
        ("at", {"$tuple": [37.5, 127.0]}),
        ("by_bay", {"$intkeys": [[1, 5]]}),
        ("log", {"$cycle": ["started"]}),
        ("score", draw.NAN),
        ("count", {"$power": [10, 4300]}),  # json.dumps raises ValueError: over 4,300 digits
    )
)


@CHECKLIST.check(
    number=6,
    points=2,
    examples=4,
    always=(CHANGED, *ODD),
    compare=functools.partial(compare, runs="none", hint=odd_hint, shown=odd_answer),
)
def changes_do_not_leak():
    """a hit equals the envelope it remembers, never the same object, even for a value JSON cannot hold exactly (a set, a tuple, a key 1, a list that holds itself, an int of 4,301 digits); call_memo never raises

    Store a copy and hand out a new copy on every hit: a JSON round trip is exact only for a value
    is_json accepts, so test that first, or copy with copy.deepcopy.
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return st.one_of(scripts(GOOD, change=True), odd_scripts())
