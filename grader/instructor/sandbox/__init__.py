"""The sandbox: every stage of a submission runs in its own confined child process.

- session.py, in the grader: `SandboxSession`, one child per stage; the deadlines, the
  channel read as hostile, the kills and the clean-up; and the `Zygote` it forks from.
- zygote.py: a clean Python, started before anything secret is imported, that forks
  the children, so that a child holds no oracle, no checks and no seed.
- sweeper.py: killing every process of a child's uid once it is done, from a small
  process the zygote starts first (a fork's cost is what its parent holds).
- confine.py, landlock.py, seccomp.py: the layers a child puts up before the
  submission's code runs, and what this machine offers of them.

This package's __init__ imports nothing: the zygote imports confine.py without
pulling in the grader's side.
"""
