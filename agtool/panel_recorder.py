"""agtool.panel_recorder: what the panel knows about a module's tool calls, with no widget in sight.

    from agtool import tools
    from agtool.panel_recorder import Recorder

    recorder = Recorder(tools)     # follows the module, as Panel(tools) does, in plain Python
    recorder.call("stock_lookup", {"sku": "A-100", "region": "mars", "limit": 2})
    recorder.counts["stock_lookup"]  # {"body runs": 0, "door calls": 1, "memo hits": 0}
    recorder.detach()

agtool.panel draws a Recorder; a test or a terminal can read one directly. Its
helpers (call, call_memo, run) return what the module's own functions return, and
None for a stage not written yet (the status says "stage N not implemented yet").

How it follows a module that knows nothing about it: it wraps the `fn` of every
TOOLS entry in a counter and the module's call_tool and call_memo in followers.
The module looks both up in its globals at call time, so its own calls (call_memo
calling call_tool, the graph's call node, the student's own `tools.call_tool(...)`)
go through them too. It wraps build_graph as well: the graph it returns runs invoke
as a stream of node updates, so every run (recorder.run or the student's own
tools.run) is recorded after every node. A reloaded tools.py is followed again on
the next call (or recorder.attach()).

on_change, if given, is called whenever what a view would show has changed: after
the student's own call (not the calls nested inside it), after every node of a
graph run, and after reset.
"""

import contextlib
import functools
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

COUNTERS = ("body runs", "door calls", "memo hits")
FOLLOWED = ("call_tool", "call_memo", "build_graph")  # the module functions a recorder wraps
READY = "ready: panel.call(...), panel.call_memo(...) or panel.run(...)"

Envelope = Any  # what the student's door returns: {"ok", "value", "error"} when it is right, anything when not

# One recorder follows a module at a time: a new one (a re-run cell) takes over from the
# last, so no call is counted twice.
_following: dict[str, "Recorder"] = {}


class Recorder:
    """Follows one module's tool calls and graph runs, and keeps what it saw (see the module docstring)."""

    reasons: list[Any]  # every failure reason since the last reset, oldest first
    envelope: Envelope | None  # the last envelope the student's own call got
    path: list[Any]  # the graph run's nodes so far
    attempts: Any  # the graph run's attempts so far, as its state says
    limit: Any  # the graph run's max_attempts; None: no graph has run since reset
    run_status: Any  # "running", then the final state's status, or "stopped"
    memo_size: int | None  # entries in the memo call_memo used last
    status: str  # one line: the last call and what it gave

    def __init__(self, module: ModuleType, on_change: Callable[[], None] | None = None) -> None:
        self.module = module
        self.on_change = on_change
        self.memo: dict = {}
        self._depth = 0  # how deep inside followed calls we are: 1 is the call the student made
        self._clear()
        self.attach()

    # ── what a student calls ────────────────────────────────────────────────

    def call(self, name: Any, args: Any) -> Envelope | None:
        """tools.call_tool(name, args), followed; None while that stage is not implemented."""
        self.attach()
        with contextlib.suppress(NotImplementedError):
            return self.module.call_tool(name, args)
        return None

    def call_memo(self, name: Any, args: Any, memo: Any = None) -> Envelope | None:
        """tools.call_memo(name, args, memo), followed; memo defaults to this recorder's memo."""
        self.attach()
        with contextlib.suppress(NotImplementedError):
            return self.module.call_memo(name, args, self.memo if memo is None else memo)
        return None

    def run(self, request: Any, max_attempts: Any = None, memo: Any = None, picker: Any = None) -> Any:
        """tools.run(request, ...), its graph followed node by node; returns the final state."""
        self.attach()
        if max_attempts is None:
            max_attempts = getattr(self.module, "MAX_ATTEMPTS", 3)
        label = f"run({_show(request)}, max_attempts={max_attempts!r})"
        with contextlib.suppress(NotImplementedError), self._operation(label):
            self.run_status = None
            state = self.module.run(request, max_attempts, memo, picker)
            if self.run_status is None and isinstance(state, dict):  # refused before its graph ran
                self._apply(state)
            attempts = state.get("attempts") if isinstance(state, dict) else None
            self.status = f"{label} → {state.get('status')} after {attempts} of {max_attempts} attempts"
            return state
        return None

    def reset(self) -> None:
        """Back to nothing: counters, reasons, last envelope, path, and the memo."""
        self._clear()
        self._changed()

    def attach(self) -> None:
        """Follow the module (again): wrap what is not wrapped yet, e.g. after a reload or a new tool."""
        name = self.module.__name__
        earlier = _following.get(name)
        if earlier is not None and earlier is not self:
            earlier.detach()
        _following[name] = self
        for tool, entry in self._tools().items():
            if isinstance(entry, dict) and callable(entry.get("fn")) and not self._ours(entry["fn"]):
                entry["fn"] = self._mark(self._count_body(tool, entry["fn"]))
        followers = (self._follow_call_tool, self._follow_call_memo, self._follow_build_graph)
        for attr, follow in zip(FOLLOWED, followers, strict=True):
            function = getattr(self.module, attr, None)
            if callable(function) and not self._ours(function):
                setattr(self.module, attr, self._mark(follow(function)))

    def detach(self) -> None:
        """Stop following: the module gets its own functions and tool bodies back."""
        for entry in self._tools().values():
            if isinstance(entry, dict) and self._ours(entry.get("fn")):
                entry["fn"] = entry["fn"].__wrapped__
        for attr in FOLLOWED:
            function = getattr(self.module, attr, None)
            if function is not None and self._ours(function):
                setattr(self.module, attr, function.__wrapped__)
        if _following.get(self.module.__name__) is self:
            del _following[self.module.__name__]

    # ── what a view reads ───────────────────────────────────────────────────

    @property
    def counts(self) -> dict[str, dict[str, int]]:
        """tool -> {"body runs": n, "door calls": n, "memo hits": n}, zeros included.

        Every tool of TOOLS has its row, and so does any other name a call used (an unknown
        tool): a zero is what a refused call must leave on "body runs", so it is shown, not
        left out as a Counter would.
        """
        return {name: {counter: self._counts[name, counter] for counter in COUNTERS} for name in self.tool_names()}

    def tool_names(self) -> list[str]:
        """The rows: TOOLS in table order, then any other name called, sorted."""
        return list(self._tools()) + sorted({name for name, _ in self._counts} - set(self._tools()))

    # ── following the module ────────────────────────────────────────────────

    def _clear(self) -> None:
        self._counts: Counter[tuple[str, str]] = Counter()  # (tool name, counter) -> how many; see counts
        self.reasons, self.envelope, self.path = [], None, []
        self.attempts = self.limit = self.run_status = self.memo_size = None
        self.memo.clear()
        self.status = READY

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def _tools(self) -> dict:
        tools = getattr(self.module, "TOOLS", None)
        return tools if isinstance(tools, dict) else {}

    def _mark(self, wrapper: Callable) -> Callable:
        wrapper.agtool_panel = self  # type: ignore[attr-defined]  # after functools.wraps, which copies an older mark
        return wrapper

    def _ours(self, function: object) -> bool:
        return getattr(function, "agtool_panel", None) is self

    def _count_body(self, tool: str, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def body(*args: Any, **kwargs: Any) -> Any:
            self._counts[tool, "body runs"] += 1  # counted before it runs: a body that raises ran too
            return fn(*args, **kwargs)

        return body

    def _follow_call_tool(self, call_tool: Callable) -> Callable:
        @functools.wraps(call_tool)
        def followed(name: Any, args: Any) -> Envelope:
            self._counts[_key(name), "door calls"] += 1
            label = f"call_tool({_show(name)}, {_show(args)})"
            with self._operation(label) as outermost:
                envelope = call_tool(name, args)
                if outermost:
                    self._record(label, envelope)
            return envelope

        return followed

    def _follow_call_memo(self, call_memo: Callable) -> Callable:
        @functools.wraps(call_memo)
        def followed(name: Any, args: Any, memo: Any) -> Envelope:
            label = f"call_memo({_show(name)}, {_show(args)})"
            before = self._activity()
            with self._operation(label) as outermost:
                envelope = call_memo(name, args, memo)
                # A hit is an answer given without the door, or a body, running.
                if self._activity() == before:
                    self._counts[_key(name), "memo hits"] += 1
                    label += " (memo hit: the body did not run)"
                self.memo_size = len(memo) if hasattr(memo, "__len__") else None
                if outermost:
                    self._record(label, envelope)
            return envelope

        return followed

    def _activity(self) -> int:
        return sum(n for (_, counter), n in self._counts.items() if counter != "memo hits")

    @contextlib.contextmanager
    def _operation(self, label: str) -> Iterator[bool]:
        """One followed call; yields True for the outermost one, the call the student made."""
        self._depth += 1
        outermost = self._depth == 1
        try:
            yield outermost
        except Exception as error:
            if outermost:
                self.status = f"{label}: {_explain(error)}"
            raise  # the caller decides: the helpers turn NotImplementedError into None
        finally:
            self._depth -= 1
            if outermost:
                self._changed()

    def _record(self, label: str, envelope: Envelope) -> None:
        """What the student's own call gave back: the last envelope and, on failure, its reason."""
        self.envelope = envelope
        error = envelope.get("error") if isinstance(envelope, dict) else None
        if error:
            self.reasons.append(error)
        self.status = f"{label} → {error or 'ok'}"

    def _follow_build_graph(self, build_graph: Callable) -> Callable:
        @functools.wraps(build_graph)
        def followed() -> _FollowedGraph:
            return _FollowedGraph(build_graph(), self)

        return followed

    def _follow_invoke(self, graph: Any, graph_input: Any, config: Any = None, **kwargs: Any) -> dict:
        """graph.invoke, as a stream of node updates: a view redraws as each node lands."""
        context = kwargs.get("context")
        self.path, self.attempts, self.run_status = [], 0, "running"
        self.limit = getattr(context, "max_attempts", None)
        state: dict = {}
        try:
            for mode, chunk in graph.stream(graph_input, config, stream_mode=["updates", "values"], **kwargs):
                if mode == "values":
                    state = chunk
                    continue
                for update in chunk.values():
                    self._apply(update or {})
                self._changed()
        finally:
            if self.run_status == "running":  # it ended at neither answer nor give_up
                self.run_status = "stopped"
        return state

    def _apply(self, update: dict) -> None:
        """Fold one node's state update (or a whole final state) into what is recorded."""
        self.reasons += update.get("reasons") or []
        self.path += update.get("path") or []
        self.attempts = update.get("attempts", self.attempts)
        if update.get("result") is not None:
            self.envelope = update["result"]
        self.run_status = update.get("status", self.run_status)


class _FollowedGraph:
    """A compiled graph whose invoke the recorder follows; everything else is the graph's own."""

    def __init__(self, graph: Any, recorder: Recorder) -> None:
        self._graph, self._recorder = graph, recorder

    def invoke(self, graph_input: Any, config: Any = None, **kwargs: Any) -> dict:
        return self._recorder._follow_invoke(self._graph, graph_input, config, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._graph, name)


def _explain(error: Exception) -> str:
    """A stub's NotImplementedError("Stage 4: ...") as a sentence; anything else as what it is."""
    if isinstance(error, NotImplementedError):
        stage = re.match(r"\s*stage\s*(\d+)", str(error), re.IGNORECASE)
        return f"stage {stage[1]} not implemented yet" if stage else f"not implemented yet: {error}"
    return f"raised {type(error).__name__}: {error}"


def _key(name: Any) -> str:
    """A tool name as a counter key: anything the student passes, even unhashable."""
    return name if isinstance(name, str) else repr(name)


def _show(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # a tuple key, a set: what JSON cannot hold is shown as Python
        return repr(value)
