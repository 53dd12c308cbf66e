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

The following is agtool.panel_recorder's Recorder (plain Python: `panel.recorder`);
this module only draws what it records, redrawn whenever it changes. It follows
your own calls too (`tools.call_tool(...)`, `tools.run(...)`), node by node for a
graph run. Reloaded tools.py? The panel's next call follows it again (or panel.attach()).
"""

import html
import json
import re
from types import ModuleType
from typing import Any

import ipywidgets as widgets

from agtool.panel_recorder import COUNTERS, Envelope, Recorder

# A reason's prefix names the part of the door that refused (args:…, result:…, tool:…):
# each gets a column, headed by what a reason from it tells a student.
REASON_PREFIXES = {
    "args": "args · refused before the body ran",
    "result": "result · the value broke the contract",
    "tool": "tool · unknown tool, or the body raised",
}
OTHER_PREFIX = "other"  # run:type:max_attempts and the like: a column shown only when it has a reason
NEWEST = "background:#fff3a0;font-weight:bold;padding:0 3px"


class Panel:
    """A live view of one module's tool calls and graph runs (see the module docstring)."""

    def __init__(self, module: ModuleType) -> None:
        self._build()
        self.recorder = Recorder(module, on_change=self._render)
        self._render()

    # ── what a student calls: the recorder's, drawn after each ──────────────

    def call(self, name: Any, args: Any) -> Envelope | None:
        """tools.call_tool(name, args), followed; None while that stage is not implemented."""
        return self.recorder.call(name, args)

    def call_memo(self, name: Any, args: Any, memo: Any = None) -> Envelope | None:
        """tools.call_memo(name, args, memo), followed; memo defaults to panel.memo."""
        return self.recorder.call_memo(name, args, memo)

    def run(self, request: Any, max_attempts: Any = None, memo: Any = None, picker: Any = None) -> Any:
        """tools.run(request, ...), its graph followed node by node; returns the final state."""
        return self.recorder.run(request, max_attempts, memo, picker)

    def reset(self) -> None:
        """Back to nothing: counters, reasons, last envelope, path, and panel.memo."""
        self.recorder.reset()

    def attach(self) -> None:
        """Follow the module (again): wrap what is not wrapped yet, e.g. after a reload or a new tool."""
        self.recorder.attach()

    def detach(self) -> None:
        """Stop following: the module gets its own functions and tool bodies back."""
        self.recorder.detach()

    # ── what it recorded, read through ──────────────────────────────────────

    @property
    def module(self) -> ModuleType:
        return self.recorder.module

    @property
    def counts(self) -> dict[str, dict[str, int]]:
        """tool -> {"body runs": n, "door calls": n, "memo hits": n}, zeros included."""
        return self.recorder.counts

    @property
    def memo(self) -> dict:
        return self.recorder.memo

    @property
    def reasons(self) -> list[Any]:
        return self.recorder.reasons

    @property
    def envelope(self) -> Envelope | None:
        return self.recorder.envelope

    @property
    def status(self) -> str:
        return self.recorder.status

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    # ── the widgets ─────────────────────────────────────────────────────────

    def _build(self) -> None:
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
        # the CSS classes agtool-stage-<prefix> are what the browser test finds the columns by
        self._columns = {
            prefix: widgets.HTML(layout=widgets.Layout(flex="1")).add_class(f"agtool-stage-{prefix}")
            for prefix in (*REASON_PREFIXES, OTHER_PREFIX)
        }
        reasons = widgets.HBox(list(self._columns.values()), layout=gap).add_class("agtool-reasons")
        self._path = widgets.Label().add_class("agtool-path")
        self._attempts = widgets.Label().add_class("agtool-attempts")
        self._run_status = widgets.Label().add_class("agtool-run-status")
        self._envelope = widgets.HTML().add_class("agtool-envelope")
        self.widget = widgets.VBox(
            [
                widgets.HBox([self._title, reset], layout=widgets.Layout(justify_content="space-between")),
                self._status,
                _heading("tool bodies, door and memo"),
                self._tool_box,
                self._memo,
                _heading("reasons since reset, oldest first"),
                reasons,
                _heading("graph run"),
                widgets.HBox([self._path, self._attempts, self._run_status], layout=gap),
                _heading("last envelope"),
                self._envelope,
            ],
            layout=widgets.Layout(border="1px solid #bbb", padding="6px 12px", width="100%"),
        )
        self.widget.add_class("agtool-panel")

    def _render(self) -> None:
        seen = self.recorder
        self._title.value = f"<b>agtool panel</b> · following <code>{html.escape(seen.module.__name__)}</code>"
        self._status.value = f"<code style='white-space:pre-wrap'>{html.escape(seen.status)}</code>"
        self._render_tools()
        self._memo.value = "" if seen.memo_size is None else f"memo entries: {seen.memo_size}"
        for prefix, column in _reasons_by_prefix(seen.reasons).items():
            self._columns[prefix].value = column
        other = OTHER_PREFIX in map(_prefix_of, seen.reasons)
        self._columns[OTHER_PREFIX].layout.display = None if other else "none"
        ran = seen.limit is not None
        self._path.value = "path: " + (" → ".join(map(str, seen.path)) if ran else "no graph run yet")
        self._attempts.value = f"attempts: {seen.attempts} of {seen.limit}" if ran else ""
        self._run_status.value = f"status: {seen.run_status}" if ran else ""
        self._envelope.value = _envelope_html(seen.envelope)

    def _render_tools(self) -> None:
        counts = self.recorder.counts
        if list(self._rows) != list(counts):
            self._rows = {name: self._rows.get(name) or _tool_row(name) for name in counts}
            self._tool_box.children = list(self._rows.values()) or [self._no_tools]
        for name, row in self._rows.items():
            for label, counter in zip(row.children[1:], COUNTERS, strict=True):
                label.value = f"{counter}: {counts[name][counter]}"


def _tool_row(name: str) -> widgets.HBox:
    cells = [widgets.Label(name, layout=widgets.Layout(width="11em")).add_class("agtool-tool-name")]
    cells += [widgets.Label(layout=widgets.Layout(width="9em")) for _ in COUNTERS]
    return widgets.HBox(cells).add_class("agtool-tool").add_class("agtool-tool-" + re.sub(r"\W", "-", name))


def _heading(text: str) -> widgets.HTML:
    return widgets.HTML(f"<div style='margin-top:6px;color:#555'><b>{html.escape(text)}</b></div>")


def _prefix_of(reason: Any) -> str:
    prefix = str(reason).split(":", 1)[0]
    return prefix if prefix in REASON_PREFIXES else OTHER_PREFIX


def _reasons_by_prefix(reasons: list[Any]) -> dict[str, str]:
    """Each column as HTML: its heading, then its reasons numbered in the order they came."""
    entries: dict[str, list[str]] = {prefix: [] for prefix in (*REASON_PREFIXES, OTHER_PREFIX)}
    for number, reason in enumerate(reasons, 1):
        entry = f"#{number} {html.escape(str(reason))}"
        if number == len(reasons):
            entry = f"<mark style='{NEWEST}'>{entry}</mark>"
        entries[_prefix_of(reason)].append(f"<div>{entry}</div>")
    return {
        prefix: f"<div style='color:#555'>{html.escape(REASON_PREFIXES.get(prefix, prefix))}</div>"
        f"<div style='font-family:monospace'>{''.join(lines) or '–'}</div>"
        for prefix, lines in entries.items()
    }


def _envelope_html(envelope: Envelope | None) -> str:
    if envelope is None:
        return "<i>no call yet</i>"
    ok = isinstance(envelope, dict) and envelope.get("ok") is True
    colour = "#2e7d32" if ok else "#c62828"
    text = html.escape(json.dumps(envelope, ensure_ascii=False, default=repr))
    return (
        f"<pre style='margin:0;white-space:pre-wrap;max-height:10em;overflow:auto;"
        f"border-left:4px solid {colour};padding-left:8px'>{text}</pre>"
    )
