"""agtool.realworld: BFCL's definitions through the lab's import, its calls and the models' mistakes through the
door, beside jsonschema and pydantic (notebook 09)."""

import random
from collections import Counter

import jsonschema
import pytest

from agtool import realworld, tools
from agtool.lab import Raised
from agtool.realworld import CORRECT, MISTAKES, Call, Definition

pytestmark = pytest.mark.stage4

PER_CATEGORY = 8


@pytest.fixture(scope="module")
def everything():
    return realworld.import_all()


@pytest.fixture(scope="module")
def calls():
    return realworld.sample(per_category=PER_CATEGORY, seed=0)


@pytest.fixture(scope="module")
def compared(calls):
    return realworld.compare(calls)


def same(calls: list[Call]) -> list[tuple]:
    """What a call is, in comparable form."""
    return [(call.kind, call.definition.key, call.args, call.change) for call in calls]


# ── Reading and importing ────────────────────────────────────────────────────


def test_every_definition_of_the_categories_is_imported_or_refused_in_one_line(everything):
    per_category = Counter(definition.category for definition in everything.definitions)
    assert set(per_category) == set(realworld.CATEGORIES)
    for category, count in per_category.items():
        lines = realworld.rows(f"BFCL_v4_{category}.json")
        assert count == sum(len(question["function"]) for question in lines)
    refused = everything.refused
    assert 0 < len(refused) < len(everything.definitions) / 50  # the import takes nearly all real definitions
    assert all(definition.refusal and "\n" not in definition.refusal for definition in refused)
    assert all(
        definition.entry is not None and definition.refusal is None
        for definition in everything.definitions
        if definition not in refused
    )
    shown = str(everything)
    assert (
        shown.startswith(f"{len(everything.definitions):,} definitions in 6 categories")
        and f"{len(refused)} refused" in shown
    )


def test_a_boolean_that_must_be_one_of_two_strings_is_refused_naming_the_contradiction(everything):
    """{"type": "boolean", "enum": ["True", "False"]}: no value meets both, and jsonschema says so of every one."""
    (refused, *_) = [d for d in everything.refused if d.name == "Travel_1_FindAttractions"]
    assert "free_entry" in refused.refusal and "not of type bool" in refused.refusal
    free_entry = realworld.standard(refused.published["parameters"])["properties"]["free_entry"]
    validator = jsonschema.Draft202012Validator(free_entry)
    assert not any(validator.is_valid(value) for value in (True, False, "True", "False"))


def test_the_missing_package_is_one_line_naming_the_install_command(monkeypatch):
    monkeypatch.setattr(realworld, "PACKAGE", "no_such_bfcl_package")
    with pytest.raises(ModuleNotFoundError) as raised:
        realworld.rows("BFCL_v4_simple_python.json")
    assert str(raised.value).count("\n") == 0 and realworld.INSTALL in str(raised.value)


def test_the_dialects_type_names_become_json_schemas_and_a_property_called_type_stays():
    published = {
        "type": "dict",
        "properties": {
            "type": {"type": "string"},
            "ratio": {"type": "float"},
            "pair": {"type": "tuple"},
            "x": {"type": "any"},
        },
    }
    assert realworld.standard(published) == {
        "type": "object",
        "properties": {"type": {"type": "string"}, "ratio": {"type": "number"}, "pair": {"type": "array"}, "x": {}},
    }


@pytest.mark.parametrize(
    "answer, args",
    [
        ({"base": [10], "unit": ["units", ""]}, {"base": 10, "unit": "units"}),
        ({"z": ["", 0], "sortBy": ["", "ASC"], "token": ["", None]}, {"z": 0, "sortBy": "ASC"}),
        ({"body": [{"mode": ["", "COOL"], "temp": [22]}]}, {"body": {"mode": "COOL", "temp": 22}}),
    ],
)
def test_a_correct_call_takes_each_args_first_value_and_leaves_out_what_may_be(answer, args):
    assert realworld.correct_args(answer) == args


# ── The sample ───────────────────────────────────────────────────────────────


def test_the_sample_takes_per_category_questions_and_is_the_same_for_the_same_seed(calls):
    questions = Counter(call.definition.category for call in calls if call.kind == CORRECT)
    assert set(questions) == set(realworld.CATEGORIES)
    asked = {(call.definition.category, call.definition.question) for call in calls}
    assert all(sum(category == c for c, _ in asked) <= PER_CATEGORY for category in realworld.CATEGORIES)
    assert same(calls) == same(realworld.sample(per_category=PER_CATEGORY, seed=0))
    assert same(calls) != same(realworld.sample(per_category=PER_CATEGORY, seed=1))
    assert {call.kind for call in calls} == {CORRECT, *MISTAKES}
    assert all(call.definition.entry is not None for call in calls)


def test_each_mistake_changes_what_it_says_and_nothing_else(calls):
    """Every mistaken call is its correct call with one change of its kind; the door's reason names it."""
    expected_reason = {
        "renamed": "args:unknown:",
        "bool_for_int": "args:type:",
        "number_as_string": "args:type:",
        "extra": "args:unknown:",
        "missing": "args:missing:",
        "out_of_bounds": ("args:range:", "args:allowed:"),
    }
    for call in calls:
        if call.kind == CORRECT:
            continue
        right, specs = call.made_from, call.definition.entry["args"]
        changed = {key for key in right.keys() | call.args.keys() if right.get(key, ...) != call.args.get(key, ...)}
        changed |= {key for key in right.keys() & call.args.keys() if type(right[key]) is not type(call.args[key])}
        if call.kind == "renamed":
            (old,) = right.keys() - call.args.keys()
            (new,) = call.args.keys() - right.keys()
            assert new not in specs and specs[old].get("required", True) and call.args[new] == right[old]
        elif call.kind == "extra":
            assert changed == call.args.keys() - right.keys() and len(changed) == 1 and changed.isdisjoint(specs)
        elif call.kind == "missing":
            (gone,) = changed
            assert gone not in call.args and specs[gone].get("required", True)
        else:
            (arg,) = changed
            value = call.args[arg]
            if call.kind == "bool_for_int":
                assert value is True and specs[arg]["type"] == "int"
            elif call.kind == "number_as_string":
                assert value == str(right[arg]) and specs[arg]["type"] in ("int", "float")
        with realworld.added_to_tools([call.definition]):
            said = tools.call_tool(call.definition.key, call.args)
        assert not said["ok"] and said["error"].startswith(expected_reason[call.kind]), (call, said)


def test_a_mistake_that_cannot_be_made_on_a_definition_is_not_made():
    specs = {"name": {"type": "str"}, "note": {"type": "str", "required": False}}
    rng = random.Random(0)
    assert realworld.bool_for_int({"name": "x"}, specs, rng) is None
    assert realworld.number_as_string({"name": "x"}, specs, rng) is None
    assert realworld.out_of_bounds({"name": "x"}, specs, rng) is None
    assert realworld.renamed({"note": "x"}, specs, rng) is None  # only a required arg is renamed
    assert realworld.missing({"note": "x"}, specs, rng) is None


# ── Through the door, beside jsonschema and pydantic ─────────────────────────


def test_a_correct_call_jsonschema_accepts_is_accepted_by_the_door_and_pydantic_and_runs_its_body(compared):
    accepted = [verdict for verdict in compared.of(CORRECT) if verdict.jsonschema is None]
    assert accepted
    assert all(verdict.door is None and verdict.pydantic is None and verdict.body_ran for verdict in accepted)
    for verdict in compared.of(CORRECT):  # an answer that breaks its own definition: refused by both, never run
        assert (verdict.door is None) == (verdict.jsonschema is None) == verdict.body_ran


# What each check makes of each mistake: jsonschema on the schema as published (which does not close the
# object, so an extra name passes), pydantic with its defaults (lax: True as 1, "4" as 4; extra names ignored).
REFUSED_BY = {
    "renamed": {"door": True, "jsonschema": True, "pydantic": True},
    "bool_for_int": {"door": True, "jsonschema": True, "pydantic": False},
    "number_as_string": {"door": True, "jsonschema": True, "pydantic": False},
    "extra": {"door": True, "jsonschema": False, "pydantic": False},
    "missing": {"door": True, "jsonschema": True, "pydantic": True},
    "out_of_bounds": {"door": True, "jsonschema": True, "pydantic": True},
}


@pytest.mark.parametrize("kind", list(MISTAKES))
def test_each_kind_of_mistake_gets_its_expected_verdicts(compared, kind):
    verdicts = compared.of(kind)
    assert verdicts
    for verdict in verdicts:
        said = {checker: getattr(verdict, checker) is not None for checker in realworld.CHECKERS}
        assert said == REFUSED_BY[kind], (verdict.call, verdict)
        assert not verdict.body_ran


def test_the_table_counts_the_verdicts_and_the_bodies_run(compared):
    table = compared.table()
    assert [row[0] for row in table.rows] == list(realworld.KINDS.values())
    for (kind, _), (_, calls, door, schema, lax, bodies) in zip(realworld.KINDS.items(), table.rows, strict=True):
        assert calls == len(compared.of(kind)) and bodies == sum(v.body_ran for v in compared.of(kind))
        assert (door, schema, lax) == tuple(
            sum(getattr(v, c) is not None for v in compared.of(kind)) for c in realworld.CHECKERS
        )
    assert str(table).splitlines()[0].startswith("| kind of call | calls | refused by your door")
    values = compared.chart().to_dict()["data"]["values"]
    assert len(values) == len(realworld.KINDS) * len(realworld.CHECKERS)
    assert {v["refused"] for v in values if v["kind"] == MISTAKES["extra"] and v["checker"] == "jsonschema"} == {0}


def test_pydantic_hands_the_body_what_it_coerced_and_drops_an_unknown_name():
    definition = Definition(
        "test",
        "q",
        {"name": "f", "parameters": {"type": "dict", "properties": {"n": {"type": "integer"}}, "required": ["n"]}},
        {},
        None,
    )
    assert realworld.pydantic_passes_on(Call("bool_for_int", definition, {"n": True})) == {"n": 1}
    assert realworld.pydantic_passes_on(Call("number_as_string", definition, {"n": "4"})) == {"n": 4}
    assert realworld.pydantic_passes_on(Call("extra", definition, {"n": 4, "units": True})) == {"n": 4}
    assert realworld.pydantic_passes_on(Call("missing", definition, {})) == "refused: n: Field required"


def test_tools_is_as_it_was_after_the_comparison_even_when_a_call_raises(calls, monkeypatch):
    before = dict(tools.TOOLS)
    realworld.compare(calls[:20])
    assert before == tools.TOOLS

    def broken(name, args):
        raise RuntimeError("a door that breaks")

    monkeypatch.setattr(tools, "call_tool", broken)
    realworld.compare(calls[:20])
    assert before == tools.TOOLS


@pytest.mark.parametrize(
    ("door", "said"),
    [
        (lambda name, args: 1 / 0, "raised ZeroDivisionError: division by zero"),
        (lambda name, args: {"ok": True}, "returned {'ok': True}, not an envelope"),
    ],
)
def test_a_door_that_raises_or_returns_no_envelope_is_said_with_the_call_it_broke_on(calls, monkeypatch, door, said):
    """Not a traceback through this module: one line naming the call, what came out, and the rule (stage 4)."""
    monkeypatch.setattr(tools, "call_tool", door)
    comparison = realworld.compare(calls[:20])
    first = calls[0]
    for shown in (comparison.table(), comparison.chart(), comparison.examples(), comparison.broken_answers()):
        assert isinstance(shown, Raised)
        text = repr(shown)
        assert text.count("\n") == 0 and said in text and first.definition.key in text, text
        assert "never lets an exception out" in text and "notebooks/04_door.ipynb" in text


def test_an_entry_of_the_same_name_is_given_back_and_a_refused_definition_is_not_added(calls, everything, monkeypatch):
    definition = calls[0].definition
    mine = {**tools.TOOLS["delivery_eta"]}
    monkeypatch.setitem(tools.TOOLS, definition.key, mine)
    with realworld.added_to_tools([definition]):
        assert tools.TOOLS[definition.key] is not mine
    assert tools.TOOLS[definition.key] is mine
    with pytest.raises(ValueError, match="was refused by the import"), realworld.added_to_tools(everything.refused[:1]):
        pass


def test_an_unwritten_door_is_said_as_the_stage_it_waits_for(calls, monkeypatch):
    def stub(name, args):
        raise NotImplementedError("Stage 4: call_tool — see notebooks/04_door.ipynb")

    monkeypatch.setattr(tools, "call_tool", stub)
    comparison = realworld.compare(calls[:20])
    for shown in (comparison.table(), comparison.chart(), comparison.examples(), comparison.broken_answers()):
        assert (
            isinstance(shown, Raised)
            and repr(shown) == "not implemented yet: Stage 4: call_tool — see notebooks/04_door.ipynb"
        )
