"""Stage 6 mutants: FIXES, build_graph and run. Each breaks one rule of their docstrings (and the comment
above FIXES) and costs that rule's check."""

from tests.mutation import mutant

MUTANTS = [
    mutant(
        "no attempt limit",
        '    if state["attempts"] >= runtime.context.max_attempts:\n        return "give_up"\n',
        "",
        "6.6",
    ),
    mutant(
        "max_attempts=0 still makes a call",
        'return "call" if state["attempts"] < runtime.context.max_attempts else "give_up"',
        'return "call" if state["attempts"] <= runtime.context.max_attempts else "give_up"',
        "6.6",
    ),
    mutant(
        "True counts as an attempt limit",
        "if isinstance(max_attempts, bool) or not isinstance(max_attempts, int):",
        "if not isinstance(max_attempts, int):",
        "6.6",
    ),
    mutant(
        "retries a repeated reason",
        '    if reason in state["reasons"][:-1] or find_fix(reason) is None:',
        "    if find_fix(reason) is None:",
        "6.5",
    ),
    mutant(
        "a fix that breaks ends the run",
        '        change = find_fix(state["result"]["error"])(state)\n    except Exception:',
        '        change = find_fix(state["result"]["error"])(state)\n    except ZeroDivisionError:',
        "6.5",
    ),
    mutant(
        "fix by prefix missing",
        '    return FIXES.get(reason) or FIXES.get(":".join(reason.split(":")[:2]))',
        "    return FIXES.get(reason)",
        "6.3",
    ),
    mutant(
        "an empty result is retried",
        '    "result:too_big": switch_to_upgrade,\n',
        '    "result:too_big": switch_to_upgrade,\n    "result:empty": lambda state: {"tool": state["tool"]},\n',
        "6.4",
    ),
    # "clamp to max for NaN" (value < spec["min"]: NaN falls through to max) is right since issue 33: NaN may
    # be set to any number within the bounds (6.8).
    mutant(
        "clamp gives up on a spec with only max",
        'if "min" in spec and not value >= spec["min"]:  # NaN lands on min',
        'if not value >= spec["min"]:',
        "6.8",
    ),
    mutant(
        "rename picks no close name",
        "closest = difflib.get_close_matches(arg, free, n=1, cutoff=0.6)",
        "closest = []",
        "6.8",
        # a wrong fix is seen alone (6.8) and through run (6.3): run's fixing is judged against the spec's fixes
        "6.3",
    ),
    mutant(
        "default region is the first allowed one",
        'return {"args": {**state["args"], "region": DEFAULT_REGION}}',
        'return {"args": {**state["args"], "region": TOOLS[state["tool"]]["args"]["region"]["allowed"][0]}}',
        "6.8",
        "6.3",
        "6.5",
    ),  # as above; and 6.5's repeated region is answered
    mutant("picker ignored", "picker = runtime.context.picker or pick_by_rules", "picker = pick_by_rules", "6.9"),
    mutant(
        "a raising picker gives a state",
        '    tool, args = picker(state["request"])\n',
        '    try:\n        tool, args = picker(state["request"])\n'
        "    except Exception:\n        tool, args = None, {}\n",
        "6.9",
    ),
    mutant(
        "the given memo is not used",
        "context = RunContext(memo={} if memo is None else memo,",
        "context = RunContext(memo={},",
        "6.2",
    ),
    mutant(
        "a recursion limit too small for a long run",
        '"recursion_limit": 2 * max(max_attempts, 1) + 5}',
        '"recursion_limit": max(max_attempts, 1) + 5}',
        "6.6",
    ),
    mutant(
        "a limit built from max_attempts' size",
        '"recursion_limit": 2 * max(max_attempts, 1) + 5}',
        '"recursion_limit": 2 << max(max_attempts, 1) + 5}',
        "6.6",
    ),
    mutant(
        "non-ASCII text escaped in the answer",
        "sort_keys=True, ensure_ascii=False, default=repr)",
        "sort_keys=True, default=repr)",
        "6.2",
    ),
    mutant(
        "an answer JSON cannot show raises",
        "except (TypeError, ValueError):  # mixed key types",
        "except ValueError:  # mixed key types",
        "6.2",
    ),
    mutant(
        "an answer drops the text of a value json.dumps cannot write",
        '            value = repr(state["result"]["value"])\n',
        '            value = "a value that cannot be printed"\n',
        "6.2",
    ),
    mutant(
        "an answer that holds itself raises",
        "except (TypeError, ValueError):  # mixed key types",
        "except TypeError:  # mixed key types",
        "6.2",
    ),
    mutant(
        "attempts not counted in the state",
        '"attempts": state["attempts"] + 1, "path": ["call"],',
        '"attempts": state["attempts"] + 1, "path": [],',
        "6.7",
    ),
]
