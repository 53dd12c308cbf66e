"""Stage 2, trusted: the argument check, written from the spec.

Every reason that really fails (`arg_reasons`: where the spec lets a student report
any failing check, any is right) and the one reason in the spec's order (`arg_reason`).
"""

from collections.abc import Iterator
from typing import Any

# The contract's types; "any" lets every value through (its JSON Schema says nothing: {}).
PY_TYPES = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict, "any": object}


def has_type(value: Any, kind: str) -> bool:
    """bool is only a bool (Python calls it an int); an int is also a float; anything is an any."""
    if isinstance(value, bool):
        return kind in ("bool", "any")
    if kind == "float":
        return isinstance(value, (int, float))
    return isinstance(value, PY_TYPES[kind])


def in_range(value: Any, spec: dict) -> bool:
    """Inclusive min and max, each optional; NaN is outside (every comparison with it is False)."""
    return not ("min" in spec and not value >= spec["min"]) and not ("max" in spec and not value <= spec["max"])


def is_allowed(value: Any, item: Any) -> bool:
    """Is value the allowed item? bool is never a number here either (True == 1 in Python); an int and a
    float of equal value are one number, as for the type (the lesson leaves which to the student: the grade
    draws no such pair)."""
    return isinstance(value, bool) == isinstance(item, bool) and value == item


def arg_failures(contract: dict, args: dict, every: bool, prefix: str = "") -> Iterator[str]:
    """Failing checks, in the spec's order; a nested arg's fields are named by dotted path.

    every=False: the checks a value of the wrong type skips (range, allowed, what is
    inside it) are skipped; every=True: any check that fails counts.
    """
    for arg in args:
        if arg not in contract:
            yield f"unknown:{prefix}{arg}"
    for arg, spec in contract.items():
        if arg in args:
            yield from value_failures(spec, args[arg], prefix + arg, every)
        elif spec.get("required", True):
            yield f"missing:{prefix}{arg}"


def value_failures(spec: dict, value: Any, field: str, every: bool) -> Iterator[str]:
    typed = has_type(value, spec["type"])
    if not typed:
        yield f"type:{field}"
        if not every:
            return
    if (typed or isinstance(value, (int, float))) and not in_range(value, spec):
        yield f"range:{field}"
    if "allowed" in spec and not any(is_allowed(value, item) for item in spec["allowed"]):
        yield f"allowed:{field}"
    if typed and "properties" in spec:  # a dict's named keys, checked as args are
        yield from arg_failures(spec["properties"], value, every, field + ".")
    if typed and "items" in spec:  # each item as if it were the arg: named by its list
        for item in value:
            yield from value_failures(spec["items"], item, field, every)


def arg_reasons(contract: dict, args: dict) -> set[str]:
    """Every reason check_args may give (any check that really fails); empty when args are fine."""
    return set(arg_failures(contract, args, every=True))


def arg_reason(contract: dict, args: dict) -> str | None:
    """The one reason, in the spec's order: unknown args, then each contract arg in table order."""
    return next(arg_failures(contract, args, every=False), None)
