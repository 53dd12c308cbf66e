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
    mutant(
        "memo key for any args json.dumps takes",
        "if not isinstance(name, str) or not is_json(args):",
        "if not isinstance(name, str):",
        "5.3",
    ),
    mutant(
        "memo key for a name that is no str",
        "if not isinstance(name, str) or not is_json(args):",
        "if not is_json(args):",
        "5.3",
    ),
    mutant(
        "memo key for an int of over 14,000 bits", "return value.bit_length() <= MAX_INT_BITS", "return True", "5.3"
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
]
