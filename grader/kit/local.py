"""LocalSession: the submission imported into this very process.

Right for a student's self-check in their own kernel, wrong for grading strangers (the sandbox's
SandboxSession forks a confined child). Requests and outcomes still go through JSON and an Exchange,
so a grade by either sees the very same data.
"""

import json

from grader.kit import oracle_access
from grader.kit.boundary.exchange import Exchange
from grader.kit.boundary.runner import Child
from grader.kit.errors import ChannelBroken, SessionDied
from grader.kit.intake import NotASubmission, Submission, submission_at


class LocalSession:
    """The submission imported here, in-process."""

    def __init__(self, submission: Submission | str, stage: int = 1):
        """`submission`: as read once for the grade (intake.py), or a path read here; never read again."""
        try:
            read = submission_at(submission)
        except NotASubmission as refused:
            raise SessionDied(str(refused)) from None
        self._exchange: Exchange | None = None
        self._child = Child(read.path, oracle_access.bind, self._body, source=read.data, shown=read.shown)
        self._closed = False

    def _body(self, tool: str) -> dict:
        assert self._exchange is not None
        return json.loads(json.dumps(self._exchange.body(tool)))

    def request(self, req: dict) -> dict:
        if self._closed:
            raise SessionDied("the session is closed")
        self._exchange = exchange = Exchange(req)
        self._child.answer(
            json.loads(json.dumps(exchange.for_child)), lambda frame: exchange.take(json.loads(json.dumps(frame)))
        )
        if not exchange.done:
            raise ChannelBroken("the submission's process answered fewer calls than it was asked")
        return exchange.observation()

    def close(self) -> None:
        self._closed = True
        self._child.close()
