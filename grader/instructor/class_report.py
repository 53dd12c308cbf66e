"""OUT/report.html: a class on one page, for the instructor (never for students: it names them all).

The spread of the scores (a histogram per stage and of the final total, drawn as SVG here, with files not
graded in full and entries with no row apart from honest zeros), the same per section of roster.csv, per
check who failed it and why, and its discrimination: the point-biserial correlation of passing it with the
rest of the raw score, over the files graded in full. Near 0 or below, strong students fail it as often as
weak ones: look at the check before the regrade requests come. Then the term, the sandbox layers, a partial
merge's missing shards and a link to integrity.html. Self-contained (no script, no request), it opens from a
TA's mail as from the disk; every text a student wrote is escaped.
"""

import html
import statistics
from collections import Counter
from collections.abc import Sequence

from grader.instructor.graded import Graded
from grader.kit.checks import every_check
from grader.kit.grading import STAGE_POINTS
from grader.kit.probing import Check

TOP_REASONS = 3  # reasons shown per check
LOW_DISCRIMINATION = 0.1  # a check below this separates strong from weak no better than chance: marked
BLUE, GREY, ORANGE = "#4c72b0", "#9e9e9e", "#dd8452"


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
        # A label wider than its bar: a line below the ticks, kept inside the panel (about 6 px a character).
        anchor = "middle" if x + 3 * len(label) <= width else "end"
        x = x if anchor == "middle" else width - 1
        parts.append(f'<text x="{x:.1f}" y="{below + 11}" text-anchor="{anchor}" fill="{GREY}">{label}</text>')
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


def html_page(title: str, style: str, body: list[str]) -> str:
    """A whole self-contained page (also integrity.html's)."""
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{style}</style></head><body>{''.join(body)}</body></html>\n"
    )


def html_table(table_id: str, header: Sequence[str], rows: list[str]) -> str:
    """A table of rows (each a <tr>), under a row naming its columns (also integrity.html's)."""
    names = "".join(f"<th>{name}</th>" for name in header)
    return f'<table id="{table_id}"><tr>{names}</tr>{"".join(rows)}</table>'


def report_html(
    graded: Sequence[Graded],
    not_graded: dict[str, str],
    roster: dict | None,
    integrity: str | None,
    missing_shards: tuple[str, ...],
) -> str:
    """The page, of the students' records with the term applied. not_graded: the entries with no row, and why;
    integrity: the integrity report's file name, when there is one; missing_shards: those a partial merge lacks."""
    students = sorted(graded, key=lambda student: student.student)
    sections = {student: entry["Section"] for student, entry in (roster or {}).items() if entry["Section"]}
    honest = [student for student in students if student.ungraded is None]
    ungraded = [student for student in students if student.ungraded is not None]
    apart = {"not graded": len(ungraded), "no row": len(not_graded)}
    total = sum(STAGE_POINTS.values())
    panels = [
        histogram_svg(f"stage {stage} (of {points} points)", [s.stages[stage] for s in honest], points, apart)
        for stage, points in sorted(STAGE_POINTS.items())
    ]
    panels.append(histogram_svg(f"total (of {total} points)", [s.final for s in honest], total, apart, 2 * WIDTH))
    body = [
        "<h1>agtool lab: the class</h1>",
        *_partial(missing_shards),
        f'<p id="summary">{len(students)} graded in the gradebook ({len(honest)} in full, {len(ungraded)} not), '
        f"{len(not_graded)} entries with no row; {_figures([s.final for s in honest], total)}.</p>",
        _sandbox(students),
        "<h2>Scores</h2>",
        f'<div class="panels">{"".join(panels)}</div>',
        *_sections(students, sections, total),
        "<h2>Checks</h2>",
        "<p>Discrimination: how passing the check goes with the rest of the raw score (point-biserial, files "
        'graded in full); <span class="low">near 0 or below</span>, strong students fail it as often as weak ones.</p>',
        _checks_table(honest, every_check()),
        *_apart_section(ungraded, not_graded),
        *_term_section(students),
        *_integrity_section(integrity),
    ]
    return html_page("agtool lab: the class", STYLE, body)


def _figures(finals: Sequence[float], total: int) -> str:
    """The median and mean of finals, in words."""
    if not finals:
        return "no file graded in full"
    return f"median final score {statistics.median(finals):g} of {total}, mean {statistics.fmean(finals):.1f}"


def _partial(missing_shards: tuple[str, ...]) -> list[str]:
    if not missing_shards:
        return []
    return [
        f'<p id="partial" class="low">Partial: shard {html.escape(", ".join(missing_shards))} not merged '
        "(merge --partial): its students have no row here.</p>"
    ]


def _sandbox(students: Sequence[Graded]) -> str:
    """The sandbox layers the students were graded under: one line each, with how many."""
    layers = Counter(student.sandbox for student in students if student.sandbox)
    said = "; ".join(f"{html.escape(text)} ({count})" for text, count in sorted(layers.items()))
    return f'<p id="sandbox">Graded under: {said or "no sandbox (nothing was graded in one)"}.</p>'


def _sections(students: Sequence[Graded], sections: dict[str, str], total: int) -> list[str]:
    """A row per section of roster.csv, when it has sections: students, graded in full, median and mean."""
    named = sorted({sections[student.student] for student in students if student.student in sections})
    if not named:
        return []
    rows = []
    for section in named:
        members = [student for student in students if sections.get(student.student) == section]
        finals = [student.final for student in members if student.ungraded is None]
        median = f"{statistics.median(finals):g}" if finals else "-"
        mean = f"{statistics.fmean(finals):.1f}" if finals else "-"
        rows.append(
            f'<tr class="section" data-section="{html.escape(section)}"><td>{html.escape(section)}</td>'
            f'<td class="num">{len(members)}</td><td class="num">{len(finals)}</td>'
            f'<td class="num">{median}</td><td class="num">{mean}</td></tr>'
        )
    header = ("section", "students", "graded in full", f"median (of {total})", "mean")
    return ["<h2>Sections</h2>", html_table("sections", header, rows)]


def discrimination(passed: Sequence[bool], rest: Sequence[float]) -> float | None:
    """The point-biserial correlation of passing a check with the rest of the score; None where it is not
    defined (everyone passed, everyone failed, or the rest is the same for all)."""
    if len(set(passed)) < 2 or len(set(rest)) < 2:
        return None
    return statistics.correlation([1.0 if p else 0.0 for p in passed], list(rest))


STYLE = (
    "body{font-family:sans-serif;margin:1.5em;max-width:1400px}"
    "table{border-collapse:collapse;margin:0.5em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;"
    "vertical-align:top}th{background:#f3f3f3}.num{text-align:right}.panels{display:flex;flex-wrap:wrap;gap:8px}"
    "pre{margin:0;white-space:pre-wrap}.low{background:#fde2c8}details summary{cursor:pointer}"
    "ul{margin:0;padding-left:1.2em}"
)


def _checks_table(honest: Sequence[Graded], checks: Sequence[Check]) -> str:
    rows = []
    for check in checks:
        failing = [student for student in honest if check.label in student.failed]
        why = Counter(student.failed[check.label] for student in failing)
        rate = f"{100 * len(failing) / len(honest):.0f} %" if honest else "-"
        reasons = "<br>".join(f"{count} × {html.escape(text)}" for text, count in why.most_common(TOP_REASONS))
        who = "".join(f"<li>{html.escape(student.student)}</li>" for student in failing)
        rest = [student.raw - student.checks.get(check.label, 0.0) for student in honest]
        r = discrimination([check.label not in student.failed for student in honest], rest)
        low = " low" if r is not None and r < LOW_DISCRIMINATION else ""
        shown = "-" if r is None else f"{r:+.2f}"
        rows.append(
            f'<tr class="check" data-label="{check.label}"><td>{check.label}</td><td>{html.escape(check.title)}</td>'
            f'<td class="num">{check.points}</td><td class="num">{len(failing)}</td><td class="num">{rate}</td>'
            f'<td class="num discrimination{low}">{shown}</td><td>{reasons}</td>'
            f'<td class="who"><details><summary>{len(failing)}</summary><ul>{who}</ul></details></td></tr>'
        )
    header = ("check", "what", "points", "failed", "fail rate", "discrimination", "most common reasons", "who")
    return html_table("checks", header, rows)


def _apart_section(ungraded: Sequence[Graded], not_graded: dict[str, str]) -> list[str]:
    if not ungraded and not not_graded:
        return []
    rows = [
        f"<tr><td>{html.escape(s.student)}</td><td>not graded, a row of {s.final:g}: {html.escape(s.ungraded or '')}"
        "</td></tr>"
        for s in ungraded
    ]
    rows += [
        f"<tr><td>{html.escape(name)}</td><td>no row: {html.escape(why)}</td></tr>"
        for name, why in sorted(not_graded.items())
    ]
    return ["<h2>Apart from the scores</h2>", html_table("apart", ("student", "why"), rows)]


def _term_section(students: Sequence[Graded]) -> list[str]:
    noted = [student for student in students if student.adjustments.notes]  # the term's: apart lists the rest
    if not noted:
        return []
    rows = [
        f'<tr><td>{html.escape(s.student)}</td><td class="num">{s.raw:g}</td><td class="num">{s.final:g}</td>'
        f"<td>{'<br>'.join(html.escape(note) for note in s.adjustments.notes)}</td></tr>"
        for s in noted
    ]
    return ["<h2>Late and overridden</h2>", html_table("term", ("student", "raw", "final", "why"), rows)]


def _integrity_section(integrity: str | None) -> list[str]:
    if integrity is None:
        return ["<h2>Similar solutions</h2>", '<p id="similar">Not looked for: run class with --similar.</p>']
    return [
        "<h2>Similar solutions</h2>",
        f'<p id="similar">In <a href="{html.escape(integrity)}">{html.escape(integrity)}</a>, as the last run '
        "with --similar wrote it: clusters of similar solutions, their lines side by side, and code that runs "
        "code it builds.</p>",
    ]
