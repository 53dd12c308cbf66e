"""grader.instructor.similarity: copied solutions are listed with their shared lines; honest ones are not."""

import ast
import dataclasses
import io
import itertools
import json
import os
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest
from copydetect import CodeFingerprint, compare_files

import agtool
from grader.instructor import release
from grader.instructor.similarity import Pair, quote, similar_pairs

pytestmark = pytest.mark.grader

ROOT = Path(agtool.__file__).resolve().parents[1]
REFERENCE = (ROOT / release.STUDENT_MODULE).read_text()
# The kit's skeleton, made as `python -m grader release` makes it (the notebook names only fill
# the stubs' messages).
NOTEBOOKS = {stage: f"0{stage}_stage.ipynb" for stage in range(1, 10)}
STARTER = release.skeleton(REFERENCE, release.STUDENT_MODULE, NOTEBOOKS)
SUBMISSIONS = ROOT / "tests" / "submissions"
# Correct and beginner modules written from the kit by people who never saw the reference
# (tests/submissions/beginner/README.md): independent solutions on the real starter. Not the one-bug
# modules of issue 33 (no files: table.py makes each from kit_minimal.py and one edit), copies by design.
HONEST = {
    path.stem: path.read_text()
    for folder in ("correct", "beginner")
    for path in sorted((SUBMISSIONS / folder).glob("*.py"))
    if path.stem != "table"
} | {"reference": REFERENCE}


def disguise(source: str) -> str:
    """source as a copier hands it in: every local variable and parameter renamed, every comment rewritten."""
    local = set()
    for function in ast.walk(ast.parse(source)):
        if isinstance(function, ast.FunctionDef):
            local |= {arg.arg for arg in function.args.args + function.args.kwonlyargs}
            local |= {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    renamed = {name: f"my_{name}_{len(name)}" for name in local - {"match", "case", "_", "type"}}
    tokens, previous = [], ""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        text = token.string
        if token.type == tokenize.NAME and previous != ".":
            text = renamed.get(text, text)
        elif token.type == tokenize.COMMENT:
            text = "# see above"
        tokens.append((token.type, text))
        previous = token.string
    return tokenize.untokenize(tokens)


def solved_only(stage: int) -> str:
    """The kit's skeleton with one stage's solution blocks filled in as the reference has them."""
    lines, out, number = REFERENCE.splitlines(keepends=True), [], 0
    for block in release.replacements(REFERENCE, release.STUDENT_MODULE, NOTEBOOKS):
        if block.stage != stage:
            out += lines[number : block.begin] + list(block.lines)
            number = block.end + 1
    return "".join(out + lines[number:])


def body_lines(source: str, function: str) -> set[int]:
    """The line numbers of a top-level function's code, its docstring left out."""
    (node,) = [n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == function]
    body = node.body[1:] if isinstance(node.body[0], ast.Expr) else node.body
    return set(range(body[0].lineno, (body[-1].end_lineno or body[-1].lineno) + 1))


def covered(ranges: tuple[tuple[int, int], ...]) -> set[int]:
    return {line for begin, end in ranges for line in range(begin, end + 1)}


COPY = disguise(REFERENCE)


def test_the_disguised_copy_is_python_and_no_longer_the_same_text():
    assert ast.parse(COPY)
    assert "my_spec_4" in COPY and "# see above" in COPY
    assert "spec[" in REFERENCE and "spec[" not in COPY


@pytest.fixture(scope="module")
def class_with_a_copy():
    """Every honest module, and one student who handed in the reference disguised."""
    return {**HONEST, "zed": COPY}


def test_in_a_class_of_honest_solutions_only_the_copy_is_listed(class_with_a_copy):
    pairs = similar_pairs(class_with_a_copy, STARTER)
    assert [(pair.first, pair.second) for pair in pairs] == [("reference", "zed")]
    (pair,) = pairs
    assert pair.first_share >= 0.9 and pair.second_share >= 0.85


def test_without_the_class_common_code_left_out_honest_pairs_would_be_listed(class_with_a_copy):
    """The rule is what keeps them out: this lab dictates much of its code, so honest solutions share it."""
    listed = {(pair.first, pair.second) for pair in similar_pairs(class_with_a_copy, STARTER, common=None)}
    assert ("reference", "zed") in listed
    assert len(listed - {("reference", "zed")}) >= 10


def test_the_shared_lines_are_where_the_copied_code_is():
    (pair,) = similar_pairs({"alice": REFERENCE, "bob": COPY, "carol": HONEST["other_way"]}, STARTER)
    assert (pair.first, pair.second) == ("alice", "bob")
    for source, ranges in ((REFERENCE, pair.first_lines), (COPY, pair.second_lines)):
        for function in ("check_arg_fields", "call_tool", "is_json", "after_call"):
            assert body_lines(source, function) <= covered(ranges), function
        # the module's docstring and imports are the starter's: not shared code
        assert not covered(ranges) & set(range(1, 25))
    text = quote(REFERENCE, pair.first_lines)
    assert 'return {"ok": True, "value": value, "error": None}' in text
    first_range = pair.first_lines[0]
    assert text.splitlines()[0] == f"{first_range[0]:5}  {REFERENCE.splitlines()[first_range[0] - 1]}"


def test_two_independent_solutions_are_not_listed():
    assert similar_pairs({"alice": REFERENCE, "carol": HONEST["other_way"]}, STARTER) == []
    (pair,) = similar_pairs({"alice": REFERENCE, "carol": HONEST["other_way"]}, STARTER, threshold=0.0)
    assert 0 < pair.share < 0.4


def test_the_starter_is_left_out():
    """Two students who each finished one different stage share the whole skeleton and nothing else."""
    one, two = solved_only(1), solved_only(2)
    assert one != two and len(STARTER.splitlines()) > 300
    assert similar_pairs({"ann": one, "ben": two}, STARTER) == []
    (pair,) = similar_pairs({"ann": one, "ben": two}, "")
    assert pair.share >= 0.7
    # nor does handing in the untouched skeleton make two students alike
    assert similar_pairs({"ann": STARTER, "ben": STARTER}, STARTER, threshold=0.0) == [
        Pair("ann", "ben", 0.0, 0.0, (), ())
    ]
    assert similar_pairs({"ann": STARTER, "ben": STARTER}, "")[0].share == 1.0


def test_the_shares_and_lines_are_copydetects_own():
    """similarity.py computes what copydetect's compare_files does, only faster; here, to the last bit."""
    for first, second in [("ana", "olly"), ("kit_minimal", "reference")]:
        sources = (HONEST[first], HONEST[second])
        (pair,) = similar_pairs(dict(zip((first, second), sources, strict=True)), "", threshold=0.0, common=None)
        _, shares, slices = compare_files(*(CodeFingerprint("tools.py", 25, 1, fp=io.StringIO(s)) for s in sources))
        assert (pair.first_share, pair.second_share) == shares
        for source, ranges, (begins, ends) in zip(sources, (pair.first_lines, pair.second_lines), slices, strict=True):
            touched = set()
            for begin, end in zip(begins.astype(int), ends.astype(int), strict=True):
                touched |= set(range(source.count("\n", 0, begin) + 1, source.count("\n", 0, end - 1) + 2))
            assert covered(ranges) == touched
            assert all(later[0] > earlier[1] + 1 for earlier, later in itertools.pairwise(ranges))  # merged


def test_the_same_class_gives_the_same_list_in_any_order_and_any_process(tmp_path):
    sources = {"carol": HONEST["other_way"], "bob": COPY, "alice": REFERENCE, "dan": HONEST["ana"]}
    here = similar_pairs(sources, STARTER, threshold=0.0)
    assert here == similar_pairs(dict(reversed(sources.items())), STARTER, threshold=0.0)
    assert (here[0].first, here[0].second) == ("alice", "bob")
    assert all(p.first < p.second for p in here) and len(here) == 6
    assert [p.share for p in here] == sorted((p.share for p in here), reverse=True)
    # Python salts str hashes per process, and copydetect hashes str k-grams: the list must not care.
    (tmp_path / "class.json").write_text(json.dumps({"sources": sources, "starter": STARTER}))
    script = (
        "import dataclasses, json, sys\n"
        "from grader.instructor.similarity import similar_pairs\n"
        "given = json.load(open(sys.argv[1]))\n"
        "pairs = similar_pairs(given['sources'], given['starter'], threshold=0.0)\n"
        "print(json.dumps([dataclasses.asdict(pair) for pair in pairs]))\n"
    )
    expected = json.loads(json.dumps([dataclasses.asdict(pair) for pair in here]))
    for seed in ("1", "2"):
        run = subprocess.run(
            [sys.executable, "-c", script, str(tmp_path / "class.json")],
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        )
        assert json.loads(run.stdout) == expected
        assert run.stderr == ""


def test_empty_and_broken_files_are_compared_without_a_crash(capsys):
    broken = {
        "empty": "",
        "blank": "\n\n   \n",
        "comments": "# I did not finish\n# sorry\n",
        "syntax": "def check_args(name, args:\n    return ((((\n" * 3,
        "bytes": "\x00\x01\ufffd\udcff garbage \x7f" * 20,
        "short": "x = 1",
    }
    pairs = similar_pairs({**broken, "alice": REFERENCE, "bob": COPY}, STARTER)
    assert [(pair.first, pair.second) for pair in pairs] == [("alice", "bob")]
    among_themselves = similar_pairs(broken, STARTER, threshold=0.0)
    assert len(among_themselves) == 15 and all(
        pair == Pair(pair.first, pair.second, 0.0, 0.0, (), ()) for pair in among_themselves
    )
    assert capsys.readouterr() == ("", "")


def test_a_class_of_one_or_none_has_no_pairs():
    assert similar_pairs({}, STARTER) == []
    assert similar_pairs({"alice": REFERENCE}, STARTER, threshold=0.0) == []


def test_every_pair_is_compared_once():
    names = ["a", "b", "c", "d"]
    pairs = similar_pairs(dict.fromkeys(names, REFERENCE), STARTER, threshold=0.0)
    assert [(p.first, p.second) for p in pairs] == list(itertools.combinations(names, 2))
    assert all(p.first_share == p.second_share == 1.0 for p in pairs)


def test_a_solution_copied_by_more_than_a_quarter_of_the_class_is_found_whole():
    """6 copies of one beginner's file (renamed, comments rewritten, stripped) in a class of 18: the old rule
    (what a quarter of the class shares is common code) took their code for the lab's and listed no pair.
    Near copies count once, so the copied code is no one's common code, and the honest files stay apart."""
    ana = HONEST["ana"]
    copies = {
        "ana": ana,
        "copy1": disguise(ana),
        "copy2": "\n".join(line for line in ana.splitlines() if not line.lstrip().startswith("#")) + "\n",
        "copy3": disguise(ana).replace("# see above", "# mine"),
        "copy4": ana + "\n\n# handed in on time\n",
        "copy5": disguise(ana) + "\n\nEXTRA = 1\n",
    }
    klass = {name: text for name, text in HONEST.items() if name != "ana"} | copies
    assert len(klass) == 18 and len(copies) > len(klass) / 4
    pairs = similar_pairs(klass, STARTER)
    listed = {(pair.first, pair.second) for pair in pairs}
    assert listed == set(itertools.combinations(sorted(copies), 2))
    assert all(pair.first_share >= 0.85 and pair.second_share >= 0.85 for pair in pairs)
