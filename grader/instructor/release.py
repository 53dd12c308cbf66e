"""grader.instructor.release: the student kit, generated from this repository in one deterministic pass.

    python -m grader release OUTDIR [--force]

The kit is what students receive: the notebooks without outputs, `agtool/` with `tools.py` reduced to a
skeleton, the part of the grader that check(N) runs with the public cases it judges, the kit's requirements
pinned by its lock, and a README, Makefile and pyproject.toml drawn from kit_template/. Never the oracle nor
the instructor's commands. Nothing in it is kept by hand, and it is deterministic: files are gathered in
sorted order into memory and written with no timestamps, so two releases are byte-identical.

Skeleton rule
  A `# BEGIN SOLUTION` ... `# END SOLUTION` block inside a function becomes, at the block's indentation,
      raise NotImplementedError("Stage N: <function> — see notebooks/0N_<name>.ipynb")
  where N is the nearest `# ── Stage N ·` header above it. A module-level block is removed, and the
  `# BEGIN PROMPT` ... `# END PROMPT` block right after it is uncommented (its lines lose their leading
  "# "; the markers go). Unbalanced, nested, misplaced or malformed markers are refused, naming file and line.

Leak rule
  A solution line is a line inside a SOLUTION block whose code (no indentation, no trailing comment) holds
  a literal or at least five names, and which neither the reference outside its blocks nor LAB_PART has:
  shorter code (`return None`, `if reason:`) tells nothing about the solution. The kit is refused if any
  line of its text files (for a notebook, of any cell) is a solution line, or if a lab module defines a
  function the student writes under its own name.
"""

import argparse
import ast
import json
import os
import re
import shutil
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

import nbformat

from grader.instructor import lock
from grader.kit import public

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = Path(__file__).resolve().parent / "kit_template"
# A student's first set-up, each way, in seconds and bytes: written by `python -m grader.bench --kit-setup`.
SETUP_FIGURES = TEMPLATES / "setup.json"
STUDENT_MODULE = "agtool/tools.py"
# The lab's part of the student's module, kept apart so the skeleton holds only the lesson;
# it ships as it is, and its code counts as the reference's own code outside the blocks.
LAB_PART = "agtool/contract.py"
# What of the grader ships: grader/kit/ whole and the command line's entry point. Without the oracle,
# check(N) judges the public cases, written into the kit as PUBLIC_CASES.
KIT_GRADER = re.compile(r"grader/(__init__|__main__|kit/.+)\.py")
PUBLIC_CASES = "grader/kit/public_cases.json"

# Never shipped: caches, editor and build debris, and anything a run leaves behind.
SKIPPED = re.compile(
    r"(^|/)(__pycache__|\.ipynb_checkpoints|\.pytest_cache|\.hypothesis|[^/]*\.egg-info)(/|$)"
    r"|\.py[co]$|(^|/)\.DS_Store$"
)

_MARKER = re.compile(r"^\s*#\s*(BEGIN|END)\s+(SOLUTION|PROMPT)\b")
_STAGE = re.compile(r"^# ── Stage (\d+) ·")
_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s+(\w+)")
_ASSIGNED = re.compile(r"^(\w+)\s*[:=]")
_TRAILING_COMMENT = re.compile(r"\s+#(\s.*)?$")
# The tokens the leak rule counts: a literal (string or number), or a name.
_LITERAL = re.compile(r"\"[^\"]*\"|'[^']*'|\b\d")
_NAME = re.compile(r"\b[A-Za-z_]\w*")
MEANINGFUL_NAMES = 5


class ReleaseError(Exception):
    """The kit cannot be made; the message names the file and line, and what to do."""


class OutdirError(ReleaseError):
    """OUTDIR cannot take the kit as asked."""


# ── The skeleton ──────────────────────────────────────────────────────────────


def _blocks(lines: list[str], filename: str) -> list[tuple[str, int, int]]:
    """(kind, begin, end) of every marker block, 0-based line numbers; refuses bad markers."""
    blocks, open_block = [], None
    for number, line in enumerate(lines):
        match = _MARKER.match(line)
        if not match:
            continue
        where = f"{filename}:{number + 1}"
        edge, kind = match.groups()
        if line.strip() != f"# {edge} {kind}":
            raise ReleaseError(f"{where}: malformed marker {line.strip()!r}; write exactly '# {edge} {kind}'")
        if edge == "BEGIN":
            if open_block:
                raise ReleaseError(
                    f"{where}: nested '# BEGIN {kind}': the block opened at line {open_block[1] + 1} is not closed yet"
                )
            open_block = (kind, number)
            continue
        if not open_block or open_block[0] != kind:
            raise ReleaseError(f"{where}: '# END {kind}' without a matching '# BEGIN {kind}' above it")
        begin = open_block[1]
        if _indent(lines[begin]) != _indent(line):
            raise ReleaseError(f"{where}: '# END {kind}' is not indented like its BEGIN at line {begin + 1}")
        blocks.append((kind, begin, number))
        open_block = None
    if open_block:
        raise ReleaseError(f"{filename}:{open_block[1] + 1}: '# BEGIN {open_block[0]}' is never closed")
    return blocks


def solution_blocks(lines: list[str], filename: str) -> list[tuple[int, int]]:
    """(begin, end) of every SOLUTION block, its markers' 0-based line numbers; refuses bad markers."""
    return [(begin, end) for kind, begin, end in _blocks(lines, filename) if kind == "SOLUTION"]


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


@dataclass(frozen=True)
class Replacement:
    """What the skeleton puts in place of one marker block (its lines begin..end, 0-based, markers included)."""

    begin: int
    end: int
    stage: int
    names: tuple[str, ...]  # what the student writes here: the stubbed function, or the names a PROMPT declares
    lines: tuple[str, ...]


def replacements(source: str, filename: str, notebooks: dict[int, str]) -> list[Replacement]:
    """Every marker block of source, in order, with what the skeleton rule puts in its place."""
    lines = source.splitlines(keepends=True)
    planned, after_module_solution = [], None
    for kind, begin, end in _blocks(lines, filename):
        where = f"{filename}:{begin + 1}"
        indent, stage = _indent(lines[begin]), stage_of(lines, begin)
        if stage is None:
            raise ReleaseError(f"{where}: solution block before any '# ── Stage N ·' header")
        if stage not in notebooks:
            raise ReleaseError(f"{where}: no notebooks/{stage:02d}_*.ipynb for stage {stage}")
        if kind == "PROMPT":
            if indent or after_module_solution != begin - 1:
                raise ReleaseError(f"{where}: a PROMPT block must directly follow a module-level SOLUTION block")
            new = [_uncomment(line, filename, n) for n, line in enumerate(lines[begin + 1 : end], begin + 2)]
            names = [match[1] for match in map(_ASSIGNED.match, new) if match]
        elif not indent:
            new, names, after_module_solution = [], [], end
        else:
            names = [_function_above(lines, begin, where)]
            new = [
                f'{indent}raise NotImplementedError("Stage {stage}: {names[0]} — see notebooks/{notebooks[stage]}")\n'
            ]
        planned.append(Replacement(begin, end, stage, tuple(names), tuple(new)))
    return planned


def skeleton(source: str, filename: str, notebooks: dict[int, str]) -> str:
    """The student's starting file: every solution block replaced by the skeleton rule."""
    lines = source.splitlines(keepends=True)
    out, number = [], 0
    for block in replacements(source, filename, notebooks):
        out += lines[number : block.begin] + list(block.lines)
        number = block.end + 1
    return "".join(out + lines[number:])


def stage_table(source: str, filename: str, notebooks: dict[int, str]) -> str:
    """A Markdown table of what the student writes in each stage, drawn from the markers."""
    names: dict[int, list[str]] = {}
    for block in replacements(source, filename, notebooks):
        names.setdefault(block.stage, []).extend(f"`{name}`" for name in block.names)
    rows = [f"| {stage} | `notebooks/{notebooks[stage]}` | {', '.join(names[stage])} |" for stage in sorted(names)]
    return "\n".join(["| stage | notebook | you write |", "|---|---|---|", *rows])


def _uncomment(line: str, filename: str, number: int) -> str:
    if line.strip() == "#":
        return "\n"
    if not line.startswith("# "):
        raise ReleaseError(f"{filename}:{number}: a PROMPT line must start with '# ' (it is uncommented as is)")
    return line[2:]


def stage_of(lines: list[str], number: int) -> int | None:
    """The stage whose `# ── Stage N ·` header is nearest above line `number` (1-based), or at it."""
    for line in reversed(lines[:number]):
        match = _STAGE.match(line)
        if match:
            return int(match.group(1))
    return None


def _function_above(lines: list[str], begin: int, where: str) -> str:
    depth = len(_indent(lines[begin]))
    for line in reversed(lines[:begin]):
        match = _DEF.match(line)
        if match and len(match.group(1)) < depth:
            return match.group(2)
    raise ReleaseError(f"{where}: an indented solution block must sit inside a function")


# ── The leak rule ─────────────────────────────────────────────────────────────


def code_of(line: str) -> str:
    """A line as the leak rule compares it: no indentation, no trailing comment."""
    code = line.strip()
    return "" if code.startswith("#") else _TRAILING_COMMENT.sub("", code)


def is_meaningful(code: str) -> bool:
    """Does finding this code in the kit say something about the solution?"""
    return bool(_LITERAL.search(code)) or len(_NAME.findall(code)) >= MEANINGFUL_NAMES


def solution_lines(source: str, filename: str = STUDENT_MODULE, provided: str | None = None) -> set[str]:
    """The leak rule's solution lines of source (`provided`: the text of LAB_PART, this repository's when not given)."""
    lines = source.splitlines()
    inside: set[int] = set()
    for begin, end in solution_blocks(lines, filename):
        inside.update(range(begin + 1, end))
    provided = (ROOT / LAB_PART).read_text() if provided is None else provided
    outside = {code_of(line) for number, line in enumerate(lines) if number not in inside}
    outside |= {code_of(line) for line in provided.splitlines()}
    return {code for code in map(code_of, (lines[n] for n in inside)) if is_meaningful(code) and code not in outside}


def leaks(files: dict[str, bytes], solution: set[str]) -> list[str]:
    """'path:line: code' for every solution line found in the kit's text files."""
    found = []
    for path, content in files.items():
        for number, line in _text_lines(path, content):
            if code_of(line) in solution:
                found.append(f"{path}:{number}: {line.strip()}")
    return found


def solution_functions(source: str, filename: str = STUDENT_MODULE) -> set[str]:
    """The functions of the reference whose body is a SOLUTION block: what the student writes."""
    lines = source.splitlines()
    return {
        _function_above(lines, begin, f"{filename}:{begin + 1}")
        for begin, _ in solution_blocks(lines, filename)
        if _indent(lines[begin])
    }


def shadows(files: dict[str, bytes], functions: set[str]) -> list[str]:
    """'path:line: ...' for every function a lab module of the kit (agtool/) gives at its top level under
    the name of one the student writes, doing the job itself rather than calling another's: it would
    hand out that stage's solution (the leak rule sees lines; this, names). The grader's own modules
    (grader/kit/) are not the student's to import (grader.kit.boundary.runner.LAB_IMPORTS)."""
    found = []
    for path, content in files.items():
        if path.startswith("agtool/") and path.endswith(".py") and path != STUDENT_MODULE:
            for node in ast.parse(content, filename=path).body:  # what a module gives: its top level
                if (
                    isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                    and node.name in functions
                    and not _delegates(node)
                ):
                    found.append(f"{path}:{node.lineno}: defines {node.name}, which the student writes")
    return found


def _delegates(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Does it call a function of its own name on something else (tools.call_memo, self.session.run)?
    Then it wraps the student's, or another one's; a body that does the job itself calls none."""
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == function.name
        for node in ast.walk(function)
    )


def _text_lines(path: str, content: bytes):
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return  # not text: a picture cannot hold a line of code
    if path.endswith(".ipynb"):
        for index, cell in enumerate(nbformat.reads(text, as_version=4).cells):
            for number, line in enumerate(cell.source.splitlines(), 1):
                yield f"cell {index + 1} line {number}", line
    else:
        yield from enumerate(text.splitlines(), 1)


# ── The kit ───────────────────────────────────────────────────────────────────


# nbval compares a cell so marked with its stored output; the kit stores none (and a student's figures differ).
CHECK_OUTPUT = "# NBVAL_CHECK_OUTPUT"


def strip_notebook(text: str) -> str:
    """A notebook as students get it: no outputs, no execution counts, only cell tags as metadata, and no
    CHECK_OUTPUT marker (there is no output left to check against)."""
    notebook = nbformat.reads(text, as_version=4)
    for cell in notebook.cells:
        cell.metadata = {"tags": cell.metadata["tags"]} if cell.metadata.get("tags") else {}
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            cell.source = "\n".join(line for line in cell.source.split("\n") if line.strip() != CHECK_OUTPUT)
    notebook.metadata = {key: notebook.metadata[key] for key in ("kernelspec",) if key in notebook.metadata}
    notebook.metadata["language_info"] = {"name": "python"}
    nbformat.validate(notebook)
    return nbformat.writes(notebook) + "\n"


def walk(root: Path, folder: str) -> list[str]:
    """The files under root/folder, sorted, as paths relative to root; never SKIPPED debris."""
    paths = (p.relative_to(root).as_posix() for p in sorted((root / folder).rglob("*")) if p.is_file())
    return [path for path in paths if not SKIPPED.search(path)]


def _stage_notebooks(root: Path) -> dict[int, str]:
    notebooks: dict[int, str] = {}
    for path in sorted((root / "notebooks").glob("0[1-9]_*.ipynb")):
        notebooks.setdefault(int(path.name[:2]), path.name)
    return notebooks


def _pyproject(root: Path, requirements: str) -> str:
    """The kit's pyproject.toml: the project's own name and version, and as its dependencies what a
    notebook's kernel imports (a hosted notebook installs the kit with them: README.md)."""
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    template = (TEMPLATES / "pyproject.toml").read_text()
    kernel = lock.lines_for(lock.KERNEL, requirements).splitlines()
    fields = {key.replace("-", "_"): json.dumps(value) for key, value in project.items() if isinstance(value, str)}
    return template.format(**fields, dependencies=json.dumps(kernel))


def setup_figures() -> dict[str, str]:
    """The README's {make_time}, {make_disk}, {hosted_time}, {hosted_disk} and {download}, as
    `python -m grader.bench --kit-setup` last measured them (SETUP_FIGURES)."""
    figures = json.loads(SETUP_FIGURES.read_text())
    unmeasured = {"seconds": "?", "bytes": float("nan")}  # the bench releases a kit before it has measured one
    shown = {"download": f"{figures.get('download', unmeasured)['bytes'] / 1e6:.0f} MB"}
    for way in ("make", "hosted"):
        measured = figures.get(way, unmeasured)
        shown[f"{way}_time"] = f"about {measured['seconds']} s"
        shown[f"{way}_disk"] = f"{measured['bytes'] / 1e6:.0f} MB"
    return shown


def _make_rule(makefile: Path, target: str) -> str:
    """The rule for target in a Makefile: its line and the recipe lines (tab-indented) after it."""
    lines = makefile.read_text().splitlines()
    starts = [n for n, line in enumerate(lines) if line.startswith(f"{target}:")]
    if len(starts) != 1:
        raise ReleaseError(f"{makefile}: expected one rule for {target}, found {len(starts)}")
    end = starts[0] + 1
    while end < len(lines) and lines[end].startswith("\t"):
        end += 1
    return "\n".join(lines[starts[0] : end])


def starter() -> str:
    """The kit's tools.py: what every student starts from (the similarity report leaves it out)."""
    return skeleton((ROOT / STUDENT_MODULE).read_text(), STUDENT_MODULE, _stage_notebooks(ROOT))


def kit_files(root: Path = ROOT) -> dict[str, bytes]:
    """Every file of the kit, path -> content, in sorted order (not yet checked for leaks)."""
    reference, notebooks = (root / STUDENT_MODULE).read_text(), _stage_notebooks(root)
    requirements = (root / "requirements.txt").read_text()
    files: dict[str, bytes] = {}
    shipped_grader = [path for path in walk(root, "grader") if KIT_GRADER.fullmatch(path)]
    for path in walk(root, "agtool") + shipped_grader + walk(root, "notebooks"):
        content = (root / path).read_bytes()
        if path == STUDENT_MODULE:
            content = skeleton(reference, path, notebooks).encode()
        elif path.endswith(".ipynb"):
            content = strip_notebook(content.decode()).encode()
        files[path] = content
    files[PUBLIC_CASES] = public.release_text().encode()
    # the kit's requirements.txt: the project's own lines for what the kit installs (lock.KIT)
    files["requirements.txt"] = (
        (TEMPLATES / "requirements.txt").read_text() + lock.lines_for(lock.KIT, requirements)
    ).encode()
    files["constraints.txt"] = lock.STUDENT.path.read_bytes()
    files[lock.DATA] = (root / lock.DATA).read_bytes()  # the data's one pin, installed with --no-deps
    files["pyproject.toml"] = _pyproject(root, requirements).encode()
    readme = (TEMPLATES / "README.md").read_text()
    for name, text in {**setup_figures(), "stages": stage_table(reference, STUDENT_MODULE, notebooks)}.items():
        readme = readme.replace(f"{{{name}}}", text)
    files["README.md"] = readme.encode()
    makefile = (TEMPLATES / "Makefile").read_text()
    files["Makefile"] = makefile.replace("{lab}", _make_rule(root / "Makefile", "lab")).encode()
    files[".gitignore"] = (TEMPLATES / "gitignore").read_bytes()
    return dict(sorted(files.items()))


def write_kit(files: dict[str, bytes], outdir: Path, force: bool = False) -> None:
    """Write files to outdir all at once: a failed write leaves outdir as it was."""
    outdir = _writable(outdir, force)
    outdir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{outdir.name}-", dir=outdir.parent))
    try:
        for path, content in files.items():
            (staging / path).parent.mkdir(parents=True, exist_ok=True)
            (staging / path).write_bytes(content)
        os.chmod(staging, 0o755)
        if outdir.exists():
            old = outdir.with_name(f"{staging.name}-old")
            outdir.rename(old)
            staging.rename(outdir)
            shutil.rmtree(old)
        else:
            staging.rename(outdir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _writable(outdir: Path, force: bool) -> Path:
    outdir = Path(outdir).resolve()
    if outdir.exists() and not outdir.is_dir():
        raise OutdirError(f"OUTDIR {str(outdir)!r} is a file; give a folder for the kit")
    if outdir.exists() and any(outdir.iterdir()) and not force:
        raise OutdirError(f"OUTDIR {str(outdir)!r} exists and is not empty; pass --force to replace it")
    return outdir


def release(outdir: Path, root: Path = ROOT, force: bool = False) -> dict[str, bytes]:
    """Build the kit, refuse it if a solution line would ship, and write it to outdir."""
    _writable(outdir, force)  # before the work: a wrong OUTDIR is the first thing to hear about
    stale = lock.stale(lock.STUDENT)
    if stale:
        raise ReleaseError(stale)  # the kit would pin versions the tests did not run with
    files = kit_files(Path(root))
    reference = (Path(root) / STUDENT_MODULE).read_text()
    found = leaks(files, solution_lines(reference, provided=(Path(root) / LAB_PART).read_text()))
    if found:
        raise ReleaseError(
            f"{len(found)} solution lines would ship in the kit; remove or reword them:\n  " + "\n  ".join(found)
        )
    found = shadows(files, solution_functions(reference))
    if found:
        raise ReleaseError(
            f"{len(found)} functions of the kit do a stage's job under its own name; build them on "
            "agtool/tools.py instead, or rename them:\n  " + "\n  ".join(found)
        )
    write_kit(files, outdir, force)
    return files


def command(parser: argparse.ArgumentParser):
    """The `release` subcommand's arguments; returns what runs it."""
    parser.add_argument("outdir", metavar="OUTDIR", help="the folder to write the kit to")
    parser.add_argument("--force", action="store_true", help="replace OUTDIR if it is not empty")
    return run


def run(args: argparse.Namespace) -> int:
    """Write the kit; exit 0 when written, 1 when the kit cannot be made as it stands, 2 on bad input."""
    try:
        files = release(Path(args.outdir), force=args.force)
    except ReleaseError as error:
        print(f"grader release: {error}", file=sys.stderr)
        return 2 if isinstance(error, OutdirError) else 1
    except OSError as error:
        print(
            f"grader release: OUTDIR {args.outdir!r} cannot be written ({error.strerror}): "
            "choose a folder you can write to",
            file=sys.stderr,
        )
        return 2
    print(f"{args.outdir}: the student kit, {len(files)} files; students start as its README.md says")
    return 0
