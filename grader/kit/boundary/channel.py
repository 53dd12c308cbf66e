"""The channel between the grader and a sandboxed child: length-prefixed JSON frames over two pipes.

This is the child's side (`serve`): it reads a request, answers it with one frame per call, and in
between asks the parent to run a tool body ({"body": tool}) and waits for what it did. The parent's
side (grader/instructor/sandbox/session.py) reads every frame as hostile: it refuses, before decoding,
a frame over MAX_FRAME bytes or MAX_FRAME_MARKS marks, then one deeper than MAX_FRAME_DEPTH, and a
request's outcomes over REQUEST_NODES or REQUEST_TEXT (exchange.py), so what it holds is bounded.
An honest frame is small: one outcome, as values.to_plain bounds it, a short text, or a body run.
"""

import json
import os
import struct
from collections.abc import Callable
from typing import Any

from grader.kit.boundary.values import MAX_DEPTH, MAX_JSON, MAX_MARKS

FRAME = struct.Struct(">I")  # the length of the JSON text that follows

# What one frame may be: an outcome's value and its envelope, or a text of error_text's length
# (300 characters, 12 bytes each at their widest escape) with room to spare.
MAX_FRAME = MAX_JSON + 16 * 1024
MAX_FRAME_MARKS = MAX_MARKS + 1024
MAX_FRAME_DEPTH = MAX_DEPTH + 8  # to_plain's depth, its marker dict, the outcome's envelopes
# What the outcomes of one request may hold together: two frames at their most, decoded.
REQUEST_NODES = 2 * MAX_FRAME_MARKS  # lists, dicts, keys, strs and numbers
REQUEST_TEXT = 2 * MAX_FRAME  # characters of strs and keys, and bytes of big ints


def refused(what: str) -> str:
    """Why the parent read no further: a frame, or a request's frames, over `what`."""
    return (
        f"the answer was over {what}, which no value tools.py returns is sent as (a bigger or deeper one "
        "goes as not plain data): did tools.py write to the grader's channel itself?"
    )


def frame(data: Any) -> bytes:
    """Plain JSON data (NaN and infinities allowed) as one frame; anything else raises TypeError here."""
    text = json.dumps(data, allow_nan=True).encode()
    return FRAME.pack(len(text)) + text


def serve(make_child: Callable, path: str, bind: Callable, from_parent: int, to_parent: int, code: Any = None) -> None:
    """Answer requests until the parent closes the channel; `code`: the submission compiled already."""

    # A request's frames go out in one write, when it is answered or a body run must wait for the parent:
    # the parent woken once, not once a frame (on a virtual machine each wake-up is most of a request's cost).
    unsent: list[bytes] = []

    def send(data: Any) -> None:
        unsent.append(frame(data))

    def flush() -> None:
        out = b"".join(unsent)
        unsent.clear()
        while out:
            out = out[os.write(to_parent, out) :]

    def recv() -> Any:
        header = _read_exactly(from_parent, FRAME.size)
        text = header and _read_exactly(from_parent, FRAME.unpack(header)[0])
        return None if text is None else json.loads(text)

    def body(tool: str) -> dict:
        send({"body": tool})
        flush()
        step = recv()
        if step is None:
            raise SystemExit(0)  # the parent has gone: nothing left to answer
        return step

    child = make_child(path, bind, body, code)
    while (request := recv()) is not None:
        child.answer(request, send)
        flush()


def _read_exactly(fd: int, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            return None
        data += chunk
    return data
