"""The channel between the grader and a sandboxed child: length-prefixed JSON frames over two pipes.

This is the child's side (`serve`): it reads a request, answers it with one frame per
call, and in between asks the parent to run a tool body ({"body": tool}) and waits for
what the body did. The parent's side is grader/instructor/sandbox/session.py, which
reads every frame as hostile (grader/kit/session.py's Exchange).
"""

import json
import os
import struct
from collections.abc import Callable
from typing import Any

FRAME = struct.Struct(">I")  # the length of the JSON text that follows


def frame(data: Any) -> bytes:
    """Plain JSON data (NaN and infinities allowed) as one frame; anything else raises TypeError here."""
    text = json.dumps(data, allow_nan=True).encode()
    return FRAME.pack(len(text)) + text


def serve(make_child: Callable, path: str, bind: Callable, from_parent: int, to_parent: int) -> None:
    """Answer requests until the parent closes the channel."""

    def send(data: Any) -> None:
        out = frame(data)
        while out:
            out = out[os.write(to_parent, out) :]

    def recv() -> Any:
        header = _read_exactly(from_parent, FRAME.size)
        text = header and _read_exactly(from_parent, FRAME.unpack(header)[0])
        return None if text is None else json.loads(text)

    def body(tool: str) -> dict:
        send({"body": tool})
        step = recv()
        if step is None:
            raise SystemExit(0)  # the parent has gone: nothing left to answer
        return step

    child = make_child(path, bind, body)
    while (request := recv()) is not None:
        child.answer(request, send)


def _read_exactly(fd: int, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            return None
        data += chunk
    return data
