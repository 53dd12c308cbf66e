"""Spy tool bodies: they count their runs, and return or raise what the grader chose.

A request describes a contract table whose tools have spies for bodies:

    {"t": {"description": "...", "args": {...}, "returns": {...}, "upgrade": "t2",
           "body": [{"return": value}, {"raise": "KeyError"}]}}

Run k of a body does step k of its list (the last step again once the list is
used up). The child builds the table to put in the submission's TOOLS; the
parent builds the very same one to predict what a correct module would do.
"""

import builtins

from grader.values import decode

# Exception names the grader raises from spies: the built-in ones, and its own.
_made: dict[str, type] = {}


def exception_class(name: str) -> type:
    """The built-in Exception class of that name, or a new Exception subclass named so."""
    found = getattr(builtins, name, None)
    if isinstance(found, type) and issubclass(found, Exception):
        return found
    if name not in _made:
        _made[name] = type(name, (Exception,), {})
    return _made[name]


class Spy:
    """A tool body that counts its runs and does what its steps say; `last` is what it last returned."""

    def __init__(self, steps: list[dict]):
        self.steps, self.runs, self.last = steps, 0, None

    def __call__(self, *args, **kwargs):
        step = self.steps[min(self.runs, len(self.steps) - 1)]
        self.runs += 1
        if "raise" in step:
            raise exception_class(step["raise"])("raised by the grader's spy tool")
        self.last = decode(step["return"])  # a fresh value each run: a caller may change it
        return self.last


def build_table(spec: dict) -> tuple[dict, dict[str, Spy]]:
    """(a TOOLS table with spy bodies, tool name -> its spy) from a table spec."""
    tools, spies = {}, {}
    for name, entry in spec.items():
        spies[name] = Spy(entry["body"])
        tools[name] = {"fn": spies[name], "description": entry.get("description", f"the tool {name}"),
                       "args": decode(entry["args"]), "returns": decode(entry["returns"])}
        if "upgrade" in entry:
            tools[name]["upgrade"] = entry["upgrade"]
    return tools, spies


def runs(spies: dict[str, Spy]) -> dict[str, int]:
    return {name: spy.runs for name, spy in spies.items()}


def runs_since(spies: dict[str, Spy], before: dict[str, int]) -> dict[str, int]:
    """Body runs per tool since `before`, tools that did not run left out."""
    return {name: spy.runs - before[name] for name, spy in spies.items() if spy.runs != before[name]}
