"""Each rule the grade judges is written once (agtool/rules.py), and every text that states it is drawn from there.

A check judges the rule under its label and nothing else; the stage's notebook ("What the
grade judges") and agtool/tools.py (the docstring or comment the rule names) say exactly
what grader/instructor/rule_text.py writes from that rule. So a student who reads either
knows every behaviour the grade judges, in the words the grader uses.
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


@pytest.mark.parametrize("path", [rule_text.MODULE] + [f"notebooks/{lesson.notebook}" for lesson in STAGES.values()])
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


def test_a_changed_rule_is_written_into_its_notebook_and_its_docstring_alone(lab, monkeypatch):
    before = dict(rule_text.drawn(lab))
    changed = dataclasses.replace(rules.RULES["5.4"], text="A hit returns the remembered envelope, body unrun.")
    monkeypatch.setitem(rules.RULES, "5.4", changed)
    after = dict(rule_text.drawn(lab))
    differ = sorted(path.relative_to(lab).as_posix() for path in after if after[path] != before[path])
    assert differ == ["agtool/tools.py", "notebooks/05_memo.ipynb"]
    cells = json.loads(after[lab / "notebooks/05_memo.ipynb"])["cells"]
    assert any("- **5.4** A hit returns the remembered envelope, body unrun." in "".join(c["source"]) for c in cells)
    module = after[lab / rule_text.MODULE]
    call_memo = module[module.index("def call_memo") : module.index("# BEGIN SOLUTION", module.index("def call_memo"))]
    assert "- 5.4 A hit returns the remembered envelope, body unrun." in call_memo


def test_the_writer_writes_stale_files_and_then_finds_none(lab, monkeypatch, capsys):
    monkeypatch.setattr(rule_text, "ROOT", lab)
    stale = dataclasses.replace(rules.RULES["2.6"], text="Not allowed: `allowed:<arg>`.")
    monkeypatch.setitem(rules.RULES, "2.6", stale)
    assert rule_text.main(["--check"]) == 1
    assert "agtool/tools.py: its rules differ" in capsys.readouterr().err
    assert rule_text.main([]) == 0
    assert rule_text.main(["--check"]) == 0
    assert "- 2.6 Not allowed: `allowed:<arg>`." in (lab / rule_text.MODULE).read_text()


def test_a_text_with_no_place_for_its_rules_is_named_in_one_line(lab, monkeypatch, capsys):
    module = lab / rule_text.MODULE
    module.write_text(module.read_text().replace(rule_text.DOCSTRING_HEAD, "The rules:", 1))
    monkeypatch.setattr(rule_text, "ROOT", lab)
    assert rule_text.main([]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert "the docstring of check_args needs one line 'The rules, as the grader judges them:'" in error


def test_a_code_span_is_never_broken_across_lines():
    long = rules.Rule("check_args", "word " * 17 + "`10 ** 400` and `a b c d`")
    lines = rule_text.wrapped("2.5", long, "    ")
    assert any("`10 ** 400`" in line for line in lines)
    assert any("`a b c d`" in line for line in lines)
    assert all(len(line) <= rule_text.WIDTH for line in lines)


def test_the_registry_numbers_the_notebooks_markers_and_points():
    pyproject = (ROOT / "pyproject.toml").read_text()
    for number, lesson in STAGES.items():
        assert (ROOT / "notebooks" / lesson.notebook).exists()
        assert f'"{lesson.marker}: ' in pyproject
        assert sum(check.points for check in CHECKLISTS[number].checks) == lesson.points
    assert sum(lesson.points for lesson in STAGES.values()) == 100


def test_labels_are_written_out_and_unique():
    labels = [check.label for check in CHECKS]
    assert len(labels) == len(set(labels))
