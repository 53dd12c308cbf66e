"""Stage 2 · check_args(name, args): the args checked against the contract, before the call.

A case is a table (one tool, and a decoy only where reading TOOLS[name] is the point) and a few args dicts
for that tool; any reason naming a check that really fails is right (oracle.arg_reasons). One mistake costs
one check: a check's cases hold both sides of its rule (what it refuses, and the edges it lets through) and
are otherwise strictly valid and away from every other rule's edges. Its fixed cases, tried under every
seed, hold every edge of its rule, so a verdict never hangs on the seed; the draws only add.

Stage 3 judges a result by the mirror-image rules with this module's shared parts. First what the whole
stage shares; then a section a check: its fixed cases, the draw of its other cases, its hints, the check.
"""

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
from grader.kit.pasteable import Setting
from grader.kit.probing import Checklist, Mismatch, exception_name

# ── the stage's case, request, judge and show ───────────────────────────────


@dataclass(frozen=True)
class Case:
    table: dict
    tool: str
    calls: tuple[dict, ...]
    literal: bool = False  # the child interns the table's strs, as in a table written in Python
    # (judged, control) pairs of call indexes, where a case sits where two rules meet: the control is the other
    # check's rule, never judged here, and the judged call counts only when the control's answer is right, so
    # that a module that ignores the other rule altogether loses that rule's check alone.
    controls: tuple = ()

    def keeps_form_of(self, original: "Case") -> bool:
        """A smaller case (grader/kit/smaller.py) of one with controls keeps every call and control in place."""
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
    calls = [values.decode(given) for given in case.calls]
    first = [first_reasons(contract, args, reasons) for args, reasons in zip(calls, expected, strict=True)]
    right = [
        right_reason(contract, args, reasons, value_of(result))
        for args, reasons, result in zip(calls, first, results, strict=True)
    ]
    skipped = {control for _, control in case.controls}
    skipped |= {judged for judged, control in case.controls if not right[control]}  # the other rule's loss
    for at, result in enumerate(results):
        if at not in skipped and not right[at]:
            real = right_reason(contract, calls[at], expected[at], value_of(result))  # a real failure, not the first
            hint = UNKNOWN_FIRST if real else advise(contract, calls[at], first[at], result)
            return mismatch("check_args", case, at, one_of(first[at]), result, hint)
    return None


def mismatch(fn: str, case: Any, at: int, expected: str, result: dict, hint: str) -> Mismatch:
    """The wrong answer to the case's call `at` (stage 3's too), its value written as Python a student pastes."""
    return Mismatch(
        f"{fn}({case.tool!r}, {py(case.calls[at], 10_000, runnable=True)})",
        expected,
        got_text(result),
        hint,
        exception=exception_name(result),
        at=at,
    )


def show(case: Case) -> Setting:
    return show_table(case.table, ("args",))


CHECKLIST = Checklist(2, request_for, show, expect, compare)


# ── what every reasonable spelling of a reason shares ────────────────────────
# It is judged, not the reference's spelling, where nothing later reads the rest: an item may be named
# with its position after its list's name (points.1, points[1]); a name that is no str may follow unknown:
# as the student likes, so long as it names no field of the contract.

_POSITION = re.compile(r"\[(\d+)\]")


def first_reasons(contract: dict, args: Any, reasons: list[str]) -> list[str]:
    """The reasons that may come first: a name args hold that the contract does not have, when there is one
    (stage 6 renames a misspelt name, and a misspelt arg is missing too: missing first would hide it)."""
    if type(args) is not dict:
        return reasons
    top = {f"unknown:{name}" for name in args if name not in contract}  # the oracle's spelling of each
    return [reason for reason in reasons if reason in top] or reasons


def reads_right(specs: dict, reasons: list[str], got: Any, part: str = "args") -> bool:
    """Is `got` a reason that really fails (None where none does), read without the positions of list items?
    part: as for without_positions (stage 3's right_reason is this one)."""
    if reason_ok(got, reasons):
        return True
    if not reasons or type(got) is not str or ":" not in got:
        return False
    kind, _, field = got.partition(":")
    return f"{kind}:{without_positions(specs, field, part)}" in reasons


def right_reason(contract: dict, args: Any, reasons: list[str], got: Any) -> bool:
    """Is `got` a right answer? A reason that really fails, read without the positions of list items;
    or, where args hold a name that is no str, unknown:<anything> that names no field of the contract."""
    return reads_right(contract, reasons, got) or (
        type(got) is str
        and got.startswith("unknown:")
        and any(reason.startswith("unknown:") for reason in reasons)
        and holds_odd_name(contract, args)
        and without_positions(contract, got.removeprefix("unknown:")) not in field_paths(contract)
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


# ── the hint for what was observed ───────────────────────────────────────────
# Chosen from the case, the expected reasons and the answer alone (no oracle), so the student kit's public
# cases give the same hint; "" keeps the check's own. `advise` tells what went wrong (a raise, a good value
# refused, a bad one let through, a reason naming the wrong field), then the check of the reason at stake
# picks: its `*_hint(specs, value, field, passed)` (stage 3's alike).

RAISED = (
    "check_args answers with None or a reason, never an exception: check a value's type before you "
    "compare it, take its len() or look inside it."
)


def advise(contract: dict, args: dict, reasons: list[str], result: dict) -> str:
    """The hint for this answer, from what was expected and what came back."""
    got = value_of(result)
    if "raised" in result:
        if result["raised"].startswith("TypeError") and holds_odd_name(contract, args):
            return UNKNOWN_HINTS["non-str name"]
        return RANGE_HINTS["huge int"] if raised_on_huge(result, args) else RAISED
    nested = any("." in reason.split(":", 1)[1] for reason in reasons) or any(
        spec.get("properties") or spec.get("items") for spec in contract.values() if isinstance(spec, dict)
    )
    if not reasons:  # a good value was refused: at which edge of the rule it named?
        if type(got) is not str or ":" not in got:
            return ""
        kind, _, field = got.partition(":")
        if nested and "." in field:
            return NESTED_HINTS["nested"]
        if field not in contract or kind not in HINT_OF:
            return ""
        return HINT_OF[kind](contract, args, field, False)
    if got is None or type(got) is not str:  # a bad value passed
        return NESTED_HINTS["nested"] if nested else hint_of_kind(HINT_OF, contract, args, reasons)
    return NESTED_HINTS["path"] if nested and same_leaf(got, reasons) else ""


def raised_on_huge(result: dict, value: dict) -> bool:
    """Did the call raise OverflowError, or beside an int no float holds (stage 3's too)?"""
    return result["raised"].startswith("OverflowError") or any(
        type(item) is int and item.bit_length() > 1024 for item in value.values()
    )


def hint_of_kind(hints: dict[str, Callable], specs: dict, value: Any, reasons: list[str]) -> str:
    """For a bad value let through (stage 3's too): the hint of its reasons' kind, "" where they have several."""
    kinds = {reason.split(":", 1)[0] for reason in reasons}
    if len(kinds) != 1 or not kinds <= set(hints):
        return ""
    return hints[kinds.pop()](specs, value, reasons[0].split(":", 1)[1], True)


def same_leaf(got: str, reasons: list[str]) -> bool:
    """Does the reason got end in the name a reason ends in (a field named by another path; stage 3's too)?"""
    tail = got.partition(":")[2].split(".")[-1]
    return any(reason.partition(":")[2].split(".")[-1] == tail for reason in reasons)


# ── drawing cases ────────────────────────────────────────────────────────────
# A safe arg is strictly valid and away from every rule's edge: a number strictly inside its
# bounds and never 0, a float arg's value a float, allowed values from the list, non-empty strs,
# lists and dicts, True for a bool, no "any", no nesting. A plant (a check's, in _PLANTS) is the
# spec of an arg added for the mistake, and a draw of its bad value (None: the arg is left out).

WIDTH = st.integers(3, 9)


def safe_bounds(d) -> dict:
    """A safe number spec's bounds (stage 3's too): none, a min, a max, or both, 3 to 9 apart."""
    low = d(draw.LOW)
    return draw.pick(d, ({}, {"min": low, "max": low + d(WIDTH)}, {"min": low}, {"max": low}))


def _safe_spec(d, kind: str | None = None) -> dict:
    kind = kind or draw.pick(d, draw.KINDS)
    spec = {"type": kind}
    if kind in ("int", "float"):
        spec.update(safe_bounds(d))
    elif kind == "str" and draw.chance(d, 3):
        spec["allowed"] = sorted({draw.pick(d, draw.WORDS) for _ in range(d(st.integers(1, 3)))})
    if d(draw.BOOL):
        spec["required"] = d(draw.BOOL)
    return spec


def _safe_contract(d) -> dict:
    return {name: _safe_spec(d) for name in draw.names(d, 0, 2)}


@st.composite
def cases(d, *mistakes: str) -> Case:
    """A safe contract with an arg per mistake, and 1-3 args dicts that each carry every mistake;
    "unknown" adds an invented name to each."""
    # The args that carry the mistakes are drawn first: shrinking the rest of the case leaves them alone.
    planted = [
        (d(draw.NAMES), *_PLANTS[mistake](d), d(st.integers(0, 3))) for mistake in mistakes if mistake in _PLANTS
    ]
    contract, carried = _safe_contract(d), {}
    for name, spec, bad_value, position in planted:
        name = draw.fresh_name(contract, name)
        contract = draw.with_arg(contract, name, spec, position)
        carried[name] = bad_value
    calls = []
    for _ in range(d(st.integers(1, 3))):
        args = safe_values(d, {name: spec for name, spec in contract.items() if name not in carried})
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


# ── what the fixed cases share ───────────────────────────────────────────────
# In each check's, the smallest first: the first failing call is the one shown.

# The lab's stock_lookup with a wider limit: every good value strictly inside (the lab's 1..2 has no inside).
STOCK_ARGS = {"sku": {"type": "str"}, "region": REGION, "limit": {"type": "int", "min": 1, "max": 20}}
GOOD = {"sku": "A-100", "region": "seoul", "limit": 5}
WHERE = {"where": {"type": "dict", "properties": {"region": REGION}}}


def one(args: dict, *calls: dict, tool: str = "t", **more: Any) -> Case:
    """One tool with these args, and the calls; more: the Case's literal or controls."""
    return Case({tool: entry(args=args)}, tool, calls, **more)


def one_arg(name: str, spec: dict, *values: Any) -> Case:
    """One tool with the one arg, called with each value."""
    return one({name: spec}, *({name: value} for value in values))


def stock(*calls: dict) -> Case:
    """The lab's stock_lookup (with a wider limit), and the calls."""
    return Case({"stock_lookup": entry(args=STOCK_ARGS)}, "stock_lookup", calls)


def intkeys(args: dict) -> dict:
    """args as JSON spells a dict with a name that is not a str."""
    return {"$intkeys": [[name, value] for name, value in args.items()]}


# ── 2.1 · good args pass ─────────────────────────────────────────────────────

BUDGET_ARGS = {"amount": {"type": "float", "min": 0, "max": 100}, "rush": {"type": "bool", "required": False}}
GOOD_INCIDENTS = (
    Case(
        {"stock_lookup": entry(args=STOCK_ARGS), "budget": entry(args=BUDGET_ARGS)},
        "budget",
        ({"amount": 50.5, "rush": True}, {"rush": True, "amount": 12.25}),
    ),
    one(
        {
            "s": {"type": "str"},
            "i": {"type": "int", "min": -5, "max": 10},
            "f": {"type": "float"},
            "b": {"type": "bool"},
            "l": {"type": "list"},
            "d": {"type": "dict"},
        },
        {"s": "A-100", "i": 3, "f": 2.5, "b": True, "l": [1, "a"], "d": {"k": 1}},
    ),
    # a dict subclass is a dict (json.loads(..., object_pairs_hook=OrderedDict)), in args as in results
    one_arg("d", {"type": "dict"}, {"$ordered": [["k", 1]]}),
    one({}, {}),
    Case({"budget": entry(args=BUDGET_ARGS), "stock_lookup": entry(args=STOCK_ARGS)}, "stock_lookup", (GOOD,)),
    one({"l": {"type": "list"}, "v": {"type": "any"}}, {"l": {"$cycle": [1]}, "v": {"$cycle": ["a"]}}),  # holds itself
)


@CHECKLIST.check(number=1, points=3, examples=4, always=GOOD_INCIDENTS)
def accepts_good_args():
    """check_args returns None for args that meet the contract, reading TOOLS[name]

    Find the contract by the name given, at the call: the table holds other tools too. A refusal
    here is a rule applied too strictly: the reason your check gave names which.
    """
    return cases()


# ── 2.2 · unknown names ──────────────────────────────────────────────────────

UNKNOWN_INCIDENTS = (
    one({}, {"x": 1}),
    one({}, intkeys({1: 2}), intkeys({None: "x"})),
    stock({**GOOD, "sku_id": "A-100"}, {"max_results": 5, **GOOD}, intkeys({**GOOD, 1: 2})),
    # inside a dict arg too; the control (a str name inside it) is 2.7's: looking inside at all
    one(
        WHERE,
        {"where": {"region": "busan", "max_qty": 3}},
        {"where": intkeys({"region": "busan", 1: 2})},
        controls=((1, 0),),
    ),
)
UNKNOWN_HINTS = {
    "unknown": "Look at every name in args, not only the contract's: a name the contract does not have is "
    "unknown:<name> (the model invents sku_id for sku).",
    "non-str name": "An arg name need not be a str: {1: 2} has the name 1, at the top or inside a dict arg, and it is "
    "unknown:1 (unknown:where.1) all the same. Your check raised building that reason: joining a str and "
    "an int with + raises TypeError. Any name must go into the reason.",
}


def unknown_hint(contract: dict, args: dict, field: str, passed: bool) -> str:
    """An invented name let through; a good name refused as unknown has no hint of its own."""
    if not passed:
        return ""
    return UNKNOWN_HINTS["non-str name" if holds_odd_name(contract, args) else "unknown"]


@CHECKLIST.check(number=2, points=3, examples=4, always=UNKNOWN_INCIDENTS)
def refuses_unknown_names():
    """check_args refuses a name the contract does not have, even one that is not a str: unknown:<arg>

    A loop over the contract's names never meets a name it does not have: walk the names args hold
    too, and put each into the reason as it is.
    """
    return cases("unknown")


# ── 2.3 · missing args ───────────────────────────────────────────────────────

MISSING_INCIDENTS = (
    one({"sku": {"type": "str", "required": True}}, {}),
    stock({"region": "seoul", "limit": 5}, {"sku": "A-100", "region": "seoul"}),
    one({"sku": {"type": "str"}, "rush": {"type": "bool", "required": False}}, {"sku": "A-100"}),
    one({"note": {"type": "str", "required": False}, "qty": {"type": "int"}}, {}),  # checking goes on after it
    one(
        {"n": {"type": "int"}, "b": {"type": "bool"}, "s": {"type": "str"}, "l": {"type": "list"}},
        {"n": 0, "b": False, "s": "", "l": []},
    ),
    one_arg("s", {"type": "str"}, None),
    one_arg("n", {"type": "int", "required": False}, None),
    one_arg("v", {"type": "any"}, None),
)
MISSING_HINTS = {
    "missing": 'A required arg (required is True unless the spec says "required": False) that is absent is '
    "missing:<arg>.",
    "optional": 'An absent optional arg ("required": False) is fine: only a required arg is ever missing.',
    "falsy": "A present arg is never missing, even when its value is None, 0, False or an empty str: missing means "
    "the name is absent from args. A test of the value's truth counts those falsy values missing.",
}


def missing_hint(contract: dict, args: dict, field: str, passed: bool) -> str:
    """An absent required arg let through; an absent optional arg, or a present falsy one, refused."""
    if passed:
        return MISSING_HINTS["missing"]
    return MISSING_HINTS["falsy" if field in args else "optional"]


def _plant_missing(d):
    return {**_safe_spec(d), "required": True}, None


@CHECKLIST.check(number=3, points=2, examples=4, always=MISSING_INCIDENTS)
def refuses_missing_args():
    """check_args refuses an absent required arg (missing:<arg>); an absent optional arg, or a present None, 0, False or "", is not missing

    Presence is the question, never truth: a test of the value counts None, 0, False and "" missing;
    and a spec that does not mention required is a required arg.
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return cases("missing")


# ── 2.4 · types ──────────────────────────────────────────────────────────────

TYPE_INCIDENTS = (
    one_arg("n", {"type": "int"}, True, 2.0, "2", [1]),
    one_arg("x", {"type": "float"}, True, "1.5", [1.5]),
    one_arg("x", {"type": "float", "min": 0, "max": 100}, 10, 0.5),
    one_arg("x", {"type": "float"}, 10, -3),
    one_arg("b", {"type": "bool"}, 1, "true", 1.0),
    one_arg("s", {"type": "str"}, 1, True, ["a"]),
    one_arg("l", {"type": "list"}, {"$tuple": [1, 2]}, "ab", {"a": 1}),
    one_arg("d", {"type": "dict"}, [1], "x", [["a", 1]]),
    one_arg("v", {"type": "any"}, True, "x", [1], {"$tuple": [1]}, {"a": None}),
)
TYPE_HINTS = {
    "type": 'A value of the wrong type is type:<arg>: "2" is not a number, a tuple is not a list.',
    "bool": "bool is a subclass of int in Python (isinstance(True, int) is True), yet in the contract True is "
    "never an int or a float: a bool passes only for bool and any.",
    "float for int": "2.0 is a float, not an int: an int arg takes only int values.",
    "int for float": "An int is a fine float: 10 passes for a float arg, though isinstance(10, float) is False.",
    "any": '"any" lets every value through: None, True, NaN, a list, anything.',
    "dict subclass": "The value is an OrderedDict, as json.loads(..., object_pairs_hook=OrderedDict) makes: a dict "
    "subclass, so a dict (isinstance says so), and it passes for a dict arg. A test of the exact type refuses it.",
}


def type_hint(contract: dict, args: dict, field: str, passed: bool) -> str:
    """A value of the wrong type let through; an any value, a dict subclass or an int for a float refused."""
    kind, value = contract[field]["type"], args.get(field)
    if passed:
        if type(value) is bool:
            return TYPE_HINTS["bool"]
        return TYPE_HINTS["float for int" if type(value) is float and kind == "int" else "type"]
    if kind == "any":
        return TYPE_HINTS["any"]
    if isinstance(value, dict) and type(value) is not dict:
        return TYPE_HINTS["dict subclass"]
    return TYPE_HINTS["int for float"] if kind == "float" and type(value) is int else ""


def _plant_type(d):
    spec = _safe_spec(d, draw.pick(d, ("int", "float", *draw.KINDS)))  # numbers twice: True for 1
    wrong = [value for value in draw.WRONG[spec["type"]] if value]  # a falsy value is 2.3's edge (never missing)
    return spec, lambda d: draw.pick(d, wrong)


@CHECKLIST.check(number=4, points=4, examples=4, always=TYPE_INCIDENTS)
def refuses_wrong_types():
    """check_args refuses a value of the wrong type (bool is never an int or a float) and lets an int pass for a float: type:<arg>

    Map each type name to its test, and test bool before int and float: isinstance(True, int) is
    True, so an int test alone lets True through.
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return cases("type")


# ── 2.5 · ranges ─────────────────────────────────────────────────────────────

HUGE = 10**400  # an int no float holds: float(HUGE) and math.isnan(HUGE) raise OverflowError
RANGE_INCIDENTS = (
    one_arg("n", {"type": "int", "min": 2}, 1, 2),
    one_arg("n", {"type": "int", "max": 5}, 6, 5),
    one_arg("x", {"type": "float", "min": 0.5, "max": 2.5}, 0.25, 3.0, 0.5, 2.5, draw.NAN, 2.5000001),
    one_arg("x", {"type": "float", "min": 1.5}, draw.NAN, 1.25, -draw.INF, 1.5),
    one_arg("x", {"type": "float", "max": 100}, draw.NAN, draw.INF, 100.0),
    one_arg("x", {"type": "float"}, draw.NAN, draw.INF),
    one_arg("v", {"type": "any"}, draw.NAN),
    # ints no float holds: compared as they are, never a crash; for the float arg x, the control
    # (an int for a float) is 2.4's
    one(
        {"n": {"type": "int", "min": 1, "max": 20}, "m": {"type": "int"}, "x": {"type": "float", "max": 100.5}},
        {"n": 5, "m": HUGE, "x": 5.5},
        {"n": HUGE, "m": 7, "x": 5.5},
        {"n": -HUGE, "m": -HUGE, "x": 5.5},
        {"n": 5, "m": 7, "x": 7},
        {"n": 5, "m": 7, "x": -HUGE},
        {"n": 5, "m": 7, "x": HUGE},
        controls=((4, 3), (5, 3)),
    ),
    stock({**GOOD, "limit": 21}, {**GOOD, "limit": -1}, {**GOOD, "limit": 1}, {**GOOD, "limit": 20}),
)
# An int too big for a float, read as a float: said by stage 3 for a result's number too.
HUGE_INT = (
    "The value is an int too big for a float (10 ** 400): turning it into a float, as math.isnan does, "
    "raises OverflowError. The rule compares it as it is: Python compares an int with any number exactly"
)
RANGE_HINTS = {
    "range": "A number below min or above max is range:<arg>; check both bounds, each only when the spec has it.",
    "bound": "Both bounds are inclusive: min <= value <= max, so min and max themselves pass.",
    "nan": "The value is NaN, and every comparison with NaN is False: asked whether NaN is below min, Python says "
    'no, so a test for "outside" lets it through. The rule: NaN lies within no bound, so a value passes '
    "only when it is shown to lie within the bounds.",
    "nan without bounds": "NaN is refused only by a bound: a float arg with no min and no max lets NaN "
    "through (range:<arg> needs a min or a max to break).",
    "huge int": f"{HUGE_INT}, and only a float can be NaN.",
}


def range_hint(contract: dict, args: dict, field: str, passed: bool) -> str:
    """A number outside its bounds (NaN too) let through; NaN without a bound, or a bound itself, refused."""
    value = args.get(field)
    if passed:
        return RANGE_HINTS["nan" if type(value) is float and value != value else "range"]
    return edge_of_range(contract[field], value, RANGE_HINTS)


def edge_of_range(spec: dict, value: Any, hints: dict[str, str]) -> str:
    """The edge a good number refused as out of range sits at (stage 3's too): NaN where there is no
    bound, or a bound itself; "" for any other value."""
    if not isinstance(value, (int, float)):
        return ""
    if value != value:
        return hints["nan without bounds"]
    return hints["bound"] if value in (spec.get("min"), spec.get("max")) else ""


@CHECKLIST.check(number=5, points=3, examples=4, always=RANGE_INCIDENTS)
def refuses_out_of_range():
    """check_args refuses a number outside min..max (both inclusive), NaN too where there is a bound: range:<arg>

    NaN compares False with anything, so `value < min` lets NaN through: write `not value >= min`.
    Compare the value as it is, never through float().
    """
    return cases("range")


# ── 2.6 · allowed values ─────────────────────────────────────────────────────

ALLOWED_INCIDENTS = (
    one_arg("region", REGION, "mars", "Seoul", "seoul ", "jeju"),
    one_arg("n", {"type": "int", "allowed": [1, 2, 4]}, 3, 4),
    one_arg("x", {"type": "float", "allowed": [0.5, 1.5]}, 1.0),
    # bool is never an int, in an allowed list too: True == 1 in Python, yet True is not allowed where 1 is
    one_arg("v", {"type": "any", "allowed": [1, "a"]}, True, 1, "a"),
    one_arg("v", {"type": "any", "allowed": [True]}, 1, 1.0, True),
    stock({**GOOD, "region": "mars"}),
)
ALLOWED_HINTS = {
    "allowed": "A value must be one of the spec's allowed list: allowed:<arg>.",
    "allowed bool": "The value and an item of the allowed list are equal in Python (True == 1), but one is a bool "
    "and the other a number: bool is never an int, in an allowed list too, so the value is not allowed. The value "
    "and the allowed item must be of the same kind as well as equal.",
}


def allowed_hint(contract: dict, args: dict, field: str, passed: bool) -> str:
    """A value not allowed let through (a bool equal to an allowed number, or the other way round)."""
    if not passed:
        return ""
    value = args.get(field)
    bool_beside_number = any(
        (type(value) is bool) != (type(item) is bool) and value == item
        for item in contract.get(field, {}).get("allowed", [])
    )
    return ALLOWED_HINTS["allowed bool" if bool_beside_number else "allowed"]


def _plant_allowed(d):
    kind = draw.pick(d, ("str", "int"))
    if kind == "str":
        spec = {"type": "str", "allowed": sorted({draw.pick(d, draw.WORDS) for _ in range(d(st.integers(1, 3)))})}
        return spec, lambda d: draw.pick(d, ("mars", "Seoul", "seoul ", "busan-1"))
    spec = {"type": "int", "allowed": sorted({d(st.integers(1, 9)) for _ in range(d(st.integers(1, 3)))})}
    return spec, lambda d: max(spec["allowed"]) + d(st.integers(1, 3))


@CHECKLIST.check(number=6, points=2, examples=4, always=ALLOWED_INCIDENTS)
def refuses_values_not_allowed():
    """check_args refuses a value not in allowed: allowed:<arg>

    Compare the value as it is with each allowed item: no lowering or stripping ("Seoul" and "seoul "
    are not "seoul").
    """
    return cases("allowed")


# ── 2.7 · nested args ────────────────────────────────────────────────────────

QTY = {"type": "int", "min": 1, "max": 90}
NESTED_ARGS = {
    "filter": {"type": "dict", "properties": {"color": {"type": "str", "allowed": ["blue", "red"]}, "size": QTY}},
    "points": {"type": "list", "items": QTY},
}
FILTER = {"color": "red", "size": 5}
LISTED = {
    "sku": {"type": "str", "allowed": ["A-100", "B-200"]},
    "skus": {"type": "list", "items": {"type": "str", "allowed": ["A-100", "B-200"]}},
    "grid": {"type": "list", "items": {"type": "list", "items": {"type": "int", "allowed": [1, 2]}}},
    "where": WHERE["where"],
}
LISTED_GOOD = {"sku": "A-100", "skus": ["B-200"], "grid": [[1]], "where": {"region": "busan"}}
NESTED_INCIDENTS = (
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
    one(
        NESTED_ARGS,
        {"filter": {"color": "green", "size": "x"}, "points": [5]},
        {"filter": FILTER, "points": [5, "x", 500]},
        tool="search",
        literal=True,
    ),
    one_arg("grid", {"type": "list", "items": {"type": "list", "items": QTY}}, [[5, 6], [50]], [[5], ["x", 500]]),
    one_arg(
        "rows",
        {"type": "list", "items": {"type": "dict", "properties": {"region": REGION, "qty": QTY}}},
        [{"region": "busan", "qty": 5}],
        [{"region": "busan", "qty": 5}, {"region": "mars", "qty": "x"}],
    ),
    one_arg(
        "where",
        {
            "type": "dict",
            "properties": {
                "skus": {"type": "list", "items": QTY},
                "inner": {"type": "dict", "properties": {"qty": QTY}},
            },
        },
        {"skus": [5], "inner": {"qty": 5}},
        {"skus": ["x", 500], "inner": {"qty": 5}},
        {"skus": [5], "inner": {"qty": "x", "extra": 1}},
    ),
    # items that break their allowed list alone, at every depth; the control (a top-level allowed
    # arg) is 2.6's: a module that checks allowed nowhere loses 2.6, not this check too
    one(
        LISTED,
        {**LISTED_GOOD, "sku": "Z-999"},
        {**LISTED_GOOD, "skus": ["A-100", "Z-999"]},
        {**LISTED_GOOD, "grid": [[1], [2, 3]]},
        {**LISTED_GOOD, "where": {"region": "mars"}},
        LISTED_GOOD,
        controls=((1, 0), (2, 0), (3, 0)),
    ),
)
NESTED_HINTS = {  # advise gives these itself: a nested field's reason names no top-level arg
    "nested": "Check a dict arg's properties as args are checked, and every item of a list arg (items of "
    "items too) against items, by every rule of the item spec: type, range and allowed.",
    "path": "Inside a dict arg name the field by its dotted path (type:filter.color); an item of a list arg "
    "is named by its list, at any depth (range:points).",
}


@st.composite
def nested(d) -> Case:
    """A nested arg (a dict with properties, a list with items, items of items), good or with a value
    inside it that breaks two rules at once, so only a check that never looks inside misses it; beside safe args."""
    shape = draw.pick(d, ("dict", "list", "list of lists", "list of dicts"))
    bad = d(draw.BOOL)
    properties = {"region": REGION, "qty": QTY}
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
        spec = {"type": "list", "items": QTY}
        value = [d(st.integers(2, 89)) for _ in range(d(st.integers(1, 3)))]
        if bad:
            value[d(st.integers(0, len(value))) : 0] = ["x", 500]
        if shape == "list of lists":
            spec, value = {"type": "list", "items": spec}, [[d(st.integers(2, 89))], value]
    contract = _safe_contract(d)
    name = draw.fresh_name(contract, d(draw.NAMES))
    contract = draw.with_arg(contract, name, spec, d(st.integers(0, 2)))
    args = {**safe_values(d, {key: spec for key, spec in contract.items() if key != name}), name: value}
    tool = d(draw.NAMES)
    return Case({tool: entry(args=contract)}, tool, (args,))


@CHECKLIST.check(number=7, points=2, examples=4, always=NESTED_INCIDENTS)
def checks_inside_nested_args():
    """check_args checks inside dict args (properties) and list args (items, items of items), naming the field by its dotted path

    Write the check of one value as a function of its spec, the value and its path, and call it again
    for each property and each item, the path grown by a property's name (an item keeps its list's).
    """  # noqa: E501 (its first line is the check's title: one line in the report)
    return nested()


# ── 2.8 · several mistakes ───────────────────────────────────────────────────

MIXED_INCIDENTS = (stock({"sku_id": "A-100", "region": "mars", "limit": "x"}, {"region": "mars", "limit": 500}),)
UNKNOWN_FIRST = (  # compare gives it to any check: a real reason, but not the first
    "Report names the contract does not have before anything else (unknown:<name>): a misspelt arg is missing "
    "too, and stage 6 can rename the misspelling, where it has no fix for args:missing."
)
BLATANT = {"int": "x", "float": "x", "str": 7, "bool": "yes", "list": "x", "dict": "x"}  # wrong, by no edge


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


@st.composite
def mixed(d) -> Case:
    """Two or three blatant mistakes of different rules at once (an invented name among them, or not)."""
    rules = d(st.permutations(("type", "range", "allowed", "missing", "unknown")))[: d(st.integers(2, 3))]
    return d(cases(*(rule if rule == "unknown" else f"blatant {rule}" for rule in rules)))


@CHECKLIST.check(number=8, points=1, examples=4, always=MIXED_INCIDENTS)
def names_a_real_failure():
    """check_args names a check that really fails when several do

    Check the names args hold before anything else, then each arg in turn, and return the first reason
    found.
    """
    return mixed()


# ── each reason's kind: its check's plant (for `cases`) and hint (for `advise`) ──

_PLANTS: dict[str, Callable[..., tuple]] = {  # mistake: (d) -> (spec, bad value or None)
    "missing": _plant_missing,
    "type": _plant_type,
    "range": plant_range,
    "allowed": _plant_allowed,
    **{f"blatant {how}": lambda d, how=how: _plant_blatant(d, how) for how in ("type", "range", "allowed", "missing")},
}
HINT_OF = {
    "unknown": unknown_hint,
    "missing": missing_hint,
    "type": type_hint,
    "range": range_hint,
    "allowed": allowed_hint,
}
