"""Stage 3 · check_result(name, value): what came back, checked against the returns spec.

A case is a table (one tool, its returns spec) and a few values. Any reason that
really fails is right (oracle.result_reasons); the spec fixes no order.

One mistake costs one check. Each check owns both sides of its rule: what it
refuses and the edges it lets through (3.5 refuses 3 items for max_len 2 and
accepts 2; 3.3 refuses True for an int and accepts 10 for a float; 3.4 accepts
0, False and None, which are not empty). Everything else in a check's cases is
strictly valid and away from every other rule's edges: numbers strictly inside
their bounds and never 0, a float key given a float, non-empty strs, lists and
dicts, lists shorter than max_len, no extra keys, no "any" key and no items
outside the checks about them. 3.7's bad items each break two rules at once, so
only a check that never looks inside the items misses them all.

Fixed cases (`INCIDENTS`, tried under every seed) hold every edge of every rule,
items of items included, so a verdict never hangs on the seed.

An item may be named with its position after its list's name (rows.1.qty,
rows[1].qty): what every reasonable spelling shares is judged (stage 2's
`without_positions`), since no later stage reads a field inside a list.
"""

from dataclasses import dataclass

from hypothesis import strategies as st

from grader.kit import draw
from grader.kit.boundary import values
from grader.kit.checks.common import (
    ETA_RETURNS,
    LAB_RETURNS,
    call,
    entry,
    expect_reasons,
    got_text,
    one_of,
    plant_range,
    reason_ok,
    request,
    safe_values,
    show_table,
    value_of,
)
from grader.kit.checks.stage2 import shown, without_positions
from grader.kit.oracle_access import oracle
from grader.kit.probing import Checklist, Mismatch, without_oracle


@dataclass(frozen=True)
class Case:
    table: dict
    tool: str
    calls: tuple


def request_for(case: Case) -> dict:
    return request(3, case.table, [call("check_result", case.tool, value) for value in case.calls])


def expect(case: Case) -> list[list[str]]:
    return expect_reasons(case, "returns", oracle.result_reasons)


def compare(case: Case, expected: list[list[str]], observation: dict) -> Mismatch | None:
    """The first value whose answer is no right reason (nor None where nothing fails), with its hint."""
    returns = values.decode(case.table[case.tool]["returns"])
    for given, reasons, result in zip(case.calls, expected, observation["results"], strict=True):
        if not right_reason(returns, reasons, value_of(result)):
            return _mismatch(
                case, given, one_of(reasons), result, advise(returns, values.decode(given), reasons, result)
            )
    return None


def right_reason(returns: dict, reasons: list[str], got) -> bool:
    """A reason that really fails, read without the positions of list items (rows.1.qty is rows.qty)."""
    if reason_ok(got, reasons):
        return True
    if not reasons or type(got) is not str or ":" not in got:
        return False
    kind, _, field = got.partition(":")
    return f"{kind}:{without_positions(returns, field, 'returns')}" in reasons


def judge_never_raises(case: Case, observation: dict) -> Mismatch | None:
    for value, result in zip(case.calls, observation["results"], strict=True):
        # 3.8's Touchy values all sit beside a broken rule: a reason is right, or the TypeError, never None
        if values.anywhere(value, _touchy):
            if "raised" not in result and type(result["value"]) is not str:
                return _mismatch(
                    case, value, "a reason (the value breaks a rule), or a TypeError", result, HINTS["unchecked"]
                )
        elif "raised" in result or not (result["value"] is None or type(result["value"]) is str):
            return _mismatch(case, value, "None or a reason, never an exception", result, "")
    return None


def _touchy(value) -> bool:
    return values.tagged(value) == "$touchy"


def _mismatch(case: Case, value, expected: str, result: dict, hint: str) -> Mismatch:
    return Mismatch(f"check_result({case.tool!r}, {shown(value)})", expected, got_text(result), hint)


def show(case: Case) -> str:
    return show_table(case.table, ("returns",))


CHECKLIST = Checklist(3, request_for, show, expect, compare)


# ── the hint for what was observed ───────────────────────────────────────────
# From the case, the expected reasons and the answer alone (no oracle): the kit's
# public cases give the same hint. "" keeps the check's own.

HINTS = {
    "unchecked": "A value that breaks a rule gets a reason, whatever another key holds: here a key your "
    "check could not read (its type was not the one it compared) ended it with None, and the broken key went "
    "unreported. A key's type decides before its value is compared or measured.",
    "raised": "check_result raised on a value a tool may send: it never raises. What it reads of a value "
    "(its keys, an item's keys, a comparison, a length) is read only once its type allows it.",
    "dict subclass": "The value (or a row, or a key's value) is a dict subclass, an OrderedDict, as "
    "json.loads(..., object_pairs_hook=OrderedDict) makes: it is a dict, and a test of the exact type refuses it.",
    "not a dict": "The value is not a dict (a list, a str, None): shape:result, decided before any key is read. "
    "A dict subclass, an OrderedDict, is a dict.",
    "extra": "Keys the spec does not mention are allowed: check what the contract names, and only that.",
    "missing": "A key of the spec that is absent is shape:<key>.",
    "bool": "bool is a subclass of int: True is not an int (nor a float), it is shape:<key>.",
    "float for int": "4.0 is a float, not an int: shape:<key>.",
    "int for float": "An int is a fine float: total=10 passes for a float key, as an int passes for a float arg.",
    "any": "An any key takes every type; only emptiness (empty:<key>) can fail it.",
    "type": 'A value of the wrong type is shape:<key>: "4개" is not an int, a tuple is not a list.',
    "empty": 'An empty list, dict or str is not "no problem": empty:<key>, unless the spec says '
    "allow_empty=True (an any key too).",
    "allow_empty": "allow_empty=True lets an empty list, dict or str through.",
    "falsy": "Only a list, dict or str can be empty: 0, False and None are values, not empty ones.",
    "too_big": "A list longer than max_len is too_big:<key>.",
    "max_len": "max_len is inclusive: a list of exactly max_len items passes.",
    "nan": (
        "The value is NaN, and every comparison with NaN is False: asked whether NaN is below min, Python says "
        'no, so a test for "outside" lets it through. The rule: NaN lies within no bound, so a value passes '
        "only when it is shown to lie within the bounds."
    ),
    "huge int": "The value is an int too big for a float (10 ** 400): turning it into a float, as math.isnan "
    "does, raises OverflowError. The rule compares it as it is: Python compares an int with any number exactly.",
    "huge int passed": "10 ** 400 is far outside the range, yet it passed: float() and math.isnan() raise "
    "OverflowError on an int too big for a float, and an except that returns None turns that crash into a pass. "
    "Compare the int as it is, and never answer None because a check broke.",
    "nan without bounds": "NaN is refused only by a bound: a float key with no min and no max, or an any "
    "key, lets NaN through.",
    "bound": "Both bounds are inclusive: min <= value <= max, so min and max themselves pass.",
    "range": "A number outside min..max is range:<key>; check each bound the spec has.",
    "items": "Every item of a list with items meets the item specs, items of items too, at any depth; an "
    "item that is not a dict is shape:<key>.",
    "path": "Name a field inside items by its dotted path: range:rows.qty, range:days.slots.qty.",
}


def advise(returns: dict, value, reasons: list[str], result: dict) -> str:
    """The hint for this answer, from what was expected and what came back."""
    got = value_of(result)
    if "raised" in result:
        if type(value) is not dict:
            return HINTS["not a dict"]
        if any(
            isinstance(value.get(key), list)
            and "items" in spec
            and not all(isinstance(element, dict) for element in value[key])
            for key, spec in returns.items()
        ):
            return HINTS["items"]
        if result["raised"].startswith("OverflowError") or any(
            type(item) is int and item.bit_length() > 1024 for item in value.values()
        ):
            return HINTS["huge int"]
        return HINTS["raised"]
    if not reasons:  # a good value was refused: which edge?
        if type(got) is not str or not isinstance(value, dict):
            return ""
        if got.startswith("shape:") and _holds_dict_subclass(value):
            return HINTS["dict subclass"]
        kind, _, field = got.partition(":")
        if field == "result" or field not in returns:
            return HINTS["extra"] if set(value) - set(returns) else ""
        spec, item = returns[field], value.get(field)
        if kind == "shape":
            if spec["type"] == "float" and type(item) is int:
                return HINTS["int for float"]
            return HINTS["any"] if spec["type"] == "any" else ""
        if kind == "empty":
            return (
                HINTS["allow_empty"]
                if spec.get("allow_empty")
                else HINTS["falsy"]
                if not isinstance(item, (list, dict, str))
                else ""
            )
        if kind == "too_big" and isinstance(item, list) and len(item) == spec.get("max_len"):
            return HINTS["max_len"]
        if kind == "range" and isinstance(item, (int, float)):
            if item != item:
                return HINTS["nan without bounds"]
            if item in (spec.get("min"), spec.get("max")):
                return HINTS["bound"]
        return ""
    if type(got) is str and "." in "".join(reasons):
        tail = got.partition(":")[2].split(".")[-1]
        if any(reason.partition(":")[2].split(".")[-1] == tail for reason in reasons):
            return HINTS["path"]
    if got is not None and type(got) is not str:
        return ""
    if got is not None:
        return ""
    if "shape:result" in reasons:
        return HINTS["not a dict"]
    if all("." in reason for reason in reasons) or any(
        reason.split(":", 1)[1] in returns
        and "items" in returns[reason.split(":", 1)[1]]
        and reason.startswith("shape:")
        for reason in reasons
    ):
        return HINTS["items"]
    kinds = {reason.split(":", 1)[0] for reason in reasons}
    if len(kinds) != 1:
        return ""
    (kind,) = kinds
    field = reasons[0].split(":", 1)[1]
    item = value.get(field, _ABSENT) if isinstance(value, dict) else _ABSENT
    if kind == "shape":
        if item is _ABSENT:
            return HINTS["missing"]
        if type(item) is bool:
            return HINTS["bool"]
        if type(item) is float and returns.get(field, {}).get("type") == "int":
            return HINTS["float for int"]
        return HINTS["type"]
    if kind == "range" and type(item) is float and item != item:
        return HINTS["nan"]
    if kind == "range" and type(item) is int and item.bit_length() > 1024:
        return HINTS["huge int passed"]
    return HINTS.get(kind, "")


_ABSENT = object()


def _holds_dict_subclass(value) -> bool:
    """Is value, or a value or an item of a list inside it, an instance of a dict subclass?"""
    if isinstance(value, dict):
        return type(value) is not dict or any(map(_holds_dict_subclass, value.values()))
    return isinstance(value, list) and any(map(_holds_dict_subclass, value))


# ── drawing cases ────────────────────────────────────────────────────────────
# A safe key is strictly valid and away from every rule's edge: a number strictly
# inside its bounds and never 0, a float key's value a float, non-empty strs, lists
# and dicts, a list shorter than max_len, True for a bool, no "any", no items.

SAFE_KINDS = ("str", "int", "float", "bool", "list", "dict")
WIDTH = st.integers(3, 9)
FAR = (-100, 100)


def _safe_spec(d, kind: str | None = None) -> dict:
    kind = kind or draw.pick(d, SAFE_KINDS)
    spec = {"type": kind}
    if kind in ("int", "float"):
        low = d(draw.LOW)
        spec.update(draw.pick(d, ({}, {"min": low, "max": low + d(WIDTH)}, {"min": low}, {"max": low})))
    if kind == "list" and d(draw.BOOL):
        spec["max_len"] = d(st.integers(2, 4))
    if kind in ("str", "list", "dict") and draw.chance(d, 4):
        spec["allow_empty"] = d(draw.BOOL)
    return spec


def _safe_returns(d, least: int = 0, most: int = 3) -> dict:
    return {name: _safe_spec(d) for name in draw.names(d, least, most)}


def _plant_shape(d):
    spec = _safe_spec(d)
    wrong = draw.WRONG_RESULT[spec["type"]]
    return spec, lambda d: draw.pick(d, (None, *wrong))  # None here: the key is left out


def _plant_empty(d):
    spec = {"type": draw.pick(d, ("str", "list", "dict")), **({"allow_empty": False} if d(draw.BOOL) else {})}
    return spec, lambda d: _EMPTY[spec["type"]]


def _plant_too_big(d):
    spec = {"type": "list", "max_len": d(st.integers(1, 3))}
    return spec, lambda d: [d(draw.LEAF) for _ in range(spec["max_len"] + d(st.integers(1, 5)))] or [1]


_EMPTY = {"str": "", "list": [], "dict": {}}
_PLANTS = {"shape": _plant_shape, "empty": _plant_empty, "too_big": _plant_too_big, "range": plant_range}


@st.composite
def cases(d, mistake: str | None = None) -> Case:
    """Safe returns with a key for the mistake, and 1-3 values that carry it (or all good, an extra key
    now and then)."""
    if mistake:  # drawn first: shrinking the rest of the case leaves it alone
        key, (spec, bad_value) = d(draw.NAMES), _PLANTS[mistake](d)
    returns = _safe_returns(d)
    if mistake:
        key = draw.fresh_name(returns, key)
        returns = draw.with_arg(returns, key, spec, d(st.integers(0, 3)))
    calls = []
    for _ in range(d(st.integers(1, 3))):
        value = safe_values(d, {name: spec for name, spec in returns.items() if not mistake or name != key})
        if mistake:
            bad = bad_value(d)
            if bad is not None:
                value[key] = bad
        elif draw.chance(d, 3):  # extra keys are allowed (3.1's own)
            value[draw.fresh_name(returns, "extra")] = d(draw.LEAF)
        calls.append(value)
    tool = d(draw.NAMES)
    return Case({tool: entry(returns=returns)}, tool, tuple(calls))


@st.composite
def not_dicts(d) -> Case:
    tool = d(draw.NAMES)
    return Case(
        {tool: entry(returns=_safe_returns(d))},
        tool,
        tuple(draw.pick(d, draw.NOT_A_DICT) for _ in range(d(st.integers(1, 3)))),
    )


ITEM = {"region": {"type": "str"}, "qty": {"type": "int", "min": 1, "max": 90}}
GOOD_ITEM = {"region": "seoul", "qty": 5}
BAD_ITEMS = ({"region": "", "qty": 500}, {"qty": 500}, {"region": 5, "qty": 500}, 3, "seoul", None, [GOOD_ITEM])


@st.composite
def bad_items(d) -> Case:
    """A list with items (items of items, now and then) beside safe keys; its items good, or one of them
    breaking two rules at once, or no dict at all."""
    deep, bad = d(draw.BOOL), d(draw.BOOL)
    items = [GOOD_ITEM] * d(st.integers(1, 2))
    if bad:
        items.insert(d(st.integers(0, len(items))), draw.pick(d, BAD_ITEMS))
    spec, value = {"type": "list", "items": ITEM}, items
    if deep:
        spec, value = {"type": "list", "items": {"slots": spec}}, [{"slots": [GOOD_ITEM]}, {"slots": items}]
    returns = _safe_returns(d, 0, 2)
    key = draw.fresh_name(returns, d(draw.NAMES))
    returns = draw.with_arg(returns, key, spec, d(st.integers(0, 2)))
    tool = d(draw.NAMES)
    rest = safe_values(d, {name: spec for name, spec in returns.items() if name != key})
    return Case({tool: entry(returns=returns)}, tool, ({**rest, key: value},))


# Values no JSON tool sends, at keys with no bound and no items: a check that reads types answers them
# without raising; which reason is right is 3.3's question, not this check's.
# (A tuple is 3.3's: a tuple is not a list.)
_ODD: tuple[object, ...] = (
    {"$set": [1]},
    {"$bytes": "x"},
    {"$object": 0},
    {"$intkeys": [[1, "a"]]},
    {"$set": []},
    [{"$set": []}],
    {"a": {"$object": 0}},
    [{"$bytes": ""}],
)
_ODD_KINDS = ("str", "int", "float", "bool", "list", "dict")


@st.composite
def odd_values(d) -> Case:
    tool = d(draw.NAMES)
    returns = {name: {"type": draw.pick(d, _ODD_KINDS)} for name in draw.names(d, 1, 3)}
    calls = []
    for _ in range(d(st.integers(1, 3))):
        value = safe_values(d, returns)
        for key in list(value):
            if d(draw.BOOL):
                value[key] = draw.pick(d, _ODD)
        calls.append(value)
    return Case({tool: entry(returns=returns)}, tool, tuple(calls))


# ── the lesson's incidents and every rule's edges, tried under every seed ────

ROW = {"region": "seoul", "qty": 5}
HUGE = 10**400  # an int no float holds
JEJU = {"sku": "A-100", "region": "jeju"}
ALL_RETURNS = {
    "s": {"type": "str"},
    "i": {"type": "int", "min": -5, "max": 10},
    "f": {"type": "float"},
    "b": {"type": "bool"},
    "l": {"type": "list", "max_len": 3},
    "d": {"type": "dict"},
}
ROWS = {"rows": {"type": "list", "items": ITEM}}
DAYS = {"days": {"type": "list", "items": {"slots": {"type": "list", "items": ITEM}}}}


def one(returns: dict, *values, tool: str = "t") -> Case:
    return Case({tool: entry(returns=returns)}, tool, values)


def stock(*values) -> Case:
    return Case({"stock_lookup": entry(returns=LAB_RETURNS)}, "stock_lookup", values)


def eta(*values) -> Case:
    return Case({"delivery_eta": entry(returns=ETA_RETURNS)}, "delivery_eta", values)


INCIDENTS = {  # in each, the smallest first: the first failing value is the one shown
    "good": (
        # a dict subclass is a dict: the value, a row, a dict key (json.loads(..., object_pairs_hook=OrderedDict))
        one(
            ALL_RETURNS,
            {"s": "A-100", "i": 3, "f": 2.5, "b": True, "l": [1], "d": {"k": 1}},
            {"s": "A-100", "i": 3, "f": 2.5, "b": True, "l": [1], "d": {"$ordered": [["k", 1]]}},
        ),
        eta({**JEJU, "days": 5, "note": "extra keys are fine"}, {**JEJU, "days": 3}),
        stock(
            {"sku": "A-100", "rows": [ROW], "warehouse": "seoul-1"},
            {"$ordered": [["sku", "A-100"], ["rows", [{"$ordered": [["region", "seoul"], ["qty", 5]]}]]]},
        ),
    ),
    "not a dict": (
        one({"sku": {"type": "str"}}, None, "in stock", 3, [{"sku": "A-100"}], {"$tuple": ["sku"]}, {"$set": [1]}),
        stock([ROW], "in stock", None),
    ),
    "shape": (
        one({"sku": {"type": "str"}}, {}),
        one({"n": {"type": "int"}}, {"n": True}, {"n": "4개"}, {"n": 4.0}, {"n": None}, {"n": [1]}),
        one({"x": {"type": "float"}}, {"x": True}, {"x": "1.5"}, {"x": None}),
        one({"total": {"type": "float", "min": 0}}, {"total": 10}, {"total": 3}),
        one({"s": {"type": "str"}}, {"s": 5}, {"s": None}, {"s": True}),
        one({"b": {"type": "bool"}}, {"b": 1}, {"b": "true"}, {"b": None}),
        one({"l": {"type": "list"}}, {"l": {"$tuple": [1]}}, {"l": "ab"}, {"l": {"a": 1}}),
        one({"d": {"type": "dict"}}, {"d": [1]}, {"d": "x"}, {"d": [["a", 1]]}),
        one({"v": {"type": "any"}}, {"v": True}, {"v": 5}, {"v": "x"}, {"v": [1]}, {"v": {"$tuple": [1]}}),
        eta({**JEJU, "days": "4개"}, {**JEJU, "days": True}, {"sku": "A-100", "days": 3}),
    ),
    "empty": (
        one({"s": {"type": "str"}}, {"s": ""}),
        one(
            {"l": {"type": "list"}, "d": {"type": "dict", "allow_empty": False}},
            {"l": [], "d": {"a": 1}},
            {"l": [1], "d": {}},
        ),
        one({"v": {"type": "any"}}, {"v": ""}, {"v": []}, {"v": {}}),
        one(
            {
                "s": {"type": "str", "allow_empty": True},
                "l": {"type": "list", "allow_empty": True},
                "d": {"type": "dict", "allow_empty": True},
                "v": {"type": "any", "allow_empty": True},
            },
            {"s": "", "l": [], "d": {}, "v": []},
        ),
        one(
            {"n": {"type": "int"}, "b": {"type": "bool"}, "f": {"type": "float"}, "v": {"type": "any"}},
            {"n": 0, "b": False, "f": 0.0, "v": None},
            {"n": 0, "b": False, "f": 0.0, "v": 0},
        ),
        stock({"sku": "Z-999", "rows": []}, {"sku": "", "rows": [ROW]}),
    ),
    "too_big": (
        one({"l": {"type": "list", "max_len": 1}}, {"l": [1, 2]}, {"l": [1]}),
        one({"l": {"type": "list", "max_len": 2}}, {"l": [1, 2, 3]}, {"l": [1, 2]}, {"l": [1] * 20}),
        one({"l": {"type": "list", "max_len": 0}}, {"l": [1]}),
        one({"rows": {"type": "list", "max_len": 2}}, {"rows": [ROW] * 20}),
    ),
    "range": (
        one({"n": {"type": "int", "min": 2}}, {"n": 1}, {"n": 2}),
        one({"n": {"type": "int", "max": 5}}, {"n": 6}, {"n": 5}),
        one(
            {"x": {"type": "float", "min": 0.5, "max": 2.5}},
            {"x": 0.25},
            {"x": 3.0},
            {"x": 0.5},
            {"x": 2.5},
            {"x": draw.NAN},
        ),
        one({"x": {"type": "float", "min": 1.5}}, {"x": draw.NAN}, {"x": 1.25}, {"x": -draw.INF}, {"x": 1.5}),
        one({"x": {"type": "float", "max": 100}}, {"x": draw.NAN}, {"x": draw.INF}, {"x": 100.0}),
        one({"x": {"type": "float"}}, {"x": draw.NAN}, {"x": draw.INF}),
        one({"v": {"type": "any"}}, {"v": draw.NAN}),
        eta({**JEJU, "days": 72}, {**JEJU, "days": -1}, {**JEJU, "days": 14}),
        one(  # ints no float holds (float(HUGE) raises OverflowError): compared as they are
            {"days": {"type": "int", "min": 0, "max": 14}, "n": {"type": "int"}},
            {"days": 3, "n": HUGE},
            {"days": HUGE, "n": -HUGE},
            {"days": -HUGE, "n": 7},
        ),
    ),
    "items": (
        one(
            ROWS,
            {"rows": [GOOD_ITEM, GOOD_ITEM]},
            {"rows": [GOOD_ITEM, {"region": "", "qty": 500}]},
            {"rows": [{"qty": 500}]},
            {"rows": [GOOD_ITEM, {"region": 5, "qty": 500}]},
            {"rows": [GOOD_ITEM, 3]},
            {"rows": [None]},
        ),
        one(
            DAYS,
            {"days": [{"slots": [GOOD_ITEM]}, {"slots": [GOOD_ITEM, GOOD_ITEM]}]},
            {"days": [{"slots": [GOOD_ITEM]}, {"slots": [{"region": "", "qty": 500}]}]},
            {"days": [{"slots": [{"qty": 500}]}]},
            {"days": [{"slots": [3]}]},
        ),
        stock({"sku": "A-100", "rows": [{"region": "", "qty": -1}]}, {"sku": "A-100", "rows": [None]}),
    ),
    "odd": (
        # an any key holding a value whose == raises (`v in ("", [], {})` raises too), beside a broken range
        one({"a": {"type": "any"}, "n": {"type": "int", "min": 0}}, {"a": {"$touchy": 0}, "n": -1}),
        one(
            {
                "s": {"type": "str"},
                "l": {"type": "list"},
                "d": {"type": "dict"},
                "b": {"type": "bool"},
                "n": {"type": "int"},
            },
            {"s": {"$bytes": "x"}, "l": [1], "d": {"a": 1}, "b": True, "n": 1},
            {"s": "x", "l": {"$set": [1]}, "d": {"$intkeys": [[1, "a"]]}, "b": {"$object": 0}, "n": {"$bytes": "1"}},
            {"s": {"$object": 0}, "l": {"$set": []}, "d": {"a": {"$object": 0}}, "b": True, "n": {"$set": []}},
            {"s": "x", "l": [{"$set": []}], "d": {"$intkeys": []}, "b": {"$bytes": ""}, "n": 1},
            {
                "s": "x",
                "l": {"$cycle": [1]},
                "d": {"a": {"$cycle": []}},
                "b": True,
                "n": 1,
            },  # lists that hold themselves
        ),
    ),
}


# ── the checks ───────────────────────────────────────────────────────────────


@CHECKLIST.check(number=1, points=4, examples=4, always=INCIDENTS["good"])
def accepts_good_values():
    """check_result returns None for a value that meets the returns spec, extra keys and all

    Keys the spec does not mention are allowed: tools add fields over time. Read TOOLS[name]["returns"]
    when check_result is called.
    """
    return cases()


@CHECKLIST.check(number=2, points=2, examples=4, always=INCIDENTS["not a dict"])
def refuses_non_dicts():
    """check_result says shape:result for a value that is not a dict

    Check isinstance(value, dict) before reading any key.
    """
    return not_dicts()


@CHECKLIST.check(number=3, points=3, examples=4, always=INCIDENTS["shape"])
def refuses_wrong_shapes():
    """check_result says shape:<key> for a missing key or a value of the wrong type, and lets an int pass for a float

    A missing key or a wrong type is shape:<key>: "4개" is not an int, 4.0 is not an int, and True is not
    an int (bool is a subclass of int); 10 is a fine float, and an any key takes every type.
    """
    return cases("shape")


@CHECKLIST.check(number=4, points=3, examples=4, always=INCIDENTS["empty"])
def refuses_empty_values():
    """check_result says empty:<key> for an empty list, dict or str (an any key's too) unless allow_empty, and only for those

    An empty list, dict or str is not "no problem": empty:<key>, unless the spec says allow_empty=True.
    0, False and None are values, not empty ones.
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return cases("empty")


@CHECKLIST.check(number=5, points=2, examples=4, always=INCIDENTS["too_big"])
def refuses_long_lists():
    """check_result says too_big:<key> for a list longer than max_len, and passes exactly max_len

    A list longer than max_len is too_big:<key> (20 rows where 2 were asked); max_len items are fine.
    """
    return cases("too_big")


@CHECKLIST.check(number=6, points=2, examples=4, always=INCIDENTS["range"])
def refuses_out_of_range():
    """check_result says range:<key> for a number outside min..max (both inclusive), NaN too where there is a bound

    A number outside min..max is range:<key>; NaN too (every comparison with NaN is False, so write `not
    value >= min`), and an int too big for a float (10 ** 400) is compared as it is, never through float().
    """
    return cases("range")


@CHECKLIST.check(number=7, points=3, examples=4, always=INCIDENTS["items"])
def checks_every_item():
    """check_result checks each item of a list against items, items of items too, naming the dotted path (range:rows.qty)

    Check every item of the list against items, and name the field by its dotted path: range:rows.qty,
    shape:rows.qty.
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return bad_items()


@CHECKLIST.check(number=8, points=1, examples=4, **without_oracle(judge_never_raises), always=INCIDENTS["odd"])
def never_raises():
    """check_result answers None or a reason, never an exception, when a key's value is a set, bytes, an object or a dict with int keys

    A tool can send anything back: check types before you index, compare or take len().
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return odd_values()
