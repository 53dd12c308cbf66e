"""Stage 3 · check_result(name, value): what came back, checked against the returns spec.

Stage 2's mirror image, with its shared parts: a case is a table (one tool, its returns spec) and a few
values, any reason that really fails is right (oracle.result_reasons; the spec fixes no order), an item may
be named with its position (rows.1.qty, rows[1].qty: no later stage reads a field inside a list), and one
mistake costs one check. 3.7's bad items each break two rules at once, so only a check that never looks
inside the items misses them all; its fixed cases hold items of items too.
"""

from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import strategies as st

from grader.kit import draw
from grader.kit.boundary import values
from grader.kit.checks import stage2
from grader.kit.checks.common import (
    ETA_RETURNS,
    LAB_RETURNS,
    call,
    entry,
    expect_reasons,
    one_of,
    plant_range,
    request,
    safe_values,
    show_table,
    value_of,
)
from grader.kit.checks.stage2 import HUGE, mismatch
from grader.kit.oracle_access import oracle
from grader.kit.pasteable import Setting
from grader.kit.probing import Checklist, Mismatch, without_oracle

# ── the stage's case, request, judge and show ───────────────────────────────


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
    for at, (given, reasons, result) in enumerate(zip(case.calls, expected, observation["results"], strict=True)):
        if not right_reason(returns, reasons, value_of(result)):
            hint = advise(returns, values.decode(given), reasons, result)
            return mismatch("check_result", case, at, one_of(reasons), result, hint)
    return None


def right_reason(returns: dict, reasons: list[str], got) -> bool:
    """A reason that really fails, read without the positions of list items (rows.1.qty is rows.qty)."""
    return stage2.reads_right(returns, reasons, got, "returns")


def show(case: Case) -> Setting:
    return show_table(case.table, ("returns",))


CHECKLIST = Checklist(3, request_for, show, expect, compare)


# ── the hint for what was observed ───────────────────────────────────────────
# As stage 2's, its `*_hint(returns, value, field, passed)` named by HINT_OF.

RAISED = (
    "check_result raised on a value a tool may send: it never raises. What it reads of a value "
    "(its keys, an item's keys, a comparison, a length) is read only once its type allows it."
)


def advise(returns: dict, value, reasons: list[str], result: dict) -> str:
    """The hint for this answer, from what was expected and what came back."""
    got = value_of(result)
    if "raised" in result:
        if type(value) is not dict:
            return NOT_A_DICT_HINTS["not a dict"]
        if any(
            isinstance(value.get(key), list)
            and "items" in spec
            and not all(isinstance(element, dict) for element in value[key])
            for key, spec in returns.items()
        ):
            return ITEMS_HINTS["items"]
        return RANGE_HINTS["huge int"] if stage2.raised_on_huge(result, value) else RAISED
    if not reasons:  # a good value was refused: at which edge of the rule it named?
        if type(got) is not str or not isinstance(value, dict):
            return ""
        if got.startswith("shape:") and _holds_dict_subclass(value):
            return NOT_A_DICT_HINTS["dict subclass"]
        kind, _, field = got.partition(":")
        if field == "result" or field not in returns:
            return EXTRA_KEYS if set(value) - set(returns) else ""
        return HINT_OF[kind](returns, value, field, False) if kind in HINT_OF else ""
    if type(got) is str and "." in "".join(reasons) and stage2.same_leaf(got, reasons):
        return ITEMS_HINTS["path"]
    if got is not None:
        return ""
    if "shape:result" in reasons:  # a bad value was let through: whose rule?
        return NOT_A_DICT_HINTS["not a dict"]
    if all("." in reason for reason in reasons) or any(
        reason.startswith("shape:") and "items" in returns.get(reason.removeprefix("shape:"), {}) for reason in reasons
    ):
        return ITEMS_HINTS["items"]
    return stage2.hint_of_kind(HINT_OF, returns, value if isinstance(value, dict) else {}, reasons)


# ── drawing cases ────────────────────────────────────────────────────────────
# A safe key is strictly valid and away from every rule's edge: a number strictly inside its
# bounds and never 0, a float key's value a float, non-empty strs, lists and dicts, a list shorter
# than max_len, True for a bool, no "any", no items. A plant (a check's, in _PLANTS) is the spec
# of a key added for the mistake, and a draw of its bad value (None: the key is left out).


def _safe_spec(d) -> dict:
    kind = draw.pick(d, draw.KINDS)
    spec = {"type": kind}
    if kind in ("int", "float"):
        spec.update(stage2.safe_bounds(d))
    if kind == "list" and d(draw.BOOL):
        spec["max_len"] = d(st.integers(2, 4))
    if kind in ("str", "list", "dict") and draw.chance(d, 4):
        spec["allow_empty"] = d(draw.BOOL)
    return spec


def _safe_returns(d, least: int = 0, most: int = 3) -> dict:
    return {name: _safe_spec(d) for name in draw.names(d, least, most)}


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


# ── what the fixed cases share ───────────────────────────────────────────────
# In each check's, the smallest first: the first failing value is the one shown.

ROW = {"region": "seoul", "qty": 5}
JEJU = {"sku": "A-100", "region": "jeju"}


def one(returns: dict, *values) -> Case:
    return Case({"t": entry(returns=returns)}, "t", values)


def one_key(key: str, spec: dict, *items) -> Case:
    """One tool whose returns have the one key, and a value holding each item under it."""
    return one({key: spec}, *({key: item} for item in items))


def stock(*values) -> Case:
    return Case({"stock_lookup": entry(returns=LAB_RETURNS)}, "stock_lookup", values)


def eta(*values) -> Case:
    return Case({"delivery_eta": entry(returns=ETA_RETURNS)}, "delivery_eta", values)


# ── 3.1 · good values pass ───────────────────────────────────────────────────

GOOD_INCIDENTS = (
    # a dict subclass is a dict: the value, a row, a dict key (json.loads(..., object_pairs_hook=OrderedDict))
    one(
        {
            "s": {"type": "str"},
            "i": {"type": "int", "min": -5, "max": 10},
            "f": {"type": "float"},
            "b": {"type": "bool"},
            "l": {"type": "list", "max_len": 3},
            "d": {"type": "dict"},
        },
        {"s": "A-100", "i": 3, "f": 2.5, "b": True, "l": [1], "d": {"k": 1}},
        {"s": "A-100", "i": 3, "f": 2.5, "b": True, "l": [1], "d": {"$ordered": [["k", 1]]}},
    ),
    eta({**JEJU, "days": 5, "note": "extra keys are fine"}, {**JEJU, "days": 3}),
    stock(
        {"sku": "A-100", "rows": [ROW], "warehouse": "seoul-1"},
        {"$ordered": [["sku", "A-100"], ["rows", [{"$ordered": [["region", "seoul"], ["qty", 5]]}]]]},
    ),
)
EXTRA_KEYS = "Keys the spec does not mention are allowed: check what the contract names, and only that."


@CHECKLIST.check(number=1, points=4, examples=4, always=GOOD_INCIDENTS)
def accepts_good_values():
    """check_result returns None for a value that meets the returns spec, extra keys and all

    Walk the spec's keys, not the value's: tools add fields over time. A refusal here is a rule
    applied too strictly: the reason your check gave names which.
    """
    return cases()


# ── 3.2 · not a dict ─────────────────────────────────────────────────────────

NOT_A_DICT_INCIDENTS = (
    one({"sku": {"type": "str"}}, None, "in stock", 3, [{"sku": "A-100"}], {"$tuple": ["sku"]}, {"$set": [1]}),
    stock([ROW], "in stock", None),
)
NOT_A_DICT_HINTS = {
    "not a dict": "The value is not a dict (a list, a str, None): shape:result, decided before any key is read. "
    "A dict subclass, an OrderedDict, is a dict.",
    "dict subclass": "The value (or a row, or a key's value) is a dict subclass, an OrderedDict, as "
    "json.loads(..., object_pairs_hook=OrderedDict) makes: it is a dict, and a test of the exact type refuses it.",
}


def _holds_dict_subclass(value) -> bool:
    """Is value, or a value or an item of a list inside it, an instance of a dict subclass?"""
    if isinstance(value, dict):
        return type(value) is not dict or any(map(_holds_dict_subclass, value.values()))
    return isinstance(value, list) and any(map(_holds_dict_subclass, value))


@st.composite
def not_dicts(d) -> Case:
    tool = d(draw.NAMES)
    return Case(
        {tool: entry(returns=_safe_returns(d))},
        tool,
        tuple(draw.pick(d, draw.NOT_A_DICT) for _ in range(d(st.integers(1, 3)))),
    )


@CHECKLIST.check(number=2, points=2, examples=4, always=NOT_A_DICT_INCIDENTS)
def refuses_non_dicts():
    """check_result says shape:result for a value that is not a dict

    Check isinstance(value, dict) before reading any key.
    """
    return not_dicts()


# ── 3.3 · shapes ─────────────────────────────────────────────────────────────

SHAPE_INCIDENTS = (
    one({"sku": {"type": "str"}}, {}),
    one_key("n", {"type": "int"}, True, "4개", 4.0, None, [1]),
    one_key("x", {"type": "float"}, True, "1.5", None),
    one_key("total", {"type": "float", "min": 0}, 10, 3),
    one_key("s", {"type": "str"}, 5, None, True),
    one_key("b", {"type": "bool"}, 1, "true", None),
    one_key("l", {"type": "list"}, {"$tuple": [1]}, "ab", {"a": 1}),
    one_key("d", {"type": "dict"}, [1], "x", [["a", 1]]),
    one_key("v", {"type": "any"}, True, 5, "x", [1], {"$tuple": [1]}),
    eta({**JEJU, "days": "4개"}, {**JEJU, "days": True}, {"sku": "A-100", "days": 3}),
)
SHAPE_HINTS = {
    "missing": "A key of the spec that is absent is shape:<key>.",
    "bool": "bool is a subclass of int: True is not an int (nor a float), it is shape:<key>.",
    "float for int": "4.0 is a float, not an int: shape:<key>.",
    "type": 'A value of the wrong type is shape:<key>: "4개" is not an int, a tuple is not a list.',
    "int for float": "An int is a fine float: total=10 passes for a float key, as an int passes for a float arg.",
    "any": "An any key takes every type; only emptiness (empty:<key>) can fail it.",
}


def shape_hint(returns: dict, value: dict, field: str, passed: bool) -> str:
    """A missing key or a wrong type let through; an int for a float, or an any key, refused."""
    item = value.get(field)
    if passed:
        if field not in value:
            return SHAPE_HINTS["missing"]
        if type(item) is bool:
            return SHAPE_HINTS["bool"]
        float_for_int = type(item) is float and returns.get(field, {}).get("type") == "int"
        return SHAPE_HINTS["float for int" if float_for_int else "type"]
    if returns[field]["type"] == "float" and type(item) is int:
        return SHAPE_HINTS["int for float"]
    return SHAPE_HINTS["any"] if returns[field]["type"] == "any" else ""


def _plant_shape(d):
    spec = _safe_spec(d)
    wrong = draw.WRONG_RESULT[spec["type"]]
    return spec, lambda d: draw.pick(d, (None, *wrong))  # None here: the key is left out


@CHECKLIST.check(number=3, points=3, examples=4, always=SHAPE_INCIDENTS)
def refuses_wrong_shapes():
    """check_result says shape:<key> for a missing key or a value of the wrong type, and lets an int pass for a float

    Ask `key in value` before anything else about a key, then its type, testing bool before int:
    isinstance(True, int) is True.
    """
    return cases("shape")


# ── 3.4 · empty values ───────────────────────────────────────────────────────

EMPTY_INCIDENTS = (
    one_key("s", {"type": "str"}, ""),
    one(
        {"l": {"type": "list"}, "d": {"type": "dict", "allow_empty": False}},
        {"l": [], "d": {"a": 1}},
        {"l": [1], "d": {}},
    ),
    one_key("v", {"type": "any"}, "", [], {}),
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
)
EMPTY_HINTS = {
    "empty": 'An empty list, dict or str is not "no problem": empty:<key>, unless the spec says '
    "allow_empty=True (an any key too).",
    "allow_empty": "allow_empty=True lets an empty list, dict or str through.",
    "falsy": "Only a list, dict or str can be empty: 0, False and None are values, not empty ones.",
}
EMPTY = {"str": "", "list": [], "dict": {}}


def empty_hint(returns: dict, value: dict, field: str, passed: bool) -> str:
    """An empty value let through; a value with allow_empty, or a falsy non-empty one, refused."""
    if passed:
        return EMPTY_HINTS["empty"]
    if returns[field].get("allow_empty"):
        return EMPTY_HINTS["allow_empty"]
    return "" if isinstance(value.get(field), (list, dict, str)) else EMPTY_HINTS["falsy"]


def _plant_empty(d):
    spec = {"type": draw.pick(d, ("str", "list", "dict")), **({"allow_empty": False} if d(draw.BOOL) else {})}
    return spec, lambda d: EMPTY[spec["type"]]


@CHECKLIST.check(number=4, points=3, examples=4, always=EMPTY_INCIDENTS)
def refuses_empty_values():
    """check_result says empty:<key> for an empty list, dict or str (an any key's too) unless allow_empty, and only for those

    Test emptiness by kind and length (a list, dict or str of len 0), never by truth: `not value` is
    True for 0, False and None too.
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return cases("empty")


# ── 3.5 · long lists ─────────────────────────────────────────────────────────

TOO_BIG_INCIDENTS = (
    one_key("l", {"type": "list", "max_len": 1}, [1, 2], [1]),
    one_key("l", {"type": "list", "max_len": 2}, [1, 2, 3], [1, 2], [1] * 20),
    one_key("l", {"type": "list", "max_len": 0}, [1]),
    one_key("rows", {"type": "list", "max_len": 2}, [ROW] * 20),
)
TOO_BIG_HINTS = {
    "too_big": "A list longer than max_len is too_big:<key>.",
    "max_len": "max_len is inclusive: a list of exactly max_len items passes.",
}


def too_big_hint(returns: dict, value: dict, field: str, passed: bool) -> str:
    """A long list let through; a list of exactly max_len items refused."""
    if passed:
        return TOO_BIG_HINTS["too_big"]
    item = value.get(field)
    return TOO_BIG_HINTS["max_len"] if isinstance(item, list) and len(item) == returns[field].get("max_len") else ""


def _plant_too_big(d):
    spec = {"type": "list", "max_len": d(st.integers(1, 3))}
    return spec, lambda d: [d(draw.LEAF) for _ in range(spec["max_len"] + d(st.integers(1, 5)))]


@CHECKLIST.check(number=5, points=2, examples=4, always=TOO_BIG_INCIDENTS)
def refuses_long_lists():
    """check_result says too_big:<key> for a list longer than max_len, and passes exactly max_len

    Compare len(value) with max_len only where the spec has one, and with >: 20 rows where 2 were asked
    is an endpoint that ignored limit.
    """
    return cases("too_big")


# ── 3.6 · ranges ─────────────────────────────────────────────────────────────

RANGE_INCIDENTS = (
    one_key("n", {"type": "int", "min": 2}, 1, 2),
    one_key("n", {"type": "int", "max": 5}, 6, 5),
    one_key("x", {"type": "float", "min": 0.5, "max": 2.5}, 0.25, 3.0, 0.5, 2.5, draw.NAN),
    one_key("x", {"type": "float", "min": 1.5}, draw.NAN, 1.25, -draw.INF, 1.5),
    one_key("x", {"type": "float", "max": 100}, draw.NAN, draw.INF, 100.0),
    one_key("x", {"type": "float"}, draw.NAN, draw.INF),
    one_key("v", {"type": "any"}, draw.NAN),
    eta({**JEJU, "days": 72}, {**JEJU, "days": -1}, {**JEJU, "days": 14}),
    one(  # ints no float holds (float(HUGE) raises OverflowError): compared as they are
        {"days": {"type": "int", "min": 0, "max": 14}, "n": {"type": "int"}},
        {"days": 3, "n": HUGE},
        {"days": HUGE, "n": -HUGE},
        {"days": -HUGE, "n": 7},
    ),
)
RANGE_HINTS = {
    "range": "A number outside min..max is range:<key>; check each bound the spec has.",
    "bound": stage2.RANGE_HINTS["bound"],  # the same bounds as an arg's, in the same words
    "nan": stage2.RANGE_HINTS["nan"],
    "nan without bounds": "NaN is refused only by a bound: a float key with no min and no max, or an any "
    "key, lets NaN through.",
    "huge int": f"{stage2.HUGE_INT}.",
    "huge int passed": "10 ** 400 is far outside the range, yet it passed: float() and math.isnan() raise "
    "OverflowError on an int too big for a float, and an except that returns None turns that crash into a pass. "
    "Compare the int as it is, and never answer None because a check broke.",
}


def range_hint(returns: dict, value: dict, field: str, passed: bool) -> str:
    """A number outside its bounds (NaN, a huge int) let through; NaN without a bound, or a bound, refused."""
    item = value.get(field)
    if passed:
        if type(item) is float and item != item:
            return RANGE_HINTS["nan"]
        return RANGE_HINTS["huge int passed" if type(item) is int and item.bit_length() > 1024 else "range"]
    return stage2.edge_of_range(returns[field], item, RANGE_HINTS)


@CHECKLIST.check(number=6, points=2, examples=4, always=RANGE_INCIDENTS)
def refuses_out_of_range():
    """check_result says range:<key> for a number outside min..max (both inclusive), NaN too where there is a bound

    NaN fails every comparison, so test that a value lies within each bound (`not value >= min` for one
    below min), never that it lies outside; and never turn it into a float: 10 ** 400 has none.
    """
    return cases("range")


# ── 3.7 · items ──────────────────────────────────────────────────────────────

ITEM = {"region": {"type": "str"}, "qty": {"type": "int", "min": 1, "max": 90}}
GOOD_ITEM = {"region": "seoul", "qty": 5}
BAD_ITEMS = ({"region": "", "qty": 500}, {"qty": 500}, {"region": 5, "qty": 500}, 3, "seoul", None, [GOOD_ITEM])
ITEMS_INCIDENTS = (
    one(
        {"rows": {"type": "list", "items": ITEM}},
        {"rows": [GOOD_ITEM, GOOD_ITEM]},
        {"rows": [GOOD_ITEM, {"region": "", "qty": 500}]},
        {"rows": [{"qty": 500}]},
        {"rows": [GOOD_ITEM, {"region": 5, "qty": 500}]},
        {"rows": [GOOD_ITEM, 3]},
        {"rows": [None]},
    ),
    one(
        {"days": {"type": "list", "items": {"slots": {"type": "list", "items": ITEM}}}},
        {"days": [{"slots": [GOOD_ITEM]}, {"slots": [GOOD_ITEM, GOOD_ITEM]}]},
        {"days": [{"slots": [GOOD_ITEM]}, {"slots": [{"region": "", "qty": 500}]}]},
        {"days": [{"slots": [{"qty": 500}]}]},
        {"days": [{"slots": [3]}]},
    ),
    stock({"sku": "A-100", "rows": [{"region": "", "qty": -1}]}, {"sku": "A-100", "rows": [None]}),
)
ITEMS_HINTS = {  # advise gives these itself: an item's reason names no key of the spec
    "items": "Every item of a list with items meets the item specs, items of items too, at any depth; an "
    "item that is not a dict is shape:<key>.",
    "path": "Name a field inside items by its dotted path: range:rows.qty, range:days.slots.qty.",
}


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


@CHECKLIST.check(number=7, points=3, examples=4, always=ITEMS_INCIDENTS)
def checks_every_item():
    """check_result checks each item of a list against items, items of items too, naming the dotted path (range:rows.qty)

    Check an item with the code that checks a value (a function of the specs, the value and the path),
    called again for each item, the path grown by the list's name.
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return bad_items()


# ── 3.8 · never raises ───────────────────────────────────────────────────────

ODD_INCIDENTS = (
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
        {"s": "x", "l": {"$cycle": [1]}, "d": {"a": {"$cycle": []}}, "b": True, "n": 1},  # lists that hold themselves
    ),
)
UNCHECKED = (
    "A value that breaks a rule gets a reason, whatever another key holds: here a key your "
    "check could not read (its type was not the one it compared) ended it with None, and the broken key went "
    "unreported. A key's type decides before its value is compared or measured."
)
# Values no JSON tool sends, at keys with no bound and no items: a check that reads types answers them
# without raising; which reason is right is 3.3's question, not this check's.
# (A tuple is 3.3's: a tuple is not a list.)
ODD: tuple[object, ...] = (
    {"$set": [1]},
    {"$bytes": "x"},
    {"$object": 0},
    {"$intkeys": [[1, "a"]]},
    {"$set": []},
    [{"$set": []}],
    {"a": {"$object": 0}},
    [{"$bytes": ""}],
)


@st.composite
def odd_values(d) -> Case:
    tool = d(draw.NAMES)
    returns = {name: {"type": draw.pick(d, draw.KINDS)} for name in draw.names(d, 1, 3)}
    calls = []
    for _ in range(d(st.integers(1, 3))):
        value = safe_values(d, returns)
        for key in list(value):
            if d(draw.BOOL):
                value[key] = draw.pick(d, ODD)
        calls.append(value)
    return Case({tool: entry(returns=returns)}, tool, tuple(calls))


def judge_never_raises(case: Case, observation: dict) -> Mismatch | None:
    for at, (value, result) in enumerate(zip(case.calls, observation["results"], strict=True)):
        # 3.8's Touchy values all sit beside a broken rule: a reason is right, or the TypeError, never None
        if values.anywhere(value, lambda part: values.tagged(part) == "$touchy"):
            if "raised" not in result and type(result["value"]) is not str:
                return mismatch(
                    "check_result", case, at, "a reason (the value breaks a rule), or a TypeError", result, UNCHECKED
                )
        elif "raised" in result or not (result["value"] is None or type(result["value"]) is str):
            return mismatch("check_result", case, at, "None or a reason, never an exception", result, "")
    return None


@CHECKLIST.check(number=8, points=1, examples=4, **without_oracle(judge_never_raises), always=ODD_INCIDENTS)
def never_raises():
    """check_result answers None or a reason, never an exception, when a key's value is a set, bytes, an object or a dict with int keys

    A tool can send anything back: check types before you index, compare or take len().
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return odd_values()


# ── each reason's kind: its check's plant (for `cases`) and hint (for `advise`) ──

_PLANTS: dict[str, Callable] = {
    "shape": _plant_shape,
    "empty": _plant_empty,
    "too_big": _plant_too_big,
    "range": plant_range,
}
HINT_OF = {"shape": shape_hint, "empty": empty_hint, "too_big": too_big_hint, "range": range_hint}
