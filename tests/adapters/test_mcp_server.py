"""agtool.mcp_server: a contract table behind MCP, spoken to by the official SDK's own stdio client.

The server runs as a subprocess, as an MCP client starts it. The tools module it
serves is written here as a student's would be: the lab's tools.py with a table of
its own, whose bodies log each run to a file, so "the body never ran" is counted,
not assumed.
"""

import json
import os
import shutil
import subprocess
import sys
import threading
import types as pytypes
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


async def converse(params: "StdioServerParameters", calls: dict, errlog, runs: Path | None = None) -> dict:
    """One session: initialize, tools/list, then each call, with the body-run log read after each."""
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    with anyio.fail_after(TIMEOUT):
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            said: dict[str, Any] = {"listed": await session.list_tools()}
            for label, (name, arguments) in calls.items():
                result = await session.call_tool(name, arguments)
                said[label] = (result, runs.read_text().split() if runs and runs.exists() else [])
            return said


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The counting module served with --module, every CALLS call made: label -> (result, bodies run so far)."""
    folder = tmp_path_factory.mktemp("student")
    path = folder / "tools.py"
    path.write_text((REPO / "agtool" / "tools.py").read_text() + COUNTED_TABLE)
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
