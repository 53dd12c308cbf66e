"""Stage 3 mutants: check_result and check_fields, each rule broken alone.

While stage 3 is probed has_type and in_range are the grader's own (stage isolation),
so every mutant here breaks a line of check_result or check_fields.
"""

from tests.mutation import mutant

MUTANTS = [
    mutant(
        "extra keys refused",
        "    for key, spec in specs.items():\n        if key not in value or",
        '    for key, spec in specs.items() if not set(value) - set(specs) else [("", {"type": "dict"})]:\n'
        "        if key not in value or",
        "3.1",
    ),
    mutant(
        "not a dict read as one",
        '    if not isinstance(value, dict):\n        return "shape:result"',
        '    if value is None:\n        return "shape:result"',
        "3.2",
    ),
    mutant(
        "shape ignored (any type passes)",
        'if key not in value or not has_type(value[key], spec["type"]):',
        "if key not in value:",
        "3.3",
    ),
    mutant(
        "float refuses int",
        'if key not in value or not has_type(value[key], spec["type"]):',
        'if key not in value or not has_type(value[key], spec["type"]) or '
        '(spec["type"] == "float" and type(value[key]) is int):',
        "3.3",
    ),
    mutant("empty ignored", 'if not item and not spec.get("allow_empty", False):', "if False:", "3.4"),
    mutant("allow_empty ignored", 'if not item and not spec.get("allow_empty", False):', "if not item:", "3.4"),
    mutant(
        "a falsy value (0, False, None) counted empty",
        "        item = value[key]\n        if isinstance(item, (list, dict, str)):",
        '        item = value[key]\n        if not item and not spec.get("allow_empty", False):\n'
        '            return f"empty:{prefix}{key}"\n        if isinstance(item, (list, dict, str)):',
        "3.4",
    ),
    mutant(
        "max_len off by one",
        'if "max_len" in spec and len(item) > spec["max_len"]:',
        'if "max_len" in spec and len(item) >= spec["max_len"]:',
        "3.5",
    ),
    mutant("max_len ignored", 'if "max_len" in spec and len(item) > spec["max_len"]:', "if False:", "3.5"),
    # 3.8 too: its Touchy value sits beside an n of -1, and the range is all that is wrong there
    mutant("range ignored", "        elif not in_range(item, spec):", "        elif False:", "3.6", "3.8"),
    mutant(
        "NaN passes",
        "        elif not in_range(item, spec):",
        "        elif item == item and not in_range(item, spec):",
        "3.6",
    ),
    mutant(
        "NaN refused without bounds",
        "        elif not in_range(item, spec):",
        "        elif item != item or not in_range(item, spec):",
        "3.6",
    ),
    mutant(
        "items ignored",
        '        if "items" in spec:\n            for element in item:',
        "        if False:\n            for element in item:",
        "3.7",
    ),
    mutant(
        "items of items ignored",
        'reason = check_fields(spec["items"], element, prefix=f"{prefix}{key}.")',
        'reason = check_fields(spec["items"], element, prefix=f"{prefix}{key}.") if not prefix else None',
        "3.7",
    ),
    mutant(
        "an item that is not a dict raises",
        '                if not isinstance(element, dict):\n                    return f"shape:{prefix}{key}"',
        '                if False:\n                    return f"shape:{prefix}{key}"',
        "3.7",
    ),
    mutant(
        "items named without their path",
        'reason = check_fields(spec["items"], element, prefix=f"{prefix}{key}.")',
        'reason = check_fields(spec["items"], element, prefix="")',
        "3.7",
    ),
    mutant(
        "raises on a value that is not JSON",
        '    if not isinstance(value, dict):\n        return "shape:result"\n    return check_fields(',
        '    if not isinstance(value, dict):\n        return "shape:result"\n'
        '    if any(type(v).__name__ in ("set", "bytes", "object") for v in value.values()):\n'
        '        raise TypeError("not JSON")\n    return check_fields(',
        "3.8",
    ),
]
