"""Values that cross between the grader and the submission's process.

Going in, a request spells in JSON the values JSON has no word for ({"$tuple": [...]}, a set, bytes,
a list that holds itself, an int of over 4,300 digits, a Touchy object whose == raises): `decode`
builds them. Coming back, `to_plain` turns whatever a function returned into plain JSON data, with a
"not plain data" marker for anything else (a str subclass, an __eq__ that always says True, a cycle,
a flood), judged wrong without being compared; its JSON stays within MAX_JSON bytes and MAX_MARKS.
`same` is the parent's equality (strict types, dict order aside, NaN == NaN); `py` writes a value as
the Python a student would type.
"""

import json
import math
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from agtool.contract import MAX_INT_BITS  # json cannot print an int of over 4300 digits

NOT_PLAIN = "<not plain data>"  # the key of a marker; a plain answer never has it

_DECODERS = {
    "$tuple": lambda items: tuple(decode(item) for item in items),
    "$set": lambda items: set(decode(item) for item in items),
    "$bytes": lambda text: text.encode(),
    "$object": lambda _: object(),
    "$intkeys": lambda pairs: {key: decode(value) for key, value in pairs},
    "$cycle": lambda items: _holding_itself([decode(item) for item in items]),
    "$power": lambda pair: pair[0] ** pair[1],  # an int JSON cannot print: {"$power": [10, 4300]} has 4,301 digits
    "$touchy": lambda _: Touchy(),
    "$ordered": lambda pairs: OrderedDict((key, decode(value)) for key, value in pairs),  # a dict subclass
}
_SPELLINGS = {"$tuple": "({})", "$set": "{{{}}}"}

MAX_NODES = 20_000  # an answer bigger than this is a flood, not an answer
MAX_DEPTH = 60
MAX_STR = 20_000
MAX_JSON = 1024 * 1024  # an answer's JSON: MAX_NODES nodes of about 50 bytes each
# Its [ { , : characters, its strs' included: a node is one (a dict's key and value two), and the rest is
# room for commas in text.
MAX_MARKS = 4 * MAX_NODES
_MARKS = (b"[", b"{", b",", b":")


def marks(text: bytes) -> int:
    """How many of the characters [ { , : a JSON text holds, inside its strs too: more than its nodes,
    counted at C speed before anything is decoded."""
    return sum(map(text.count, _MARKS))


def deeper_than(value: Any, limit: int) -> bool:
    """Do decoded JSON data nest lists and dicts more than `limit` deep? Without recursion: nothing has
    checked the data yet."""
    level = [value] if type(value) in (list, dict) else []
    for _ in range(limit):
        if not level:
            return False
        inner: list[Any] = []
        for container in level:
            inner.extend(container if type(container) is list else container.values())
        level = [item for item in inner if type(item) in (list, dict)]
    return bool(level)


def tagged(value: Any) -> str | None:
    """The tag of a JSON-spelled special value ({"$set": [...]}), else None."""
    if type(value) is dict and len(value) == 1:
        (key,) = value
        if key in _DECODERS:
            return key
    return None


class Touchy:
    """A value a tool may send back whose comparisons raise (==, <, hash: `value in ("", [])` too)."""

    def __eq__(self, other: object) -> bool:
        raise TypeError("a Touchy value cannot be compared")

    __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __eq__
    __hash__ = None  # type: ignore[assignment]


def _holding_itself(items: list) -> list:
    """items, then the list itself: json.dumps refuses it (ValueError), repr writes it [..., [...]]."""
    items.append(items)
    return items


def decode(value: Any) -> Any:
    """The Python value a request spells: plain data, with tagged special values built."""
    kind = type(value)  # tagged(value), inline: most values are scalars, and a request holds thousands
    if kind is list:
        return [decode(item) for item in value]
    if kind is dict:
        if len(value) == 1:
            (key,) = value
            if key in _DECODERS:
                return _DECODERS[key](value[key])
        return {key: decode(item) for key, item in value.items()}
    return value


def marker(value: Any, why: str | None = None) -> dict:
    """The stand-in for a value that is not plain data."""
    return {NOT_PLAIN: why or type(value).__qualname__, "callable": callable(value)}


def to_plain(value: Any) -> Any:
    """value as plain JSON data, or with markers where it is not plain; one marker for all of it when
    its JSON would be over MAX_JSON bytes or MAX_MARKS marks. Never raises."""
    budget = [MAX_NODES]
    plain = _plain(value, budget, MAX_DEPTH, set())
    try:
        text = json.dumps(plain).encode()  # as grader/kit/boundary/channel.py's frame() writes it
    except Exception:  # only MemoryError, for data as _plain gives it
        return {NOT_PLAIN: "too big", "callable": False}
    if len(text) > MAX_JSON or marks(text) > MAX_MARKS:
        why = f"too big: {len(text):,} bytes of JSON, {marks(text):,} of its [ {{ , : characters"
        return {NOT_PLAIN: why, "callable": False}
    return plain


def _plain(value: Any, budget: list, depth: int, open_ids: set) -> Any:
    # Exact types only: a subclass can override __eq__, __str__ or __iter__.
    kind = type(value)
    budget[0] -= 1
    if budget[0] < 0 or depth < 0:
        return {NOT_PLAIN: "too big or too deep", "callable": False}
    if value is None or kind is bool or kind is float:
        return value
    if kind is int:
        return value if value.bit_length() <= MAX_INT_BITS else marker(value, "int too big for JSON")
    if kind is str:
        return value if len(value) <= MAX_STR else marker(value, f"str of {len(value)} characters")
    if kind is list or kind is dict:
        if id(value) in open_ids:
            return marker(value, "a list or dict that contains itself")
        open_ids.add(id(value))
        try:
            # Once the budget is spent, the one marker that says so ends every container it is in.
            if kind is list:
                items = []
                for item in value:
                    if budget[0] < 0:
                        break
                    items.append(_plain(item, budget, depth - 1, open_ids))
                return items
            if not all(type(key) is str for key in value):
                return marker(value, "dict with keys that are not str")
            entries = {}
            for key, item in value.items():
                if budget[0] < 0:
                    break
                entries[key] = _plain(item, budget, depth - 1, open_ids)
            return entries
        finally:
            open_ids.discard(id(value))
    try:
        return marker(value)
    except Exception:  # a hostile callable() or __qualname__
        return {NOT_PLAIN: "object", "callable": False}


def is_marker(value: Any) -> bool:
    return type(value) is dict and NOT_PLAIN in value


def inside(value: Any) -> Iterator[Any]:
    """value, then every item of a list or tuple and every value of a dict anywhere inside it."""
    yield value
    items = value.values() if type(value) is dict else value if type(value) in (list, tuple) else ()
    for item in items:
        yield from inside(item)


def anywhere(value: Any, test: Callable[[Any], bool]) -> bool:
    """Does `test` hold for value, or for anything inside it?"""
    return any(map(test, inside(value)))


def same(a: Any, b: Any) -> bool:
    """Equal as the spec means it: same types all the way down, dict order aside, NaN == NaN."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return a == b or (math.isnan(a) and math.isnan(b))
    if type(a) is list:
        return len(a) == len(b) and all(map(same, a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(same(a[key], b[key]) for key in a)
    return a == b


def mutate(value: Any) -> None:
    """Change a returned value in place, everywhere inside it: what a careless caller does."""
    seen: set[int] = set()

    def walk(node):
        if id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, dict):
            for child in list(node.values()):
                walk(child)
            node["changed by the caller"] = True
        elif isinstance(node, list):
            for child in list(node):
                walk(child)
            node.append("changed by the caller")

    walk(value)


_BIG = 2**32  # an int past this near a power of 2 is written so (2 ** 40, 2 ** 1100 + 3), as a student types it
_NEAR = 1024  # what is left of it, at most, below 2 ** 64; beyond, any rest below 2 ** 64
_TEN_DIGITS = 31  # a power of ten this long or longer is written as one (10 ** 400): its zeros are not read


def _power_of_ten(size: int) -> int | None:
    """k where size is 10 ** k of _TEN_DIGITS digits or more, else None (without str(): it refuses 4,300 digits)."""
    guess = round((size.bit_length() - 1) * math.log10(2))
    return next((k for k in (guess - 1, guess, guess + 1) if k >= _TEN_DIGITS - 1 and 10**k == size), None)


def _big_int(value: int) -> str:
    """A big int as a power of ten (10 ** 400), or of 2 and what is left (2 ** 1100 + 3); else its digits."""
    sign, size = ("-", -value) if value < 0 else ("", value)
    ten = _power_of_ten(size)
    if ten is not None:
        return f"{sign}10 ** {ten}"
    power = size.bit_length() - 1
    if size - 2**power >= 2 ** (power - 1):
        power += 1  # just under the next power: 2 ** 1101 - 3
    rest = size - 2**power
    if abs(rest) > (_NEAR if power < 64 else 2**64):
        return repr(value)
    text = f"2 ** {power}" + (f" + {rest}" if rest > 0 else f" - {-rest}" if rest < 0 else "")
    return f"-({text})" if sign and rest else f"{sign}{text}"


def py(value: Any, limit: int = 400, runnable: bool = False) -> str:
    """value written as Python source, cut short past `limit` characters. `runnable`: as code that builds it
    (a bare Touchy(), a list that holds itself as holding_itself([...]), which pasteable.py defines)."""
    text = _py(value, runnable)
    return text if len(text) <= limit else text[:limit] + " …(cut)"


def _py(value: Any, runnable: bool = False) -> str:
    tag = tagged(value)
    if tag == "$bytes":
        return repr(value[tag].encode())
    if tag == "$object":
        return "object()"
    if tag == "$touchy":
        return "Touchy()" if runnable else "Touchy()  # its ==, < and hash raise TypeError"
    if tag == "$cycle" and runnable:
        return "holding_itself([" + ", ".join(_py(item, runnable) for item in value[tag]) + "])"
    if tag == "$cycle":  # as Python prints it: no literal can spell it
        return "[" + "".join(f"{_py(item)}, " for item in value[tag]) + "[...]]"
    if tag == "$power":  # as a student would type it: no literal prints it
        base, exponent = value[tag]
        return f"{base} ** {exponent}"
    if tag in ("$intkeys", "$ordered"):
        text = "{" + ", ".join(f"{key!r}: {_py(item, runnable)}" for key, item in value[tag]) + "}"
        return text if tag == "$intkeys" else f"OrderedDict({text})"
    if tag:
        items = [_py(item, runnable) for item in value[tag]]
        if tag == "$tuple" and len(items) == 1:
            return f"({items[0]},)"
        return _SPELLINGS[tag].format(", ".join(items)) if items or tag == "$tuple" else "set()"
    if is_marker(value):
        return f"<not plain data: {value[NOT_PLAIN]}>"
    if type(value) is float and not math.isfinite(value):
        return f"float({str(value)!r})"
    if type(value) is int and abs(value) >= _BIG:
        return _big_int(value)
    if type(value) is list:
        return "[" + ", ".join(_py(item, runnable) for item in value) + "]"
    if type(value) is dict:
        return "{" + ", ".join(f"{key!r}: {_py(item, runnable)}" for key, item in value.items()) + "}"
    return repr(value)
