"""A stage's notebook is read in one sitting: its reading before the student writes is a third shorter than it was.

grader/instructor/reading.py says what is counted. BEFORE holds the figures measured at
commit 6c6bb1e, when each rule stood in the notebook's prose, in its list and again in the
module's docstrings; the detail now waits in a folded appendix at the notebook's end.
"""

import json

import pytest

from agtool.syllabus import STAGES
from grader.instructor import reading

BEFORE = {1: 1123, 2: 1541, 3: 1197, 4: 593, 5: 1161, 6: 1469}


def test_each_notebooks_reading_is_cut_by_a_third():
    now = reading.readings()
    for number, words in now.items():
        print(f"{STAGES[number].notebook}: {BEFORE[number]} -> {words} words")
    assert {number: words * 3 <= BEFORE[number] * 2 for number, words in now.items()} == dict.fromkeys(STAGES, True)


@pytest.mark.parametrize("number", list(STAGES))
def test_the_notebook_ends_with_what_the_grade_judges_folded(number):
    cells = json.loads((reading.ROOT / "notebooks" / STAGES[number].notebook).read_text())["cells"]
    last = "".join(cells[-1]["source"])
    assert last.startswith("<details>\n<summary>What the grade judges</summary>\n\n"), last[:80]
    assert last.rstrip().endswith("</details>")
    assert f"- **{number}.1** " in last


def test_reading_stops_at_the_first_code_cell_after_what_you_write_and_skips_the_folded_appendix(tmp_path):
    def cell(kind, text):
        return {"cell_type": kind, "metadata": {}, "source": [text]}

    notebook = tmp_path / "nb.ipynb"
    cells = [
        cell("markdown", "# Title\n\nthree words here"),
        cell("code", "tools.f(1)"),
        cell("markdown", "## What you write\n\n<details>\n<summary>hidden</summary>\n\nmany many words\n</details>\n"),
        cell("code", "lab.examples(tools.f, [])"),
        cell("markdown", "never counted"),
    ]
    notebook.write_text(json.dumps({"cells": cells}))
    assert reading.reading(notebook) == 2 + 3 + 1 + 4
    notebook.write_text(json.dumps({"cells": cells[:3]}))
    with pytest.raises(reading.NoWritingCell, match=r"nb\.ipynb: no code cell follows"):
        reading.reading(notebook)
