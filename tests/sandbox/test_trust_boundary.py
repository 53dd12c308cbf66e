"""Hostile submissions graded end to end: none scores above what its real code earns, none breaks grading.

Each twist in tests/submissions/hostile/ is appended to the reference tools.py (a complete
module, then the attack) and graded by the real sandbox. The table says which stages it
must lose points in; every other stage keeps all its points, a results.json and a
feedback.md are always written, and nothing it started outlives its grading.
"""

import functools
import json
import os
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

import pytest

import agtool
from grader.instructor.sandbox.confine import Layers
from grader.instructor.sandbox.session import CompiledOnce, Limits, SandboxSession
from grader.kit.grading import grade
from grader.kit.report import feedback_markdown, write_feedback, write_results
from tests.sandboxing import SLOW_ATTACK_SECONDS, gone, ipc_objects, sandbox_processes, uid_of

pytestmark = pytest.mark.grader

REFERENCE = Path(agtool.__file__).with_name("tools.py")
SUBMISSIONS = Path(__file__).resolve().parents[1] / "submissions"
HOSTILE = SUBMISSIONS / "hostile"
LIMITS = Limits(answer_seconds=1, stage_seconds=60)  # a hang costs 1 s; an honest answer, milliseconds
ALL = (1, 2, 3, 4, 5, 6)
LATER = (2, 3, 4, 5, 6)

# twist -> (the stages that must lose points, words in their first failure's message);
# every other stage must keep all its points.
CONTAINED = {
    "sys_exit_at_import": (ALL, "SystemExit"),
    "os_exit_at_import": (ALL, "exit code 0"),
    "infinite_loop": ((3,), "no answer within 1 s: an infinite loop?"),
    "ignores_signals": ((4,), "no answer within 1 s: an infinite loop?"),
    "memory_bomb": ((5,), "no answer within 1 s"),
    "output_flood": ((1,), "wrote more than 16 MB of output"),
    "floods_the_grader": ((2, 3, 4, 5), "the answer was over"),  # raw frames; tests/sandbox/test_grader_memory.py
    "always_equal": ((2,), ""),
    "tamper_grader": (ALL, ""),  # it breaks the child-side runner it patched: its own loss
    "segfault": ((6,), "segmentation fault"),
    "background_processes": ((), ""),
    "deep_directory": (ALL, "nested folders more than 100 deep"),
    "exits_as_not_confined": ((3,), "exit code 71"),
    "hoards_memory_in_forks": ((5,), "more than 512 MB of memory in all"),
    "hoards_shared_memory_in_forks": ((5,), "more than 512 MB of memory in all"),
    "fills_the_workdir": ((2,), "more than 64 MB of files in all"),
    "holds_deleted_files": ((2,), "more than 64 MB of files in all"),
    "holds_unnamed_files": ((2,), "more than 64 MB of files in all"),
    "maps_deleted_files": ((2,), "more than 64 MB of files in all"),
    "system_v_ipc": ((), ""),
    "posix_message_queue": ((), ""),
    "fork_bomb": ((), ""),
    "kills_the_grader": ((), ""),
    "writes_outside": ((), ""),
    "reads_the_solution": ((2,), ""),
    "steals_the_oracle": (LATER, ""),
    "forges_observations": (LATER, ""),
    "markup_and_surrogates": ((2,), ""),
    "reads_secrets": ((), ""),
    "fake_fn_marker": ((1,), "found a wrong answer"),
    "graph_is_none": ((6,), "found a wrong answer"),
    "graph_forges_its_description": ((6,), "found a wrong answer"),
    "learns_from_failure": ((2,), "found a wrong answer"),
    "rewrites_its_compiled_code": ((), ""),
}
# The layers the table is graded under: this kernel's, and capped as an older kernel's would be.
LAYER_SETS = {"kernel": None, "landlock-3": 3, "no-landlock": 0}


def cannot_contain(twist: str, layers: Layers) -> str | None:
    """Why these layers cannot contain the twist (then its test is skipped), or None."""
    if twist in ("reads_the_solution", "reads_secrets") and not layers.confines_reads():
        return "neither Landlock nor a uid and mount namespace of its own keeps a child from reading"
    if twist == "writes_outside" and not (layers.landlock or layers.drop_user):
        return "neither Landlock nor a uid of its own keeps a child from writing"
    if twist == "kills_the_grader" and not layers.confines_writes_and_signals():
        return "nothing keeps a child from signalling the grader"
    return None


# Twists that must lose exactly these checks, no more and no fewer: what they forge is believed
# nowhere, and what their real code does right still scores.
CHECKS_LOST = {
    "fake_fn_marker": {"1.1", "1.2", "1.3", "1.4", "1.5"},  # 1.5 needs 1.1; 1.6 judges the grader's own tables
    "graph_is_none": {"6.1"},
    "graph_forges_its_description": {"6.1"},
}


class Tracked(SandboxSession):
    """A sandbox session that notes its child's uid and workdir, so the test can see both are gone."""

    seen: ClassVar[list] = []  # every instance of the test adds to the one list

    def __init__(self, path, stage, layers=None, limits=LIMITS, compiled=None):
        super().__init__(path, stage, limits, layers=layers, compiled=compiled)
        Tracked.seen.append(self)


def hostile(twist: str, folder: Path) -> Path:
    """The reference tools.py with the twist appended: a complete, hostile submission."""
    path = folder / twist / "tools.py"
    path.parent.mkdir(parents=True)
    path.write_text(REFERENCE.read_text() + "\n\n" + (HOSTILE / f"{twist}.py").read_text())
    return path


def maxima(result) -> dict[int, int]:
    points: dict[int, int] = {}
    for check in result.results:
        points[check.check.stage] = points.get(check.check.stage, 0) + check.check.points
    return points


def graded(path: Path, seed: int = 3, layers=None, limits=LIMITS):
    Tracked.seen = []
    before = ipc_objects()
    # The submission compiled once, as every grade does (grader/instructor/confined.py).
    sessions = functools.partial(Tracked, layers=layers, limits=limits, compiled=CompiledOnce())
    result = grade(str(path), sessions, seed=seed, scale=0.3)
    assert len(Tracked.seen) == len(ALL)
    assert ipc_objects() == before  # nor any System V object or POSIX message queue
    for box in Tracked.seen:  # nothing left: no process of its uid, no workdir, no zombie
        assert gone(box.pid) and not os.path.exists(box.workdir) and box.cleanup_problem is None
        if box.uid is not None:
            assert box.uid not in {uid_of(pid) for pid in sandbox_processes()}
    return result


def test_every_hostile_twist_is_in_the_table():
    assert sorted(path.stem for path in HOSTILE.glob("*.py")) == sorted(CONTAINED)


@pytest.mark.parametrize("cap", list(LAYER_SETS.values()), ids=list(LAYER_SETS))
@pytest.mark.parametrize("twist", sorted(CONTAINED))
def test_a_hostile_submission_is_contained(twist, cap, tmp_path):
    layers = Layers.here(landlock_cap=cap)
    why = cannot_contain(twist, layers)
    if why:
        pytest.skip(f"{layers.describe()}: {why}")
    lost, words = CONTAINED[twist]
    limits = replace(LIMITS, answer_seconds=SLOW_ATTACK_SECONDS.get(twist, LIMITS.answer_seconds))
    result = graded(hostile(twist, tmp_path), layers=layers, limits=limits)
    scores, most = result.stage_scores(), maxima(result)
    assert {stage for stage in ALL if scores[stage] < most[stage]} == set(lost)
    if twist in CHECKS_LOST:
        assert {check.check.label for check in result.results if not check.passed} == CHECKS_LOST[twist]
    for stage in lost:
        first = next(check for check in result.results if check.check.stage == stage and not check.passed)
        assert words in first.message
    write_results(result, str(tmp_path / "results.json"))
    write_feedback(result, str(tmp_path / "feedback.md"))
    assert json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))["score"] == result.score
    assert not (tmp_path / "planted.txt").exists() and not (tmp_path / twist / "planted.txt").exists()


@pytest.mark.parametrize("scope", [5, 0], ids=["landlock-5-no-signal-scope", "no-landlock"])
def test_with_a_layer_missing_the_grader_still_survives_a_kill(tmp_path, scope):
    layers = Layers.here(landlock_cap=scope)
    if not layers.confines_writes_and_signals():
        pytest.skip("without root or Landlock 6 nothing keeps a child from signalling the grader")
    result = graded(hostile("kills_the_grader", tmp_path), layers=layers)
    assert result.score == result.max_score  # and this test process is still here to say so


# What steals_the_oracle's functions give when they find nothing: its real code.
NO_ORACLE = """
def check_args(name, args):
    return "stolen nothing"


def check_result(name, value):
    return "stolen nothing"


def call_tool(name, args):
    return {"ok": False, "value": None, "error": "stolen nothing"}


def call_memo(name, args, memo):
    return {"ok": False, "value": None, "error": "stolen nothing"}


def run(request, max_attempts=3, picker=None):
    return {"status": "stolen nothing"}
"""


@pytest.mark.parametrize("seed", [11, 12])
def test_the_oracle_in_reach_of_memory_and_frames_earns_nothing(tmp_path, seed):
    stolen = graded(hostile("steals_the_oracle", tmp_path), seed=seed)
    plain = tmp_path / "plain.py"
    plain.write_text(REFERENCE.read_text() + "\n\n" + NO_ORACLE)
    assert stolen.stage_scores() == graded(plain, seed=seed).stage_scores()


def test_markup_and_surrogates_are_shown_as_text(tmp_path):
    result = graded(hostile("markup_and_surrogates", tmp_path))
    write_results(result, str(tmp_path / "results.json"))
    write_feedback(result, str(tmp_path / "feedback.md"))
    for written in ("results.json", "feedback.md"):
        text = (tmp_path / written).read_bytes().decode("utf-8")  # valid UTF-8, no lone surrogate
        assert "\x1b" not in text and "\x07" not in text and "\udc80" not in text
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    outputs = " ".join(test["output"] for test in results["tests"])
    assert "ValueError" in outputs
    markdown = feedback_markdown(result)
    for line in markdown.splitlines():
        if "ValueError" in line and not line.startswith(("got:", "expected:")):
            assert "<img" not in line and "](" not in line  # outside code blocks: escaped


def test_what_a_submission_reads_never_reaches_its_feedback(tmp_path):
    if not Layers.here().confines_reads():
        pytest.skip("neither Landlock nor a uid and mount namespace of its own keeps a child from reading")
    classmate = tmp_path / "alice" / "tools.py"
    classmate.parent.mkdir()
    classmate.write_text("# alice-secret-7f3a\n")
    path = hostile("reads_secrets", tmp_path)
    result = graded(path)
    assert result.score == result.max_score
    markdown = feedback_markdown(result)
    for secret in ("alice-secret-7f3a", "ref: refs/heads", "def arg_reasons", "--seed", "BEGIN SOLUTION"):
        assert secret not in markdown


def test_nothing_a_submission_spawns_outlives_its_grading(tmp_path):
    spawned: list[int] = []

    class KeepingPids(Tracked):
        def close(self):
            record = Path(self.inside, "spawned.pids")
            if record.exists():
                spawned.extend(int(pid) for pid in record.read_text().split())
            super().close()

    result = grade(str(hostile("background_processes", tmp_path)), KeepingPids, seed=5, scale=0.3)
    assert result.score == result.max_score
    assert len(spawned) == 7 * len(ALL)  # seven at every import: one import per stage
    assert [pid for pid in spawned if not gone(pid)] == []


def test_tampering_with_the_grader_gains_nothing(tmp_path):
    tampered = graded(hostile("tamper_grader", tmp_path), seed=4)
    plain = tmp_path / "plain.py"
    plain.write_text(REFERENCE.read_text() + "\n\ndef check_args(name, args):\n    return None\n")
    honest = graded(plain, seed=4).stage_scores()
    assert all(tampered.stage_scores()[stage] <= honest[stage] for stage in ALL)


# ── the sandbox grades as the in-process session does ────────────────────────

BROKEN = __import__("runpy").run_path(str(SUBMISSIONS / "broken" / "table.py"))["BROKEN"]


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_submission_gets_the_same_verdicts_in_the_sandbox_as_in_process(name, tmp_path):
    from grader.kit.local import LocalSession

    old, new, stage = BROKEN[name]
    path = tmp_path / "tools.py"
    path.write_text(REFERENCE.read_text().replace(old, new))
    confined = grade(str(path), functools.partial(SandboxSession, limits=LIMITS), seed=2, stages=(stage,), scale=0.3)
    local = grade(str(path), LocalSession, seed=2, stages=(stage,), scale=0.3)
    assert [(r.check.label, r.passed) for r in confined.results] == [(r.check.label, r.passed) for r in local.results]
    assert confined.score < local.max_score


def test_require_sandbox_refuses_to_grade_where_a_layer_is_missing(tmp_path, monkeypatch, capsys):
    from grader.__main__ import main
    from grader.instructor.sandbox import confine

    monkeypatch.setattr(confine.Layers, "here", classmethod(lambda cls, landlock_cap=None: cls(False, False, 0)))
    results = tmp_path / "results.json"
    assert main(["grade", str(REFERENCE), "--require-sandbox", "--results", str(results)]) == 2
    said = capsys.readouterr().err
    assert "missing: no Landlock" in said and "--require-sandbox" in said
    assert not results.exists()
