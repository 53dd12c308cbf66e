# Hostile twist, appended to the reference tools.py at test time:
# stage 2's check_args accepts everything, and the module tries to make the grader
# accept that too: it imports the grader's modules, patches them, and plants
# permissive fakes in sys.modules. Only stage 2 may lose points, as it would without
# the tampering.
import importlib
import sys
import types


def check_args(name, args):
    return None


def _accept_everything(*args, **kwargs):
    return set()


def _tamper():
    for name in ("grader", "grader.instructor.oracle", "grader.kit.boundary.runner", "grader.instructor.sandbox"):
        try:
            module = importlib.import_module(name)
        except (ImportError, OSError):
            module = None
        fake = types.ModuleType(name)
        fake.__getattr__ = lambda attribute: _accept_everything
        sys.modules[name] = fake
        if module is not None:
            for attribute in dir(module):
                if callable(getattr(module, attribute)):
                    setattr(module, attribute, _accept_everything)
    # Remove whatever guards the import system, and try again from the file system.
    sys.meta_path[:] = [finder for finder in sys.meta_path if type(finder).__module__ != "grader.instructor.sandbox"]
    for name in [name for name in sys.modules if name.startswith("grader")]:
        del sys.modules[name]
    try:
        oracle = importlib.import_module("grader.instructor.oracle")
    except (ImportError, OSError):      # OSError: where Landlock keeps the grader's files unread
        return
    for attribute in dir(oracle):
        if callable(getattr(oracle, attribute)):
            setattr(oracle, attribute, _accept_everything)


_tamper()
