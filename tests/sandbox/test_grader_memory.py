"""The grader's own memory is bounded, whatever a child sends down its channel.

A submission's code runs in the child's process, so it can write to the channel's pipe
itself, past the encoder (grader/kit/boundary/values.py's to_plain) that keeps an honest answer
small: JSON of empty lists costs twenty times its size to decode. The twist
tests/submissions/hostile/floods_the_grader.py does, in four stages; graded by
`python -m grader grade` in a process of its own, that process's peak RSS (its own, not its
children's: a sandboxed child may use 512 MB of its own) may exceed the reference's by at most
what docs/threat-model.md says, and a results.json is written in which only those four stages lose points.
"""

import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import agtool
from grader.kit.boundary import channel, values
from grader.kit.boundary.exchange import Exchange, weigh
from grader.kit.errors import ChannelBroken
from tests.sandboxing import QUICK, call, session, submission

pytestmark = pytest.mark.grader

ROOT = Path(agtool.__file__).resolve().parents[1]
REFERENCE = ROOT / "agtool" / "tools.py"
TWIST = Path(__file__).resolve().parents[1] / "submissions" / "hostile" / "floods_the_grader.py"
ATTACKED = {2, 3, 4, 5}
GROWTH_MB = 64  # docs/threat-model.md's bound: what the frames of one request may add to the grader's peak RSS

# `python -m grader ARGS...`, then this process's own peak RSS (ru_maxrss, KiB) on its last line.
MEASURED = """
import resource, runpy, sys
sys.argv = ["grader", *sys.argv[1:]]
try:
    runpy.run_module("grader", run_name="__main__")
except SystemExit as ended:
    code = ended.code
print(code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def grade_measured(path: Path, results: Path) -> tuple[int, float]:
    """(exit code, peak RSS in MB) of `python -m grader grade path --results results`."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, "grade", str(path), "--results", str(results)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    code, kib = done.stdout.split()[-2:]
    return int(code), int(kib) / 1024


def stage_losses(results: Path) -> set[int]:
    tests = json.loads(results.read_text(encoding="utf-8"))["tests"]
    return {int(test["number"].split(".")[0]) for test in tests if test["score"] < test["max_score"]}


def test_a_flood_of_frames_costs_the_grader_a_bounded_memory_and_only_the_stages_it_floods(tmp_path):
    flood = tmp_path / "flood" / "tools.py"
    flood.parent.mkdir()
    flood.write_text(REFERENCE.read_text() + "\n\n" + TWIST.read_text())
    honest_code, honest_mb = grade_measured(REFERENCE, tmp_path / "honest.json")
    flood_code, flood_mb = grade_measured(flood, tmp_path / "flood.json")
    assert honest_code == 0 and flood_code == 0
    assert json.loads((tmp_path / "honest.json").read_text())["score"] == 100
    assert stage_losses(tmp_path / "flood.json") == ATTACKED
    assert flood_mb - honest_mb <= GROWTH_MB, f"the grader peaked at {flood_mb:.0f} MB, the reference's {honest_mb:.0f}"


# ── each budget, one frame at a time ─────────────────────────────────────────

RAW = """
    import os, struct, sys

    def send(*texts):
        \"\"\"Each text as a frame of its own, written to the grader's pipe past the encoder.\"\"\"
        frame = sys._getframe()
        while frame.f_code.co_name != "serve":
            frame = frame.f_back
        for text in texts:
            data = struct.pack(">I", len(text.encode())) + text.encode()
            while data:
                data = data[os.write(frame.f_locals["to_parent"], data) :]

    def header(size):
        \"\"\"A frame's header alone, saying `size` bytes follow: none do.\"\"\"
        send()
        frame = sys._getframe()
        while frame.f_code.co_name != "serve":
            frame = frame.f_back
        os.write(frame.f_locals["to_parent"], struct.pack(">I", size))

    def echo(value):
        return value

    def nested(depth):
        value = []
        for _ in range(depth):
            value = [value]
        return value
"""


def outcome(value: str) -> str:
    return '{"value": ' + value + "}"


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def empty_lists(count: int) -> str:
    return "[" + ",".join(["[]"] * count) + "]"


@pytest.mark.parametrize(
    "calls, words",
    [
        ([("header", 2**31)], "over 1 MB"),  # refused on its header: no 2 GB is read, nor waited for
        ([("send", outcome(empty_lists(channel.MAX_FRAME_MARKS)))], f"over {channel.MAX_FRAME_MARKS:,} values"),
        ([("send", outcome("[" * 100 + "]" * 100))], f"over {channel.MAX_FRAME_DEPTH} lists or dicts deep"),
        ([("send", outcome("[" * 50_000 + "]" * 50_000))], "lists or dicts deep"),  # past json's own recursion
        ([("send", '{"body": ' + "[" * 100 + "]" * 100 + "}")], "lists or dicts deep"),  # a body run's frame too
        # each frame within its own budget, three of them over what one request may keep
        ([("send", *[outcome(json.dumps("x" * 900_000))] * 3), ("echo", 1), ("echo", 2)], "MB of text in one request"),
        ([("send", *[outcome("[" + ",".join(["0"] * 80_000) + "]")] * 3), ("echo", 1), ("echo", 2)], "values in one"),
    ],
    ids=["header", "marks", "depth", "recursion", "body-depth", "request-text", "request-nodes"],
)
def test_a_frame_past_a_budget_breaks_the_channel_with_a_clear_message(tmp_path, calls, words):
    with session(submission(tmp_path, RAW)) as box:
        request = {"stage": 1, "calls": [{"fn": fn, "args": list(args)} for fn, *args in calls]}
        with pytest.raises(ChannelBroken, match="the answer was over") as broken:
            box.request(request)
    assert words in broken.value.reason and "write to the grader's channel itself" in broken.value.reason


BIG = [float(n) + 0.125 for n in range(values.MAX_NODES + 10_000)]


@pytest.mark.parametrize(
    "value, plain",
    [
        (["\N{GRINNING FACE}" * values.MAX_STR], True),  # the widest str there is: 12 bytes a character
        ([[n, "x" * 30] for n in range(values.MAX_NODES // 3)], True),
        ({f"key {n:05}": n for n in range(values.MAX_NODES - 1)}, True),  # as many keys as values
        (nested(values.MAX_DEPTH - 1), True),
        ("nested 1000", False),  # built in the child: marked where it is too deep
        (BIG, False),  # MAX_NODES values, and then one marker
        ([2**14_000 - 1] * 300, False),  # 4,215 digits each: 1.3 MB of JSON
        (["," * values.MAX_STR] * 5, False),  # 100,000 commas in its text
        (["x" * values.MAX_STR] * 60, False),
    ],
    ids=["astral", "pairs", "keys", "deep", "too-deep", "too-many", "big-ints", "commas", "long-text"],
)
def test_every_value_the_encoder_gives_reaches_the_grader(tmp_path, value, plain):
    """What to_plain makes of any value passes every budget of the grader's: a value too big
    arrives as a marker, judged wrong, never as a broken channel that costs the rest of the stage."""
    with session(submission(tmp_path, RAW), limits=replace(QUICK, answer_seconds=10)) as box:
        got = call(box, "nested", 1000)["value"] if value == "nested 1000" else call(box, "echo", value)["value"]
    if plain:
        assert values.same(got, value)
    else:
        assert "<not plain data" in values.py(got, limit=10**7)
        assert len(json.dumps(got)) <= values.MAX_JSON


def test_a_plain_value_is_within_its_limits_and_a_flood_is_one_marker():
    assert values.to_plain(BIG)[: values.MAX_NODES - 1] == BIG[: values.MAX_NODES - 1]
    assert len(values.to_plain(BIG)) == values.MAX_NODES and values.is_marker(values.to_plain(BIG)[-1])
    assert values.to_plain({"a": BIG})["a"][-1] == values.to_plain(BIG)[-1]
    assert "too big" in values.to_plain(["x" * values.MAX_STR] * 60)["<not plain data>"]
    assert values.marks(b'{"a": [1, 2], "b": "[,:{"}') == 10  # its strs' too: never fewer than its nodes
    assert not values.deeper_than([[1], {"a": 1}], 2) and values.deeper_than([[1], {"a": []}], 2)


def test_a_body_run_asked_for_with_a_value_of_any_depth_is_refused_without_recursing():
    deep = nested(100_000)
    with pytest.raises(ChannelBroken, match=r"not given \(a list\)"):
        Exchange({"calls": [{}]}).body(deep)


def test_the_bounds_are_what_the_threat_model_says():
    """Its bullet states this test's bound, and names the limits it rests on (their values live in the code alone)."""
    model = (ROOT / "docs" / "threat-model.md").read_text()
    bullet = model[model.index("*Run the grader out of memory.*") :]
    bullet = " ".join(bullet[: bullet.index("\n- ")].split())
    assert f"within {GROWTH_MB} MB of its own baseline" in bullet
    named = set(re.findall(r"`([A-Z][A-Z_]+)`", bullet))
    assert {"MAX_FRAME", "MAX_FRAME_MARKS", "MAX_FRAME_DEPTH", "REQUEST_NODES", "REQUEST_TEXT"} <= named
    assert all(isinstance(getattr(channel, name, getattr(values, name, None)), int) for name in named), named
    assert weigh({"ab": [1, "xyz", 2**80]}) == (6, 2 + 3 + 10)
