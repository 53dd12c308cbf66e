"""Stage 5 mutants: memo_key and call_memo. Each breaks one rule of their docstrings and costs that rule's check."""

from tests.mutation import mutant

_KEY = 'return f"{name} {json.dumps(args, sort_keys=True)}"'

MUTANTS = [
    mutant(
        "memo remembers failures",
        'if key is not None and envelope["ok"] and is_json(envelope["value"]):',
        'if key is not None and is_json(envelope["value"]):',
        "5.5",
    ),
    mutant("memo key from unsorted JSON", _KEY, 'return f"{name} {json.dumps(args)}"', "5.1"),
    mutant("memo key without the tool name", _KEY, "return json.dumps(args, sort_keys=True)", "5.2"),
    mutant(
        "memo key with True written as 1",
        _KEY,
        'return f"{name} {json.dumps(args, sort_keys=True)}".replace("true", "1")',
        "5.2",
    ),
    mutant(
        "memo key raises for args that are no dict",
        _KEY,
        'return f"{name} {json.dumps(dict(sorted(args.items())), sort_keys=True)}"',
        "5.2",
    ),
    mutant(
        "memo returns the stored object (caller mutation leaks)",
        "        return json.loads(memo[key])\n    envelope = call_tool(name, args)\n"
        '    if key is not None and envelope["ok"] and is_json(envelope["value"]):\n'
        "        memo[key] = json.dumps(envelope)",
        "        return memo[key]\n    envelope = call_tool(name, args)\n"
        '    if key is not None and envelope["ok"] and is_json(envelope["value"]):\n'
        "        memo[key] = envelope",
        "5.6",
    ),
    mutant(
        "memo key for non-JSON args (NaN gets a key)",
        "    if kind is float:\n        return math.isfinite(value)\n",
        "    if kind is float:\n        return True\n",
        "5.3",
    ),
    mutant(  # and raises where json.dumps does: an int of over 4,300 digits
        "memo key for any args json.dumps takes",
        "if not isinstance(name, str) or not is_json(args):",
        "if not isinstance(name, str):",
        "5.2",
        "5.3",
    ),
    mutant(  # a name that is no str may get a key, but not the key of another name: str(5) is "5"
        "memo key for a name that is no str, shared with the str name",
        "if not isinstance(name, str) or not is_json(args):",
        "if not is_json(args):",
        "5.2",
    ),
    mutant(  # json.dumps then raises on a value of 4,301 digits, in call_memo and memo_key alike
        "is_json holds every int",
        "return value.bit_length() <= MAX_INT_BITS",
        "return True",
        "5.2",
        "5.6",
    ),
    mutant(
        "no memo key for an int of 14,000 bits",
        "return value.bit_length() <= MAX_INT_BITS",
        "return value.bit_length() < MAX_INT_BITS",
        "5.3",
    ),
    mutant(
        "memo remembers calls without a key (all under None)",
        "    if key is not None and key in memo:\n        return json.loads(memo[key])\n"
        '    envelope = call_tool(name, args)\n    if key is not None and envelope["ok"]',
        "    if key in memo:\n        return json.loads(memo[key])\n"
        '    envelope = call_tool(name, args)\n    if envelope["ok"]',
        "5.3",
    ),
    mutant(
        "a hit runs the body again",
        "    if key is not None and key in memo:\n        return json.loads(memo[key])\n",
        "    if key is not None and key in memo:\n        call_tool(name, args)\n"
        "        return json.loads(memo[key])\n",
        "5.4",
    ),
    mutant(
        "memo key without a space: ('t1', 2) is ('t', 12)",
        _KEY,
        'return f"{name}{json.dumps(args, sort_keys=True)}"',
        "5.2",
    ),
    mutant(
        "is_json judges the text: a str that says NaN gets no key",
        "    if value is None or kind in (str, bool):\n        return True\n",
        '    if kind is str:\n        return "NaN" not in value and "Infinity" not in value\n'
        "    if value is None or kind is bool:\n        return True\n",
        "5.1",
    ),
    mutant(  # memo_key raises on args that hold themselves, call_memo on a value that does
        "is_json recurses into a list that holds itself",
        "    try:  # a list that holds itself recurses until Python stops it: no JSON text holds it\n"
        "        if kind is list:\n            return all(map(is_json, value))\n        if kind is dict:\n"
        "            return all(type(k) is str and is_json(v) for k, v in value.items())\n"
        "    except RecursionError:\n        return False\n",
        "    if kind is list:\n        return all(map(is_json, value))\n    if kind is dict:\n"
        "        return all(type(k) is str and is_json(v) for k, v in value.items())\n",
        "5.3",
        "5.6",
    ),
    mutant(
        "memo keeps any ok value json.dumps writes: a hit gives a list for a tuple",
        'if key is not None and envelope["ok"] and is_json(envelope["value"]):\n'
        "        memo[key] = json.dumps(envelope)  # a value JSON cannot hold is returned, not remembered\n",
        'if key is not None and envelope["ok"]:\n        try:\n            memo[key] = json.dumps(envelope)\n'
        "        except (TypeError, ValueError):\n            pass\n",
        "5.6",
    ),
    mutant(
        "memo json.dumps any ok envelope: raises on a set",
        'if key is not None and envelope["ok"] and is_json(envelope["value"]):',
        'if key is not None and envelope["ok"]:',
        "5.6",
    ),
]
