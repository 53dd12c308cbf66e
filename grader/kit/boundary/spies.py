"""Spy tool bodies: they count their runs, and return or raise what the grader chose.

A request's table gives its tools spies for bodies:

    {"t": {"description": "...", "args": {...}, "returns": {...}, "upgrade": "t2",
           "body": [{"return": value}, {"raise": "KeyError"}, {"echo": value}]}}

Run k of a body does step k (the last one again once they are used up); an echo returns its value with
the args the body got under "got". The spies live in the parent: the child's TOOLS get stubs that ask
the parent to run the body (runner.py), and the parent counts.
"""

import builtins
import copy
from collections.abc import Callable
from typing import Any

from grader.kit.boundary.values import decode

_made: dict[str, type] = {}  # the exception classes made for the names spies raise that are not built in
# The built-in BaseExceptions that are no Exception: a door must let them out (stage 4).
LET_OUT = ("KeyboardInterrupt", "SystemExit", "GeneratorExit")
SPY_MARK = "grader_spy"  # set on every exception a spy raises: the child tells it from a real Ctrl-C
STEPS = ("return", "raise", "echo")  # what a body's step does: a step is a dict of one of these


def is_body(steps: Any) -> bool:
    """Is it a body a spy can run: a non-empty list of steps, each {kind: what} for a kind of STEPS?"""
    return (
        type(steps) is list
        and bool(steps)
        and all(type(step) is dict and len(step) == 1 and next(iter(step)) in STEPS for step in steps)
    )


def exception_class(name: str) -> type:
    """The built-in Exception class of that name (or one of LET_OUT), asyncio.CancelledError, or a new one."""
    found = getattr(builtins, name, None)
    if isinstance(found, type) and (issubclass(found, Exception) or name in LET_OUT):
        return found
    if name == "CancelledError":  # asyncio's: a BaseException, no Exception, and none of the three (stage 4)
        import asyncio  # already imported wherever LangGraph is

        return asyncio.CancelledError
    if name not in _made:
        _made[name] = type(name, (Exception,), {})
    return _made[name]


class Spy:
    """A tool body that records each run's args and does what its steps say, or what `wraps` does.

    `calls` holds one entry a run: its args (a positional one under its index), or None for a run the
    child asked for by name alone (its args stay there); `runs` counts them; `last` is what it last returned.
    """

    def __init__(self, steps: list[dict] | None = None, wraps: Callable[..., Any] | None = None, spelled: bool = False):
        """steps' values written as Python (each run returns a deep copy: a caller may change it), or,
        `spelled`, as a request spells them in JSON (each run decodes the value afresh)."""
        self.steps, self.wraps, self.spelled = steps or [], wraps, spelled
        self.calls: list[dict[int | str, Any] | None] = []
        self.last: Any = None

    @property
    def runs(self) -> int:
        return len(self.calls)

    def step(self, args: dict[int | str, Any] | None = None) -> dict:
        """This run's step, as data ({"return": spelled value} or {"raise": name}); records the run."""
        step = self.steps[min(self.runs, len(self.steps) - 1)]
        self.calls.append(args)
        return step

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        seen: dict[int | str, Any] = dict(enumerate(args))
        seen.update(kwargs)
        if self.wraps is not None:  # a test's spy around a real body: the body decides
            self.calls.append(seen)
            self.last = self.wraps(*args, **kwargs)
            return self.last
        step = self.step(seen)
        if "raise" in step:
            raise spy_error(step["raise"])
        if "echo" in step:
            self.last = echoed(step, args, kwargs)
        else:  # a fresh value each run
            self.last = decode(step["return"]) if self.spelled else copy.deepcopy(step["return"])
        return self.last


def echoed(step: dict, args: tuple, kwargs: dict) -> dict:
    """An echo step's value with the args the body was given under "got" (positional ones by their index as a
    str): a door that fills in a default, or drops an arg, shows."""
    got: dict[str, Any] = {str(index): arg for index, arg in enumerate(args)}
    got.update(kwargs)
    return {**decode(step["echo"]), "got": got}


def spy_error(name: str) -> BaseException:
    """The exception a spy raises for a step {"raise": name}, marked as the spy's."""
    error = exception_class(name)("raised by the grader's spy tool")
    setattr(error, SPY_MARK, True)
    return error


def build_table(spec: dict, body: Callable[[str], Callable]) -> dict:
    """A TOOLS table from a table spec, each tool's fn made by body(tool name)."""
    tools = {}
    for name, entry in spec.items():
        tools[name] = {
            "fn": body(name),
            "description": entry.get("description", f"the tool {name}"),
            "args": decode(entry["args"]),
            "returns": decode(entry["returns"]),
        }
        if "upgrade" in entry:
            tools[name]["upgrade"] = entry["upgrade"]
    return tools


def spy_table(spec: dict) -> tuple[dict, dict[str, Spy]]:
    """(a TOOLS table with spy bodies, tool name -> its spy): the parent's own copy of a case's table."""
    found = bodies(spec)
    return build_table(spec, found.__getitem__), found


def bodies(spec: dict) -> dict[str, Spy]:
    """Tool name -> its spy: what the parent runs for the child, which holds the table itself."""
    return {name: Spy(entry["body"], spelled=True) for name, entry in spec.items()}


def without_bodies(spec: dict) -> dict:
    """The table as the child may see it: what each body will do stays with the parent."""
    return {name: {key: part for key, part in entry.items() if key != "body"} for name, entry in spec.items()}


def runs(spies: dict[str, Spy]) -> dict[str, int]:
    return {name: spy.runs for name, spy in spies.items()}


def runs_since(spies: dict[str, Spy], before: dict[str, int]) -> dict[str, int]:
    """Body runs per tool since `before`, tools that did not run left out."""
    return {name: spy.runs - before[name] for name, spy in spies.items() if spy.runs != before[name]}
