"""Stage 1 · TOOLS and describe_tools(): what each tool takes and gives back, said once.

1.1 to 1.4 read the student's own TOOLS and call its tool bodies (compared with agtool.inventory's);
1.5 and 1.6 check describe_tools()'s schemas against the JSON Schema meta-schema and the contract.
That a fn is a function is never read off what the child sends for it (a marker a plain dict can
spell, grader/kit/boundary/values.py): the child calls every entry's fn, and a call refused as
"not callable" is no function, whatever it looked like.
"""

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jsonschema
from hypothesis import strategies as st

from agtool import inventory
from grader.kit import draw, oracle_access
from grader.kit.boundary import values
from grader.kit.boundary.values import py
from grader.kit.checks.common import ETA_ARGS, ETA_RETURNS, LAB_ARGS, LAB_RETURNS, call, got_text, request, show_table
from grader.kit.oracle_access import oracle
from grader.kit.pasteable import Setting
from grader.kit.probing import Checklist, Mismatch, exception_name, without_oracle

DAYS = ETA_RETURNS["days"]
ENTRY_KEYS = {"fn", "description", "args", "returns"}

# (tool, kwargs) the grader runs the student's tool bodies with: where the lab's incidents happen
BODY_CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("stock_lookup", {"sku": "D-400", "region": "seoul", "limit": 1}),
    ("stock_lookup_v2", {"sku": "D-400", "region": "seoul", "limit": 1}),
    ("stock_lookup_v2", {"sku": "A-100", "region": "busan", "limit": 2}),
    ("delivery_eta", {"sku": "A-100", "region": "jeju"}),
    ("delivery_eta", {"sku": "B-200", "region": "busan"}),
)


@dataclass(frozen=True)
class OwnTable:
    """Nothing to draw: the student's own TOOLS."""


def request_for_own(case: OwnTable) -> dict:
    """The table, every entry's fn called with nothing (a function takes the call, and may refuse the
    arguments), and the bodies: the table's checks score before describe_tools is written."""
    calls = [call(["TOOLS", tool, "fn"], kwargs=kwargs) for tool, kwargs in BODY_CALLS]
    return request(1, None, [call("TOOLS", get=True), call("TOOLS", each=["fn"]), *calls])


def normal(spec: dict) -> dict:
    """The spec without defaults said out loud, allowed sorted, and without the extras no check reads
    (description, default): two spellings of one spec compare equal."""
    spec = {
        key: value
        for key, value in spec.items()
        if (key, value) not in (("required", True), ("allow_empty", False)) and key not in ("description", "default")
    }
    if isinstance(spec.get("allowed"), list):
        spec["allowed"] = sorted(spec["allowed"], key=repr)
    if isinstance(spec.get("items"), dict):
        spec["items"] = normal_specs(spec["items"])
    return spec


def normal_specs(specs: dict) -> dict:
    return {key: normal(spec) if isinstance(spec, dict) else spec for key, spec in specs.items()}


OWN = st.just(OwnTable())


# ── 1.1 · TOOLS is a table ───────────────────────────────────────────────────


# What Python says when what is called is no function at all; any other outcome, a TypeError over
# the arguments included, is the function's own answer to the call.
NOT_CALLABLE = re.compile(r"TypeError: '[^']*' object is not callable")
FN_NOT_CALLABLE = "fn is not a function"


def fn_problem(called: Any) -> str | None:
    """Why an entry's fn is no function, from what calling it did, or None."""
    if type(called) is not dict or len(called) != 1:
        return "fn was not called"
    ((kind, outcome),) = called.items()
    if kind == "value":
        return None
    if kind == "raised" and type(outcome) is str:
        return FN_NOT_CALLABLE if NOT_CALLABLE.fullmatch(outcome) else None
    return "fn was not called"


def entry_problem(tool, table: dict) -> str | None:
    if type(tool) is not dict or not tool.keys() >= ENTRY_KEYS:
        return f"needs the keys {', '.join(sorted(ENTRY_KEYS))}"
    if not values.is_marker(tool["fn"]):  # plain data (a name, say): no function; a marker is judged by a call
        return "fn is not a function"
    if type(tool["description"]) is not str or not tool["description"].strip():
        return "description is not a non-empty str"
    if type(tool["args"]) is not dict or type(tool["returns"]) is not dict:
        return "args and returns must be dicts of name -> spec"
    if "upgrade" in tool and tool["upgrade"] not in table:
        return "upgrade names no tool in TOOLS"
    return None


def judge_table(case: OwnTable, observation: dict) -> Mismatch | None:
    tools, called = observation["results"][:2]
    table = tools.get("value")
    if type(table) is not dict or not table:
        return Mismatch("TOOLS", "a dict: tool name -> entry", got_text(tools), exception=exception_name(tools))
    calls = called.get("value") if type(called.get("value")) is dict else {}
    for name, tool in table.items():
        problem = entry_problem(tool, table)
        if problem:
            return Mismatch(
                f"TOOLS.get({name!r})",  # as the check reads it: None where the key is missing
                "an entry with fn (callable), description, args, returns and maybe upgrade",
                f"{py(tool)} ({problem})",
                problem=problem,
            )
        problem = fn_problem(calls.get(name))
        if problem:
            return Mismatch(
                f"TOOLS[{name!r}]['fn']()",
                "the function itself: the call reaches it (with no arguments it may raise TypeError: ... missing ...)",
                f"{got_text(calls[name]) if problem == FN_NOT_CALLABLE else 'no outcome of a call'} ({problem})",
                exception=exception_name(calls[name]) if problem == FN_NOT_CALLABLE else "",
                problem=problem,
            )
    return None


# The stage's requests default to the student's own table, judged as 1.1 judges it.
CHECKLIST = Checklist(1, request_for_own, lambda case: Setting(), **without_oracle(judge_table))


@CHECKLIST.check(number=1, points=2, examples=1)
def tools_is_a_table():
    """TOOLS is a dict of tool entries with fn, description, args and returns

    The grader calls every fn to see that it is a function: a name such as "stock_lookup", or
    anything else that only looks like one, is not.
    """
    return OWN


# ── 1.2 to 1.4 · the lab's three tools, their contracts and bodies ───────────


def _contract_mismatch(table: dict, name: str, part: str, want: dict) -> Mismatch | None:
    tool = table.get(name)
    got = tool.get(part) if type(tool) is dict else None
    if type(got) is not dict or not values.same(normal_specs(got), normal_specs(want)):
        return Mismatch(f"TOOLS[{name!r}].get({part!r})", py(want), py(got) if tool else f"no tool {name!r}")
    return None


def _body_mismatch(bodies: list, name: str) -> Mismatch | None:
    for (tool, kwargs), result in zip(BODY_CALLS, bodies, strict=True):
        if tool == name:
            want = getattr(inventory, tool)(**kwargs)
            if not values.same(result.get("value"), want):
                return Mismatch(
                    f"TOOLS[{tool!r}]['fn'](**{py(kwargs)})",
                    f"{py(want)} (what agtool.inventory.{tool} answers)",
                    got_text(result),
                    exception=exception_name(result),
                )
    return None


def judge_stock(tool: str) -> Callable[[OwnTable, dict], Mismatch | None]:
    """1.2's and 1.3's judge: the lab's contract, the upgrade (stock_lookup_v2, the newest, has none), the body."""

    def judge(case: OwnTable, observation: dict) -> Mismatch | None:
        tools, _called, *bodies = observation["results"]
        table = tools["value"]
        mismatch = _contract_mismatch(table, tool, "args", LAB_ARGS) or _contract_mismatch(
            table, tool, "returns", LAB_RETURNS
        )
        if mismatch:
            return mismatch
        upgrade, said = table[tool].get("upgrade"), f"TOOLS[{tool!r}].get('upgrade')"
        if tool == "stock_lookup" and upgrade != "stock_lookup_v2":
            return Mismatch(said, "'stock_lookup_v2'", py(upgrade))
        if tool == "stock_lookup_v2" and "upgrade" in table[tool]:
            return Mismatch(said, "no upgrade (it is the newest)", py(upgrade))
        return _body_mismatch(bodies, tool)

    return judge


@CHECKLIST.check(
    number=2, points=2, examples=1, needs=("tools_is_a_table",), **without_oracle(judge_stock("stock_lookup"))
)
def stock_lookup_contract():
    """TOOLS["stock_lookup"] has the lab's contract and its upgrade is stock_lookup_v2

    The entry is compared with the lab's table key by key: required True and allow_empty False may
    be said or left out, and a description or a default is free; any other difference (a max of 20
    for 2, qty without its min) is another contract.
    """
    return OWN


@CHECKLIST.check(
    number=3, points=2, examples=1, needs=("tools_is_a_table",), **without_oracle(judge_stock("stock_lookup_v2"))
)
def stock_lookup_v2_contract():
    """TOOLS["stock_lookup_v2"] has stock_lookup's contract and a body that honours limit

    An entry copied from stock_lookup keeps its upgrade and its fn: the newest tool has none, and its
    body's answers are compared with agtool.inventory's v2 endpoint.
    """
    return OWN


def judge_eta(case: OwnTable, observation: dict) -> Mismatch | None:
    tools, _called, *bodies = observation["results"]
    table = tools["value"]
    mismatch = _contract_mismatch(table, "delivery_eta", "args", ETA_ARGS)
    returns = table.get("delivery_eta", {}).get("returns", {})
    if mismatch is None and not values.same(normal(returns.get("days", {})), DAYS):
        mismatch = Mismatch("TOOLS['delivery_eta']['returns'].get('days')", py(DAYS), py(returns.get("days")))
    return mismatch or _body_mismatch(bodies, "delivery_eta")


@CHECKLIST.check(number=4, points=1, examples=1, needs=("tools_is_a_table",), **without_oracle(judge_eta))
def delivery_eta_contract():
    """TOOLS["delivery_eta"] takes sku and region, and its days must lie in 0..14

    Take the regions from agtool.inventory.REGIONS rather than typing them; days needs both bounds:
    without its max, 72 "days" (hours, by mistake) passes.
    """
    return OWN


# ── 1.5 and 1.6 · describe_tools(), judged against the contract ──────────────


def contract_key(args: dict) -> str:
    """A contract's args as the key of the schema expected for them: one key for two spellings of one contract."""
    return json.dumps(normal_specs(args), sort_keys=True, default=repr)


def schema_for(args: dict, schemas: dict) -> dict | None:
    """The parameters schema these args must get: the expected one; for a contract no case foresaw (the
    student's own TOOLS, other than the lab's) the oracle's, where there is one; None in the kit."""
    want = schemas.get(contract_key(args))
    if want is None and oracle_access.present():
        want = oracle.object_schema(args)
    return want


def description_problem(table: dict, result: dict, schemas: dict, parameters: bool) -> str | None:
    """What describe_tools()'s answer gets wrong about `table`, or None (schemas: by contract_key).
    parameters=False judges the list (1.5: one entry per tool, names, descriptions), True what each
    entry's parameters say (1.6): one mistake costs one check."""
    if "raised" in result:
        return "it raised"
    described = result["value"]
    if type(described) is not list or len(described) != len(table):
        return "not a list with one entry per tool"
    seen = set()
    for item in described:
        function = item.get("function") if type(item) is dict else None
        if type(item) is not dict or item.get("type") != "function" or type(function) is not dict:
            return 'an entry is not {"type": "function", "function": {...}}'
        name = function.get("name")
        if type(name) is not str or name not in table or name in seen:
            return f"name {py(name)} is not a tool of TOOLS, or comes twice"
        seen.add(name)
        if not parameters:  # the list's check: names and descriptions
            if function.get("description") != table[name]["description"]:
                return f"{name}: description is not TOOLS[{name!r}]['description']"
            continue
        want = schema_for(table[name]["args"], schemas)
        if want is None:
            return f"{name}: its args are not the lab's contract; pass checks 1.2 to 1.4 first"
        problem = parameters_problem(want, function.get("parameters"))
        if problem:
            return f"{name}: {problem}"
    return None


def parameters_problem(want: dict, schema) -> str | None:
    """Is `schema` valid JSON Schema that says what `want` (the oracle's schema of the contract) says?"""
    if type(schema) is not dict:
        return "parameters is not a JSON Schema object"
    invalid = meta_problem(schema)
    if invalid is not None:
        return f"parameters is not valid JSON Schema: {invalid}"
    return schema_problem(want, schema, "parameters")


_META_PROBLEMS: dict[str, str | None] = {}  # repr(schema) -> meta_problem(schema)
_REMEMBERED_CHARS = 4096  # a schema of the lab's contracts takes a few hundred


def meta_problem(schema: dict) -> str | None:
    """Why `schema` is not valid JSON Schema (jsonschema's best match), or None.

    Remembered by the schema's repr, which tells apart every value an answer can hold
    (1, 1.0, True and "1"; key order too, at worst a miss): at one seed a class hands in
    the same schemas again and again, and each costs the 2020-12 meta-schema a few ms."""
    key = repr(schema)
    if key in _META_PROBLEMS:
        return _META_PROBLEMS[key]
    declared = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    error = jsonschema.exceptions.best_match(meta_validator(declared).iter_errors(schema))
    problem = None if error is None else error.message
    if len(key) <= _REMEMBERED_CHARS:  # a submission's huge answers are judged, never kept
        if len(_META_PROBLEMS) >= 4096:
            _META_PROBLEMS.clear()
        _META_PROBLEMS[key] = problem
    return problem


@functools.cache
def meta_validator(cls: type[jsonschema.protocols.Validator]) -> jsonschema.protocols.Validator:
    """The validator of a draft's meta-schema, built once: jsonschema's check_schema, not rebuilt per schema."""
    return cls(cls.META_SCHEMA)


# The schema keys that say something about a value; others (title, description) are free.
LIMITS = ("type", "enum", "minimum", "maximum", "properties", "items", "required", "additionalProperties")


def schema_problem(want: dict, got, where: str) -> str | None:
    """Where `got` says other than `want` (the oracle's schema) about which values pass, or None."""
    if type(got) is not dict:
        return f"{where} is not a JSON Schema object"
    for key in LIMITS:
        theirs = got.get(key, [] if key == "required" else None)
        if key not in want:
            if theirs not in (None, []):
                return f"{where}: {key} where the contract has none"
        elif key == "properties":
            if type(theirs) is not dict or theirs.keys() != want[key].keys():
                return f"{where}: properties should be {', '.join(want[key]) or 'none'}"
            for name in want[key]:
                problem = schema_problem(want[key][name], theirs[name], f"{where}.{name}")
                if problem:
                    return problem
        elif key == "items":
            problem = schema_problem(want[key], theirs, f"{where}.items")
            if problem:
                return problem
        elif not values.same(_unordered(key, theirs), _unordered(key, want[key])):
            return f"{where}: {key} should be {py(want[key])}"
    return None


def _unordered(key: str, value):
    """enum and required are sets, written as lists."""
    return sorted(value, key=repr) if key in ("enum", "required") and type(value) is list else value


# ── 1.5 · the student's own table ────────────────────────────────────────────


def request_for_described(case: OwnTable) -> dict:
    return request(1, None, [call("TOOLS", get=True), call("describe_tools")])


def seed_schemas(case: OwnTable) -> dict:
    """The parameters of the lab's tools as describe_tools() must give them, by contract_key."""
    return {contract_key(args): oracle.object_schema(args) for args in (LAB_ARGS, ETA_ARGS)}


def described_mismatch(described: dict, problem: str | None, expected: str, at: int) -> Mismatch | None:
    """1.5's and 1.6's wrong answer: describe_tools()'s (at `at` of the calls), or None when it has no problem."""
    if problem is None:
        return None
    return Mismatch(
        "describe_tools()",
        expected,
        f"{got_text(described)} ({problem})",
        exception=exception_name(described),
        problem=problem,
        at=at,
    )


def compare_own_description(case: OwnTable, schemas: dict, observation: dict) -> Mismatch | None:
    tools, described = observation["results"]  # TOOLS read first
    problem = description_problem(tools["value"], described, schemas, parameters=False)
    return described_mismatch(described, problem, "one function per tool in TOOLS, agreeing with it", at=1)


@CHECKLIST.check(
    number=5,
    points=1,
    examples=1,
    needs=("tools_is_a_table",),
    request=request_for_described,
    expect=seed_schemas,
    compare=compare_own_description,
)
def describes_own_tools():
    """describe_tools() describes every tool of TOOLS, and nothing else

    A list written by hand goes stale: build it from TOOLS each time it is called, so that a tool
    added, or a description changed, shows.
    """
    return OWN


# ── 1.6 · any table ──────────────────────────────────────────────────────────


@dataclass(frozen=True)
class AnyTable:
    table: dict


def request_for_any(case: AnyTable) -> dict:
    return request(1, case.table, [call("describe_tools")])


def object_schemas(case: AnyTable) -> dict:
    """The JSON Schema each tool's parameters must be, by contract_key."""
    contracts = [tool["args"] for tool in values.decode(case.table).values()]
    return {contract_key(args): oracle.object_schema(args) for args in contracts}


def compare_any(case: AnyTable, schemas: dict, observation: dict) -> Mismatch | None:
    (described,) = observation["results"]
    problem = description_problem(values.decode(case.table), described, schemas, parameters=True)
    return described_mismatch(described, problem, "one function per tool, agreeing with TOOLS", at=0)


def described_tool(description: str, args: dict) -> dict:
    return {"description": description, "args": args, "returns": {}, "body": [{"return": {}}]}


@st.composite
def any_tables(d) -> AnyTable:
    descriptions = ("Stock of a SKU.", "Days to deliver.", "재고 조회")
    names = draw.names(d, 1, 3)
    return AnyTable({name: described_tool(draw.pick(d, descriptions), draw.contract(d, 4)) for name in names})


def _fixed(*contracts: dict) -> tuple[AnyTable, ...]:
    """One table a contract: a schema mistake shows under every seed, on the smallest table that has it."""
    return tuple(AnyTable({"t": described_tool("A tool.", contract)}) for contract in contracts)


# Every keyword describe_tools must write, each in a table of its own (describes_any_table's fixed cases).
SCHEMA_CASES = _fixed(
    *({"x": {"type": kind}} for kind in ("str", "int", "float", "bool", "list", "dict", "any")),
    {"x": {"type": "str", "allowed": ["a", "b"]}},
    {"x": {"type": "int", "min": 1}},
    {"x": {"type": "float", "max": 2.5}},
    {"x": {"type": "int", "min": -3, "max": 0}},  # a bound of 0 is a bound (`if spec.get("max"):` drops it)
    {"x": {"type": "dict", "properties": {}}},  # a dict of no keys is closed too, not an open object
    {"x": {"type": "str"}, "y": {"type": "int", "required": False}},
    {},
    {"x": {"type": "dict", "properties": {"y": {"type": "int", "min": 0}}}},
    {"x": {"type": "list", "items": {"type": "str", "allowed": ["a"]}}},
    {"x": {"type": "list", "items": {"type": "dict", "properties": {"y": {"type": "bool", "required": False}}}}},
)


@CHECKLIST.check(
    number=6,
    points=2,
    examples=8,
    always=SCHEMA_CASES,
    request=request_for_any,
    expect=object_schemas,
    compare=compare_any,
    show=lambda case: show_table(case.table, ("args",)),
)
def describes_any_table():
    """describe_tools() gives valid JSON Schema that agrees with any contract table

    The grader gives describe_tools tables it has never seen, one keyword at a time: map each type
    through JSON_TYPES, keep a bound of 0 (`if spec.get("max"):` drops it), and close a dict of no
    properties too.
    """
    return any_tables()
