"""Stage 4 mutants: the door, call_tool. Each breaks one rule of its docstring and costs that rule's check."""

from tests.mutation import mutant

_EXCEPT = "    except Exception as error:  # KeyboardInterrupt and SystemExit still stop the program\n"

MUTANTS = [
    mutant(
        "door catches BaseException (swallows KeyboardInterrupt)",
        _EXCEPT,
        "    except BaseException as error:\n",
        "4.4",
    ),
    mutant(
        "door lets exceptions out (catches only some families)",
        _EXCEPT,
        "    except (KeyError, ValueError) as error:\n",
        "4.4",
    ),
    mutant("door lets every exception out", _EXCEPT, "    except ArithmeticError as error:\n", "4.4"),
    mutant(
        "failure envelope with value=error",
        'return {"ok": False, "value": None, "error": reason}',
        'return {"ok": False, "value": reason, "error": reason}',
        "4.1",
    ),
    mutant(
        "failure envelope keeps the bad value",
        '        return failure(f"result:{reason}")\n',
        '        return {"ok": False, "value": value, "error": f"result:{reason}"}\n',
        "4.1",
    ),
    mutant(
        "ok envelope with an extra key",
        'return {"ok": True, "value": value, "error": None}\n    # END SOLUTION',
        'return {"ok": True, "value": value, "error": None, "tool": name}\n    # END SOLUTION',
        "4.1",
    ),
    mutant(
        "body runs on refused args",
        '    reason = check_args(name, args)\n    if reason:\n        return failure(f"args:{reason}")\n'
        '    try:\n        value = TOOLS[name]["fn"](**args)\n',
        '    try:\n        value = TOOLS[name]["fn"](**args)\n'
        '        reason = check_args(name, args)\n        if reason:\n            return failure(f"args:{reason}")\n',
        "4.3",
    ),
    mutant("refused args are not refused", '        return failure(f"args:{reason}")\n', "        pass\n", "4.3"),
    mutant("result not checked", "    reason = check_result(name, value)\n", "    reason = None\n", "4.5"),
    mutant(
        "unknown tool raises (a list name cannot be looked up)",
        "if not isinstance(name, str) or name not in TOOLS:",
        "if name not in TOOLS:",
        "4.2",
    ),
    mutant(
        "args that are no dict reach check_args",
        '    if not isinstance(args, dict):\n        return failure("args:shape:args")\n',
        "",
        "4.2",
    ),
    mutant(
        "args shape checked before the name",
        '    if not isinstance(name, str) or name not in TOOLS:\n        return failure(f"tool:unknown:{name}")\n'
        '    if not isinstance(args, dict):\n        return failure("args:shape:args")\n',
        '    if not isinstance(args, dict):\n        return failure("args:shape:args")\n'
        '    if not isinstance(name, str) or name not in TOOLS:\n        return failure(f"tool:unknown:{name}")\n',
        "4.6",
    ),
]
