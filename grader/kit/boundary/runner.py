"""The child side: everything that runs in the submission's process.

`Child(path, bind, body)` imports the submission; `answer(request, emit)` calls the student's
functions as the request says and emits one outcome per call, as plain JSON data
(`values.to_plain`). It never judges and never counts: a spy tool in the child's TOOLS is a stub
that asks the parent to run its body (`body(tool)`), so no body run can happen unseen.

A request (built in grader/kit/checks/) and what comes back:

    {"stage": N, "table": {...spy table, bodies left out...}, "literal": bool (optional), "calls": [
         {"fn": "check_args" | ["TOOLS", "t", "fn"], "args": [...], "kwargs": {...},
          "get": bool, "mutate": bool, "each": ["fn"], "follow": "build_graph", "kept": bool}]}
        -> per call, in order: {"value": v} | {"raised": "KeyError: 'x'"} | {"not_implemented": msg}
        -> or once: {"error": "import" | "child", "message": ...}

Before stage N's calls, the trusted versions of the earlier stages (`bind(module)`, never in the
kit) go into the module's globals, and the request's table replaces the contents of its TOOLS.
{"$memo": k} is one dict shared by the request's calls; "get" reads the target instead of calling it.

Nothing the child says about a value is evidence of what it is (a plain dict can spell a function's
marker), so what must be a function or a graph is put to work: "each": ["fn"] calls every entry's
fn, one outcome per entry ({"t": {"value": v} | {"raised": text}}); "follow": "build_graph" hands
the call the graph the submission's own build_graph() gives, watched as LangGraph streams it, and
the value is {"returned": ..., "walks": [[[node, its update], ...] per invoke]}, which stage 6 judges
against the spy bodies run meanwhile. "kept": the value is {"returned": ..., "args": the arguments
as the call left them, each dict's entries as handed in}, so a change made in place shows.
Import failures, NotImplementedError and every other exception become outcomes, never a crash.
"""

import builtins
import contextlib
import functools
import importlib.machinery
import importlib.util
import inspect
import itertools
import operator
import os
import sys
from collections.abc import Callable, Iterator
from types import CodeType
from typing import Any

from grader.kit.boundary import spies, values

_module_numbers = itertools.count()
_MISSING = object()

# The lab's modules a tools.py may import: those the sandbox's zygote preloads, in a student's own kernel
# as in the sandbox, so the two agree on every file.
LAB_IMPORTS = frozenset({"agtool", "agtool.contract", "agtool.inventory"})

# The spec's names later stages read through the module's globals: their trusted versions go in always;
# the skeleton's helpers only where the submission kept their parameters.
SPEC_NAMES = {"check_args", "check_result", "call_tool", "memo_key", "call_memo"}

# LangGraph's default recursion limit while the submission runs: 25, its default before 1.0 and what a
# deployment may set. run sets its own limit from max_attempts (notebook 06), so a run that leaves it to
# LangGraph is cut short by 6.6's 51 calls here, where today's default takes 5,000 calls to reach.
LANGGRAPH_DEFAULT_LIMIT = 25

Binder = Callable[[Any], dict]  # module -> {name: (stage, trusted function)}
Body = Callable[[str], dict]  # tool -> {"return": spelled value} | {"raise": name}


def error_text(error: BaseException, limit: int = 300) -> str:
    """'KeyError: 'x'': what a student needs to know about an exception, cut short."""
    try:
        text = f"{type(error).__name__}: {error}".strip().removesuffix(":")
    except Exception:  # a hostile __str__
        text = type(error).__name__
    return text if len(text) <= limit else text[:limit] + " …"


def load(
    path: str, code: CodeType | None = None, source: bytes | None = None, shown: str | None = None
) -> tuple[Any, str | None]:
    """(module, None), or (None, why it could not be imported, with the line in tools.py). `code`: already
    compiled (grader/kit/compiled.py); `source`: its bytes, already read (grader/kit/intake.py). The module
    is compiled as from `shown`, the file as its reader names it, and its __file__ says so: a message or a
    traceback never names the grader's path to it."""
    name = f"submission_{os.getpid()}_{next(_module_numbers)}"
    shown = path if shown is None else shown
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            return None, f"{os.path.basename(path)} is not a Python module"
        # Nothing of the module names the grader's path to it: no loader of that file, no spec's origin.
        module = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(name, None, origin=shown))
        vars(module)["__file__"] = shown
        vars(module)["__builtins__"] = {**vars(builtins), "__import__": _lab_import}  # its imports, now and later
        sys.modules[name] = module  # dataclasses and typing look their module up here
        if code is None:
            if source is None:
                with open(path, "rb") as file:
                    source = file.read()
            code = compile(source, shown, "exec", dont_inherit=True)  # as exec_module compiles the file's bytes
        exec(code, vars(module))  # as exec_module runs what it compiled
        return module, None
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # SyntaxError, NameError, sys.exit() ... at import
        sys.modules.pop(name, None)
        return None, error_text(error) + _line_in(error, shown, path)


def _lab_import(name, globals=None, locals=None, fromlist=(), level=0):
    """__import__ for a submission: any module, but of the lab's only LAB_IMPORTS."""
    wanted = [name] if level == 0 else []
    if level == 0 and name == "agtool":
        package = sys.modules.get("agtool")
        wanted += [
            f"agtool.{item}"
            for item in fromlist or ()
            if not hasattr(package, item) or inspect.ismodule(getattr(package, item))
        ]
    for module in wanted:
        if (module == "agtool" or module.startswith("agtool.")) and module not in LAB_IMPORTS:
            raise ImportError(LAB_IMPORT_REFUSED.format(module=module), name=module)
    return builtins.__import__(name, globals, locals, fromlist, level)


LAB_IMPORT_REFUSED = (
    "tools.py may not import {module}: of the lab's modules, only agtool.contract and agtool.inventory "
    "are there when it is graded (write what you need in tools.py itself)"
)


def _line_in(error: BaseException, shown: str, path: str) -> str:
    """Where in the file, compiled as from `shown`, the error was raised: " (line N of tools.py)", or ""."""
    if isinstance(error, SyntaxError):
        return ""  # its message already names the line
    line, traceback = None, error.__traceback__
    while traceback is not None:
        if traceback.tb_frame.f_code.co_filename == shown:
            line = traceback.tb_lineno
        traceback = traceback.tb_next
    return "" if line is None else f" (line {line} of {os.path.basename(path)})"


def fits(trusted: Callable, theirs: Any) -> bool:
    """May `trusted` stand in for the submission's own function of that name?"""
    try:
        return list(inspect.signature(theirs).parameters) == list(inspect.signature(trusted).parameters)
    except (TypeError, ValueError):
        return False


class Child:
    """One imported submission and the requests it answers."""

    def __init__(
        self,
        path: str,
        bind: Binder,
        body: Body,
        code: CodeType | None = None,
        source: bytes | None = None,
        shown: str | None = None,
    ):
        self.body = body
        self.module, self.import_error = load(path, code, source, shown)
        if self.module is None:
            return
        self.trusted = bind(self.module)
        own = vars(self.module)
        self.originals = {name: own.get(name, _MISSING) for name in self.trusted}
        self.replaceable = {
            name for name, (_, fn) in self.trusted.items() if name in SPEC_NAMES or fits(fn, self.originals[name])
        }

    def close(self) -> None:
        if self.module is not None:
            sys.modules.pop(self.module.__name__, None)

    def answer(self, request: dict, emit: Callable[[dict], None]) -> None:
        """Emit one outcome per call of the request, or one {"error": ...} when none can be had."""
        if self.module is None:
            return emit({"error": "import", "message": self.import_error})
        try:
            self.isolate(request.get("stage", 1))
            if "table" in request:
                self.install(request["table"], literal=request.get("literal", False))
        except Exception as error:  # the submission broke something the child needs
            return emit({"error": "child", "message": error_text(error)})
        memos: dict = {}
        for call in request["calls"]:
            emit(self.call(call, memos))

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

    def install(self, table: dict, literal: bool = False) -> None:
        """The table's tools, with stub bodies that the parent runs, become the contents of the module's TOOLS;
        `literal`: its strs interned, as in a table written in Python (else as json.loads makes them)."""
        tools = spies.build_table(interned(table) if literal else table, lambda name: _stub(name, self.body))
        current = getattr(self.module, "TOOLS", None)
        if not isinstance(current, dict):
            current = {}
        current.clear()  # in place: a function holding on to TOOLS sees it too
        current.update(tools)
        self.module.TOOLS = current

    def call(self, call: dict, memos: dict) -> dict:
        try:
            target = self.find(call["fn"])
        except (AttributeError, KeyError, TypeError) as error:
            if isinstance(call["fn"], list) and getattr(self.module, call["fn"][0], None) == {}:
                return {"not_implemented": f"{call['fn'][0]} is still empty"}  # a table not yet filled in
            # An AttributeError names the module as the grader imported it (submission_<pid>_<n>): a
            # name that changes run to run and tells the student nothing; what is missing is said already.
            detail = "" if isinstance(error, AttributeError) else f" ({error_text(error)})"
            return {"raised": f"tools.py has no {call['fn']!r}{detail}"}
        args = [_argument(arg, memos, self.body) for arg in call.get("args", [])]
        kwargs = {key: _argument(arg, memos, self.body) for key, arg in call.get("kwargs", {}).items()}
        walks: list[list] | None = None
        # each dict argument's entries as handed in: what they hold after the call is the caller's to see
        held = [dict(arg) if type(arg) is dict else arg for arg in args] if call.get("kept") else None
        try:
            with _langgraph_default_limit():
                if call.get("get"):
                    result = target
                elif "each" in call:
                    result = _each(target, call["each"], args, kwargs)
                elif "follow" in call:
                    walks = []
                    with self.following(call["follow"], walks):
                        result = target(*args, **kwargs)
                else:
                    result = target(*args, **kwargs)
        except NotImplementedError as error:
            return {"not_implemented": error_text(error)}
        except BaseException as error:
            return {"raised": _raised(error)}
        try:
            shown = result if walks is None else {"returned": result, "walks": walks}
            outcome = {"value": values.to_plain(shown if held is None else {"returned": shown, "args": held})}
        except Exception as error:  # a value whose __repr__ or keys fight back
            return {"raised": f"returned a value that cannot be read ({error_text(error)})"}
        if call.get("mutate"):
            with contextlib.suppress(Exception):  # a value that refuses to change cannot leak a change either
                values.mutate(result)
        return outcome

    @contextlib.contextmanager
    def following(self, name: str, walks: list[list]) -> Iterator[None]:
        """The module's global `name` (build_graph) followed while the block runs: the graph it gives
        records, per invoke, every node's update as LangGraph streams it."""
        own = vars(self.module)
        original = own.get(name, _MISSING) if type(name) is str else _MISSING
        if not callable(original):
            yield
            return

        def followed(*args, **kwargs):
            graph = original(*args, **kwargs)
            return _Walked(graph, walks) if callable(getattr(graph, "stream", None)) else graph

        own[name] = followed
        try:
            yield
        finally:
            if own.get(name) is followed:
                own[name] = original

    def find(self, where: str | list) -> Any:
        """A module global by name, or a path into one: ["TOOLS", "t", "fn"]."""
        path = [where] if isinstance(where, str) else where
        return functools.reduce(operator.getitem, path[1:], getattr(self.module, path[0]))


@contextlib.contextmanager
def _langgraph_default_limit() -> Iterator[None]:
    """LANGGRAPH_DEFAULT_LIMIT as LangGraph's default while the block runs (where LangGraph is loaded at all)."""
    config: Any = sys.modules.get("langgraph._internal._config")
    saved = getattr(config, "DEFAULT_RECURSION_LIMIT", None)
    if saved is None:
        yield
        return
    config.DEFAULT_RECURSION_LIMIT = type(saved)(LANGGRAPH_DEFAULT_LIMIT)  # its own type: "no limit given"
    try:
        yield
    finally:
        config.DEFAULT_RECURSION_LIMIT = saved


def interned(value: Any) -> Any:
    """value with every str in it interned, keys too, as in a table written in Python (where json.loads
    makes new strs): a check written `kind is "list"` passes only one kind, and a case of each tells it."""
    if type(value) is str:
        return sys.intern(value)
    if type(value) is list:
        return [interned(item) for item in value]
    if type(value) is dict:
        return {interned(key) if type(key) is str else key: interned(item) for key, item in value.items()}
    return value


def _stub(name: str, body: Body) -> Callable:
    """A tool body that is the parent's: it runs there, counted there, and its value comes from there."""

    def run(*args, **kwargs):
        step = body(name)
        if "raise" in step:
            raise spies.spy_error(step["raise"])
        if "echo" in step:
            return spies.echoed(step, args, kwargs)
        return values.decode(step["return"])  # a fresh value each run: a caller may change it

    run.__name__ = run.__qualname__ = name
    return run


def _argument(arg: Any, memos: dict, body: Body) -> Any:
    """The value a request spells; {"$memo": k} is the request's shared memo dict k; {"$spy": t}
    is a function whose body is the table's tool t, run by the parent (a picker for run())."""
    if type(arg) is dict and arg.keys() == {"$memo"}:
        return memos.setdefault(arg["$memo"], {})
    if type(arg) is dict and arg.keys() == {"$spy"} and type(arg["$spy"]) is str:
        return _stub(arg["$spy"], body)
    return values.decode(arg)


def _each(table: Any, path: list, args: list, kwargs: dict) -> dict:
    """{key: the outcome of calling table[key][path...](*args, **kwargs)}, for every str key of table."""
    outcomes = {}
    for key, entry in list(table.items()):
        if type(key) is not str:
            continue
        try:
            found = functools.reduce(operator.getitem, path, entry)
            outcomes[key] = {"value": values.to_plain(found(*args, **kwargs))}
        except BaseException as error:  # NotImplementedError too: what a call of it did
            outcomes[key] = {"raised": _raised(error)}
    return outcomes


def _raised(error: BaseException) -> str:
    """An exception out of a call, as its outcome: any Exception or SystemExit, and a spy's KeyboardInterrupt
    or GeneratorExit; a real Ctrl-C goes on. By its type, as an except clause reads it: isinstance would take
    the word of a __class__ the submission wrote."""
    if not issubclass(type(error), Exception | SystemExit) and not getattr(error, spies.SPY_MARK, False):
        raise error
    return error_text(error)


class _Walked:
    """A graph whose invoke is its own class's, run on this stand-in: LangGraph's invoke streams through
    self.stream, as run may itself, and this stream asks for the updates too, keeps each, and gives the
    caller only the chunks it asked for. Everything else is the graph's own."""

    def __init__(self, graph: Any, walks: list[list]):
        self._graph, self._walks = graph, walks
        self._invoking = False

    def invoke(self, *args: Any, **kwargs: Any) -> Any:
        self._walks.append([])
        self._invoking = True
        try:
            return type(self._graph).invoke(self, *args, **kwargs)
        finally:
            self._invoking = False

    def stream(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        if not self._invoking:  # run streams the graph itself: a walk of its own
            self._walks.append([])
        walk = self._walks[-1]
        asked = kwargs.get("stream_mode") or getattr(self._graph, "stream_mode", "values")
        if kwargs.get("subgraphs") or kwargs.get("version", "v1") != "v1" or not isinstance(asked, str | list | tuple):
            yield from self._graph.stream(*args, **kwargs)  # chunks of another shape: no walk is read from them
            return
        modes = [asked] if isinstance(asked, str) else list(asked)
        added = "updates" not in modes
        if added or isinstance(asked, str):
            kwargs["stream_mode"] = [*modes, "updates"] if added else modes
        for mode, payload in self._graph.stream(*args, **kwargs):
            if mode == "updates" and type(payload) is dict:  # plain now: a later node may change what it holds
                walk.extend([str(node), values.to_plain(part)] for node, part in payload.items())
            if not (added and mode == "updates"):
                yield payload if isinstance(asked, str) else (mode, payload)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._graph, name)
