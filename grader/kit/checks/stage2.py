"""Stage 2 · check_args(name, args): the args checked against the contract, before the call.

A case is a table (the probed tool, sometimes beside a decoy) and a few args
dicts for that tool. Each check draws args that all carry its kind of mistake,
on an arg added to a random contract for the purpose. Any reason naming a
check that really fails is right (oracle.arg_reasons).
"""

from dataclasses import dataclass

from hypothesis import strategies as st

from grader.kit import draw, values
from grader.kit.checks.common import (GOOD_ARGS, SEED_ARGS, call, entry, got_text,
                                   one_of, py, reason_ok, request, show_table, value_of)
from grader.kit.probing import Mismatch, Stage
from grader.kit.trusted import oracle


@dataclass(frozen=True)
class Case:
    table: dict
    tool: str
    calls: tuple[dict, ...]


def probe(case: Case) -> dict:
    return request(2, case.table, [call("check_args", case.tool, args) for args in case.calls])


def expect(case: Case) -> list[list[str]]:
    """Per call, every reason that really fails (any one is right)."""
    contract = values.decode(case.table[case.tool]["args"])
    return [sorted(oracle.arg_reasons(contract, values.decode(args))) for args in case.calls]


def compare(case: Case, expected: list[list[str]], observation: dict) -> Mismatch | None:
    for args, reasons, result in zip(case.calls, expected, observation["results"]):
        if not reason_ok(value_of(result), reasons):
            return Mismatch(f"check_args({case.tool!r}, {py(args)})", one_of(reasons), got_text(result))
    return None


def show(case: Case) -> str:
    return show_table(case.table, ("args",))


STAGE = Stage(2, probe, show, expect, compare)


# ── drawing cases ────────────────────────────────────────────────────────────
# A plant draws the spec of an arg that carries a mistake, and how to draw a bad
# value for it (None: the arg is left out).

def _plant_type(d):
    spec = draw.arg_spec(d, kind=draw.pick(d, ("int", "float") + draw.KINDS))   # numbers twice: True for 1
    return spec, lambda d: draw.pick(d, draw.WRONG[spec["type"]])


def _plant_range(d):
    kind = draw.pick(d, ("int", "float"))
    spec = {"type": kind, **draw.bounds(d, kind, draw.pick(d, ("both", "min", "max")))}
    return spec, lambda d: draw.outside(d, spec)


def _plant_allowed(d):
    kind = draw.pick(d, ("str", "int"))
    spec = {"type": kind, "allowed": draw.allowed(d, kind, {})}
    if kind == "str":
        return spec, lambda d: draw.pick(d, ("mars", "Seoul", "", "seoul "))
    return spec, lambda d: max(spec["allowed"]) + d(st.integers(1, 3))


def _plant_missing(d):
    return {**draw.arg_spec(d), "required": True}, None


def _plant_nested(d):
    """A dict arg with a mistake in one of its keys, or a list arg with a mistake in one item."""
    inner = draw.pick(d, ("type", "range", "allowed", "missing", "unknown"))
    if inner in ("missing", "unknown") or draw.pick(d, ("dict", "list")) == "dict":
        properties = draw.contract(d, 2, depth=1)
        if inner == "unknown":
            invented = draw.fresh_name(properties, "sku_id")
            return ({"type": "dict", "properties": properties},
                    lambda d: {**draw.valid_args(d, properties), invented: d(draw.LEAF)})
        key, (spec, bad) = draw.fresh_name(properties, d(draw.NAMES)), _PLANTS[inner](d)
        properties = draw.with_arg(properties, key, spec, d(st.integers(0, 2)))
        rest = {name: spec for name, spec in properties.items() if name != key}
        return ({"type": "dict", "properties": properties},
                lambda d: {**draw.valid_args(d, rest), **({key: bad(d)} if bad else {})})
    spec, bad = _PLANTS[inner](d)
    spec.pop("required", None)

    def items(d):
        good = [draw.arg_value(d, spec) for _ in range(d(st.integers(0, 2)))]
        good.insert(d(st.integers(0, len(good))), bad(d))
        return good
    return {"type": "list", "items": spec}, items


_PLANTS = {"type": _plant_type, "range": _plant_range, "allowed": _plant_allowed, "missing": _plant_missing,
           "nested": _plant_nested}


@st.composite
def cases(d, *mistakes: str) -> Case:
    """A contract with an arg per mistake, and 1-4 args dicts that each carry every mistake."""
    # The args that carry the mistakes are drawn first: shrinking the rest of the case leaves them alone.
    planted = [(d(draw.NAMES), *_PLANTS[mistake](d), d(st.integers(0, 3)))
               for mistake in mistakes if mistake in _PLANTS]
    contract, carried = draw.contract(d), {}
    for name, spec, bad_value, position in planted:
        name = draw.fresh_name(contract, name)
        contract = draw.with_arg(contract, name, spec, position)
        carried[name] = bad_value
    calls = []
    for _ in range(d(st.integers(1, 4))):
        args = draw.valid_args(d, contract)
        for name, bad_value in carried.items():
            args.pop(name, None)
            if bad_value:
                args[name] = bad_value(d)
        if "unknown" in mistakes:  # the model invents a name: sku_id for sku
            items = list(args.items())
            items.insert(d(st.integers(0, len(items))), (draw.fresh_name(contract, d(draw.NAMES)), d(draw.LEAF)))
            args = dict(items)
        calls.append(args)
    tool = d(draw.NAMES)
    table = {tool: entry(args=contract)}
    if d(draw.BOOL):  # a decoy, first or last: check_args must read TOOLS[name]
        decoy = {draw.fresh_name(table, d(draw.NAMES)): entry(args=draw.contract(d))}
        table = {**decoy, **table} if d(draw.BOOL) else {**table, **decoy}
    return Case(table, tool, tuple(calls))


# ── the lesson's incidents, tried under every seed ───────────────────────────

NESTED_ARGS = {"filter": {"type": "dict", "properties": {"color": {"type": "str", "allowed": ["blue", "red"]}}},
               "points": {"type": "list", "items": {"type": "int", "min": 0}, "required": False}}
BUDGET_ARGS = {"amount": {"type": "float", "min": 0, "max": 100}, "rush": {"type": "bool", "required": False}}


def stock(*calls: dict) -> Case:
    return Case({"stock_lookup": entry(args=SEED_ARGS)}, "stock_lookup", calls)


def budget(*calls: dict) -> Case:
    return Case({"budget": entry(args=BUDGET_ARGS)}, "budget", calls)


def search(*calls: dict) -> Case:
    return Case({"search": entry(args=NESTED_ARGS)}, "search", calls)


INCIDENTS = {
    "good": (stock(GOOD_ARGS, {**GOOD_ARGS, "limit": 1}), budget({"amount": 100}, {"amount": 0.5, "rush": False})),
    "unknown": (stock({**GOOD_ARGS, "sku_id": "A-100"}),),
    "missing": (stock({"region": "seoul", "limit": 1}),),
    "type": (stock({**GOOD_ARGS, "limit": True}, {**GOOD_ARGS, "limit": "2"}, {**GOOD_ARGS, "limit": 2.0}),
             budget({"amount": False})),
    "range": (stock({**GOOD_ARGS, "limit": 3}, {**GOOD_ARGS, "limit": 0}),
              budget({"amount": draw.NAN}, {"amount": 100.5})),
    "allowed": (stock({**GOOD_ARGS, "region": "mars"}),),
    "nested": (search({"filter": {"color": "green"}}, {"filter": {"color": "red"}, "points": [1, -1]},
                      {"filter": {"colour": "red"}}),),
    "mixed": (stock({"sku_id": "A-100", "region": "mars", "limit": True}),),
}


# ── the checks ───────────────────────────────────────────────────────────────

@STAGE.check(number=1, points=3, examples=20, always=INCIDENTS["good"])
def accepts_good_args():
    """check_args returns None for args that meet the contract (bounds included, optional args left out, any)

    Bounds are inclusive (min <= value <= max), an int passes for a float, and an optional arg may be
    left out.
    """
    return cases()


@STAGE.check(number=2, points=3, always=INCIDENTS["unknown"])
def refuses_unknown_names():
    """check_args refuses a name the contract does not have: unknown:<arg>

    Look at every name in args, not only the contract's: a name the contract does not have is
    unknown:<name> (the model invents sku_id for sku).
    """
    return cases("unknown")


@STAGE.check(number=3, points=2, always=INCIDENTS["missing"])
def refuses_missing_args():
    """check_args refuses a missing required arg: missing:<arg>

    A required arg (required is True unless the spec says False) that is absent is missing:<arg>; an
    absent optional arg is fine.
    """
    return cases("missing")


@STAGE.check(number=4, points=4, always=INCIDENTS["type"])
def refuses_wrong_types():
    """check_args refuses a value of the wrong type, and bool is never an int or a float: type:<arg>

    bool is a subclass of int in Python: isinstance(True, int) is True, so test for bool first. 2.0 is
    not an int, "2" is not a number.
    """
    return cases("type")


@STAGE.check(number=5, points=3, always=INCIDENTS["range"])
def refuses_out_of_range():
    """check_args refuses a number outside min..max, NaN too: range:<arg>

    Every comparison with NaN is False, so `value < min` lets NaN through: write `not value >= min`.
    Both bounds are inclusive.
    """
    return cases("range")


@STAGE.check(number=6, points=2, always=INCIDENTS["allowed"])
def refuses_values_not_allowed():
    """check_args refuses a value not in allowed: allowed:<arg>

    A value must be one of the spec's allowed list: allowed:<arg>.
    """
    return cases("allowed")


@STAGE.check(number=7, points=2, always=INCIDENTS["nested"])
def checks_inside_nested_args():
    """check_args checks inside dict args (properties) and list args (items), naming the field by its dotted path

    Check a dict arg's properties as args are checked, and every item of a list arg against items; name
    the field by its dotted path (type:filter.color), an item by its list (range:points).
    """
    return cases("nested")


@STAGE.check(number=8, points=1, always=INCIDENTS["mixed"])
def names_a_real_failure():
    """check_args names a check that really fails when several do

    With several mistakes, report any one that really fails; never None.
    """
    return st.sampled_from([("unknown", "type"), ("missing", "range"), ("type", "allowed", "nested"),
                            ("unknown", "missing", "allowed")]).flatmap(lambda mix: cases(*mix))
