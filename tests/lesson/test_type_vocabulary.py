"""The contract's vocabulary for JSON Schema's tools: an "any" type, dict args with properties, list args with items.

A reason names a contract field by dotted path: "type:filter.color"; an item of a
list is named by its list ("range:points"), as check_result names "range:rows.qty".
"""

import jsonschema
import pytest

from agtool import tools

# Stage 1's own check of a refused table (imported under a name pytest does not collect twice).
from tests.lesson.test_stage1_contract import test_check_table_refuses_a_mistake_naming_tool_and_field as assert_refused

FILTER = {
    "type": "dict",
    "properties": {
        "color": {"type": "str", "allowed": ["red", "blue"]},
        "min_qty": {"type": "int", "min": 0, "required": False},
    },
}
POINTS = {"type": "list", "items": {"type": "float", "min": 0, "max": 1}}
ROWS = {"type": "list", "items": {"type": "dict", "properties": {"qty": {"type": "int", "max": 9}}}}


@pytest.fixture
def search(put_tool, spy):
    """A tool with a nested dict arg, a list of numbers, a list of dicts and an any."""
    return put_tool(
        "search",
        spy(value={}),
        args={"filter": FILTER, "points": POINTS, "rows": ROWS, "extra": {"type": "any", "required": False}},
    )


GOOD = {"filter": {"color": "red"}, "points": [0, 0.5, 1], "rows": [{"qty": 3}]}


# ── stage 2: check_args ──────────────────────────────────────────────────────


@pytest.mark.stage2
@pytest.mark.parametrize("value", [None, True, 0, "", [], {}, [{"a": [1]}]])
def test_any_takes_every_value(search, value):
    """ "any" lets every value through, bool and None too."""
    assert tools.check_args("search", {**GOOD, "extra": value}) is None


@pytest.mark.stage2
@pytest.mark.parametrize(
    "args, reason",
    [
        ({**GOOD, "filter": {"color": "red", "colour": "red"}}, "unknown:filter.colour"),
        ({**GOOD, "filter": {}}, "missing:filter.color"),
        ({**GOOD, "filter": {"color": 7}}, "type:filter.color"),
        ({**GOOD, "filter": {"color": "green"}}, "allowed:filter.color"),
        ({**GOOD, "filter": {"color": "red", "min_qty": -1}}, "range:filter.min_qty"),
        ({**GOOD, "filter": "red"}, "type:filter"),
    ],
    ids=["unknown", "missing", "type", "allowed", "range", "not a dict"],
)
def test_a_dict_arg_checks_its_keys_as_args_with_dotted_reasons(search, args, reason):
    """Inside a dict arg: unknown, missing, type, range, allowed, named filter.<key>."""
    assert tools.check_args("search", args) == reason


@pytest.mark.stage2
@pytest.mark.parametrize(
    "args, reason",
    [
        ({**GOOD, "points": [0.5, "1"]}, "type:points"),
        ({**GOOD, "points": [0.5, 1.5]}, "range:points"),
        ({**GOOD, "points": [float("nan")]}, "range:points"),
        ({**GOOD, "points": (0.5,)}, "type:points"),
        ({**GOOD, "rows": [{"qty": 3}, {"qty": 10}]}, "range:rows.qty"),
        ({**GOOD, "rows": [{"qty": 3}, {}]}, "missing:rows.qty"),
        ({**GOOD, "rows": [{"qty": 3}, "row"]}, "type:rows"),
    ],
    ids=[
        "item type",
        "item range",
        "item NaN",
        "tuple is not a list",
        "item key range",
        "item key missing",
        "item not a dict",
    ],
)
def test_a_list_arg_checks_every_item_named_by_the_list(search, args, reason):
    """Every item meets the items spec; its reason names the list, as rows.qty names a key of some row."""
    assert tools.check_args("search", args) == reason


@pytest.mark.stage2
def test_empty_lists_and_optional_keys_pass(search):
    """No items, nothing to break; an optional key left out of a dict arg is fine."""
    assert tools.check_args("search", GOOD) is None
    assert tools.check_args("search", {**GOOD, "points": [], "rows": []}) is None


@pytest.mark.stage2
def test_the_outer_arg_is_checked_before_its_insides(put_tool, spy):
    """Table order holds across levels: an earlier arg's nested reason comes before a later arg's."""
    put_tool("ordered", spy(), args={"a": FILTER, "b": {"type": "int"}})
    assert tools.check_args("ordered", {"a": {"color": 1}, "b": "x"}) == "type:a.color"
    assert tools.check_args("ordered", {"a": {"color": "red"}, "b": "x", "c": 1}) == "unknown:c"


@pytest.mark.stage2
def test_lists_of_lists_name_the_outer_list(put_tool, spy):
    """Items inside items add no step either."""
    put_tool("grid", spy(), args={"m": {"type": "list", "items": {"type": "list", "items": {"type": "int"}}}})
    assert tools.check_args("grid", {"m": [[1, 2], [3]]}) is None
    assert tools.check_args("grid", {"m": [[1, 2], [3, True]]}) == "type:m"


@pytest.mark.stage4
def test_the_door_refuses_a_nested_mistake_before_the_body(search):
    """A nested reason goes out through the door as args:<reason>, and the body does not run."""
    envelope = tools.call_tool("search", {**GOOD, "filter": {"color": "green"}})
    assert envelope == {"ok": False, "value": None, "error": "args:allowed:filter.color"}
    assert search.runs == 0


# ── stage 1: describe_tools and check_table ─────────────────────────────────


@pytest.mark.stage1
def test_describe_tools_emits_nested_properties_items_and_any(search):
    """A dict arg is a closed object, a list arg has items, an any arg has no type at all."""
    (described,) = [d for d in tools.describe_tools() if d["function"]["name"] == "search"]
    parameters = described["function"]["parameters"]
    jsonschema.Draft202012Validator.check_schema(parameters)
    properties = parameters["properties"]
    assert properties["filter"] == {
        "type": "object",
        "additionalProperties": False,
        "required": ["color"],
        "properties": {
            "color": {"type": "string", "enum": ["red", "blue"]},
            "min_qty": {"type": "integer", "minimum": 0},
        },
    }
    assert properties["points"] == {"type": "array", "items": {"type": "number", "minimum": 0, "maximum": 1}}
    assert properties["rows"]["items"]["properties"]["qty"] == {"type": "integer", "maximum": 9}
    assert properties["extra"] == {}
    assert parameters["required"] == ["filter", "points", "rows"]


@pytest.mark.stage1
def test_a_free_dict_and_a_free_list_stay_free(put_tool, spy):
    """Without properties a dict takes any keys; without items a list takes any items."""
    put_tool("free", spy(), args={"d": {"type": "dict"}, "l": {"type": "list"}})
    assert tools.check_args("free", {"d": {"anything": [1]}, "l": [None, "x", {}]}) is None


def entry_with(**args):
    return {"fn": len, "description": "a tool", "args": args, "returns": {}}


# (what is wrong, the entry, a word the message must contain besides the tool name)
MISTAKES = [
    ("properties on a list", entry_with(x={"type": "list", "properties": {}}), "properties"),
    ("items on a dict", entry_with(x={"type": "dict", "items": {"type": "int"}}), "items"),
    ("items not a spec", entry_with(x={"type": "list", "items": "int"}), "items"),
    ("properties not a dict", entry_with(x={"type": "dict", "properties": ["a"]}), "properties"),
    (
        "bad spec inside properties",
        entry_with(x={"type": "dict", "properties": {"n": {"type": "int", "min": 3, "max": 1}}}),
        "'n'",
    ),
    ("bad spec inside items", entry_with(x={"type": "list", "items": {"type": "number"}}), "items"),
    ("required on an item", entry_with(x={"type": "list", "items": {"type": "int", "required": False}}), "required"),
    ("allowed on any", entry_with(x={"type": "any", "allowed": [1]}), "any"),
    ("allowed on a list", entry_with(x={"type": "list", "allowed": [[1]]}), "allowed"),
    ("allowed on a dict", entry_with(x={"type": "dict", "allowed": [{}]}), "allowed"),
    ("min on any", entry_with(x={"type": "any", "min": 1}), "min"),
    ("a type that is a list", entry_with(x={"type": ["int"]}), "type"),
]


@pytest.mark.stage1
@pytest.mark.parametrize("entry, word", [m[1:] for m in MISTAKES], ids=[m[0] for m in MISTAKES])
def test_check_table_refuses_a_nested_mistake(entry, word):
    """A mistake in the new keys is refused when the table is checked, naming the tool and the field."""
    assert_refused(entry, word)


@pytest.mark.stage1
def test_any_is_a_type_of_results_too(put_tool, spy):
    """ "any" in returns: every value passes the shape check; an empty one is still empty unless allowed."""
    put_tool("anything", spy(value={"v": []}), returns={"v": {"type": "any"}})
    assert tools.check_result("anything", {"v": 0}) is None
    assert tools.check_result("anything", {"v": []}) == "empty:v"
