"""The grader's core: full marks for correct modules, lost points exactly where a mistake is,
reproducible draws, Gradescope's results.json, the CLI, and check() for notebooks.

Broken submissions are the reference with one realistic mistake each, written at test
time from tests/submissions/broken/table.py.
"""

import json
import runpy
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import pytest

from grader import check
from grader.instructor.release import STUDENT_MODULE, skeleton
from grader.kit.checks import CHECKLISTS, every_check
from grader.kit.errors import Crashed
from grader.kit.grading import STAGE_POINTS, Grade, grade
from grader.kit.local import LocalSession
from grader.kit.probing import CheckResult, Mismatch
from grader.kit.report import MAX_RESULTS_BYTES, results_json

pytestmark = pytest.mark.grader

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "agtool" / "tools.py"
SUBMISSIONS = Path(__file__).resolve().parents[1] / "submissions"
BROKEN = runpy.run_path(str(SUBMISSIONS / "broken" / "table.py"))["BROKEN"]
FULL = STAGE_POINTS


def write_patched(folder: Path, name: str, old: str, new: str) -> Path:
    """The reference with `old` replaced by `new`, as folder/name."""
    source = REFERENCE.read_text()
    assert source.count(old) == 1, f"{name}: the reference changed; update its snippet in broken/table.py"
    path = folder / name
    path.write_text(source.replace(old, new))
    return path


def failures(result: Grade) -> str:
    """What went wrong, for an assertion message."""
    return "\n".join(f"{r.check.label} {r.message} {r.mismatch}" for r in result.results if not r.passed)


def lost(result: Grade) -> dict[int, int]:
    scores = result.stage_scores()
    return {stage: FULL[stage] - scores[stage] for stage in FULL if scores[stage] != FULL[stage]}


# ── what the checks are ──────────────────────────────────────────────────────


def test_checks_split_100_points_over_the_stages_and_say_what_they_check():
    assert {number: sum(check.points for check in stage.checks) for number, stage in CHECKLISTS.items()} == FULL
    assert sum(FULL.values()) == 100
    for stage in CHECKLISTS.values():
        for check_ in stage.checks:
            assert check_.title and check_.hint and check_.points > 0, check_.label
    labels = [check_.label for check_ in every_check()]
    assert len(labels) == len(set(labels))


def test_the_json_schema_verdict_is_remembered_per_schema_not_per_look_alike():
    """True == 1 in Python: a verdict remembered by == would pass `"minimum": True`, which the meta-schema refuses."""
    from grader.kit.checks import stage1
    from grader.kit.checks.stage1 import meta_problem

    valid = {"type": "object", "properties": {"x": {"type": "integer", "minimum": 1}}}
    refused = {"type": "object", "properties": {"x": {"type": "integer", "minimum": True}}}
    assert valid == refused
    for _ in range(2):  # the second time from memory
        assert meta_problem(valid) is None
        assert meta_problem(refused) == "True is not of type 'number'"
    # A submission's huge answer is judged, not kept: the grading process outlives it, student after student.
    huge = {"type": "object", "description": "x" * 100_000, "minimum": True}
    assert meta_problem(huge) == "True is not of type 'number'"
    assert not any(len(key) > 10_000 for key in stage1._META_PROBLEMS)


# ── correct modules get 100 ──────────────────────────────────────────────────


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_reference_gets_full_marks(seed):
    result = grade(str(REFERENCE), LocalSession, seed=seed)
    assert result.score == result.max_score == 100, failures(result)


@pytest.mark.parametrize("seed", [0, 7])
def test_a_correct_module_written_another_way_gets_full_marks(seed):
    result = grade(str(SUBMISSIONS / "correct" / "other_way.py"), LocalSession, seed=seed)
    assert result.score == 100, failures(result)


def test_the_student_skeleton_gets_nothing_and_is_told_what_is_not_implemented(tmp_path):
    path = tmp_path / "tools.py"
    path.write_text(skeleton(REFERENCE.read_text(), STUDENT_MODULE, {n: f"0{n}_stage.ipynb" for n in FULL}))
    result = grade(str(path), LocalSession)
    assert result.score == 0
    for outcome in result.results:
        if outcome.check.stage > 1:
            assert outcome.message.startswith("not implemented yet"), (outcome.check.label, outcome.message)


# ── what a fn and a graph are is judged by what they do ──────────────────────

RUN_INVOKES = '    return build_graph().invoke({"request": request}, config=config, context=context)\n'
STREAM = 'build_graph().stream({"request": request}, config=config, context=context, stream_mode='
DRIVES = {  # run drives the graph build_graph() gives another way: its walk is seen all the same
    "invoke, stream_mode named": RUN_INVOKES.replace("context=context)", 'context=context, stream_mode="values")'),
    "stream of values": f'    state = None\n    for state in {STREAM}"values"):\n        pass\n    return state\n',
    "stream of modes": f'    state = None\n    for mode, chunk in {STREAM}["debug", "values"]):\n'
    '        state = chunk if mode == "values" else state\n    return state\n',
}


@pytest.mark.parametrize("drive", sorted(DRIVES))
def test_the_graph_is_judged_by_its_walk_however_run_drives_it(drive, tmp_path):
    path = write_patched(tmp_path, "drives.py", RUN_INVOKES, DRIVES[drive])
    result = grade(str(path), LocalSession, seed=4, stages=(6,))
    assert result.score == result.max_score, failures(result)


@pytest.mark.parametrize(
    ("twist", "stage", "fails"),
    [
        ("fake_fn_marker", 1, {"1.1", "1.2", "1.3", "1.4", "1.5"}),
        ("graph_is_none", 6, {"6.1"}),
        ("graph_forges_its_description", 6, {"6.1"}),
    ],
)
def test_what_a_fn_or_a_graph_says_it_is_earns_nothing(twist, stage, fails, tmp_path):
    """In-process, quick (tests/sandbox/test_trust_boundary.py grades them in the sandbox): a dict spelled like the
    channel's function marker is called and is no function; a graph is what build_graph() gives and run walks."""
    path = tmp_path / "tools.py"
    path.write_text(REFERENCE.read_text() + "\n\n" + (SUBMISSIONS / "hostile" / f"{twist}.py").read_text())
    result = grade(str(path), LocalSession, seed=4, stages=(stage,))
    assert {outcome.check.label for outcome in result.results if not outcome.passed} == fails, failures(result)


# ── a mistake costs points in its own stage, and only there ──────────────────


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=getattr(pytest.mark, f"stage{stage}")) for name, (_, _, stage) in BROKEN.items()]
)
def test_a_broken_submission_loses_points_in_its_own_stage_only(name, tmp_path):
    old, new, stage = BROKEN[name]
    result = grade(str(write_patched(tmp_path, name, old, new)), LocalSession)
    assert list(lost(result)) == [stage], failures(result)


def test_every_stage_has_at_least_two_broken_submissions():
    stages = [stage for _, _, stage in BROKEN.values()]
    assert all(stages.count(stage) >= 2 for stage in FULL)


# ── reproducible, and random ─────────────────────────────────────────────────


def _comparable(result: Grade) -> dict:
    results = results_json(result)
    results.pop("execution_time")
    return results


def test_same_seed_same_results(tmp_path):
    path = write_patched(tmp_path, "tools.py", *BROKEN["keys_not_sorted.py"][:2])
    first, second = (grade(str(path), LocalSession, seed=4, stages=(5,)) for _ in range(2))
    assert first.score < 15
    assert _comparable(first) == _comparable(second)


class Recording(LocalSession):
    """A LocalSession that keeps every request it is sent."""

    sent: ClassVar[list] = []

    def request(self, req: dict) -> dict:
        Recording.sent.append(req)
        return super().request(req)


def _draws(seed: int, only: str) -> list:
    Recording.sent = []
    grade(str(REFERENCE), Recording, seed=seed, only=only, stages=(int(only[0]),))
    return Recording.sent


@pytest.mark.parametrize("only", ["2.4", "3.7", "5.1", "6.3"])
def test_a_seed_fixes_the_draws_and_another_seed_draws_others(only):
    assert _draws(1, only) == _draws(1, only)
    assert _draws(1, only) != _draws(2, only)


def test_a_check_of_fixed_cases_alone_asks_each_once_under_every_seed():
    """6.9's picker table is fixed (examples=0): each row is asked once, and no draw repeats one."""
    (check,) = [check for check in CHECKLISTS[6].checks if check.label == "6.9"]
    assert check.examples == 0
    for seed in (1, 2):
        assert _draws(seed, "6.9") == [check.request(case) for case in check.always]


def test_the_draws_come_from_the_seed_alone_not_from_what_the_process_imported(tmp_path, monkeypatch):
    """Hypothesis draws literal constants of the process's local modules too: a student's own module, loaded
    by check() in a notebook, or whatever the grading process imported first, would change the draws."""
    checks = ("3.3", "4.1", "5.1", "6.3")  # where those constants changed the draws (Hypothesis 6.170)
    before = [_draws(0, only) for only in checks]
    (tmp_path / "constants_of_a_module.py").write_text(
        "FLOATS = (0.25, 1.75, 3.125, -2.5, 0.875, 5.5, 8.25, -7.75, 2.0625, 4.375)\n"
        "TEXTS = ('b', 'ab', '가', 'a a', 'bb가', 'ba')\n"
        "INTS = (-8, -6, 9, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 83, 89, 97, 101)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, "constants_of_a_module", __import__("constants_of_a_module"))
    assert [_draws(0, only) for only in checks] == before


def test_cases_replayed_from_an_earlier_submission_give_what_hypothesis_gives(tmp_path, monkeypatch):
    """A check's draws are drawn once a process and replayed to the next submission (grader/kit/probing.py):
    the same verdicts, failures and shrunk inputs as Hypothesis drawing afresh, a failing replay included."""
    from grader.kit import probing

    monkeypatch.setattr(probing, "_PASSED_DRAWS", {})
    drawn_again = []  # checks sent back to Hypothesis after a replayed case failed
    draw = probing._draw

    def watched(check, seed, scale, try_case):
        if (check.label, check.cases, seed, scale) in probing._PASSED_DRAWS:
            drawn_again.append(check.label)
        draw(check, seed, scale, try_case)

    monkeypatch.setattr(probing, "_draw", watched)
    names = (
        "limit_up_to_3.py",
        "no_upgrade_link.py",
        "nan_passes.py",
        "empty_not_caught.py",
        "door_keeps_bad_value.py",
        "keys_not_sorted.py",
        "no_attempt_limit.py",
    )  # one or more a stage; the first two fail only in a drawn case
    submissions = [(REFERENCE, tuple(FULL))] + [
        (write_patched(tmp_path, name, *BROKEN[name][:2]), (BROKEN[name][2],)) for name in names
    ]
    fresh = []
    for path, stages in submissions:
        probing._PASSED_DRAWS.clear()
        fresh.append(_comparable(grade(str(path), LocalSession, seed=6, stages=stages)))
    probing._PASSED_DRAWS.clear()
    replayed = [_comparable(grade(str(path), LocalSession, seed=6, stages=stages)) for path, stages in submissions]
    assert replayed == fresh
    assert drawn_again  # some failure was found in a replayed case, not in a fixed one


def test_cases_drawn_ahead_are_the_ones_a_passing_submission_is_drawn(monkeypatch):
    """class draws a seed's cases before forking its workers (probing.draw_ahead): they must be the
    very cases grading the reference draws, case for case, or the workers would judge others."""
    from grader.kit import probing

    monkeypatch.setattr(probing, "_PASSED_DRAWS", {})
    grade(str(REFERENCE), LocalSession, seed=11)
    drawn_by_grading = {key[0]: repr(cases) for key, cases in probing._PASSED_DRAWS.items()}  # repr: NaN != NaN
    probing._PASSED_DRAWS.clear()
    probing.draw_ahead(every_check(), seed=11)
    drawn_ahead = {key[0]: repr(cases) for key, cases in probing._PASSED_DRAWS.items()}
    assert drawn_ahead == drawn_by_grading
    assert len(drawn_ahead) == sum(len(stage.checks) for stage in CHECKLISTS.values())


def test_the_replay_command_replays_the_same_failure(tmp_path):
    path = write_patched(tmp_path, "tools.py", *BROKEN["bool_accepted_as_int.py"][:2])
    whole = grade(str(path), LocalSession, seed=3, stages=(2,))
    failed = next(r for r in whole.results if r.check.label == "2.4")
    assert not failed.passed
    replay = grade(str(path), LocalSession, seed=3, only=failed.check.label, stages=(2,))
    assert [r.mismatch for r in replay.results] == [failed.mismatch]
    assert failed.mismatch is not None
    assert "True" in failed.mismatch.call or "False" in failed.mismatch.call  # shrunk to the bool itself


# ── what goes wrong in the submission stays in its stage ─────────────────────


class DiesInStage4(LocalSession):
    """A session whose child dies (as a sandboxed crash would) in stage 4, two requests into its second check."""

    DEATH = len(CHECKLISTS[4].checks[0].always) + CHECKLISTS[4].checks[0].examples + 1

    def __init__(self, path, stage):
        super().__init__(path, stage)
        self.requests = 0

    def request(self, req: dict) -> dict:
        self.requests += req.get("stage") == 4
        if self.requests >= self.DEATH:
            raise Crashed("the submission's process ended with exit code 3 before answering", code=3)
        return super().request(req)


def test_a_dead_session_costs_the_rest_of_its_stage_and_nothing_else():
    result = grade(str(REFERENCE), DiesInStage4)
    assert list(lost(result)) == [4]
    stage4 = [r for r in result.results if r.check.stage == 4]
    assert stage4[0].passed and not stage4[1].passed
    assert all(r.message.startswith("not run: the submission's process ended") for r in stage4[2:])


def test_an_unimportable_submission_gets_zero_and_the_line_to_fix(tmp_path):
    path = tmp_path / "tools.py"
    source = REFERENCE.read_text()
    assert source.count("\ndef build_graph():") == 1
    path.write_text(source.replace("\ndef build_graph():", "\ndef build_graph(:", 1))
    result = grade(str(path), LocalSession)
    assert result.score == 0
    assert all("could not be imported: SyntaxError" in r.message and "line" in r.message for r in result.results)


# ── Gradescope's results.json and the CLI ────────────────────────────────────


def test_grade_cli_writes_gradescope_results_and_feedback(tmp_path):
    results, feedback = tmp_path / "out" / "results.json", tmp_path / "feedback.md"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "grade",
            str(REFERENCE),
            "--results",
            str(results),
            "--feedback",
            str(feedback),
            "--seed",
            "5",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    written = json.loads(results.read_text())
    assert written["score"] == 100 and isinstance(written["execution_time"], float)
    assert {"output", "visibility", "tests"} <= written.keys()
    assert sum(test["max_score"] for test in written["tests"]) == 100
    for test in written["tests"]:
        assert set(test) == {
            "name",
            "number",
            "score",
            "max_score",
            "status",
            "output",
            "output_format",
            "tags",
            "visibility",
        }
        stage, _, k = test["number"].partition(".")
        assert test["tags"] == [f"stage{stage}"] and k.isdigit()
        assert test["status"] == "passed" and test["visibility"] == "visible"
    assert "# agtool lab: 100 / 100" in feedback.read_text()


def test_grade_cli_reports_failures_with_input_expected_got_hint_and_replay(tmp_path):
    path = write_patched(tmp_path, "tools.py", *BROKEN["door_lets_exceptions_out.py"][:2])
    done = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(path), "--only", "4.4"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    for part in (
        "The smallest failing input",
        "expected: ",
        "got:      raised",
        "The rule (04_door.ipynb): Any Exception from the body is `tool:raised:<ExceptionType>`.",
        "Hint: An exception from the tool's body got out of the door",
        f"replay: `.venv/bin/python -m grader grade {path} --seed 0 --only 4.4`",
        "TOOLS[",
    ):
        assert part in done.stdout


@pytest.mark.parametrize(
    "argv, says",
    [
        (["grade", "no/such/tools.py"], "cannot be read"),
        (["grade", str(REFERENCE), "--only", "9.9"], "names no check"),
    ],
)
def test_grade_cli_refuses_bad_input_with_a_clear_message(argv, says):
    done = subprocess.run([sys.executable, "-m", "grader", *argv], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr


def test_results_json_stays_under_a_megabyte_whatever_the_feedback():
    huge = "x" * 2_000_000
    checks = every_check()
    result = Grade(
        "tools.py",
        0,
        [CheckResult(c, False, "found a wrong answer", Mismatch(huge, huge, huge, huge, setting=huge)) for c in checks],
        1.0,
    )
    assert len(json.dumps(results_json(result), ensure_ascii=False).encode()) < MAX_RESULTS_BYTES


# ── check() for notebooks ────────────────────────────────────────────────────


def test_check_shows_a_table_and_says_what_is_not_implemented_yet(tmp_path):
    path = write_patched(
        tmp_path,
        "tools.py",
        'return check_arg_fields(TOOLS[name]["args"], args, prefix="")',
        'raise NotImplementedError("Stage 2: check_args — see notebooks/02_check_args.ipynb")',
    )
    report = check(2, str(path))
    assert report.score == 0 and not report.passed
    assert "<table" in report._repr_html_() and "not implemented yet" in report._repr_html_()
    assert repr(report).count("not implemented yet") == len(CHECKLISTS[2].checks)
    assert check(3, str(path)).passed  # the other stages do not care


def test_check_of_the_lab_module_passes_and_a_wrong_stage_is_a_message():
    assert check(1).passed and check(6).passed
    assert "use one of 1, 2, 3, 4, 5, 6" in repr(check(9))
