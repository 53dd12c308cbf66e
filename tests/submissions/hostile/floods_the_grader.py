# Hostile twist, appended to the reference tools.py at test time:
# the module finds the pipe its answers go back on (a local of the child-side runner's
# `serve`, in its own call stack) and writes frames there itself, past the encoder that keeps
# an answer small, each frame a well-formed outcome of JSON that costs the grader's process
# many times its size to decode:
#   stage 2: one answer nested 200 lists deep;
#   stage 3: six answers of 16 MB of empty lists, [[],[],...] (before the grader's budgets:
#            about 2 GB of the grader's memory, an OOM kill on a small container);
#   stage 4: answers of just under 1 MB each, but of empty lists: 350,000 values apiece;
#   stage 5: answers each within what one frame may hold (40,000 empty lists and 900,000
#            characters of text), but one for every call of a request of 20 calls or more.
# Stages 1 and 6 are the reference's, and keep their points. Only stages 2 to 5 may lose points.
import os as _os
import struct as _struct
import sys as _sys

_reference = {"check_args": check_args, "check_result": check_result, "call_tool": call_tool, "memo_key": memo_key}


def _runner_locals(function):
    """The locals of the runner's frame running `function`, found up this call stack."""
    frame = _sys._getframe()
    while frame is not None:
        if frame.f_code.co_name == function and frame.f_code.co_filename.endswith(("runner.py", "channel.py")):
            return frame.f_locals
        frame = frame.f_back
    return {}


def _empty_lists(count):
    return b"[" + b"[]," * (count - 1) + b"[]]"


def _outcome(value):
    return b'{"value":' + value + b"}"


def _flooding(stage, calls):
    """The raw frames this stage's attack sends for a request of `calls` calls, or None: answer honestly."""
    if stage == 2:
        return [_outcome(b"[" * 200 + b"]" * 200)]
    if stage == 3 and calls >= 6:
        return [_outcome(_empty_lists((16 * 1024 * 1024 - 64) // 3))] * 6
    if stage == 4 and calls >= 6:
        return [_outcome(_empty_lists((1024 * 1024 - 64) // 3))] * calls
    if stage == 5 and calls >= 20:
        text = "\N{GRINNING FACE}".encode() + b"x" * 900_000  # one astral character: 4 bytes a character, decoded
        return [_outcome(b"[" + _empty_lists(40_000) + b',"' + text + b'"]')] * calls
    return None


def _flood(name, *args):
    request = _runner_locals("answer").get("request") or {}
    frames = _flooding(request.get("stage"), len(request.get("calls", ())))
    to_parent = _runner_locals("serve").get("to_parent")
    if frames is None or to_parent is None:
        return _reference[name](*args)
    for text in frames:
        data = _struct.pack(">I", len(text)) + text
        while data:
            data = data[_os.write(to_parent, data) :]
    _os._exit(0)  # every frame is out: the grader reads them, then finds the channel closed


def check_args(name, args):
    return _flood("check_args", name, args)


def check_result(name, value):
    return _flood("check_result", name, value)


def call_tool(name, args):
    return _flood("call_tool", name, args)


def memo_key(name, args):
    return _flood("memo_key", name, args)
