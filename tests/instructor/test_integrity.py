"""grader/instructor/integrity.py: code that runs code it builds is listed; pairs join into clusters."""

import base64
import zlib
from pathlib import Path

import pytest

import agtool
from grader.instructor.integrity import clusters, integrity_html, runs_built_code
from grader.instructor.similarity import Pair

pytestmark = pytest.mark.grader

ROOT = Path(agtool.__file__).resolve().parents[1]
ENCODED = ROOT / "tests" / "submissions" / "hostile" / "integrity" / "encoded_exec_copy.py"
KIT_MINIMAL = ROOT / "tests" / "submissions" / "correct" / "kit_minimal.py"


def test_the_encoded_copy_is_the_classmates_file_and_is_listed_with_its_decoders():
    text = ENCODED.read_text()
    namespace: dict = {}
    exec(compile(text.split("exec(")[0], "payload", "exec"), namespace)  # the file up to its exec: the payload
    assert zlib.decompress(base64.b64decode(namespace["_PAYLOAD"])) == KIT_MINIMAL.read_bytes()
    (found,) = runs_built_code("enzo", text)
    assert found.line == text.splitlines().index(found.text) + 1
    assert found.text.startswith("exec(compile(zlib.decompress(base64.b64decode(_PAYLOAD))")
    assert found.decoders == ("base64", "zlib")


@pytest.mark.parametrize(
    "source, lines",
    [
        ("exec(code)\n", [1]),
        ("x = 1\neval(text, {})\n", [2]),
        ("import builtins\nbuiltins.exec(text)\n", [2]),
        ("f = getattr(__builtins__, 'compile')(text, 'x', 'exec')\n", [1]),
        ("exec('x = 1')\n", []),  # a literal builds nothing at run time
        ("import re\npattern = re.compile(spec['pattern'])\n", []),  # not the builtin
        ("def f(:\n    exec(blob)\n", [2]),  # does not parse: found as text
    ],
)
def test_runs_built_code_lists_exec_eval_and_compile_of_anything_but_a_literal(source, lines):
    assert [found.line for found in runs_built_code("amy", source)] == lines


def pair(first: str, second: str, share: float = 0.9) -> Pair:
    return Pair(first, second, share, share, ((1, 2),), ((3, 4),))


def test_pairs_join_into_clusters_of_any_size_largest_first():
    pairs = [pair("a", "b"), pair("b", "c"), pair("c", "d"), pair("x", "y"), pair("d", "e")]
    assert clusters(pairs) == [["a", "b", "c", "d", "e"], ["x", "y"]]
    assert clusters([]) == []


def test_the_page_escapes_what_students_wrote_and_runs_nothing():
    sources = {"<b>a</b>": "x = '<script>'\nexec(y)\n", "b": "x = '<script>'\n"}
    page = integrity_html(sources, [pair("<b>a</b>", "b")], runs_built_code("<b>a</b>", sources["<b>a</b>"]), False)
    assert "<script>" not in page and "<b>a</b>" not in page and "&lt;b&gt;a&lt;/b&gt;" in page
