"""agtool.contract: what the lab provides around the student's agtool/tools.py.

The contract table's rules, checked before any call: check_table() refuses a
table with a mistake in it, with a ContractError naming the tool, the field and
what to write instead. And the constants the stages, the grader's own trusted
code and the tests all read, each defined here once: the type vocabulary, the
largest int JSON can carry, the retry graph's attempt limit and default region.

Not the student's work, and none of the lesson: it ships in the kit as it is,
and a sandboxed submission may import it (the grader's oracle may too: it holds
no stage's solution). agtool.tools imports it, never the other way round: the
table to check is always given (tools.py passes its own TOOLS at import), so this
module reads nothing of the student's.
"""

import re
from typing import Any

# The contract's type names, and what each one is called in JSON Schema. One
# more type name, "any", lets every value through; its JSON Schema is {}.
JSON_TYPES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "list": "array",
    "dict": "object",
}

# The Python types each contract type takes (bool apart: it is an int in Python).
PY_TYPES: dict[str, type | tuple[type, ...]] = {
    "str": str,
    "int": int,
    "float": (int, float),  # an int is a fine float
    "bool": bool,
    "list": list,
    "dict": dict,
    "any": object,
}

# The largest int (in bits) that JSON holds exactly here: Python will not print an
# int of over 4300 digits, and 14,000 bits stay below that.
MAX_INT_BITS = 14_000

# The retry graph's door calls per run when run() is not told, and the region
# use_default_region puts in place of one nobody serves.
# Reasons spelt alike: what a reason may say in another way where nothing later reads the difference.
# One definition, for the notebooks' examples (agtool/lab.py) and the kit's self-check alike
# (grader/kit/checks/stage6.py); stages 2 to 4 judge their own spellings with the contract at hand.
_POSITION = re.compile(r"\.\d+(?=\.|$)|\[\d+\]")  # an item's position after its list's name: .1 or [1]
_CLASS_PATH = re.compile(r"[\w.<>]+")  # a class's __name__, __qualname__ (make.<locals>.Down) or module path


def spelt_alike(got: Any, want: Any, odd_name: bool = False) -> bool:
    """Is the reason `got` the reason `want` in a spelling the lesson allows? An item's position after its
    list's name (range:rows.0.qty for range:rows.qty: 2.7, 3.7), the exception's class by a dotted name that
    ends in its name (tool:raised:builtins.KeyError: 4.4); with odd_name (the tool's name is no str), any
    spelling of it after tool:unknown: (4.2). Reasons stand alone, or after a stage (args:, result:)."""
    if type(got) is not str or type(want) is not str:
        return False
    if got == want:
        return True
    for kind in ("tool:raised:", "tool:unknown:"):
        if want.startswith(kind) != got.startswith(kind):
            return False
    if want.startswith("tool:raised:"):
        path = got.removeprefix("tool:raised:")
        return _CLASS_PATH.fullmatch(path) is not None and path.endswith("." + want.removeprefix("tool:raised:"))
    if want.startswith("tool:unknown:"):
        return odd_name
    return _POSITION.sub("", got) == want


MAX_ATTEMPTS = 3
DEFAULT_REGION = "seoul"
# The whole final state run() gives at once for a max_attempts that is not an int (True and
# False included): no call is made. Rule 6.6 (agtool/rules.py) shows it as the lab's own choice.
ODD_LIMIT: dict[str, Any] = {
    "tool": None,
    "args": None,
    "result": None,
    "reasons": ["run:type:max_attempts"],
    "path": [],
    "attempts": 0,
    "status": "gave_up",
    "answer": None,
}


class ContractError(ValueError):
    """A contract table with a mistake in it. The message names the tool and the field."""


_ARG_KEYS = {"type", "required", "allowed", "min", "max", "properties", "items", "description", "default"}
_ITEM_KEYS = _ARG_KEYS - {"required", "default"}  # an item of a list is never absent, so never defaulted
_RETURN_KEYS = {"type", "max_len", "min", "max", "allow_empty", "items"}
_ENTRY_KEYS = {"fn", "description", "args", "returns", "upgrade"}


def check_table(tools: dict) -> None:
    """Refuse a contract table with a mistake in it, before any call is made.

    Raises ContractError naming the tool, the field and what to write instead.
    agtool.tools calls it once at import with its TOOLS; call it again after
    editing TOOLS (check_table(tools.TOOLS)).
    """
    if not isinstance(tools, dict):
        raise ContractError(f"TOOLS must be a dict of tool name -> entry, not {type(tools).__name__}")
    for name, entry in tools.items():
        where = f"TOOLS[{name!r}]"
        if not isinstance(entry, dict):
            raise ContractError(f"{where} must be a dict with fn, description, args and returns")
        _check_keys(where, entry, _ENTRY_KEYS, required={"fn", "description", "args", "returns"})
        if not callable(entry["fn"]):
            raise ContractError(f"{where}['fn'] must be the tool's function, not {entry['fn']!r}")
        if not isinstance(entry["description"], str) or not entry["description"].strip():
            raise ContractError(f"{where}['description'] must be a non-empty str: the model reads it")
        if "upgrade" in entry and entry["upgrade"] not in tools:
            raise ContractError(f"{where}['upgrade'] names {entry['upgrade']!r}, which is not in TOOLS")
        _check_args(f"{where}['args']", entry["args"])
        _check_returns(f"{where}['returns']", entry["returns"])


def _check_args(where: str, args: Any) -> None:
    for arg, spec in _as_specs(where, args).items():
        _check_arg(f"{where}[{arg!r}]", spec, _ARG_KEYS)


def _check_arg(where: str, spec: Any, known: set) -> None:
    _check_spec(where, spec, known)
    if "properties" in spec:
        _only_for(where, spec, "properties", "dict")
        _check_args(f"{where}['properties']", spec["properties"])
    if "items" in spec:
        _only_for(where, spec, "items", "list")
        _check_arg(f"{where}['items']", spec["items"], _ITEM_KEYS)


def _check_returns(where: str, returns: Any) -> None:
    for key, spec in _as_specs(where, returns).items():
        _check_spec(f"{where}[{key!r}]", spec, _RETURN_KEYS)
        if "items" in spec:
            _only_for(f"{where}[{key!r}]", spec, "items", "list")
            _check_returns(f"{where}[{key!r}]['items']", spec["items"])


def _only_for(where: str, spec: dict, key: str, kind: str) -> None:
    if spec["type"] != kind:
        raise ContractError(f"{where}[{key!r}] is only for type {kind!r}, not {spec['type']!r}")


def _as_specs(where: str, specs: Any) -> dict:
    if not isinstance(specs, dict) or not all(isinstance(k, str) for k in specs):
        raise ContractError(f"{where} must be a dict of name (str) -> spec")
    return specs


def _check_keys(where: str, spec: dict, known: set, required: set) -> None:
    unknown = sorted(set(spec) - known, key=str)
    if unknown:
        raise ContractError(f"{where} has unknown key {unknown[0]!r}; known keys: {', '.join(sorted(known))}")
    missing = sorted(required - set(spec))
    if missing:
        raise ContractError(f"{where} is missing {missing[0]!r}")


def _check_spec(where: str, spec: Any, known: set) -> None:
    if not isinstance(spec, dict):
        raise ContractError(f"{where} must be a dict such as {{'type': 'str'}}, not {spec!r}")
    _check_keys(where, spec, known, required={"type"})
    kind = spec["type"]
    if not isinstance(kind, str) or kind not in PY_TYPES:
        raise ContractError(f"{where}['type'] is {kind!r}; use one of {', '.join(PY_TYPES)}")
    for bound in ("min", "max"):
        if bound in spec:
            if kind not in ("int", "float"):
                raise ContractError(f"{where}[{bound!r}] only applies to int and float, not {kind!r}")
            if not _table_value(spec[bound], kind):
                raise ContractError(f"{where}[{bound!r}] must be a finite {kind}, not {spec[bound]!r}")
            if spec[bound] != spec[bound] or abs(spec[bound]) == float("inf"):
                raise ContractError(f"{where}[{bound!r}] must be a finite {kind}, not {spec[bound]!r}")
    if "min" in spec and "max" in spec and spec["min"] > spec["max"]:
        raise ContractError(f"{where}: 'min' {spec['min']!r} is above 'max' {spec['max']!r}")
    if "description" in spec and not isinstance(spec["description"], str):
        raise ContractError(f"{where}['description'] must be a str (what the model reads), not {spec['description']!r}")
    for flag in ("required", "allow_empty"):
        if flag in spec and not isinstance(spec[flag], bool):
            raise ContractError(f"{where}[{flag!r}] must be True or False, not {spec[flag]!r}")
    if "allowed" in spec:
        # Python's `in` finds True in [1] and [True] in [[1]], where JSON Schema's enum
        # does not: allowed values are kept to types that are checked before `in` runs.
        if kind not in ("str", "int", "float", "bool"):
            raise ContractError(f"{where}['allowed'] is for str, int, float or bool args, not {kind!r}")
        allowed = spec["allowed"]
        if not isinstance(allowed, list) or not allowed:
            raise ContractError(f"{where}['allowed'] must be a non-empty list of values, not {allowed!r}")
        wrong = [v for v in allowed if not _table_value(v, kind)]
        if wrong:
            raise ContractError(f"{where}['allowed'] holds {wrong[0]!r}, which is not of type {kind}")
    if "max_len" in spec:
        if kind != "list":
            raise ContractError(f"{where}['max_len'] only applies to lists, not {kind!r}")
        if not _table_value(spec["max_len"], "int") or spec["max_len"] < 0:
            raise ContractError(f"{where}['max_len'] must be an int >= 0, not {spec['max_len']!r}")


# The values a table itself holds (bounds, allowed values, max_len), by exact type: what the
# table's check needs, and no more. Not the lesson's has_type (stage 2 writes that one, for
# every kind and for subclasses too): nothing a student could hand in as theirs.
_TABLE_VALUE_TYPES = {"str": (str,), "int": (int,), "float": (int, float), "bool": (bool,)}


def _table_value(value: Any, kind: str) -> bool:
    """Is value, written in a table, of kind (str, int, float or bool)? type(True) is bool, never int."""
    return type(value) in _TABLE_VALUE_TYPES[kind]
