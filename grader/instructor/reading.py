"""How much a student reads in a stage's notebook before writing: `python -m grader.instructor.reading`.

The student writes in agtool/tools.py, not in the notebook. Each stage's notebook says what
to write under a heading `## What you write` and then runs it: the first code cell after
the first such heading is the first cell that runs what the student wrote, so it is where
reading stops and writing starts. A notebook's reading is the words (runs of non-space
characters) of every markdown and code cell above that cell, without the folded appendix
(`<details>` ... `</details>`), which a student opens only to look a rule up.
"""

import json
import re
import sys
from pathlib import Path

from agtool.syllabus import STAGES

ROOT = Path(__file__).resolve().parents[2]
WRITE_HEADING = re.compile(r"^## What you write\b", re.MULTILINE)
FOLDED = re.compile(r"<details>.*?</details>", re.DOTALL)


class NoWritingCell(Exception):
    """A stage's notebook has no code cell after a `## What you write` heading."""


def reading(notebook: Path) -> int:
    """The words a student reads in notebook before the first code cell after the first `## What you write`."""
    cells = json.loads(notebook.read_text())["cells"]
    heading = next(
        (i for i, cell in enumerate(cells) if cell["cell_type"] == "markdown" and WRITE_HEADING.search(_text(cell))),
        len(cells),
    )
    end = next((i for i in range(heading + 1, len(cells)) if cells[i]["cell_type"] == "code"), None)
    if end is None:
        raise NoWritingCell(f"{notebook.name}: no code cell follows a '## What you write' heading")
    return sum(len(FOLDED.sub(" ", _text(cell)).split()) for cell in cells[:end])


def _text(cell: dict) -> str:
    return "".join(cell["source"])


def readings() -> dict[int, int]:
    """{stage: its notebook's reading}, for each stage of the syllabus."""
    return {number: reading(ROOT / "notebooks" / stage.notebook) for number, stage in STAGES.items()}


def main() -> int:
    for number, words in readings().items():
        print(f"{STAGES[number].notebook:<24} {words:>5} words before the first cell that runs the student's code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
