"""agtool.student: the one place the lab reaches the student's module, agtool/tools.py.

The lab is built on top of the lesson: its helpers, the experiment, the schemas and
providers, the MCP server and the bench call what the student wrote. They all reach it
through module() here, which imports agtool.tools on first use, never at their import:
a tools.py with a helper renamed, a stage not written yet or a mistake that raises at
import breaks only what reads it, when it is read, and never the lab's own imports
(tests/lab/test_lesson_on_top.py). agtool.contract, which tools.py imports, never reaches it:
check_table is given the table it checks.

StudentModule names what the lab reads of the module, by name: the fixed API of the stages,
which the notebooks hand the student (mypy holds agtool/tools.py to it, below).
pick_by_rules, provided code the student may rename, is not read: the lab has its own
copy (agtool/pickers.py). The panel follows whichever module it is given
(Panel(tools)), and so does the MCP server with --module.
"""

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, cast

NAME = "agtool.tools"


class StudentModule(Protocol):
    """What the lab reads of the student's module: stage 1's table and helpers, and the stages' doors."""

    TOOLS: dict  # stage 1: the contract table, tool name -> entry

    def describe_tools(self) -> list[dict]: ...  # stage 1 (agtool/lab.py)

    def object_schema(self, specs: dict) -> dict: ...  # stage 1 (agtool/schema.py: every dialect draws on it)

    def check_args(self, name: str, args: dict) -> str | None: ...  # stage 2 (agtool/door_speed.py)

    def call_tool(self, name: str, args: dict) -> dict: ...  # stage 4, the door

    def failure(self, reason: str) -> dict: ...  # stage 4's provided envelope (agtool/providers.py)

    def call_memo(self, name: str, args: dict, memo: dict) -> dict: ...  # stage 5 (agtool/door_speed.py)

    def run(  # stage 6, the retry graph (agtool/experiment.py)
        self,
        request: Any,
        max_attempts: int = ...,
        memo: dict | None = None,
        picker: Callable[[Any], tuple] | None = None,
    ) -> dict: ...


def module() -> StudentModule:
    """The student's module, agtool.tools: imported on first use, the one already imported after that
    (a reloaded tools.py is the same module, refreshed). Whatever its import raises is raised here."""
    return cast(StudentModule, importlib.import_module(NAME))


if TYPE_CHECKING:  # mypy checks that agtool/tools.py gives what StudentModule names; at run time nothing is imported
    from agtool import tools as _reference

    _gives: StudentModule = _reference
