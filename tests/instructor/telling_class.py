"""`python -m grader class`, telling a test what it waits for, one line at a time, on a pipe the test made.

    python -m tests.instructor.telling_class FD class DIR --out OUT ...

is `python -m grader class DIR --out OUT ...`, with two lines written to fd FD (inherited by the pool's
workers; the zygote and its children never hold it, so it reads as closed once the run has ended):

    open STUDENT STAGE CHILD ZYGOTE WORKDIR   a session of STUDENT's for STAGE is open: its child (a pid)
                                              forked by ZYGOTE (a pid) in WORKDIR
    graded STUDENT                            STUDENT's record (graded.json) is written

A test reads them with `Told` instead of polling for files and processes to appear.
"""

import os
import select
import subprocess
import sys
import time
from pathlib import Path

from grader.instructor import classroom
from grader.instructor.sandbox.session import SandboxSession

ROOT = Path(__file__).resolve().parents[2]
GRADING: list[str] = []  # the student this process grades now (a pool worker's own: it is forked)
_grade_student, _open = classroom.grade_student, SandboxSession.__init__


def tell(line: str) -> None:
    os.write(int(sys.argv[1]), (line + "\n").encode())


def grade_student(submission, seed, out):
    """classroom.grade_student, telling when the student's record is written."""
    GRADING.append(submission.student)
    try:
        row = _grade_student(submission, seed, out)
    finally:
        GRADING.pop()
    tell(f"graded {submission.student}")
    return row


def open_session(self, submission, stage, *args, **kwargs):
    """SandboxSession.__init__, telling once the session is open: its child forked, the zygote knowing it."""
    _open(self, submission, stage, *args, **kwargs)
    tell(f"open {GRADING[-1]} {stage} {self.pid} {self._zygote.process.pid} {self.workdir}")


class Told:
    """`python -m grader class ARGS...` started with this module in front; its lines, as they come."""

    def __init__(self, args: list[str], **popen):
        self.read, told = os.pipe()
        command = [sys.executable, "-m", __spec__.name, str(told), "class", *args]
        self.run = subprocess.Popen(command, cwd=ROOT, pass_fds=[told], **popen)
        os.close(told)
        self.lines: list[str] = []
        self._partial = b""

    def until(self, start: str, seconds: float = 300) -> str:
        """The rest of the first line told that starts with `start`, read up to if need be; fails if the run
        ends first, or after `seconds` (a bound for a run that hangs, not a time to wait)."""
        deadline = time.monotonic() + seconds
        while not (found := [line[len(start) :] for line in self.lines if line.startswith(start)]):
            left = deadline - time.monotonic()
            assert left > 0 and select.select([self.read], [], [], left)[0], f"no {start!r} within {seconds} s"
            chunk = os.read(self.read, 4096)
            assert chunk, f"the run ended before {start!r} (exit code {self.run.wait()}); it told {self.lines}"
            *whole, self._partial = (self._partial + chunk).split(b"\n")
            self.lines += [line.decode() for line in whole]
        return found[0]

    def close(self) -> None:
        os.close(self.read)


if __name__ == "__main__":
    classroom.grade_student = grade_student  # pool workers are forked from here: they run these too
    SandboxSession.__init__ = open_session  # type: ignore[method-assign]
    from grader.__main__ import main

    sys.exit(main(sys.argv[2:]))
