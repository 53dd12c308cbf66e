"""Stage 2 mutants: check_args and its helpers, each rule broken alone."""

from tests.mutation import mutant

MUTANTS = [
    mutant(
        "bool accepted as int",
        '        return kind in ("bool", "any")\n    return isinstance(value, _PY_TYPES[kind])  # float',
        '        return kind in ("bool", "any", "int")\n    return isinstance(value, _PY_TYPES[kind])  # float',
        "2.4",
    ),
    mutant(
        "bool accepted as float",
        '        return kind in ("bool", "any")\n    return isinstance(value, _PY_TYPES[kind])  # float',
        '        return kind in ("bool", "any", "float")\n    return isinstance(value, _PY_TYPES[kind])  # float',
        "2.4",
    ),
    mutant(
        "int refused for float",
        "return isinstance(value, _PY_TYPES[kind])  # float takes an int too",
        'return isinstance(value, float if kind == "float" else _PY_TYPES[kind])  # float takes an int too',
        "2.4",
    ),
    mutant(
        "any refuses a present None",
        "return isinstance(value, _PY_TYPES[kind])  # float takes an int too",
        "return value is not None and isinstance(value, _PY_TYPES[kind])  # float takes an int too",
        "2.3",
    ),
    mutant(
        "exclusive min",
        'if "min" in spec and not value >= spec["min"]:\n        return False',
        'if "min" in spec and not value > spec["min"]:\n        return False',
        "2.5",
    ),
    mutant(
        "exclusive max",
        'if "max" in spec and not value <= spec["max"]:\n        return False',
        'if "max" in spec and not value < spec["max"]:\n        return False',
        "2.5",
    ),
    mutant(
        "NaN passes a min",
        'if "min" in spec and not value >= spec["min"]:\n        return False',
        'if "min" in spec and value < spec["min"]:\n        return False',
        "2.5",
    ),
    mutant(
        "NaN passes a max",
        'if "max" in spec and not value <= spec["max"]:\n        return False',
        'if "max" in spec and value > spec["max"]:\n        return False',
        "2.5",
    ),
    mutant(
        "NaN refused without bounds",
        '    if "min" in spec and not value >= spec["min"]:\n        return False',
        "    if value != value:\n        return False\n"
        '    if "min" in spec and not value >= spec["min"]:\n        return False',
        "2.5",
    ),
    mutant(
        "allowed ignored",
        'if "allowed" in spec and not any(type(value) is type(item) and value == item for item in spec["allowed"]):\n'
        '            return f"allowed',
        'if False:\n            return f"allowed',
        "2.6",
    ),
    mutant(
        "allowed tested with == (True passes where allowed holds 1)",
        "not any(type(value) is type(item) and value == item for item in",
        "not any(value == item for item in",
        "2.6",
    ),
    mutant("missing ignored", '                return f"missing:{prefix}{arg}"', "                pass", "2.3"),
    mutant(
        "optional reported missing",
        '            if spec.get("required", True):\n                return f"missing',
        '            if True:\n                return f"missing',
        "2.3",
    ),
    mutant(
        "a falsy value (0, False, None, an empty str) counted missing",
        '        if arg not in args:\n            if spec.get("required", True):',
        '        if not args.get(arg):\n            if spec.get("required", True):',
        "2.3",
    ),
    mutant(
        "an absent optional arg ends the check",
        '                return f"missing:{prefix}{arg}"\n            continue',
        '                return f"missing:{prefix}{arg}"\n            break',
        "2.3",
    ),
    mutant(
        "unknown ignored",
        '        if arg not in specs:\n            return f"unknown',
        '        if False:\n            return f"unknown',
        "2.2",
        "2.8",  # with a missing arg beside it, the missing one is reported first
    ),
    mutant("non-str names crash", 'return f"unknown:{prefix}{arg}"', 'return "unknown:" + prefix + arg', "2.2"),
    mutant("nested properties ignored", 'if kind == "dict" and "properties" in spec:', "if False:", "2.7"),
    mutant("list items ignored", 'if kind == "list" and "items" in spec:', "if False:", "2.7"),
    mutant(
        "items of items ignored",
        'if kind == "list" and "items" in spec:',
        'if kind == "list" and "items" in spec and spec["items"]["type"] != "list":',
        "2.7",
    ),
    mutant(
        "is for == on a type name (list)",  # a literal table interns "list": no item is checked
        'if kind == "list" and "items" in spec:',
        'if kind is not "list" and "items" in spec:',
        "2.7",
    ),
    mutant(
        "is for == on a type name, a table from JSON (list)",  # json.loads' "list" is no literal: no item checked
        'if kind == "list" and "items" in spec:',
        'if kind is "list" and "items" in spec:',
        "2.7",
    ),
    mutant(
        "is for == on a type name (dict)",
        'if kind == "dict" and "properties" in spec:',
        'if kind is not "dict" and "properties" in spec:',
        "2.7",
    ),
    mutant(
        "nested fields named without their path",
        'reason = check_arg_fields(spec["properties"], value, prefix=f"{prefix}{arg}.")',
        'reason = check_arg_fields(spec["properties"], value, prefix="")',
        "2.7",
    ),
    mutant(
        "check_args reads the first tool",
        'return check_arg_fields(TOOLS[name]["args"], args, prefix="")',
        'return check_arg_fields(next(iter(TOOLS.values()))["args"], args, prefix="")',
        "2.1",
    ),
]
