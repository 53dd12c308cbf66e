"""The kit's self-check and the grade agree on every lab module a tools.py imports.

The kit ships all of agtool/, but a graded child holds only what the zygote preloads of
it (grader.kit.boundary.runner.LAB_IMPORTS). A tools.py that leaned on any other (agtool.schema,
whose dialects are built on stage 1) passed the self-check in the student's kernel and
scored 0 in the sandbox, every check a PermissionError. Now the same import is refused
in both, with the one message that says what to do.
"""

import functools
from pathlib import Path

import pytest

import agtool
from grader.instructor.sandbox import zygote
from grader.instructor.sandbox.session import SandboxSession
from grader.kit.boundary.runner import LAB_IMPORTS
from grader.kit.grading import grade
from grader.kit.local import LocalSession
from tests.sandboxing import QUICK

pytestmark = pytest.mark.grader

PACKAGE = Path(agtool.__file__).parent
REFERENCE = (PACKAGE / "tools.py").read_text()
LAB_MODULES = sorted(f"agtool.{path.stem}" for path in PACKAGE.glob("*.py") if path.stem not in ("__init__", "tools"))
SPELLINGS = {
    "import": "import {module}\n",
    "from": "from agtool import {name}\n",
    "late": "def _late():\n    import {module}\n\n\n_late()\n",
}


def test_what_a_tools_py_may_import_is_what_the_zygote_preloads():
    assert LAB_IMPORTS - {"agtool"} <= set(zygote.PRELOAD)


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
@pytest.mark.parametrize("module", LAB_MODULES)
def test_a_lab_module_imported_by_tools_py_gets_one_verdict_from_the_self_check_and_the_grade(
    module, spelling, tmp_path
):
    path = tmp_path / "tools.py"
    line = SPELLINGS[spelling].format(module=module, name=module.removeprefix("agtool."))
    path.write_text(REFERENCE + "\n\n" + line)
    sandbox = functools.partial(SandboxSession, limits=QUICK)
    checks = [
        (result.check.label, result.passed, result.message)
        for result in grade(str(path), LocalSession, stages=(1,)).results
    ]
    graded = [
        (result.check.label, result.passed, result.message) for result in grade(str(path), sandbox, stages=(1,)).results
    ]
    assert checks == graded
    allowed = module in LAB_IMPORTS
    assert all(passed for _, passed, _ in graded) == allowed
    if not allowed:
        assert f"tools.py may not import {module}" in graded[0][2]
