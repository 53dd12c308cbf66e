"""What a student of a class is handed: OUT/students/<student>/feedback.md and results.json, with their final.

The grade (raw) is kept in the student's record, OUT/students/<student>/graded.json: Gradescope's
results and the feedback's text after its title, as the grader wrote them. The term (overrides, a
late policy, extensions: grader/instructor/term.py) is applied after grading, on every run; each
run then writes the two files the student reads from the record and their gradebook line, so that
they show the number gradebook.csv and canvas.csv give, and how it came from the checks:

    # agtool lab: 55 / 100

    **Final: 55 / 100** = 85 (the checks) - 30 late + 0 override
    - late 32 h, 2 day(s) started: -20 …

A change of the term changes them on the next run, without grading again; a file whose text is
the same is not written again.
"""

import json
from pathlib import Path

from grader.instructor.gradebook import Line
from grader.kit.report import feedback_title, write_atomically


def final_markdown(line: Line, most: int) -> str:
    """How the final came from the checks, in Markdown: the gradebook's numbers and notes, as it has them;
    empty when the final is the checks' total and nothing is noted."""
    final = line.final
    if not line.notes and final.final == final.raw:
        return ""
    said = (
        f"**Final: {final.final:g} / {most}** = {final.raw:g} (the checks) - {final.late:g} late "
        f"+ {final.override:g} override"
    )
    return "\n".join([said, *(f"- {_plain(note)}" for note in line.notes)])


def _plain(note: str) -> str:
    """A note as a Markdown list item shows it: its text, never markup an instructor's reason happens to hold."""
    return "".join(f"\\{char}" if char in "\\`*_[]<|~" else char for char in note)


def student_feedback(body: str, line: Line, most: int) -> str:
    """feedback.md: the final as its title, how it came, then the grade's feedback as written (body)."""
    said = final_markdown(line, most)
    return feedback_title(line.final.final, most) + (f"\n{said}\n" if said else "") + body


def student_results(results: dict, line: Line, most: int) -> dict:
    """results.json: the grade's, with the final as its score and how it came before its summary."""
    said = final_markdown(line, most)
    output = f"{said}\n\n{results['output']}" if said else results["output"]
    return {**results, "score": line.final.final, "output": output}


def write_handout(folder: Path, record: dict, line: Line, most: int) -> None:
    """A student's feedback.md and results.json, from their record (graded.json) and gradebook line."""
    _write_if_changed(folder / "feedback.md", student_feedback(record["feedback"], line, most))
    results = student_results(record["results"], line, most)
    _write_if_changed(folder / "results.json", json.dumps(results, indent=1, ensure_ascii=False) + "\n")


def _write_if_changed(path: Path, text: str) -> None:
    """path holding text: a file that holds it already is left alone (a rerun with nothing new writes nothing)."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except (OSError, UnicodeDecodeError):
        pass
    write_atomically(path, text)
