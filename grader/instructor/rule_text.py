"""Writes agtool/rules.py into the texts a student reads: the notebooks, and pointers in agtool/tools.py.

Each rule is written once, in agtool/rules.py, and a student reads it once, in its stage's notebook: one
line a check, `- **2.4** <rule> (<example>)`, in the folded appendix "What the grade judges" (a markdown
cell that begins APPENDIX). agtool/tools.py points there, never repeating the rules: the docstring line
that begins `The rules: ` and the comment `# The rules of TOOLS: ` (FIXES likewise) become
`The rules: notebooks/02_check_args.ipynb, "What the grade judges" (2.1 to 2.8).` The rest of those
files is hand-written. tests/grader/test_rules.py fails while a file differs from what this writes:

    python -m grader.instructor.rule_text          # write them
    python -m grader.instructor.rule_text --check  # say which are stale, change nothing
"""

import argparse
import ast
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from agtool.rules import RULES, Rule
from agtool.syllabus import STAGES

ROOT = Path(__file__).resolve().parents[2]
MODULE = "agtool/tools.py"
DOCSTRING_POINTER = "The rules: "
COMMENT_POINTER = "# The rules of {where}: "
APPENDIX = "<details>\n<summary>What the grade judges</summary>\n\n"
NOTEBOOK_LINE = re.compile(r"- \*\*(\d+)\.(\d+)\*\* ")


class NoPlaceForRules(Exception):
    """A file has no place for the rules this module writes into it."""


def by_place() -> dict[str, list[tuple[str, Rule]]]:
    places: dict[str, list[tuple[str, Rule]]] = {}
    for label, rule in RULES.items():
        places.setdefault(rule.where, []).append((label, rule))
    return places


def labels_text(labels: list[str]) -> str:
    """The labels, a run of three or more consecutive checks joined: '2.1 to 2.8', '1.5, 1.6', '6.2 to 6.7, 6.9'."""
    runs: list[list[tuple[int, int]]] = []
    for stage, number in (tuple(map(int, label.split("."))) for label in labels):
        if runs and runs[-1][-1] == (stage, number - 1):
            runs[-1].append((stage, number))
        else:
            runs.append([(stage, number)])
    spelt = [[f"{stage}.{number}" for stage, number in run] for run in runs]
    return ", ".join(", ".join(run) if len(run) < 3 else f"{run[0]} to {run[-1]}" for run in spelt)


def pointer(rules: list[tuple[str, Rule]]) -> str:
    """Where a student reads these rules: the stage's notebook, its folded list, their labels."""
    stage = int(rules[0][0].split(".")[0])
    labels = labels_text([label for label, _ in rules])
    return f'notebooks/{STAGES[stage].notebook}, "What the grade judges" ({labels}).'


def _docstrings(source: str) -> dict[str, ast.Constant]:
    tree = ast.parse(source)
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and ast.get_docstring(node) is not None:
            first = node.body[0]
            assert isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            found[node.name] = first.value
    return found


def module_text(source: str) -> str:
    """tools.py with each place's pointer line (in its docstring, or its comment) written anew."""
    lines = source.split("\n")
    docstrings = _docstrings(source)
    for where, rules in by_place().items():
        if where in docstrings:
            node = docstrings[where]
            assert node.end_lineno is not None
            head, place = DOCSTRING_POINTER, f"the docstring of {where}"
            found = [i for i in range(node.lineno - 1, node.end_lineno) if lines[i].lstrip().startswith(head)]
        else:
            head, place = COMMENT_POINTER.format(where=where), f"the comment on {where}"
            found = [i for i, line in enumerate(lines) if line.startswith(head)]
        if len(found) != 1:
            raise NoPlaceForRules(
                f"{MODULE}: {place} needs one line that begins {head.strip()!r}: its pointer to the rules goes there"
            )
        line = lines[found[0]]
        lines[found[0]] = line[: line.index(head)] + head + pointer(rules)
    return "\n".join(lines)


def notebook_line(label: str, rule: Rule) -> str:
    example = f" ({rule.example})" if rule.example else ""
    return f"- **{label}** {rule.text}{example}"


def notebook_text(text: str, stage: int) -> str:
    """A notebook's JSON text with its stage's list of rules written anew (its folded appendix holds it)."""
    notebook, name = json.loads(text), f"notebooks/{STAGES[stage].notebook}"
    cells = [
        cell
        for cell in notebook["cells"]
        if cell["cell_type"] == "markdown"
        and any(NOTEBOOK_LINE.match(line) for line in "".join(cell["source"]).split("\n"))
    ]
    if len(cells) != 1:
        raise NoPlaceForRules(
            f"{name}: one markdown cell must hold the list of rules (lines '- **{stage}.1** ...'); {len(cells)} do"
        )
    source = "".join(cells[0]["source"])
    if not source.startswith(APPENDIX):
        raise NoPlaceForRules(
            f"{name}: the list of rules belongs in a folded appendix, a cell that begins {APPENDIX!r}"
        )
    lines = source.split("\n")
    listed = [i for i, line in enumerate(lines) if NOTEBOOK_LINE.match(line)]
    if listed != list(range(listed[0], listed[-1] + 1)):
        raise NoPlaceForRules(f"{name}: the list of rules has other lines inside it")
    rules = [(label, rule) for label, rule in RULES.items() if label.split(".")[0] == str(stage)]
    lines[listed[0] : listed[-1] + 1] = [notebook_line(label, rule) for label, rule in rules]
    cells[0]["source"] = "\n".join(lines).splitlines(keepends=True)
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def drawn(root: Path) -> Iterable[tuple[Path, str]]:
    """(file, the text it should hold) for the module and each stage's notebook, in root (the checkout)."""
    yield root / MODULE, module_text((root / MODULE).read_text())
    for number, stage in STAGES.items():
        path = root / "notebooks" / stage.notebook
        yield path, notebook_text(path.read_text(), number)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.instructor.rule_text", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="name the stale files, change nothing (exit 1 if any)")
    options = parser.parse_args(argv)
    try:
        stale = [(path, text) for path, text in drawn(ROOT) if path.read_text() != text]
    except NoPlaceForRules as error:
        print(f"rule_text: {error}", file=sys.stderr)
        return 2
    for path, text in stale:
        if options.check:
            print(f"{path.relative_to(ROOT)}: its rules differ from agtool/rules.py", file=sys.stderr)
        else:
            path.write_text(text)
            print(f"wrote the rules into {path.relative_to(ROOT)}")
    return 1 if options.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
