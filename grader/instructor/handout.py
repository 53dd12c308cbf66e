"""What a student of a class is handed: OUT/students/<student>/feedback.md and results.json, with their final.

Both are views of the student's record (grader/instructor/graded.py), with the term (overrides, a
late policy, extensions: grader/instructor/term.py) applied to it on every run, so that they show
the number gradebook.csv and canvas.csv give, and how it came from the checks:

    # agtool lab: 55 / 100

    **Final: 55 / 100** = 85 (the checks) - 30 late + 0 override
    - late 32 h, 2 day(s) started: -20 …

A change of the term changes them on the next run, without grading again; a file whose text is
the same is not written again.
"""

import json
from pathlib import Path

from grader.instructor.graded import Graded
from grader.kit.report import Audience, feedback_body, feedback_title, for_student, results_json, write_atomically


def final_markdown(graded: Graded, most: int) -> str:
    """How the final came from the checks, in Markdown: the gradebook's numbers and notes, as it has them;
    empty when the final is the checks' total and nothing is noted."""
    term = graded.adjustments
    if not graded.notes and graded.final == graded.raw:
        return ""
    said = (
        f"**Final: {graded.final:g} / {most}** = {graded.raw:g} (the checks) - {term.late:g} late "
        f"+ {term.override:g} override"
    )
    return "\n".join([said, *(f"- {_plain(note)}" for note in graded.notes)])


def _plain(note: str) -> str:
    """A note as a Markdown list item shows it: its text, never markup an instructor's reason happens to hold."""
    return "".join(f"\\{char}" if char in "\\`*_[]<|~" else char for char in note)


def audience(graded: Graded) -> Audience:
    """The student reads their files with the kit alone: their file named as DIR has it, a replay their kit runs."""
    return for_student(graded.shown)


def student_feedback(graded: Graded, most: int) -> str:
    """feedback.md: the final as its title, how it came, then the grade's feedback."""
    said = final_markdown(graded, most)
    body = feedback_body(graded.grade, audience(graded))
    return feedback_title(graded.final, most) + (f"\n{said}\n" if said else "") + body


def student_results(graded: Graded, most: int) -> dict:
    """results.json: the grade's, with the final as its score and how it came before its summary; without
    execution_time, so that the same record gives the same bytes (merged shards equal one run)."""
    results = results_json(graded.grade, audience(graded))
    del results["execution_time"]
    said = final_markdown(graded, most)
    output = f"{said}\n\n{results['output']}" if said else results["output"]
    return {**results, "score": graded.final, "output": output}


def write_handout(folder: Path, graded: Graded, most: int) -> None:
    """A student's feedback.md and results.json, from their record with the term applied."""
    _write_if_changed(folder / "feedback.md", student_feedback(graded, most))
    results = student_results(graded, most)
    _write_if_changed(folder / "results.json", json.dumps(results, indent=1, ensure_ascii=False) + "\n")


def _write_if_changed(path: Path, text: str) -> None:
    """path holding text: a file that holds it already is left alone (a rerun with nothing new writes nothing)."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except (OSError, UnicodeDecodeError):
        pass
    write_atomically(path, text)
