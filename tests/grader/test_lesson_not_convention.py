"""Stages 2-4 judge the lesson, not the reference's spelling.

Both ways, with one-change copies of the reference:

- a real mistake against a rule the kit states costs its own check, and only that one
  (the bugs students wrote without the reference: a name that is no str inside a dict
  arg, items never checked against allowed, an int too big for a float, a crash
  turned into a pass, a door that swallows asyncio.CancelledError);
- a reasonable spelling of what nothing later reads costs nothing (an item's position
  after its list's name, a name that is no str spelled another way, an exception's
  class named by __qualname__ or with its module).
"""

import pytest

from grader.kit.checks import stage2, stage4
from tests.mutation import mutant, verdicts

pytestmark = pytest.mark.grader

SEEDS = (0, 5)
STAGES = (2, 3, 4)

_ITEMS = '                reason = check_arg_fields({arg: spec["items"]}, {arg: item}, prefix)'
_MIN = '    if "min" in spec and not value >= spec["min"]:\n        return False'
_EXCEPT = (
    "    except Exception as error:  # KeyboardInterrupt and SystemExit still stop the program\n"
    '        return failure(f"tool:raised:{type(error).__name__}")'
)
_RESULT_ITEMS = (
    "            for element in item:\n"
    "                if not isinstance(element, dict):\n"
    '                    return f"shape:{prefix}{key}"\n'
    '                reason = check_fields(spec["items"], element, prefix=f"{prefix}{key}.")'
)

BUGS = [
    mutant(
        "a name that is no str inside a dict arg raises",
        '            return f"unknown:{prefix}{arg}"',
        '            return f"unknown:{arg}" if not prefix else "unknown:" + prefix + arg',
        "2.2",
    ),
    mutant(
        "items are never checked against allowed",
        _ITEMS,
        '                item_spec = {k: v for k, v in spec["items"].items() if k != "allowed"}\n'
        "                reason = check_arg_fields({arg: item_spec}, {arg: item}, prefix)",
        "2.7",
    ),
    mutant(
        "math.isnan on an int too big for a float",
        _MIN,
        '    if isinstance(value, (int, float)) and math.isnan(value) and ("min" in spec or "max" in spec):\n'
        "        return False\n" + _MIN,
        "2.5",
    ),
    mutant(  # its own float handling (math.isnan raises OverflowError on 10 ** 400), swallowed
        "a crash inside check_result becomes a pass",
        '    return check_fields(TOOLS[name]["returns"], value, prefix="")',
        "    try:\n"
        "        if any(type(item) is int and math.isnan(item) for item in value.values()):\n"
        '            return "range:result"\n'
        '        return check_fields(TOOLS[name]["returns"], value, prefix="")\n'
        "    except Exception:\n"
        "        return None",
        "3.6",
    ),
    mutant(
        "the door re-raises three named BaseExceptions and swallows the rest",
        _EXCEPT,
        "    except (KeyboardInterrupt, SystemExit, GeneratorExit):\n        raise\n"
        "    except BaseException as error:\n"
        '        return failure(f"tool:raised:{type(error).__name__}")',
        "4.4",
    ),
    mutant(
        "the door names the exception by its message",
        _EXCEPT,
        _EXCEPT.replace("{type(error).__name__}", "{type(error).__name__}: {error}"),
        "4.4",
    ),
    mutant(
        "a str tool name written as its repr",
        '        return failure(f"tool:unknown:{name}")',
        '        return failure(f"tool:unknown:{name!r}")',
        "4.2",
        "4.6",
    ),
]

SPELLINGS = [
    mutant(
        "a name that is no str spelled by its type",
        '            return f"unknown:{prefix}{arg}"',
        "            return f\"unknown:{prefix}{arg if isinstance(arg, str) else '<' + type(arg).__name__ + '>'}\"",
    ),
    mutant(
        "an item of a list arg named with its position",
        "            for item in value:\n" + _ITEMS,
        "            for at, item in enumerate(value):\n"
        '                reason = check_arg_fields({f"{arg}[{at}]": spec["items"]}, {f"{arg}[{at}]": item}, prefix)',
    ),
    mutant(
        "an item of a result list named with its position",
        _RESULT_ITEMS,
        "            for at, element in enumerate(item):\n"
        "                if not isinstance(element, dict):\n"
        '                    return f"shape:{prefix}{key}.{at}"\n'
        '                reason = check_fields(spec["items"], element, prefix=f"{prefix}{key}.{at}.")',
    ),
    mutant(
        "the exception's class named by its module and __qualname__",
        _EXCEPT,
        _EXCEPT.replace("{type(error).__name__}", "{type(error).__module__}.{type(error).__qualname__}"),
    ),
    # What the lesson leaves to the student (agtool/rules.py says "yours"), done the other way from the reference:
    mutant(  # 2.2: the reference raises there (TOOLS[name], a loop over args); the door never asks it
        "check_args gives a reason for an unknown tool or args that are not a dict",
        '    return check_arg_fields(TOOLS[name]["args"], args, prefix="")',
        '    if name not in TOOLS or not isinstance(args, dict):\n        return "shape:args"\n'
        '    return check_arg_fields(TOOLS[name]["args"], args, prefix="")',
    ),
    mutant(  # 3.4: no JSON value a tool sends; the reference calls them neither empty nor too big
        "an empty tuple, set or bytes in an any key is empty",
        "        if isinstance(item, (list, dict, str)):",
        "        if isinstance(item, (list, dict, str, tuple, set, bytes)):",
    ),
    mutant(
        "a tool name that is no str written as JSON",
        '        return failure(f"tool:unknown:{name}")',
        '        return failure(f"tool:unknown:{name if isinstance(name, str) else json.dumps(name, default=repr)}")',
    ),
]


@pytest.mark.parametrize("bug", BUGS, ids=[bug.rule for bug in BUGS])
def test_a_real_mistake_costs_its_own_check_and_no_other(bug, tmp_path):
    path = tmp_path / "tools.py"
    path.write_text(bug.source())
    for seed in SEEDS:
        stages = STAGES if seed == SEEDS[0] else (int(next(iter(bug.fails))[0]),)
        failed = {label for label, passed in verdicts(path, seed, stages).items() if not passed}
        assert failed == set(bug.fails), f"seed {seed}"


@pytest.mark.parametrize("spelling", SPELLINGS, ids=[spelling.rule for spelling in SPELLINGS])
def test_a_reasonable_spelling_costs_nothing(spelling, tmp_path):
    path = tmp_path / "tools.py"
    path.write_text(spelling.source())
    for seed in SEEDS:
        failed = {label for label, passed in verdicts(path, seed, STAGES).items() if not passed}
        assert not failed, f"seed {seed}"


# ── the judges' own reading of a reason ──────────────────────────────────────

POINTS = {"points": {"type": "list", "items": {"type": "int", "min": 1}}}
GRID = {"grid": {"type": "list", "items": {"type": "list", "items": {"type": "int"}}}}
ROWS_ARG = {"rows": {"type": "list", "items": {"type": "dict", "properties": {"qty": {"type": "int"}}}}}
ROWS = {"rows": {"type": "list", "items": {"qty": {"type": "int"}}}}


@pytest.mark.parametrize(
    "specs, field, part, read",
    [
        (POINTS, "points.1", "args", "points"),
        (POINTS, "points[1]", "args", "points"),
        (GRID, "grid[1][0]", "args", "grid"),
        (GRID, "grid.1.0", "args", "grid"),
        (ROWS_ARG, "rows[2].qty", "args", "rows.qty"),
        (ROWS_ARG, "rows.max_qty", "args", "rows.max_qty"),
        (ROWS, "rows.1.qty", "returns", "rows.qty"),
        (ROWS, "rows[0]", "returns", "rows"),
        (POINTS, "1.5", "args", "1.5"),  # a name that is no str: not a position
        ({"sku": {"type": "str"}}, "sku.1", "args", "sku.1"),  # no list: nothing taken out
    ],
)
def test_positions_are_read_out_along_the_contract_only(specs, field, part, read):
    assert stage2.without_positions(specs, field, part) == read


def test_a_name_that_is_no_str_may_be_spelled_any_way_but_as_a_field():
    where = {"where": {"type": "dict", "properties": {"region": {"type": "str"}}}}
    args = {"where": {"region": "busan", 1: 2}}
    assert stage2.right_reason(where, args, ["unknown:where.1"], "unknown:where.<int>")
    assert stage2.right_reason(where, args, ["unknown:where.1"], "unknown:1")  # the path is 2.7's
    assert not stage2.right_reason(where, args, ["unknown:where.1"], "unknown:where.region")
    assert not stage2.right_reason(where, args, ["unknown:where.1"], "type:where")
    assert not stage2.right_reason(where, {"where": {"x": 1}}, ["unknown:where.x"], "unknown:where.y")


def test_an_exception_class_is_read_by_the_name_at_its_end():
    rights = ["tool:raised:Down"]
    for spelling in ("tool:raised:Down", "tool:raised:Inventory.Down", "tool:raised:make.<locals>.Down"):
        assert stage4.right_error(rights, spelling)
    for spelling in ("tool:raised:Down: no route", "tool:raised:Down('x')", "tool:raised:Breakdown", "Down"):
        assert not stage4.right_error(rights, spelling)


def test_a_door_reads_the_reasons_of_its_own_checks_as_they_do():
    """In the kit, stage 4 runs on the student's own stages 2 and 3: their spellings are right there too."""
    entry = {"args": {"points": {"type": "list", "items": {"type": "int", "max": 9}}}, "returns": ROWS}
    assert stage4.right_error(["args:range:points"], "args:range:points[1]", entry, "t", {"points": [1, 99]})
    assert stage4.right_error(["args:unknown:1"], "args:unknown:<int>", entry, "t", {1: 2})
    assert stage4.right_error(["result:range:rows.qty"], "result:range:rows.0.qty", entry, "t", {})
    assert stage4.right_error(["tool:unknown:5"], "tool:unknown:<int>", None, 5, {})
    assert not stage4.right_error(["tool:unknown:t5"], "tool:unknown:'t5'", None, "t5", {})
    assert not stage4.right_error(["args:range:points"], "args:range:points.x", entry, "t", {"points": [99]})
    assert not stage4.right_error(["args:missing:points"], "args:unknown:<int>", entry, "t", {1: 2})
