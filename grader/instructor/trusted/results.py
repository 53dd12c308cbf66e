"""Stage 3, trusted: the result check, written from the spec."""

from collections.abc import Iterator
from typing import Any

from grader.instructor.trusted.args import has_type, in_range


def result_failures(returns: dict, value: Any, every: bool) -> Iterator[str]:
    if not isinstance(value, dict):
        yield "shape:result"
        return
    yield from field_failures(returns, value, "", every)


def field_failures(specs: dict, value: dict, prefix: str, every: bool) -> Iterator[str]:
    for key, spec in specs.items():
        path = prefix + key
        if key not in value or not has_type(value[key], spec["type"]):
            yield f"shape:{path}"
            continue
        item = value[key]
        if isinstance(item, (list, dict, str)):
            if not item and not spec.get("allow_empty", False):
                yield f"empty:{path}"
            if "max_len" in spec and len(item) > spec["max_len"]:
                yield f"too_big:{path}"
        elif not in_range(item, spec):
            yield f"range:{path}"
        for element in item if "items" in spec else ():
            if isinstance(element, dict):
                yield from field_failures(spec["items"], element, path + ".", every)
                continue
            yield f"shape:{path}"
            if every:  # an item that is no dict lacks every key: naming one is right too
                yield from (f"shape:{path}.{name}" for name in spec["items"])


def result_reasons(returns: dict, value: Any) -> set[str]:
    """Every reason check_result may give for value; empty when it meets the spec."""
    return set(result_failures(returns, value, every=True))


def result_reason(returns: dict, value: Any) -> str | None:
    """The one reason, keys in table order: shape, then empty / too_big / range, then items."""
    return next(result_failures(returns, value, every=False), None)
