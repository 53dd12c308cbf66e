"""Stage 3 · check_result(name, value): what came back, checked against the returns spec.

A case is a table (the probed tool, a returns spec with one key added for the
check's mistake) and a few values that all carry that mistake. Any reason that
really fails is right (oracle.result_reasons); the spec fixes no order.
"""

from dataclasses import dataclass

from hypothesis import strategies as st

from grader.kit import draw, values
from grader.kit.checks.common import (ETA_RETURNS, SEED_RETURNS, call, entry, got_text,
                                   one_of, py, reason_ok, request, show_table, value_of)
from grader.kit.probing import Mismatch, Stage, without_oracle
from grader.kit.trusted import oracle


@dataclass(frozen=True)
class Case:
    table: dict
    tool: str
    calls: tuple


def probe(case: Case) -> dict:
    return request(3, case.table, [call("check_result", case.tool, value) for value in case.calls])


def expect(case: Case) -> list[list[str]]:
    """Per value, every reason that really fails (any one is right)."""
    spec = values.decode(case.table[case.tool]["returns"])
    return [sorted(oracle.result_reasons(spec, values.decode(value))) for value in case.calls]


def compare(case: Case, expected: list[list[str]], observation: dict) -> Mismatch | None:
    for value, reasons, result in zip(case.calls, expected, observation["results"]):
        if not reason_ok(value_of(result), reasons):
            return _mismatch(case, value, one_of(reasons), result)
    return None


def judge_never_raises(case: Case, observation: dict) -> Mismatch | None:
    for value, result in zip(case.calls, observation["results"]):
        if "raised" in result or not (result["value"] is None or type(result["value"]) is str):
            return _mismatch(case, value, "None or a reason, never an exception", result)
    return None


def _mismatch(case: Case, value, expected: str, result: dict) -> Mismatch:
    return Mismatch(f"check_result({case.tool!r}, {py(value)})", expected, got_text(result))


def show(case: Case) -> str:
    return show_table(case.table, ("returns",))


STAGE = Stage(3, probe, show, expect, compare)


# ── drawing cases ────────────────────────────────────────────────────────────

def _sized_spec(d):
    kind = draw.pick(d, ("str", "list", "dict"))
    if kind == "list" and d(draw.BOOL):
        return {"type": kind, "items": draw.returns(d, 1, least=1, most=2)}
    return {"type": kind}


def _number_spec(d):
    kind = draw.pick(d, ("int", "float"))
    return {"type": kind, **draw.bounds(d, kind, draw.pick(d, ("both", "min", "max")))}


def _long_list_spec(d):
    spec = {"type": "list", "max_len": d(st.integers(0, 2))}
    if d(draw.BOOL):
        spec["items"] = draw.returns(d, 1, least=1, most=2)
    return spec


def _items_spec(d):
    return {"type": "list", "items": draw.returns(d, 1, least=1, most=3)}


def _missing_or_wrong(d, spec):
    return draw.pick(d, (None,) + draw.WRONG_RESULT[spec["type"]])   # None here: the key is left out


def _too_long(d, spec):
    good = draw.result_value(d, {**spec, "max_len": 3, "allow_empty": True})
    filler = draw.result_dict(d, spec["items"]) if "items" in spec else 1
    return good + [filler] * (spec["max_len"] + 1 - len(good))


def _bad_item(d, spec):
    """A list whose items meet the spec but one: a key missing, wrong, empty or out of range, or no dict."""
    items = [draw.result_dict(d, spec["items"]) for _ in range(d(st.integers(1, 3)))]
    at = d(st.integers(0, len(items) - 1))
    key = draw.pick(d, list(spec["items"]))
    inner = spec["items"][key]
    how = draw.pick(d, ("wrong", "no dict", "empty", "range"))
    if how == "no dict":
        items[at] = draw.pick(d, (None, "qty", 3, [1]))
    elif how == "empty" and inner["type"] in ("str", "list", "dict") and not inner.get("allow_empty", False):
        items[at][key] = {"str": "", "list": [], "dict": {}}[inner["type"]]
    elif how == "range" and ("min" in inner or "max" in inner):
        items[at][key] = draw.outside(d, inner)
    else:
        bad = _missing_or_wrong(d, inner)
        if bad is None:
            del items[at][key]
        else:
            items[at][key] = bad
    return items


_EMPTY = {"str": "", "list": [], "dict": {}}

# mistake -> (the spec of the key that carries it, its bad value; None: the key is left out)
_MISTAKES = {
    "shape": (lambda d: draw.return_spec(d, 1), _missing_or_wrong),
    "empty": (lambda d: {**_sized_spec(d), **({"allow_empty": False} if d(draw.BOOL) else {})},
              lambda d, spec: _EMPTY[spec["type"]]),
    "too_big": (_long_list_spec, _too_long),
    "range": (_number_spec, draw.outside),
    "items": (_items_spec, _bad_item),
}


@st.composite
def cases(d, mistake: str | None = None) -> Case:
    """A returns spec with a key for the mistake, and 1-4 values that carry it (or all good)."""
    if mistake:  # drawn first: shrinking the rest of the case leaves it alone
        key, (spec, bad_value) = d(draw.NAMES), (_MISTAKES[mistake][0](d), _MISTAKES[mistake][1])
    returns = draw.returns(d)
    if mistake:
        key = draw.fresh_name(returns, key)
        returns = draw.with_arg(returns, key, spec, d(st.integers(0, 3)))
    calls = []
    for _ in range(d(st.integers(1, 4))):
        value = draw.result_dict(d, returns)
        if mistake:
            bad = bad_value(d, spec)
            value.pop(key)
            if bad is not None:
                value[key] = bad
        calls.append(value)
    tool = d(draw.NAMES)
    return Case({tool: entry(returns=returns)}, tool, tuple(calls))


@st.composite
def not_dicts(d) -> Case:
    tool = d(draw.NAMES)
    return Case({tool: entry(returns=draw.returns(d))}, tool,
                tuple(draw.pick(d, draw.NOT_A_DICT) for _ in range(d(st.integers(1, 3)))))


_ODD = ({"$set": [1]}, {"$bytes": "x"}, {"$object": 0}, {"$tuple": [1]}, {"$intkeys": [[1, "a"]]},
        None, [None], "x", draw.NAN, [[1]], [{"$set": []}], {"a": {"$object": 0}}, [{"$tuple": []}])


@st.composite
def odd_values(d) -> Case:
    """Values no tool should send: odd objects at odd places, inside good-looking dicts."""
    tool, returns = d(draw.NAMES), draw.returns(d, least=1)
    calls = []
    for _ in range(d(st.integers(1, 4))):
        value = draw.result_dict(d, returns)
        for key in list(value):
            if d(draw.BOOL):
                value[key] = draw.pick(d, _ODD)
        calls.append(value if d(st.integers(0, 5)) else draw.pick(d, _ODD))
    return Case({tool: entry(returns=returns)}, tool, tuple(calls))


# ── the lesson's incidents, tried under every seed ───────────────────────────

ROW = {"region": "seoul", "qty": 5}
JEJU = {"sku": "A-100", "region": "jeju"}


def stock(*values) -> Case:
    return Case({"stock_lookup": entry(returns=SEED_RETURNS)}, "stock_lookup", values)


def eta(*values) -> Case:
    return Case({"delivery_eta": entry(returns=ETA_RETURNS)}, "delivery_eta", values)


INCIDENTS = {
    "good": (stock({"sku": "A-100", "rows": [ROW, {"region": "busan", "qty": 0}]}, {"sku": "B", "rows": [ROW]}),
             eta({"sku": "A-100", "region": "jeju", "days": 14, "note": "extra keys are fine"})),
    "not a dict": (stock([ROW], "in stock", None),),
    "shape": (stock({"sku": "A-100"}, {"sku": "A-100", "rows": {"region": "seoul"}}),
              eta({**JEJU, "days": "4개"}, {**JEJU, "days": True})),
    "empty": (stock({"sku": "Z-999", "rows": []}, {"sku": "", "rows": [ROW]}),),
    "too_big": (stock({"sku": "D-400", "rows": [ROW] * 20}),),
    "range": (eta({**JEJU, "days": 72}, {**JEJU, "days": draw.NAN}),),
    "items": (stock({"sku": "A-100", "rows": [ROW, {"region": "seoul", "qty": -1}]},
                    {"sku": "A-100", "rows": [{"region": "seoul", "qty": "4개"}]},
                    {"sku": "A-100", "rows": [ROW, None]}),),
    "odd": (stock({"sku": "A-100", "rows": {"$set": [1]}}, {"$object": 0}, {"sku": {"$tuple": []}, "rows": [[1]]}),),
}


# ── the checks ───────────────────────────────────────────────────────────────

@STAGE.check(number=1, points=4, examples=20, always=INCIDENTS["good"])
def accepts_good_values():
    """check_result returns None for a value that meets the returns spec

    Extra keys are allowed; bounds are inclusive; allow_empty=True lets an empty value through; every
    item of a list is checked against items.
    """
    return cases()


@STAGE.check(number=2, points=2, examples=10, always=INCIDENTS["not a dict"])
def refuses_non_dicts():
    """check_result says shape:result for a value that is not a dict

    Check isinstance(value, dict) before reading any key.
    """
    return not_dicts()


@STAGE.check(number=3, points=3, always=INCIDENTS["shape"])
def refuses_wrong_shapes():
    """check_result says shape:<key> for a missing key or a value of the wrong type

    A missing key or a wrong type is shape:<key>: "4개" is not an int, 4.0 is not an int, and True is not
    an int (bool is a subclass of int).
    """
    return cases("shape")


@STAGE.check(number=4, points=3, always=INCIDENTS["empty"])
def refuses_empty_values():
    """check_result says empty:<key> for an empty list, dict or str unless allow_empty

    An empty list, dict or str is not "no problem": empty:<key>, unless the spec says allow_empty=True.
    """
    return cases("empty")


@STAGE.check(number=5, points=2, always=INCIDENTS["too_big"])
def refuses_long_lists():
    """check_result says too_big:<key> for a list longer than max_len

    A list longer than max_len is too_big:<key> (20 rows where 2 were asked).
    """
    return cases("too_big")


@STAGE.check(number=6, points=2, always=INCIDENTS["range"])
def refuses_out_of_range():
    """check_result says range:<key> for a number outside min..max, NaN too

    A number outside min..max is range:<key>; NaN too (every comparison with NaN is False, so write `not
    value >= min`).
    """
    return cases("range")


@STAGE.check(number=7, points=3, always=INCIDENTS["items"])
def checks_every_item():
    """check_result checks each item of a list against items, naming the dotted path (range:rows.qty)

    Check every item of the list against items, and name the field by its dotted path: range:rows.qty,
    shape:rows.qty.
    """
    return cases("items")


@STAGE.check(number=8, points=1, **without_oracle(judge_never_raises), always=INCIDENTS["odd"])
def never_raises():
    """check_result never raises, whatever the value

    A tool can send anything back: check types before you index, compare or take len().
    """
    return odd_values()
