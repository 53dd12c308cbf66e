"""Every check judges what the notebook and agtool/tools.py say, in their words.

Each check names the sentences it judges (`spec=` in grader/kit/checks/stageN.py);
each of them must stand in the stage's notebook and in agtool/tools.py (whitespace,
case and Markdown backticks aside), so that a student who reads either knows every
behaviour the grade judges. A check without such sentences judges something no
student was told.
"""

import json
import re
from pathlib import Path

import pytest

from agtool.syllabus import LESSONS
from grader.kit.checks import STAGES

ROOT = Path(__file__).resolve().parents[1]
CHECKS = [check for stage in STAGES.values() for check in stage.checks]


def normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("`", "").replace("#", "")).strip().lower()


def notebook_text(number: int) -> str:
    cells = json.loads((ROOT / "notebooks" / LESSONS[number].notebook).read_text())["cells"]
    return normal(" ".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"))


MODULE = normal((ROOT / "agtool" / "tools.py").read_text())


@pytest.mark.parametrize("check", CHECKS, ids=[check.label for check in CHECKS])
def test_a_check_judges_only_what_the_notebook_and_the_module_say(check):
    assert check.spec, f"check {check.label} names no sentence of the spec it judges"
    notebook = notebook_text(check.stage)
    for sentence in check.spec:
        assert normal(sentence) in notebook, f"{check.label}: not in {LESSONS[check.stage].notebook}: {sentence!r}"
        assert normal(sentence) in MODULE, f"{check.label}: not in agtool/tools.py: {sentence!r}"


def test_the_registry_numbers_the_notebooks_markers_and_points():
    pyproject = (ROOT / "pyproject.toml").read_text()
    for number, lesson in LESSONS.items():
        assert (ROOT / "notebooks" / lesson.notebook).exists()
        assert f'"{lesson.marker}: ' in pyproject
        assert sum(check.points for check in STAGES[number].checks) == lesson.points
    assert sum(lesson.points for lesson in LESSONS.values()) == 100


def test_labels_are_written_out_and_unique():
    labels = [check.label for check in CHECKS]
    assert len(labels) == len(set(labels))
