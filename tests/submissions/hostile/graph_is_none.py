# Hostile twist, appended to the reference tools.py at test time:
# build_graph() gives None, while run() keeps the reference's graph to itself, and the module
# makes the child-side runner describe a compiled graph with the five nodes wherever it would
# describe what build_graph() gave. Every run is right; only 6.1, which asks for the graph,
# must be lost: what build_graph() gives must walk run's requests, not be described.
import sys

_the_graph = build_graph  # the reference's, kept out of reach of the module's build_graph
_FORGED = {"compiled": True, "type": "CompiledStateGraph",
           "nodes": ["__start__", "answer", "call", "fix", "give_up", "pick"]}


def build_graph():
    return None


def run(request, max_attempts=MAX_ATTEMPTS, memo=None, picker=None):
    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int):
        return {"request": request, "tool": None, "args": None, "result": None,
                "reasons": ["run:type:max_attempts"], "path": [], "attempts": 0,
                "status": "gave_up", "answer": None}
    context = RunContext(memo={} if memo is None else memo, max_attempts=max_attempts, picker=picker)
    config = {"recursion_limit": 2 * max(max_attempts, 1) + 5}
    return _the_graph().invoke({"request": request}, config=config, context=context)


_runner = sys.modules.get("grader.kit.boundary.runner")
if _runner is not None:
    if hasattr(_runner, "_describe_graph"):
        _runner._describe_graph = lambda graph: dict(_FORGED)
    if isinstance(getattr(_runner, "_AS", None), dict):
        _runner._AS["graph"] = lambda graph: dict(_FORGED)
