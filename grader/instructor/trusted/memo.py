"""Stage 5, trusted: the memo, written from the spec."""

import json
import math
from typing import Any

from agtool.contract import MAX_INT_BITS  # the lab's constant (json.dumps refuses ints of over 4300 digits)
from grader.instructor.trusted.door import call_tool


def is_json(value: Any) -> bool:
    """Can JSON hold value exactly? (A tuple would come back a list, a key 1 as "1", NaN and a list that
    holds itself not at all.) Never raises."""
    kind = type(value)
    if value is None or kind is str or kind is bool:
        return True
    if kind is int:
        return value.bit_length() <= MAX_INT_BITS
    if kind is float:
        return math.isfinite(value)
    try:  # a list that holds itself recurses until Python stops it: no JSON text holds it
        if kind is list:
            return all(map(is_json, value))
        if kind is dict:
            return all(type(key) is str and is_json(item) for key, item in value.items())
    except RecursionError:
        return False
    return False


def memo_key(name: Any, args: Any) -> str | None:
    if not isinstance(name, str) or not is_json(args):
        return None
    return f"{name} {json.dumps(args, sort_keys=True)}"


def call_memo(tools: dict, name: Any, args: Any, memo: dict) -> dict:
    """Remember ok envelopes only, as JSON text, so no caller can change what a hit returns."""
    key = memo_key(name, args)
    if key is not None and key in memo:
        return json.loads(memo[key])
    envelope = call_tool(tools, name, args)
    if key is not None and envelope["ok"] and is_json(envelope["value"]):
        memo[key] = json.dumps(envelope)
    return envelope
