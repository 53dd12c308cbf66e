"""The tests' one set of Hypothesis strategies: JSON values, contracts of the whole vocabulary
(nested args, any, returns), and args for them.

Contracts come out in canonical form, a key only where it differs from its default
(no "required": True, no "allow_empty": False), so an exported and re-imported
contract can be compared with ==. `allowed` is drawn for str, int, float and bool only:
check_table refuses it for "any", and for a list or dict Python's == says
[True] == [1] where JSON Schema's enum keeps bool and int apart.
"""

import string
from typing import Any

from hypothesis import strategies as st

names = st.text(string.ascii_lowercase + "_", min_size=1, max_size=5)
tool_names = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)

# JSON values: what a model can send, and what a JSON round trip gives back unchanged.
json_leaves = (
    st.none() | st.booleans() | st.integers() | st.text(max_size=6) | st.floats(allow_nan=False, allow_infinity=False)
)
json_values = st.recursive(
    json_leaves,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)
json_args = st.dictionaries(st.text(max_size=6), json_values, max_size=4)

values_of: dict[str, st.SearchStrategy[Any]] = {
    "str": st.text(max_size=3),
    "int": st.integers(-12, 12),
    "float": st.floats(-12, 12, allow_nan=False) | st.integers(-12, 12),
    "bool": st.booleans(),
    "any": json_values,
    "list": st.lists(json_values, max_size=3),
    "dict": st.dictionaries(st.text(max_size=3), json_values, max_size=3),
}
KINDS = sorted(values_of)


def bounds(kind: str):
    """None, one or both of min and max, for an int or float spec."""
    pairs = st.lists(values_of[kind].filter(lambda v: -10 <= v <= 10), min_size=2, max_size=2).map(sorted)
    return pairs.flatmap(lambda p: st.sampled_from([{}, {"min": p[0]}, {"max": p[1]}, {"min": p[0], "max": p[1]}]))


@st.composite
def leaf_arg_specs(draw):
    """An arg spec with nothing nested: a type, maybe bounds, maybe allowed values."""
    kind = draw(st.sampled_from(KINDS))
    spec = {"type": kind}
    if kind in ("int", "float"):
        spec.update(draw(bounds(kind)))
    if kind in ("str", "int", "float", "bool") and draw(st.booleans()):
        spec["allowed"] = draw(st.lists(values_of[kind], min_size=1, max_size=3, unique=True))
    return spec


def arg_specs(depth: int = 2):
    """An arg spec, nested up to depth levels: a dict with properties, a list with items."""
    if depth == 0:
        return leaf_arg_specs()
    return leaf_arg_specs() | st.one_of(
        arg_fields(depth - 1).map(lambda fields: {"type": "dict", "properties": fields}),
        arg_specs(depth - 1).map(lambda item: {"type": "list", "items": item}),
    )


def maybe_optional(specs):
    return st.tuples(specs, st.booleans()).map(lambda pair: {**pair[0], "required": False} if pair[1] else pair[0])


def arg_fields(depth: int = 2):
    """name -> arg spec, some optional: a tool's args, or a dict arg's properties."""
    return st.dictionaries(names, maybe_optional(arg_specs(depth)), max_size=3)


@st.composite
def return_specs(draw, depth: int = 1):
    kind = draw(st.sampled_from(KINDS))
    spec = {"type": kind}
    if kind in ("int", "float"):
        spec.update(draw(bounds(kind)))
    if kind == "list":
        if draw(st.booleans()):
            spec["max_len"] = draw(st.integers(0, 4))
        if depth and draw(st.booleans()):
            spec["items"] = draw(return_fields(depth - 1))
    if kind in ("str", "list", "dict", "any") and draw(st.booleans()):
        spec["allow_empty"] = True
    return spec


def return_fields(depth: int = 1):
    return st.dictionaries(names, return_specs(depth), max_size=3)


entries = st.builds(
    lambda args, returns, description: {"fn": dict, "description": description, "args": args, "returns": returns},
    arg_fields(),
    return_fields(),
    st.text(string.ascii_letters + " .", min_size=1, max_size=20).filter(str.strip),
)
tables = st.dictionaries(tool_names, entries, min_size=1, max_size=3)


# ── args for a contract ──────────────────────────────────────────────────────


def fitting(spec: dict):
    """Values meant to meet one arg spec (nested ones too), near its bounds."""
    kind = spec["type"]
    if "allowed" in spec:
        return st.sampled_from(spec["allowed"])
    if kind == "int":
        return st.integers(spec.get("min", -12) - 1, spec.get("max", 12) + 1)
    if kind == "float":
        return st.floats(spec.get("min", -12) - 1, spec.get("max", 12) + 1, allow_nan=False)
    if "properties" in spec:
        return args_for(spec["properties"])
    if "items" in spec:
        return st.lists(values_for(spec["items"]), max_size=3)
    return values_of[kind]


def values_for(spec: dict):
    """A value for one arg spec: mostly fitting (so nested checks get reached), else of its type, or any JSON."""
    return st.one_of(*[fitting(spec)] * 4, values_of[spec["type"]], json_values)


@st.composite
def args_for(draw, specs: dict):
    """Args for specs: each one drawn or, one time in eight, left out; one time in eight an extra name."""
    args = {}
    for name, spec in specs.items():
        if draw(st.integers(0, 7)):
            args[name] = draw(values_for(spec))
    if draw(st.integers(0, 7)) == 7:
        args.setdefault(draw(st.text(max_size=4)), draw(json_values))
    return args
