"""The README's Contributing section is true: what it names exists, and the map's import rules hold.

The section is a map for the next engineer; a map with a path that moved, a command
that was renamed or an import rule nobody keeps is worse than none. So every
backticked path must exist, every module must import, every `python -m` command must
be one the project has, every decorator keyword must be one Checklist.check takes, and
the rules "agtool/ never imports grader/" and "grader/kit/ reaches grader/instructor/
only through grader/kit/oracle_access.py" are read off the source itself.
"""

import ast
import importlib.util
import inspect
import re
from pathlib import Path

import pytest
from hypothesis import strategies as st

from agtool.rules import RULES, Rule
from grader.kit.probing import Checklist
from tests.lab.test_lesson_on_top import NAMED_PLACE

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
SECTION = README[README.index("\n## Contributing") :]
SECTION = SECTION[: SECTION.find("\n## ", 1)] if "\n## " in SECTION[1:] else SECTION
SPANS = re.findall(r"`([^`\n]+)`", SECTION)
FILE_NAME = re.compile(r"^[\w.-]+\.(py|toml|txt|md|ipynb|json)$|^Makefile$")
MODULE_NAME = re.compile(r"^(agtool|grader)(\.\w+)+$")


def paths() -> list[str]:
    return [span for span in SPANS if " " not in span and ("/" in span or FILE_NAME.match(span))]


def commands() -> list[list[str]]:
    return [span.split() for span in SPANS if re.match(r"(\.venv/bin/)?python -m ", span)]


def test_the_section_is_there_and_names_things():
    assert len(paths()) >= 20 and commands(), "the Contributing section, or its backticks, went missing"


@pytest.mark.parametrize("path", paths())
def test_every_path_it_names_exists(path):
    assert (ROOT / path.rstrip("/")).exists(), f"README's Contributing names {path}, which is not in the repository"


@pytest.mark.parametrize("name", [span for span in SPANS if MODULE_NAME.match(span)])
def test_every_module_it_names_can_be_imported(name):
    assert importlib.util.find_spec(name) is not None, name


@pytest.mark.parametrize("words", commands(), ids=" ".join)
def test_every_command_it_names_is_the_projects(words):
    module, rest = words[words.index("-m") + 1], words[words.index("-m") + 2 :]
    assert importlib.util.find_spec(module) is not None, module
    if module == "grader":
        from grader.instructor.cli import COMMANDS as INSTRUCTOR
        from grader.kit.check_command import COMMANDS as KIT

        assert rest[0] in {**KIT, **INSTRUCTOR}, f"python -m grader has no command {rest[0]!r}"
    for word in rest:
        if "/" in word and not word.startswith("kit/"):  # kit/ is the folder the command writes
            assert (ROOT / word).exists(), word


def test_the_check_keywords_it_names_are_what_stage_check_takes():
    taken = set(inspect.signature(Checklist.check).parameters)
    named = {keyword for span in SPANS for keyword in re.findall(r"(?:^|[(,\s])(\w+)=", span)}
    assert named and named <= taken, named - taken


def test_a_check_is_titled_by_its_docstring_and_cannot_go_without(monkeypatch):
    """As the section says: the docstring's first line is the title, the rest the hint; the rule, rules.py's."""
    stage = Checklist(number=9, probe=dict, show=repr, expect=repr, compare=lambda case, expected, seen: None)
    for label in ("9.1", "9.2", "9.4"):
        monkeypatch.setitem(RULES, label, Rule("check_args", f"rule {label}"))

    @stage.check(number=1, points=1)
    def documented():
        """the title a student sees

        the hint, on
        two lines
        """
        return st.just(0)

    (check,) = stage.checks
    assert (check.title, check.hint, check.name) == ("the title a student sees", "the hint, on two lines", "documented")
    assert check.rule.text == "rule 9.1"
    with pytest.raises(ValueError, match=r"check 9\.2 has no docstring"):
        stage.check(number=2, points=1)(lambda: st.just(0))
    with pytest.raises(ValueError, match=r"check 9\.3 judges no rule: write it in agtool/rules.py first"):
        stage.check(number=3, points=1)(documented)
    with pytest.raises(ValueError, match=r"check 9\.4 has no cases: examples=0 needs always="):
        stage.check(number=4, points=1, examples=0)(documented)


def test_the_markers_it_quotes_stand_in_the_student_module():
    tools = (ROOT / "agtool" / "tools.py").read_text()
    for marker in [span for span in SPANS if span.startswith("# ")]:
        pattern = re.sub(r"(?<![A-Za-z])N(?![A-Za-z])", r"\\d", re.escape(marker))  # Stage N: any stage
        assert re.search(pattern, tools), marker


# ── the map's import rules, read off the source ──────────────────────────────


def imported(path: Path) -> set[str]:
    """Every module a file imports: import statements, and importlib.import_module of a literal name."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names.add(node.args[0].value)
    return names


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_agtool_never_imports_grader():
    for path in sorted((ROOT / "agtool").rglob("*.py")):
        assert not any(within(name, "grader") for name in imported(path)), path.relative_to(ROOT)


def test_the_lab_reaches_the_student_module_only_through_its_named_place():
    """The agtool/ row's rule is the one tests/lab/test_lesson_on_top.py reads off the source."""
    (row,) = [line for line in SECTION.splitlines() if line.startswith("| `agtool/`")]
    assert f"the student's `agtool/tools.py` only through `{NAMED_PLACE}`" in row.split("|")[3]


def test_the_kit_reaches_the_instructor_only_through_its_trusted_hook():
    reaching = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "grader" / "kit").rglob("*.py")
        if any(within(name, "grader.instructor") for name in imported(path))
    }
    assert reaching == {"grader/kit/oracle_access.py"}


def test_the_process_boundary_imports_no_judge():
    """The boundary's row: of the grader, only itself and the kit modules the row names."""
    (row,) = [line for line in SECTION.splitlines() if line.startswith("| `grader/kit/boundary/`")]
    allowed = {path[: -len(".py")].replace("/", ".") for path in re.findall(r"`(grader/kit/\w+\.py)`", row)}
    assert allowed == {"grader.kit.errors", "grader.kit.intake"}
    for path in sorted((ROOT / "grader" / "kit" / "boundary").glob("*.py")):
        reaching = {
            name for name in imported(path) if within(name, "grader") and not within(name, "grader.kit.boundary")
        }
        assert reaching <= allowed, (path.relative_to(ROOT), reaching - allowed)


def test_the_child_preloads_what_the_map_says():
    """The sandboxed child's row names what the zygote preloads: each of them is in PRELOAD."""
    zygote = ROOT / "grader" / "instructor" / "sandbox" / "zygote.py"
    (preload,) = [
        ast.literal_eval(node.value)
        for node in ast.parse(zygote.read_text()).body
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["PRELOAD"]
    ]
    (row,) = [line for line in SECTION.splitlines() if line.startswith("| the sandboxed child")]
    named = re.findall(r"`([^`]+)`", row.split("|")[3].split("never")[0])
    modules = {span for span in named if MODULE_NAME.match(span)}
    modules |= {span[: -len(".py")].replace("/", ".") for span in named if span.startswith("grader/kit/")}
    assert modules and modules <= set(preload), modules - set(preload)
