"""OUT/integrity.html: what `class --similar` found, for an academic-integrity office (never for students).

Clusters of similar solutions (students joined by a similar pair: similarity.py), every pair with the lines
each file holds of the other's side by side, and code that builds and runs code at run time (`exec`, `eval`
or `compile` of anything but a literal: a copy handed in as encoded text leaves no fingerprint, this is its
trace). Boilerplate the instructor gave out goes in OUT/boilerplate/*.py and is left out like the starter.
Written by a run with --similar only, and kept by the others, so the evidence stays until it is looked for
again. Every text a student wrote is escaped; the page runs no script and makes no request.
"""

import ast
import html
import re
from dataclasses import dataclass
from pathlib import Path

from grader.instructor.class_report import html_page, html_table
from grader.kit.report import write_atomically

INTEGRITY = "integrity.html"
BOILERPLATE = "boilerplate"  # OUT/boilerplate/*.py: code the instructor gave out, left out like the starter
SIMILAR = 0.6  # the share of a student's own code (what is left out left out) that lists a pair
RUNNERS = ("exec", "eval", "compile")
DECODERS = ("base64", "zlib", "bz2", "lzma", "gzip", "marshal", "codecs", "binascii", "pickle")
LINE_LIMIT = 200  # characters of a listed line


@dataclass(frozen=True)
class RunsCode:
    """A place where a file builds and runs code at run time."""

    student: str
    line: int
    text: str  # the line, cut to LINE_LIMIT
    decoders: tuple[str, ...]  # the decoding modules the file imports


def runs_built_code(student: str, source: str) -> list[RunsCode]:
    """Each call of exec, eval or compile (by name, or as an attribute: builtins.exec) whose code is not a
    literal; a file that does not parse is searched as text for the calls."""
    lines = source.splitlines()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        found = [number for number, line in enumerate(lines, 1) if re.search(r"\b(exec|eval|compile)\s*\(", line)]
        decoders = tuple(name for name in DECODERS if re.search(rf"\bimport\b.*\b{name}\b", source))
    else:
        found = sorted(
            {node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call) and _runs_built_code(node)}
        )
        decoders = _decoders(tree)
    return [RunsCode(student, number, _cut(lines[number - 1].strip()), decoders) for number in found]


def _runs_built_code(node: ast.Call) -> bool:
    """node calls exec, eval or compile (by name, as builtins' attribute, or got by getattr) on anything but a
    literal. Not re.compile(pattern): an attribute of another module is not the builtin."""
    if not node.args or isinstance(node.args[0], ast.Constant):
        return False
    function = node.func
    if isinstance(function, ast.Name):
        named = any(isinstance(argument, ast.Constant) and argument.value in RUNNERS for argument in node.args[1:2])
        return function.id in RUNNERS or (function.id == "getattr" and named)
    return (
        isinstance(function, ast.Attribute)
        and function.attr in RUNNERS
        and isinstance(function.value, ast.Name)
        and function.value.id in ("builtins", "__builtins__")
    )


def _decoders(tree: ast.AST) -> tuple[str, ...]:
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__import__":
            imported |= {arg.value for arg in node.args[:1] if isinstance(arg, ast.Constant) and type(arg.value) is str}
    return tuple(name for name in DECODERS if name in imported)


def _cut(text: str) -> str:
    return text if len(text) <= LINE_LIMIT else text[: LINE_LIMIT - 1] + "…"


def clusters(pairs) -> list[list[str]]:
    """The students joined by pairs, each group sorted, the largest first."""
    # similarity imports copydetect, which loads matplotlib's pyplot: imported for --similar only.
    from grader.instructor.similarity import joined

    return joined((pair.first, pair.second) for pair in pairs)


def boilerplate(out: Path) -> str:
    """The instructor's boilerplate in OUT/boilerplate/*.py, as one text ('' without any)."""
    folder = out / BOILERPLATE
    files = sorted(folder.glob("*.py")) if folder.is_dir() else []
    return "\n\n".join(path.read_text(encoding="utf-8", errors="replace") for path in files)


def write_integrity(out: Path, sources: dict[str, str], starter: str) -> None:
    """integrity.html for the class's files (student -> text), the starter and OUT's boilerplate left out."""
    from grader.instructor.similarity import similar_pairs

    given = boilerplate(out)
    pairs = similar_pairs(sources, starter + "\n\n" + given, threshold=SIMILAR)
    runs = [found for student in sorted(sources) for found in runs_built_code(student, sources[student])]
    write_atomically(out / INTEGRITY, integrity_html(sources, pairs, runs, bool(given)))


def integrity_html(sources: dict[str, str], pairs, runs: list[RunsCode], with_boilerplate: bool) -> str:
    from grader.instructor.similarity import quote

    left_out = "the kit's starter" + (", the instructor's boilerplate (boilerplate/)" if with_boilerplate else "")
    body = [
        "<h1>agtool lab: integrity report</h1>",
        f'<p id="summary">{len(sources)} files compared; {left_out} and code the class\'s independent solutions '
        f"share left out. A pair is listed when either side holds {SIMILAR:.0%} or more of its own code in the "
        f"other's file. {_count(len(pairs), 'pair')}, {_count(len(clusters(pairs)), 'cluster')}; "
        f"{_count(len(runs), 'place')} that run code built at run time.</p>",
        "<h2>Clusters</h2>",
        _clusters_table(pairs),
        "<h2>Code that builds and runs code at run time</h2>",
        _runs_table(runs),
        "<h2>Pairs, the lines each file holds of the other's, side by side</h2>",
        _pairs_table(pairs, sources, quote),
    ]
    return html_page("agtool lab: integrity report", STYLE, body)


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}" + ("" if number == 1 else "s")


STYLE = (
    "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse;margin:0.5em 0;width:100%}"
    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}th{background:#f3f3f3}"
    ".num{text-align:right}pre{margin:0;white-space:pre-wrap;font-size:12px}td.lines{width:45%}"
    "ul{margin:0;padding-left:1.2em}"
)


def _clusters_table(pairs) -> str:
    found = clusters(pairs)
    if not found:
        return '<p id="clusters">No cluster.</p>'
    rows = []
    for members in found:
        inside = [pair for pair in pairs if pair.first in members and pair.second in members]
        low, high = min(pair.share for pair in inside), max(pair.share for pair in inside)
        names = "".join(f"<li>{html.escape(name)}</li>" for name in members)
        rows.append(
            f'<tr class="cluster"><td class="num">{len(members)}</td><td><ul>{names}</ul></td>'
            f'<td class="num">{len(inside)}</td><td class="num">{low:.0%} to {high:.0%}</td></tr>'
        )
    return html_table("clusters", ("students", "who", "pairs", "shares (the larger side of each pair)"), rows)


def _runs_table(runs: list[RunsCode]) -> str:
    if not runs:
        return '<table id="runs-code"><tr><td>None.</td></tr></table>'
    rows = [
        f'<tr class="runs"><td>{html.escape(run.student)}</td><td class="num">{run.line}</td>'
        f"<td><pre>{html.escape(run.text)}</pre></td><td>{html.escape(', '.join(run.decoders)) or '-'}</td></tr>"
        for run in runs
    ]
    return html_table("runs-code", ("student", "line", "code", "decoders it imports"), rows)


def _pairs_table(pairs, sources: dict[str, str], quote) -> str:
    if not pairs:
        return '<p id="pairs">No pair.</p>'
    rows = []
    for pair in pairs:
        first = html.escape(quote(sources[pair.first], pair.first_lines))
        second = html.escape(quote(sources[pair.second], pair.second_lines))
        rows.append(
            f'<tr class="pair" data-first="{html.escape(pair.first)}" data-second="{html.escape(pair.second)}">'
            f"<td>{html.escape(pair.first)}<br>{pair.first_share:.0%} of theirs</td>"
            f'<td class="lines"><pre>{first}</pre></td>'
            f"<td>{html.escape(pair.second)}<br>{pair.second_share:.0%} of theirs</td>"
            f'<td class="lines"><pre>{second}</pre></td></tr>'
        )
    return html_table("pairs", ("student", "their lines", "student", "their lines"), rows)
