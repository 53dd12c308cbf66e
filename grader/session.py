"""Sessions: how the grader talks to one imported submission, one stage at a time.

A session answers requests with observations (plain JSON data, see grader/observe.py).
`LocalSession` imports the submission into this very process: right for a
student's self-check in a notebook (their own code, their own kernel), wrong
for grading strangers; `grader.sandbox.SandboxSession` forks a confined child.
"""

import json
from typing import Callable, Protocol

from grader.errors import SessionDied
from grader.observe import Child


class Session(Protocol):
    def request(self, req: dict) -> dict: ...   # may raise SessionDied, then always again
    def close(self) -> None: ...


SessionFactory = Callable[[str], Session]


class LocalSession:
    """The submission imported here, in-process; requests and observations still go through JSON,
    so a grade by LocalSession and by SandboxSession see the very same data."""

    def __init__(self, path: str):
        self._child = Child(path)
        self._closed = False

    def request(self, req: dict) -> dict:
        if self._closed:
            raise SessionDied("the session is closed")
        observation = self._child.answer(json.loads(json.dumps(req)))
        return json.loads(json.dumps(observation))

    def close(self) -> None:
        self._closed = True
        self._child.close()
