"""Why a session (one stage's child process) can no longer answer: the seam between grading and the sandbox."""


class SessionDied(Exception):
    """The session cannot answer any more; `reason` says why, in words a student can act on."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class TimedOut(SessionDied):
    """No answer before the deadline (an infinite loop, or a submission ignoring signals)."""


class Crashed(SessionDied):
    """The child ended: `code` is its exit code, or minus the signal that killed it."""

    def __init__(self, reason: str, code: int | None = None):
        super().__init__(reason)
        self.code = code


class ChannelBroken(SessionDied):
    """The channel failed: closed, or carrying something that is not an observation."""


class GraderError(Exception):
    """The grader itself cannot go on (its sandbox cannot start): never the submission's fault, never its points."""


class OverBudget(SessionDied):
    """The submission used more than its share (memory, processes, files, CPU), counted over all its processes."""
