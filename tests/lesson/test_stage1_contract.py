"""Stage 1 · contract: the TOOLS table, describe_tools() drawn from it, and check_table() guarding it."""

import ast
import importlib.util
import json
from pathlib import Path

import jsonschema
import pytest

from agtool import contract, inventory, tools

pytestmark = pytest.mark.stage1

REGIONS = ["busan", "jeju", "seoul"]


def test_stock_lookup_has_the_seed_contract():
    """stock_lookup: sku str, region one of busan/jeju/seoul, limit int 1..2; rows at most 2 of region/qty."""
    entry = tools.TOOLS["stock_lookup"]
    assert entry["args"] == {
        "sku": {"type": "str"},
        "region": {"type": "str", "allowed": REGIONS},
        "limit": {"type": "int", "min": 1, "max": 2},
    }
    assert entry["returns"]["sku"] == {"type": "str"}
    rows = entry["returns"]["rows"]
    assert (rows["type"], rows["max_len"]) == ("list", 2)
    assert rows["items"] == {"region": {"type": "str"}, "qty": {"type": "int", "min": 0}}


def test_stock_lookup_v2_is_the_upgrade_with_the_same_contract():
    """stock_lookup names stock_lookup_v2 as its upgrade, which keeps the same contract."""
    old, new = tools.TOOLS["stock_lookup"], tools.TOOLS["stock_lookup_v2"]
    assert old["upgrade"] == "stock_lookup_v2"
    assert (new["args"], new["returns"]) == (old["args"], old["returns"])
    assert "upgrade" not in new


def test_delivery_eta_days_lie_within_two_weeks():
    """delivery_eta returns days, an int in 0..14."""
    entry = tools.TOOLS["delivery_eta"]
    assert entry["returns"]["days"] == {"type": "int", "min": 0, "max": 14}
    assert set(entry["args"]) == {"sku", "region"}


def test_tool_bodies_are_the_sqlite_inventory():
    """The tool bodies are the inventory's real functions, not stand-ins."""
    assert tools.TOOLS["stock_lookup"]["fn"] is inventory.stock_lookup
    assert tools.TOOLS["stock_lookup_v2"]["fn"] is inventory.stock_lookup_v2
    assert tools.TOOLS["delivery_eta"]["fn"] is inventory.delivery_eta


def test_every_entry_has_fn_description_args_returns():
    """Every tool has a callable fn, a description for the model, args and returns."""
    for name, entry in tools.TOOLS.items():
        assert callable(entry["fn"]), name
        assert isinstance(entry["description"], str) and entry["description"].strip(), name
        assert isinstance(entry["args"], dict) and isinstance(entry["returns"], dict), name


# ── describe_tools ───────────────────────────────────────────────────────────


def described(name):
    (entry,) = [d for d in tools.describe_tools() if d["function"]["name"] == name]
    return entry


def test_describe_tools_lists_every_tool_in_openai_form():
    """One {"type": "function", "function": {name, description, parameters}} per tool, in table order."""
    listed = tools.describe_tools()
    assert [d["function"]["name"] for d in listed] == list(tools.TOOLS)
    for entry in listed:
        assert set(entry) == {"type", "function"} and entry["type"] == "function"
        assert set(entry["function"]) == {"name", "description", "parameters"}
        name = entry["function"]["name"]
        assert entry["function"]["description"] == tools.TOOLS[name]["description"]
    json.dumps(listed)  # the model is sent JSON


def test_describe_tools_parameters_are_a_closed_json_schema_object():
    """parameters: type object, properties with type/enum/minimum/maximum, required, no extra properties."""
    params = described("stock_lookup")["function"]["parameters"]
    assert params == {
        "type": "object",
        "properties": {
            "sku": {"type": "string"},
            "region": {"type": "string", "enum": REGIONS},
            "limit": {"type": "integer", "minimum": 1, "maximum": 2},
        },
        "required": ["sku", "region", "limit"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize("kind, json_type", list(tools.JSON_TYPES.items()))
def test_describe_tools_maps_each_type_name(put_tool, spy, kind, json_type):
    """Each contract type becomes its JSON Schema type (str -> string, float -> number, ...)."""
    put_tool("typed", spy(), args={"x": {"type": kind}})
    assert described("typed")["function"]["parameters"]["properties"]["x"] == {"type": json_type}


def test_describe_tools_leaves_optional_args_out_of_required(put_tool, spy):
    """An arg with required: False is a property but not in `required`."""
    put_tool(
        "opt",
        spy(),
        args={"a": {"type": "str"}, "b": {"type": "int", "required": False}, "c": {"type": "float", "required": True}},
    )
    params = described("opt")["function"]["parameters"]
    assert list(params["properties"]) == ["a", "b", "c"]
    assert params["required"] == ["a", "c"]


def test_describe_tools_reads_the_table_at_call_time(table, put_tool, spy):
    """A tool added or a bound changed after import shows up in the next describe_tools()."""
    table["stock_lookup"]["args"]["limit"]["max"] = 5
    put_tool("late", spy())
    assert described("stock_lookup")["function"]["parameters"]["properties"]["limit"]["maximum"] == 5
    assert described("late")["function"]["parameters"]["properties"] == {}


def test_every_described_schema_is_valid_json_schema():
    """Each parameters schema passes the JSON Schema meta-schema (Draft 2020-12)."""
    for entry in tools.describe_tools():
        jsonschema.Draft202012Validator.check_schema(entry["function"]["parameters"])


# ── check_table ──────────────────────────────────────────────────────────────


def test_the_lab_table_passes_check_table():
    """The lab's own table is accepted."""
    tools.check_table(tools.TOOLS)  # raises if the table is refused


def good_entry(**changes):
    entry = {
        "fn": len,
        "description": "a tool",
        "args": {"x": {"type": "int", "min": 0, "max": 9}},
        "returns": {"n": {"type": "int"}},
    }
    entry.update(changes)
    return entry


# (what is wrong, the entry, a word the message must contain besides the tool name)
MISTAKES = [
    ("unknown type name", good_entry(args={"x": {"type": "integer"}}), "x"),
    ("min above max", good_entry(args={"x": {"type": "int", "min": 5, "max": 1}}), "min"),
    ("allowed not a list", good_entry(args={"x": {"type": "str", "allowed": "seoul"}}), "allowed"),
    ("allowed empty", good_entry(args={"x": {"type": "str", "allowed": []}}), "allowed"),
    ("allowed of the wrong type", good_entry(args={"x": {"type": "int", "allowed": [1, "2"]}}), "allowed"),
    ("bool allowed for int", good_entry(args={"x": {"type": "int", "allowed": [True]}}), "allowed"),
    ("min on a str", good_entry(args={"x": {"type": "str", "min": 1}}), "min"),
    ("NaN bound", good_entry(args={"x": {"type": "float", "max": float("nan")}}), "max"),
    ("infinite bound", good_entry(args={"x": {"type": "float", "min": float("-inf")}}), "min"),
    ("bound of the wrong type", good_entry(args={"x": {"type": "int", "max": "9"}}), "max"),
    ("required not a bool", good_entry(args={"x": {"type": "int", "required": "no"}}), "required"),
    ("unknown spec key", good_entry(args={"x": {"type": "int", "maximum": 3}}), "maximum"),
    ("spec without a type", good_entry(args={"x": {"min": 1}}), "type"),
    ("spec not a dict", good_entry(args={"x": "int"}), "x"),
    ("args not a dict", good_entry(args=["x"]), "args"),
    ("returns not a dict", good_entry(returns=None), "returns"),
    ("fn not callable", good_entry(fn="stock_lookup"), "fn"),
    ("empty description", good_entry(description=" "), "description"),
    ("upgrade to no tool", good_entry(upgrade="nowhere"), "upgrade"),
    ("unknown entry key", good_entry(retries=3), "retries"),
    ("entry without returns", {"fn": len, "description": "d", "args": {}}, "returns"),
    ("max_len on a str", good_entry(returns={"s": {"type": "str", "max_len": 3}}), "max_len"),
    ("negative max_len", good_entry(returns={"l": {"type": "list", "max_len": -1}}), "max_len"),
    ("allow_empty not a bool", good_entry(returns={"l": {"type": "list", "allow_empty": 1}}), "allow_empty"),
    ("items on a dict", good_entry(returns={"d": {"type": "dict", "items": {}}}), "items"),
    (
        "bad spec inside items",
        good_entry(returns={"rows": {"type": "list", "items": {"qty": {"type": "int", "min": 3, "max": 0}}}}),
        "qty",
    ),
]


@pytest.mark.parametrize("entry, word", [m[1:] for m in MISTAKES], ids=[m[0] for m in MISTAKES])
def test_check_table_refuses_a_mistake_naming_tool_and_field(entry, word):
    """A table with a mistake is refused with a ContractError naming the tool and the field."""
    with pytest.raises(tools.ContractError) as refused:
        tools.check_table({"broken_tool": entry})
    message = str(refused.value)
    assert "broken_tool" in message and word in message, message


def test_check_table_refuses_a_table_that_is_not_a_dict():
    """TOOLS itself must be a dict; the error is a ValueError that says so."""
    with pytest.raises(ValueError, match="TOOLS must be a dict"):
        tools.check_table([("stock_lookup", {})])  # type: ignore[arg-type]  # the wrong type is the test


def test_check_table_checks_the_live_table(table):
    """check_table(TOOLS) checks TOOLS as it is now, so an edit can be checked before any call."""
    table["stock_lookup"]["args"]["limit"]["min"] = 3
    with pytest.raises(tools.ContractError, match=r"stock_lookup.*limit"):
        tools.check_table(table)


# ── where check_table lives: agtool/contract.py, the lab's part ──────────────


def test_tools_keeps_the_labs_names_from_agtool_contract():
    """tools.check_table, tools.ContractError and the constants are the lab's own, one definition each."""
    assert tools.check_table is contract.check_table and tools.ContractError is contract.ContractError
    for name in ("JSON_TYPES", "MAX_INT_BITS", "MAX_ATTEMPTS", "DEFAULT_REGION"):
        assert getattr(tools, name) is getattr(contract, name), name
    assert tools._PY_TYPES is contract.PY_TYPES  # what the student's has_type reads


def test_contract_imports_nothing_of_agtool_at_import():
    """agtool.tools imports agtool.contract: an import back at module level would be circular, and the
    oracle, which imports the constants, would then hold the reference."""
    tree = ast.parse(Path(contract.__file__).read_text())
    at_top = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    names: list[str | None] = [alias.name for node in at_top for alias in node.names]
    names += [node.module for node in at_top if isinstance(node, ast.ImportFrom)]
    assert not [name for name in names if name and name.startswith("agtool")], names


def test_a_tools_py_imported_under_another_name_checks_its_own_table(tmp_path):
    """The import-time check reads the module's own TOOLS, not agtool.tools's: the grader imports a
    submission under a name of its own, and its mistake must be the one refused."""
    source = Path(tools.__file__).read_text()
    good = '"limit": {"type": "int", "min": 1, "max": 2}}'
    assert source.count(good) == 1
    path = tmp_path / "tools.py"
    path.write_text(source.replace(good, '"limit": {"type": "int", "min": 3, "max": 2}}'))
    spec = importlib.util.spec_from_file_location("another_tools", path)
    assert spec is not None and spec.loader is not None
    with pytest.raises(tools.ContractError) as refused:
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    assert str(refused.value) == "TOOLS['stock_lookup']['args']['limit']: 'min' 3 is above 'max' 2"
    tools.check_table(tools.TOOLS)  # the lab's own table is untouched: this raises if it is not
