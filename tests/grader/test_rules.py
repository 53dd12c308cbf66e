"""Each rule the grade judges is written once (agtool/rules.py), and every text that states it is drawn from there.

A check judges the rule under its label and nothing else; the stage's notebook ("What the
grade judges", folded at its end) says exactly what grader/instructor/rule_text.py writes from
that rule, and agtool/tools.py (the docstring or comment the rule names) points there by label
without stating the rule again. So a student who reads the notebook knows every behaviour the
grade judges, in the words the grader uses, and reads each rule once.
"""

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from agtool import rules
from agtool.syllabus import STAGES
from grader.instructor import rule_text
from grader.kit.checks import CHECKLISTS, every_check

ROOT = Path(__file__).resolve().parents[2]
CHECKS = every_check()


def test_every_check_judges_a_rule_and_every_rule_is_judged():
    assert sorted(check.label for check in CHECKS) == sorted(rules.RULES)


@pytest.mark.parametrize("path", [rule_text.MODULE] + [f"notebooks/{stage.notebook}" for stage in STAGES.values()])
def test_the_texts_a_student_reads_state_the_rules_as_written(path):
    drawn = dict(rule_text.drawn(ROOT))
    assert (ROOT / path).read_text() == drawn[ROOT / path], (
        f"{path} does not state agtool/rules.py: run .venv/bin/python -m grader.instructor.rule_text"
    )


@pytest.fixture
def lab(tmp_path):
    """A copy of the texts the writer draws, to change without touching the checkout."""
    (tmp_path / "agtool").mkdir()
    shutil.copy(ROOT / rule_text.MODULE, tmp_path / rule_text.MODULE)
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks")
    return tmp_path


def test_a_changed_rule_is_written_into_its_notebook_alone(lab, monkeypatch):
    before = dict(rule_text.drawn(lab))
    changed = dataclasses.replace(rules.RULES["5.4"], text="A hit returns the remembered envelope, body unrun.")
    monkeypatch.setitem(rules.RULES, "5.4", changed)
    after = dict(rule_text.drawn(lab))
    differ = sorted(path.relative_to(lab).as_posix() for path in after if after[path] != before[path])
    assert differ == ["notebooks/05_memo.ipynb"]
    cells = json.loads(after[lab / "notebooks/05_memo.ipynb"])["cells"]
    assert "- **5.4** A hit returns the remembered envelope, body unrun." in "".join(cells[-1]["source"])


def test_the_module_points_to_each_rule_and_states_none(lab, monkeypatch):
    module = (ROOT / rule_text.MODULE).read_text()
    for rule in rules.RULES.values():
        assert rule.text not in module
    call_memo = module[module.index("def call_memo") : module.index("# BEGIN SOLUTION", module.index("def call_memo"))]
    assert 'The rules: notebooks/05_memo.ipynb, "What the grade judges" (5.4 to 5.6).' in call_memo
    monkeypatch.setitem(rules.RULES, "5.7", rules.Rule("call_memo", "A new rule."))
    moved = dict(rule_text.drawn(lab))[lab / rule_text.MODULE]
    assert '"What the grade judges" (5.4 to 5.7).' in moved


def test_labels_are_joined_in_runs():
    assert rule_text.labels_text(["6.2", "6.3", "6.4", "6.9"]) == "6.2 to 6.4, 6.9"
    assert rule_text.labels_text(["1.5", "1.6"]) == "1.5, 1.6"
    assert rule_text.labels_text(["6.1"]) == "6.1"


def test_the_writer_writes_stale_files_and_then_finds_none(lab, monkeypatch, capsys):
    monkeypatch.setattr(rule_text, "ROOT", lab)
    stale = dataclasses.replace(rules.RULES["2.6"], text="Not allowed: `allowed:<arg>`.")
    monkeypatch.setitem(rules.RULES, "2.6", stale)
    assert rule_text.main(["--check"]) == 1
    assert "notebooks/02_check_args.ipynb: its rules differ" in capsys.readouterr().err
    assert rule_text.main([]) == 0
    assert rule_text.main(["--check"]) == 0
    assert "- **2.6** Not allowed: `allowed:<arg>`." in (lab / "notebooks/02_check_args.ipynb").read_text()


def test_a_text_with_no_place_for_its_rules_is_named_in_one_line(lab, monkeypatch, capsys):
    module = lab / rule_text.MODULE
    module.write_text(module.read_text().replace(rule_text.DOCSTRING_POINTER, "Rules: ", 1))
    monkeypatch.setattr(rule_text, "ROOT", lab)
    assert rule_text.main([]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert "the docstring of describe_tools needs one line that begins 'The rules:'" in error


def test_a_list_of_rules_outside_the_folded_appendix_is_named_in_one_line(lab, monkeypatch, capsys):
    notebook = lab / "notebooks/03_check_result.ipynb"
    notebook.write_text(notebook.read_text().replace("<details>\\n", "", 1))
    monkeypatch.setattr(rule_text, "ROOT", lab)
    assert rule_text.main([]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert "notebooks/03_check_result.ipynb: the list of rules belongs in a folded appendix" in error


def test_the_registry_numbers_the_notebooks_markers_and_points():
    pyproject = (ROOT / "pyproject.toml").read_text()
    for number, stage in STAGES.items():
        assert (ROOT / "notebooks" / stage.notebook).exists()
        assert f'"{stage.marker}: ' in pyproject
        assert sum(check.points for check in CHECKLISTS[number].checks) == stage.points
    assert sum(stage.points for stage in STAGES.values()) == 100


def test_labels_are_written_out_and_unique():
    labels = [check.label for check in CHECKS]
    assert len(labels) == len(set(labels))
