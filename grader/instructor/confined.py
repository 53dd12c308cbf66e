"""One submission graded in the sandbox: what `grade`, `class` and the Gradescope bundle each do.

A grade the sandbox broke is the grader's failure, never the student's: when the zygote
dies mid-grade (GraderError; every child it had dies with it, an innocent classmate's in
`class` too), the points its children lost would be no one's doing but the machine's. So
the whole submission is graded again from its first stage, with a fresh zygote; a second
failure is said (the caller writes "not graded" and why), never scored.
"""

import functools

from grader.instructor.sandbox.session import CompiledOnce, SandboxSession
from grader.kit.errors import GraderError
from grader.kit.grading import Grade, grade


def grade_confined(path: str, seed: int, only: str | None = None, hidden: tuple[str, ...] = ()) -> Grade:
    """`hidden`: folders no child may read, besides the grader's and the submission's (SandboxSession)."""

    def sessions():  # each stage a child of its own; the submission compiled once (CompiledOnce)
        return functools.partial(SandboxSession, hidden=hidden, compiled=CompiledOnce())

    try:
        return grade(path, sessions(), seed=seed, only=only)
    except GraderError:  # once more, from the start: the next session starts a fresh zygote
        return grade(path, sessions(), seed=seed, only=only)
