"""No import circles: the project's modules, drawn by what they import, form no cycle.

A reader follows an import to learn what a module stands on; a circle means no module of it
can be read first. So every import counts, wherever it stands: at module level, inside a
function (imported when called, read all the same), and under `if TYPE_CHECKING:` (a type
named there is one the reader must look up). Relative imports are resolved, `from package
import module` is an edge to the module, and importlib.import_module is an import too: of a
literal name, of a module-level constant holding one, or of every module an f-string's leading
part may spell (f"{__name__}.stage{number}": each stage). A name read from data
(`import_module(module)` over a table) is not followed. Only the project's own modules,
those under agtool/ and grader/, are drawn; a package's __init__ counts as the package.
"""

import ast
import itertools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("agtool", "grader")


def modules_under(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Module name -> file, for every .py under the packages (a package's __init__.py by the package's name)."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def string_constants(tree: ast.Module) -> dict[str, str]:
    """The module-level names bound to a string literal (NAME = "agtool.tools")."""
    return {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def source_of(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute name of what `from ... import` reads from (relative imports resolved)."""
    base = module if is_package else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    return ".".join(part for part in (base if node.level else "", node.module or "") if part)


def owning_module(name: str, known: dict[str, Path]) -> str:
    """The project module a dotted name is, or lies in (a.b.C -> a.b); "" if none."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name


def imported_by(node: ast.AST, module: str, known: dict[str, Path], constants: dict[str, str]) -> set[str]:
    """The project modules one node imports: `from a import b` is a.b when that is a module, else a."""
    if isinstance(node, ast.Import):
        return {owning_module(alias.name, known) for alias in node.names}
    if isinstance(node, ast.ImportFrom):
        source = source_of(node, module, known[module].name == "__init__.py")
        return {
            f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else owning_module(source, known)
            for alias in node.names
        }
    if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module":
        argument = node.args[0] if node.args else ast.Constant("")
        if not (named := spelled(argument, {**constants, "__name__": module})):
            return set()
        if isinstance(argument, ast.JoinedStr):  # f"{__name__}.stage{number}": each module it may spell
            return {name for name in known if name.startswith(named)}
        return {owning_module(named, known)}
    return set()


def spelled(argument: ast.expr, constants: dict[str, str]) -> str:
    """The name an argument spells: a literal, a module-level constant, or an f-string's leading part."""
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
        return argument.value
    if isinstance(argument, ast.Name):
        return constants.get(argument.id, "")
    if isinstance(argument, ast.JoinedStr):
        leading = ""
        for part in argument.values:
            value = part.value if isinstance(part, ast.FormattedValue) else part
            if not (text := spelled(value, constants)):
                break
            leading += text
        return leading
    return ""


def import_graph(root: Path, packages: tuple[str, ...] = PACKAGES) -> dict[str, dict[str, int]]:
    """Module -> {project module it imports: the first line that imports it}."""
    known = modules_under(root, packages)
    graph: dict[str, dict[str, int]] = {}
    for module, path in known.items():
        tree = ast.parse(path.read_text(), str(path))
        constants, edges = string_constants(tree), graph.setdefault(module, {})
        for node in ast.walk(tree):
            for target in imported_by(node, module, known, constants) - {"", module}:
                edges[target] = min(edges.get(target, node.lineno), node.lineno)  # type: ignore[attr-defined]
    return graph


def strongly_connected(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Tarjan's algorithm: the graph's strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in graph.get(node, {}):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while (member := stack.pop()) != node:
                on_stack.discard(member)
                component.append(member)
            on_stack.discard(node)
            components.append(sorted([node, *component]))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(component for component in components if len(component) > 1)


def shortest_path(graph: dict[str, dict[str, int]], start: str, goal: str, within: set[str]) -> list[str]:
    """The shortest chain of imports from start to goal inside a component (breadth first)."""
    came_from = {start: start}
    frontier = [start]
    while goal not in came_from:
        reached = []
        for node in frontier:
            for successor in sorted(set(graph[node]) & within - set(came_from)):
                came_from[successor] = node
                reached.append(successor)
        assert reached, f"no path from {start} to {goal} inside its component"
        frontier = reached
    chain = [goal]
    while chain[-1] != start:
        chain.append(came_from[chain[-1]])
    return chain[::-1]


def cycles(graph: dict[str, dict[str, int]]) -> list[str]:
    """Every import that closes a circle, each on the shortest circle through it, as a chain naming
    the importing lines, from its first module by name; a circle through several such imports is named once."""
    chains = []
    for component in strongly_connected(graph):
        named: set[frozenset[tuple[str, str]]] = set()
        for module in component:
            for target in sorted(set(graph[module]) & set(component)):
                cycle = [module, *shortest_path(graph, target, module, set(component))]
                first = cycle.index(min(cycle[:-1]))
                cycle = cycle[first:-1] + cycle[:first] + [cycle[first]]
                steps = list(itertools.pairwise(cycle))
                if frozenset(steps) not in named:
                    named.add(frozenset(steps))
                    chains.append("".join(f"{a} (line {graph[a][b]}) -> " for a, b in steps) + cycle[-1])
    return chains


def test_the_project_imports_no_circle():
    graph = import_graph(ROOT)
    assert len(graph) > 50 and graph["agtool.tools"], "the graph was drawn"
    found = cycles(graph)
    assert not found, f"{len(found)} import circles:\n" + "\n".join(found)


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_a_circle_is_seen_through_every_kind_of_import(tmp_path):
    """Relative, type-only, inside a function, `from package import module`, import_module: each closes one."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from . import b\n",
            "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.sub.c import C\n",
            "pkg/sub/__init__.py": "import importlib as i\nS = [i.import_module(f'{__name__}.c{n}') for n in ()]\n",
            "pkg/sub/c.py": "class C:\n    def d(self):\n        from ..d import thing\n",
            "pkg/d.py": "import importlib\nNAME = 'pkg.e'\nimportlib.import_module(NAME)\nthing = 1\n",
            "pkg/e.py": "import os, pkg.a\n",
            "pkg/alone.py": "import pkg.sub\nfrom pkg import a\nimport importlib\nimportlib.import_module(f'{a}.b')\n",
        },
    )
    graph = import_graph(tmp_path, ("pkg",))
    assert graph["pkg.alone"] == {"pkg.sub": 1, "pkg.a": 2}, "what no name spells is not followed"
    assert graph["pkg.sub"] == {"pkg.sub.c": 2}, "an f-string's leading part names the modules it may spell"
    assert cycles(graph) == [
        "pkg.a (line 1) -> pkg.b (line 3) -> pkg.sub.c (line 3) -> pkg.d (line 3) -> pkg.e (line 1) -> pkg.a"
    ]
    assert strongly_connected(graph) == [["pkg.a", "pkg.b", "pkg.d", "pkg.e", "pkg.sub.c"]]


def test_two_circles_in_one_component_are_both_named(tmp_path):
    write(
        tmp_path,
        {"m/__init__.py": "", "m/x.py": "import m.y, m.z\n", "m/y.py": "import m.x\n", "m/z.py": "from m import x\n"},
    )
    assert cycles(import_graph(tmp_path, ("m",))) == [
        "m.x (line 1) -> m.y (line 1) -> m.x",
        "m.x (line 1) -> m.z (line 1) -> m.x",
    ]
