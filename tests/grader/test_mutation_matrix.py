"""The mutation matrix: each rule of the spec, broken alone, fails the check(s) that name it, and no other.

The mutants live in tests/mutants/stageN.py (MUTANTS: a list of tests.mutation.Mutant).
Under several seeds each one must fail exactly its listed checks, all in its own
stage: one bug costs its own check, whatever the seed.
"""

import importlib
from pathlib import Path

import pytest

from tests.mutation import verdicts

pytestmark = pytest.mark.grader

SEEDS = (0, 7, 91)
MATRIX = [
    mutant
    for path in sorted((Path(__file__).resolve().parents[1] / "mutants").glob("stage*.py"))
    for mutant in importlib.import_module(f"tests.mutants.{path.stem}").MUTANTS
]


def test_every_stage_has_mutants():
    stages = {label.split(".")[0] for mutant in MATRIX for label in mutant.fails}
    assert stages == {"1", "2", "3", "4", "5", "6"}


@pytest.mark.parametrize("mutant", MATRIX, ids=[mutant.rule for mutant in MATRIX])
def test_a_mutant_fails_its_own_checks_and_no_other(mutant, tmp_path):
    path = tmp_path / "tools.py"
    path.write_text(mutant.source())
    stage = int(next(iter(mutant.fails)).split(".")[0])
    assert all(label.startswith(f"{stage}.") for label in mutant.fails), "one mutant, one stage"
    for seed in SEEDS:  # the first seed grades every stage: the mutant costs nothing elsewhere
        stages = None if seed == SEEDS[0] else (stage,)
        failed = {label for label, passed in verdicts(path, seed, stages).items() if not passed}
        assert failed == set(mutant.fails), f"seed {seed}"
