"""A failing input as code a student can paste into a kit notebook, from the request its case made."""

import ast
import builtins
import math
from dataclasses import dataclass
from typing import Any

from grader.kit.boundary import spies, values
from grader.kit.boundary.runner import LANGGRAPH_DEFAULT_LIMIT

# A check's picture of a setting (TOOLS['t']['args'] = ...) pasted alone stops at its first name: check_args
# is not imported, 't' is not in the student's TOOLS. `pasteable` composes what runs from the very request the
# case made: the imports, the case's table in TOOLS with the grader's spy bodies (which the kit ships), the
# memo, state or picker the call names, and the earlier calls that left something behind (a spy's next step,
# a memo's entries). The call itself is the judge's, already code, and never rewritten.

_IMPORTS = {  # names a shown input may use that are not the student's module's
    "Spy": "from grader.kit.boundary.spies import Spy  # the grader's tool body: its k-th run does step k "
    "(the last one from then on); .runs counts them",
    "Touchy": "from grader.kit.boundary.values import Touchy  # a value whose ==, < and hash raise TypeError",
    "decode": "from grader.kit.boundary.values import decode  # builds a value JSON has no word for",
    "change_everything_in": "from grader.kit.boundary.values import mutate as change_everything_in",
    "suppress": "from contextlib import suppress",
    "OrderedDict": "from collections import OrderedDict  # a dict subclass: a dict all the same",
}
_DEFINED = {
    "holding_itself": "def holding_itself(items):  # a list that holds itself: Python prints it [..., [...]]\n"
    "    items.append(items)\n    return items",
}
_RECURSION_LIMIT = [  # grader/kit/boundary/runner.py's _langgraph_default_limit, for the rest of the session
    "import langgraph._internal._config as langgraph_config  # the grade runs with LangGraph's default "
    f"recursion_limit at {LANGGRAPH_DEFAULT_LIMIT} (restart the kernel to undo)",
    "langgraph_config.DEFAULT_RECURSION_LIMIT = "
    f"type(langgraph_config.DEFAULT_RECURSION_LIMIT)({LANGGRAPH_DEFAULT_LIMIT})",
]
_READS_NO_TOOLS = ("memo_key", "is_json")  # a failing call of these is shown without the table: they never read it


@dataclass(frozen=True)
class Setting:
    """A case's setting as a check draws it (its show, or a judge for the part one call needs): its picture
    of the tools of the case's table that the call reads, their names, and whatever else it sets."""

    table: str = ""  # the tools as the reader is shown them (TOOLS[...] lines; a body as a comment)
    tools: tuple[str, ...] = ()  # their names: () where it names none, and the call may read any
    rest: str = ""  # the rest of the setting, as Python (memo = {})

    @property
    def text(self) -> str:
        """The setting as the check drew it: what a reader reads where it cannot be pasted."""
        return "\n".join(part for part in (self.table, self.rest) if part)


def pasteable(req: dict, observation: dict, setting: Setting, shown: str, at: int | None) -> tuple[str, str] | None:
    """(setting, call) as code that runs pasted into a kit's notebook cell and gives what the submission gave
    the grader; None where that cannot be written (a value cut short, no call). `shown` is the failure's call
    as the check wrote it, `at` the index of the first call it shows (a Mismatch's): the calls before it run first."""
    call = shown  # the judge writes it as code already (values.py's py, runnable)
    calls, results = req.get("calls", []), observation.get("results", [])
    core: list[str] = []
    if at is not None and not 0 <= at < len(calls):
        raise IndexError(f"the failing call {at} of a request of {len(calls)} calls")
    alone = at is not None and calls[at].get("fn") in _READS_NO_TOOLS  # nothing set before it changes its answer
    if "table" in req and not alone:  # the table itself in place of the check's picture of it
        core += _table_source(_used(req["table"], setting.tools))
        core += [setting.rest] if setting.rest else []
    elif setting.text:
        core.append(setting.text)
    earlier = []
    if at and _leaves_state(req) and not alone:
        earlier.append("# what the grader called before it, in the same request: the bodies and the memo remember it")
        earlier += [_earlier_call(calls[i], results[i] if i < len(results) else {}) for i in range(at)]
    spy_names = {name for name in _spelled(calls, "$spy") if type(name) is str}
    made = []  # what the calls name besides the module's own: set after the table, before any call
    for name in _free_names("\n".join([*core, *earlier, call])):
        if name == "state" and at is not None and calls[at].get("args"):
            made.append(f"state = {_source(calls[at]['args'][0])}")
        elif name in spy_names:
            made.append(f"{name} = TOOLS[{name!r}]['fn']")
        elif name == "memo" or (name.startswith("memo") and name[4:].isdigit()):
            made.append(f"{name} = {{}}")
        elif name in _DEFINED:
            made.append(_DEFINED[name])
    body = [*core, *made, *earlier]
    names = _free_names("\n".join([*body, call]))
    own = [name for name in names if name not in _IMPORTS]
    lines = [f"from agtool.tools import {', '.join(own)}"] if own else []
    lines += [_IMPORTS[name] for name in names if name in _IMPORTS]
    outcome = results[at] if at is not None and at < len(results) else {}  # what the failing call gave
    if req.get("stage") == 6 and _hit_the_recursion_limit(outcome):  # LangGraph's limit: set as the grade does
        lines += _RECURSION_LIMIT
    code = "\n".join([*lines, *body])
    try:
        compile(f"{code}\n{call}", "<the failing input>", "exec")
    except (SyntaxError, ValueError):  # a value cut short, or no call at all: none to paste
        return None
    return code, call


def _used(table: dict, tools: tuple[str, ...]) -> dict:
    """The tools of the table the check's setting shows (all where it names none), with the upgrades they name."""
    named = [name for name in table if name in tools] or list(table)
    for name in named:  # grows as it goes: an upgrade's upgrade too
        upgrade = table[name].get("upgrade")
        if type(upgrade) is str and upgrade in table and upgrade not in named:
            named.append(upgrade)
    return {name: entry for name, entry in table.items() if name in named}


def _table_source(table: dict) -> list[str]:
    """The case's table as the child's TOOLS held it (spies.build_table), in the module's TOOLS."""
    lines = ["TOOLS.clear()  # the grader's table in place of yours, until tools.py is imported again"]
    for name, entry in table.items():
        description = entry.get("description", f"the tool {name}")
        spy = f"Spy([{', '.join(map(_step_source, entry['body']))}])"
        lines.append(f"TOOLS[{name!r}] = {{'fn': {spy}, 'description': {description!r}}}")
        lines += [f"TOOLS[{name!r}][{part!r}] = {_source(entry[part])}" for part in ("args", "returns")]
        if "upgrade" in entry:
            lines.append(f"TOOLS[{name!r}]['upgrade'] = {_source(entry['upgrade'])}")
    return lines


def _step_source(step: dict) -> str:
    """A spy's step as Python: what it returns written as a student would type it (10 ** 4300, {'new'})."""
    if "return" in step:
        return "{'return': " + values.py(step["return"], 10**9, runnable=True) + "}"
    return _literal(step)


def _literal(value: Any) -> str:
    """JSON data (a request's spelling, tags and all) as a Python literal of that very data."""
    if type(value) is float and not math.isfinite(value):
        return f"float({str(value)!r})"
    if type(value) is list:
        return "[" + ", ".join(map(_literal, value)) + "]"
    if type(value) is dict:
        return "{" + ", ".join(f"{key!r}: {_literal(item)}" for key, item in value.items()) + "}"
    return repr(value)


def _source(value: Any) -> str:
    """Python that builds the value a request spells, as the child decodes it."""
    if _spelled(value, "$touchy") or _spelled(value, "$cycle"):  # no literal spells these
        return f"decode({_literal(value)})"
    return values.py(value, 10**9)


def _spelled(value: Any, tag: str) -> list:
    """What every {tag: x} anywhere in value holds."""
    return [part[tag] for part in values.inside(value) if type(part) is dict and part.keys() == {tag}]


def _free_names(code: str) -> list[str]:
    """The names code reads and never sets, builtins aside, in the order they first come."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    first: dict[str, tuple[int, int]] = {}  # a name read -> where it is first read
    stored = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            first[node.id] = min(first.get(node.id, (node.lineno, node.col_offset)), (node.lineno, node.col_offset))
        elif isinstance(node, ast.Name):
            stored.add(node.id)
        elif isinstance(node, ast.FunctionDef):
            stored.add(node.name)
            stored.update(arg.arg for arg in node.args.args)
    ordered = sorted(first, key=first.__getitem__)
    return [name for name in ordered if name not in stored and not hasattr(builtins, name)]


def _leaves_state(req: dict) -> bool:
    """Can a call of this request change what a later one gives (a spy's steps, a shared memo, a picker)?"""
    steps = any(len(entry.get("body", ())) > 1 for entry in req.get("table", {}).values())
    return steps or bool(_spelled(req.get("calls", []), "$memo") or _spelled(req.get("calls", []), "$spy"))


def _target(fn: Any) -> str:
    if type(fn) is list and fn and type(fn[0]) is str:
        return fn[0] + "".join(f"[{key!r}]" for key in fn[1:])
    return str(fn)


def _argument_source(arg: Any) -> str:
    if type(arg) is dict and arg.keys() == {"$memo"}:
        return "memo" if arg["$memo"] == 0 else f"memo{arg['$memo']}"
    if type(arg) is dict and arg.keys() == {"$spy"} and type(arg["$spy"]) is str:
        return arg["$spy"] if arg["$spy"].isidentifier() else f"TOOLS[{arg['$spy']!r}]['fn']"
    return values.py(arg, 10**9, runnable=True)


def _call_expression(call: dict) -> str:
    """A request's call as code, as the checks write it: fn(args..., key=value...), a memo as `memo`, a picker by
    its name."""
    target = _target(call["fn"])
    if call.get("get"):
        return target
    given = [_argument_source(arg) for arg in call.get("args", [])]
    given += [f"{key}={_argument_source(arg)}" for key, arg in call.get("kwargs", {}).items()]
    return f"{target}({', '.join(given)})"


def _hit_the_recursion_limit(result: dict) -> bool:
    """Did this call raise LangGraph's GraphRecursionError (or an error about its recursion_limit)?"""
    return "recursion" in str(result.get("raised", "")).lower()


def _earlier_call(call: dict, result: dict) -> str:
    """An earlier call of the request, as it ran: an exception it raised does not stop the input."""
    said = _call_expression(call)
    if call.get("mutate"):
        said = f"change_everything_in({said})"
    if "raised" in result:
        let_out = str(result["raised"]).split(":")[0] in (*spies.LET_OUT, "CancelledError")  # no Exception
        return f"with suppress({'BaseException' if let_out else 'Exception'}):\n    {said}"
    return said
