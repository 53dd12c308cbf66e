"""The sandbox: every stage of a submission runs in its own confined child process.

- session.py, in the grader: `SandboxSession`, one child per stage; the deadlines, the
  channel read as hostile, the kills and the clean-up; and the `Zygote` it forks from.
- zygote.py: a clean Python, started before anything secret is imported, that forks
  the children, so that a child holds no oracle, no checks and no seed.
- confine.py, landlock.py, seccomp.py: the layers a child puts up before the
  submission's code runs, and what this machine offers of them.

This package's __init__ imports nothing: the zygote imports confine.py without
pulling in the grader's side.
"""
