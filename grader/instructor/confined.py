"""One submission graded in the sandbox: what `grade`, `class` and the Gradescope bundle each do.

A grade the sandbox broke is the grader's failure, never the student's: when the zygote dies mid-grade
(GraderError: every child it had dies with it), the whole submission is graded again from its first stage,
with a fresh zygote, from the same bytes; a second failure is raised for the caller to say, never scored.
"""

import functools
import sys

from grader.instructor.sandbox.confine import Layers
from grader.instructor.sandbox.session import CompiledOnce, SandboxSession
from grader.kit.errors import GraderError
from grader.kit.grading import Grade, grade, read_once
from grader.kit.intake import Submission


def grade_confined(
    submission: Submission | str, seed: int, only: str | None = None, hidden: tuple[str, ...] = ()
) -> Grade:
    """`submission`: as read once (a path is read here; a file that is no submission has every check not run).
    `hidden`: folders no child may read, besides the grader's and the submission's (SandboxSession)."""

    def sessions():  # each stage a child of its own; the submission compiled once (CompiledOnce)
        return functools.partial(SandboxSession, hidden=hidden, compiled=CompiledOnce())

    read = read_once(submission, seed, only)  # once: the second try grades the very same bytes
    if isinstance(read, Grade):
        return read
    try:
        return grade(read, sessions(), seed=seed, only=only)
    except GraderError:  # once more, from the start: the next session starts a fresh zygote
        return grade(read, sessions(), seed=seed, only=only)


def sandbox_check(layers: Layers, required: bool) -> str | None:
    """Print which sandbox layers a grade here gets (and what each missing one leaves open); with required,
    the refusal to say when one is missing (`grade` and `class` take --require-sandbox), else None."""
    gaps = layers.missing()
    print(layers.describe() + "".join(f"\n  missing: {gap}" for gap in gaps), file=sys.stderr)
    if gaps and required:
        return (
            "--require-sandbox, and this machine lacks a layer (above); "
            "grade on a Linux 6.12+ kernel with Landlock, as root, with libseccomp2"
        )
    return None
