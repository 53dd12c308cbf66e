# Hostile twist, appended to the reference tools.py at test time:
# no real code for stages 2 to 6. Each function looks for the grader's own solution in
# the process's memory, the way a student who read issue 9 would: every object the
# garbage collector knows (a module removed from sys.modules is still there) and every
# frame up the stack, and answers with what it finds. A child forked from a clean
# zygote holds no trusted code of the stage it probes (nor of any later one), so every
# one of stages 2 to 6 must lose points, as it would with no code at all.
import gc
import sys


def _find(name):
    """A function called `name` from any grader module in memory, or None."""
    for obj in gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") == name \
                and str(getattr(obj, "__module__", "")).startswith("grader"):
            return obj
    frame = sys._getframe()
    while frame is not None:
        for value in frame.f_globals.values():
            if str(getattr(value, "__name__", "")).startswith("grader") and hasattr(value, name):
                return getattr(value, name)
        frame = frame.f_back
    return None


def _stolen(name, wrong):
    def steal(*args):
        found = _find(name)
        return wrong if found is None else found(*args)
    return steal


_check_args = _stolen("arg_reason", "stolen nothing")
_check_result = _stolen("result_reason", "stolen nothing")


def check_args(name, args):
    return _check_args(TOOLS[name]["args"], args)


def check_result(name, value):
    return _check_result(TOOLS[name]["returns"], value)


def call_tool(name, args):
    return _stolen("call_tool", {"ok": False, "value": None, "error": "stolen nothing"})(TOOLS, name, args)


def call_memo(name, args, memo):
    return _stolen("call_memo", {"ok": False, "value": None, "error": "stolen nothing"})(TOOLS, name, args, memo)


def run(request, max_attempts=3, picker=None):
    return _stolen("run", {"status": "stolen nothing"})(TOOLS, request, max_attempts)
