"""Shared fixtures: a contract table a test may edit freely, and spy tool bodies that count their runs."""

import contextlib
import copy

import pytest

from agtool import tools


@contextlib.contextmanager
def restored_table():
    """Inside the block TOOLS and FIXES hold deep copies; after it, the originals are back.

    Tests edit the copies (even nested specs), so no edit leaks into the next test.
    """
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
    with restored_table():
        yield tools.TOOLS


@pytest.fixture(scope="session")
def restoring():
    """restored_table itself, for Hypothesis tests that must restore after every example.

    (A function-scoped fixture would be shared by all examples of one test.)
    """
    return restored_table


class Spy:
    """A tool body that records every run: returns `value`, raises `raises`, or runs `wraps`."""

    def __init__(self, value=None, raises=None, wraps=None):
        self.value, self.raises, self.wraps = value, raises, wraps
        self.runs = []

    def __call__(self, **args):
        self.runs.append(args)
        if self.raises is not None:
            raise self.raises
        return self.wraps(**args) if self.wraps else copy.deepcopy(self.value)


@pytest.fixture
def put_tool(table):
    """put_tool(name, body, args={...}, returns={...}, **extra): a checked contract in TOOLS."""

    def put(name, body, args=None, returns=None, **extra):
        table[name] = {"fn": body, "description": f"test tool {name}",
                       "args": args or {}, "returns": returns or {}, **extra}
        tools.check_table()
        return body

    return put


@pytest.fixture(scope="session")
def spy():
    """The Spy class: spy(value=...), spy(raises=...), spy(wraps=real_body); .runs lists each run's args."""
    return Spy
