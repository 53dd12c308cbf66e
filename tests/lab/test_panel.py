"""The widget panel, at the Python level: calls and graph runs change what its widgets say.

Each test follows its own fresh copy of agtool/tools.py (as a student's
module would be), so no wrapper or counter leaks from one test into another.
The assertions read the widgets' text, the same text the browser test reads;
the recorder's own tests (agtool/panel_recorder.py, no widgets) come last.
"""

import html.parser
import importlib.util
import itertools
import json
import subprocess
import sys

import ipywidgets as widgets
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agtool import tools as reference
from agtool.panel import Panel
from agtool.panel_recorder import Recorder
from grader.kit.boundary.spies import Spy

_copies = itertools.count()

OK = {"sku": "A-100", "region": "seoul", "limit": 2}
MARS = {"sku": "A-100", "region": "mars", "limit": 2}  # args:allowed:region
EMPTY = {"sku": "Z-999", "region": "seoul", "limit": 2}  # result:empty:rows
NO_ROUTE = {"sku": "E-500", "region": "jeju"}  # tool:raised:KeyError
BULK = {"tool": "stock_lookup", "args": {"sku": "D-400", "region": "seoul", "limit": 5}}


def load_module():
    """A fresh copy of the reference module, imported by path under its own name."""
    spec = importlib.util.spec_from_file_location(f"student_tools_{next(_copies)}", reference.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def module():
    return load_module()


@pytest.fixture
def panel(module):
    panel = Panel(module)
    yield panel
    panel.detach()


class _Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts = []

    def handle_data(self, data):
        self.parts.append(data)


def text(widget) -> str:
    """What a widget shows, as plain text (HTML tags dropped), its children's included."""
    if isinstance(widget, widgets.Box):
        return " ".join(text(child) for child in widget.children)
    if isinstance(widget, widgets.HTML):
        parser = _Text()
        parser.feed(widget.value)
        return " ".join(part for part in parser.parts)
    return str(getattr(widget, "value", None) or getattr(widget, "description", ""))


def find(widget, css_class):
    """Every widget under `widget` carrying css_class, as the browser's selector would find it."""
    found = [widget] if css_class in getattr(widget, "_dom_classes", ()) else []
    for child in getattr(widget, "children", ()):
        found += find(child, css_class)
    return found


def shown(panel, css_class) -> str:
    (part,) = find(panel.widget, css_class)
    return text(part)


def counters(panel, tool) -> str:
    return shown(panel, f"agtool-tool-{tool}")


def newest(panel) -> str:
    """The highlighted reason: the one inside <mark>, whichever stage's column holds it."""
    (mark,) = [
        line
        for column in find(panel.widget, "agtool-reasons")[0].children
        for line in column.value.split("<div>")
        if "<mark" in line
    ]
    return text(widgets.HTML(mark))


# ── door and memo ────────────────────────────────────────────────────────────


def test_a_refused_call_counts_the_door_but_not_the_body(panel):
    envelope = panel.call("stock_lookup", MARS)
    assert envelope == {"ok": False, "value": None, "error": "args:allowed:region"}
    assert counters(panel, "stock_lookup") == "stock_lookup body runs: 0 door calls: 1 memo hits: 0"
    assert "#1 args:allowed:region" in shown(panel, "agtool-stage-args")
    assert newest(panel) == "#1 args:allowed:region"
    assert '"error": "args:allowed:region"' in shown(panel, "agtool-envelope")


def test_counts_show_the_zeros_too(panel, module):
    """dict(panel.counts), as notebook 04 prints it: every tool, every counter, the zeros included."""
    panel.call("stock_lookup", MARS)
    assert panel.counts["stock_lookup"] == {"body runs": 0, "door calls": 1, "memo hits": 0}
    assert list(panel.counts) == list(module.TOOLS)  # untouched tools keep their row of zeros
    assert panel.counts["delivery_eta"] == {"body runs": 0, "door calls": 0, "memo hits": 0}
    panel.call("stock_lookup_v3", OK)  # an unknown tool gets a row after the table's
    assert list(panel.counts)[-1] == "stock_lookup_v3"
    assert panel.counts["stock_lookup_v3"] == {"body runs": 0, "door calls": 1, "memo hits": 0}


def test_a_memo_hit_is_not_a_body_run(panel):
    first = panel.call_memo("stock_lookup", OK)
    second = panel.call_memo("stock_lookup", OK)
    assert first == second and first["ok"]
    assert counters(panel, "stock_lookup") == "stock_lookup body runs: 1 door calls: 1 memo hits: 1"
    assert "memo hit" in shown(panel, "agtool-status")
    assert shown(panel, "agtool-memo") == "memo entries: 1"
    assert panel.reasons == []


def test_failed_calls_run_the_body_every_time(panel):
    for _ in range(3):
        assert panel.call_memo("delivery_eta", NO_ROUTE)["error"] == "tool:raised:KeyError"
    assert counters(panel, "delivery_eta") == "delivery_eta body runs: 3 door calls: 3 memo hits: 0"
    assert shown(panel, "agtool-memo") == "memo entries: 0"
    assert newest(panel) == "#3 tool:raised:KeyError"


def test_reasons_keep_their_order_grouped_by_stage(panel):
    panel.call("stock_lookup", EMPTY)
    panel.call("stock_lookup", MARS)
    panel.call("delivery_eta", NO_ROUTE)
    panel.call("delivery_eta", {"sku": "A-100", "region": "jeju"})  # 72 "days": hours, not days
    assert panel.reasons == ["result:empty:rows", "args:allowed:region", "tool:raised:KeyError", "result:range:days"]
    assert "#2 args:allowed:region" in shown(panel, "agtool-stage-args")
    result = shown(panel, "agtool-stage-result")
    assert result.index("#1 result:empty:rows") < result.index("#4 result:range:days")
    assert "#3 tool:raised:KeyError" in shown(panel, "agtool-stage-tool")
    assert newest(panel) == "#4 result:range:days"


def test_an_unknown_tool_gets_its_own_row(panel):
    assert panel.call("stock_lookup_v3", OK)["error"] == "tool:unknown:stock_lookup_v3"
    assert counters(panel, "stock_lookup_v3") == "stock_lookup_v3 body runs: 0 door calls: 1 memo hits: 0"
    assert "#1 tool:unknown:stock_lookup_v3" in shown(panel, "agtool-stage-tool")


def test_the_students_own_calls_are_followed_too(panel, module):
    module.call_tool("stock_lookup", OK)
    module.call_memo("stock_lookup", OK, panel.memo)
    module.call_memo("stock_lookup", OK, panel.memo)
    assert counters(panel, "stock_lookup") == "stock_lookup body runs: 2 door calls: 2 memo hits: 1"


# ── graph runs ───────────────────────────────────────────────────────────────


def test_a_graph_run_shows_its_path_attempts_and_reasons(panel):
    state = panel.run(BULK)
    expected = load_module().run(BULK)  # the same module's own run, with no panel following it
    assert {k: state[k] for k in ("status", "path", "reasons", "attempts", "answer")} == {
        k: expected[k] for k in ("status", "path", "reasons", "attempts", "answer")
    }
    assert shown(panel, "agtool-path") == "path: pick → call → fix → call → fix → call → answer"
    assert shown(panel, "agtool-attempts") == "attempts: 3 of 3"
    assert shown(panel, "agtool-run-status") == "status: answered"
    assert "#1 args:range:limit" in shown(panel, "agtool-stage-args")
    assert newest(panel) == "#2 result:too_big:rows"
    # limit 5 is refused before the body; the old endpoint runs once, the upgrade once
    assert counters(panel, "stock_lookup") == "stock_lookup body runs: 1 door calls: 2 memo hits: 0"
    assert counters(panel, "stock_lookup_v2") == "stock_lookup_v2 body runs: 1 door calls: 1 memo hits: 0"


def test_the_students_own_run_is_followed_node_by_node_too(panel, module):
    module.run(BULK)  # not panel.run: the panel follows the graph that build_graph gives
    assert shown(panel, "agtool-path") == "path: pick → call → fix → call → fix → call → answer"
    assert shown(panel, "agtool-attempts") == "attempts: 3 of 3"


def test_a_run_gives_up_at_the_attempt_limit(panel):
    state = panel.run(BULK, max_attempts=1)
    assert state["status"] == "gave_up"
    assert shown(panel, "agtool-path") == "path: pick → call → give_up"
    assert shown(panel, "agtool-attempts") == "attempts: 1 of 1"
    assert shown(panel, "agtool-run-status") == "status: gave_up"


def test_a_run_updates_the_panel_node_by_node(panel):
    seen = []
    panel._path.observe(lambda change: seen.append(change["new"]), names="value")
    panel.run({"tool": "stock_lookup", "args": MARS})
    # mars is no region: the fix edge puts in the default region, and the second call answers
    assert seen == [
        "path: pick",
        "path: pick → call",
        "path: pick → call → fix",
        "path: pick → call → fix → call",
        "path: pick → call → fix → call → answer",
    ]


def test_a_repeated_run_with_one_memo_runs_no_body(panel):
    memo: dict = {}
    panel.run({"tool": "stock_lookup", "args": OK}, memo=memo)
    panel.run({"tool": "stock_lookup", "args": OK}, memo=memo)
    assert counters(panel, "stock_lookup") == "stock_lookup body runs: 1 door calls: 1 memo hits: 1"


def test_a_max_attempts_that_is_not_an_int_is_the_modules_own_refusal(panel, module):
    state = panel.run(BULK, max_attempts="3")
    assert state == module.run(BULK, max_attempts="3")
    assert newest(panel) == "#1 run:type:max_attempts"
    assert "#1 run:type:max_attempts" in shown(panel, "agtool-stage-other")


# ── reset, attach, detach ────────────────────────────────────────────────────


def test_the_reset_button_empties_the_panel(panel):
    panel.call_memo("stock_lookup", OK)
    panel.run(BULK)
    (button,) = find(panel.widget, "agtool-reset")
    button.click()
    assert counters(panel, "stock_lookup") == "stock_lookup body runs: 0 door calls: 0 memo hits: 0"
    assert [shown(panel, f"agtool-stage-{stage}").split()[-1] for stage in ("args", "result", "tool")] == ["–"] * 3
    assert shown(panel, "agtool-path") == "path: no graph run yet"
    assert shown(panel, "agtool-envelope") == "no call yet"
    assert panel.memo == {}


def test_detach_gives_the_module_its_own_functions_back(module):
    originals = (module.call_tool, module.call_memo, module.TOOLS["stock_lookup"]["fn"])
    panel = Panel(module)
    assert module.call_tool is not originals[0]
    panel.detach()
    assert (module.call_tool, module.call_memo, module.TOOLS["stock_lookup"]["fn"]) == originals
    module.call_tool("stock_lookup", OK)
    assert counters(panel, "stock_lookup") == "stock_lookup body runs: 0 door calls: 0 memo hits: 0"


def test_a_new_panel_takes_over_so_nothing_counts_twice(module):
    own = module.call_tool
    old, new = Panel(module), Panel(module)
    new.call("stock_lookup", OK)
    assert counters(new, "stock_lookup") == "stock_lookup body runs: 1 door calls: 1 memo hits: 0"
    assert all(n == 0 for row in old.counts.values() for n in row.values())
    new.detach()
    assert module.call_tool is own


def test_an_edited_table_is_followed_again_on_the_next_call(panel, module):
    body = module.inventory.stock_lookup
    module.TOOLS["stock_lookup"]["fn"] = body  # the student re-runs the cell that defines TOOLS
    panel.call("stock_lookup", OK)
    assert counters(panel, "stock_lookup") == "stock_lookup body runs: 1 door calls: 1 memo hits: 0"
    panel.detach()
    assert module.TOOLS["stock_lookup"]["fn"] is body


# ── the skeleton: what is not written yet is said, not raised ────────────────


def stub(stage, name):
    def not_yet(*args, **kwargs):
        raise NotImplementedError(f"Stage {stage}: write {name} in agtool/tools.py")

    return not_yet


def test_an_empty_table_says_stage_1_is_not_done(module):
    module.TOOLS.clear()
    panel = Panel(module)
    assert "TOOLS is empty: stage 1 not implemented yet" in text(panel.widget)


@pytest.mark.parametrize(
    "stage, name, act",
    [
        (2, "check_args", lambda panel: panel.call("stock_lookup", OK)),
        (4, "call_tool", lambda panel: panel.call("stock_lookup", OK)),
        (5, "call_memo", lambda panel: panel.call_memo("stock_lookup", OK)),
        (6, "build_graph", lambda panel: panel.run(BULK)),
    ],
)
def test_a_stage_not_written_yet_is_said_not_raised(module, stage, name, act):
    setattr(module, name, stub(stage, name))
    panel = Panel(module)
    assert act(panel) is None
    assert f"stage {stage} not implemented yet" in shown(panel, "agtool-status")
    assert "Traceback" not in text(panel.widget) and "running" not in text(panel.widget)


def test_a_bug_in_the_students_code_is_raised_and_named(module):
    module.check_args = lambda name, args: args["no such key"]
    panel = Panel(module)
    with pytest.raises(KeyError):
        panel.call("stock_lookup", OK)
    assert "raised KeyError" in shown(panel, "agtool-status")


# ── against independent spies, on random sequences of calls ─────────────────

CALLS = st.lists(
    st.tuples(
        st.sampled_from(["call", "call_memo", "run"]),
        st.sampled_from(["stock_lookup", "delivery_eta", "nope"]),
        st.sampled_from([OK, MARS, EMPTY, NO_ROUTE, {"sku": "B-200", "region": "busan"}]),
    ),
    max_size=8,
)


@settings(max_examples=25, deadline=None)
@given(calls=CALLS)
def test_the_counters_agree_with_spies_installed_before_the_panel(calls):
    module = load_module()
    bodies: dict[str, Spy] = {}
    doors: list = []
    for name, entry in module.TOOLS.items():
        entry["fn"] = bodies[name] = Spy(wraps=entry["fn"])
    door = module.call_tool

    def counted_door(name, args):
        doors.append(name)
        return door(name, args)

    module.call_tool = counted_door
    panel = Panel(module)
    for how, tool, args in calls:
        if how == "run":
            panel.run({"tool": tool, "args": args}, memo=panel.memo)
        else:
            getattr(panel, how)(tool, args)
    for name in module.TOOLS:
        assert f"body runs: {bodies[name].runs} door calls: {doors.count(name)}" in counters(panel, name)
    assert panel.counts.get("nope", {}).get("door calls", 0) == doors.count("nope")
    panel.detach()


# ── the recorder alone: what follows the module, with no widget ──────────────


@pytest.fixture
def changes():
    """The recorder fixture's status line at each change it said."""
    return []


@pytest.fixture
def recorder(module, changes):
    followed = Recorder(module, on_change=lambda: changes.append(followed.status))
    yield followed
    followed.detach()


def test_the_recorder_needs_no_widgets():
    """What follows the module imports no ipywidgets: it runs where no browser or widget library is."""
    probe = "import sys, agtool.panel_recorder; print(sorted(m for m in sys.modules if m.startswith('ipywidgets')))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]"


def test_the_recorder_keeps_what_a_refused_call_did(recorder):
    assert recorder.call("stock_lookup", MARS) == {"ok": False, "value": None, "error": "args:allowed:region"}
    assert recorder.counts["stock_lookup"] == {"body runs": 0, "door calls": 1, "memo hits": 0}
    assert recorder.reasons == ["args:allowed:region"]
    assert recorder.envelope["error"] == "args:allowed:region"
    assert recorder.status == f'call_tool("stock_lookup", {json.dumps(MARS)}) → args:allowed:region'


def test_the_recorder_says_a_change_once_per_call_the_student_made(recorder, changes):
    """call_memo calls call_tool inside: one change for the outer call, not one per followed call."""
    recorder.call_memo("stock_lookup", OK)
    recorder.call_memo("stock_lookup", OK)
    assert len(changes) == 2
    assert changes[-1].endswith("(memo hit: the body did not run) → ok")
    assert recorder.counts["stock_lookup"] == {"body runs": 1, "door calls": 1, "memo hits": 1}
    assert recorder.memo_size == 1


def test_the_recorder_says_each_node_of_a_graph_run(recorder):
    paths = []
    recorder.on_change = lambda: paths.append(list(recorder.path))
    state = recorder.run({"tool": "stock_lookup", "args": MARS})
    assert state["status"] == "answered"
    # a change after every node, then one for the run as a whole
    assert paths == [
        ["pick"],
        ["pick", "call"],
        ["pick", "call", "fix"],
        ["pick", "call", "fix", "call"],
        ["pick", "call", "fix", "call", "answer"],
        ["pick", "call", "fix", "call", "answer"],
    ]
    assert (recorder.attempts, recorder.limit, recorder.run_status) == (2, 3, "answered")


def test_reset_empties_the_recorder_and_says_so(recorder, changes):
    recorder.call_memo("stock_lookup", OK)
    recorder.run(BULK)
    recorder.reset()
    assert all(n == 0 for row in recorder.counts.values() for n in row.values())
    assert (recorder.reasons, recorder.path, recorder.envelope, recorder.limit, recorder.memo) == (
        [],
        [],
        None,
        None,
        {},
    )
    assert changes[-1].startswith("ready:")


def test_a_recorder_without_a_view_still_counts(module):
    recorder = Recorder(module)
    module.call_tool("delivery_eta", NO_ROUTE)  # the student's own call, not the recorder's helper
    assert recorder.counts["delivery_eta"] == {"body runs": 1, "door calls": 1, "memo hits": 0}
    assert recorder.reasons == ["tool:raised:KeyError"]
    recorder.detach()


def test_a_stage_not_written_yet_is_none_and_a_sentence(module):
    module.call_tool = stub(4, "call_tool")
    recorder = Recorder(module)
    assert recorder.call("stock_lookup", OK) is None
    assert recorder.status.endswith("stage 4 not implemented yet")
    recorder.detach()


def test_the_panel_draws_its_recorder(panel):
    """The panel keeps no counts of its own: what it shows is its recorder's."""
    panel.call("stock_lookup", MARS)
    panel.recorder.call("stock_lookup", OK)  # through the recorder: the panel redraws all the same
    assert panel.counts == panel.recorder.counts
    assert counters(panel, "stock_lookup") == "stock_lookup body runs: 1 door calls: 2 memo hits: 0"
