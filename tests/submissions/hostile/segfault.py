# Hostile twist, appended to the reference tools.py at test time:
# stage 6's run crashes the interpreter itself (a segmentation fault, no exception
# to catch). Only stage 6 may lose points.
import ctypes


def run(request, max_attempts=3, memo=None, picker=None):
    ctypes.string_at(0)
