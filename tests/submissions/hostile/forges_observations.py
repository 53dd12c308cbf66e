# Hostile twist, appended to the reference tools.py at test time:
# stage 1 is left honest; for every later stage the module replaces the grader's
# child-side runner (which it can reach: it runs in the same process) with one that
# sends forged answers: an empty list of results, fewer outcomes than calls, outcomes
# with made-up fields, reasons that are not text, body runs it was never given, a
# lone surrogate. The grader must read every one as a broken channel, or as a wrong
# answer, and lose that stage's points; never crash, and never pass a check on them.
import sys

_runner = sys.modules.get("grader.kit.boundary.runner")
_FORGERIES = {
    2: lambda request: [{"results": []}],
    3: lambda request: [{"value": None}] * (len(request["calls"]) - 1) + [{"value": None, "runs": {}}],
    4: lambda request: [{"raised": 1}],
    5: lambda request: [{"body": "not given"}],
    6: lambda request: [{"error": "import", "message": "\udc80 forged"}, {"value": None}],
}

if _runner is not None:
    _honest = _runner.Child.answer

    def _forged(self, request, emit):
        forge = _FORGERIES.get(request.get("stage"))
        if forge is None:
            return _honest(self, request, emit)
        for frame in forge(request):
            emit(frame)

    _runner.Child.answer = _forged
