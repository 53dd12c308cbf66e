"""Shared fixtures: a contract table a test may edit freely, and spy tool bodies that record their runs."""

import contextlib
import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

# The lab's modules are imported where a fixture first runs: pytest-xdist's controller loads this
# file too, runs no test, and would wait 2 s for LangGraph before starting the workers.
if TYPE_CHECKING:
    from grader.kit.boundary.spies import Spy


@contextlib.contextmanager
def restored_table():
    """Inside the block TOOLS and FIXES hold deep copies; after it, the originals are back.

    Tests edit the copies (even nested specs), so no edit leaks into the next test.
    """
    from agtool import tools

    saved_tools, saved_fixes = dict(tools.TOOLS), dict(tools.FIXES)
    tools.TOOLS.update(copy.deepcopy(saved_tools))
    try:
        yield tools.TOOLS
    finally:
        tools.TOOLS.clear()
        tools.TOOLS.update(saved_tools)
        tools.FIXES.clear()
        tools.FIXES.update(saved_fixes)


@pytest.fixture
def table():
    """agtool.tools.TOOLS, free to edit in this test."""
    with restored_table() as tools_table:
        yield tools_table


@pytest.fixture(scope="session")
def restoring():
    """restored_table itself, for Hypothesis tests that must restore after every example.

    (A function-scoped fixture would be shared by all examples of one test.)
    """
    return restored_table


@pytest.fixture
def put_tool(table):
    """put_tool(name, body, args={...}, returns={...}, **extra): a checked contract in TOOLS."""

    from agtool import tools

    def put(name, body, args=None, returns=None, **extra):
        table[name] = {
            "fn": body,
            "description": f"test tool {name}",
            "args": args or {},
            "returns": returns or {},
            **extra,
        }
        tools.check_table()
        return body

    return put


@pytest.fixture(scope="session")
def spy():
    """spy(value=...), spy(raises=...), spy(wraps=real_body): the grader's Spy around that body.

    .calls lists each run's args; .runs counts them. A value comes back as a fresh copy each run,
    so a caller that changes it changes no later run's answer.
    """

    from grader.kit.boundary.spies import Spy

    def make(value: Any = None, raises: BaseException | None = None, wraps: Callable[..., Any] | None = None) -> "Spy":
        def body(**args: Any) -> Any:
            if raises is not None:
                raise raises
            return wraps(**args) if wraps else copy.deepcopy(value)

        return Spy(wraps=body)

    return make
