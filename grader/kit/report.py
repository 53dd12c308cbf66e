"""A grade, written down: Gradescope's results.json, a feedback.md, and the tables check() shows.

Per check: pass or fail, points, and on failure the smallest failing input, what was expected and
what came back, the rule, a hint and the command that replays it; nothing else of the grader's
internals. Same grade, same bytes (apart from results.json's execution_time), written atomically.
"""

import html
import json
import os
import re
import shlex
import tempfile
from dataclasses import dataclass

from agtool.syllabus import STAGES
from grader.kit.boundary.exchange import clean_text
from grader.kit.grading import Grade
from grader.kit.probing import CheckResult

STAGE_TITLES = {number: stage.title for number, stage in STAGES.items()}
MAX_RESULTS_BYTES = 1_000_000  # Gradescope refuses more
FIELD_LIMIT = 1500  # characters of an expected or a got
INPUT_SCALE = 4  # a shown input may hold FIELD_LIMIT times this: its setup (imports, the table) must run whole


# The virtual environment's python, as both READMEs name it (a bare `python` may lack the lab's packages).
VENV_PYTHON = ".venv\\Scripts\\python" if os.name == "nt" else ".venv/bin/python"


def check_command(stage: int, path: str | None = None) -> str:
    """What replays a check(N) table from a terminal: the repository's or the kit's own check."""
    return f"{VENV_PYTHON} -m grader check {stage}" + (f" {shlex.quote(path)}" if path else "")


@dataclass(frozen=True)
class Audience:
    """Who reads a report: it decides what the replay line runs and whether the seed shows."""

    path: str | None = None  # the student's file as the reader names it; None: the path graded
    seed_shown: bool = True  # on Gradescope the seed is what keeps the graded inputs hidden
    # When a failed check's failing input is shown: one of INPUTS_SHOWN. Anything but "visible" puts it
    # in a 0-point entry of its own, so that the check's title, score and verdict are visible at once.
    inputs_shown: str = "visible"
    kit: bool = False  # a student with the kit alone: the replay is the kit's `check N`, or the input pasted

    def replay(self, grade: Grade, check, pasteable: bool = False) -> str:
        if not self.seed_shown:
            return (
                f"Replay in your kit: {_code_span(check_command(check.stage))} (its public cases; "
                "the inputs that graded you stay hidden)"
            )
        if self.kit:
            paste = "paste the input above into a notebook cell, or run " if pasteable else "run "
            return (
                f"Seed {grade.seed}; replay in your kit: {paste}{_code_span(check_command(check.stage))} "
                "(the kit's public cases; both run on your own earlier stages)"
            )
        command = (
            f"{VENV_PYTHON} -m grader grade {shlex.quote(self.path or grade.path)} "
            f"--seed {grade.seed} --only {check.label}"
        )
        return f"Seed {grade.seed}; replay: {_code_span(command)}"

    def seed(self, grade: Grade) -> str:
        named = f" for {_code_span(self.path)}" if self.kit and self.path else ""
        return named + (f" (seed {grade.seed})" if self.seed_shown else "")


def for_student(path_shown: str) -> Audience:
    """A student reading `class` output with the kit alone, their file named path_shown (as they handed it in)."""
    return Audience(path=path_shown, kit=True)


INSTRUCTOR = Audience()
INPUTS_SHOWN = ("after_due_date", "after_published", "hidden", "visible")  # Gradescope's visibility values
_SHOWN_WHEN = {
    "after_due_date": "is shown after the due date",
    "after_published": "is shown once the grades are published",
    "hidden": "stays hidden",
}


def _code_span(text: str) -> str:
    """Inline code that a backtick in a student's path cannot close early (CommonMark: a longer fence)."""
    text = clean_text(text, limit=10**9)
    fence = "`" * (1 + max((len(run) for run in re.findall("`+", text)), default=0))
    return f"{fence} {text} {fence}" if "`" in text else f"`{text}`"


def _cut(text: str, limit: int) -> str:
    """Text for inside one of our code blocks: a student's string must not close it. A text of megabytes is
    cut before it is cleaned a character at a time: each character shows as one or more."""
    cut = len(text) > limit + 3
    text = clean_text(text[: limit + 3], limit=10**9).replace("```", "`\u200b``")
    return text[:limit] + " …(cut)" if cut or len(text) > limit else text


_MARKDOWN = re.compile(r"([\\`*_\[\]|~])")  # what makes code, emphasis, links, tables or strike-through


def _prose(text: str) -> str:
    """Text for a Markdown line outside a code block: no HTML, no links, no emphasis a student chose."""
    return _MARKDOWN.sub(r"\\\1", html.escape(clean_text(text, limit=10**9), quote=False))


def check_output(result: CheckResult, grade: Grade, audience: Audience = INSTRUCTOR, limit: int = FIELD_LIMIT) -> str:
    """One check's feedback, in Markdown."""
    check = result.check
    said = _prose(result.message if result.message.endswith((".", "?", "!", ")")) else result.message + ".")
    if result.passed:
        return f"Passed ({check.points}/{check.points}): {said}"
    why = not_run(grade)
    if why:  # said once, in the summary: here one line
        return f"Not run (0/{check.points}): {_prose(why)}."
    lines = [f"Failed (0/{check.points}): {said}"]
    if result.mismatch and audience.inputs_shown == "visible":
        lines += ["", failing_input(result, limit)]
    elif result.mismatch:
        lines += ["", f"The smallest failing input the grader found {_SHOWN_WHEN[audience.inputs_shown]}."]
    notebook = STAGES[check.stage].notebook
    lines += [
        "",
        f"The rule ({notebook}): {check.rule.text}",
        "",
        f"Hint: {check.hint}",
        "",
        audience.replay(
            grade,
            check,
            pasteable=result.mismatch is not None and result.mismatch.pasteable and audience.inputs_shown == "visible",
        ),
    ]
    return "\n".join(lines)


def not_run(grade: Grade) -> str | None:
    """Why no check of the grade could run at all, in a few words, or None: tools.py does not import, or
    its process died before answering in every stage (os._exit at import), and the reason is said once."""
    if grade.broken is not None:
        return "tools.py does not import"
    if not grade.results or any(result.passed or result.mismatch for result in grade.results):
        return None
    causes = {result.message.removeprefix("not run: ") for result in grade.results}
    died = any(result.died for result in grade.results)
    return causes.pop() if died and len(causes) == 1 else None


def _why_not_run(grade: Grade) -> str:
    """The summary's sentence for a grade no check could run in (not_run), or ""."""
    if grade.broken is not None:
        return f"**tools.py does not import**, so no check could run: {_prose(grade.broken)}"
    cause = not_run(grade)
    return f"**No check could run**: {_prose(cause)}" if cause else ""


def failing_input(result: CheckResult, limit: int = FIELD_LIMIT) -> str:
    """The smallest failing input a check found, with what was expected and what came back, in Markdown."""
    failure = result.mismatch
    assert failure is not None
    return "\n".join(
        [
            "The smallest failing input the grader found:"
            if failure.pasteable
            else "The smallest failing input the grader found, as its check writes it (it does not run pasted alone):",
            "",
            "```python",
            _cut(failure.shown, limit * INPUT_SCALE),
            "```",
            "",
            "```",
            f"expected: {_cut(failure.expected, limit)}",
            f"got:      {_cut(failure.got, limit)}",
            "```",
        ]
    )


def _tests(result: CheckResult, grade: Grade, audience: Audience, limit: int) -> list[dict]:
    """A check's entries in results.json: its score, visible; and the failing input in a 0-point entry
    of its own where it is shown later."""
    check = result.check
    scored = {
        "name": check.title,
        "number": check.label,
        "score": result.score,
        "max_score": check.points,
        "status": "passed" if result.passed else "failed",
        "output": check_output(result, grade, audience, limit),
        "output_format": "md",
        "tags": [f"stage{check.stage}"],
        "visibility": "visible",
    }
    if result.passed or result.mismatch is None or audience.inputs_shown == "visible":
        return [scored]
    shown = {
        **scored,
        "name": f"{check.title}: the failing input",
        "score": 0,
        "max_score": 0,
        "output": failing_input(result, limit),
        "visibility": audience.inputs_shown,
    }
    return [scored, shown]


def results_json(grade: Grade, audience: Audience = INSTRUCTOR) -> dict:
    """Gradescope's results.json for a grade, kept under 1 MB."""
    limit = FIELD_LIMIT
    while True:
        tests = [test for result in grade.results for test in _tests(result, grade, audience, limit)]
        results = {
            "score": grade.score,
            "execution_time": round(grade.seconds, 3),
            "output": summary(grade, audience),
            "output_format": "md",
            "visibility": "visible",
            "stdout_visibility": "hidden",
            "tests": tests,
        }
        if len(json.dumps(results, ensure_ascii=False).encode()) < MAX_RESULTS_BYTES or limit < 50:
            return results
        limit //= 4


def summary(grade: Grade, audience: Audience = INSTRUCTOR) -> str:
    """Total and per-stage scores, in Markdown."""
    maxima: dict[int, int] = {}
    for result in grade.results:
        maxima[result.check.stage] = maxima.get(result.check.stage, 0) + result.check.points
    scores = grade.stage_scores()
    rows = [f"| {stage} · {STAGE_TITLES[stage]} | {scores[stage]} / {maxima[stage]} |" for stage in sorted(maxima)]
    why = _why_not_run(grade)
    return "\n".join(
        [
            f"**{grade.score} / {grade.max_score}**{audience.seed(grade)}",
            *(["", why] if why else []),
            "",
            "| stage | score |",
            "|---|---|",
            *rows,
        ]
    )


def feedback_markdown(grade: Grade, audience: Audience = INSTRUCTOR) -> str:
    return feedback_title(grade.score, grade.max_score) + feedback_body(grade, audience)


def feedback_title(score: float, most: int) -> str:
    """feedback.md's first line: the score a student is given (a class's final, once its term is applied)."""
    return f"# agtool lab: {score:g} / {most}\n"


def feedback_body(grade: Grade, audience: Audience = INSTRUCTOR) -> str:
    """feedback.md after its title: the summary, then each check (a class puts the term between)."""
    lines = ["", summary(grade, audience)]
    why = not_run(grade)
    if why:  # one line a stage: every check of it failed for the reason the summary gives
        for number in dict.fromkeys(result.check.stage for result in grade.results):
            labels = [result.check.label for result in grade.results if result.check.stage == number]
            span = labels[0] if len(labels) == 1 else f"{labels[0]} to {labels[-1]}"
            lines += ["", f"## Stage {number} · {STAGE_TITLES[number]}", "", f"✗ {span}: not run: {_prose(why)}"]
        return "\n".join(lines) + "\n"
    stage = None
    for result in grade.results:
        if result.check.stage != stage:
            stage = result.check.stage
            lines += ["", f"## Stage {stage} · {STAGE_TITLES[stage]}"]
        mark = "✓" if result.passed else "✗"
        lines += [
            "",
            f"### {mark} {result.check.label} {result.check.title}",
            "",
            check_output(result, grade, audience),
        ]
    return "\n".join(lines) + "\n"


_UMASK = os.umask(0)
os.umask(_UMASK)


def write_atomically(path: str | os.PathLike[str], text: str | bytes) -> None:
    """Write text (or bytes) to path so that a reader, or a crash, never sees half a file."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=os.path.basename(path))
    try:
        with os.fdopen(handle, "wb") as file:
            # backslashreplace: a lone surrogate that got this far is written as its escape, never a crash
            file.write(text.encode("utf-8", "backslashreplace") if isinstance(text, str) else text)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, 0o666 & ~_UMASK)  # mkstemp makes it 0600: give it the usual mode
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def write_results(grade: Grade, path: str | os.PathLike[str], audience: Audience = INSTRUCTOR) -> None:
    write_atomically(path, json.dumps(results_json(grade, audience), indent=1, ensure_ascii=False) + "\n")


def write_feedback(grade: Grade, path: str | os.PathLike[str], audience: Audience = INSTRUCTOR) -> None:
    write_atomically(path, feedback_markdown(grade, audience))


# ── check(): a table in Jupyter, text elsewhere ──────────────────────────────


def _row_detail(result: CheckResult) -> str:
    if result.passed or not result.mismatch:
        return result.message
    failure = result.mismatch
    return f"{failure.shown}\n  expected: {failure.expected}\n  got:      {failure.got}\n  hint: {result.check.hint}"


def text_table(grade: Grade) -> str:
    lines = [f"{grade.score} / {grade.max_score} points"]
    for result in grade.results:
        mark = "✓" if result.passed else "✗"
        lines.append(f"{mark} {result.check.label} {result.check.title}  ({result.score}/{result.check.points})")
        if not result.passed:
            lines += ["    " + line for line in _row_detail(result).splitlines()]
    return "\n".join(lines)


def html_table(grade: Grade) -> str:
    rows = []
    for result in grade.results:
        colour = "#e6f4ea" if result.passed else "#fce8e6"
        detail = html.escape(_cut(_row_detail(result), FIELD_LIMIT * (INPUT_SCALE + 2)))
        rows.append(
            f'<tr style="background:{colour}"><td>{"✓" if result.passed else "✗"}</td>'
            f"<td>{result.check.label}</td><td>{html.escape(result.check.title)}</td>"
            f"<td>{result.score}/{result.check.points}</td>"
            f'<td style="text-align:left"><pre style="margin:0;white-space:pre-wrap">{detail}</pre></td></tr>'
        )
    header = (
        "".join(f"<th>{name}</th>" for name in ("", "check", "what", "points"))
        + '<th style="text-align:left">details</th>'
    )
    return f"<p><b>{grade.score} / {grade.max_score} points</b></p><table><tr>{header}</tr>{''.join(rows)}</table>"
