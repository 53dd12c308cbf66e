"""The lesson on top: the lab reaches the student's agtool/tools.py through one named place.

A student's module is theirs to get wrong: a helper renamed, a stage left out, a typo that
raises at import. The lab around it (agtool/) names it in one module, agtool/student.py,
which imports it on first use; no other lab module imports it, and agtool/contract.py,
which tools.py imports, imports nothing of it (no circle). So importing the lab never
waits on the student's file, and a module with a helper renamed or missing breaks only
what reads that helper, when it is read.
"""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agtool import pickers, tools
from tests import forked_python

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "agtool"
STUDENT_MODULE = "agtool.tools"
NAMED_PLACE = "agtool/student.py"


def student_imports(path: Path) -> list[str]:
    """'line: what' for every import of the student module in a file: `import agtool.tools`,
    `from agtool import tools`, `from agtool.tools import ...`, `from . import tools`, and
    importlib.import_module("agtool.tools") (or __import__) of the literal name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = "agtool" if node.level else node.module or ""
            module = f"{base}.{node.module}" if node.level and node.module else base
            names = [module, *(f"{module}.{alias.name}" for alias in node.names)]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            names = [str(node.args[0].value)]
        else:
            continue
        if any(name == STUDENT_MODULE or name.startswith(STUDENT_MODULE + ".") for name in names):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_only_the_named_place_imports_the_student_module():
    importing = {
        path.relative_to(ROOT).as_posix(): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if (found := student_imports(path))
    }
    assert set(importing) == {NAMED_PLACE}, importing


def test_the_contract_imports_nothing_of_the_student_module():
    """tools.py imports agtool.contract; agtool.contract imports nothing of tools.py, at its top or later."""
    contract = PACKAGE / "contract.py"
    assert student_imports(contract) == []
    imported = {
        alias.name
        for node in ast.walk(ast.parse(contract.read_text()))
        if isinstance(node, ast.ImportFrom) and node.module == "agtool"
        for alias in node.names
    }
    assert "tools" not in imported


def test_the_student_module_is_not_imported_by_importing_the_lab():
    """Every lab module imports first without the student's module: it is imported when first used."""
    script = """
import importlib, pkgutil, sys
import agtool
names = [m.name for m in pkgutil.walk_packages(agtool.__path__, "agtool.") if m.name != "agtool.tools"]
for name in names:
    importlib.import_module(name)
print(len(names), "agtool.tools" in sys.modules)
"""
    python = forked_python.command([sys.executable, "-c", script])
    out = subprocess.run(python, capture_output=True, text=True, cwd=ROOT, check=True).stdout.split()
    assert int(out[0]) > 10 and out[1] == "False", out


def test_the_lab_copy_of_pick_by_rules_is_the_provided_one():
    """pickers' pick_by_rules is the lab's own copy of the provided tools.pick_by_rules (outside the
    solution blocks): the model seat never leans on a helper the student may rename."""
    assert pickers.pick_by_rules is not tools.pick_by_rules
    requests = [
        {"tool": "stock_lookup", "args": {"sku": "A-100", "region": "busan", "limit": 2}},
        {"tool": "delivery_eta"},
        {"tool": "stock_lookup", "args": ["not", "a", "dict"]},
        {"args": {"sku": "A-100"}},
        "How many A-100 kettles near Seoul?",
        None,
    ]
    for request in requests:
        assert pickers.pick_by_rules(request) == tools.pick_by_rules(request), request
    args = {"sku": "A-100"}
    assert pickers.pick_by_rules({"tool": "t", "args": args})[1] is not args  # a copy, as the provided one makes


# A student's tools.py, as it may be: each a change of the reference's text.
STUDENT_MODULES = {
    "pick_by_rules renamed": lambda source: source.replace("pick_by_rules", "rules_pick"),
    "stage 6 missing": lambda source: source[: source.index("# ── Stage 6")],
    "raises at import": lambda source: source + "\nraise RuntimeError('a typo at the end of the file')\n",
}


@pytest.mark.parametrize("change", sorted(STUDENT_MODULES))
def test_a_student_module_with_a_helper_renamed_or_missing_does_not_break_importing_the_lab(change, tmp_path):
    """The lab in tmp_path, with the student's changed tools.py: importing pickers and lab works, and
    NoisyPicker (the lab's model seat) picks as before; the student's module is not imported."""
    shutil.copytree(PACKAGE, tmp_path / "agtool", ignore=shutil.ignore_patterns("__pycache__"))
    student = tmp_path / "agtool" / "tools.py"
    student.write_text(STUDENT_MODULES[change](student.read_text()))
    script = """
import sys
import agtool.lab, agtool.pickers
assert agtool.pickers.__file__.startswith(sys.argv[1]), agtool.pickers.__file__
request = {"tool": "stock_lookup", "args": {"sku": "A-100", "region": "busan", "limit": 2}}
print(agtool.pickers.NoisyPicker(seed=3, rates=dict.fromkeys(agtool.pickers.MISTAKES, 0.0))(request))
print("agtool.tools" in sys.modules)
"""
    python = forked_python.command([sys.executable, "-c", script, str(tmp_path)])
    done = subprocess.run(python, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "('stock_lookup', {'sku': 'A-100', 'region': 'busan', 'limit': 2})",
        "False",
    ]
