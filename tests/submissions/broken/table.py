"""Broken submissions: the reference agtool/tools.py with one realistic student mistake each.

BROKEN: file name -> (snippet of the reference, what the student wrote instead, the stage
that must lose points, and only that stage). The tests write each as a full tools.py
at test time; a snippet must occur exactly once in the reference.
"""

BROKEN = {
    # ── stage 1 · contract ──
    "limit_up_to_3.py": (
        '"limit": {"type": "int", "min": 1, "max": 2}}',
        '"limit": {"type": "int", "min": 1, "max": 3}}', 1),
    "no_upgrade_link.py": (
        '        "upgrade": "stock_lookup_v2",\n', '', 1),
    "describe_without_enum.py": (
        '    if "allowed" in spec:\n        schema["enum"] = list(spec["allowed"])\n', '', 1),
    "describe_requires_every_arg.py": (
        '"required": [key for key, spec in specs.items() if spec.get("required", True)],',
        '"required": list(specs),', 1),
    # ── stage 2 · argument check ──
    "bool_accepted_as_int.py": (
        '    if isinstance(value, bool):  # bool is a subclass of int: True would pass as 1\n'
        '        return kind in ("bool", "any")\n', '', 2),
    "range_off_by_one.py": (
        '    if "min" in spec and not value >= spec["min"]:\n        return False\n',
        '    if "min" in spec and not value > spec["min"]:\n        return False\n', 2),
    "nan_passes.py": (
        '    if "min" in spec and not value >= spec["min"]:\n        return False\n'
        '    if "max" in spec and not value <= spec["max"]:\n        return False\n',
        '    if "min" in spec and value < spec["min"]:\n        return False\n'
        '    if "max" in spec and value > spec["max"]:\n        return False\n', 2),
    "unknown_names_ignored.py": (
        '    for arg in args:\n        if arg not in specs:\n            return f"unknown:{prefix}{arg}"\n', '', 2),
    "optional_args_required.py": (
        '            if spec.get("required", True):\n                return f"missing:{prefix}{arg}"\n'
        '            continue\n',
        '            return f"missing:{prefix}{arg}"\n', 2),
    # ── stage 3 · result check ──
    "dotted_path_missing.py": (
        'reason = check_fields(spec["items"], element, prefix=f"{prefix}{key}.")',
        'reason = check_fields(spec["items"], element, prefix="")', 3),
    "empty_not_caught.py": (
        '            if not item and not spec.get("allow_empty", False):\n                return f"empty:{prefix}{key}"\n', '', 3),
    "max_len_off_by_one.py": (
        'if "max_len" in spec and len(item) > spec["max_len"]:',
        'if "max_len" in spec and len(item) >= spec["max_len"]:', 3),
    "non_dict_result_raises.py": (
        '    if not isinstance(value, dict):\n        return "shape:result"\n    return check_fields(',
        '    return check_fields(', 3),
    # ── stage 4 · door ──
    "door_lets_exceptions_out.py": (
        '    except Exception as error:  # KeyboardInterrupt and SystemExit still stop the program\n',
        '    except (KeyError, ValueError) as error:\n', 4),
    "door_runs_body_on_bad_args.py": (
        '    reason = check_args(name, args)\n    if reason:\n        return failure(f"args:{reason}")\n'
        '    try:\n        value = TOOLS[name]["fn"](**args)\n'
        '    except Exception as error:  # KeyboardInterrupt and SystemExit still stop the program\n'
        '        return failure(f"tool:raised:{type(error).__name__}")\n',
        '    try:\n        value, raised = TOOLS[name]["fn"](**args), None\n'
        '    except Exception as error:\n        value, raised = None, error\n'
        '    reason = check_args(name, args)\n    if reason:\n        return failure(f"args:{reason}")\n'
        '    if raised:\n        return failure(f"tool:raised:{type(raised).__name__}")\n', 4),
    "door_trusts_any_name.py": (
        '    if not isinstance(name, str) or name not in TOOLS:\n        return failure(f"tool:unknown:{name}")\n',
        '    if name not in TOOLS:\n        return failure(f"tool:unknown:{name}")\n', 4),
    "door_keeps_bad_value.py": (
        '        return failure(f"result:{reason}")\n',
        '        return {"ok": False, "value": value, "error": f"result:{reason}"}\n', 4),
    # ── stage 5 · memo ──
    "failures_memoised.py": (
        'if key is not None and envelope["ok"] and is_json(envelope["value"]):',
        'if key is not None and is_json(envelope["value"]):', 5),
    "keys_not_sorted.py": (
        'return f"{name} {json.dumps(args, sort_keys=True)}"',
        'return f"{name} {json.dumps(args)}"', 5),
    "mutation_leaks_through_memo.py": (
        '        return json.loads(memo[key])\n    envelope = call_tool(name, args)\n'
        '    if key is not None and envelope["ok"] and is_json(envelope["value"]):\n'
        '        memo[key] = json.dumps(envelope)',
        '        return memo[key]\n    envelope = call_tool(name, args)\n'
        '    if key is not None and envelope["ok"] and is_json(envelope["value"]):\n'
        '        memo[key] = envelope', 5),
    "nan_gets_a_key.py": (
        '    if kind is float:\n        return math.isfinite(value)\n',
        '    if kind is float:\n        return True\n', 5),
    # ── stage 6 · retry graph ──
    "empty_result_retried.py": (
        '    "result:too_big": switch_to_upgrade,\n',
        '    "result:too_big": switch_to_upgrade,\n    "result:empty": lambda state: {"tool": state["tool"]},\n', 6),
    "no_attempt_limit.py": (
        '    if state["attempts"] >= runtime.context.max_attempts:\n        return "give_up"\n', '', 6),
    "prefix_lookup_missing.py": (
        '    return FIXES.get(reason) or FIXES.get(":".join(reason.split(":")[:2]))',
        '    return FIXES.get(reason)', 6),
    "same_reason_retried.py": (
        '    if reason in state["reasons"][:-1] or find_fix(reason) is None:',
        '    if find_fix(reason) is None:', 6),
}
