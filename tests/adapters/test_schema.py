"""agtool.schema: one contract to OpenAI, Anthropic and MCP, what each leaves unchecked, and back again."""

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from agtool import schema, tools
from tests.contract_strategies import arg_fields, args_for, json_values, tables

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
EXPORTS = {"openai": schema.to_openai, "anthropic": schema.to_anthropic, "mcp": schema.to_mcp}


def schemas_of(dialect: str, described: dict) -> list[dict]:
    """The JSON Schemas in one exported tool definition."""
    if dialect == "openai":
        return [described["function"]["parameters"]]
    if dialect == "anthropic":
        return [described["input_schema"]]
    return [described["inputSchema"], described["outputSchema"]]


def objects(node):
    """Every object schema inside a schema, the root too."""
    if isinstance(node, dict):
        if "properties" in node:
            yield node
        for value in node.values():
            yield from objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from objects(value)


def wire(value):
    """What arrives after a trip through JSON, as from a provider's API."""
    return json.loads(json.dumps(value, allow_nan=False))


FREE = {
    "fn": dict,
    "description": "Search with free-form filters.",
    "args": {"q": {"type": "str"}, "filters": {"type": "dict"}},
    "returns": {},
}


# ── the three dialects ───────────────────────────────────────────────────────


def test_openai_form_of_the_lab_table():
    """OpenAI: {"type": "function", "function": {name, description, parameters, strict: true}}."""
    (first, *_) = schema.to_openai(tools.TOOLS)
    assert first == {
        "type": "function",
        "function": {
            "name": "stock_lookup",
            "description": tools.TOOLS["stock_lookup"]["description"],
            "strict": True,
            "parameters": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string"},
                    "region": {"type": "string", "enum": ["busan", "jeju", "seoul"]},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 2},
                },
                "required": ["sku", "region", "limit"],
                "additionalProperties": False,
            },
        },
    }


def test_anthropic_form_of_the_lab_table():
    """Anthropic: {name, description, input_schema}, the same closed object describe_tools() sends."""
    described = schema.to_anthropic(tools.TOOLS)
    assert [set(d) for d in described] == [{"name", "description", "input_schema"}] * len(tools.TOOLS)
    assert [d["input_schema"] for d in described] == [d["function"]["parameters"] for d in tools.describe_tools()]


def test_mcp_output_schema_says_what_check_result_checks():
    """MCP: returns become outputSchema: max_len -> maxItems, not empty -> minItems/minLength 1, min/max."""
    (stock, *_) = schema.to_mcp(tools.TOOLS)
    assert set(stock) == {"name", "description", "inputSchema", "outputSchema"}
    output = stock["outputSchema"]
    assert output["$schema"] == stock["inputSchema"]["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert output["required"] == ["sku", "rows"] and "additionalProperties" not in output
    assert output["properties"]["sku"] == {"type": "string", "minLength": 1}
    rows = output["properties"]["rows"]
    assert (rows["type"], rows["maxItems"], rows["minItems"]) == ("array", 2, 1)
    assert rows["items"]["properties"]["qty"] == {"type": "integer", "minimum": 0}
    days = schema.to_mcp(tools.TOOLS)[2]["outputSchema"]["properties"]["days"]
    assert days == {"type": "integer", "minimum": 0, "maximum": 14}


@pytest.mark.parametrize("allow_empty, expected", [(False, {"not": {"enum": ["", [], {}]}}), (True, {})])
def test_a_result_of_any_type_that_must_not_be_empty(allow_empty, expected):
    """An "any" result that must not be empty refuses "", [] and {} in the outputSchema too."""
    table = {"t": {**FREE, "returns": {"v": {"type": "any", **({"allow_empty": True} if allow_empty else {})}}}}
    output = schema.to_mcp(table)[0]["outputSchema"]
    assert output["properties"]["v"] == expected
    validator = jsonschema.Draft202012Validator(output)
    assert validator.is_valid({"v": []}) is allow_empty and validator.is_valid({"v": 0})


@pytest.mark.parametrize("dialect", EXPORTS)
def test_exports_refuse_a_broken_table(dialect):
    """A table check_table refuses is refused by every export, with the same ContractError."""
    with pytest.raises(tools.ContractError, match=r"broken.*limit"):
        EXPORTS[dialect]({"broken": {**FREE, "args": {"limit": {"type": "int", "min": 3, "max": 1}}}})


def test_openai_refuses_a_name_openai_refuses():
    """OpenAI takes a-z, A-Z, 0-9, _ and - in a function name; a dot would get a 400, so it is refused here."""
    with pytest.raises(tools.ContractError, match=r"stock.lookup"):
        schema.to_openai({"stock.lookup": FREE})


# ── OpenAI strict mode ───────────────────────────────────────────────────────


def test_optional_args_are_required_and_nullable_in_strict_mode():
    """Strict mode: every property is in required; an optional one may be null (enum gains null too)."""
    table = {
        "t": {
            **FREE,
            "args": {
                "sku": {"type": "str"},
                "region": {"type": "str", "allowed": ["jeju"], "required": False},
                "filter": {
                    "type": "dict",
                    "required": False,
                    "properties": {"min": {"type": "int", "required": False}},
                },
            },
        }
    }
    params = schema.to_openai(table)[0]["function"]["parameters"]
    assert params["required"] == ["sku", "region", "filter"]
    assert params["properties"]["region"] == {"type": ["string", "null"], "enum": ["jeju", None]}
    nested = params["properties"]["filter"]
    assert nested["type"] == ["object", "null"] and nested["required"] == ["min"]
    assert nested["properties"]["min"] == {"type": ["integer", "null"]}
    assert nested["additionalProperties"] is False


@pytest.mark.parametrize(
    "arg, field",
    [
        ({"type": "dict"}, "filters"),
        ({"type": "list"}, "filters"),
        ({"type": "any"}, "filters"),
        ({"type": "list", "items": {"type": "dict"}}, "filters"),
    ],
)
def test_a_tool_strict_mode_cannot_say_goes_best_effort(arg, field):
    """A free-form dict, a list without items or an any arg: strict false, and the loss report says why."""
    table = {"t": {**FREE, "args": {"q": {"type": "str"}, "filters": arg}}}
    (described,) = schema.to_openai(table)
    assert described["function"]["strict"] is False
    assert described["function"]["parameters"]["required"] == ["q", "filters"]
    report = schema.loss_report(table, "openai")["t"]
    assert report["args:type:q"].startswith("sent with strict: false") and field in report["args:type:q"]


@SETTINGS
@given(table=tables)
def test_strict_tools_follow_every_strict_rule(table):
    """Every object in a strict tool: additionalProperties false, all properties required, optional ones nullable."""
    for described in schema.to_openai(table):
        function = described["function"]
        event(f"strict: {function['strict']}")
        if not function["strict"]:
            continue
        for node in objects(function["parameters"]):
            assert node["additionalProperties"] is False
            assert node["required"] == list(node["properties"])
        args = table[function["name"]]["args"]
        for name, spec in args.items():
            nullable = "null" in function["parameters"]["properties"][name]["type"]
            assert nullable == (spec.get("required") is False)


def test_drop_nulls_turns_strict_nulls_back_into_absent_args():
    """OpenAI strict sends null for a left-out optional arg; drop_nulls removes it, nested too, and nothing else."""
    specs = {
        "sku": {"type": "str"},
        "limit": {"type": "int", "required": False},
        "filter": {"type": "dict", "properties": {"color": {"type": "str", "required": False}}},
        "rows": {"type": "list", "items": {"type": "dict", "properties": {"q": {"type": "int", "required": False}}}},
    }
    sent = {"sku": None, "limit": None, "filter": {"color": None}, "rows": [{"q": None}, {"q": 1}], "x": None}
    assert schema.drop_nulls(specs, sent) == {"sku": None, "filter": {}, "rows": [{}, {"q": 1}], "x": None}
    assert schema.drop_nulls(specs, ["not", "a", "dict"]) == ["not", "a", "dict"]


@pytest.mark.parametrize(
    "wrong, words",
    [
        (tools.TOOLS["stock_lookup"], ["entry['args']", "not the whole entry"]),
        ({"sku": "str"}, ["TOOLS[name]['args']", "'sku'"]),
        (None, ["args contract", "None"]),
    ],
    ids=["a whole entry", "a spec that is not a dict", "nothing"],
)
def test_drop_nulls_refuses_what_is_not_an_args_contract(wrong, words):
    """drop_nulls(entry, args) used to drop nothing, quietly: it says in one line what to pass instead."""
    with pytest.raises(TypeError) as refused:
        schema.drop_nulls(wrong, {"sku": "A-100", "limit": None})
    message = str(refused.value)
    assert "\n" not in message and all(word in message for word in words), message


def test_to_openai_responses_is_the_chat_form_flat():
    """The Responses API takes {"type": "function", name, description, parameters, strict}: no "function" key."""
    flat = schema.to_openai_responses(tools.TOOLS)
    assert flat == [{"type": "function", **d["function"]} for d in schema.to_openai(tools.TOOLS)]
    assert schema.from_json_schema(flat[0])[1]["args"] == tools.TOOLS["stock_lookup"]["args"]


# ── every export is valid JSON Schema 2020-12 ───────────────────────────────


@SETTINGS
@given(table=tables, dialect=st.sampled_from(sorted(EXPORTS)))
@example(table=tools.TOOLS, dialect="openai")
@example(table=tools.TOOLS, dialect="anthropic")
@example(table=tools.TOOLS, dialect="mcp")
def test_exports_are_valid_json_schema(table, dialect):
    """The lab's table and generated ones, nested args and all: every schema passes the 2020-12 meta-schema."""
    for described in EXPORTS[dialect](table):
        json.dumps(described, allow_nan=False)  # a provider is sent JSON
        for each in schemas_of(dialect, described):
            jsonschema.Draft202012Validator.check_schema(each)


# ── round trip ───────────────────────────────────────────────────────────────


@SETTINGS
@given(table=tables, dialect=st.sampled_from(sorted(EXPORTS)))
def test_export_then_import_gives_the_same_contract(table, dialect):
    """Exported, sent as JSON and imported: the same args and description; through MCP the same returns."""
    for described in EXPORTS[dialect](table):
        name, entry = schema.from_json_schema(wire(described))
        original = table[name]
        assert entry["args"] == original["args"]
        assert entry["description"] == original["description"]
        assert entry["returns"] == (original["returns"] if dialect == "mcp" else {})


def test_the_lab_table_round_trips_through_mcp():
    """The lab's three tools come back from MCP definitions as they are in TOOLS (but fn and upgrade)."""
    for described in schema.to_mcp(tools.TOOLS):
        name, entry = schema.from_json_schema(wire(described))
        assert {k: entry[k] for k in ("description", "args", "returns")} == {
            k: tools.TOOLS[name][k] for k in ("description", "args", "returns")
        }


# ── check_args agrees with jsonschema on nested contracts ───────────────────
# The oracle is the exported inputSchema under Draft 2020-12, with "integer" meaning Python's
# int (JSON Schema counts 1.0 as an integer; the contract's body would receive a float).
# A reason names a contract field: jsonschema's error path with the list positions taken out
# (so "points.2" is "points"), and for unknown and missing, the key the error is about.

ContractValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, value: isinstance(value, int) and not isinstance(value, bool)
    ),
)
CHECK = {
    "additionalProperties": "unknown",
    "required": "missing",
    "type": "type",
    "minimum": "range",
    "maximum": "range",
    "enum": "allowed",
}


def reasons_of(error) -> set[str]:
    """The check_args reasons a jsonschema error stands for: the contract path without list positions."""
    path = [step for step in error.path if isinstance(step, str)]
    check = CHECK[error.validator]
    if check == "unknown":
        keys = [key for key in error.instance if key not in error.schema.get("properties", {})]
    elif check == "missing":
        keys = [key for key in error.validator_value if key not in error.instance]
    else:
        keys = [None]
    return {f"{check}:" + ".".join(path + ([key] if key is not None else [])) for key in keys}


def assert_agrees(name, args):
    (described,) = [d for d in schema.to_mcp(tools.TOOLS) if d["name"] == name]
    errors = list(ContractValidator(described["inputSchema"]).iter_errors(args))
    reason = tools.check_args(name, args)
    nested = any(len(error.path) > 1 for error in errors)
    event(f"check_args: {reason.split(':')[0] if reason else 'passes'}{', inside a nested arg' if nested else ''}")
    assert (reason is None) == (not errors), (reason, [e.message for e in errors])
    if reason:  # it names a check that really fails, on the field that fails it
        assert reason in set().union(*map(reasons_of, errors)), (reason, [e.message for e in errors])


def without_defaults(schema: dict) -> dict:
    """A schema with its "default" keywords taken out (the dialects' documentation of an arg), nested too."""
    kept = {key: value for key, value in schema.items() if key != "default"}
    if "properties" in kept:
        kept["properties"] = {name: without_defaults(inner) for name, inner in kept["properties"].items()}
    if "items" in kept:
        kept["items"] = without_defaults(kept["items"])
    return kept


@settings(SETTINGS, max_examples=250)
@given(contract=arg_fields(depth=2), data=st.data())
def test_check_args_agrees_with_jsonschema_on_nested_contracts(restoring, contract, data):
    """Generated contracts with nested dicts, lists and any: check_args passes exactly when jsonschema does."""
    with restoring() as table:
        table["generated"] = {"fn": dict, "description": "generated", "args": contract, "returns": {}}
        tools.check_table(table)
        # The dialects are stage 1's schema, with defaults added as documentation: describe_tools says the same.
        assert without_defaults(schema.parameters_schema(contract)) == tools.object_schema(contract)
        assert_agrees("generated", data.draw(args_for(contract)))


# ── loss_report ──────────────────────────────────────────────────────────────


def test_openai_loss_report_for_the_lab_table():
    """OpenAI strict enforces types, names, enums and required; ranges only for some models; returns not at all."""
    report = schema.loss_report(tools.TOOLS, "openai")
    stock = report["stock_lookup"]
    assert "fine-tuned" in stock["args:range:limit"]
    assert not [rule for rule in stock if rule.startswith("args:") and rule != "args:range:limit"]
    assert {"result:too_big:rows", "result:empty:rows", "result:range:rows.qty", "result:shape:result"} <= set(stock)
    assert "args:range:limit" not in report["delivery_eta"] and "result:range:days" in report["delivery_eta"]


def test_anthropic_and_mcp_leave_every_arg_rule_to_the_door():
    """Without strict tool use Claude's inputs are unchecked; MCP leaves input checks to the server."""
    every = [
        f"args:{rule}"
        for rule in (
            "unknown:*",
            "missing:sku",
            "type:sku",
            "missing:region",
            "type:region",
            "allowed:region",
            "missing:limit",
            "type:limit",
            "range:limit",
        )
    ]
    for dialect in ("anthropic", "mcp"):
        report = schema.loss_report(tools.TOOLS, dialect)["stock_lookup"]
        assert [rule for rule in report if rule.startswith("args:")] == every, dialect
    assert "SHOULD" in schema.loss_report(tools.TOOLS, "mcp")["delivery_eta"]["result:range:days"]


def test_loss_report_names_nested_rules_by_dotted_path():
    """Rules inside a dict arg or a list's items are named as check_args names them."""
    table = {
        "t": {
            **FREE,
            "args": {
                "filter": {"type": "dict", "properties": {"n": {"type": "int", "max": 3}}},
                "points": {"type": "list", "items": {"type": "float", "min": 0}},
            },
        }
    }
    rules = set(schema.loss_report(table, "anthropic")["t"])
    assert {"args:unknown:filter.*", "args:range:filter.n", "args:type:points", "args:range:points"} <= rules


def test_loss_report_refuses_an_unknown_dialect():
    with pytest.raises(ValueError, match="gemini"):
        schema.loss_report(tools.TOOLS, "gemini")


# ── from_json_schema: the dialects and the sloppy variant ───────────────────

# As the Berkeley Function Calling Leaderboard writes tools: "dict", "float", "tuple", "any".
SLOPPY = {
    "name": "calculate_area",
    "description": "Area of a shape.",
    "parameters": {
        "type": "dict",
        "required": ["base", "height"],
        "properties": {
            "base": {"type": "integer", "description": "The base."},
            "height": {"type": "float"},
            "unit": {"type": "string", "enum": ["cm", "m"], "default": "cm"},
            "corner": {"type": "tuple", "items": {"type": "integer"}},
            "note": {"type": "any"},
        },
    },
}

# As FastMCP writes a pydantic model: titles everywhere, Optional as anyOf with null.
PYDANTIC_MCP = {
    "name": "stock",
    "title": "Stock",
    "inputSchema": {
        "type": "object",
        "title": "stockArguments",
        "required": ["sku"],
        "properties": {
            "sku": {"type": "string", "title": "Sku"},
            "limit": {
                "anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}],
                "default": None,
                "title": "Limit",
            },
        },
    },
}


def test_the_sloppy_variant_is_read():
    """ "dict" is object, "float" is number, "tuple" an array, "any" any value; left out of required: optional."""
    name, entry = schema.from_json_schema(SLOPPY)
    assert name == "calculate_area" and entry["description"] == "Area of a shape."
    assert entry["args"] == {
        "base": {"type": "int", "description": "The base."},
        "height": {"type": "float"},
        "unit": {"type": "str", "allowed": ["cm", "m"], "default": "cm", "required": False},
        "corner": {"type": "list", "items": {"type": "int"}, "required": False},
        "note": {"type": "any", "required": False},
    }
    assert entry["returns"] == {}


def test_pydantic_optional_and_a_missing_description():
    """anyOf [X, null] is an optional X; a tool without a description takes its title (pydantic's default kept)."""
    _name, entry = schema.from_json_schema(PYDANTIC_MCP)
    assert entry["description"] == "Stock"
    assert entry["args"] == {
        "sku": {"type": "str"},
        "limit": {"type": "int", "min": 1, "default": None, "required": False},
    }


@pytest.mark.parametrize(
    "wrapped",
    [
        {"type": "function", "function": SLOPPY},  # OpenAI Chat Completions
        {"type": "function", **SLOPPY},  # OpenAI Responses API (flat)
        {"name": SLOPPY["name"], "description": SLOPPY["description"], "input_schema": SLOPPY["parameters"]},
    ],
    ids=["openai chat", "openai responses", "anthropic"],
)
def test_every_wrapping_is_read(wrapped):
    """The same tool, wrapped as each dialect wraps it, is the same contract entry."""
    assert schema.from_json_schema(wrapped)[1]["args"] == schema.from_json_schema(SLOPPY)[1]["args"]


def params(**properties):
    return {"name": "t", "parameters": {"type": "object", "properties": properties}}


# ── the dialects people write: optional, default, description, enum on an array ─

# As hand-written definitions often are: "optional": true on the property, a default,
# a description per argument, and enum on an array meaning its items.
HAND_WRITTEN = {
    "type": "function",
    "function": {
        "name": "find_products",
        "description": "Find products.",
        "parameters": {
            "type": "object",
            "required": ["query"],
            "properties": {
                "query": {"type": "string", "description": "Words to look for."},
                "region": {
                    "type": "string",
                    "enum": ["busan", "jeju", "seoul"],
                    "optional": True,
                    "default": "seoul",
                    "description": "Where to look; nearest first.",
                },
                "colors": {"type": "array", "enum": ["red", "blue"], "optional": True, "description": "Any of these."},
                "sizes": {"type": "array", "items": {"type": "integer"}, "enum": [1, 2, 3], "optional": True},
            },
        },
    },
}

FOUND: dict[str, dict[str, Any]] = {
    "query": {"type": "str", "description": "Words to look for."},
    "region": {
        "type": "str",
        "allowed": ["busan", "jeju", "seoul"],
        "default": "seoul",
        "description": "Where to look; nearest first.",
        "required": False,
    },
    "colors": {
        "type": "list",
        "items": {"type": "str", "allowed": ["red", "blue"]},
        "description": "Any of these.",
        "required": False,
    },
    "sizes": {"type": "list", "items": {"type": "int", "allowed": [1, 2, 3]}, "required": False},
}


def test_hand_written_definitions_are_read():
    """optional: true is not required; default and description are kept; enum on an array is its items' enum."""
    name, entry = schema.from_json_schema(HAND_WRITTEN)
    assert name == "find_products" and entry["args"] == FOUND


def test_a_default_is_documentation_never_filled_in(table, spy):
    """The door passes no default: a left-out arg reaches the body left out (its own Python default applies)."""
    body = spy(value={"rows": [1]})
    name, entry = schema.from_json_schema(HAND_WRITTEN, fn=body)
    table[name] = {**entry, "returns": {"rows": {"type": "list"}}}
    assert tools.call_tool(name, {"query": "kettle"})["ok"]
    assert body.calls == [{"query": "kettle"}]
    assert tools.call_tool(name, {"query": "kettle", "colors": ["green"]})["error"] == "args:allowed:colors"
    assert tools.call_tool(name, {"query": "kettle", "sizes": [2, 4]})["error"] == "args:allowed:sizes"


@pytest.mark.parametrize("dialect", EXPORTS)
def test_descriptions_and_defaults_go_back_out_in_every_dialect(dialect):
    """Every export writes each arg's description; a default too, but not in OpenAI strict mode, which has none."""
    (described,) = EXPORTS[dialect](dict([schema.from_json_schema(HAND_WRITTEN)]))
    (properties,) = [each["properties"] for each in schemas_of(dialect, described)[:1]]
    assert properties["query"]["description"] == "Words to look for."
    assert properties["region"]["description"] == "Where to look; nearest first."
    assert properties["colors"]["items"]["enum"] == ["red", "blue"]
    assert ("default" in properties["region"]) is (dialect != "openai")  # this tool is strict
    _name, entry = schema.from_json_schema(wire(described))
    expected = {
        key: {k: v for k, v in spec.items() if dialect != "openai" or k != "default"} for key, spec in FOUND.items()
    }
    assert entry["args"] == expected  # the round trip keeps what the dialect can say


def test_a_tool_that_cannot_be_strict_keeps_its_default_for_openai():
    table = {
        "t": {
            "fn": dict,
            "description": "T.",
            "returns": {},
            "args": {"filters": {"type": "dict"}, "n": {"type": "int", "default": 3, "required": False}},
        }
    }
    (described,) = schema.to_openai(table)
    assert described["function"]["strict"] is False
    assert described["function"]["parameters"]["properties"]["n"] == {"type": "integer", "default": 3}


def test_describe_tools_shows_an_arg_description(table):
    """describe_tools() writes a spec's description as the property's; a spec without one gets none."""
    table["find_products"] = dict([schema.from_json_schema(HAND_WRITTEN)])["find_products"]
    properties = tools.describe_tools()[-1]["function"]["parameters"]["properties"]
    assert properties["query"] == {"type": "string", "description": "Words to look for."}
    assert properties["sizes"] == {"type": "array", "items": {"type": "integer", "enum": [1, 2, 3]}}
    exported = schema.to_anthropic(table)[-1]["input_schema"]
    del exported["properties"]["region"]["default"]  # describe_tools sends no default: nothing uses it
    assert tools.describe_tools()[-1]["function"]["parameters"] == exported


@pytest.mark.parametrize(
    "spec, words",
    [
        ({"type": "str", "description": 7}, ["description", "str"]),
        ({"type": "list", "items": {"type": "int", "default": 1}}, ["'default'"]),
        ({"type": "int", "note": "x"}, ["'note'", "description"]),
    ],
    ids=["a description that is not text", "a default on an item", "an unknown key"],
)
def test_check_table_knows_description_and_default(spec, words):
    with pytest.raises(tools.ContractError) as refused:
        tools.check_table({"t": {"fn": dict, "description": "T.", "args": {"a": spec}, "returns": {}}})
    assert all(word in str(refused.value) for word in words), str(refused.value)


# (what the definition says that the contract cannot hold, the definition, words the message must hold)
CANNOT = [
    ("a pattern", params(q={"type": "string", "pattern": "^A"}), ["properties.q", "pattern"]),
    ("a length", params(q={"type": "string", "maxLength": 9}), ["maxLength"]),
    ("oneOf", params(q={"oneOf": [{"type": "string"}, {"type": "integer"}]}), ["oneOf"]),
    ("a union", params(q={"type": ["string", "integer"]}), ["one type"]),
    ("a mixed enum", params(q={"enum": ["a", 1]}), ["mixes types"]),
    (
        "a typed map",
        params(q={"type": "object", "additionalProperties": {"type": "integer"}}),
        ["additionalProperties"],
    ),
    ("positional items", params(q={"type": "array", "prefixItems": [{"type": "integer"}]}), ["prefixItems"]),
    ("a nullable item", params(q={"type": "array", "items": {"type": ["integer", "null"]}}), ["q.items"]),
    ("an optional item", params(q={"type": "array", "items": {"type": "integer", "optional": True}}), ["q.items"]),
    (
        "optional yet required",
        {
            "name": "t",
            "parameters": {
                "type": "object",
                "required": ["q"],
                "properties": {"q": {"type": "string", "optional": True}},
            },
        },
        ["optional", "'q'", "required"],
    ),
    ("optional not a bool", params(q={"type": "string", "optional": "yes"}), ["optional", "'yes'"]),
    ("a description not text", params(q={"type": "string", "description": ["x"]}), ["description"]),
    ("an enum of arrays on an array", params(q={"type": "array", "enum": [["a", "b"]]}), ["enum", "array"]),
    (
        "enum on an array and its items",
        params(q={"type": "array", "enum": ["a"], "items": {"type": "string", "enum": ["b"]}}),
        ["enum", "items"],
    ),
    (
        "an optional result key said so",
        {
            "name": "t",
            "inputSchema": {"type": "object"},
            "outputSchema": {
                "type": "object",
                "required": ["v"],
                "properties": {"v": {"type": "integer", "optional": True}},
            },
        },
        ["'optional'"],
    ),
    ("an unknown type", params(q={"type": "date"}), ["'date'"]),
    (
        "open args",
        {"name": "t", "input_schema": {"type": "object", "additionalProperties": True}},
        ["additionalProperties"],
    ),
    ("required without property", {"name": "t", "parameters": {"type": "object", "required": ["q"]}}, ["'q'"]),
    ("two schemas", {"name": "t", "parameters": {}, "inputSchema": {}}, ["parameters", "inputSchema"]),
    ("no schema", {"name": "t"}, ["none"]),
    ("no name", {"parameters": {"type": "object"}}, ["name"]),
    ("min above max", params(n={"type": "integer", "minimum": 5, "maximum": 1}), ["'n'", "min"]),
    (
        "an optional result key",
        {
            "name": "t",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"v": {"type": "integer"}}},
        },
        ["'v'", "required"],
    ),
    (
        "a longer minimum",
        {
            "name": "t",
            "inputSchema": {"type": "object"},
            "outputSchema": {
                "type": "object",
                "required": ["v"],
                "properties": {"v": {"type": "array", "minItems": 3}},
            },
        },
        ["minItems"],
    ),
]


@pytest.mark.parametrize("definition, words", [c[1:] for c in CANNOT], ids=[c[0] for c in CANNOT])
def test_a_rule_the_contract_cannot_hold_is_refused_not_dropped(definition, words):
    """Importing never loosens a rule quietly: ContractError says where, and what to do."""
    with pytest.raises(tools.ContractError) as refused:
        schema.from_json_schema(definition)
    assert all(word in str(refused.value) for word in words), str(refused.value)


def test_an_imported_tool_works_at_the_door(table):
    """Put an imported entry into TOOLS: check_args checks it; without fn the body says it has none."""
    name, entry = schema.from_json_schema(SLOPPY)
    table[name] = entry
    assert tools.check_args(name, {"base": 2, "height": 1.5, "note": [None]}) is None
    assert tools.check_args(name, {"base": 2, "height": 1.5, "corner": [1, "2"]}) == "type:corner"
    assert tools.call_tool(name, {"base": 2, "height": 1.5})["error"] == "tool:raised:NotImplementedError"
    with pytest.raises(NotImplementedError, match="no body bound for calculate_area"):
        entry["fn"](base=2, height=1.5)


def test_a_body_can_be_bound_on_import(table):
    """fn= binds the body; returns from the outputSchema are checked after it."""
    definition = schema.to_mcp(tools.TOOLS)[2]  # delivery_eta
    _name, entry = schema.from_json_schema(definition, fn=tools.TOOLS["delivery_eta"]["fn"])
    table["eta_imported"] = entry
    assert tools.call_tool("eta_imported", {"sku": "A-100", "region": "busan"})["ok"]
    assert tools.call_tool("eta_imported", {"sku": "A-100", "region": "jeju"})["error"] == "result:range:days"


KEYWORDS = sorted(schema.ARG_NODE_KEYWORDS | schema.RETURN_NODE_KEYWORDS | {"anyOf", "nullable", "pattern"})
sloppy_schemas = st.recursive(
    st.sampled_from([True, False, {}, {"type": "null"}])
    | st.dictionaries(st.sampled_from(KEYWORDS), st.sampled_from(sorted(schema.TYPE_NAMES)) | json_values, max_size=3),
    lambda inner: st.dictionaries(
        st.sampled_from(KEYWORDS),
        inner | st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
        max_size=3,
    ),
    max_leaves=8,
)


@SETTINGS
@given(
    definition=st.fixed_dictionaries(
        {"name": st.text(max_size=4)},
        optional={"parameters": sloppy_schemas, "outputSchema": sloppy_schemas, "description": json_values},
    )
)
def test_any_definition_is_imported_or_refused_with_a_contract_error(definition):
    """Whatever a definition holds, from_json_schema gives a checked entry or a ContractError, nothing else."""
    try:
        name, entry = schema.from_json_schema(definition)
    except tools.ContractError:
        event("refused")
    else:
        event("imported")
        tools.check_table({name: entry})
