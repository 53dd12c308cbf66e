"""Shared by every part of the suite: a stage's marker on every test about that stage, a contract
table a test may edit freely, and spy tool bodies that record their runs.

The suite is by part: tests/lesson/ (the reference's six stages), tests/grader/ (the checks, the
oracle, the public cases, validity), tests/sandbox/ (containment and budgets), tests/instructor/
(the instructor's commands: grade, class, the term, the bundle, the kit), tests/lab/ (the panel,
the notebooks' helpers, the model stand-in), tests/adapters/ (OpenAI, Anthropic, MCP) and
tests/project/ (the README and the suite's own set-up). Shared helpers and data stay here, at the
top: the student submissions, the mutants, the sandbox's and the strategies' helpers.
"""

import contextlib
import copy
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

# The lab's modules are imported where a fixture first runs: pytest-xdist's controller loads this
# file too, runs no test, and would wait 2 s for LangGraph before starting the workers.
if TYPE_CHECKING:
    from grader.kit.boundary.spies import Spy


LABEL = re.compile(r"([1-9])\.[0-9]+")  # a check's label, "4.3": its stage is 4


def stages_named(value: Any) -> set[int]:
    """The stages a test's parameter is about: a check, a check's label, a case or mutant whose
    `fails` (or `checks`) names check labels, or a `stage` number."""
    if type(value) is str:
        match = LABEL.fullmatch(value)
        return {int(match.group(1))} if match else set()
    if isinstance(value, frozenset | set | tuple | list):
        return {stage for item in value for stage in stages_named(item)}
    stages = set()
    if type(getattr(value, "stage", None)) is int:
        stages.add(value.stage)
    for labels in (getattr(value, "fails", None), getattr(value, "checks", None)):
        if isinstance(labels, frozenset | set | tuple | list):
            stages |= {stage for label in labels for stage in stages_named(label)}
    return stages


def pytest_collection_modifyitems(config, items) -> None:
    """`pytest -m stage4` runs everything about stage 4: the reference's tests (each file's own
    marker) and the grader's tests parametrized by a check, a label, a stage or a mutant of it."""
    registered = {line.split(":")[0] for line in config.getini("markers")}
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        named = set()
        for key, value in params.items():
            if key == "stage" and type(value) is int:
                named.add(value)
            else:
                named |= stages_named(value)
        for stage in sorted(named):
            if f"stage{stage}" in registered:  # a made-up stage (a test's stage 9) is none of the lab's
                item.add_marker(f"stage{stage}")


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
        tools.check_table(table)
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
