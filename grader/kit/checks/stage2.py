"""Stage 2 · check_args(name, args): the args checked against the contract, before the call.

A case is a table (one tool, and a decoy only where reading TOOLS[name] is the
point) and a few args dicts for that tool. Any reason naming a check that really
fails is right (oracle.arg_reasons).

One mistake costs one check. Each check owns both sides of its rule: what the
rule refuses, and the edges it lets through (2.5 refuses 0 for min 1 and accepts 1;
2.4 refuses True for an int and accepts 10 for a float; 2.3 accepts an absent
optional arg). Everything else in a check's cases is strictly valid and away from
every other rule's edges: numbers strictly inside their bounds and never 0, a
float arg given a float, every optional arg present with a truthy value, no "any"
arg and no nesting outside the checks about them. 2.7's bad nested values each
break two rules at once, so only a check that never looks inside misses them all.

Fixed cases (`INCIDENTS`, tried under every seed) hold every edge of every rule,
so a verdict never hangs on the seed; the random draws only add to them. Where a
case sits where two rules meet (a name that is no str inside a dict arg: 2.2 and
2.7; an item that breaks only its allowed list: 2.7 and 2.6), a control call of the
other rule comes with it (`Case.controls`): the call is judged only when the control
is answered right, so that a module that ignores the other rule altogether loses
that rule's check alone.

What every reasonable spelling shares is judged, not the reference's spelling,
where nothing later reads the rest (`right_reason`): a name that is no str may
follow unknown: as the student likes, so long as it names no field of the contract;
an item may be named with its position after its list's name (points.1, points[1]).
"""

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from grader.kit import draw
from grader.kit.boundary import values
from grader.kit.boundary.values import py
from grader.kit.checks.common import (
    REGION,
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
from grader.kit.oracle_access import oracle
from grader.kit.probing import Checklist, Mismatch


@dataclass(frozen=True)
class Case:
    table: dict
    tool: str
    calls: tuple[dict, ...]
    literal: bool = False  # the child interns the table's strs, as in a table written in Python
    # (judged, control) pairs of call indexes: the control is another check's rule, never judged here,
    # and the judged call counts only when the control's answer is right.
    controls: tuple = ()

    def keeps_form_of(self, original: "Case") -> bool:
        """A smaller case (grader/kit/smaller.py) of one with controls keeps every call and control in place:
        a judged call counts only beside its control."""
        return not original.controls or (len(self.calls), self.controls) == (len(original.calls), original.controls)


def request_for(case: Case) -> dict:
    req = request(2, case.table, [call("check_args", case.tool, args) for args in case.calls])
    return {**req, "literal": True} if case.literal else req


def expect(case: Case) -> list[list[str]]:
    return expect_reasons(case, "args", oracle.arg_reasons)


def compare(case: Case, expected: list[list[str]], observation: dict) -> Mismatch | None:
    """The first judged call whose answer is no right reason (nor None where nothing fails), with its hint."""
    contract = values.decode(case.table[case.tool]["args"])
    results = observation["results"]
    skipped = {control for _, control in case.controls}
    for judged, control in case.controls:
        controlled = values.decode(case.calls[control])
        if not right_reason(
            contract, controlled, first_reasons(contract, controlled, expected[control]), value_of(results[control])
        ):
            skipped.add(judged)  # the other rule is not kept: that check's loss, not this one's
    for at, (given, reasons, result) in enumerate(zip(case.calls, expected, results, strict=True)):
        args = values.decode(given)
        first = first_reasons(contract, args, reasons)
        if at not in skipped and not right_reason(contract, args, first, value_of(result)):
            real = right_reason(contract, args, reasons, value_of(result))  # a real failure, but not the first
            return Mismatch(
                f"check_args({case.tool!r}, {shown(given)})",
                one_of(first),
                got_text(result),
                UNKNOWN_FIRST if real else advise(contract, args, first, result),
            )
    return None


def shown(value: Any) -> str:
    """value as Python, a power of ten too big to read written as one (10 ** 400)."""
    return _POWER_OF_TEN.sub(lambda found: f"{found[1]}10 ** {len(found[2])}", py(value, 10_000))


_POWER_OF_TEN = re.compile(r"(?<![\w.'\"])(-?)1(0{30,})(?![\w.'\"])")  # an int, not inside a str


# ── what every reasonable spelling of a reason shares ────────────────────────

_POSITION = re.compile(r"\[(\d+)\]")


UNKNOWN_FIRST = (
    "Report names the contract does not have before anything else (unknown:<name>): a misspelt arg is missing "
    "too, and stage 6 can rename the misspelling, where it has no fix for args:missing."
)


def first_reasons(contract: dict, args: Any, reasons: list[str]) -> list[str]:
    """The reasons that may come first: a name args hold that the contract does not have, when there is one
    (stage 6 renames a misspelt name, and a misspelt arg is missing too: missing first would hide it)."""
    if type(args) is not dict:
        return reasons
    top = {f"unknown:{name}" for name in args if name not in contract}  # the oracle's spelling of each
    return [reason for reason in reasons if reason in top] or reasons


def right_reason(contract: dict, args: Any, reasons: list[str], got: Any) -> bool:
    """Is `got` a right answer? A reason that really fails, read without the positions of list items;
    or, where args hold a name that is no str, unknown:<anything> that names no field of the contract."""
    if reason_ok(got, reasons):
        return True
    if not reasons or type(got) is not str or ":" not in got:
        return False
    kind, _, field = got.partition(":")
    field = without_positions(contract, field)
    if f"{kind}:{field}" in reasons:
        return True
    return (
        kind == "unknown"
        and any(reason.startswith("unknown:") for reason in reasons)
        and holds_odd_name(contract, args)
        and field not in field_paths(contract)
    )


def without_positions(specs: dict, field: str, part: str = "args") -> str:
    """field read along the contract, with the position of each list item taken out: points.1 and
    points[1] are points, rows.1.qty is rows.qty. part: "args" (an item is ONE arg spec) or "returns"
    (an item is a dict of key specs, stage 3's)."""
    tokens = _POSITION.sub(r".\1", field).split(".")
    kept: list[str] = []
    level: Any = specs  # the specs the next token names one of, or None
    at = 0
    while at < len(tokens):
        name = tokens[at]
        if not isinstance(level, dict) or name not in level:
            kept.extend(tokens[at:])
            break
        kept.append(name)
        at += 1
        spec, level = level[name], None
        while isinstance(spec, dict) and spec.get("type") == "list" and "items" in spec:
            if at < len(tokens) and tokens[at].isdigit():
                at += 1
            if part == "returns":
                level, spec = spec["items"], None
                break
            spec = spec["items"]
        if part == "args" and isinstance(spec, dict) and spec.get("type") == "dict":
            level = spec.get("properties")
    return ".".join(kept)


def field_paths(specs: dict, prefix: str = "") -> set[str]:
    """Every field of a contract by its dotted path (an item by its list)."""
    paths = set()
    for name, spec in specs.items():
        paths.add(prefix + name)
        while spec.get("type") == "list" and "items" in spec:
            spec = spec["items"]
        if spec.get("type") == "dict" and "properties" in spec:
            paths |= field_paths(spec["properties"], f"{prefix}{name}.")
    return paths


def holds_odd_name(contract: dict, args: Any) -> bool:
    """Does a dict that check_args reads as args (args, a dict arg with properties, at any depth) hold
    a name that is no str?"""
    seen: set[int] = set()

    def in_dict(specs: dict, given: Any) -> bool:
        if not isinstance(given, dict) or id(given) in seen:
            return False
        seen.add(id(given))
        if any(type(name) is not str for name in given):
            return True
        return any(in_value(specs[name], given[name]) for name in given if name in specs)

    def in_value(spec: dict, value: Any) -> bool:
        if spec.get("type") == "dict" and "properties" in spec:
            return in_dict(spec["properties"], value)
        if spec.get("type") == "list" and "items" in spec and isinstance(value, list) and id(value) not in seen:
            seen.add(id(value))
            return any(in_value(spec["items"], item) for item in value)
        return False

    return in_dict(contract, args)


def show(case: Case) -> str:
    return show_table(case.table, ("args",))


CHECKLIST = Checklist(2, request_for, show, expect, compare)


# ── the hint for what was observed ───────────────────────────────────────────
# Chosen from the case, the expected reasons and the answer alone (no oracle), so
# the student kit's public cases give the same hint. "" keeps the check's own.

HINTS = {
    "non-str name": (
        "An arg name need not be a str: {1: 2} has the name 1, at the top or inside a dict arg, and it is "
        "unknown:1 (unknown:where.1) all the same. Your check raised building that reason: joining a str and "
        "an int with + raises TypeError. Any name must go into the reason."
    ),
    "raised": (
        "check_args answers with None or a reason, never an exception: check a value's type before you "
        "compare it, take its len() or look inside it."
    ),
    "huge int": (
        "The value is an int too big for a float (10 ** 400): turning it into a float, as math.isnan does, "
        "raises OverflowError. The rule compares it as it is: Python compares an int with any number exactly, "
        "and only a float can be NaN."
    ),
    "unknown": (
        "Look at every name in args, not only the contract's: a name the contract does not have is "
        "unknown:<name> (the model invents sku_id for sku)."
    ),
    "missing": (
        'A required arg (required is True unless the spec says "required": False) that is absent is missing:<arg>.'
    ),
    "optional": 'An absent optional arg ("required": False) is fine: only a required arg is ever missing.',
    "falsy": (
        "A present arg is never missing, even when its value is None, 0, False or an empty str: missing means "
        "the name is absent from args. A test of the value's truth counts those falsy values missing."
    ),
    "bool": (
        "bool is a subclass of int in Python (isinstance(True, int) is True), yet in the contract True is "
        "never an int or a float: a bool passes only for bool and any."
    ),
    "float for int": "2.0 is a float, not an int: an int arg takes only int values.",
    "int for float": ("An int is a fine float: 10 passes for a float arg, though isinstance(10, float) is False."),
    "any": '"any" lets every value through: None, True, NaN, a list, anything.',
    "dict subclass": (
        "The value is an OrderedDict, as json.loads(..., object_pairs_hook=OrderedDict) makes: a dict subclass, "
        "so a dict (isinstance says so), and it passes for a dict arg. A test of the exact type refuses it."
    ),
    "type": 'A value of the wrong type is type:<arg>: "2" is not a number, a tuple is not a list.',
    "nan": (
        "The value is NaN, and every comparison with NaN is False: asked whether NaN is below min, Python says "
        'no, so a test for "outside" lets it through. The rule: NaN lies within no bound, so a value passes '
        "only when it is shown to lie within the bounds."
    ),
    "nan without bounds": (
        "NaN is refused only by a bound: a float arg with no min and no max lets NaN "
        "through (range:<arg> needs a min or a max to break)."
    ),
    "bound": "Both bounds are inclusive: min <= value <= max, so min and max themselves pass.",
    "range": "A number below min or above max is range:<arg>; check both bounds, each only when the spec has it.",
    "allowed": "A value must be one of the spec's allowed list: allowed:<arg>.",
    "allowed bool": (
        "The value and an item of the allowed list are equal in Python (True == 1), but one is a bool and the "
        "other a number: bool is never an int, in an allowed list too, so the value is not allowed. The value "
        "and the allowed item must be of the same kind as well as equal."
    ),
    "path": (
        "Inside a dict arg name the field by its dotted path (type:filter.color); an item of a list arg "
        "is named by its list, at any depth (range:points)."
    ),
    "nested": (
        "Check a dict arg's properties as args are checked, and every item of a list arg (items of "
        "items too) against items, by every rule of the item spec: type, range and allowed."
    ),
}


def advise(contract: dict, args: dict, reasons: list[str], result: dict) -> str:
    """The hint for this answer, from what was expected and what came back."""
    got = value_of(result)
    if "raised" in result:
        if result["raised"].startswith("TypeError") and holds_odd_name(contract, args):
            return HINTS["non-str name"]
        if result["raised"].startswith("OverflowError") or _holds_huge_int(args):
            return HINTS["huge int"]
        return HINTS["raised"]
    nested = any("." in reason.split(":", 1)[1] for reason in reasons) or any(
        spec.get("properties") or spec.get("items") for spec in contract.values() if isinstance(spec, dict)
    )
    if not reasons:  # a good value was refused: which edge?
        if type(got) is not str or ":" not in got:
            return ""
        kind, _, field = got.partition(":")
        spec, value = contract.get(field), args.get(field, _ABSENT)
        if nested and "." in field:
            return HINTS["nested"]
        if spec is None:
            return ""
        if kind == "missing":
            return HINTS["optional"] if value is _ABSENT else HINTS["falsy"]
        if kind == "type":
            if spec["type"] == "any":
                return HINTS["any"]
            if isinstance(value, dict) and type(value) is not dict:
                return HINTS["dict subclass"]
            if spec["type"] == "float" and type(value) is int:
                return HINTS["int for float"]
        if kind == "range" and isinstance(value, (int, float)):
            if value != value:
                return HINTS["nan without bounds"]
            if value in (spec.get("min"), spec.get("max")):
                return HINTS["bound"]
        return ""
    kinds = {reason.split(":", 1)[0] for reason in reasons}
    if got is None or type(got) is not str:
        if nested:
            return HINTS["nested"]
        if len(kinds) == 1:
            (kind,) = kinds
            field = reasons[0].split(":", 1)[1]
            value = args.get(field)
            if kind == "type":
                if type(value) is bool:
                    return HINTS["bool"]
                if type(value) is float and contract[field]["type"] == "int":
                    return HINTS["float for int"]
                return HINTS["type"]
            if kind == "range" and type(value) is float and value != value:
                return HINTS["nan"]
            if kind == "unknown" and holds_odd_name(contract, args):
                return HINTS["non-str name"]
            if kind == "allowed" and _bool_beside_number(value, contract.get(field, {}).get("allowed", [])):
                return HINTS["allowed bool"]
            return HINTS.get(kind, "")
        return ""
    tail = got.partition(":")[2].split(".")[-1]
    if nested and any(reason.partition(":")[2].split(".")[-1] == tail for reason in reasons):
        return HINTS["path"]
    return ""


_ABSENT = object()


def _holds_huge_int(args: dict) -> bool:
    """Is a top-level arg an int too big for a float?"""
    return any(type(value) is int and value.bit_length() > 1024 for value in args.values())


def _bool_beside_number(value, allowed) -> bool:
    """Is the value equal to an allowed item in Python though one of the two is a bool (True == 1)?"""
    return any((type(value) is bool) != (type(item) is bool) and value == item for item in allowed)


# ── drawing cases ────────────────────────────────────────────────────────────
# A safe arg is strictly valid and away from every rule's edge: a number strictly
# inside its bounds and never 0, a float arg's value a float, allowed values from
# the list, non-empty strs, lists and dicts, True for a bool, no "any", no nesting.

SAFE_KINDS = ("str", "int", "float", "bool", "list", "dict")
WIDTH = st.integers(3, 9)
INSIDE = st.sampled_from((0.25, 0.5, 0.75))
BLATANT = {"int": "x", "float": "x", "str": 7, "bool": "yes", "list": "x", "dict": "x"}  # wrong, by no edge


def _safe_spec(d, kind: str | None = None, item: bool = False) -> dict:
    kind = kind or draw.pick(d, SAFE_KINDS)
    spec = {"type": kind}
    if kind in ("int", "float"):
        low = d(draw.LOW)
        spec.update(draw.pick(d, ({}, {"min": low, "max": low + d(WIDTH)}, {"min": low}, {"max": low})))
    elif kind == "str" and draw.chance(d, 3):
        spec["allowed"] = sorted({draw.pick(d, draw.WORDS) for _ in range(d(st.integers(1, 3)))})
    if not item and d(draw.BOOL):
        spec["required"] = d(draw.BOOL)
    return spec


def _safe_contract(d, least: int = 0, most: int = 3) -> dict:
    return {name: _safe_spec(d) for name in draw.names(d, least, most)}


# A plant: the spec of an arg added for the mistake, and its bad value (None: the arg is left out).


def _plant_missing(d):
    return {**_safe_spec(d), "required": True}, None


def _plant_type(d):
    spec = _safe_spec(d, draw.pick(d, ("int", "float", *SAFE_KINDS)))  # numbers twice: True for 1
    wrong = [value for value in draw.WRONG[spec["type"]] if value]  # a falsy value is 2.3's edge (never missing)
    return spec, lambda d: draw.pick(d, wrong)


def _plant_allowed(d):
    kind = draw.pick(d, ("str", "int"))
    if kind == "str":
        spec = {"type": "str", "allowed": sorted({draw.pick(d, draw.WORDS) for _ in range(d(st.integers(1, 3)))})}
        return spec, lambda d: draw.pick(d, ("mars", "Seoul", "seoul ", "busan-1"))
    spec = {"type": "int", "allowed": sorted({d(st.integers(1, 9)) for _ in range(d(st.integers(1, 3)))})}
    return spec, lambda d: max(spec["allowed"]) + d(st.integers(1, 3))


def _plant_blatant(d, how: str):
    """A mistake of no edge, for 2.8's mixes: a str for a number, a number for a str, a far bound."""
    if how == "missing":
        return _plant_missing(d)
    if how == "allowed":
        return {"type": "str", "allowed": ["busan", "seoul"]}, lambda d: "mars"
    if how == "range":
        return {"type": "int", "min": 1, "max": 9}, lambda d: draw.pick(d, (-100, 100))
    spec = _safe_spec(d)
    spec.pop("allowed", None)
    return spec, lambda d: BLATANT[spec["type"]]


_PLANTS: dict[str, Callable[..., tuple]] = {  # mistake: (d) -> (spec, bad value or None)
    "missing": _plant_missing,
    "type": _plant_type,
    "range": plant_range,
    "allowed": _plant_allowed,
    **{f"blatant {how}": lambda d, how=how: _plant_blatant(d, how) for how in ("type", "range", "allowed", "missing")},
}


@st.composite
def cases(d, *mistakes: str) -> Case:
    """A safe contract with an arg per mistake, and 1-3 args dicts that each carry every mistake;
    "unknown" adds an invented name to each."""
    # The args that carry the mistakes are drawn first: shrinking the rest of the case leaves them alone.
    planted = [
        (d(draw.NAMES), *_PLANTS[mistake](d), d(st.integers(0, 3))) for mistake in mistakes if mistake in _PLANTS
    ]
    contract, carried = _safe_contract(d, 0, 2), {}
    for name, spec, bad_value, position in planted:
        name = draw.fresh_name(contract, name)
        contract = draw.with_arg(contract, name, spec, position)
        carried[name] = bad_value
    calls = []
    for _ in range(d(st.integers(1, 3))):
        args = safe_values(d, {name: spec for name, spec in contract.items() if name not in carried})
        args = {name: args[name] for name in contract if name in args}  # the contract's order
        for name, bad_value in carried.items():
            if bad_value:
                args[name] = bad_value(d)
        if "unknown" in mistakes:  # the model invents a name: sku_id for sku
            items = list(args.items())
            items.insert(d(st.integers(0, len(items))), (draw.fresh_name(contract, d(draw.NAMES)), d(draw.LEAF)))
            args = dict(items)
        calls.append(args)
    tool = d(draw.NAMES)
    return Case({tool: entry(args=contract)}, tool, tuple(calls))


@st.composite
def mixed(d) -> Case:
    """Two or three blatant mistakes of different rules at once (an invented name among them, or not)."""
    rules = d(st.permutations(("type", "range", "allowed", "missing", "unknown")))[: d(st.integers(2, 3))]
    return d(cases(*(rule if rule == "unknown" else f"blatant {rule}" for rule in rules)))


@st.composite
def nested(d) -> Case:
    """A nested arg (a dict with properties, a list with items, items of items), good or with a value
    inside it that breaks two rules at once; beside safe args."""
    shape = draw.pick(d, ("dict", "list", "list of lists", "list of dicts"))
    bad = d(draw.BOOL)
    inner = {"type": "int", "min": 1, "max": 90}
    properties = {"region": REGION, "qty": inner}
    good_dict = {"region": "busan", "qty": 50}
    value: Any  # the arg's value: a dict or a list, by shape
    bad_dict = draw.pick(
        d, ({"region": "mars", "qty": "x"}, {"qty": 500, "max_qty": 3}, {"region": "seoul", "qty": "x", "q": 1})
    )
    if shape == "dict":
        spec, value = {"type": "dict", "properties": properties}, dict(bad_dict if bad else good_dict)
    elif shape == "list of dicts":
        spec = {"type": "list", "items": {"type": "dict", "properties": properties}}
        value = [good_dict] * d(st.integers(1, 2))
        if bad:
            value.insert(d(st.integers(0, len(value))), bad_dict)
    else:
        spec = {"type": "list", "items": inner}
        value = [d(st.integers(2, 89)) for _ in range(d(st.integers(1, 3)))]
        if bad:
            value[d(st.integers(0, len(value))) : 0] = ["x", 500]
        if shape == "list of lists":
            spec, value = {"type": "list", "items": spec}, [[d(st.integers(2, 89))], value]
    contract = _safe_contract(d, 0, 2)
    name = draw.fresh_name(contract, d(draw.NAMES))
    contract = draw.with_arg(contract, name, spec, d(st.integers(0, 2)))
    args = {**safe_values(d, {key: spec for key, spec in contract.items() if key != name}), name: value}
    tool = d(draw.NAMES)
    return Case({tool: entry(args=contract)}, tool, (args,))


# ── the lesson's incidents and every rule's edges, tried under every seed ────

# The lab's stock_lookup with a wider limit: every good value strictly inside (the lab's 1..2 has no inside).
STOCK_ARGS = {"sku": {"type": "str"}, "region": REGION, "limit": {"type": "int", "min": 1, "max": 20}}
GOOD = {"sku": "A-100", "region": "seoul", "limit": 5}
BUDGET_ARGS = {"amount": {"type": "float", "min": 0, "max": 100}, "rush": {"type": "bool", "required": False}}
ALL_KINDS = {
    "s": {"type": "str"},
    "i": {"type": "int", "min": -5, "max": 10},
    "f": {"type": "float"},
    "b": {"type": "bool"},
    "l": {"type": "list"},
    "d": {"type": "dict"},
}


def one(args: dict, *calls: dict, tool: str = "t") -> Case:
    """One tool with these args, and the calls."""
    return Case({tool: entry(args=args)}, tool, calls)


def intkeys(args: dict) -> dict:
    """args as JSON spells a dict with a name that is not a str."""
    return {"$intkeys": [[name, value] for name, value in args.items()]}


INT = {"n": {"type": "int"}}
FLOAT = {"x": {"type": "float"}}
NESTED_ARGS = {
    "filter": {
        "type": "dict",
        "properties": {
            "color": {"type": "str", "allowed": ["blue", "red"]},
            "size": {"type": "int", "min": 1, "max": 90},
        },
    },
    "points": {"type": "list", "items": {"type": "int", "min": 1, "max": 90}},
}
GRID = {"grid": {"type": "list", "items": {"type": "list", "items": {"type": "int", "min": 1, "max": 90}}}}
ROWS = {
    "rows": {
        "type": "list",
        "items": {"type": "dict", "properties": {"region": REGION, "qty": {"type": "int", "min": 1, "max": 90}}},
    }
}
DEEP = {
    "where": {
        "type": "dict",
        "properties": {
            "skus": {"type": "list", "items": {"type": "int", "min": 1, "max": 90}},
            "inner": {"type": "dict", "properties": {"qty": {"type": "int", "min": 1, "max": 90}}},
        },
    }
}
FILTER = {"color": "red", "size": 5}
WHERE = {"where": {"type": "dict", "properties": {"region": REGION}}}
HUGE = 10**400  # an int no float holds: float(HUGE) and math.isnan(HUGE) raise OverflowError
BIG_NUMBERS = {
    "n": {"type": "int", "min": 1, "max": 20},
    "m": {"type": "int"},
    "x": {"type": "float", "max": 100.5},
}
LISTED = {
    "sku": {"type": "str", "allowed": ["A-100", "B-200"]},
    "skus": {"type": "list", "items": {"type": "str", "allowed": ["A-100", "B-200"]}},
    "grid": {"type": "list", "items": {"type": "list", "items": {"type": "int", "allowed": [1, 2]}}},
    "where": WHERE["where"],
}
LISTED_GOOD = {"sku": "A-100", "skus": ["B-200"], "grid": [[1]], "where": {"region": "busan"}}

INCIDENTS = {
    "good": (
        Case(
            {"stock_lookup": entry(args=STOCK_ARGS), "budget": entry(args=BUDGET_ARGS)},
            "budget",
            ({"amount": 50.5, "rush": True}, {"rush": True, "amount": 12.25}),
        ),
        one(ALL_KINDS, {"s": "A-100", "i": 3, "f": 2.5, "b": True, "l": [1, "a"], "d": {"k": 1}}),
        # a dict subclass is a dict (json.loads(..., object_pairs_hook=OrderedDict)), in args as in results
        one({"d": {"type": "dict"}}, {"d": {"$ordered": [["k", 1]]}}),
        one({}, {}),
        Case({"budget": entry(args=BUDGET_ARGS), "stock_lookup": entry(args=STOCK_ARGS)}, "stock_lookup", (GOOD,)),
        one(
            {"l": {"type": "list"}, "v": {"type": "any"}}, {"l": {"$cycle": [1]}, "v": {"$cycle": ["a"]}}
        ),  # holds itself
    ),
    "unknown": (  # smallest first: the first failing call is the one shown
        one({}, {"x": 1}),
        one({}, intkeys({1: 2}), intkeys({None: "x"})),
        Case(
            {"stock_lookup": entry(args=STOCK_ARGS)},
            "stock_lookup",
            ({**GOOD, "sku_id": "A-100"}, {"max_results": 5, **GOOD}, intkeys({**GOOD, 1: 2})),
        ),
        # inside a dict arg too; the control (a str name inside it) is 2.7's: looking inside at all
        dataclasses.replace(
            one(WHERE, {"where": {"region": "busan", "max_qty": 3}}, {"where": intkeys({"region": "busan", 1: 2})}),
            controls=((1, 0),),
        ),
    ),
    "missing": (
        one({"sku": {"type": "str", "required": True}}, {}),
        Case(
            {"stock_lookup": entry(args=STOCK_ARGS)},
            "stock_lookup",
            ({"region": "seoul", "limit": 5}, {"sku": "A-100", "region": "seoul"}),
        ),
        one({"sku": {"type": "str"}, "rush": {"type": "bool", "required": False}}, {"sku": "A-100"}),
        one({"note": {"type": "str", "required": False}, "qty": {"type": "int"}}, {}),  # checking goes on after it
        one(
            {"n": {"type": "int"}, "b": {"type": "bool"}, "s": {"type": "str"}, "l": {"type": "list"}},
            {"n": 0, "b": False, "s": "", "l": []},
        ),
        one({"s": {"type": "str"}}, {"s": None}),
        one({"n": {"type": "int", "required": False}}, {"n": None}),
        one({"v": {"type": "any"}}, {"v": None}),
    ),
    "type": (
        one(INT, {"n": True}, {"n": 2.0}, {"n": "2"}, {"n": [1]}),
        one(FLOAT, {"x": True}, {"x": "1.5"}, {"x": [1.5]}),
        one({"x": {"type": "float", "min": 0, "max": 100}}, {"x": 10}, {"x": 0.5}),
        one(FLOAT, {"x": 10}, {"x": -3}),
        one({"b": {"type": "bool"}}, {"b": 1}, {"b": "true"}, {"b": 1.0}),
        one({"s": {"type": "str"}}, {"s": 1}, {"s": True}, {"s": ["a"]}),
        one({"l": {"type": "list"}}, {"l": {"$tuple": [1, 2]}}, {"l": "ab"}, {"l": {"a": 1}}),
        one({"d": {"type": "dict"}}, {"d": [1]}, {"d": "x"}, {"d": [["a", 1]]}),
        one({"v": {"type": "any"}}, {"v": True}, {"v": "x"}, {"v": [1]}, {"v": {"$tuple": [1]}}, {"v": {"a": None}}),
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
            {"x": 2.5000001},
        ),
        one({"x": {"type": "float", "min": 1.5}}, {"x": draw.NAN}, {"x": 1.25}, {"x": -draw.INF}, {"x": 1.5}),
        one({"x": {"type": "float", "max": 100}}, {"x": draw.NAN}, {"x": draw.INF}, {"x": 100.0}),
        one(FLOAT, {"x": draw.NAN}, {"x": draw.INF}),
        one({"v": {"type": "any"}}, {"v": draw.NAN}),
        # ints no float holds: compared as they are, never a crash; for the float arg x, the control
        # (an int for a float) is 2.4's
        dataclasses.replace(
            one(
                BIG_NUMBERS,
                {"n": 5, "m": HUGE, "x": 5.5},
                {"n": HUGE, "m": 7, "x": 5.5},
                {"n": -HUGE, "m": -HUGE, "x": 5.5},
                {"n": 5, "m": 7, "x": 7},
                {"n": 5, "m": 7, "x": -HUGE},
                {"n": 5, "m": 7, "x": HUGE},
            ),
            controls=((4, 3), (5, 3)),
        ),
        Case(
            {"stock_lookup": entry(args=STOCK_ARGS)},
            "stock_lookup",
            ({**GOOD, "limit": 21}, {**GOOD, "limit": -1}, {**GOOD, "limit": 1}, {**GOOD, "limit": 20}),
        ),
    ),
    "allowed": (
        one({"region": REGION}, {"region": "mars"}, {"region": "Seoul"}, {"region": "seoul "}, {"region": "jeju"}),
        one({"n": {"type": "int", "allowed": [1, 2, 4]}}, {"n": 3}, {"n": 4}),
        one({"x": {"type": "float", "allowed": [0.5, 1.5]}}, {"x": 1.0}),
        # bool is never an int, in an allowed list too: True == 1 in Python, yet True is not allowed where 1 is
        one({"v": {"type": "any", "allowed": [1, "a"]}}, {"v": True}, {"v": 1}, {"v": "a"}),
        one({"v": {"type": "any", "allowed": [True]}}, {"v": 1}, {"v": 1.0}, {"v": True}),
        Case({"stock_lookup": entry(args=STOCK_ARGS)}, "stock_lookup", ({**GOOD, "region": "mars"},)),
    ),
    "nested": (
        one(NESTED_ARGS, {"filter": FILTER, "points": [5, 50]}, tool="search"),
        one(
            NESTED_ARGS,
            {"filter": {"color": "green", "size": "x"}, "points": [5]},
            {"filter": {"colour": "red", "size": 500}, "points": [5]},
            {"filter": FILTER, "points": [5, "x", 500]},
            tool="search",
        ),
        # the same with its type names interned, as in the notebook's literal TOOLS: `kind is not "list"`
        # checks no item there (json.loads' strs, in every other case, catch `kind is "list"`)
        dataclasses.replace(
            one(
                NESTED_ARGS,
                {"filter": {"color": "green", "size": "x"}, "points": [5]},
                {"filter": FILTER, "points": [5, "x", 500]},
                tool="search",
            ),
            literal=True,
        ),
        one(GRID, {"grid": [[5, 6], [50]]}, {"grid": [[5], ["x", 500]]}),
        one(
            ROWS,
            {"rows": [{"region": "busan", "qty": 5}]},
            {"rows": [{"region": "busan", "qty": 5}, {"region": "mars", "qty": "x"}]},
        ),
        one(
            DEEP,
            {"where": {"skus": [5], "inner": {"qty": 5}}},
            {"where": {"skus": ["x", 500], "inner": {"qty": 5}}},
            {"where": {"skus": [5], "inner": {"qty": "x", "extra": 1}}},
        ),
        # items that break their allowed list alone, at every depth; the control (a top-level allowed
        # arg) is 2.6's: a module that checks allowed nowhere loses 2.6, not this check too
        dataclasses.replace(
            one(
                LISTED,
                {**LISTED_GOOD, "sku": "Z-999"},
                {**LISTED_GOOD, "skus": ["A-100", "Z-999"]},
                {**LISTED_GOOD, "grid": [[1], [2, 3]]},
                {**LISTED_GOOD, "where": {"region": "mars"}},
                LISTED_GOOD,
            ),
            controls=((1, 0), (2, 0), (3, 0)),
        ),
    ),
    "mixed": (
        Case(
            {"stock_lookup": entry(args=STOCK_ARGS)},
            "stock_lookup",
            ({"sku_id": "A-100", "region": "mars", "limit": "x"}, {"region": "mars", "limit": 500}),
        ),
    ),
}


# ── the checks ───────────────────────────────────────────────────────────────


@CHECKLIST.check(number=1, points=3, examples=4, always=INCIDENTS["good"])
def accepts_good_args():
    """check_args returns None for args that meet the contract, reading TOOLS[name]

    Read the contract of the tool named, TOOLS[name]["args"], when check_args is called; args that
    meet it give None.
    """
    return cases()


@CHECKLIST.check(number=2, points=3, examples=4, always=INCIDENTS["unknown"])
def refuses_unknown_names():
    """check_args refuses a name the contract does not have, even one that is not a str: unknown:<arg>

    Look at every name in args, not only the contract's: a name the contract does not have is
    unknown:<name> (the model invents sku_id for sku).
    """
    return cases("unknown")


@CHECKLIST.check(number=3, points=2, examples=4, always=INCIDENTS["missing"])
def refuses_missing_args():
    """check_args refuses an absent required arg (missing:<arg>); an absent optional arg, or a present None, 0, False or "", is not missing

    A required arg (required is True unless the spec says False) that is absent is missing:<arg>; an
    absent optional arg is fine, and a present value is never missing: None is a value (a type error
    for a str, fine for any), and so are 0, False and "".
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return cases("missing")


@CHECKLIST.check(number=4, points=4, examples=4, always=INCIDENTS["type"])
def refuses_wrong_types():
    """check_args refuses a value of the wrong type (bool is never an int or a float) and lets an int pass for a float: type:<arg>

    bool is a subclass of int in Python: isinstance(True, int) is True, so test for bool first. 2.0 is
    not an int, "2" is not a number; an int is a fine float, and "any" lets every value through.
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return cases("type")


@CHECKLIST.check(number=5, points=3, examples=4, always=INCIDENTS["range"])
def refuses_out_of_range():
    """check_args refuses a number outside min..max (both inclusive), NaN too where there is a bound: range:<arg>

    Every comparison with NaN is False, so `value < min` lets NaN through: write `not value >= min`.
    Both bounds are inclusive, and an int too big for a float (10 ** 400) is compared as it is.
    """
    return cases("range")


@CHECKLIST.check(number=6, points=2, examples=4, always=INCIDENTS["allowed"])
def refuses_values_not_allowed():
    """check_args refuses a value not in allowed: allowed:<arg>

    A value must be one of the spec's allowed list: allowed:<arg>.
    """
    return cases("allowed")


@CHECKLIST.check(number=7, points=2, examples=4, always=INCIDENTS["nested"])
def checks_inside_nested_args():
    """check_args checks inside dict args (properties) and list args (items, items of items), naming the field by its dotted path

    Check a dict arg's properties as args are checked, and every item of a list arg against items, by
    every rule of the item spec, allowed too; name the field by its dotted path (type:filter.color), an
    item by its list (range:points).
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return nested()


@CHECKLIST.check(number=8, points=1, examples=4, always=INCIDENTS["mixed"])
def names_a_real_failure():
    """check_args names a check that really fails when several do

    With several mistakes, report any one that really fails; never None.
    """
    return mixed()
