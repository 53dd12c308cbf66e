"""agtool.panel: watch your tool calls happen, live, beside the code.

    from agtool import tools
    from agtool.panel import Panel

    panel = Panel(tools)      # follow your module; end a cell with `panel` to show it
    panel.call("stock_lookup", {"sku": "A-100", "region": "mars", "limit": 2})    # tools.call_tool
    panel.call_memo("stock_lookup", {"sku": "A-100", "region": "seoul", "limit": 2})  # tools.call_memo
    panel.run({"tool": "stock_lookup", "args": {"sku": "D-400", "region": "seoul", "limit": 5}})
    panel.reset()             # or the Reset button: counters, reasons, path and panel.memo emptied
    panel.detach()            # give the module back its own functions

Each helper returns what the module's own function returns: call and
call_memo the envelope, run the final state (as tools.run does, with the same
max_attempts, memo and picker). call_memo uses `panel.memo` unless you pass
a memo. A stage not written yet returns None, and the panel says
"stage N not implemented yet" instead of a traceback.

What the panel shows:
- per tool: body runs (its `fn` really ran), door calls (call_tool) and memo
  hits (call_memo answered without the door);
- every failure reason since the last reset, oldest first, the newest
  highlighted, grouped by the stage that failed: args, result, tool;
- the last envelope; for a graph run, its path of nodes and attempts against the limit.

`panel.counts` gives the same counters as a dict, tool -> counter -> how many,
zeros included (`dict(panel.counts)` in a cell): a refused call shows
"body runs": 0, which is the point of checking before the call.

How it follows a module that knows nothing about it: it wraps the `fn` of
every TOOLS entry in a counter and the module's call_tool and call_memo in
followers. The module looks both up in its globals at call time, so its own
calls (call_memo calling call_tool, the graph's call node, your own
`tools.call_tool(...)`) go through them too. It wraps build_graph as well:
the graph it returns runs invoke as a stream of node updates, so every run
(panel.run or your own tools.run) updates the panel after every node.
Reloaded tools.py? The panel's next call follows it again (or panel.attach()).
"""

import contextlib
import functools
import html
import json
import re
from collections import Counter

import ipywidgets as widgets

COUNTERS = ("body runs", "door calls", "memo hits")
FOLLOWED = ("call_tool", "call_memo", "build_graph")  # the module functions the panel wraps

# The door's stages, and what a reason from each one tells a student.
STAGES = {
    "args": "args · refused before the body ran",
    "result": "result · the value broke the contract",
    "tool": "tool · unknown tool, or the body raised",
}
OTHER_STAGE = "other"
NEWEST = "background:#fff3a0;font-weight:bold;padding:0 3px"

# One panel follows a module at a time: a new Panel(tools) (a re-run cell)
# takes over from the last, so no call is counted twice.
_following: dict[str, "Panel"] = {}


class Panel:
    """A live view of one module's tool calls and graph runs (see the module docstring)."""

    def __init__(self, module):
        self.module = module
        self.memo: dict = {}
        self._depth = 0  # how deep inside followed calls we are: 1 is the call the student made
        self._build()
        self.reset()
        self.attach()

    # ── what a student calls ────────────────────────────────────────────────

    def call(self, name, args):
        """tools.call_tool(name, args), followed; None while that stage is not implemented."""
        self.attach()
        with contextlib.suppress(NotImplementedError):
            return self.module.call_tool(name, args)

    def call_memo(self, name, args, memo=None):
        """tools.call_memo(name, args, memo), followed; memo defaults to panel.memo."""
        self.attach()
        with contextlib.suppress(NotImplementedError):
            return self.module.call_memo(name, args, self.memo if memo is None else memo)

    def run(self, request, max_attempts=None, memo=None, picker=None):
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

    def reset(self):
        """Back to nothing: counters, reasons, last envelope, path, and panel.memo."""
        self._counts: Counter = Counter()  # (tool name, counter) -> how many; see counts
        self.reasons: list[str] = []
        self.envelope = None
        self.path: list[str] = []
        self.attempts = self.limit = self.run_status = self.memo_size = None
        self.memo.clear()
        self.status = "ready: panel.call(...), panel.call_memo(...) or panel.run(...)"
        self._render()

    def attach(self):
        """Follow the module (again): wrap what is not wrapped yet, e.g. after a reload or a new tool."""
        name = self.module.__name__
        earlier = _following.get(name)
        if earlier is not None and earlier is not self:
            earlier.detach()
        _following[name] = self
        for tool, entry in self._tools().items():
            if isinstance(entry, dict) and callable(entry.get("fn")) and not self._ours(entry["fn"]):
                entry["fn"] = self._mark(self._count_body(tool, entry["fn"]))
        for attr, follow in zip(FOLLOWED, (self._follow_call_tool, self._follow_call_memo,
                                           self._follow_build_graph)):
            function = getattr(self.module, attr, None)
            if callable(function) and not self._ours(function):
                setattr(self.module, attr, self._mark(follow(function)))

    def detach(self):
        """Stop following: the module gets its own functions and tool bodies back."""
        for entry in self._tools().values():
            if isinstance(entry, dict) and self._ours(entry.get("fn")):
                entry["fn"] = entry["fn"].__wrapped__
        for attr in FOLLOWED:
            function = getattr(self.module, attr, None)
            if self._ours(function):
                setattr(self.module, attr, function.__wrapped__)
        if _following.get(self.module.__name__) is self:
            del _following[self.module.__name__]

    @property
    def counts(self) -> dict[str, dict[str, int]]:
        """tool -> {"body runs": n, "door calls": n, "memo hits": n}, zeros included.

        Every tool of TOOLS has its row, and so does any other name a call used (an unknown
        tool): a zero is what a refused call must leave on "body runs", so it is shown, not
        left out as a Counter would.
        """
        return {name: {counter: self._counts[name, counter] for counter in COUNTERS}
                for name in self._tool_names()}

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    # ── following the module ────────────────────────────────────────────────

    def _tools(self) -> dict:
        tools = getattr(self.module, "TOOLS", None)
        return tools if isinstance(tools, dict) else {}

    def _tool_names(self) -> list[str]:
        """The panel's rows: TOOLS in table order, then any other name called, sorted."""
        return list(self._tools()) + sorted({name for name, _ in self._counts} - set(self._tools()))

    def _mark(self, wrapper):
        wrapper.agtool_panel = self  # after functools.wraps, which copies an older panel's mark
        return wrapper

    def _ours(self, function) -> bool:
        return getattr(function, "agtool_panel", None) is self

    def _count_body(self, tool, fn):
        @functools.wraps(fn)
        def body(*args, **kwargs):
            self._counts[tool, "body runs"] += 1  # counted before it runs: a body that raises ran too
            return fn(*args, **kwargs)
        return body

    def _follow_call_tool(self, call_tool):
        @functools.wraps(call_tool)
        def followed(name, args):
            self._counts[_key(name), "door calls"] += 1
            label = f"call_tool({_show(name)}, {_show(args)})"
            with self._operation(label) as outermost:
                envelope = call_tool(name, args)
                if outermost:
                    self._record(label, envelope)
            return envelope
        return followed

    def _follow_call_memo(self, call_memo):
        @functools.wraps(call_memo)
        def followed(name, args, memo):
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
    def _operation(self, label):
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
                self._render()

    def _record(self, label, envelope):
        """What the student's own call gave back: the last envelope and, on failure, its reason."""
        self.envelope = envelope
        error = envelope.get("error") if isinstance(envelope, dict) else None
        if error:
            self.reasons.append(error)
        self.status = f"{label} → {error or 'ok'}"

    def _follow_build_graph(self, build_graph):
        @functools.wraps(build_graph)
        def followed():
            return _FollowedGraph(build_graph(), self)
        return followed

    def _follow_invoke(self, graph, graph_input, config=None, **kwargs) -> dict:
        """graph.invoke, as a stream of node updates: the panel redraws as each node lands."""
        context = kwargs.get("context")
        self.path, self.attempts, self.run_status = [], 0, "running"
        self.limit = getattr(context, "max_attempts", None)
        state = {}
        try:
            for mode, chunk in graph.stream(graph_input, config, stream_mode=["updates", "values"], **kwargs):
                if mode == "values":
                    state = chunk
                    continue
                for update in chunk.values():
                    self._apply(update or {})
                self._render()
        finally:
            if self.run_status == "running":  # it ended at neither answer nor give_up
                self.run_status = "stopped"
        return state

    def _apply(self, update: dict):
        """Fold one node's state update (or a whole final state) into what the panel shows."""
        self.reasons += update.get("reasons") or []
        self.path += update.get("path") or []
        self.attempts = update.get("attempts", self.attempts)
        if update.get("result") is not None:
            self.envelope = update["result"]
        self.run_status = update.get("status", self.run_status)

    # ── the widgets ─────────────────────────────────────────────────────────

    def _build(self):
        gap = widgets.Layout(grid_gap="0 2em")
        self._title = widgets.HTML()
        reset = widgets.Button(description="Reset", tooltip="counters, reasons, path and panel.memo")
        reset.add_class("agtool-reset")
        reset.on_click(lambda _button: self.reset())
        self._status = widgets.HTML().add_class("agtool-status")
        self._rows: dict[str, widgets.HBox] = {}
        self._no_tools = widgets.Label("TOOLS is empty: stage 1 not implemented yet")
        self._tool_box = widgets.VBox([self._no_tools])
        self._memo = widgets.Label().add_class("agtool-memo")
        self._stages = {stage: widgets.HTML(layout=widgets.Layout(flex="1")).add_class(f"agtool-stage-{stage}")
                        for stage in (*STAGES, OTHER_STAGE)}
        reasons = widgets.HBox(list(self._stages.values()), layout=gap).add_class("agtool-reasons")
        self._path = widgets.Label().add_class("agtool-path")
        self._attempts = widgets.Label().add_class("agtool-attempts")
        self._run_status = widgets.Label().add_class("agtool-run-status")
        self._envelope = widgets.HTML().add_class("agtool-envelope")
        self.widget = widgets.VBox([
            widgets.HBox([self._title, reset], layout=widgets.Layout(justify_content="space-between")),
            self._status,
            _heading("tool bodies, door and memo"), self._tool_box, self._memo,
            _heading("reasons since reset, oldest first"), reasons,
            _heading("graph run"),
            widgets.HBox([self._path, self._attempts, self._run_status], layout=gap),
            _heading("last envelope"), self._envelope,
        ], layout=widgets.Layout(border="1px solid #bbb", padding="6px 12px", width="100%"))
        self.widget.add_class("agtool-panel")

    def _render(self):
        self._title.value = f"<b>agtool panel</b> · following <code>{html.escape(self.module.__name__)}</code>"
        self._status.value = f"<code style='white-space:pre-wrap'>{html.escape(self.status)}</code>"
        self._render_tools()
        self._memo.value = "" if self.memo_size is None else f"memo entries: {self.memo_size}"
        for stage, column in _reasons_by_stage(self.reasons).items():
            self._stages[stage].value = column
        # a reason from outside the door's three stages (run:type:max_attempts) is rare: no empty column for it
        self._stages[OTHER_STAGE].layout.display = None if OTHER_STAGE in map(_stage_of, self.reasons) else "none"
        ran = self.limit is not None
        self._path.value = "path: " + (" → ".join(map(str, self.path)) if ran else "no graph run yet")
        self._attempts.value = f"attempts: {self.attempts} of {self.limit}" if ran else ""
        self._run_status.value = f"status: {self.run_status}" if ran else ""
        self._envelope.value = _envelope_html(self.envelope)

    def _render_tools(self):
        names = self._tool_names()
        if list(self._rows) != names:
            self._rows = {name: self._rows.get(name) or _tool_row(name) for name in names}
            self._tool_box.children = list(self._rows.values()) or [self._no_tools]
        for name, row in self._rows.items():
            for label, counter in zip(row.children[1:], COUNTERS):
                label.value = f"{counter}: {self._counts[name, counter]}"


def _tool_row(name: str) -> widgets.HBox:
    cells = [widgets.Label(name, layout=widgets.Layout(width="11em")).add_class("agtool-tool-name")]
    cells += [widgets.Label(layout=widgets.Layout(width="9em")) for _ in COUNTERS]
    return widgets.HBox(cells).add_class("agtool-tool").add_class("agtool-tool-" + re.sub(r"\W", "-", name))


def _heading(text: str) -> widgets.HTML:
    return widgets.HTML(f"<div style='margin-top:6px;color:#555'><b>{html.escape(text)}</b></div>")


def _stage_of(reason) -> str:
    stage = str(reason).split(":", 1)[0]
    return stage if stage in STAGES else OTHER_STAGE


def _reasons_by_stage(reasons: list) -> dict[str, str]:
    """Each stage's column as HTML: its heading, then its reasons numbered in the order they came."""
    entries = {stage: [] for stage in (*STAGES, OTHER_STAGE)}
    for number, reason in enumerate(reasons, 1):
        entry = f"#{number} {html.escape(str(reason))}"
        if number == len(reasons):
            entry = f"<mark style='{NEWEST}'>{entry}</mark>"
        entries[_stage_of(reason)].append(f"<div>{entry}</div>")
    return {stage: f"<div style='color:#555'>{html.escape(STAGES.get(stage, stage))}</div>"
                   f"<div style='font-family:monospace'>{''.join(lines) or '–'}</div>"
            for stage, lines in entries.items()}


def _envelope_html(envelope) -> str:
    if envelope is None:
        return "<i>no call yet</i>"
    ok = isinstance(envelope, dict) and envelope.get("ok") is True
    colour = "#2e7d32" if ok else "#c62828"
    text = html.escape(json.dumps(envelope, ensure_ascii=False, default=repr))
    return (f"<pre style='margin:0;white-space:pre-wrap;max-height:10em;overflow:auto;"
            f"border-left:4px solid {colour};padding-left:8px'>{text}</pre>")


def _explain(error: Exception) -> str:
    """A stub's NotImplementedError("Stage 4: ...") as a sentence; anything else as what it is."""
    if isinstance(error, NotImplementedError):
        stage = re.match(r"\s*stage\s*(\d+)", str(error), re.IGNORECASE)
        return f"stage {stage[1]} not implemented yet" if stage else f"not implemented yet: {error}"
    return f"raised {type(error).__name__}: {error}"


def _key(name) -> str:
    """A tool name as a counter key: anything the student passes, even unhashable."""
    return name if isinstance(name, str) else repr(name)


def _show(value) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # a tuple key, a set: what JSON cannot hold is shown as Python
        return repr(value)


class _FollowedGraph:
    """A compiled graph whose invoke the panel follows; everything else is the graph's own."""

    def __init__(self, graph, panel):
        self._graph, self._panel = graph, panel

    def invoke(self, graph_input, config=None, **kwargs):
        return self._panel._follow_invoke(self._graph, graph_input, config, **kwargs)

    def __getattr__(self, name):
        return getattr(self._graph, name)
