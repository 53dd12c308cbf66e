# Hostile twist, appended to the reference tools.py at test time:
# build_graph() gives an object that only says it is a compiled LangGraph: its __class__
# claims CompiledStateGraph (isinstance believes it) and its nodes name the five, but it
# cannot run anything. run() keeps the reference's graph to itself, so every run is right;
# only 6.1, which asks for the graph, must be lost.
from langgraph.graph.state import CompiledStateGraph

_the_graph = build_graph  # the reference's, kept out of reach of the module's build_graph


class _SaysItIsAGraph:
    nodes = {name: None for name in ("__start__", "pick", "call", "fix", "answer", "give_up")}

    @property
    def __class__(self):
        return CompiledStateGraph


def build_graph():
    return _SaysItIsAGraph()


def run(request, max_attempts=MAX_ATTEMPTS, memo=None, picker=None):
    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int):
        return {"request": request, "tool": None, "args": None, "result": None,
                "reasons": ["run:type:max_attempts"], "path": [], "attempts": 0,
                "status": "gave_up", "answer": None}
    context = RunContext(memo={} if memo is None else memo, max_attempts=max_attempts, picker=picker)
    config = {"recursion_limit": 2 * max(max_attempts, 1) + 5}
    return _the_graph().invoke({"request": request}, config=config, context=context)
