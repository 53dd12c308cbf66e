"""The grader's trusted versions of stages 2 to 5, one module a stage: what stage isolation installs.

While stage N of a submission is probed, the grader's own versions of the stages
below N stand in for the student's, so a bug costs points once. A sandboxed child
probing stage N imports `bind(module, N)`, which imports the modules of the stages
below N and nothing more: the child never holds the trusted code of stage N or later.
"""

import importlib
from collections.abc import Callable
from typing import Any

# stage -> the module that holds its trusted logic
MODULES = {2: "args", 3: "results", 4: "door", 5: "memo"}


def bind(module: Any, below: int = 7) -> dict[str, tuple[int, Callable]]:
    """name -> (stage, trusted function) for the stages below `below`, reading module.TOOLS when called."""

    def tools() -> dict:
        return module.TOOLS

    def stage(number: int) -> Any:  # imported only for a stage below `below`
        return importlib.import_module(f"{__name__}.{MODULES[number]}")

    bound: dict[str, tuple[int, Callable]] = {}
    if below > 2:
        args = stage(2)
        bound |= {
            "check_args": (2, lambda name, given: args.arg_reason(tools()[name]["args"], given)),
            "check_arg_fields": (
                2,
                lambda specs, given, prefix: next(args.arg_failures(specs, given, False, prefix), None),
            ),
            "has_type": (2, args.has_type),
            "in_range": (2, args.in_range),
        }
    if below > 3:
        results = stage(3)
        bound |= {
            "check_result": (3, lambda name, value: results.result_reason(tools()[name]["returns"], value)),
            "check_fields": (
                3,
                lambda specs, value, prefix: next(results.field_failures(specs, value, prefix, every=False), None),
            ),
        }
    if below > 4:
        door = stage(4)
        bound["call_tool"] = (4, lambda name, given: door.call_tool(tools(), name, given))
    if below > 5:
        memo = stage(5)
        bound |= {
            "memo_key": (5, memo.memo_key),
            "is_json": (5, memo.is_json),
            "call_memo": (5, lambda name, given, kept: memo.call_memo(tools(), name, given, kept)),
        }
    return bound
