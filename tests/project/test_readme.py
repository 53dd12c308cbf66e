"""The README and docs/ are true: what the map names exists, its import rules hold, links and commands work.

The README is the front door and docs/ holds the rest; a map with a path that moved, a
command that was renamed, a link to a heading that was retitled or an import rule nobody
keeps is worse than none. So the map (the README's "The map", and docs/contributing.md)
names only paths that exist and modules that import, every decorator keyword it names is
one Checklist.check takes, and its import rules are read off the source; every relative
link of README.md and docs/*.md reaches a file and, after '#', a heading of it; every
`python -m` and `make` command they name is the project's, with options it has; and the
README stays a front door, under 12,000 bytes. Measured figures come from the benchmarks'
output: the pages state goals and budgets, each as the code holds it.
"""

import argparse
import ast
import importlib
import importlib.util
import inspect
import posixpath
import re
from pathlib import Path

import pytest
from hypothesis import strategies as st

from agtool.rules import RULES, Rule
from agtool.syllabus import STAGES
from grader.kit.pasteable import Setting
from grader.kit.probing import Checklist
from tests.lab.test_lesson_on_top import NAMED_PLACE

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
PAGES = {
    path.relative_to(ROOT).as_posix(): path.read_text()
    for path in [ROOT / "README.md", *sorted(ROOT.glob("docs/*.md"))]
}
FRONT_DOOR_BYTES = 12_000
FENCED = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
FILE_NAME = re.compile(r"^[\w.-]+\.(py|toml|txt|md|ipynb|json)$|^Makefile$")
MODULE_NAME = re.compile(r"^(agtool|grader)(\.\w+)+$")
COMMAND = re.compile(r"^((\.venv/bin/)?python -m |make )")


def section(text: str, heading: str) -> str:
    """The text under '## heading', up to the next heading of its level."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


MAP = section(README, "The map")
CONTRIBUTING = PAGES["docs/contributing.md"]
SPANS = re.findall(r"`([^`\n]+)`", MAP + CONTRIBUTING)  # what the map claims, wherever it lives


def prose(text: str) -> str:
    """A page without its fenced blocks."""
    return FENCED.sub("", text)


def commands_of(text: str) -> list[str]:
    """The commands a page names: its backticked spans, and the lines of its ```sh blocks, without comments."""
    spans = re.findall(r"`([^`\n]+)`", prose(text))
    lines = [
        line.split(" #")[0].strip()
        for language, block in FENCED.findall(text)
        if language == "sh"
        for line in block.splitlines()
        if not line.lstrip().startswith("#")
    ]
    return [command for command in spans + lines if COMMAND.match(command)]


def paths() -> list[str]:
    return [span for span in SPANS if " " not in span and ("/" in span or FILE_NAME.match(span))]


def commands() -> list[list[str]]:
    return [span.split() for span in SPANS if re.match(r"(\.venv/bin/)?python -m ", span)]


def test_the_map_is_there_and_names_things():
    assert len(paths()) >= 20 and commands(), "the map, docs/contributing.md, or their backticks, went missing"


def test_the_readme_is_a_front_door():
    size = len(README.encode())
    assert size < FRONT_DOOR_BYTES, f"README.md is {size} bytes: move a section to docs/ and link it"


@pytest.mark.parametrize("path", paths())
def test_every_path_it_names_exists(path):
    pattern = path.rstrip("/").replace("stageN", "stage[0-9]")  # a stage's module, any stage
    assert list(ROOT.glob(pattern)), f"the map names {path}, which is not in the repository"


def named(name: str) -> object:
    """What a dotted name stands for: a module (`grader.kit.probing`), or a name in one (`agtool.syllabus.STAGES`)."""
    words = name.split(".")
    for cut in range(len(words), 0, -1):
        try:
            found = importlib.import_module(".".join(words[:cut]))
        except ModuleNotFoundError as missing:
            if missing.name != ".".join(words[:cut]):
                raise  # the module is there, and what it imports is not
            continue
        for word in words[cut:]:
            found = getattr(found, word)
        return found
    raise ModuleNotFoundError(name)


@pytest.mark.parametrize("name", [span for span in SPANS if MODULE_NAME.match(span)])
def test_every_module_or_name_it_names_is_there(name):
    named(name)


@pytest.mark.parametrize("words", commands(), ids=" ".join)
def test_every_path_its_commands_name_exists(words):
    for word in words[words.index("-m") + 2 :]:
        if "/" in word and not word.startswith("kit/"):  # kit/ is the folder the command writes
            assert (ROOT / word).exists(), word


def test_the_check_keywords_it_names_are_what_stage_check_takes():
    taken = set(inspect.signature(Checklist.check).parameters)
    named = {keyword for span in SPANS for keyword in re.findall(r"(?:^|[(,\s])(\w+)=", span)}
    assert named and named <= taken, named - taken


def test_a_check_is_titled_by_its_docstring_and_cannot_go_without(monkeypatch):
    """As the section says: the docstring's first line is the title, the rest the hint; the rule, rules.py's."""
    stage = Checklist(
        number=9, request=dict, show=lambda case: Setting(), expect=repr, compare=lambda case, expected, seen: None
    )
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


def test_a_stages_checks_module_is_found_by_its_number_with_nothing_to_register():
    """As "Add a stage" says: CHECKLISTS imports checks.stageN for each number of STAGES; no list names them."""
    from grader.kit.checks import CHECKLISTS

    checks = ROOT / "grader" / "kit" / "checks"
    assert {path.name for path in checks.glob("stage*.py")} == {f"stage{number}.py" for number in STAGES}
    for number in STAGES:
        assert CHECKLISTS[number] is importlib.import_module(f"grader.kit.checks.stage{number}").CHECKLIST
    assert not re.search(r"stage\d", (checks / "__init__.py").read_text()), "a stage is named in checks/__init__.py"
    flat = " ".join(CONTRIBUTING.split())
    assert "nothing registers it: `CHECKLISTS` in `grader/kit/checks/__init__.py` imports `stageN`" in flat


def test_the_markers_it_quotes_stand_in_the_student_module():
    tools = (ROOT / "agtool" / "tools.py").read_text()
    for marker in [span for span in SPANS if span.startswith("# ")]:
        pattern = re.sub(r"(?<![A-Za-z])N(?![A-Za-z])", r"\\d", re.escape(marker))  # Stage N: any stage
        assert re.search(pattern, tools), marker


# ── links and commands of every page ─────────────────────────────────────────


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    return {slug(heading) for heading in re.findall(r"^#{1,6} (.+)$", prose(text), re.M)}


def links() -> list[tuple[str, str]]:
    """(page, target) for every link of every page that is not to the web, once each; inline code is no link."""
    found = []
    for page, text in PAGES.items():
        plain = re.sub(r"`[^`\n]*`", "", prose(text))
        found += [(page, target) for target in re.findall(r"\]\(([^)\s]+)\)", plain) if "://" not in target]
    return list(dict.fromkeys(found))


def test_the_front_door_leads_to_every_page_of_docs():
    linked = {posixpath.normpath(target.split("#")[0]) for page, target in links() if page == "README.md"}
    assert {page for page in PAGES if page != "README.md"} <= linked, "a page of docs/ that README.md does not link"


@pytest.mark.parametrize(("page", "target"), links(), ids=[f"{page} -> {target}" for page, target in links()])
def test_every_link_reaches_a_file_and_its_heading(page, target):
    path, _, anchor = target.partition("#")
    reached = (ROOT / page).parent / path if path else ROOT / page
    assert reached.resolve().is_file(), f"{page} links to {target}: no such file"
    if anchor:
        assert anchor in anchors(reached.read_text()), f"{page} links to {target}: no such heading"


def make_rules(makefile: Path) -> set[str]:
    """A Makefile's rules; a `{rule}` line of the kit's template is the project's rule of that name (release.py)."""
    text = makefile.read_text()
    own = set(re.findall(r"^([\w.-]+):(?!=)", text, re.M))
    project = set(re.findall(r"^([\w.-]+):(?!=)", (ROOT / "Makefile").read_text(), re.M))
    return own | (set(re.findall(r"^\{(\w+)\}$", text, re.M)) & project)


KIT_PAGES = {"docs/student-kit.md"}  # names the kit's own rules too


PAGE_COMMANDS = list(dict.fromkeys((page, command) for page, text in PAGES.items() for command in commands_of(text)))


@pytest.mark.parametrize(
    ("page", "command"), PAGE_COMMANDS, ids=[f"{page}: {command}" for page, command in PAGE_COMMANDS]
)
def test_every_command_a_page_names_is_the_projects(page, command):
    words = command.split()
    if words[0] == "make":
        rules = make_rules(ROOT / "Makefile")
        if page in KIT_PAGES:
            rules |= make_rules(ROOT / "grader" / "instructor" / "kit_template" / "Makefile")
        assert words[1] in rules, f"{page} names `{command}`, and no Makefile has that rule"
        return
    module = words[words.index("-m") + 1]
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin, f"{page} names `{command}`: no module {module}"
    if not MODULE_NAME.match(module) and module not in ("agtool", "grader"):
        return  # another project's (pytest): its options are its own
    options = set(re.findall(r"(?<![\w-])--[\w-]+", command))
    if module == "grader":
        told = grader_help(words[words.index("-m") + 2], page, command)
    else:
        told = Path(spec.origin).read_text()
    assert all(option in told for option in options), (page, command, {o for o in options if o not in told})


def grader_help(name: str, page: str, command: str) -> str:
    """`python -m grader NAME --help`'s text: the command's options, as its parser has them."""
    from grader.instructor.cli import COMMANDS as INSTRUCTOR
    from grader.kit.check_command import COMMANDS as KIT

    assert name in {**KIT, **INSTRUCTOR}, f"{page} names `{command}`: python -m grader has no command {name!r}"
    parser = argparse.ArgumentParser(prog=name)
    {**KIT, **INSTRUCTOR}[name][1](parser)
    return parser.format_help()


def test_the_goals_the_pages_state_are_the_benchmarks_own():
    """Figures drift and come from the benchmarks' output; the pages state the goals, and those the code holds."""
    from grader.instructor import check_speed, grading_speed

    ratio = f"1/{round(1 / grading_speed.GOAL)}"
    flat = {page: " ".join(text.split()) for page, text in PAGES.items()}
    assert f"(goal {ratio})" in flat["README.md"] and f"its goal of {ratio}" in flat["docs/contributing.md"]
    benches = " ".join(section(CONTRIBUTING, "The benchmarks").split())
    for goal in (f"(goal {check_speed.FIRST:g} s)", f"({check_speed.WARM:g} s;", f"({check_speed.TERMINAL:g} s)"):
        assert goal in benches, goal
    ratios = {page: set(re.findall(r"\b1/\d+\b", text)) - {ratio} for page, text in flat.items()}
    assert not any(ratios.values()), f"a measured ratio written as prose: {ratios}"


def test_the_budgets_the_threat_model_states_are_the_sandboxs():
    """A budget is a design, not a measure: the page states each as the code holds it (Limits' defaults)."""
    from grader.instructor.sandbox import budget, confine
    from grader.instructor.sandbox.session import Limits
    from grader.kit import public

    limits, mb = Limits(), 1024 * 1024
    model = " ".join(PAGES["docs/threat-model.md"].split())
    for stated in (
        f"every {budget.EVERY:g} s while it waits",
        f"Per stage: {limits.answer_seconds:g} s of wall clock an answer; {limits.stage_seconds:g} s of CPU in all",
        f"{limits.wall_seconds:g} s of wall clock is the backstop",
        f"{limits.memory_bytes // mb} MB of memory of its own",
        f"capped at {limits.memory_bytes // mb} MB above what it started with",
        f"{confine.PROCESSES} processes and threads; {limits.output_bytes // mb} MB in any one file",
        f"{limits.workdir_bytes // mb} MB, {confine.ENTRIES:,} entries and {budget.DEPTH} levels of folders",
        f"about {public.DRAWN} cases drawn with a fixed release seed",
    ):
        assert stated in model, stated


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


def row(part: str) -> str:
    """The map's table row of a part."""
    (line,) = [line for line in MAP.splitlines() if line.startswith(f"| {part}")]
    return line


def test_agtool_never_imports_grader():
    for path in sorted((ROOT / "agtool").rglob("*.py")):
        assert not any(within(name, "grader") for name in imported(path)), path.relative_to(ROOT)


def test_the_lab_reaches_the_student_module_only_through_its_named_place():
    """The agtool/ row's rule is the one tests/lab/test_lesson_on_top.py reads off the source."""
    assert f"the student's `agtool/tools.py` only through `{NAMED_PLACE}`" in row("`agtool/`").split("|")[3]


def test_the_kit_reaches_the_instructor_only_through_its_trusted_hook():
    reaching = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "grader" / "kit").rglob("*.py")
        if any(within(name, "grader.instructor") for name in imported(path))
    }
    assert reaching == {"grader/kit/oracle_access.py"}


def test_the_process_boundary_imports_no_judge():
    """The boundary's row: of the grader, only itself and the kit modules the row names."""
    allowed = {
        path[: -len(".py")].replace("/", ".")
        for path in re.findall(r"`(grader/kit/\w+\.py)`", row("`grader/kit/boundary/`"))
    }
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
    named = re.findall(r"`([^`]+)`", row("the sandboxed child").split("|")[3].split("never")[0])
    modules = {span for span in named if MODULE_NAME.match(span)}
    modules |= {span[: -len(".py")].replace("/", ".") for span in named if span.startswith("grader/kit/")}
    assert modules and modules <= set(preload), modules - set(preload)
