"""agtool.realworld: the tools agents really call, and the mistakes models really make, through your door.

The Berkeley Function Calling Leaderboard (BFCL, Apache-2.0) publishes thousands of tool definitions
people wrote for real APIs, each with the calls a correct model makes (its possible answers). They
come in the pinned package named in notebooks/requirements-data.txt, installed without its dependencies (it
declares vllm and numpy for its own harness; the lab reads only its JSON-lines files):

    import_all()       every definition of CATEGORIES through the lab's own schema import
                       (agtool.schema.from_json_schema), or the one line it was refused with
    sample(seed=0)     a seeded sample of BFCL's questions: for each answered call, the correct call
                       (from its possible answer) and one call per kind of model mistake (MISTAKES)
                       wherever that mistake can be made on that definition
    compare(calls)     each call through your door (tools.call_tool, the definitions added to TOOLS
                       with a stand-in body that counts its runs), through jsonschema (Draft 2020-12)
                       on the same schema, and through pydantic's default (lax) validation on a model
                       built from it; .table() and .chart() say what each refused, per kind of call

The same seed gives the same sample, so the figures are the same on every run. It runs on the
student's own agtool/tools.py; until the door is written, the comparison says which stage is missing.
"""

import functools
import json
import operator
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal, cast

import altair as alt
import jsonschema
import pydantic

from agtool import schema, student
from agtool.contract import JSON_TYPES, ContractError
from agtool.lab import Raised, Table

alt.renderers.enable("colab" if "google.colab" in sys.modules else "mimetype")  # as agtool.experiment says why

PACKAGE = "bfcl_eval"
INSTALL = "pip install --no-deps -r notebooks/requirements-data.txt"  # the pin's one place; `make lab` runs this
# BFCL's categories whose definitions are Python-typed JSON (the Java and JavaScript ones use their
# languages' type names) and whose answers are single calls: one function, one of several, several at once,
# each as written by BFCL's authors and as contributed by users (live).
CATEGORIES = ("simple_python", "multiple", "parallel", "live_simple", "live_multiple", "live_parallel")
MISTAKES = {
    "renamed": "an argument renamed",
    "bool_for_int": "true for an int",
    "number_as_string": "a number as a string",
    "extra": "an extra argument",
    "missing": "a required one missing",
    "out_of_bounds": "a value out of range or not allowed",
}
CORRECT = "correct"
KINDS = {CORRECT: "the correct call (BFCL's answer)", **MISTAKES}
CHECKERS = {"door": "your door", "jsonschema": "jsonschema", "pydantic": "pydantic (lax)"}
COLOURS = {"door": "#1a9850", "jsonschema": "#4575b4", "pydantic": "#ef8a62"}
# Names a model adds that no definition asked for, the first one the definition lacks.
INVENTED = ("units", "format", "verbose", "max_results")
# In BFCL's possible answers, "" among an arg's values means it may be left out; null, its default of null.
LEFT_OUT = ("", None)


# ── Reading BFCL ─────────────────────────────────────────────────────────────


def rows(name: str) -> list[dict]:
    """The JSON lines of one of BFCL's data files (bfcl_eval/data/<name>), read from the installed package."""
    try:
        folder = resources.files(PACKAGE) / "data"
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            f"BFCL's data ({PACKAGE}) is not installed in this environment: run `{INSTALL}` from the lab's folder"
        ) from None
    return [json.loads(line) for line in (folder / name).read_text(encoding="utf-8").splitlines() if line.strip()]


@dataclass(frozen=True, eq=False)
class Definition:
    """One of BFCL's tool definitions as published, and the contract entry the lab's import made of it."""

    category: str
    question: str  # the id of the BFCL question it belongs to
    published: dict
    entry: dict | None  # None when refused
    refusal: str | None  # the import's one line, when refused

    @property
    def name(self) -> str:
        return self.published["name"]

    @property
    def key(self) -> str:
        """Its name in TOOLS: two questions may define a tool of the same name differently."""
        return f"{self.question}/{self.name}"

    @functools.cached_property
    def validator(self) -> jsonschema.Draft202012Validator:
        """jsonschema's validator (Draft 2020-12) of its parameters, in JSON Schema's own type names."""
        parameters = standard(self.published["parameters"])
        jsonschema.Draft202012Validator.check_schema(parameters)
        return jsonschema.Draft202012Validator(parameters)

    @functools.cached_property
    def model(self) -> type[pydantic.BaseModel]:
        """A pydantic model of its parameters, in pydantic's defaults."""
        return pydantic_model(standard(self.published["parameters"]), self.name)


@dataclass(frozen=True)
class Imported:
    """Every definition of the categories read, imported or refused."""

    definitions: list[Definition]

    @property
    def refused(self) -> list[Definition]:
        return [definition for definition in self.definitions if definition.entry is None]

    def __str__(self) -> str:
        refused = self.refused
        said = Counter(definition.refusal for definition in refused)
        categories = len({definition.category for definition in self.definitions})
        lines = [
            f"{len(self.definitions):,} definitions in {categories} categories: "
            f"{len(self.definitions) - len(refused):,} imported, {len(refused)} refused"
            + (f"; they come from {len(said)} definitions, each with how many questions use it" if refused else "")
        ]
        lines += [f"  {count:>3} x {line}" for line, count in said.most_common()]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)


def imported(category: str, published: dict, question: str) -> Definition:
    """One definition through the lab's own schema import (agtool.schema.from_json_schema)."""
    try:
        _, entry = schema.from_json_schema(published)
    except ContractError as error:
        return Definition(category, question, published, None, str(error))
    return Definition(category, question, published, entry, None)


@functools.cache
def _questions(category: str) -> tuple[tuple[dict, list[dict]], ...]:
    """(question, its possible answer's calls) for every question of a category, in BFCL's order."""
    answers = {row["id"]: row["ground_truth"] for row in rows(f"possible_answer/BFCL_v4_{category}.json")}
    return tuple((row, answers[row["id"]]) for row in rows(f"BFCL_v4_{category}.json"))


def import_all(categories: tuple[str, ...] = CATEGORIES) -> Imported:
    """Every definition of the categories through the lab's import."""
    return Imported(
        [
            imported(category, published, question["id"])
            for category in categories
            for question, _ in _questions(category)
            for published in question["function"]
        ]
    )


# ── Calls, correct and mistaken ──────────────────────────────────────────────


@dataclass(frozen=True)
class Call:
    """One call of a tool: its kind (CORRECT or a key of MISTAKES), what was changed, and its args."""

    kind: str
    definition: Definition
    args: dict
    change: str = ""  # what the mistake did, e.g. "user_id -> userId"
    made_from: dict | None = None  # a mistake's correct call's args


def correct_args(answer: dict) -> dict:
    """The args of a possible answer ({arg: [the values it may take]}): each arg's first value, a dict's own
    possible answer read the same way; an arg whose only values are "" or null (BFCL's "may be left out",
    and a default of null) left out."""
    args = {}
    for arg, values in answer.items():
        given = [value for value in values if value not in LEFT_OUT]
        if given:
            args[arg] = correct_args(given[0]) if isinstance(given[0], dict) else given[0]
    return args


def _present(call: dict, specs: dict, kinds: tuple[str, ...], rng: random.Random) -> str | None:
    """One arg of the call whose contract type is one of kinds, chosen by rng; None if there is none."""
    names = [arg for arg in call if arg in specs and specs[arg]["type"] in kinds]
    return rng.choice(names) if names else None


def _required(call: dict, specs: dict) -> list[str]:
    return [arg for arg in call if specs.get(arg, {}).get("required", True) and arg in specs]


def renamed(call: dict, specs: dict, rng: random.Random) -> tuple[dict, str] | None:
    """A required arg under another name, as models write it: camelCase for snake_case, else with "_value"."""
    names = _required(call, specs)
    if not names:
        return None
    arg = rng.choice(names)
    head, *rest = arg.split("_")
    new = head + "".join(part.title() for part in rest) if rest else f"{arg}_value"
    if new in specs:
        return None
    return {(new if key == arg else key): value for key, value in call.items()}, f"{arg} -> {new}"


def bool_for_int(call: dict, specs: dict, rng: random.Random) -> tuple[dict, str] | None:
    arg = _present(call, specs, ("int",), rng)
    return None if arg is None else ({**call, arg: True}, f"{arg}: {call[arg]!r} -> True")


def number_as_string(call: dict, specs: dict, rng: random.Random) -> tuple[dict, str] | None:
    arg = _present(call, specs, ("int", "float"), rng)
    if arg is None or isinstance(call[arg], bool):
        return None
    return {**call, arg: str(call[arg])}, f"{arg}: {call[arg]!r} -> {str(call[arg])!r}"


def extra(call: dict, specs: dict, rng: random.Random) -> tuple[dict, str] | None:
    new = next(name for name in INVENTED if name not in specs)
    return {**call, new: True}, f"+ {new}=True"


def missing(call: dict, specs: dict, rng: random.Random) -> tuple[dict, str] | None:
    names = _required(call, specs)
    if not names:
        return None
    arg = rng.choice(names)
    return {key: value for key, value in call.items() if key != arg}, f"- {arg}"


def out_of_bounds(call: dict, specs: dict, rng: random.Random) -> tuple[dict, str] | None:
    """A number just past its bound, else a value its enum does not allow (a string in other case)."""
    names = [arg for arg in call if arg in specs and ({"min", "max", "allowed"} & specs[arg].keys())]
    if not names:
        return None
    arg = rng.choice(names)
    spec, value = specs[arg], call[arg]
    past = [spec[edge] + step for edge, step in (("max", 1), ("min", -1)) if edge in spec]  # upper first
    if past:
        wrong = past[0]
    elif isinstance(value, str):
        wrong = value.upper() if value.upper() not in spec["allowed"] else f"{value} (any)"
    elif isinstance(value, int | float) and not isinstance(value, bool):
        wrong = max(item for item in spec["allowed"] if isinstance(item, int | float)) + 1
    else:
        return None
    return {**call, arg: wrong}, f"{arg}: {value!r} -> {wrong!r}"


MAKERS: dict[str, Callable[[dict, dict, random.Random], tuple[dict, str] | None]] = {
    "renamed": renamed,
    "bool_for_int": bool_for_int,
    "number_as_string": number_as_string,
    "extra": extra,
    "missing": missing,
    "out_of_bounds": out_of_bounds,
}


def sample(per_category: int = 30, seed: int = 0, categories: tuple[str, ...] = CATEGORIES) -> list[Call]:
    """per_category of each category's questions, chosen by seed: every answered call whose definition
    the lab imported, correct, and then each mistake that can be made on it, built from that correct
    call when jsonschema accepts it (an answer that breaks its own definition is no base for a mistake)."""
    rng = random.Random(f"bfcl {seed}")
    calls = []
    for category in categories:
        questions = _questions(category)
        for question, answer in rng.sample(questions, min(per_category, len(questions))):
            definitions = {
                published["name"]: imported(category, published, question["id"]) for published in question["function"]
            }
            for answered in answer:
                ((name, given),) = answered.items()
                definition = definitions.get(name)
                if definition is None or definition.entry is None:
                    continue
                right = Call(CORRECT, definition, correct_args(given))
                calls.append(right)
                if json_schema_verdict(right) is not None:
                    continue
                for kind, make in MAKERS.items():
                    made = make(right.args, definition.entry["args"], rng)
                    if made is not None:
                        calls.append(Call(kind, definition, *made, made_from=right.args))
    return calls


# ── The same schema, for jsonschema and pydantic ─────────────────────────────

# BFCL's dialect writes Python's type names, the contract's and "tuple"; JSON Schema's are these ("any": no type).
STANDARD_TYPES = {**JSON_TYPES, "tuple": "array"}


def standard(node: Any) -> Any:
    """A published schema in JSON Schema's own type names, everything else as published."""
    if isinstance(node, list):
        return [standard(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: standard(value) for key, value in node.items() if key != "type"}
    kind = node.get("type")
    if kind is not None and kind != "any":
        out["type"] = STANDARD_TYPES.get(kind, kind) if isinstance(kind, str) else kind
    if isinstance(node.get("properties"), dict):  # names, not schemas: a property may be called "type"
        out["properties"] = {key: standard(value) for key, value in node.get("properties", {}).items()}
    return out


def json_schema_verdict(call: Call) -> str | None:
    """None when jsonschema (Draft 2020-12) accepts the call's args on its definition's schema; else why not."""
    error = jsonschema.exceptions.best_match(call.definition.validator.iter_errors(call.args))
    return None if error is None else error.message


PYDANTIC_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool}


def pydantic_type(node: dict, name: str) -> Any:
    """The annotation pydantic would be given for one schema node, as code generated from it writes it."""
    # Literal[values] and list[item], known only at run time: built where a type checker does not follow.
    if "enum" in node and node.get("type") != "array":
        return operator.getitem(Literal, tuple(node["enum"]))
    kind = node.get("type", "any")
    if kind == "array":
        return cast(Any, list)[pydantic_type(node["items"], name)] if isinstance(node.get("items"), dict) else list
    if kind == "object":
        return pydantic_model(node, name) if node.get("properties") else dict
    return PYDANTIC_TYPES.get(kind, Any)


def pydantic_model(node: dict, name: str) -> type[pydantic.BaseModel]:
    """A pydantic model of an object schema, with pydantic's defaults (lax; extra arguments ignored):
    required fields required, the others defaulting to None; minimum/maximum as ge/le."""
    required = set(node.get("required", []))
    fields: dict[str, Any] = {}
    for number, (key, sub) in enumerate(node.get("properties", {}).items()):
        annotation = pydantic_type(sub, f"{name}_{key}")
        bounds = {bound: sub[keyword] for bound, keyword in (("ge", "minimum"), ("le", "maximum")) if keyword in sub}
        # Under an alias: an arg may be named what no Python attribute can be ("_from", "schema", "max-results").
        if key in required:
            fields[f"arg{number}"] = (annotation, pydantic.Field(alias=key, **bounds))
        else:
            fields[f"arg{number}"] = (annotation | None, pydantic.Field(None, alias=key, **bounds))
    return pydantic.create_model(_identifier(name), **fields)


def _identifier(name: str) -> str:
    return "".join(char if char.isalnum() else "_" for char in name)


def pydantic_verdict(call: Call) -> str | None:
    """None when pydantic's default validation accepts the call's args; else its first error."""
    try:
        call.definition.model.model_validate(call.args)
    except pydantic.ValidationError as error:
        first = error.errors()[0]
        return f"{'.'.join(map(str, first['loc']))}: {first['msg']}"
    return None


def pydantic_passes_on(call: Call) -> dict | str:
    """What a tool body behind pydantic's default validation is called with: the args as validated (True
    as 1, "4" as 4, an unknown name dropped), or the first error when pydantic refuses them."""
    try:
        validated = call.definition.model.model_validate(call.args)
    except pydantic.ValidationError:
        return f"refused: {pydantic_verdict(call)}"
    return validated.model_dump(by_alias=True, exclude_unset=True)


# ── Through your door ────────────────────────────────────────────────────────


@contextmanager
def added_to_tools(definitions: list[Definition]) -> Iterator[Counter]:
    """Inside the block, the definitions are in your TOOLS under their keys, each with a stand-in body that
    counts its runs into the Counter yielded and returns {}; then TOOLS is as it was."""
    table = student.module().TOOLS
    runs: Counter[str] = Counter()
    saved = {definition.key: table[definition.key] for definition in definitions if definition.key in table}
    for definition in definitions:
        if definition.entry is None:
            raise ValueError(f"{definition.key} was refused by the import, so it has no contract: {definition.refusal}")
        table[definition.key] = {**definition.entry, "fn": _stand_in(definition.key, runs)}
    try:
        yield runs
    finally:
        for definition in definitions:
            table.pop(definition.key, None)
        table.update(saved)


def _stand_in(key: str, runs: Counter) -> Callable:
    def body(**args):
        runs[key] += 1
        return {}

    return body


@dataclass
class Verdicts:
    """One call and what each checker said of it (None: accepted; else the reason)."""

    call: Call
    door: str | None
    jsonschema: str | None
    pydantic: str | None
    body_ran: bool


@dataclass
class Comparison:
    """Every call's verdicts; or why there are none: the stage of your module the door still needs, or the
    call your door broke on."""

    verdicts: list[Verdicts] = field(default_factory=list)
    not_ready: Exception | None = None

    def of(self, kind: str) -> list[Verdicts]:
        return [verdict for verdict in self.verdicts if verdict.call.kind == kind]

    def table(self) -> "Table | Raised":
        if self.not_ready is not None:
            return Raised(self.not_ready)
        return refusal_table([self._row(kind) for kind in KINDS])

    def _row(self, kind: str) -> tuple:
        mine = self.of(kind)
        refused = [sum(getattr(verdict, checker) is not None for verdict in mine) for checker in CHECKERS]
        return (kind, len(mine), *refused, sum(verdict.body_ran for verdict in mine))

    def chart(self) -> "alt.LayerChart | Raised":
        table = self.table()
        return table if isinstance(table, Raised) else refusal_chart(table)

    def examples(self) -> "Table | Raised":
        """The first call of each kind, what it changed, and what each checker said of it."""
        firsts = [mine[0] for mine in map(self.of, KINDS) if mine]
        return self._verdict_table(firsts, "the first call of each kind in the sample; a dash: accepted")

    def broken_answers(self) -> "Table | Raised":
        """BFCL's own correct calls that your door refused: answers that break their own definition."""
        refused = [verdict for verdict in self.of(CORRECT) if verdict.door is not None]
        return self._verdict_table(refused, f"{len(refused)} of {len(self.of(CORRECT))} answers refused by your door")

    def _verdict_table(self, verdicts: list[Verdicts], caption: str) -> "Table | Raised":
        if self.not_ready is not None:
            return Raised(self.not_ready)
        columns = ["kind", "tool", "args (the change)", *CHECKERS.values()]
        rows = [
            [
                verdict.call.kind,
                verdict.call.definition.key,
                _shown(verdict.call),
                *(getattr(verdict, checker) or "-" for checker in CHECKERS),
            ]
            for verdict in verdicts
        ]
        return Table(columns, [tuple(row) for row in rows], caption)


def compare(calls: list[Call]) -> Comparison:
    """Each call through your door, jsonschema and pydantic; the same calls give the same verdicts."""
    definitions = list({call.definition.key: call.definition for call in calls}.values())
    comparison = Comparison()
    try:
        door = student.module().call_tool
        with added_to_tools(definitions) as runs:
            for call in calls:
                before = runs.total()
                said = _through(door, call)
                comparison.verdicts.append(
                    Verdicts(
                        call,
                        said,
                        json_schema_verdict(call),
                        pydantic_verdict(call),
                        runs.total() > before,
                    )
                )
    except (NotImplementedError, DoorBroke) as why:  # a stage still to write, or a door that broke: say which
        return Comparison(not_ready=why)
    return comparison


class DoorBroke(Exception):
    """The student's door raised, or gave no envelope, on one call: said in one line, not as a traceback."""


def _through(door: Callable, call: Call) -> str | None:
    """The door's reason for refusing the call, or None when it let it through (the body ran or not)."""
    where = f"on {call.definition.key} with {call.args!r}"
    rule = "a door never lets an exception out and always returns {'ok', 'value', 'error'} (notebooks/04_door.ipynb)"
    try:
        said = door(call.definition.key, dict(call.args))
    except NotImplementedError:
        raise
    except Exception as error:
        raise DoorBroke(f"your call_tool raised {type(error).__name__}: {error} {where}; {rule}") from error
    if not isinstance(said, dict) or not {"ok", "value", "error"} <= said.keys() or not isinstance(said["ok"], bool):
        raise DoorBroke(f"your call_tool returned {said!r:.80}, not an envelope, {where}; {rule}")
    return None if said["ok"] else said["error"]


# ── Showing it ───────────────────────────────────────────────────────────────


def _shown(call: Call, width: int = 90) -> str:
    text = json.dumps(call.args, ensure_ascii=False) + (f"  ({call.change})" if call.change else "")
    return text if len(text) <= width else text[: width - 5] + " …" + text[-3:]


def refusal_table(counts: list[tuple]) -> Table:
    """Per kind of call (counts: kind, calls, refused by each of CHECKERS, bodies run), under its label."""
    columns = ["kind of call", "calls", *(f"refused by {label}" for label in CHECKERS.values()), "tool bodies run"]
    calls = sum(row[1] for row in counts)
    rows = [(KINDS[row[0]], *row[1:]) for row in counts]
    return Table(columns, rows, f"{calls:,} calls; a tool body runs only for a call your door lets through")


def refusal_chart(table: Table) -> alt.LayerChart:
    """Per kind of call, the share each checker refused: grouped bars (a Vega-Lite chart, as notebook 07's)."""
    values = [
        {"kind": row[0], "checker": label, "refused": round(100 * row[2 + n] / row[1]) if row[1] else 0}
        for row in table.rows
        for n, label in enumerate(CHECKERS.values())
    ]
    bars = alt.Chart(alt.Data(values=values)).encode(
        x=alt.X("refused:Q", title="calls refused (%)", scale=alt.Scale(domain=[0, 100])),
        y=alt.Y("kind:N", sort=list(KINDS.values()), title=None),
        yOffset=alt.YOffset("checker:N", sort=list(CHECKERS.values())),
        color=alt.Color(
            "checker:N",
            scale=alt.Scale(domain=list(CHECKERS.values()), range=list(COLOURS.values())),
            legend=alt.Legend(orient="bottom", title=None),
        ),
    )
    return alt.layer(bars.mark_bar(), bars.mark_text(align="left", dx=3).encode(text="refused:Q")).properties(
        width=420, height=alt.Step(12), title="BFCL's calls, correct and mistaken: what each check refuses"
    )
