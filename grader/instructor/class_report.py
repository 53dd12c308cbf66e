"""OUT/report.html: a class on one page, for the instructor (never for students: it names them all).

- the spread of the scores, a histogram per stage and a wide one for the final total, drawn
  as SVG here (a bar per whole point; for the total, per 5 points); files that do not
  import, and entries not graded, stand apart from honest zeros;
- per check: how many failed, and their most common reasons with counts;
- the term: who was late and what was overridden;
- similar pairs of solutions (grader/instructor/similarity.py), with their shared lines.

Self-contained (no script, no request): it opens from a TA's mail as from the disk.
Every text a student wrote (a name, an exception's message) is escaped.
"""

import html
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

TOP_REASONS = 3  # reasons shown per check
BLUE, GREY, ORANGE = "#4c72b0", "#9e9e9e", "#dd8452"


@dataclass(frozen=True)
class Student:
    """What the report reads of a graded student."""

    name: str
    final: float
    raw: float
    stages: dict[int, float]
    failed: dict[str, str]  # label -> why, for each failed check
    broken: str | None  # why the file does not import, or None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Shared:
    """A pair of similar solutions, as the report shows it."""

    first: str
    second: str
    first_share: float
    second_share: float
    lines: tuple[str, ...]  # a few of the lines they share, numbered as in first's file


@dataclass(frozen=True)
class CheckInfo:
    label: str
    stage: int
    title: str
    points: int


REASON_LIMIT = 120  # characters of one reason


def failure_reason(result) -> str:
    """What a failed check's result has in common with others' (the report counts them): the exception
    its smallest failing input raised, else the problem its judge named, else its one-line message."""
    got = result.failure.got if result.failure else ""
    raised = re.match(r"raised (\w+)", got)
    named = re.search(r"\(([^()]+)\)$", got)
    why = f"raised {raised[1]}" if raised else named[1] if named else result.message
    return why if len(why) <= REASON_LIMIT else why[: REASON_LIMIT - 1] + "…"


# ── the histogram ────────────────────────────────────────────────────────────

WIDTH, HEIGHT = 420, 210
LEFT, RIGHT, TOP, BOTTOM = 40, 12, 28, 40
WHOLE_POINTS = 40  # up to this many points, a bar per point; above, a bar per BIN points (the total)
BIN = 5


def histogram_svg(title: str, scores: Sequence[float], points: int, apart: dict[str, int], width: int = WIDTH) -> str:
    """One panel: a bar per whole point from 0 to `points` (per BIN points above WHOLE_POINTS, the top
    score alone), its height the students with that score; then, past a gap, a grey bar per group of
    `apart` (label -> students)."""
    size = 1 if points <= WHOLE_POINTS else BIN
    bins = [(low, min(low + size - 1, points)) for low in range(0, points, size)] + [(points, points)]
    counts = [sum(1 for score in scores if low <= round(score) <= high) for low, high in bins]
    groups = [(label, count) for label, count in apart.items() if count]
    slots = len(bins) + (len(groups) + 1 if groups else 0)  # the gap, then the groups
    slot = (width - LEFT - RIGHT) / slots
    tallest = max([*counts, *(count for _, count in groups), 1])
    step = _tick_step(tallest)
    top = -(-tallest // step) * step
    high = HEIGHT - TOP - BOTTOM
    below = HEIGHT - BOTTOM + 14

    def bar(index: float, count: int, colour: str, label: str) -> str:
        height = high * count / top
        x, y = LEFT + index * slot, TOP + high - height
        return (
            f'<rect x="{x + 0.5:.1f}" y="{y:.1f}" width="{max(slot - 1, 1):.1f}" height="{height:.1f}" '
            f'fill="{colour}"><title>{html.escape(label)}: {count}</title></rect>'
        )

    parts = [f'<text x="{width / 2}" y="16" text-anchor="middle" font-weight="bold">{html.escape(title)}</text>']
    for value in range(0, top + 1, step):  # the count axis: whole students
        y = TOP + high - high * value / top
        parts.append(f'<line x1="{LEFT}" x2="{width - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e0e0e0"/>')
        parts.append(f'<text x="{LEFT - 4}" y="{y + 4:.1f}" text-anchor="end">{value}</text>')
    for index, ((low, high_score), count) in enumerate(zip(bins, counts, strict=True)):
        named = f"{low} points" if low == high_score else f"{low}-{high_score} points"
        if count:
            parts.append(bar(index, count, BLUE, named))
    every = _tick_step(len(bins) - 1)
    for index in range(0, len(bins), every):  # the points axis, each tick under its bar
        x = LEFT + (index + 0.5) * slot
        parts.append(f'<text class="tick" x="{x:.1f}" y="{below}" text-anchor="middle">{bins[index][0]}</text>')
    for index, (label, count) in enumerate(groups):
        at = len(bins) + 1 + index
        parts.append(bar(at, count, GREY, label))
        x = LEFT + (at + 0.5) * slot
        parts.append(f'<text x="{x:.1f}" y="{below}" text-anchor="middle" fill="{GREY}">{label}</text>')
    unit = "points" if size == 1 else f"points (bars of {size}; the last, {points} alone)"
    parts.append(f'<text x="{LEFT + (width - LEFT - RIGHT) / 2}" y="{HEIGHT - 6}" text-anchor="middle">{unit}</text>')
    return (
        f'<svg class="histogram" data-title="{html.escape(title)}" xmlns="http://www.w3.org/2000/svg" '
        f'width="{width}" height="{HEIGHT}" font-family="sans-serif" font-size="11">{"".join(parts)}</svg>'
    )


def _tick_step(most: int) -> int:
    """A whole step giving at most about eight ticks up to `most`: 1, 2, 5, 10, 20, 50 …"""
    step = 1
    while most / step > 8:
        step = step * 5 // 2 if str(step)[0] == "2" else step * 2
    return step


# ── the page ─────────────────────────────────────────────────────────────────


def report_html(
    students: Sequence[Student],
    not_graded: dict[str, str],
    stage_points: dict[int, int],
    checks: Sequence[CheckInfo],
    pairs: Sequence[Shared] | None = None,
    threshold: float | None = None,
) -> str:
    honest = [student for student in students if student.broken is None]
    broken = [student for student in students if student.broken is not None]
    apart = {"broken": len(broken), "not graded": len(not_graded)}
    total = sum(stage_points.values())
    panels = [
        histogram_svg(f"stage {stage} (of {points} points)", [s.stages[stage] for s in honest], points, apart)
        for stage, points in sorted(stage_points.items())
    ]
    panels.append(histogram_svg(f"total (of {total} points)", [s.final for s in honest], total, apart, 2 * WIDTH))
    finals = sorted(student.final for student in honest)
    median = f"{finals[len(finals) // 2]:g}" if finals else "none"
    body = [
        "<h1>agtool lab: the class</h1>",
        f'<p id="summary">{len(students)} graded ({len(honest)} that import, {len(broken)} that do not), '
        f"{len(not_graded)} not graded; median final score {median} of {total}.</p>",
        "<h2>Scores</h2>",
        f'<div class="panels">{"".join(panels)}</div>',
        "<h2>Checks</h2>",
        _checks_table(honest, checks),
        *_apart_section(broken, not_graded),
        *_term_section(students),
        *_similarity_section(pairs, threshold),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>agtool lab: the class</title>'
        f"<style>{STYLE}</style></head><body>{''.join(body)}</body></html>\n"
    )


STYLE = (
    "body{font-family:sans-serif;margin:1.5em;max-width:1400px}"
    "table{border-collapse:collapse;margin:0.5em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;"
    "vertical-align:top}th{background:#f3f3f3}.num{text-align:right}.panels{display:flex;flex-wrap:wrap;gap:8px}"
    "pre{margin:0;white-space:pre-wrap}"
)


def _checks_table(honest: Sequence[Student], checks: Sequence[CheckInfo]) -> str:
    rows = []
    for check in checks:
        why = Counter(student.failed[check.label] for student in honest if check.label in student.failed)
        failed = sum(why.values())
        rate = f"{100 * failed / len(honest):.0f} %" if honest else "-"
        reasons = "<br>".join(f"{count} × {html.escape(text)}" for text, count in why.most_common(TOP_REASONS))
        rows.append(
            f'<tr class="check" data-label="{check.label}"><td>{check.label}</td><td>{html.escape(check.title)}</td>'
            f'<td class="num">{check.points}</td><td class="num">{failed}</td><td class="num">{rate}</td>'
            f"<td>{reasons}</td></tr>"
        )
    header = "".join(
        f"<th>{name}</th>" for name in ("check", "what", "points", "failed", "fail rate", "most common reasons")
    )
    header = f"<tr>{header}</tr>"
    return f'<table id="checks">{header}{"".join(rows)}</table>'


def _apart_section(broken: Sequence[Student], not_graded: dict[str, str]) -> list[str]:
    if not broken and not not_graded:
        return []
    rows = [
        f"<tr><td>{html.escape(s.name)}</td><td>does not import: {html.escape(s.broken or '')}</td></tr>"
        for s in broken
    ]
    rows += [
        f"<tr><td>{html.escape(name)}</td><td>not graded: {html.escape(why)}</td></tr>"
        for name, why in sorted(not_graded.items())
    ]
    return [
        "<h2>Apart from the scores</h2>",
        f'<table id="apart"><tr><th>student</th><th>why</th></tr>{"".join(rows)}</table>',
    ]


def _term_section(students: Sequence[Student]) -> list[str]:
    noted = [student for student in students if student.notes]
    if not noted:
        return []
    rows = [
        f'<tr><td>{html.escape(s.name)}</td><td class="num">{s.raw:g}</td><td class="num">{s.final:g}</td>'
        f"<td>{'<br>'.join(html.escape(note) for note in s.notes)}</td></tr>"
        for s in noted
    ]
    header = "<tr><th>student</th><th>raw</th><th>final</th><th>why</th></tr>"
    return ["<h2>Late and overridden</h2>", f'<table id="term">{header}{"".join(rows)}</table>']


def _similarity_section(pairs: Sequence[Shared] | None, threshold: float | None) -> list[str]:
    if pairs is None:
        return ["<h2>Similar solutions</h2>", '<p id="similar">Not looked for: run class with --similar.</p>']
    title = f"<h2>Similar solutions (a share of {threshold:.0%} or more, the starter code left out)</h2>"
    if not pairs:
        return [title, '<p id="similar">No pair.</p>']
    rows = []
    for pair in pairs:
        shown = html.escape("\n".join(pair.lines))
        rows.append(
            f'<tr class="pair"><td>{html.escape(pair.first)}</td><td>{html.escape(pair.second)}</td>'
            f'<td class="num">{pair.first_share:.0%} / {pair.second_share:.0%}</td><td><pre>{shown}</pre></td></tr>'
        )
    header = "<tr><th>student</th><th>student</th><th>shared (of each)</th><th>shared lines (a sample)</th></tr>"
    return [title, f'<table id="similar">{header}{"".join(rows)}</table>']
