"""The mutation-testing command (grader/instructor/mutation.py): what it mutates, its equivalents file, its kill check.

Cheap by design: cosmic-ray lists the mutants once (no mutant is graded but two), the whole
run stays out of the suite (`python -m grader.instructor.mutation run` takes minutes).
"""

import cosmic_ray.plugins
import pytest
from cosmic_ray.mutating import mutate_code

from grader.instructor import mutation

pytestmark = pytest.mark.grader


@pytest.fixture(scope="module")
def source() -> str:
    return mutation.REFERENCE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def mutants(source):
    return mutation.solution_mutants(source)


def mutant_source(source: str, mutant: mutation.Mutant) -> str:
    code = mutate_code(source, cosmic_ray.plugins.get_operator(mutant.operator)(), mutant.occurrence)
    assert code is not None
    return code


def test_solution_ranges_are_the_lines_strictly_inside_the_solution_markers():
    text = "\n".join(
        [
            "x = 1",
            "# BEGIN SOLUTION",
            "y = 2",
            "z = 3",
            "# END SOLUTION",
            "# BEGIN PROMPT",
            "# y = ...",
            "# END PROMPT",
            "def f():",
            "    # BEGIN SOLUTION",
            "    return 4",
            "    # END SOLUTION",
        ]
    )
    assert mutation.solution_ranges(text) == [(3, 4), (11, 11)]


def test_unbalanced_markers_are_refused_with_the_line():
    with pytest.raises(mutation.MutationError, match=r"tools\.py:1"):
        mutation.solution_ranges("# BEGIN SOLUTION\nx = 1\n")


def test_every_mutant_is_inside_a_solution_block_and_every_block_with_operands_is_mutated(source, mutants):
    ranges = mutation.solution_ranges(source)
    outside = [m.describe() for m in mutants if not any(first <= m.start and m.end <= last for first, last in ranges)]
    assert mutants and outside == []
    # the lab-provided code around the blocks (check_table and its helpers, failure, pick_by_rules) is never mutated
    provided = {"check_table", "_check_spec", "_check_keys", "_table_value", "failure", "pick_by_rules", "field_of"}
    assert {m.function for m in mutants} & provided == set()
    # and the filter keeps every stage's solution: each stage's functions have mutants
    lines = source.splitlines()
    assert {mutation.stage_of(lines, m.start) for m in mutants} == {1, 2, 3, 4, 5, 6}


def test_mutant_identities_are_unique_and_name_the_line_not_its_number(mutants):
    identities = [m.identity for m in mutants]
    assert len(set(identities)) == len(identities)
    assert all(m.line and m.mutated and m.line != m.mutated for m in mutants)


def test_every_listed_equivalent_is_a_mutant_cosmic_ray_makes_today(mutants):
    made = {m.identity for m in mutants}
    entries = mutation.load_equivalents()
    stale = [f"{e.operator} in {e.function}(): {e.line} -> {e.mutated}" for e in entries if e.identity not in made]
    assert stale == []
    assert all(e.why.strip() and not e.why.startswith("TODO") for e in entries)
    assert len({e.identity for e in entries}) == len(entries)


def test_an_exclusive_min_in_in_range_is_killed_by_stage_2(tmp_path, source, mutants):
    (flip,) = [
        m
        for m in mutants
        if m.function == "in_range"
        and m.operator == "core/ReplaceComparisonOperator_GtE_Gt"
        and 'spec["min"]' in m.line
    ]
    reference = tmp_path / "reference.py"
    reference.write_text(source, encoding="utf-8")
    mutated = tmp_path / "tools.py"
    mutated.write_text(mutant_source(source, flip), encoding="utf-8")
    failed = mutation.kill_check(str(mutated), seed=mutation.SEED, reference=str(reference))
    assert failed and all(label.startswith("2.") for label in failed)


def test_the_unmutated_reference_survives_the_kill_check(tmp_path, source):
    reference = tmp_path / "tools.py"
    reference.write_text(source, encoding="utf-8")
    assert mutation.kill_check(str(reference), seed=mutation.SEED) == []


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    assert mutation.main(["kill-check", str(tmp_path / "nope.py")]) == 2
    assert mutation.main(["run", "--jobs", "0"]) == 2
    assert mutation.main(["run", "--timeout", "-1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"mutation: error: no such file: {tmp_path / 'nope.py'}",
        "mutation: error: --jobs and --sample must be at least 1",
        "mutation: error: --timeout must be positive",
    ]


def test_a_recorded_run_reports_its_numbers_and_its_equivalents(tmp_path, source, mutants, capsys):
    listed = {e.identity for e in mutation.load_equivalents()}
    equivalent = next(m for m in mutants if m.identity in listed)
    blind = next(m for m in mutants if m.identity not in listed)
    killed = next(m for m in mutants if m not in (equivalent, blind))
    outcomes = [
        mutation.Outcome(killed, "killed", "2.1"),
        mutation.Outcome(equivalent, "survived", ""),
        mutation.Outcome(blind, "survived", ""),
    ]
    recorded = tmp_path / "run.json"
    mutation.save_run(recorded, outcomes, seed=0, seconds=1, source=source)
    assert mutation.main(["report", str(recorded)]) == 1  # a survivor not listed: a blind spot
    out = capsys.readouterr().out
    assert "mutants: 3  killed: 1 (timeout 0)  survived: 2  equivalent: 1  errors: 0" in out
    assert "mutation score: 50.0% (killed 1 / non-equivalent 2)" in out
    assert blind.describe() in out.split("blind spots of the grader")[1]
    assert mutation.main(["report", str(tmp_path / "none.json")]) == 2
