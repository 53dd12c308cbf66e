"""Stage 1 mutants: the contract table and describe_tools."""

from tests.mutation import mutant

MUTANTS = [
    mutant(
        "describe_tools forgets additionalProperties: false",
        '"additionalProperties": False}',
        '"additionalProperties": True}',
        "1.6",
    ),
]
MUTANTS += [
    mutant(
        "limit up to 3",
        '"limit": {"type": "int", "min": 1, "max": 2}}',
        '"limit": {"type": "int", "min": 1, "max": 3}}',
        "1.2",
        "1.3",
    ),
    mutant("no upgrade link", '        "upgrade": "stock_lookup_v2",\n', "", "1.2"),
    mutant(
        "days up to 15",
        '"days": {"type": "int", "min": 0, "max": 14}}',
        '"days": {"type": "int", "min": 0, "max": 15}}',
        "1.4",
    ),
    mutant(
        "describe_tools drops the enum", '        schema["enum"] = list(spec["allowed"])\n', "        pass\n", "1.6"
    ),
    mutant(
        "describe_tools requires every arg",
        '"required": [key for key, spec in specs.items() if spec.get("required", True)],',
        '"required": list(specs),',
        "1.6",
    ),
    mutant(
        "describe_tools loses the descriptions", '"description": tool["description"],', '"description": name,', "1.5"
    ),
]
