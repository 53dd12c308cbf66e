"""The smallest failing input: a failing case with every part it can lose taken out.

Hypothesis shrinks what it draws, but a check's fixed cases (the lesson's incidents) are written
whole: a stock table with rows and bays, fifty invented names. Once a case fails, `smallest` takes
parts out of it (a dict's key, a list's item; halves first, then one at a time) and keeps each cut
after which the module still fails for the same cause (the same hint, the same exceptions). The grade
never depends on it: a check has failed before anything is cut. A cut outside what the checks draw
is never tried, and cuts are counted, not timed (MAX_TRIES), so the input shown is the same anywhere.
"""

import dataclasses
import json
from collections.abc import Callable, Iterator
from typing import Any

from agtool.contract import check_table
from grader.kit.boundary import spies, values

MAX_TRIES = 40  # smaller cases probed after a failure, at most: a stage-6 incident needs about 25
# Spelled values whose payload is a list of parts (values.py): an item may go. The others' payloads are one
# value ({"$power": [10, 4300]} is an int), never cut.
_LISTS_OF_PARTS = ("$tuple", "$set", "$intkeys", "$ordered", "$cycle")


def cuts(value: Any) -> list[tuple[tuple, Any]]:
    """(where, a copy of value with one part taken out), outer parts first and, at one depth, larger cuts
    first. `where` names the cut (the path to the part, what left)."""
    found = list(_cuts(value, ()))
    order = sorted(range(len(found)), key=lambda at: (len(found[at][0]), -found[at][1], at))
    return _everywhere(value) + [(found[at][2], found[at][3]) for at in order]


def _everywhere(value: Any) -> list[tuple[tuple, Any]]:
    """A name taken out of every dict that holds it, at once, first: an arg goes from the contract and
    from the call together (taken out of one alone, the call's would be an unknown name, another failure)."""
    counts: dict[str, int] = {}
    for key in _keys(value):
        counts[key] = counts.get(key, 0) + 1
    return [(("everywhere", key), _without(value, key)) for key, count in counts.items() if count > 1]


def _keys(value: Any) -> Iterator[str]:
    """Every str key of every plain dict in value (a spelled value's inside is one value: not looked into)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from _keys(getattr(value, field.name))
    elif type(value) is dict and not (len(value) == 1 and str(next(iter(value))).startswith("$")):
        for key, inner in value.items():
            if type(key) is str:
                yield key
            yield from _keys(inner)
    elif type(value) in (list, tuple):
        for inner in value:
            yield from _keys(inner)


def _without(value: Any, name: str) -> Any:
    """value with the key `name` taken out of every plain dict in it."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(
            value, **{field.name: _without(getattr(value, field.name), name) for field in dataclasses.fields(value)}
        )
    if type(value) is dict and not (len(value) == 1 and str(next(iter(value))).startswith("$")):
        return {key: _without(inner, name) for key, inner in value.items() if key != name}
    if type(value) in (list, tuple):
        return type(value)(_without(inner, name) for inner in value)
    return value


def _cuts(value: Any, at: tuple) -> Iterator[tuple[tuple, int, tuple, Any]]:
    """(the path to the part cut, how many items left, where, the smaller copy), depth first."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            for path, size, where, smaller in _cuts(getattr(value, field.name), (*at, field.name)):
                yield path, size, where, dataclasses.replace(value, **{field.name: smaller})
    elif type(value) is dict:
        tag = next(iter(value)) if len(value) == 1 else None
        if tag is not None and tag.startswith("$"):
            if tag in _LISTS_OF_PARTS:
                for path, size, where, smaller in _cuts(value[tag], (*at, tag)):
                    yield path, size, where, {tag: smaller}
            return
        items = list(value.items())
        for left, kept in _fewer(items):
            yield at, len(left), (*at, tuple(repr(key) for key, _ in left)), dict(kept)
        for place, (key, inner) in enumerate(items):
            for path, size, where, smaller in _cuts(inner, (*at, repr(key))):
                yield path, size, where, dict([*items[:place], (key, smaller), *items[place + 1 :]])
    elif type(value) in (list, tuple):
        kind = type(value)
        for left, kept in _fewer(list(value)):
            yield at, len(left), (*at, "items", repr(left)), kind(kept)
        for place, inner in enumerate(value):
            for path, size, where, smaller in _cuts(inner, (*at, place)):
                yield path, size, where, kind([*value[:place], smaller, *value[place + 1 :]])


def _fewer(items: list) -> Iterator[tuple[list, list]]:
    """(the items left out, the items kept), a run of them left out: halves first, then quarters, down to one."""
    size = len(items) // 2 or 1
    while items and size >= 1:
        for start in range(0, len(items), size):
            yield items[start : start + size], items[:start] + items[start + size :]
        if size == 1:
            return
        size //= 2


def in_domain(request: dict, rules: bool = True) -> bool:
    """Is a request's table one the grader can build, each body a spy's, and, with `rules`, one the contract
    rules accept? A few incidents break a rule on purpose (an allowed list on an any arg): their cuts may too."""
    table = request.get("table")
    if table is None:
        return True
    try:
        if not all(type(entry) is dict and spies.is_body(entry.get("body")) for entry in table.values()):
            return False
        tools = spies.spy_table(table)[0]
        if rules:
            check_table(tools)
    except Exception:
        return False
    return True


def smallest(
    case: Any, request: Callable[[Any], dict], fails_alike: Callable[[Any], Any], tries: int = MAX_TRIES
) -> tuple[Any, Any]:
    """(the smallest case found that fails alike, its failure (fails_alike's)); (case, None) when no cut kept it.

    Greedy, as a delta debugger is: each kept cut is followed by the cuts of the smaller case, but a cut
    that did not keep the failure is not tried again (`refused`) until a pass keeps nothing; then, once,
    every cut of the case as it stands."""
    failure, refused, tried = None, set(), set()
    worth_probing = _worth_probing(request, case)
    fresh = False  # the last pass tried the cuts refused before
    while tries > 0:
        kept = False
        for where, smaller in cuts(case):
            if where in refused and not fresh:
                continue
            key = _key(smaller)
            if key in tried:
                continue
            tried.add(key)
            if not worth_probing(smaller):
                continue
            tries -= 1
            found = fails_alike(smaller)
            if found is not None:
                case, failure, kept = smaller, found, True
                break
            refused.add(where)
            if tries <= 0:
                break
        if kept:
            fresh = False
        elif fresh or not refused:
            break
        else:
            fresh = True
    return case, failure


def candidates(case: Any, request: Callable[[Any], dict], original: Any) -> Iterator[tuple[tuple, Any]]:
    """The cuts of case worth probing: its request_for writes them, their table is the lesson's, and they keep
    the original's form."""
    worth_probing = _worth_probing(request, original)
    return ((where, smaller) for where, smaller in cuts(case) if worth_probing(smaller))


def _worth_probing(request: Callable[[Any], dict], original: Any) -> Callable[[Any], bool]:
    """Is a cut of original a case of the lesson's: its request_for writes it, its table is one the contract
    rules accept (where the original's is), every tool of the original's table that a call names is still
    in it (an unknown tool is another question), and it keeps the form its class asks (`keeps_form_of`)."""
    asked_first = request(original)
    named, rules = set(asked_first.get("table") or ()) & _strs(asked_first.get("calls")), in_domain(asked_first)
    keeps_form = getattr(type(original), "keeps_form_of", None)

    def worth(smaller: Any) -> bool:
        try:
            asked = request(smaller)
        except Exception:  # a cut the case's own request_for cannot write: not a case
            return False
        still = set(asked.get("table") or ())
        return (
            in_domain(asked, rules)
            and all(name in still for name in named & _strs(asked.get("calls")))
            and (keeps_form is None or keeps_form(smaller, original))
        )

    return worth


def _strs(value: Any) -> set[str]:
    """Every str inside value: a dict's values and items, not its keys."""
    return {part for part in values.inside(value) if type(part) is str}


def _key(case: Any) -> str:
    """A case's identity for `tried`: its data, written out (repr tells NaN, 1 and True apart)."""
    try:
        data = dataclasses.asdict(case) if dataclasses.is_dataclass(case) and not isinstance(case, type) else case
        return json.dumps(data, sort_keys=True)
    except (TypeError, ValueError):
        return repr(case)
