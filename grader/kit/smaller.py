"""The smallest failing input: a failing case with every part it can lose taken out.

Hypothesis shrinks what it draws, but a check's fixed cases (the lesson's incidents) are
written whole: a stock table with rows and bays, three runs sharing a memo, fifty invented
names. A student whose module fails one should read only what their failure needs. So once a
case fails, `smallest` takes parts out of it (a dict's key, a list's or tuple's item; half of
them first, then one at a time) and keeps each cut after which the module still fails for
the same cause: the same hint (chosen from what was observed) and the same exceptions
raised. What is cut is data; the case is written out as Python only after (the renderer
never sees the larger one).

The grade never depends on this: a check has failed before anything is cut, and a cut is
kept only when it fails too. What it depends on is the judge, run on each smaller case
with the oracle's answer for it: a cut that leaves the case outside what the lab's checks
draw (a table the contract rules refuse, a body with no step, a marker without its
payload) is never tried. The cuts are counted, not timed (MAX_TRIES), so the input shown is
the same on every machine.
"""

import dataclasses
import json
from collections.abc import Callable, Iterator
from typing import Any

from agtool.contract import check_table
from grader.kit.boundary import spies

MAX_TRIES = 40  # smaller cases probed after a failure, at most: a stage-6 incident needs about 25
# Markers whose payload is a list of parts (grader/kit/boundary/values.py): an item may go, and
# a tuple, set, self-holding list or dict with int keys is still one. The others' payloads are
# one value ({"$power": [10, 4300]} is an int), never cut.
_LISTS_OF_PARTS = ("$tuple", "$set", "$intkeys", "$ordered", "$cycle")


def cuts(value: Any) -> list[tuple[tuple, Any]]:
    """(where, a copy of value with one part taken out), outer parts first and, at one depth, larger cuts
    first: a table's tool before one of its args, half of fifty names before one of them. `where`
    names the cut (the path to the part, what left): a cut that kept nothing is not tried again."""
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
    """Is a request's table one the grader can build, each body a spy's (a cut may take out a body's last
    step), and, with `rules`, one the contract rules accept (a cut may take out a type, the tool an upgrade
    names)? A few incidents break a rule on purpose (an allowed list on an any arg): their cuts may too."""
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


Fails = Callable[[Any], Any]  # a smaller case -> the same failure for it, or None


def smallest(case: Any, request: Callable[[Any], dict], fails_alike: Fails, tries: int = MAX_TRIES) -> tuple[Any, Any]:
    """(the smallest case found that fails alike, its failure); (case, None) when no cut kept the failure.

    Greedy, as a delta debugger is: each kept cut is followed by the cuts of the smaller case, but a
    cut that did not keep the failure is not tried again (`refused`, by where it cuts) until a pass
    keeps nothing; then, once, every cut of the case as it stands. A case whose class says what a cut
    must keep (`keeps_form_of(original)`: a run's request keeps its tool and args) is held to it."""
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
    in it (a call to a tool the table lacks is another question: check_args on an unknown tool is the
    student's to answer), and its class's form is kept."""
    asked_first = request(original)
    named, rules = _tools_named(asked_first), in_domain(asked_first)

    def worth(smaller: Any) -> bool:
        try:
            asked = request(smaller)
        except Exception:  # a cut the case's own request_for cannot write: not a case
            return False
        still = set(asked.get("table") or ())
        return (
            in_domain(asked, rules)
            and all(name in still for name in named & _strs(asked.get("calls")))
            and _keeps_form(smaller, original)
        )

    return worth


def _tools_named(request: dict) -> set[str]:
    """The tools of a request's table that its calls name (a tool's name, a run's request's tool)."""
    return set(request.get("table") or ()) & _strs(request.get("calls"))


def _strs(value: Any) -> set[str]:
    """Every str inside value: a dict's values and items, not its keys."""
    if type(value) is str:
        return {value}
    if type(value) is dict:
        return set().union(*map(_strs, value.values()))
    if type(value) in (list, tuple):
        return set().union(*map(_strs, value))
    return set()


def _keeps_form(smaller: Any, original: Any) -> bool:
    keeps = getattr(type(smaller), "keeps_form_of", None)
    return keeps is None or keeps(smaller, original)


def _key(case: Any) -> str:
    """A case's identity for `tried`: its data, written out (repr tells NaN, 1 and True apart)."""
    try:
        data = dataclasses.asdict(case) if dataclasses.is_dataclass(case) and not isinstance(case, type) else case
        return json.dumps(data, sort_keys=True)
    except (TypeError, ValueError):
        return repr(case)
