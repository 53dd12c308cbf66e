"""OUT/integrity.html: what `class --similar` found, for an academic-integrity office (never for students).

- clusters of similar solutions, of any size: students joined by a similar pair
  (grader/instructor/similarity.py: copydetect's fingerprints, the kit's starter and the
  instructor's boilerplate left out, and code the class's independent solutions share);
- every pair, with the lines each file holds of the other's code, side by side, numbered as in
  each file (a reordered copy has them in other places and other pieces);
- code that builds and runs code at run time: `exec`, `eval` or `compile` of anything but a
  literal (a copy handed in as encoded text leaves no fingerprint; this is its trace), with the
  decoders the file imports.

Boilerplate the instructor gave out (a helper, a table pasted in class) goes in OUT/boilerplate/,
one or more .py files: it is left out like the starter. The file is written by a run with
--similar only, and kept by the runs without it, so the evidence stays until it is looked for again.
Every text a student wrote is escaped; the page runs no script and makes no request.
"""

import ast
import html
import re
from dataclasses import dataclass
from pathlib import Path

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
        return function.id in RUNNERS or (function.id == "getattr" and _names_runner(node.args[1:2]))
    return (
        isinstance(function, ast.Attribute)
        and function.attr in RUNNERS
        and isinstance(function.value, ast.Name)
        and function.value.id in ("builtins", "__builtins__")
    )


def _names_runner(arguments: list[ast.expr]) -> bool:
    return any(isinstance(argument, ast.Constant) and argument.value in RUNNERS for argument in arguments)


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
    group: dict[str, set[str]] = {}
    for pair in pairs:
        joined = group.get(pair.first, {pair.first}) | group.get(pair.second, {pair.second})
        for name in joined:
            group[name] = joined
    found = {tuple(sorted(members)) for members in group.values()}
    return sorted((list(members) for members in found), key=lambda members: (-len(members), members))


def boilerplate(out: Path) -> str:
    """The instructor's boilerplate in OUT/boilerplate/*.py, as one text ('' without any)."""
    folder = out / BOILERPLATE
    files = sorted(folder.glob("*.py")) if folder.is_dir() else []
    return "\n\n".join(path.read_text(encoding="utf-8", errors="replace") for path in files)


def write_integrity(out: Path, sources: dict[str, str], starter: str) -> None:
    """integrity.html for the class's files (student -> text), the starter and OUT's boilerplate left out."""
    # Imported here: copydetect loads matplotlib's pyplot (0.5 s, 1.5 s on a loaded machine): only --similar.
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
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>agtool lab: integrity report</title>'
        f"<style>{STYLE}</style></head><body>{''.join(body)}</body></html>\n"
    )


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
    shares = {(pair.first, pair.second): pair for pair in pairs}
    rows = []
    for members in found:
        inside = [pair for (first, second), pair in shares.items() if first in members and second in members]
        low, high = min(pair.share for pair in inside), max(pair.share for pair in inside)
        names = "".join(f"<li>{html.escape(name)}</li>" for name in members)
        rows.append(
            f'<tr class="cluster"><td class="num">{len(members)}</td><td><ul>{names}</ul></td>'
            f'<td class="num">{len(inside)}</td><td class="num">{low:.0%} to {high:.0%}</td></tr>'
        )
    header = "<tr><th>students</th><th>who</th><th>pairs</th><th>shares (the larger side of each pair)</th></tr>"
    return f'<table id="clusters">{header}{"".join(rows)}</table>'


def _runs_table(runs: list[RunsCode]) -> str:
    if not runs:
        return '<table id="runs-code"><tr><td>None.</td></tr></table>'
    rows = [
        f'<tr class="runs"><td>{html.escape(run.student)}</td><td class="num">{run.line}</td>'
        f"<td><pre>{html.escape(run.text)}</pre></td><td>{html.escape(', '.join(run.decoders)) or '-'}</td></tr>"
        for run in runs
    ]
    header = "<tr><th>student</th><th>line</th><th>code</th><th>decoders it imports</th></tr>"
    return f'<table id="runs-code">{header}{"".join(rows)}</table>'


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
    header = "<tr><th>student</th><th>their lines</th><th>student</th><th>their lines</th></tr>"
    return f'<table id="pairs">{header}{"".join(rows)}</table>'
