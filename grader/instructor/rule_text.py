"""Writes agtool/rules.py into the texts a student reads: the notebooks and agtool/tools.py.

Each rule is written once, in agtool/rules.py. This module draws two texts from it:

- in each stage's notebook, the list of "What the grade judges": one line a check,
  `- **2.4** <rule> (<example>)`, where the notebook holds such a list already;
- in agtool/tools.py, the last part of each docstring that states rules (after the line
  `The rules, as the grader judges them:`) and the comment below
  `# The rules of TOOLS, as the grader judges them:` (FIXES likewise): the same rules,
  `- 2.4 <rule>`, wrapped, without the notebook's examples.

Everything else in those files is hand-written and left as it is. tests/grader/test_rules.py fails
while a file differs from what this writes, so the three texts can only change together:

    python -m grader.instructor.rule_text          # write them
    python -m grader.instructor.rule_text --check  # say which are stale, change nothing
"""

import argparse
import ast
import json
import re
import sys
import textwrap
from collections.abc import Iterable
from pathlib import Path

from agtool.rules import RULES, Rule
from agtool.syllabus import STAGES

ROOT = Path(__file__).resolve().parents[2]
MODULE = "agtool/tools.py"
DOCSTRING_HEAD = "The rules, as the grader judges them:"
COMMENT_HEAD = "# The rules of {where}, as the grader judges them:"
WIDTH = 96  # the module's prose width; the rule lines are wrapped to it
NOTEBOOK_LINE = re.compile(r"- \*\*(\d+)\.(\d+)\*\* ")
CODE = re.compile(r"`[^`]*`")
KEPT = "\0"  # a space inside a code span, while textwrap breaks the others


class NoPlaceForRules(Exception):
    """A file has no place for the rules this module writes into it."""


def by_place() -> dict[str, list[tuple[str, Rule]]]:
    places: dict[str, list[tuple[str, Rule]]] = {}
    for label, rule in RULES.items():
        places.setdefault(rule.where, []).append((label, rule))
    return places


def wrapped(label: str, rule: Rule, indent: str) -> list[str]:
    """The rule as a bullet, wrapped to WIDTH, never inside a code span (`10 ** 400` stays on one line)."""
    text = CODE.sub(lambda span: span[0].replace(" ", KEPT), f"- {label} {rule.text}")
    lines = textwrap.wrap(
        text,
        WIDTH,
        initial_indent=indent,
        subsequent_indent=indent + "  ",
        break_on_hyphens=False,
        break_long_words=False,
    )
    return [line.replace(KEPT, " ") for line in lines]


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
    """tools.py with the rules of each place written at the end of its docstring or comment."""
    lines = source.split("\n")
    docstrings = _docstrings(source)
    edits = []  # (first line, end line, new lines): the old lines [first, end) give way
    for where, rules in by_place().items():
        if where in docstrings:
            node = docstrings[where]
            assert node.end_lineno is not None
            body = range(node.lineno - 1, node.end_lineno - 1)  # the docstring's lines but its closing one
            heads = [i for i in body if lines[i].strip() == DOCSTRING_HEAD]
            if len(heads) != 1 or lines[node.end_lineno - 1].strip() != '"""':
                raise NoPlaceForRules(
                    f"{MODULE}: the docstring of {where} needs one line {DOCSTRING_HEAD!r}, and its closing quotes "
                    "on a line of their own: the rules are written between them"
                )
            indent = lines[heads[0]][: len(lines[heads[0]]) - len(lines[heads[0]].lstrip())]
            new = [""] + [line for label, rule in rules for line in wrapped(label, rule, indent)]
            edits.append((heads[0] + 1, node.end_lineno - 1, new))
        else:
            head = COMMENT_HEAD.format(where=where)
            heads = [i for i, line in enumerate(lines) if line == head]
            if len(heads) != 1:
                raise NoPlaceForRules(f"{MODULE}: needs one line {head!r} (or a function {where} with a docstring)")
            end = heads[0] + 1
            while end < len(lines) and lines[end].startswith(("# - ", "#   ")):
                end += 1
            new = [line for label, rule in rules for line in wrapped(label, rule, "# ")]
            edits.append((heads[0] + 1, end, new))
    for first, end, new in sorted(edits, reverse=True):
        lines[first:end] = new
    return "\n".join(lines)


def notebook_line(label: str, rule: Rule) -> str:
    example = f" ({rule.example})" if rule.example else ""
    return f"- **{label}** {rule.text}{example}"


def notebook_text(text: str, stage: int) -> str:
    """A notebook's JSON text with its stage's list of rules written anew (one markdown cell holds it)."""
    notebook = json.loads(text)
    rules = [(label, rule) for label, rule in RULES.items() if label.split(".")[0] == str(stage)]
    cells = [
        cell
        for cell in notebook["cells"]
        if cell["cell_type"] == "markdown"
        and any(NOTEBOOK_LINE.match(line) for line in "".join(cell["source"]).split("\n"))
    ]
    if len(cells) != 1:
        raise NoPlaceForRules(
            f"notebooks/{STAGES[stage].notebook}: one markdown cell must hold the list of rules "
            f"(lines '- **{stage}.1** ...'); {len(cells)} do"
        )
    lines = "".join(cells[0]["source"]).split("\n")
    listed = [i for i, line in enumerate(lines) if NOTEBOOK_LINE.match(line)]
    if listed != list(range(listed[0], listed[-1] + 1)):
        raise NoPlaceForRules(f"notebooks/{STAGES[stage].notebook}: the list of rules has other lines inside it")
    lines[listed[0] : listed[-1] + 1] = [notebook_line(label, rule) for label, rule in rules]
    source = "\n".join(lines)
    cells[0]["source"] = source.splitlines(keepends=True)
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def drawn(root: Path | None = None) -> Iterable[tuple[Path, str]]:
    """(file, the text it should hold) for the module and each stage's notebook, in root (the checkout)."""
    root = root or ROOT
    yield root / MODULE, module_text((root / MODULE).read_text())
    for number, lesson in STAGES.items():
        path = root / "notebooks" / lesson.notebook
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
