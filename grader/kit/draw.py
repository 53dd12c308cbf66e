"""What the grader draws with Hypothesis: contracts, args, return specs, values.

Each function takes `d`, the `draw` of an @st.composite, and draws only from strategies built once,
below: building one inside a draw, or nesting composites, costs more than the draw itself. Values are
drawn in their JSON spelling (values.py: {"$tuple": [...]}), every contract obeys the table rules, and
draws stay out of the spec's grey zones, so any correct module agrees with the oracle: no NaN or
infinity where no bound could make it wrong, no int where a result wants a float, no -0.0.
"""

from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import strategies as st

Draw = Callable[[st.SearchStrategy], Any]

KINDS = ("str", "int", "float", "bool", "list", "dict")
ARG_KINDS = (*KINDS, "any")  # "any" lets every value through; return specs do not use it
# Names of tools, args and keys; a pool is far cheaper to draw from than st.text.
POOL = ("a", "b", "sku", "qty", "x_y", "limit", "rows", "region", "c", "days", "tags", "d2", "zone", "id")
NAMES = st.sampled_from(POOL)
TEXT = st.text("ab가 ", max_size=3)
TEXT1 = st.text("ab가 ", min_size=1, max_size=3)
WORDS = ("busan", "jeju", "seoul", "daegu", "ulsan")
NAN, INF = float("nan"), float("inf")

BOOL = st.booleans()
OFFSET = st.integers(0, 6)
LOW = st.integers(-10, 10)
FRACTION = st.one_of(st.sampled_from([0.0, 1.0, 0.5]), st.floats(0, 1))
ANY_INT = st.integers(-1000, 1000)
ANY_FLOAT = st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: x + 0.0)  # x + 0.0: no -0.0
LEAF = st.one_of(st.none(), BOOL, st.integers(-3, 3), st.floats(-9, 9).map(lambda x: x + 0.0), TEXT)
WHICH_BOUNDS = ("both", "min", "max", "none")
REQUIRED = (None, None, True, False)

# Values of the wrong type, per contract type: what a model or a tool really sends.
WRONG = {
    "int": (True, False, 2.0, "2", None, [1]),
    "float": (True, False, "1.5", None, [1.5]),
    "str": (1, None, True, ["a"], 1.5),
    "bool": (0, 1, "true", None, 1.0),
    "list": ({"$tuple": [1, 2]}, "ab", {}, None, 3),
    "dict": ([], "x", None, [["a", 1]], 1),
}
WRONG_RESULT = {**WRONG, "int": (True, False, 4.0, "4개", None), "float": (True, False, "1.5", None)}
NOT_A_DICT: tuple[Any, ...] = ([], "ok", None, 3, {"$tuple": []}, [{"a": 1}], {"$set": [1]})


def pick(d: Draw, choices: Sequence) -> Any:
    """One of choices; shrinks towards the first."""
    return choices[d(st.integers(0, len(choices) - 1))]


def chance(d: Draw, one_in: int) -> bool:
    """True once in `one_in`; shrinks to False (Hypothesis shrinks integers towards 0)."""
    return d(st.integers(0, one_in - 1)) == one_in - 1


def fresh_name(taken, name: str) -> str:
    """name, changed until it is not in `taken`."""
    while name in taken:
        name += "9"
    return name


def names(d: Draw, least: int = 0, most: int = 3) -> list[str]:
    """Distinct names: a run through the pool from a drawn start by a drawn step (one draw for both, for speed);
    the count is a draw of its own, so it shrinks alone."""
    count = d(st.integers(least, most))
    code = d(st.integers(0, len(POOL) * len(_STEPS) - 1))
    start, step = code % len(POOL), _STEPS[code // len(POOL)]
    return [POOL[(start + step * at) % len(POOL)] for at in range(count)]


_STEPS = (1, 3, 5)  # prime to len(POOL): a run never repeats a name


def plain(d: Draw, depth: int = 2) -> Any:
    """Any JSON value, nested at most `depth` deep."""
    shape = d(st.integers(0, 2)) if depth else 0
    if shape == 0:
        return d(LEAF)
    if shape == 1:
        return [plain(d, depth - 1) for _ in range(d(st.integers(0, 3)))]
    return {name: plain(d, depth - 1) for name in names(d)}


# ── specs ────────────────────────────────────────────────────────────────────


def bounds(d: Draw, kind: str, which: str | None = None) -> dict:
    """min and/or max of an int or float (min <= max); a float's bounds may be ints, as the table allows."""
    which = which or pick(d, WHICH_BOUNDS)
    low = d(LOW) + (0.5 if kind == "float" and d(BOOL) else 0)
    high = low + d(OFFSET)
    return {"both": {"min": low, "max": high}, "min": {"min": low}, "max": {"max": high}, "none": {}}[which]


def allowed(d: Draw, kind: str, spec: dict) -> list:
    """A non-empty allowed list of the kind (within the spec's bounds)."""
    if kind == "str":
        return sorted({pick(d, WORDS) for _ in range(d(st.integers(1, 3)))})
    return sorted({number_in(d, spec, "int") for _ in range(d(st.integers(1, 3)))})


def arg_spec(d: Draw, kind: str | None = None, depth: int = 0, item: bool = False) -> dict:
    """An arg spec; a dict may name its keys (properties), a list its items' spec, two levels deep.
    An item's spec has no `required`: an item is never absent."""
    kind = kind or pick(d, ARG_KINDS)
    spec = {"type": kind}
    if kind in ("int", "float"):
        spec.update(bounds(d, kind))
    if kind in ("str", "int") and chance(d, 4):
        spec["allowed"] = allowed(d, kind, spec)
    if depth < 2 and kind == "dict" and chance(d, 3):
        spec["properties"] = contract(d, 2, depth + 1)
    if depth < 2 and kind == "list" and chance(d, 3):
        spec["items"] = arg_spec(d, depth=depth + 1, item=True)
    required = None if item else pick(d, REQUIRED)
    if required is not None:
        spec["required"] = required
    return spec


def contract(d: Draw, most: int = 3, depth: int = 0) -> dict:
    return {name: arg_spec(d, depth=depth) for name in names(d, 0, most)}


def with_arg(contract: dict, name: str, spec: dict, position: int) -> dict:
    """contract with one more arg at `position` (the table's order matters to the reference)."""
    items = list(contract.items())
    items.insert(position % (len(items) + 1), (name, spec))
    return dict(items)


def return_spec(d: Draw, depth: int = 0, kind: str | None = None) -> dict:
    kind = kind or pick(d, KINDS)
    spec = {"type": kind}
    if kind in ("int", "float"):
        spec.update(bounds(d, kind))
    if kind == "list":
        if d(BOOL):
            spec["max_len"] = d(st.integers(1, 3))
        if depth < 2 and d(BOOL):
            spec["items"] = returns(d, depth + 1, least=1, most=2)
    if kind in ("str", "list", "dict") and chance(d, 4):
        spec["allow_empty"] = d(BOOL)
    return spec


def returns(d: Draw, depth: int = 0, least: int = 0, most: int = 3) -> dict:
    return {name: return_spec(d, depth) for name in names(d, least, most)}


# ── values ───────────────────────────────────────────────────────────────────


def number_in(d: Draw, spec: dict, kind: str) -> int | float:
    """A number within the spec's bounds, often a bound itself. For a float, now and then an int."""
    low, high = spec.get("min"), spec.get("max")
    if kind == "float" and chance(d, 4):
        int_low = None if low is None else -int(-low // 1)
        int_high = None if high is None else int(high // 1)
        if int_low is None or int_high is None or int_low <= int_high:
            kind, low, high = "int", int_low, int_high
    if low is not None and high is not None:
        value = low + d(FRACTION) * (high - low) if kind == "float" else min(high, low + d(OFFSET))
    elif low is not None:
        value = low + d(OFFSET)
    elif high is not None:
        value = high - d(OFFSET)
    else:
        value = d(ANY_FLOAT if kind == "float" else ANY_INT)
    return float(value) if kind == "float" else int(value)


def arg_value(d: Draw, spec: dict) -> Any:
    """A value that meets an arg spec."""
    if "allowed" in spec:
        return pick(d, spec["allowed"])
    kind = spec["type"]
    if kind in ("int", "float"):
        return number_in(d, spec, kind)
    if kind == "str":
        return d(TEXT)
    if kind == "bool":
        return d(BOOL)
    if "properties" in spec:
        return valid_args(d, spec["properties"])
    if "items" in spec:
        return [arg_value(d, spec["items"]) for _ in range(d(st.integers(0, 3)))]
    value = plain(d)
    if kind == "any":
        return value
    while type(value) is not {"list": list, "dict": dict}[kind]:
        value = [value] if kind == "list" else {"v": value}
    return value


def valid_args(d: Draw, contract: dict) -> dict:
    """Args that meet the contract; optional args left out now and then."""
    return {name: arg_value(d, spec) for name, spec in contract.items() if spec.get("required", True) or d(BOOL)}


def outside(d: Draw, spec: dict) -> int | float:
    """A number of the spec's type outside its bounds (it has at least one); NaN and inf for floats."""
    side = pick(d, [side for side in ("min", "max") if side in spec])
    sign = -1 if side == "min" else 1
    if spec["type"] == "int":
        return spec[side] + sign * pick(d, (1, 2, 100))
    return pick(d, (spec[side] + sign * 0.5, spec[side] + sign * 1e-6, NAN, sign * INF, float(spec[side] + sign)))


def result_value(d: Draw, spec: dict) -> Any:
    """A value that meets a return spec (a float is always a float: the spec is silent on ints)."""
    kind = spec["type"]
    least = 0 if spec.get("allow_empty", False) else 1
    if kind == "int":
        return number_in(d, spec, "int")
    if kind == "float":
        return float(number_in(d, spec, "float"))
    if kind == "str":
        return d(TEXT if least == 0 else TEXT1)
    if kind == "bool":
        return d(BOOL)
    if kind == "dict":
        return {name: d(LEAF) for name in names(d, least, 2)}
    length = d(st.integers(least, max(least, spec.get("max_len", 3))))
    if "items" in spec:
        return [result_dict(d, spec["items"]) for _ in range(length)]
    return [d(LEAF) for _ in range(length)]


def result_dict(d: Draw, specs: dict) -> dict:
    """A dict that meets a returns mapping, with an extra key now and then (extra keys are allowed)."""
    value = {key: result_value(d, spec) for key, spec in specs.items()}
    if chance(d, 5):
        value[fresh_name(value, "extra")] = d(LEAF)
    return value
