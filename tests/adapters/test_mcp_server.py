"""agtool.mcp_server: a contract table behind MCP, spoken to by the official SDK's own stdio client.

The server runs as a subprocess, as an MCP client starts it. The tools module it
serves is written here as a student's would be: the lab's tools.py with a table of
its own, whose bodies log each run to a file, so "the body never ran" is counted,
not assumed.
"""

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import types as pytypes
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from agtool import inventory, schema, tools
from tests import forked_python

if TYPE_CHECKING:  # imported where first used: the MCP SDK takes 2 s of CPU, and every pytest-xdist
    from mcp import StdioServerParameters  # worker collects this file; one runs it (conftest.py)

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 60  # seconds for one conversation: a hung server fails the test instead of the run

# Appended to a copy of agtool/tools.py: the table the served module defines, bodies counted.
COUNTED_TABLE = """

# ── The test's own table, served as a student's tools.py would be ──
import pathlib as _pathlib

RUNS = _pathlib.Path(__file__).with_name("runs.log")


def _counted(name, body):
    def run(**args):
        with RUNS.open("a") as log:
            log.write(name + "\\n")
        return body(**args)
    return run


def _explode(sku):
    raise KeyError(sku)


def _noisy(sku):
    print("a body that prints to stdout")
    return {"sku": sku}


TOOLS = {
    "stock_lookup": {"fn": _counted("stock_lookup", inventory.stock_lookup), "description": "Stock of a SKU.",
                     "args": _STOCK_ARGS, "returns": _STOCK_RETURNS},
    "delivery_eta": {"fn": _counted("delivery_eta", inventory.delivery_eta), "description": "Days to a region.",
                     "args": {"sku": {"type": "str"}, "region": _REGION},
                     "returns": {"days": {"type": "int", "min": 0, "max": 14}}},
    "explode": {"fn": _counted("explode", _explode), "description": "Always raises KeyError.",
                "args": {"sku": {"type": "str"}}, "returns": {}},
    "not_json": {"fn": _counted("not_json", lambda: {"v": float("nan")}), "description": "Returns NaN.",
                 "args": {}, "returns": {"v": {"type": "any"}}},
    "noisy": {"fn": _counted("noisy", _noisy), "description": "Prints, then answers.",
              "args": {"sku": {"type": "str"}}, "returns": {"sku": {"type": "str"}}},
}
check_table(TOOLS)
"""

# label -> (tool, arguments), called in this order in one session.
CALLS = {
    "noisy": ("noisy", {"sku": "A-100"}),  # first: every later answer shows the wire survived its print
    "good": ("stock_lookup", {"sku": "A-100", "region": "seoul", "limit": 2}),
    "out_of_range": ("stock_lookup", {"sku": "A-100", "region": "seoul", "limit": 5}),
    "invented_name": ("stock_lookup", {"sku_id": "A-100", "region": "seoul", "limit": 1}),
    "no_arguments": ("stock_lookup", None),
    "unknown_tool": ("stock_search", {"sku": "A-100"}),
    "raises": ("explode", {"sku": "A-100"}),
    "result_refused": ("delivery_eta", {"sku": "A-100", "region": "jeju"}),
    "not_json": ("not_json", {}),
}


def server(*args: str) -> "StdioServerParameters":
    """The server as a client starts it: a Python, here forked from the suite's (tests/forked_python.py)."""
    from mcp import StdioServerParameters

    python, *rest = forked_python.command([sys.executable, "-m", "agtool.mcp_server", *args])
    return StdioServerParameters(command=python, args=rest, cwd=str(REPO))


# The revisions the SDK's server negotiates, oldest first: the initialize handshake's four, then the
# 2026 revision a client reaches with server/discover (test_these_are_the_revisions_the_sdk_speaks).
HANDSHAKE = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN = "2026-07-28"


@contextlib.asynccontextmanager
async def session_at(params: "StdioServerParameters", errlog, version: str | None = None, elicitation=None):
    """A ClientSession of the SDK over stdio, negotiated at version (None: initialize() as a client does by
    default). With elicitation (the SDK's callback) the client declares it can ask its user, as real ones do."""
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    async with (
        stdio_client(params, errlog=errlog) as (read, write),
        ClientSession(read, write, elicitation_callback=elicitation) as session,
    ):
        if version is None:
            await session.initialize()
        elif version == MODERN:
            await session.discover()
        else:
            await offer(session, version, elicits=elicitation is not None)
        yield session


async def offer(session, version: str, elicits: bool) -> None:
    """The initialize handshake offering an older revision: ClientSession.initialize() offers only the newest."""
    import mcp_types

    capabilities = mcp_types.ClientCapabilities(
        elicitation=mcp_types.ElicitationCapability(form=mcp_types.FormElicitationCapability()) if elicits else None
    )
    params = mcp_types.InitializeRequestParams(
        protocol_version=version,
        capabilities=capabilities,
        client_info=mcp_types.Implementation(name="test", version="0"),
    )
    result = await session.send_request(mcp_types.InitializeRequest(params=params), mcp_types.InitializeResult)
    assert result.protocol_version == version  # the server took the offer, as the spec's lifecycle says it must
    session.adopt(result)
    await session.send_notification(mcp_types.InitializedNotification())


async def converse(params: "StdioServerParameters", calls: dict, errlog, runs: Path | None = None, **at) -> dict:
    """One session: initialize (or the revision `at` names), tools/list, then each call, with the body-run log
    read after each."""
    with anyio.fail_after(TIMEOUT):
        async with session_at(params, errlog, **at) as session:
            said: dict[str, Any] = {"listed": await session.list_tools()}
            for label, (name, arguments) in calls.items():
                result = await session.call_tool(name, arguments)
                said[label] = (result, bodies_run(runs))
            return said


def bodies_run(runs: Path | None) -> list[str]:
    """The tool bodies that ran so far, in order (the counting table logs each run)."""
    return runs.read_text().split() if runs and runs.exists() else []


def counted_module(folder: Path) -> Path:
    """A student's tools.py in folder: the lab's, with the counting table."""
    path = folder / "tools.py"
    path.write_text((REPO / "agtool" / "tools.py").read_text() + COUNTED_TABLE)
    return path


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The counting module served with --module, every CALLS call made: label -> (result, bodies run so far)."""
    folder = tmp_path_factory.mktemp("student")
    path = counted_module(folder)
    with (folder / "stderr.log").open("w+") as errlog:
        said = anyio.run(converse, server("--module", str(path)), CALLS, errlog, folder / "runs.log")
        errlog.seek(0)
        said["stderr"] = errlog.read()
    said["path"] = path
    return said


def _mcp_server():
    from agtool import mcp_server

    return mcp_server


def text_of(result) -> str:
    (block,) = result.content
    assert block.type == "text"
    return block.text


# ── tools/list ───────────────────────────────────────────────────────────────


def test_tools_list_is_the_contract_as_to_mcp_says_it(served):
    """inputSchema and outputSchema of every served tool are schema.to_mcp of the module's own TOOLS."""
    expected = schema.to_mcp(_mcp_server().load_tools(str(served["path"])).TOOLS)
    listed = [
        {"name": t.name, "description": t.description, "inputSchema": t.input_schema, "outputSchema": t.output_schema}
        for t in served["listed"].tools
    ]
    assert listed == expected
    assert [t["name"] for t in listed] == ["stock_lookup", "delivery_eta", "explode", "not_json", "noisy"]


def test_the_lab_table_is_served_by_default(tmp_path):
    """Without --module the lab's own agtool/tools.py is served: its three tools, its door."""
    with (tmp_path / "stderr.log").open("w") as errlog:
        said = anyio.run(converse, server(), {"eta": ("delivery_eta", {"sku": "A-100", "region": "busan"})}, errlog)
    assert [t.name for t in said["listed"].tools] == list(tools.TOOLS)
    result, _ = said["eta"]
    assert result.is_error is False
    assert result.structured_content == tools.call_tool("delivery_eta", {"sku": "A-100", "region": "busan"})["value"]


# ── tools/call ───────────────────────────────────────────────────────────────


def test_a_good_call_comes_back_as_structured_content_and_the_same_json_as_text(served):
    result, runs = served["good"]
    assert result.is_error is False
    expected = inventory.stock_lookup(sku="A-100", region="seoul", limit=2)
    assert result.structured_content == expected and json.loads(text_of(result)) == expected
    assert runs == ["noisy", "stock_lookup"]


@pytest.mark.parametrize(
    "label, reason",
    [
        ("out_of_range", "args:range:limit"),
        ("invented_name", "args:unknown:sku_id"),
        ("no_arguments", "args:missing:sku"),
        ("unknown_tool", "tool:unknown:stock_search"),
    ],
)
def test_a_refused_call_is_an_error_result_with_the_reason_and_its_body_never_ran(served, label, reason):
    result, runs = served[label]
    assert result.is_error is True and text_of(result) == reason
    assert result.structured_content is None
    assert runs == ["noisy", "stock_lookup"]  # only the good call's run: no refused call reached a body


@pytest.mark.parametrize(
    "label, reason, body",
    [
        ("raises", "tool:raised:KeyError", "explode"),  # named by the exception
        # The Jeju route counts hours: 72 "days" ran the body, and the door keeps it from the client.
        ("result_refused", "result:range:days", "delivery_eta"),
        ("not_json", "result:json:result", "not_json"),  # a value JSON cannot carry: refused by the server
    ],
)
def test_a_call_whose_body_ran_but_failed_is_an_error_result_with_the_reason_not_a_value(served, label, reason, body):
    result, runs = served[label]
    assert result.is_error is True and text_of(result) == reason
    assert runs[-1] == body


def test_a_body_that_prints_does_not_corrupt_the_wire(served):
    """stdout is the JSON-RPC wire: the print lands on stderr, and the session goes on."""
    result, _ = served["noisy"]
    assert result.is_error is False and result.structured_content == {"sku": "A-100"}
    assert "a body that prints to stdout" in served["stderr"]


# ── a door that breaks its own promise (a student's, before stage 4 is done) ──


@pytest.mark.parametrize(
    "door, reason",
    [
        (lambda name, args: (_ for _ in ()).throw(NotImplementedError("Stage 4")), "door:raised:NotImplementedError"),
        (lambda name, args: {"ok": True, "value": [1, 2], "error": None}, "door:shape:envelope"),
        (lambda name, args: None, "door:shape:envelope"),
    ],
)
def test_a_broken_door_is_an_error_result_too(door, reason):
    module = pytypes.ModuleType("tools")
    module.__dict__["call_tool"] = door  # a stand-in for a tools.py: its only name the door reads
    result = _mcp_server().through_the_door(module, "t", {})
    assert result.is_error is True and text_of(result) == reason


# ── What the server answers at each revision ─────────────────────────────────
# SEP-1303 (2025-11-25): an input the tool refuses is a tool result with isError, not a JSON-RPC error. A
# protocol error would raise MCPError in the SDK's client: every call below comes back as a result instead.

# label -> (tool, arguments, the door's reason)
REFUSED = {
    "wrong_type": ("stock_lookup", {"sku": "A-100", "region": "seoul", "limit": "2"}, "args:type:limit"),
    "out_of_range": ("stock_lookup", {"sku": "A-100", "region": "seoul", "limit": 5}, "args:range:limit"),
    "unknown_tool": ("stock_search", {"sku": "A-100"}, "tool:unknown:stock_search"),
    "missing": ("stock_lookup", {"sku": "A-100", "limit": 1}, "args:missing:region"),
}


async def never_asked(context, params):
    raise AssertionError(f"the server asked, at a revision or for a client that cannot be asked: {params}")


def test_these_are_the_revisions_the_sdk_speaks():
    """The revisions below are every one the SDK knows: a new one fails here, so it gets its own row."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

    assert (HANDSHAKE, (MODERN,)) == (HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS)


@pytest.mark.parametrize(
    "version, elicits",
    [*((version, True) for version in HANDSHAKE), (MODERN, False)],
    ids=[*HANDSHAKE, f"{MODERN} without elicitation"],
)
def test_a_refused_call_is_an_error_result_at_every_revision_and_no_body_runs(tmp_path, version, elicits):
    """Before 2026-07-28 a missing argument is refused like any other, even for a client that can elicit; at
    2026-07-28 too when the client declares no elicitation (nothing to ask the user with)."""
    path = counted_module(tmp_path)
    calls = {label: (name, args) for label, (name, args, _) in REFUSED.items()}
    with (tmp_path / "stderr.log").open("w") as errlog:
        said = anyio.run(
            partial(converse, version=version, elicitation=never_asked if elicits else None),
            server("--module", str(path)),
            calls,
            errlog,
            tmp_path / "runs.log",
        )
    for label, (_, _, reason) in REFUSED.items():
        result, runs = said[label]
        assert (result.is_error, text_of(result), runs) == (True, reason, []), label


def accepted(**content):
    import mcp_types

    return mcp_types.ElicitResult(action="accept", content=content)


def declined():
    import mcp_types

    return mcp_types.ElicitResult(action="decline")


# label -> (tool, arguments, the client's answers, one per round): at 2026-07-28, by a client that elicits.
ASKED: dict[str, tuple[str, dict, list]] = {
    "answered": ("stock_lookup", {"sku": "A-100", "limit": 1}, [accepted(region="seoul")]),
    "two_missing": ("stock_lookup", {"limit": 1}, [accepted(sku="A-100"), accepted(region="busan")]),
    "answered_out_of_the_allowed": ("stock_lookup", {"sku": "A-100", "limit": 1}, [accepted(region="mars")]),
    "answered_with_a_string": ("stock_lookup", {"sku": "A-100", "region": "seoul"}, [accepted(limit="2")]),
    "answered_with_more": ("stock_lookup", {"sku": "A-100", "limit": 1}, [accepted(region="seoul", sku_id="B")]),
    "answered_over_an_argument": (
        "stock_lookup",
        {"sku": "A-100", "limit": 1},
        [accepted(region="busan", sku="B-200")],
    ),
    "declined": ("stock_lookup", {"sku": "A-100", "limit": 1}, [declined()]),
    "answered_without_it": ("stock_lookup", {"sku": "A-100", "limit": 1}, [accepted()]),
    "raises_once_answered": ("explode", {}, [accepted(sku="A-100")]),
}


async def by_hand(session, name: str, arguments: dict, answers: list) -> tuple[list, Any]:
    """One call driven as the SDK's Client drives it: each input_required answered with the next answer
    under the key it was asked by, its requestState echoed. (rounds asked, the final result)."""
    import mcp_types

    rounds = []
    result = await session.call_tool(name, arguments, allow_input_required=True)
    for answer in answers:
        assert isinstance(result, mcp_types.InputRequiredResult), f"{name}({arguments}): not asked: {result}"
        rounds.append(result)
        (key,) = list(result.input_requests or {})  # one field asked a round
        result = await session.call_tool(
            name,
            arguments,
            input_responses={key: answer},
            request_state=result.request_state,
            allow_input_required=True,
        )
    return rounds, result


async def tamper(session, runs: Path) -> dict:
    """requestState as the SDK seals it: changed, or echoed on another call, it is refused (-32602), unread."""
    from mcp.shared.exceptions import MCPError

    before = len(bodies_run(runs))
    asked = await session.call_tool("stock_lookup", {"sku": "A-100", "limit": 1}, allow_input_required=True)
    state = asked.request_state
    forged = state[:-4] + ("AAAA" if not state.endswith("AAAA") else "BBBB")
    said = {}
    for label, arguments, echoed in [
        ("forged", {"sku": "A-100", "limit": 1}, forged),
        ("another_calls", {"sku": "B-200", "limit": 1}, state),
    ]:
        try:
            said[label] = await session.call_tool(
                "stock_lookup", arguments, input_responses={"region": accepted(region="seoul")}, request_state=echoed
            )
        except MCPError as error:
            said[label] = error
    said["runs"] = bodies_run(runs)[before:]
    said["state"] = state
    return said


@pytest.fixture(scope="module")
def asked(tmp_path_factory):
    """One 2026-07-28 session of a client that elicits: every ASKED call driven by hand, then tamper()."""
    folder = tmp_path_factory.mktemp("asked")
    path, runs = counted_module(folder), folder / "runs.log"

    async def calls():
        with anyio.fail_after(TIMEOUT), (folder / "stderr.log").open("w") as errlog:
            async with session_at(server("--module", str(path)), errlog, MODERN, elicitation=never_asked) as session:
                said: dict[str, Any] = {}
                for label, (name, arguments, answers) in ASKED.items():
                    before = len(bodies_run(runs))
                    rounds, result = await by_hand(session, name, arguments, answers)
                    said[label] = (rounds, result, bodies_run(runs)[before:])
                said["refused"] = {
                    label: await session.call_tool(name, args)
                    for label, (name, args, _) in REFUSED.items()
                    if label != "missing"
                }
                said["tampered"] = await tamper(session, runs)
                return said

    return anyio.run(calls)


def asked_for(result) -> tuple[str, dict]:
    """The one field an input_required result asks for, and the form's schema."""
    ((key, request),) = result.input_requests.items()
    assert request.method == "elicitation/create" and request.params.mode == "form"
    return key, request.params.requested_schema


def test_a_missing_argument_is_asked_for_and_the_answer_runs_the_tool_once(asked):
    (round_,), result, runs = asked["answered"]
    key, schema = asked_for(round_)
    region = {"type": "string", "enum": list(inventory.REGIONS)}  # the listed inputSchema's, as a form shows it
    assert (key, schema) == ("region", {"type": "object", "properties": {"region": region}, "required": ["region"]})
    assert "stock_lookup" in round_.input_requests["region"].params.message
    assert result.is_error is False
    assert result.structured_content == inventory.stock_lookup(sku="A-100", region="seoul", limit=1)
    assert runs == ["stock_lookup"]  # asking ran nothing; the answered call ran the body once


def test_an_answer_adds_what_was_missing_and_never_changes_an_argument_the_call_gave(asked):
    """The form asked for region: an answer that also says sku leaves the call's own sku as the model sent it."""
    (_,), result, runs = asked["answered_over_an_argument"]
    assert result.structured_content == inventory.stock_lookup(sku="A-100", region="busan", limit=1)
    assert runs == ["stock_lookup"]


def test_two_missing_arguments_are_asked_one_round_each_in_the_contracts_order(asked):
    rounds, result, runs = asked["two_missing"]
    assert [asked_for(r)[0] for r in rounds] == ["sku", "region"]
    assert result.structured_content == inventory.stock_lookup(sku="A-100", region="busan", limit=1)
    assert runs == ["stock_lookup"]


@pytest.mark.parametrize(
    "label, reason",
    [
        ("answered_out_of_the_allowed", "args:allowed:region"),
        ("answered_with_a_string", "args:type:limit"),  # "2" for 2: the answer is checked like any argument
        ("answered_with_more", "args:unknown:sku_id"),  # an answer's every field goes through the door
        ("declined", "args:missing:region"),  # the user said no: the old answer
        ("answered_without_it", "args:missing:region"),  # asked once only: a call cannot ask forever
    ],
)
def test_a_bad_answer_is_refused_by_the_door_and_the_body_never_runs(asked, label, reason):
    (_,), result, runs = asked[label]
    assert (result.is_error, text_of(result), runs) == (True, reason, [])


def test_a_body_that_raises_once_answered_is_an_error_result_with_its_reason(asked):
    (round_,), result, runs = asked["raises_once_answered"]
    assert asked_for(round_)[0] == "sku"
    assert (result.is_error, text_of(result), runs) == (True, "tool:raised:KeyError", ["explode"])


def test_at_2026_07_28_every_other_refusal_is_still_an_error_result(asked):
    for label, result in asked["refused"].items():
        assert (result.is_error, text_of(result)) == (True, REFUSED[label][2]), label


def test_request_state_is_sealed_and_a_forged_or_borrowed_one_is_refused_before_the_door(asked):
    """The SDK's RequestStateBoundary: the state is encrypted, bound to the call's tool and arguments."""
    tampered = asked["tampered"]
    assert tampered["state"].startswith("v1.") and "region" not in tampered["state"]  # not the plain JSON
    for label in ("forged", "another_calls"):
        error = tampered[label]
        assert (error.code, error.message) == (-32602, "Invalid or expired requestState"), label
    assert tampered["runs"] == []


@pytest.mark.parametrize(
    "spec, shown",
    [
        ({"type": "str", "allowed": ["a", "b"]}, True),  # a select
        ({"type": "int", "min": 1, "max": 2, "description": "rows", "default": 1}, True),
        ({"type": "float"}, True),
        ({"type": "bool"}, True),
        ({"type": "int", "allowed": [1, 2]}, False),  # a form's enum is of strings only
        ({"type": "list", "items": {"type": "str"}}, False),
        ({"type": "dict", "properties": {"b": {"type": "str"}}}, False),
        ({"type": "any"}, False),
    ],
)
def test_a_field_is_asked_for_only_where_a_form_can_show_its_schema_as_listed(spec, shown):
    listed = schema.to_mcp({"t": {"fn": dict, "description": "x", "args": {"a": spec}, "returns": {}}})
    assert _mcp_server().shown_in_a_form(listed[0]["inputSchema"]["properties"]["a"]) is shown


def test_a_field_inside_a_dict_is_not_asked_for():
    """args:missing:a.b names no top-level field, so no form field can be it."""
    import mcp_types

    mcp_server = _mcp_server()
    tool = mcp_types.Tool(
        name="t", input_schema=schema.parameters_schema({"a": {"type": "dict", "properties": {"b": {"type": "str"}}}})
    )
    assert mcp_server.question({"ok": False, "value": None, "error": "args:missing:a.b"}, tool, []) is None


@pytest.mark.parametrize(
    "version, elicitation, asks",
    [
        ("2026-07-28", {"form": {}}, True),
        ("2026-07-28", {}, True),  # a bare capability is form, as before modes existed
        ("2026-07-28", {"url": {}}, False),  # a client that can only open a link shows no form
        ("2026-07-28", None, False),
        ("2025-11-25", {"form": {}}, False),  # no input_required before 2026-07-28
    ],
)
def test_a_client_is_asked_only_at_2026_07_28_with_form_elicitation(version, elicitation, asks):
    import mcp_types

    capabilities = mcp_types.ClientCapabilities.model_validate(
        {} if elicitation is None else {"elicitation": elicitation}
    )
    assert _mcp_server().can_ask(version, capabilities) is asks


def test_the_sdks_client_answers_through_its_elicitation_callback_and_an_older_one_gets_the_old_answer(tmp_path):
    """mcp.Client, as an application uses it: at 2026-07-28 (its default) it asks its user through the callback
    and retries; at the 2025-11-25 handshake the same call is refused with args:missing:region, never asked."""
    import mcp_types
    from mcp import Client
    from mcp.client.stdio import stdio_client

    path, runs = counted_module(tmp_path), tmp_path / "runs.log"
    questions = []

    async def user(context, params):
        questions.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={"region": "jeju"})

    async def both():
        said = {}
        with anyio.fail_after(TIMEOUT), (tmp_path / "stderr.log").open("w") as errlog:
            for mode in ("auto", "legacy"):
                transport = stdio_client(server("--module", str(path)), errlog=errlog)
                async with Client(transport, mode=mode, elicitation_callback=user) as client:
                    result = await client.call_tool("stock_lookup", {"sku": "A-100", "limit": 2})
                    said[client.protocol_version] = (result, len(questions), bodies_run(runs))
        return said

    said = anyio.run(both)
    result, questions_so_far, bodies = said[MODERN]
    assert result.structured_content == inventory.stock_lookup(sku="A-100", region="jeju", limit=2)
    assert (questions_so_far, bodies) == (1, ["stock_lookup"])
    result, questions_so_far, bodies = said["2025-11-25"]
    assert (result.is_error, text_of(result)) == (True, "args:missing:region")
    assert (questions_so_far, bodies) == (1, ["stock_lookup"])  # not asked, nothing ran


# ── garbage on the wire ──────────────────────────────────────────────────────


def rpc(**message) -> bytes:
    return (json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode()


INITIALIZE = rpc(
    id=1,
    method="initialize",
    params={"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
)


def raw_session(lines: list[bytes], until_id: int) -> tuple[dict, bytes, int]:
    """Write lines to a fresh server, read its answers until the one with until_id, then close stdin.

    (Closing stdin at once would end the session before a pending call is answered: EOF is shutdown.)
    """
    process = subprocess.Popen(
        forked_python.command([sys.executable, "-m", "agtool.mcp_server"]),
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin and process.stdout and process.stderr  # all three piped, just above
    watchdog = threading.Timer(TIMEOUT, process.kill)  # a server that never answers fails, not hangs
    watchdog.start()
    try:
        process.stdin.write(b"".join(lines))
        process.stdin.flush()
        answers = {}
        while until_id not in answers and (line := process.stdout.readline()):
            answer = json.loads(line)
            answers[answer.get("id")] = answer
        process.stdin.close()
        stderr = process.stderr.read()
        return answers, stderr, process.wait()
    finally:
        watchdog.cancel()


def test_a_client_that_sends_garbage_gets_errors_and_the_server_keeps_serving():
    """Raw bytes, broken JSON and malformed JSON-RPC are answered with errors or skipped; then a real call works."""
    garbage = [
        b"\xff\xfe\x00\x01 not even text\n",
        b'{"jsonrpc": "2.0", "id": 2, "meth\n',
        b"[1, 2, 3]\n",
        rpc(id=3, method="no/such/method"),
        rpc(id=4),
    ]
    after = [
        INITIALIZE,
        rpc(method="notifications/initialized"),
        rpc(id=5, method="tools/call", params={"name": "stock_lookup", "arguments": [1, 2]}),
        rpc(
            id=6,
            method="tools/call",
            params={"name": "stock_lookup", "arguments": {"sku": "A-100", "region": "seoul", "limit": 1}},
        ),
    ]
    answers, stderr, returncode = raw_session(garbage + after, until_id=6)
    assert answers[3]["error"]["code"] == -32601  # method not found
    assert answers[5]["error"]["code"] == -32602  # arguments must be an object: invalid params
    assert answers[1]["result"]["serverInfo"]["name"] == "agtool"
    assert answers[6]["result"]["isError"] is False
    assert answers[6]["result"]["structuredContent"]["rows"] == [{"region": "seoul", "qty": 5}]
    assert returncode == 0 and b"Traceback" not in stderr


# ── a module that cannot be served ───────────────────────────────────────────


@pytest.mark.parametrize(
    "file, text, words",
    [
        ("missing.py", None, ["no such file", "tools.py"]),
        ("tools.txt", "TOOLS = {}", ["not a .py file"]),
        ("tools.py", "def broken(:\n", ["SyntaxError", "fix that"]),
        ("tools.py", "raise RuntimeError('boom')\n", ["RuntimeError: boom"]),
        ("tools.py", "TOOLS = {}\n", ["lacks call_tool"]),
        ("tools.py", "TOOLS = [1]\ndef call_tool(name, args): pass\n", ["lacks TOOLS"]),
        (
            "tools.py",
            "TOOLS = {'t': {'fn': dict, 'description': 'x', 'args': {'n': {'type': 'number'}}, 'returns': {}}}\n"
            "def call_tool(name, args): pass\n",
            ["TOOLS['t']", "'number'"],
        ),
    ],
    ids=["missing", "not python", "syntax error", "raises on import", "no door", "no table", "broken table"],
)
def test_a_module_that_cannot_be_served_gets_one_line_and_exit_2(tmp_path, capsys, file, text, words):
    path = tmp_path / file
    if text is not None:
        path.write_text(text)
    assert _mcp_server().main(["--module", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("agtool.mcp_server: ")
    assert all(word in err for word in words), err


def test_the_command_itself_says_so_without_a_traceback(tmp_path):
    process = subprocess.run(
        [sys.executable, "-m", "agtool.mcp_server", "--module", str(tmp_path / "nope.py")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert process.returncode == 2 and process.stdout == ""
    assert process.stderr.strip().splitlines() == [
        f"agtool.mcp_server: --module {tmp_path / 'nope.py'}: "
        "no such file; give the path of a tools.py (the module you "
        "write in the notebooks)"
    ]


# ── Started from a notebook (08_mcp): parameters() and server_errors() ────────

# A caller whose agtool is a copy on PYTHONPATH, not the installed one: the server it starts must import
# that copy (a kit whose folder is on the path but not installed), and a server that stops shows its own words.
FROM_A_COPY = """
import sys, anyio
from agtool import mcp_server
from mcp import ClientSession
from mcp.client.stdio import stdio_client

async def session():
    with mcp_server.server_errors() as log:
        async with stdio_client(mcp_server.parameters(), errlog=log) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                print([tool.name for tool in (await client.list_tools()).tools])
        log.seek(0)
        print(log.read().strip())

anyio.run(session)
"""


def test_parameters_start_the_server_with_the_callers_python_and_agtool(tmp_path):
    copy = tmp_path / "kit"
    shutil.copytree(REPO / "agtool", copy / "agtool", ignore=shutil.ignore_patterns("__pycache__"))
    with (copy / "agtool" / "__init__.py").open("a") as init:
        init.write('\nsys.stderr.write(f"agtool from {__file__}\\n")\n')
    done = subprocess.run(
        [sys.executable, "-c", FROM_A_COPY],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(copy)},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    listed, server_said = done.stdout.strip().splitlines()
    assert listed == str(list(tools.TOOLS))
    assert server_said == f"agtool from {copy / 'agtool' / '__init__.py'}"  # the copy, not the installed agtool


def test_a_server_that_stops_is_shown_by_its_own_last_lines_not_the_sdks_traceback():
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    mcp_server = _mcp_server()
    broken = StdioServerParameters(command=sys.executable, args=["-c", "import agtool_that_is_not_there"])

    async def session():
        with mcp_server.server_errors() as log:
            async with stdio_client(broken, errlog=log) as (read, write), ClientSession(read, write) as client:
                await client.initialize()

    with pytest.raises(mcp_server.ServerFailed) as failed:
        anyio.run(session)
    said = str(failed.value)
    assert said.startswith("the MCP server stopped (") and said.count("\n") <= 6
    assert said.splitlines()[-1] == "ModuleNotFoundError: No module named 'agtool_that_is_not_there'"
    assert failed.value.__cause__ is None and failed.value.__suppress_context__
