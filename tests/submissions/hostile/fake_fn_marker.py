# Hostile twist, appended to the reference tools.py at test time:
# every fn of TOOLS becomes a plain dict spelled like the channel's stand-in for a function
# ({"<not plain data>": "function", "callable": True}, what the child sends for a real one).
# Read as data it is the very marker a function becomes; but nothing can call it. Only
# calling each fn tells the two apart: stage 1 must lose 1.1 (fn is no function), 1.2 to 1.4
# (no body answers) and 1.5 (it needs 1.1), and keep 1.6 (tables of the grader's own).
import sys

_values = sys.modules.get("grader.kit.boundary.values")


def _spelled_like_a_function(fn):
    if _values is not None:
        return dict(_values.marker(fn))
    return {"<not plain data>": type(fn).__qualname__, "callable": True}


for _entry in TOOLS.values():
    _entry["fn"] = _spelled_like_a_function(_entry["fn"])
