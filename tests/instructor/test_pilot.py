"""`python -m grader pilot`: what the sandbox has here and what the grade will do, said before a term."""

import subprocess
import sys
from pathlib import Path

import pytest

import agtool
from grader.instructor.pilot import report
from grader.instructor.sandbox.confine import Layers

pytestmark = pytest.mark.grader

ROOT = Path(agtool.__file__).resolve().parents[1]


def test_the_pilot_names_each_layer_starts_a_confined_child_and_gives_the_verdict():
    done = subprocess.run([sys.executable, "-m", "grader", "pilot"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("machine: Linux ") and lines[1] == Layers.here().describe()
    assert any(line.startswith("cgroups: ") for line in lines)
    assert "a confined child: started, confined, and answered in" in done.stdout
    grades = Layers.here().confines_writes_and_signals()
    assert lines[-1].startswith("the Gradescope bundle grades here" if grades else "the Gradescope bundle refuses")


def test_without_root_or_landlock_the_pilot_says_what_is_open_and_that_the_bundle_refuses():
    said = report(Layers(drop_user=False, seccomp=False, landlock=0), child=False)
    assert any("no Landlock" in line for line in said) and any("no seccomp" in line for line in said)
    assert "reads: NOT confined" in "\n".join(said)
    assert said[-1].startswith("the Gradescope bundle refuses to grade here")
    assert (
        report(Layers(drop_user=True, seccomp=True, landlock=7), child=False)[-1] == "the Gradescope bundle grades here"
    )


def test_the_bundles_setup_runs_the_pilot_into_the_build_log():
    setup = (ROOT / "grader" / "instructor" / "gradescope" / "setup.sh").read_text()
    assert "-m grader pilot)" in setup
