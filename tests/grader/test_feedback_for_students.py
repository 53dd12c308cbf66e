"""Feedback a student reads from `class` output: no instructor path, a replay that runs in the kit,
smallest failing inputs that run as pasted, and one short message for a file that does not import.

The shown inputs are run as a student would run them: each failing check's input, pasted whole,
in a fresh Python whose working folder and path are a released kit holding the buggy module as
agtool/tools.py; it must run (no NameError, no KeyError) and give back what the feedback says came back.
"""

import ast
import functools
import importlib
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import agtool
from grader.kit.boundary.values import py
from grader.kit.checks import CHECKLISTS
from grader.kit.grading import grade
from grader.kit.local import LocalSession
from grader.kit.report import INSTRUCTOR, feedback_markdown, results_json
from tests import forked_python

pytestmark = pytest.mark.grader

ROOT = Path(agtool.__file__).resolve().parents[1]
REFERENCE = (ROOT / "agtool" / "tools.py").read_text()
STATE_SHOWN = ("status", "attempts", "reasons", "tool", "args", "result", "answer")  # what stage 6 shows of a state

# stage -> indices into tests/mutants/stageN.py's MUTANTS: single-bug modules whose failing checks
# cover the shapes of shown input (own TOOLS, a table of spies, a memo, a picker, a FIXES state, Touchy).
MUTANTS = {1: (0, 1, 2, 3), 2: (0, 4, 12), 3: (3, 9), 4: (0, 6, 9), 5: (0, 3, 6), 6: (0, 3, 9, 11, 13)}
# Buggy redefinitions appended to the reference: inputs no literal spells (a list that holds itself), NaN.
TAILS = {
    "check_args dumps its args": (
        2,
        "\n_own_check_args = check_args\n\n\ndef check_args(name, args):\n"
        "    import json\n\n    json.dumps(args)\n    return _own_check_args(name, args)\n",
    ),
    "memo_key refuses no NaN": (
        5,
        "\ndef memo_key(name, args):\n    import json\n\n    try:\n"
        "        return name + json.dumps(args, sort_keys=True)\n"
        "    except (TypeError, ValueError):\n        return None\n",
    ),
}


def mutant_source(stage: int, index: int) -> str:
    return importlib.import_module(f"tests.mutants.stage{stage}").MUTANTS[index].source()


@pytest.fixture(scope="module")
def kit_files():
    from grader.instructor import release

    return release.kit_files()


def kit_with(kit_files, folder: Path, source: str) -> Path:
    """A released kit in folder whose agtool/tools.py is `source`, with the repository's venv as its .venv."""
    from grader.instructor import release

    release.write_kit(kit_files, folder)
    (folder / release.STUDENT_MODULE).write_text(source)
    (folder / ".venv").symlink_to(Path(sys.executable).parents[1], target_is_directory=True)
    return folder


def kit_env(kit: Path) -> dict:
    import os

    return {**os.environ, "PYTHONPATH": str(kit)}


# ── running a shown input as a student pastes it ─────────────────────────────

# Runs the pasted input (stdin) whole, the last line's value kept: what a notebook cell shows.
PASTED = """
import ast, json, sys
code = sys.stdin.read()
tree = ast.parse(code)
last = tree.body.pop()
assert isinstance(last, ast.Expr), "the input does not end with the call"
space = {"__name__": "__main__"}
exec(compile(tree, "<pasted>", "exec"), space)
from agtool import tools
from grader.kit.boundary.runner import error_text
from grader.kit.boundary.values import to_plain

def body_runs():
    return sum(getattr(entry.get("fn"), "runs", 0) for entry in tools.TOOLS.values() if type(entry) is dict)

before = body_runs()
try:
    value = eval(compile(ast.Expression(last.value), "<pasted>", "eval"), space)
    outcome = {"value": to_plain(list(value) if type(value) is tuple else value), "pair": type(value) is tuple}
except BaseException as error:
    outcome = {"raised": error_text(error)}
outcome["runs"] = body_runs() - before
print(json.dumps(outcome))
"""


def run_pasted(kit: Path, code: str) -> dict:
    done = subprocess.run(
        forked_python.command([sys.executable, "-c", PASTED]),
        input=code,
        cwd=kit,
        env=kit_env(kit),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"the shown input does not run:\n{code}\n{done.stderr[-3000:]}"
    return json.loads(done.stdout.splitlines()[-1])


def outcome_text(outcome: dict, got: str) -> str:
    """What the pasted input gave, written as the feedback writes what came back."""
    if "raised" in outcome:
        text = f"raised {outcome['raised']}"
    elif outcome["pair"]:
        text = " and ".join(py(item, 10**4) for item in outcome["value"])
    else:
        value = outcome["value"]
        if type(value) is dict and "path" in value and "status" in value:  # a run's final state
            value = {key: value[key] for key in STATE_SHOWN if key in value}
        text = py(value, 10**4)
    if ", body runs: " in got:
        text += f", body runs: {outcome['runs']}"
    return text


def reproduces(text: str, got: str) -> bool:
    if got.startswith(text):
        return True
    shown, cut, _ = got.partition(" …(cut)")  # the feedback cut a long value short: what it kept
    return bool(cut) and text.startswith(shown)


def shown_input(failure) -> str:
    return "\n".join(part for part in (failure.setting, failure.call) if part)


def pasted_inputs_reproduce(kit: Path, stage: int) -> int:
    """Grade the kit's agtool/tools.py at `stage`, run each failing check's shown input pasted in the kit,
    and check it gives what the feedback says came back; how many were judged."""
    judged = 0
    graded = grade(str(kit / "agtool" / "tools.py"), LocalSession, seed=1, stages=(stage,))
    for result in graded.results:
        if result.passed or result.mismatch is None:
            continue
        failure = result.mismatch
        code = shown_input(failure)
        ast.parse(code)  # Python as it stands
        outcome = run_pasted(kit, code)
        assert reproduces(outcome_text(outcome, failure.got), failure.got), (
            f"{result.check.label}: pasted\n{code}\ngave {outcome_text(outcome, failure.got)}\n"
            f"where the feedback says {failure.got}"
        )
        judged += 1
    return judged


@pytest.mark.parametrize("stage", sorted(MUTANTS))
def test_each_shown_input_runs_pasted_in_the_kit_and_gives_what_came_back(stage, kit_files, tmp_path):
    for index in MUTANTS[stage]:
        kit = kit_with(kit_files, tmp_path / f"kit{index}", mutant_source(stage, index))
        assert pasted_inputs_reproduce(kit, stage) >= 1  # every module fails a check of its stage


@pytest.mark.parametrize("bug", sorted(TAILS))
def test_an_input_no_literal_spells_is_built_in_the_shown_input(bug, kit_files, tmp_path):
    stage, tail = TAILS[bug]
    kit = kit_with(kit_files, tmp_path / "kit", REFERENCE + tail)
    assert pasted_inputs_reproduce(kit, stage) >= 1


def test_a_table_the_grader_used_is_set_up_in_the_shown_input():
    """The shown input names the tools it uses: stage 2's table is installed, not merely described."""
    source = mutant_source(2, 0)
    graded = grade_source(source, stages=(2,))
    failure = next(result.mismatch for result in graded.results if result.mismatch)
    code = shown_input(failure)
    assert "from agtool.tools import" in code and "check_args" in code.split("\n")[0]
    assert re.search(r"^TOOLS\[(['\"]).+\1\] = \{", code, re.M), code  # the tool itself, not only its args


def test_a_setting_is_composed_from_its_parts_never_filtered_by_its_lines():
    """A check draws a case's setting as data: its picture of the table's tools, their names, and the rest.
    The input a student pastes installs those tools in place of the picture and keeps the rest whole,
    whatever its lines start with."""
    from grader.kit.pasteable import Setting, pasteable

    table = {name: {"args": {}, "returns": {}, "body": [{"return": {"n": 1}}]} for name in ("t", "u")}
    req = {"stage": 5, "table": table, "calls": [{"fn": "call_memo", "args": ["t", {}, {"$memo": 0}]}]}
    observation = {"results": [{"value": {"ok": True, "value": {"n": 1}, "error": None}, "runs": {"t": 1}}]}
    setting = Setting(
        table="TOOLS['t']['args'] = {}\n# TOOLS['t']['fn'] returns {'n': 1}", tools=("t",), rest="TOOLS_SEEN = []"
    )
    written = pasteable(req, observation, setting, "call_memo('t', {}, memo)", 0)
    assert written is not None
    code, call = written
    lines = code.splitlines()
    assert call == "call_memo('t', {}, memo)"
    assert "TOOLS_SEEN = []" in lines and "memo = {}" in lines  # the rest, and what the call names
    assert any(line.startswith("TOOLS['t'] = {'fn': Spy(") for line in lines)  # the tool shown, installed
    assert not any(line.startswith(("TOOLS['u']", "# TOOLS")) for line in lines), code  # no other, no picture
    assert setting.text == f"{setting.table}\n{setting.rest}"  # what a reader reads where it cannot be pasted


def test_the_calls_replayed_before_a_failing_call_are_those_the_judge_says_came_before_it():
    """The same call twice, through a tool whose body does step 1 then step 2, and both answers wrong alike:
    the judge shows the first, so the pasted input makes that call at once, with nothing replayed before it
    (replaying the first call would make the pasted one the second, another step of the body)."""
    from grader.kit.checks import stage4
    from grader.kit.probing import written

    check = CHECKLISTS[4].checks[0]
    table = {"t": {"args": {}, "returns": {}, "body": [{"return": {}}, {"return": {"n": 2}}]}}
    case = stage4.Case(table, (("t", {}), ("t", {})))
    wrong = {"value": {"ok": False, "value": None, "error": "no"}, "runs": {"t": 0}}
    observation = {"results": [wrong, wrong]}
    mismatch = check.judge(case, observation)
    assert mismatch is not None
    failure = written(check, case, observation, mismatch)
    pasted = shown_input(failure)
    assert pasted.endswith("\ncall_tool('t', {})") and pasted.count("call_tool(") == 1, pasted  # no earlier call
    assert "what the grader called before it" not in pasted, pasted


def test_langgraphs_limit_is_set_where_the_failing_call_hit_it_whatever_its_answer_says():
    """The pasted input sets LangGraph's recursion_limit as the grade does where the failing run raised an error
    about it, and not where the run returned an answer whose text merely says "recursion"."""
    from grader.kit.checks import stage6
    from grader.kit.probing import written

    check = next(check for check in CHECKLISTS[6].checks if check.label == "6.7")  # the state's form
    request = {"tool": "stock_lookup", "args": {"sku": "A-100"}}
    case = stage6.Case(stage6.stock_table(stage6.STOCK_ARGS, "good", None), ((request, None, False),))
    said = {"value": {"answer": "no recursion here"}, "runs": {}}
    raised = {"raised": "RuntimeError: the recursion_limit of 25 reached", "runs": {}}
    for result, limit_set in ((said, False), (raised, True)):
        observation = {"results": [result]}
        mismatch = check.judge(case, observation)
        assert mismatch is not None, result
        pasted = shown_input(written(check, case, observation, mismatch))
        assert ("DEFAULT_RECURSION_LIMIT" in pasted) is limit_set, pasted


@pytest.mark.parametrize(
    "spelled",
    [
        {"a": {"$touchy": 0}, "b": 1},  # Touchy's comment, were it written, would end the call
        {"$cycle": [1, {"$cycle": []}]},  # a list that holds itself, holding one that holds itself
        {"$tuple": [{"x": [{"$cycle": ["a"]}]}]},
    ],
)
def test_a_value_no_literal_spells_is_written_as_code_that_builds_it(spelled):
    """A judge writes its call's values as code a student pastes (py, runnable): Touchy() bare, a list that
    holds itself built by holding_itself; run, it builds the very value the request spells."""
    from grader.kit.boundary import values
    from grader.kit.pasteable import _DEFINED

    text = py(spelled, runnable=True)
    assert "#" not in text and "[...]" not in text, text
    scope: dict = {"Touchy": values.Touchy}
    exec(_DEFINED["holding_itself"], scope)
    built, want = eval(text, scope), values.decode(spelled)
    shape = functools.partial(re.sub, r" at 0x[0-9a-f]+", "")  # repr, a Touchy's address aside
    assert shape(repr(built)) == shape(repr(want)), text  # the same value, cycles and all
    assert type(built) is type(want)


def grade_source(source: str, stages: tuple[int, ...], seed: int = 1, name: str = "tools.py"):
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="feedback-"))
    path = folder / name
    path.write_text(source)
    return grade(str(path), LocalSession, seed=seed, stages=stages)


# ── the class student's audience ─────────────────────────────────────────────


@pytest.fixture(scope="module")
def class_grade(tmp_path_factory):
    """A student's grade as `class` makes it: the file resolved, deep in the instructor's class folder."""
    folder = tmp_path_factory.mktemp("class") / "submissions" / "carol" / "lab"
    folder.mkdir(parents=True)
    path = (folder / "tools.py").resolve()
    # stage 2's bug, and a stage-3 answer that names the file itself: what came back holds its path
    path.write_text(mutant_source(2, 0) + "\n\ndef check_result(name, value):\n    return 'shape:' + __file__\n")
    return grade(str(path), LocalSession, seed=7, stages=(2, 3)), path


def test_a_class_students_feedback_shows_no_instructor_path(class_grade):
    from grader.kit.report import for_student

    graded, path = class_grade
    audience = for_student("carol/lab/tools.py")
    texts = [feedback_markdown(graded, audience), json.dumps(results_json(graded, audience), ensure_ascii=False)]
    for text in texts:
        assert str(path) not in text and str(path.parent) not in text
        assert not re.search(r"(?<![\w.])/(tmp|root|home|work|var|srv|mnt)/", text), text[:3000]
        assert "carol/lab/tools.py" in text  # the file, as the student handed it in
    assert "Seed 7" in texts[0] or "seed 7" in texts[0]  # the seed still shows


# A tools.py whose import fails with a message that names the file as the grader read it, each way a
# student's code can: the feedback names the file as they handed it in, and never the grader's path to it.
NAMES_ITS_FILE = {
    "a SyntaxError": "\n\ndef broken(:\n    pass\n",
    "an exception at import": "\n\nraise RuntimeError('cannot start from ' + __file__)\n",
    "a file beside it": "\n\nimport os\n\nopen(os.path.join(os.path.dirname(__file__), 'stock.csv'))\n",
    "a traceback line": (
        "\n\nimport traceback\n\ntry:\n    1 / 0\nexcept ZeroDivisionError:\n"
        "    raise RuntimeError(traceback.format_exc()) from None\n"
    ),
    "its module's spec": "\n\nraise RuntimeError(f'loaded as {__spec__.origin} by {__loader__!r}')\n",
}
RAISED_AT_IMPORT = {
    "a SyntaxError": "SyntaxError",
    "an exception at import": "RuntimeError: cannot start from carol/lab/tools.py",
    "a file beside it": "FileNotFoundError",
    "a traceback line": 'File "carol/lab/tools.py", line',
    "its module's spec": "RuntimeError: loaded as carol/lab/tools.py by None",
}


@pytest.mark.parametrize("sandboxed", [False, True], ids=["in-process", "sandboxed"])
@pytest.mark.parametrize("source", sorted(NAMES_ITS_FILE))
def test_a_file_that_names_itself_at_import_is_named_as_the_student_handed_it_in(source, sandboxed, tmp_path):
    from grader.instructor.sandbox.session import Limits, SandboxSession
    from grader.kit.intake import read_submission
    from grader.kit.report import for_student

    folder = tmp_path / "class" / "carol" / "lab"
    folder.mkdir(parents=True)
    path = (folder / "tools.py").resolve()
    path.write_text(REFERENCE + NAMES_ITS_FILE[source])
    sessions = functools.partial(SandboxSession, limits=Limits(stage_seconds=60)) if sandboxed else LocalSession
    graded = grade(read_submission(str(path), "carol/lab/tools.py"), sessions, seed=7, stages=(1,))
    audience = for_student("carol/lab/tools.py")
    for text in (feedback_markdown(graded, audience), json.dumps(results_json(graded, audience), ensure_ascii=False)):
        assert "does not import" in text and RAISED_AT_IMPORT[source] in text.replace("\\", ""), text[:3000]
        assert str(folder) not in text
        assert not re.search(r"(?<![\w.])/(tmp|root|home|work|var|srv|mnt)/", text), text[:3000]


def kit_parser():
    """The kit's own `python -m grader` parser: only the kit's commands (grader/kit/check_command.py)."""
    import argparse

    from grader.__main__ import Parser
    from grader.kit import check_command

    parser = Parser(prog="python -m grader")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (summary, configure) in check_command.COMMANDS.items():
        configure(commands.add_parser(name, help=summary))
    assert isinstance(parser, argparse.ArgumentParser)
    return parser


def replay_commands(feedback: str) -> list[str]:
    """Every `python -m grader ...` command the feedback's replay lines name."""
    commands = []
    for line in feedback.splitlines():
        if "replay" in line.lower():
            commands += [span for span in re.findall(r"`+ ?(.+?) ?`+", line) if " -m grader " in f"{span} "]
    return commands


def test_the_replay_named_in_a_class_students_feedback_is_a_command_the_kit_runs(class_grade, kit_files, tmp_path):
    from grader.kit.report import for_student

    graded, path = class_grade
    feedback = feedback_markdown(graded, for_student("carol/lab/tools.py"))
    commands = replay_commands(feedback)
    assert commands, feedback
    parser = kit_parser()
    for command in set(commands):
        argv = shlex.split(command)
        assert argv[:3] == [".venv/bin/python", "-m", "grader"], command
        try:
            parser.parse_args(argv[3:])
        except SystemExit:
            pytest.fail(f"the kit's `python -m grader` refuses the replay {command!r}")
    kit = kit_with(kit_files, tmp_path / "kit", path.read_text())
    stage2 = next(command for command in commands if shlex.split(command)[4:5] == ["2"])
    done = subprocess.run(
        forked_python.command([sys.executable, *shlex.split(stage2)[1:]]),
        cwd=kit,
        env=kit_env(kit),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1 and "✗ 2." in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]


def test_the_instructors_and_gradescopes_replays_stay_as_they_were(class_grade):
    from grader.instructor.bundle import STUDENT

    graded, path = class_grade
    assert f"grade {path} --seed 7 --only 2." in feedback_markdown(graded, INSTRUCTOR)
    gradescope = feedback_markdown(graded, STUDENT)
    assert (
        "seed 7" not in gradescope.lower() and "Replay in your kit: `.venv/bin/python -m grader check 2`" in gradescope
    )


# ── a file that does not import ──────────────────────────────────────────────

SYNTAX_ERROR = "\n\ndef broken(:\n    pass\n"
RAISES_AT_IMPORT = "\n\nraise RuntimeError('the inventory is down')\n"


def line_of(source: str, text: str) -> int:
    return source.splitlines().index(text) + 1


@pytest.mark.parametrize(
    "tail, words",
    [(SYNTAX_ERROR, ("SyntaxError", "def broken(:")), (RAISES_AT_IMPORT, ("RuntimeError: the inventory is down", ""))],
    ids=["syntax-error", "raises-at-import"],
)
def test_a_file_that_does_not_import_gets_one_short_message_with_the_error_and_its_line(tail, words):
    from grader.instructor.bundle import STUDENT
    from grader.kit.report import for_student

    source = REFERENCE + tail
    error, at = words
    line = line_of(source, at) if at else len(source.splitlines())
    graded = grade_source(source, stages=tuple(CHECKLISTS))
    assert graded.score == 0 and len(graded.results) == sum(len(stage.checks) for stage in CHECKLISTS.values())
    for audience in (INSTRUCTOR, for_student("tools.py"), STUDENT):
        feedback = feedback_markdown(graded, audience)
        assert len(feedback.splitlines()) < 60, feedback
        assert error in feedback and f"line {line}" in feedback, feedback
        assert "does not import" in feedback
        assert feedback.count(error) == 1  # said once, not once a check
        results = results_json(graded, audience)
        assert error in results["output"] and f"line {line}" in results["output"]
        assert len(results["tests"]) == len(graded.results)  # every check still scored, for the gradebook
        for test in results["tests"]:
            assert "\n" not in test["output"] and "does not import" in test["output"], test["output"]
        assert len(json.dumps(results)) < 20_000


def test_a_missing_function_is_named_by_the_file_not_the_module_the_grader_imported(tmp_path):
    """A tools.py without memo_key: the feedback says so in the student's words, and says it alike each run
    (no submission_<pid>_<n>, the name a sandbox imported it under, which changes from run to run)."""
    path = tmp_path / "tools.py"
    path.write_text(REFERENCE[: REFERENCE.index("def memo_key")])
    said = []
    for run in range(2):
        results = tmp_path / f"results{run}.json"
        done = subprocess.run(
            [sys.executable, "-m", "grader", "grade", str(path), "--results", str(results)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        written = json.loads(results.read_text())
        del written["execution_time"]  # the one field that differs run to run (as text it may equal a label: 5.1)
        said.append(json.dumps(written, ensure_ascii=False))
    assert "tools.py has no 'memo_key'" in said[0]
    assert "submission_" not in said[0] and said[0] == said[1]


@pytest.mark.parametrize(
    "test",
    [
        "value in spec['allowed']",  # True passes where 1 is allowed
        "(value in spec['allowed'] if type(value) is not bool else any(item is value for item in spec['allowed']))",
    ],  # the second lets 1 pass where only True is allowed: the other side of True == 1
    ids=["bool for a number", "number for a bool"],
)
def test_a_bool_and_a_number_taken_for_each_other_in_allowed_get_the_hint_that_says_so(test, tmp_path):
    """2.6's hint names the cause a student meets either way round (a beginner's `value not in allowed`
    let 1 through for [True] and got only the rule back)."""
    line = (
        '        if "allowed" in spec and not any('
        'type(value) is type(item) and value == item for item in spec["allowed"]):\n'
    )
    assert REFERENCE.count(line) == 1
    path = tmp_path / "tools.py"
    path.write_text(REFERENCE.replace(line, f'        if "allowed" in spec and not {test}:\n'))
    (result,) = grade(str(path), LocalSession, seed=0, stages=(2,), only="2.6").results
    assert not result.passed and result.mismatch is not None
    assert "one is a bool and the other a number" in result.mismatch.hint, result.mismatch.hint


BEGINNERS = ROOT / "tests" / "submissions" / "beginner"


def test_a_dict_subclass_refused_as_an_arg_gets_the_hint_that_names_it():
    """2.1's hint names the OrderedDict a beginner's exact type test refused (Ben's and Sam's got only the rule)."""
    for module in ("ben", "sam"):
        (result,) = grade(str(BEGINNERS / f"{module}.py"), LocalSession, seed=0, stages=(2,), only="2.1").results
        assert not result.passed and result.mismatch is not None
        assert "OrderedDict" in f"{result.mismatch.setting}{result.mismatch.call}", result.mismatch.call
        assert "a dict subclass" in result.mismatch.hint, result.mismatch.hint


def test_an_exception_out_of_call_memo_is_said_to_come_out_of_call_memo():
    """A raise in call_memo is call_memo's (stage 5), not the door's (stage 4): Ben's and Dana's 5.6 read so."""
    for module in ("ben", "dana"):
        (result,) = grade(str(BEGINNERS / f"{module}.py"), LocalSession, seed=0, stages=(5,), only="5.6").results
        assert not result.passed and result.mismatch is not None
        assert "got out of call_memo" in result.mismatch.got and "door" not in result.mismatch.got, result.mismatch.got


def test_an_answer_that_raised_on_an_int_with_no_text_gets_the_hint_that_names_it():
    """Ana's run raised ValueError on an ok value holding 10 ** 4300: the hint names the int, not escapes."""
    (result,) = grade(str(BEGINNERS / "ana.py"), LocalSession, seed=0, stages=(6,), only="6.2").results
    assert not result.passed and result.mismatch is not None
    assert "10 ** 4300" in f"{result.mismatch.setting}"
    assert "int of over 4,300 digits" in result.mismatch.hint and "repr" in result.mismatch.hint, result.mismatch.hint


@pytest.mark.parametrize(
    "value, written",
    [
        (10**400, "10 ** 400"),
        (-(10**400), "-10 ** 400"),
        (10**30, "10 ** 30"),
        (10**29, str(10**29)),  # short enough to read
        (10**400 + 1, None),  # no power: its digits
        (2**1100 + 3, "2 ** 1100 + 3"),
        ([10**4300], "[10 ** 4300]"),  # past what str() of an int will write
    ],
)
def test_a_big_int_is_written_as_a_student_types_it_and_reads_back_as_itself(value, written):
    """Where a value is written (a call, a setting, what came back) one writer spells it: a power of ten
    of 31 digits or more as one, an int near a power of 2 as one and the rest, and the text is the value."""
    text = py(value, 10**6)
    if written is not None:
        assert text == written
    else:
        assert text.isdigit()
    assert eval(text) == value  # the grader's own text, read back


def test_an_input_that_cannot_be_written_to_paste_is_said_so_and_never_offered_to_paste(tmp_path, monkeypatch):
    """Where the failing input cannot be written as code that runs pasted alone (a value cut short; a grader
    bug in writing it), the student reads it as its check writes it, told so, and the replay offers no paste."""
    from grader.kit import probing
    from grader.kit.report import for_student
    from tests.beginners import source

    path = tmp_path / "tools.py"
    path.write_text(source("lea.py"))
    audience = for_student("tools.py")
    pasted = feedback_markdown(grade(str(path), LocalSession, seed=1, stages=(2,)), audience)
    assert "The smallest failing input the grader found:" in pasted and "paste the input above" in pasted
    monkeypatch.setattr(probing, "pasteable", lambda *given: None)
    graded = grade(str(path), LocalSession, seed=1, stages=(2,))
    shown = [result.mismatch for result in graded.results if result.mismatch]
    assert shown and not any(mismatch.pasteable for mismatch in shown)
    feedback = feedback_markdown(graded, audience)
    assert "as its check writes it (it does not run pasted alone)" in feedback
    assert "paste the input above" not in feedback and "The smallest failing input the grader found:" not in feedback
