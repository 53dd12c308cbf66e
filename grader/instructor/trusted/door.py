"""Stage 4, trusted: the door, written from the spec."""

from typing import Any

from grader.instructor.trusted.args import arg_reason
from grader.instructor.trusted.results import result_reason


def failure(reason: str) -> dict:
    return {"ok": False, "value": None, "error": reason}


def call_tool(tools: dict, name: Any, args: Any) -> dict:
    """The door over a TOOLS table: an envelope, never an Exception."""
    if not isinstance(name, str) or name not in tools:
        return failure(f"tool:unknown:{name}")
    if not isinstance(args, dict):
        return failure("args:shape:args")
    reason = arg_reason(tools[name]["args"], args)
    if reason:
        return failure(f"args:{reason}")
    try:
        value = tools[name]["fn"](**args)
    except Exception as error:
        return failure(f"tool:raised:{type(error).__name__}")
    reason = result_reason(tools[name]["returns"], value)
    if reason:
        return failure(f"result:{reason}")
    return {"ok": True, "value": value, "error": None}
