"""The child side: everything that runs in the submission's process.

`child_main(path, recv, send)` imports the submission by path, then answers
requests until `recv()` gives None. It never judges: it calls the student's
functions as a request says and sends back what happened, as plain JSON data
(`values.to_plain`). All judging happens in the parent.

A request (the parent builds them in grader/checks/) and its observation:

    {"stage": N, "table": {...spy table...}, "calls": [
         {"fn": "check_args" | ["TOOLS", "t", "fn"], "args": [...], "kwargs": {...},
          "get": bool, "mutate": bool, "as": "graph"}]}
        -> {"results": [{"value": v} | {"raised": "KeyError: 'x'"} | {"not_implemented": msg},
                        each with "runs": {tool: body runs during this call}]}

Before the calls of stage N, the grader's trusted versions of the earlier
stages' functions go into the module's globals (`oracle.bind`; not in the
student kit, which has no oracle: there stage N runs on the student's own), and a given
table replaces the contents of the module's TOOLS (spy bodies, grader/spies.py).
An argument {"$memo": k} is one dict shared by the calls of a request; "get"
reads the target instead of calling it (TOOLS itself, MAX_ATTEMPTS).

Import failures, NotImplementedError (a stage not started) and every other
exception become observations, never a crash of the child.
"""

import itertools
import os
import sys
import importlib.util
from typing import Any, Callable

from grader import spies, trusted, values
from grader.trusted import oracle

_module_numbers = itertools.count()
_MISSING = object()


def child_main(path: str, recv: Callable[[], Any], send: Callable[[Any], None]) -> None:
    child = Child(path)
    while (request := recv()) is not None:
        send(child.answer(request))


def error_text(error: BaseException, limit: int = 300) -> str:
    """'KeyError: 'x'': what a student needs to know about an exception, cut short."""
    try:
        text = f"{type(error).__name__}: {error}".strip().removesuffix(":")
    except Exception:  # a hostile __str__
        text = type(error).__name__
    return text if len(text) <= limit else text[:limit] + " …"


def load(path: str) -> tuple[Any, str | None]:
    """(module, None), or (None, why it could not be imported, with the line in tools.py)."""
    name = f"submission_{os.getpid()}_{next(_module_numbers)}"
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module   # dataclasses and typing look their module up here
        spec.loader.exec_module(module)
        return module, None
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # SyntaxError, NameError, sys.exit() ... at import
        sys.modules.pop(name, None)
        return None, error_text(error) + _line_in(error, path)


def _line_in(error: BaseException, path: str) -> str:
    if isinstance(error, SyntaxError):
        return ""  # its message already names the line
    lines = [frame.tb_lineno for frame in _frames(error.__traceback__)
             if os.path.abspath(frame.tb_frame.f_code.co_filename) == os.path.abspath(path)]
    return f" (line {lines[-1]} of {os.path.basename(path)})" if lines else ""


def _frames(traceback):
    while traceback is not None:
        yield traceback
        traceback = traceback.tb_next


class Child:
    """One imported submission and the requests it answers."""

    def __init__(self, path: str):
        self.module, self.import_error = load(path)
        if self.module is None:
            return
        self.trusted = oracle.bind(self.module) if trusted.present() else {}
        own = vars(self.module)
        self.originals = {name: own.get(name, _MISSING) for name in self.trusted}
        self.replaceable = {name for name, (_, fn) in self.trusted.items()
                            if name in oracle.SPEC_NAMES or oracle.fits(fn, self.originals[name])}

    def close(self) -> None:
        if self.module is not None:
            sys.modules.pop(self.module.__name__, None)

    def answer(self, request: dict) -> dict:
        if self.module is None:
            return {"error": "import", "message": self.import_error}
        try:
            return self.calls(request)
        except Exception as error:  # the submission broke something the child needs
            return {"error": "child", "message": error_text(error)}

    def calls(self, request: dict) -> dict:
        self.isolate(request.get("stage", 1))
        bodies = self.install(request["table"]) if "table" in request else {}
        memos: dict = {}
        results = []
        for call in request["calls"]:
            before = spies.runs(bodies)
            outcome = self.call(call, memos)
            outcome["runs"] = spies.runs_since(bodies, before)
            results.append(outcome)
        return {"results": results}

    def isolate(self, stage: int) -> None:
        """The trusted versions of stages below `stage` in; the student's own for the rest."""
        own = vars(self.module)
        for name, (owner, function) in self.trusted.items():
            if owner < stage and name in self.replaceable:
                own[name] = function
            elif self.originals[name] is _MISSING:
                own.pop(name, None)
            else:
                own[name] = self.originals[name]

    def install(self, table: dict) -> dict:
        """The table's tools, spy bodies and all, become the contents of the module's TOOLS."""
        tools, bodies = spies.build_table(table)
        current = getattr(self.module, "TOOLS", None)
        if not isinstance(current, dict):
            current = {}
        current.clear()        # in place: a function holding on to TOOLS sees it too
        current.update(tools)
        self.module.TOOLS = current
        return bodies

    def call(self, call: dict, memos: dict) -> dict:
        try:
            target = self.find(call["fn"])
        except (AttributeError, KeyError, TypeError) as error:
            return {"raised": f"tools.py has no {call['fn']!r} ({error_text(error)})"}
        args = [_argument(arg, memos) for arg in call.get("args", [])]
        kwargs = {key: _argument(arg, memos) for key, arg in call.get("kwargs", {}).items()}
        try:
            result = target if call.get("get") else target(*args, **kwargs)
        except NotImplementedError as error:
            return {"not_implemented": error_text(error)}
        except (Exception, SystemExit) as error:
            return {"raised": error_text(error)}
        outcome = {"value": _AS[call.get("as", "plain")](result)}
        if call.get("mutate"):
            try:
                values.mutate(result)
            except Exception:  # a value that refuses to change cannot leak a change either
                pass
        return outcome

    def find(self, where: str | list) -> Any:
        """A module global by name, or a path into one: ["TOOLS", "t", "fn"]."""
        path = [where] if isinstance(where, str) else where
        found = getattr(self.module, path[0])
        for key in path[1:]:
            found = found[key]
        return found


def _argument(arg: Any, memos: dict) -> Any:
    """The value a request spells; {"$memo": k} is the request's shared memo dict k."""
    if type(arg) is dict and arg.keys() == {"$memo"}:
        return memos.setdefault(arg["$memo"], {})
    return values.decode(arg)


def _describe_graph(graph: Any) -> dict:
    """What the grader needs to know of build_graph()'s result."""
    state = sys.modules.get("langgraph.graph.state")
    compiled = state is not None and isinstance(graph, state.CompiledStateGraph)
    try:
        nodes = sorted(str(node) for node in graph.nodes) if compiled else []
    except Exception:
        nodes = []
    return {"compiled": compiled, "type": type(graph).__qualname__, "nodes": nodes}


_AS = {"plain": values.to_plain, "graph": _describe_graph}
