"""agtool.schema: one contract, three dialects of tool schema, and back again.

Real agents describe their tools to a model in one of three dialects:

    OpenAI function calling   {"type": "function", "function": {name, description, parameters, strict}}
    Anthropic tool use        {name, description, input_schema}
    Model Context Protocol    {name, description, inputSchema, outputSchema}

to_openai() (to_openai_responses() for the Responses API's flat form),
to_anthropic() and to_mcp() draw each one from a contract table
(the lab's TOOLS, or any table check_table() accepts), so the descriptions a
model reads can never drift from the checks the door makes. loss_report() says,
per tool, which contract rules a dialect leaves unchecked before your code sees
the call: those stay with the door. from_json_schema() reads one definition in
any of the three dialects (or the common sloppy variant with "dict", "float",
"any" and "tuple" for type names) back into a contract entry.

Every schema emitted is valid JSON Schema 2020-12 (MCP's default dialect, which
its schemas also name in "$schema"; OpenAI and Anthropic document no "$schema",
so theirs carry none). A contract exported and imported again is the same
contract: its args through any dialect, its returns through MCP (the only
dialect with an output schema). `upgrade` and `fn` are the lab's own and travel
in no dialect.
"""

import copy
import re
from collections.abc import Callable
from typing import Any

from agtool import student  # stage 1: every dialect draws on the student's object_schema
from agtool.contract import JSON_TYPES, ContractError, check_table

DIALECT = "https://json-schema.org/draft/2020-12/schema"

# ── Export ───────────────────────────────────────────────────────────────────

# Contract spec key -> JSON Schema keyword, for args and for returns.
BOUNDS = {"min": "minimum", "max": "maximum"}
ARG_KEYWORDS = {"allowed": "enum", **BOUNDS}
# An arg's documentation, the same word in both: what the model reads, never a check.
DOCUMENTATION = ("description", "default")
RETURN_KEYWORDS = {**BOUNDS, "max_len": "maxItems"}

# How a result that must not be empty says so, per type (allow_empty False, the default).
NOT_EMPTY: dict[str, dict[str, Any]] = {
    "str": {"minLength": 1},
    "list": {"minItems": 1},
    "dict": {"minProperties": 1},
    "any": {"not": {"enum": ["", [], {}]}},
}

# OpenAI: "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a
# maximum length of 64" (API reference, function.name); others get a 400.
OPENAI_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")


def to_openai(tools: dict) -> list[dict]:
    """OpenAI function-calling tools, in strict mode wherever strict mode can say the contract.

    Strict mode (Structured Outputs) has no optional properties: every property
    is listed in required, and an optional arg is sent as nullable ("type":
    ["integer", "null"]); the model sends null for "left out", which
    drop_nulls() turns back into absent before the door. Strict mode also needs
    a type on every schema, items on every array and additionalProperties:
    false on every object, so a tool with an "any" arg, a list without items or
    a dict without properties cannot be strict: it goes with "strict": false
    (best effort), and loss_report(tools, "openai") says so. An arg's
    description goes along; its default does not in strict mode, whose subset
    of JSON Schema has no "default" (a strict tool's model sends null instead).
    """
    check_table(tools)
    described = []
    for name, entry in tools.items():
        if not OPENAI_NAME.fullmatch(name):
            raise ContractError(f"TOOLS[{name!r}]: OpenAI takes only a-z, A-Z, 0-9, _ and - in a name, 64 at most")
        strict = strict_blocker(entry["args"]) is None
        described.append(
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": entry["description"],
                    "parameters": parameters_schema(entry["args"], strict=strict),
                    "strict": strict,
                },
            }
        )
    return described


def to_openai_responses(tools: dict) -> list[dict]:
    """The same tools for OpenAI's Responses API, which takes them flat: {"type": "function", name, ...}."""
    return [{"type": "function", **described["function"]} for described in to_openai(tools)]


def to_anthropic(tools: dict) -> list[dict]:
    """Anthropic tool-use definitions: {name, description, input_schema} for every tool.

    Without "strict": true Claude reads input_schema as guidance only. Claude's
    strict tool use would not take the contract's ranges either (its JSON
    Schema subset has no minimum/maximum), so the door checks them whatever.
    """
    check_table(tools)
    return [
        {"name": name, "description": entry["description"], "input_schema": parameters_schema(entry["args"])}
        for name, entry in tools.items()
    ]


def to_mcp(tools: dict) -> list[dict]:
    """MCP tool definitions: {name, description, inputSchema, outputSchema}; returns becomes outputSchema.

    outputSchema says what the door's check_result checks: every key required,
    max_len as maxItems, min/max as minimum/maximum, and "not empty" (the
    default) as minItems/minLength/minProperties 1. Extra keys are allowed in
    a result, so it has no additionalProperties.
    """
    check_table(tools)
    return [
        {
            "name": name,
            "description": entry["description"],
            "inputSchema": {"$schema": DIALECT, **parameters_schema(entry["args"])},
            "outputSchema": {"$schema": DIALECT, **returns_schema(entry["returns"])},
        }
        for name, entry in tools.items()
    ]


def parameters_schema(specs: dict, strict: bool = False) -> dict:
    """The JSON Schema of a tool's args, as each dialect sends it: stage 1's own object_schema
    (agtool/tools.py: what the model reads is what the lesson wrote, and no second copy of it
    lives here), with each arg's default as documentation. strict: OpenAI strict's form, every
    property required, the optional ones nullable, and no default (its subset has none)."""
    return _dialected(copy.deepcopy(student.module().object_schema(specs)), specs, strict)


def _dialected(schema: dict, specs: dict, strict: bool) -> dict:
    properties = schema["properties"]
    for name, inner in specs.items():
        properties[name] = _documented(properties[name], inner, strict)
        if strict and not inner.get("required", True):
            properties[name] = nullable(properties[name])
    if strict:
        schema["required"] = list(specs)
    return schema


def _documented(schema: dict, spec: dict, strict: bool) -> dict:
    if strict:
        schema.pop("default", None)
    elif "default" in spec:
        schema["default"] = _copy(spec["default"])
    if "properties" in spec:
        _dialected(schema, spec["properties"], strict)
    if "items" in spec:
        schema["items"] = _documented(schema["items"], spec["items"], strict)
    return schema


def returns_schema(specs: dict) -> dict:
    """The JSON Schema of a result: an object with every key of specs required, extra keys allowed."""
    return {
        "type": "object",
        "properties": {key: return_schema(spec) for key, spec in specs.items()},
        "required": list(specs),
    }


def return_schema(spec: dict) -> dict:
    """The JSON Schema of one return spec."""
    schema = typed(spec["type"])
    schema.update({keyword: spec[key] for key, keyword in RETURN_KEYWORDS.items() if key in spec})
    if not spec.get("allow_empty", False):
        schema.update(NOT_EMPTY.get(spec["type"], {}))
    if "items" in spec:
        schema["items"] = returns_schema(spec["items"])
    return schema


def typed(kind: str) -> dict:
    """{"type": <JSON name>}, or {} for "any" (the schema every value meets)."""
    return {"type": JSON_TYPES[kind]} if kind in JSON_TYPES else {}


def nullable(schema: dict) -> dict:
    """schema that null meets too (null must be in an enum as well, or the enum refuses it)."""
    schema = {**schema, "type": [schema["type"], "null"]}
    if "enum" in schema:
        schema["enum"] = [*schema["enum"], None]
    return schema


def _copy(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value


# What OpenAI strict mode needs that some contract types may lack: type -> (the
# spec key that gives it, None when nothing can; why). Without it OpenAI answers
# 400: "schema must have a 'type' key" (oh-my-pi issue 211), "array schema
# missing items" (aichat PR 1049); and additionalProperties must be false on
# every object (Structured Outputs guide), so a dict with free keys is out.
STRICT_NEEDS = {
    "any": (None, "an 'any' arg has no type, and strict mode needs one on every schema"),
    "list": ("items", "a list without items, and strict mode needs items on every array"),
    "dict": (
        "properties",
        "a dict without properties, and strict mode needs additionalProperties: false on every object",
    ),
}


def strict_blocker(specs: dict, prefix: str = "") -> str | None:
    """Why OpenAI strict mode cannot take these args ("filter: a dict without properties, ..."), or None."""
    for key, inner in specs.items():
        why = strict_blocker_of(inner, prefix + key)
        if why:
            return why
    return None


def strict_blocker_of(spec: dict, field: str) -> str | None:
    needed, why = STRICT_NEEDS.get(spec["type"], ("type", ""))
    if needed is None or needed not in spec:
        return f"{field}: {why}"
    if "properties" in spec:
        return strict_blocker(spec["properties"], prefix=field + ".")
    if "items" in spec:
        return strict_blocker_of(spec["items"], field)  # an item is named by its list, as in reasons
    return None


def drop_nulls(specs: dict, sent: Any) -> Any:
    """The args a model sent, without the optional ones sent as null (OpenAI strict's "left out"), nested too.

    specs is the tool's args contract, TOOLS[name]["args"]; anything else (the
    whole entry, most often) raises TypeError rather than quietly dropping nothing.
    A null for a required arg stays, so the door still reports it (type:<arg>).
    Anything sent that is not a dict is returned as it is: the door reports that too.
    """
    _check_specs(specs)
    if not isinstance(sent, dict):
        return sent
    kept = {}
    for key, value in sent.items():
        spec = specs.get(key) if isinstance(key, str) else None
        if spec is None:
            kept[key] = value  # an unknown arg: the door's to report
        elif value is None and not spec.get("required", True):
            continue
        else:
            kept[key] = _drop_nulls_in(spec, value)
    return kept


def _check_specs(specs: Any) -> None:
    """Refuse what is not an args contract (name -> spec with a type), in one line saying what to pass."""
    if isinstance(specs, dict) and "args" in specs and "fn" in specs:
        raise TypeError(
            "drop_nulls takes the tool's args contract, entry['args'] (TOOLS[name]['args']), not the whole entry"
        )
    wrong = (
        [f"{specs!r:.40}"]
        if not isinstance(specs, dict)
        else [
            f"{key!r}: {spec!r:.40}" for key, spec in specs.items() if not (isinstance(spec, dict) and "type" in spec)
        ]
    )
    if wrong:
        raise TypeError(
            f"drop_nulls takes an args contract, name -> arg spec as in TOOLS[name]['args']; not {wrong[0]}"
        )


def _drop_nulls_in(spec: dict, value: Any) -> Any:
    if "properties" in spec:
        return drop_nulls(spec["properties"], value)
    if "items" in spec and isinstance(value, list):
        return [_drop_nulls_in(spec["items"], item) for item in value]
    return value


# ── What each dialect leaves unchecked ───────────────────────────────────────
# By door reason prefix, "<stage>:<check>" first, then "<stage>": why the
# provider does not check that rule before your code runs. A rule not listed
# is enforced by the provider (the door checks it all the same: providers change).

UNCHECKED = {
    "openai": {
        # Structured Outputs guide, "Supported properties": minimum/maximum are
        # supported, but under "Some type-specific keywords are not yet
        # supported": "For fine-tuned models, we additionally do not support ...
        # For numbers: minimum, maximum, multipleOf". The guide as first
        # published (August 2024) listed them as unsupported for every model.
        "args:range": "strict mode does not enforce minimum/maximum for fine-tuned models "
        "(nor, in the guide's first version, for any model)",
        "result": "function calling sends no schema for what a tool returns",
    },
    "anthropic": {
        # Claude docs, "Strict tool use": "Without strict mode, Claude might
        # return incompatible types ("2" instead of 2) or omit required fields".
        "args": 'input_schema guides Claude but is not enforced: it may send "2" for 2 or leave a required arg out',
        "result": "tool use sends no schema for what a tool returns",
    },
    "mcp": {
        # MCP spec, Tools, Security considerations: "Servers MUST validate all
        # tool inputs"; Output schema: "Clients SHOULD validate structured
        # results against this schema".
        "args": 'MCP leaves input checks to the server ("Servers MUST validate all tool inputs"): '
        "the door is that check",
        "result": "clients SHOULD, not must, validate results against outputSchema",
    },
}

NOT_STRICT = "sent with strict: false, so nothing is enforced: {}"


def loss_report(tools: dict, dialect: str) -> dict[str, dict[str, str]]:
    """For each tool, the contract rules `dialect` does not enforce, as door reasons -> why.

    A rule is named by the reason the door gives when it breaks:
    "args:range:limit", "result:too_big:rows", "args:unknown:*" (any name the
    contract does not list; "args:unknown:filter.*" inside a dict arg).
    """
    if dialect not in UNCHECKED:
        raise ValueError(f"dialect is {dialect!r}; use one of {', '.join(UNCHECKED)}")
    check_table(tools)
    report: dict[str, dict[str, str]] = {}
    for name, entry in tools.items():
        blocker = strict_blocker(entry["args"]) if dialect == "openai" else None
        report[name] = {}
        for rule in contract_rules(entry):
            why = NOT_STRICT.format(blocker) if blocker and rule.startswith("args:") else unchecked_why(dialect, rule)
            if why:
                report[name][rule] = why
    return report


def unchecked_why(dialect: str, rule: str) -> str | None:
    """Why dialect leaves rule unchecked, by its "<stage>:<check>" then its "<stage>"; None when it checks it."""
    table = UNCHECKED[dialect]
    stage, check, _ = rule.split(":", 2)
    prefix = f"{stage}:{check}"
    return table[prefix] if prefix in table else table.get(stage)


def contract_rules(entry: dict) -> list[str]:
    """Every rule of a contract entry, named by the door reason it gives when broken."""
    return [*arg_rules(entry["args"], prefix=""), "result:shape:result", *result_rules(entry["returns"], prefix="")]


def arg_rules(specs: dict, prefix: str) -> list[str]:
    rules = [f"args:unknown:{prefix}*"]
    for key, inner in specs.items():
        if inner.get("required", True):
            rules.append(f"args:missing:{prefix}{key}")
        rules += spec_rules(inner, prefix + key)
    return rules


def spec_rules(spec: dict, field: str) -> list[str]:
    rules = [] if spec["type"] == "any" else [f"args:type:{field}"]
    if "min" in spec or "max" in spec:
        rules.append(f"args:range:{field}")
    if "allowed" in spec:
        rules.append(f"args:allowed:{field}")
    if "properties" in spec:
        rules += arg_rules(spec["properties"], prefix=field + ".")
    if "items" in spec:
        rules += spec_rules(spec["items"], field)
    return list(dict.fromkeys(rules))  # an item's rule can repeat its list's (type:points)


def result_rules(specs: dict, prefix: str) -> list[str]:
    rules = []
    for key, inner in specs.items():
        field = prefix + key
        rules.append(f"result:shape:{field}")
        if inner["type"] in NOT_EMPTY and not inner.get("allow_empty", False):
            rules.append(f"result:empty:{field}")
        if "max_len" in inner:
            rules.append(f"result:too_big:{field}")
        if "min" in inner or "max" in inner:
            rules.append(f"result:range:{field}")
        if "items" in inner:
            rules += result_rules(inner["items"], prefix=field + ".")
    return rules


# ── Import ───────────────────────────────────────────────────────────────────

# Type names as JSON Schema writes them, and as the common sloppy variant does
# (Python's names, "any", and "tuple", which JSON can only send as an array).
TYPE_NAMES = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "array": "list",
    "object": "dict",
    "tuple": "list",
    "any": "any",
    **{name: name for name in JSON_TYPES},
}

# Keywords that describe without constraining: read past, not imported. In
# JSON Schema 2020-12 "format" is an annotation too unless a validator opts in.
ANNOTATIONS = {
    "description",
    "title",
    "default",
    "examples",
    "$comment",
    "$schema",
    "$id",
    "deprecated",
    "readOnly",
    "writeOnly",
    "format",
}

# The keywords each kind of node may carry besides annotations. "optional": true is
# the common hand-written way to say "not required", on the property itself.
ARG_NODE_KEYWORDS = {
    "type",
    "enum",
    "const",
    "minimum",
    "maximum",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "optional",
}
RETURN_NODE_KEYWORDS = {
    "type",
    "minimum",
    "maximum",
    "maxItems",
    "minItems",
    "minLength",
    "minProperties",
    "not",
    "properties",
    "required",
    "additionalProperties",
    "items",
}

SCHEMA_KEYS = ("parameters", "input_schema", "inputSchema")  # OpenAI, Anthropic, MCP


def from_json_schema(definition: dict, fn: Callable | None = None) -> tuple[str, dict]:
    """One tool definition in any dialect -> (name, contract entry) for TOOLS, check_args and the door.

    Reads OpenAI ({"type": "function", "function": {...}}, or flat as in the
    Responses API), Anthropic, MCP and the sloppy variant ("dict", "float",
    "any", "tuple"). An optional arg is one left out of required, nullable
    (OpenAI strict's form: use drop_nulls() on a model's args before the door),
    or marked "optional": true. An arg's description and default are kept in
    its spec, as documentation: the door never fills a default in (the tool's
    own Python default does, when the arg is left out). "enum" on an array of
    scalars is read as its items' allowed values, as people who write it mean.
    Returns come from MCP's outputSchema, else {} (any dict passes: add your own).
    Without fn the entry's body raises NotImplementedError("no body bound for
    <name>"), which the door reports as tool:raised:NotImplementedError.

    A rule the contract cannot hold (pattern, minLength, oneOf, ...) is never
    dropped quietly: ContractError names where it is and what to do.
    """
    tool = definition.get("function", definition) if isinstance(definition, dict) else None
    if not isinstance(tool, dict) or not isinstance(tool.get("name"), str) or not tool["name"]:
        raise ContractError(f"a tool definition is a dict with a name (str), not {definition!r:.80}")
    name = tool["name"]
    keys = [key for key in SCHEMA_KEYS if key in tool]
    if len(keys) != 1:
        raise ContractError(f"{name}: a definition has one of {', '.join(SCHEMA_KEYS)}; this one has {keys or 'none'}")
    entry = {
        "fn": fn or no_body(name),
        "description": tool.get("description") or tool.get("title") or name,
        "args": args_from(tool[keys[0]], f"{name}: {keys[0]}"),
        "returns": returns_from(tool["outputSchema"], f"{name}: outputSchema") if tool.get("outputSchema") else {},
    }
    check_table({name: entry})  # rules that contradict each other (minimum above maximum) are refused here
    return name, entry


def no_body(name: str) -> Callable:
    """A body for an imported tool that has none yet."""

    def unbound(**args):
        raise NotImplementedError(f"no body bound for {name}: pass fn= to from_json_schema")

    unbound.__name__ = f"unbound_{name}"
    return unbound


def args_from(schema: Any, where: str) -> dict:
    """The args of a parameters/input_schema/inputSchema object: closed, as the contract always is."""
    node, optional = _node(schema, where, ARG_NODE_KEYWORDS)
    if optional or _kind(node, where) != "dict":
        raise ContractError(f"{where} must be an object schema (the args), not {schema!r:.80}")
    if node.get("additionalProperties", False) is not False:
        raise ContractError(
            f"{where}: additionalProperties lets any arg name in; the contract refuses names "
            "it does not list (an invented name is the lesson's first incident). Remove it to import"
        )
    return fields_from(node, where)


def fields_from(node: dict, where: str) -> dict:
    """name -> arg spec for an object node's properties; optional when not required, or nullable."""
    properties, required = _properties(node, where)
    specs = {}
    for key, sub in properties.items():
        spec, optional = arg_from(sub, f"{where}.properties.{key}")
        if key in required and isinstance(sub, dict) and sub.get("optional") is True:
            raise ContractError(
                f"{where}.properties.{key}: optional: true, yet {key!r} is in required; remove one of the two to import"
            )
        if optional or key not in required:
            spec["required"] = False
        specs[key] = spec
    return specs


def arg_from(schema: Any, where: str) -> tuple[dict, bool]:
    """One property's schema -> (arg spec, whether it may be left out: null allowed, or optional: true)."""
    node, nullable_ = _node(schema, where, ARG_NODE_KEYWORDS)
    optional = node.pop("optional", False)
    if not isinstance(optional, bool):
        raise ContractError(f"{where}: optional must be true or false, not {optional!r}")
    if "enum" in node and _kind(node, where) == "list":
        _enum_to_items(node, where)
    spec = {"type": _kind(node, where), **_documentation(node, where)}
    values = [node["const"]] if "const" in node else node.get("enum")
    if values is not None:
        if not isinstance(values, list):
            raise ContractError(f"{where}: enum must be a list, not {values!r}")
        spec["allowed"] = [value for value in values if value is not None]
    spec.update({key: node[keyword] for key, keyword in BOUNDS.items() if keyword in node})
    if spec["type"] == "dict":
        _dict_from(node, where, spec)
    if "items" in node:
        item, item_optional = arg_from(node["items"], f"{where}.items")
        if item_optional:
            raise ContractError(
                f"{where}.items: an item that may be null (or left out) has no contract; give items one type"
            )
        item.pop("default", None)  # an item is never left out, so a default says nothing about it
        spec["items"] = item
    return spec, nullable_ or optional


def _documentation(node: dict, where: str) -> dict:
    """An arg's description and default, kept as they are; a description that is not text is refused."""
    if "description" in node and not isinstance(node["description"], str):
        raise ContractError(f"{where}: description must be a string, not {node['description']!r:.40}")
    return {key: node[key] for key in DOCUMENTATION if key in node}


def _enum_to_items(node: dict, where: str) -> None:
    """{"type": "array", "enum": ["a", "b"]} as its writers mean it: each item is one of them."""
    values, items = node.pop("enum"), node.get("items", {})
    if not isinstance(values, list) or not values or any(isinstance(v, (list, dict)) for v in values):
        raise ContractError(
            f"{where}: enum on an array is read as its items' allowed values, so it must be "
            f"a list of strings or numbers, not {values!r:.60}"
        )
    if not isinstance(items, dict) or "enum" in items or "const" in items:
        raise ContractError(f"{where}: enum on the array and on its items; keep the one on items to import")
    node["items"] = {**items, "enum": values}


def _dict_from(node: dict, where: str, spec: dict) -> None:
    """A dict arg: closed (properties) when it lists properties or forbids others, free-form otherwise."""
    additional = node.get("additionalProperties")
    if additional is False or (additional is None and "properties" in node):
        spec["properties"] = fields_from(node, where)
    elif not (additional is None or additional is True) or "properties" in node:
        raise ContractError(
            f"{where}: additionalProperties {additional!r}: the contract's dict either lists "
            "its keys (and refuses others) or takes any keys. Remove it to import"
        )


def returns_from(schema: Any, where: str) -> dict:
    """key -> return spec from an outputSchema (or an items object inside one)."""
    node, optional = _node(schema, where, RETURN_NODE_KEYWORDS)
    if optional or _kind(node, where) != "dict" or "properties" not in node:
        raise ContractError(f"{where} must be an object schema with properties")
    # additionalProperties is read past: a result may carry extra keys; the door checks the ones it names.
    properties, required = _properties(node, where)
    missing = [key for key in properties if key not in required]
    if missing:
        raise ContractError(
            f"{where}: {missing[0]!r} is not required, but every key of the contract's "
            "returns is (a missing key is shape:<key>). Add it to required to import"
        )
    return {key: return_from(sub, f"{where}.properties.{key}") for key, sub in properties.items()}


def return_from(schema: Any, where: str) -> dict:
    node, optional = _node(schema, where, RETURN_NODE_KEYWORDS)
    if optional:
        raise ContractError(f"{where}: a result key that may be null has no contract; give it one type")
    spec: dict[str, Any] = {"type": _kind(node, where)}
    spec.update({key: node[keyword] for key, keyword in RETURN_KEYWORDS.items() if keyword in node})
    said = {keyword: node[keyword] for keyword in ("minItems", "minLength", "minProperties", "not") if keyword in node}
    not_empty = NOT_EMPTY.get(spec["type"], {})
    if said and said != not_empty:
        raise ContractError(f"{where}: {said} says more than 'not empty', which the contract cannot hold")
    if not_empty and not said:
        spec["allow_empty"] = True
    if "items" in node:
        spec["items"] = returns_from(node["items"], f"{where}.items")
    return spec


def _properties(node: dict, where: str) -> tuple[dict, list]:
    """An object node's properties and required names, each required name a property."""
    properties, required = node.get("properties", {}), node.get("required", [])
    if (
        not isinstance(properties, dict)
        or not isinstance(required, list)
        or not all(isinstance(key, str) for key in required)
    ):
        raise ContractError(f"{where}: properties must be an object and required a list of names")
    for key in required:
        if key not in properties:
            raise ContractError(f"{where}: required names {key!r}, which has no property")
    return properties, required


def _node(schema: Any, where: str, keywords: set) -> tuple[dict, bool]:
    """A schema node, unwrapped from the ways of saying "or null", and whether it said so."""
    if schema is True:
        schema = {}  # JSON Schema's `true`: every value
    if not isinstance(schema, dict):
        raise ContractError(f"{where} must be a JSON Schema object, not {schema!r:.80}")
    node, nullable_ = dict(schema), bool(schema.get("nullable", False))  # OpenAPI 3.0's nullable
    node.pop("nullable", None)
    if "anyOf" in node:  # pydantic's Optional[X]: anyOf [X, {"type": "null"}]
        branches = node.pop("anyOf")
        branches = [b for b in branches if b != {"type": "null"}] if isinstance(branches, list) else []
        if len(branches) != 1 or not isinstance(branches[0], dict):
            raise ContractError(f"{where}: anyOf other than 'X or null' has no rule in the contract")
        node, nullable_ = {**node, **branches[0]}, True
    kind = node.get("type")
    if isinstance(kind, list):
        others = [k for k in kind if k != "null"]
        nullable_ = nullable_ or len(others) < len(kind)
        if len(others) != 1:
            raise ContractError(f"{where}: type {kind!r}: the contract holds one type per field (or 'any')")
        node["type"] = others[0]
    unknown = sorted(node.keys() - keywords - ANNOTATIONS)
    if unknown:
        raise ContractError(
            f"{where}: {unknown[0]!r} has no rule in the contract; remove it from the "
            "definition (and check it in the tool body) to import this tool"
        )
    return node, nullable_


def _kind(node: dict, where: str) -> str:
    """The contract type of a node: its type name, else what its keywords imply."""
    if "type" in node:
        kind = node["type"]
        if not isinstance(kind, str) or kind not in TYPE_NAMES:
            raise ContractError(f"{where}: type {kind!r} has no contract type; known: {', '.join(TYPE_NAMES)}")
        return TYPE_NAMES[kind]
    if "properties" in node or "additionalProperties" in node:
        return "dict"
    if "items" in node:
        return "list"
    values = [node["const"]] if "const" in node else node.get("enum")
    if isinstance(values, list):
        kinds = {_value_kind(value) for value in values if value is not None}
        if kinds == {"int", "float"}:
            return "float"
        if len(kinds) == 1:
            return kinds.pop()
        raise ContractError(f"{where}: enum {values!r} mixes types; the contract's allowed takes one type")
    return "any"


def _value_kind(value: Any) -> str:
    return {bool: "bool", int: "int", float: "float", str: "str", list: "list", dict: "dict"}.get(type(value), "any")
