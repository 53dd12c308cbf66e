"""The parent's side of the process boundary: what it takes from a submission's process, and how.

A session answers requests with observations: {"results": [outcome per call, each with "runs":
{tool: body runs during that call}]}, or {"error": ..., "message": ...} when nothing could be called.
An `Exchange` is the parent's side of one request, for both sessions (local.py's and the sandbox's):
it runs the spy bodies when the child asks, so runs are counted where the submission cannot touch
them, and takes nothing but well-formed outcomes, one per call, within channel.py's REQUEST_NODES
and REQUEST_TEXT (anything else: ChannelBroken). A student's text is cleaned here (clean_text).
"""

import unicodedata
from collections.abc import Callable
from typing import Any, Protocol

from grader.kit.boundary import spies
from grader.kit.boundary.channel import REQUEST_NODES, REQUEST_TEXT, refused
from grader.kit.errors import ChannelBroken
from grader.kit.intake import Submission

OUTCOMES = ("value", "raised", "not_implemented")
TEXT_LIMIT = 1000  # characters of an exception message kept
MAX_BODY_RUNS = 10_000  # body runs in one request: more is a loop, not an answer


class Session(Protocol):
    def request(self, req: dict) -> dict: ...  # may raise SessionDied, then always again
    def close(self) -> None: ...


SessionFactory = Callable[[Submission, int], Session]  # (the submission as read once, stage) -> its session


def clean_text(text: str, limit: int = TEXT_LIMIT) -> str:
    """A student's text made safe to show anywhere: no lone surrogates, no control characters, cut short
    (before it is cleaned a character at a time: each becomes one or more, so the first `limit` decide)."""
    cut = len(text) > limit
    text = _printable(text[:limit] if cut else text)
    return text[:limit] + " …" if cut or len(text) > limit else text


def _printable(text: str) -> str:
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")  # a lone "\udc80" becomes its escape
    return "".join(
        ch
        if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Cn")
        else ch.encode("unicode_escape").decode("ascii")
        for ch in text
    )


class Exchange:
    """The parent's side of one request: the spies, their counts per call, and the outcomes taken so far."""

    def __init__(self, request: dict):
        self.calls = len(request["calls"])
        self.spies = spies.bodies(request["table"]) if "table" in request else {}
        self.for_child = (
            {**request, "table": spies.without_bodies(request["table"])} if "table" in request else dict(request)
        )
        self.results: list[dict] = []
        self.error: dict | None = None
        self._runs: dict[str, int] = {}
        self._body_runs = 0
        self._nodes = self._text = 0  # what the outcomes taken hold: see _keep

    @property
    def done(self) -> bool:
        return self.error is not None or len(self.results) == self.calls

    def body(self, tool: Any) -> dict:
        """Run the body of `tool` once, here, for the call in progress; what it does goes to the child."""
        if self.done or type(tool) is not str or tool not in self.spies:
            # Not repr(tool) whatever it is: a list nested deep enough makes repr() raise RecursionError.
            named = repr(tool[:60]) if type(tool) is str else f"a {type(tool).__name__}"
            raise ChannelBroken(f"the submission's process asked to run a tool body it was not given ({named})")
        self._body_runs += 1
        if self._body_runs > MAX_BODY_RUNS:
            raise ChannelBroken(f"the submission ran tool bodies over {MAX_BODY_RUNS} times in one request")
        self._runs[tool] = self._runs.get(tool, 0) + 1
        return self.spies[tool].step()

    def take(self, frame: Any) -> None:
        """One frame from the child that is not a body run: an outcome, or the one error of a request."""
        if type(frame) is not dict or self.done:
            raise ChannelBroken("the submission's process sent something that is not an observation")
        if (
            frame.keys() == {"error", "message"}
            and frame["error"] in ("import", "child")
            and type(frame["message"]) is str
            and not self.results
            and not self._body_runs
        ):
            self.error = {"error": frame["error"], "message": clean_text(frame["message"])}
            return
        if len(frame) != 1 or next(iter(frame)) not in OUTCOMES:
            raise ChannelBroken(f"the submission's process sent an outcome that is not one of {', '.join(OUTCOMES)}")
        ((kind, value),) = frame.items()
        if kind != "value":
            if type(value) is not str:
                raise ChannelBroken(f"the submission's process sent a {kind!r} that is not text")
            value = clean_text(value)
        self._keep(value)
        self.results.append({kind: value, "runs": self._runs})
        self._runs = {}

    def _keep(self, value: Any) -> None:
        """Count what an outcome holds against the request's budget; ChannelBroken past it."""
        nodes, text = weigh(value)
        self._nodes, self._text = self._nodes + nodes, self._text + text
        if self._nodes > REQUEST_NODES:
            raise ChannelBroken(refused(f"{REQUEST_NODES:,} values in one request"))
        if self._text > REQUEST_TEXT:
            raise ChannelBroken(refused(f"{REQUEST_TEXT // 1024 // 1024} MB of text in one request"))

    def observation(self) -> dict:
        return self.error if self.error is not None else {"results": self.results}


def weigh(value: Any) -> tuple[int, int]:
    """(nodes, text) of decoded JSON data: its values and keys; the characters of its strs and keys and the
    bytes of its ints. Without recursion."""
    if type(value) is str:  # most outcomes: a reason, or None
        return 1, len(value)
    nodes, text, todo = 0, 0, [value]
    while todo:
        item = todo.pop()
        kind = type(item)
        nodes += 1
        if kind is str:
            text += len(item)
        elif kind is int:
            text += item.bit_length() // 8
        elif kind is list:
            todo.extend(item)
        elif kind is dict:
            nodes += len(item)
            text += sum(map(len, item))
            todo.extend(item.values())
    return nodes, text
