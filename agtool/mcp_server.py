"""agtool.mcp_server: any contract table served over MCP (stdio), every call through its door.

    python -m agtool.mcp_server                            # the lab's agtool/tools.py
    python -m agtool.mcp_server --module path/to/tools.py  # your own tools.py

An MCP client (Claude Desktop, an IDE, the SDK's own ClientSession) starts
this as a subprocess and speaks JSON-RPC on its stdin and stdout:

    tools/list   each tool of TOOLS with inputSchema and outputSchema from
                 schema.to_mcp, so what a client reads is what the door checks
    tools/call   the module's own call_tool(name, arguments): an ok value comes
                 back as structuredContent and as the same JSON in a text block;
                 a failure as isError: true with the door's reason as the only
                 text ("args:range:limit", "tool:raised:KeyError"), so a client
                 routes on it exactly as the retry graph does. At every revision:
                 an input the door refuses is a tool result, never a JSON-RPC
                 error (SEP-1303, 2025-11-25).

At 2026-07-28, a call refused for a missing argument (args:missing:region) asks
for it instead, where the client declares form elicitation: input_required with
one form for that field, its schema as tools/list gave it. The client retries
with the answer, which adds to the arguments (never replacing one the call
gave) and goes through the door again: a bad answer is refused with isError
and the door's reason, a good one runs the body once. Each field is asked once
a call, so a declined or empty answer gets args:missing:<field>; so does every
client at an older revision, or without elicitation. The SDK seals the call's
requestState (what was asked and answered).

The MCP spec leaves input checks to the server ("Servers MUST validate all tool
inputs"); here the door is that check, and a refused call never runs the body.
Three reasons come from the server, not the door, in the door's grammar:

    result:json:result    the door said ok, but JSON cannot carry the value (NaN, a set)
    door:raised:<Type>    the module's call_tool itself raised (a stage not done yet)
    door:shape:envelope   call_tool returned something other than {"ok", "value", "error"}

Garbage on stdin (a line that is not JSON-RPC) is answered or skipped by the
SDK; the server keeps serving. A bad --module gets one line on stderr and exit 2.

From a notebook (08_mcp), parameters() starts it as the SDK's client starts any
server, with the notebook's own interpreter and import path, and server_errors()
turns a server that stops into its own last lines rather than the SDK's traceback.
"""

import argparse
import contextlib
import importlib
import importlib.util
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import anyio
import mcp_types as types
from mcp import StdioServerParameters
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.stdio import stdio_server
from mcp_types.version import is_version_at_least

from agtool import providers, schema, student
from agtool.contract import ContractError

USAGE_EXIT = 2  # as argparse exits on a bad command line


class ServeError(Exception):
    """Why a module cannot be served: one line, naming what to pass instead."""


class ServerFailed(Exception):
    """The server stopped during a session: what the client saw, then the server's own last lines."""


# ── What is served ───────────────────────────────────────────────────────────


def load_tools(path: str | None) -> ModuleType:
    """The lab's agtool.tools, or the tools.py at path, imported with its prints kept off the wire."""
    # stdout is the JSON-RPC wire: a stray print at import time would corrupt it.
    with contextlib.redirect_stdout(sys.stderr):
        if path is None:
            return cast(ModuleType, student.module())  # served as any tools.py is: as the module it is
        return _import_file(Path(path))


def _import_file(path: Path) -> ModuleType:
    where = f"--module {path}"
    if not path.is_file():
        raise ServeError(f"{where}: no such file; give the path of a tools.py (the module you write in the notebooks)")
    if path.suffix != ".py":
        raise ServeError(f"{where}: not a .py file; give the path of a tools.py")
    # A name of its own, so it never shadows (nor is shadowed by) the lab's agtool.tools.
    spec = importlib.util.spec_from_file_location(f"agtool_served_{abs(hash(str(path.resolve())))}", path)
    # An existing .py path always gets a spec with a source loader; the assert tells mypy so.
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # the student's code: any exception is theirs to fix
        raise ServeError(
            f"{where}: importing it raised {type(error).__name__}: {_one_line(error)}; "
            "fix that, then start the server again"
        ) from None
    return module


def listing(module: ModuleType) -> list[types.Tool]:
    """The module's TOOLS as MCP tools, refused now (not at the first call) if the table is broken."""
    name = getattr(module, "__file__", None) or module.__name__
    tools, door = getattr(module, "TOOLS", None), getattr(module, "call_tool", None)
    if not isinstance(tools, dict) or not callable(door):
        raise ServeError(
            f"{name}: a tools module defines TOOLS (a dict) and call_tool(name, args); "
            "this one lacks " + ("TOOLS" if not isinstance(tools, dict) else "call_tool")
        )
    try:
        described = schema.to_mcp(tools)
    except ContractError as error:
        raise ServeError(f"{name}: {_one_line(error)}") from None
    return [
        types.Tool(
            name=d["name"], description=d["description"], input_schema=d["inputSchema"], output_schema=d["outputSchema"]
        )
        for d in described
    ]


# ── One call ─────────────────────────────────────────────────────────────────


def through_the_door(module: ModuleType, name: str, arguments: Any) -> types.CallToolResult:
    """One tools/call: the module's call_tool, its envelope as an MCP result."""
    return as_result(door(module, name, arguments))


def door(module: ModuleType, name: str, arguments: Any) -> dict:
    """The module's call_tool(name, arguments), as an envelope JSON can carry: the door's own, or one of
    the server's three reasons."""
    try:
        envelope = module.call_tool(name, arguments)
    except Exception as error:  # the door must not raise; a student's may, before stage 4 is done
        return _failed(f"door:raised:{type(error).__name__}")
    if not _is_envelope(envelope):
        return _failed("door:shape:envelope")
    return providers.sendable(envelope)  # result:json:result, as a model would be told


def as_result(envelope: dict) -> types.CallToolResult:
    """An envelope as MCP sends it: the value as structuredContent and the same JSON as text, or isError."""
    if not envelope["ok"]:
        return refused(envelope["error"])
    text = json.dumps(envelope["value"], ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=envelope["value"], is_error=False
    )


def refused(reason: str) -> types.CallToolResult:
    """A failed call as MCP says to send one: a result with isError, not a protocol error (SEP-1303)."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=reason)], is_error=True)


def _failed(reason: str) -> dict:
    return {"ok": False, "value": None, "error": reason}


def _is_envelope(envelope: Any) -> bool:
    if not isinstance(envelope, dict) or not isinstance(envelope.get("ok"), bool):
        return False
    # MCP's structuredContent is an object; the door's ok value is one (check_result refuses others).
    return isinstance(envelope.get("value"), dict) if envelope["ok"] else isinstance(envelope.get("error"), str)


# ── Asking for what is missing (input_required, 2026-07-28) ──────────────────
# A call the door refused for a missing argument (args:missing:<field>) can ask the client for it, where
# the revision and the client allow: the result is input_required with one form elicitation, keyed by the
# field. The client retries the same call with the answer and the requestState echoed; the answer adds to
# the arguments (never replacing one the call gave) and the whole goes through the door again, so a bad
# answer is refused as any argument is.
# requestState holds the answers so far and the fields asked; the SDK's RequestStateBoundary seals it, bound
# to this tool and these arguments, so a client can neither read, forge nor move it to another call.
# A field is asked once a call: declined, cancelled or left out of the answer, it stays missing, and the
# door's args:missing:<field> is the answer. So a call asks at most once per field of its tool.

ASKING_REVISION = "2026-07-28"  # the first revision whose tools/call may answer input_required (SEP-2322)
MISSING = "args:missing:"

# What a form can show of a field, by JSON type: the spec's PrimitiveSchemaDefinition (a string, with an enum
# or not; a number or integer with bounds; a boolean). A field whose schema says more is not asked for.
_SHOWN = {"type", "title", "description", "default"}
FORM_KEYWORDS = {
    "string": _SHOWN | {"enum", "minLength", "maxLength", "format"},
    "integer": _SHOWN | {"minimum", "maximum"},
    "number": _SHOWN | {"minimum", "maximum"},
    "boolean": _SHOWN,
}


def can_ask(protocol_version: str, capabilities: types.ClientCapabilities | None) -> bool:
    """Does this request's client take input_required with a form? The revision must have it, and the client
    must declare form elicitation (a bare "elicitation": {} is form, as before modes existed; url-only is not)."""
    elicitation = capabilities.elicitation if capabilities is not None else None
    return (
        is_version_at_least(protocol_version, ASKING_REVISION)
        and elicitation is not None
        and (elicitation.form is not None or elicitation.url is None)
    )


def gathered(state: str | None, responses: dict[str, Any] | None) -> tuple[dict, list[str]]:
    """The answers a call has so far and the fields it asked: from its state (sealed, so minted here) and the
    client's answer to the last field asked. A decline, a cancel or no answer adds nothing."""
    kept = json.loads(state) if state is not None else {"answers": {}, "asked": []}
    answers, asked = kept["answers"], kept["asked"]
    answer = (responses or {}).get(asked[-1]) if asked else None
    if isinstance(answer, types.ElicitResult) and answer.action == "accept" and answer.content:
        answers = {**answers, **answer.content}  # every field of it, so the door sees all the client added
    return answers, asked


def question(envelope: dict, tool: types.Tool | None, asked: list[str]) -> str | None:
    """The field to ask for: the door refused the call as missing it, it was not asked yet in this call,
    and a form can show its schema. None: the door's envelope is the answer."""
    error = "" if envelope["ok"] else envelope["error"]
    field = error.removeprefix(MISSING)
    if not error.startswith(MISSING) or field in asked or tool is None:
        return None
    return field if shown_in_a_form(tool.input_schema.get("properties", {}).get(field)) else None


def shown_in_a_form(spec: Any) -> bool:
    """Can a form show this field's schema as it is? (None: no such top-level field, as for a.b in a dict.)"""
    kind = spec.get("type") if isinstance(spec, dict) else None
    return isinstance(spec, dict) and isinstance(kind, str) and set(spec) <= FORM_KEYWORDS.get(kind, set())


def ask(tool: types.Tool, field: str, answers: dict, asked: list[str]) -> types.InputRequiredResult:
    """input_required: one form asking for field, with the listed schema of it, and the call's state."""
    form = types.ElicitRequestFormParams(
        message=f"{tool.name} was called without {field}, which it needs: what should {field} be?",
        requested_schema={
            "type": "object",
            "properties": {field: tool.input_schema["properties"][field]},
            "required": [field],
        },
    )
    return types.InputRequiredResult(
        input_requests={field: types.ElicitRequest(params=form)},
        request_state=json.dumps({"answers": answers, "asked": [*asked, field]}),
    )


# ── The server ───────────────────────────────────────────────────────────────


def build_server(module: ModuleType) -> Server:
    """A low-level MCP server for module: the SDK's high-level MCPServer would check args itself, the
    door's job, and answer in its own words instead of the door's reasons."""
    tools = listing(module)
    by_name = {tool.name: tool for tool in tools}
    # Calls run in a worker thread so a slow body does not stall the protocol (pings, cancels),
    # one at a time: a student's module is not written to be called from two threads at once.
    one_at_a_time = anyio.CapacityLimiter(1)

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        arguments = {} if params.arguments is None else params.arguments  # MCP: no arguments is no args
        asking = can_ask(ctx.protocol_version, ctx.session.client_capabilities)
        answers, asked = gathered(params.request_state, params.input_responses) if asking else ({}, [])
        # An answer adds what was missing and never changes what the call gave (the model's own arguments):
        # the SDK refused arguments that are no object (-32602); a field the answer adds that the contract
        # lacks is the door's to refuse, as any argument is.
        completed = {**answers, **arguments}
        envelope = await anyio.to_thread.run_sync(door, module, params.name, completed, limiter=one_at_a_time)
        tool = by_name.get(params.name)
        field = question(envelope, tool, asked) if asking else None
        return as_result(envelope) if field is None or tool is None else ask(tool, field, answers, asked)

    server = Server(
        "agtool",
        version="0.1.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        instructions="Every call goes through the contract's door; a failure's text is its reason.",
    )
    # Seals every requestState this server mints and refuses (-32602) one changed, expired or echoed on
    # another call, before call_tool sees it: a key of this process's own, as a stdio server needs.
    server.middleware.append(RequestStateBoundary(RequestStateSecurity.ephemeral(), default_audience=server.name))
    return server


async def serve(server: Server) -> None:
    async with stdio_server() as (read_stream, write_stream):
        # stdio_server points fd 1 at stderr while it serves, but Python's sys.stdout buffers a
        # body's print() and flushes it at exit, after fd 1 is the wire again: send prints to
        # stderr at the Python level too. (Inside the block: the claim needs sys.stdout on fd 1.)
        with contextlib.redirect_stdout(sys.stderr):
            await server.run(read_stream, write_stream, server.create_initialization_options())


# ── Starting it ──────────────────────────────────────────────────────────────


def parameters(module: str | None = None) -> StdioServerParameters:
    """How a client starts this server: with this very interpreter, and the folder this agtool was
    imported from first on the server's path, so the server imports the agtool the caller did,
    installed or not (the SDK hands a server only a few variables of the caller's environment,
    PYTHONPATH not among them)."""
    folder = str(Path(__file__).resolve().parents[1])
    path = os.pathsep.join([folder, *filter(None, [os.environ.get("PYTHONPATH")])])
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "agtool.mcp_server", *(["--module", str(module)] if module else [])],
        env={"PYTHONPATH": path},
    )


@contextlib.contextmanager
def server_errors(lines: int = 6) -> Iterator[Any]:
    """A file for the server's stderr (the client's errlog); when the session fails and the server
    said something, ServerFailed with what the client saw and the server's last lines, in place
    of the SDK's traceback (a hundred lines that end in "Connection closed")."""
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:
        try:
            yield log
        except Exception as error:
            log.seek(0)
            said = log.read().strip().splitlines()[-lines:]
            if not said:
                raise
            seen: BaseException = error
            while isinstance(seen, BaseExceptionGroup):  # anyio's task groups wrap what the client saw
                seen = seen.exceptions[0]
            raise ServerFailed(
                f"the MCP server stopped ({type(seen).__name__}: {seen}); it said:\n" + "\n".join(said)
            ) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agtool.mcp_server", description=__doc__.split("\n")[0])
    parser.add_argument("--module", metavar="PATH", help="a tools.py to serve (default: the lab's agtool/tools.py)")
    options = parser.parse_args(argv)
    try:
        server = build_server(load_tools(options.module))
    except ServeError as error:
        print(f"agtool.mcp_server: {error}", file=sys.stderr)
        return USAGE_EXIT
    anyio.run(serve, server)
    return 0


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split()) or type(error).__name__


if __name__ == "__main__":
    sys.exit(main())
