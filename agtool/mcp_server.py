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
                 routes on it exactly as the retry graph does

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
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

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
    try:
        envelope = module.call_tool(name, arguments)
    except Exception as error:  # the door must not raise; a student's may, before stage 4 is done
        return refused(f"door:raised:{type(error).__name__}")
    if not _is_envelope(envelope):
        return refused("door:shape:envelope")
    envelope = providers.sendable(envelope)  # result:json:result, as a model would be told
    if not envelope["ok"]:
        return refused(envelope["error"])
    text = json.dumps(envelope["value"], ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=envelope["value"], is_error=False
    )


def refused(reason: str) -> types.CallToolResult:
    """A failed call as MCP says to send one: a result with isError, not a protocol error."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=reason)], is_error=True)


def _is_envelope(envelope: Any) -> bool:
    if not isinstance(envelope, dict) or not isinstance(envelope.get("ok"), bool):
        return False
    # MCP's structuredContent is an object; the door's ok value is one (check_result refuses others).
    return isinstance(envelope.get("value"), dict) if envelope["ok"] else isinstance(envelope.get("error"), str)


# ── The server ───────────────────────────────────────────────────────────────


def build_server(module: ModuleType) -> Server:
    """A low-level MCP server for module: the SDK's high-level MCPServer would check args itself, the
    door's job, and answer in its own words instead of the door's reasons."""
    tools = listing(module)
    # Calls run in a worker thread so a slow body does not stall the protocol (pings, cancels),
    # one at a time: a student's module is not written to be called from two threads at once.
    one_at_a_time = anyio.CapacityLimiter(1)

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = {} if params.arguments is None else params.arguments  # MCP: no arguments is no args
        return await anyio.to_thread.run_sync(through_the_door, module, params.name, arguments, limiter=one_at_a_time)

    return Server(
        "agtool",
        version="0.1.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        instructions="Every call goes through the contract's door; a failure's text is its reason.",
    )


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
