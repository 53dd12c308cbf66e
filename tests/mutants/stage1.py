"""Stage 1 mutants: the contract table and describe_tools."""

from tests.mutation import mutant

MUTANTS = [
    mutant("describe_tools forgets additionalProperties: false",
           '"additionalProperties": False}', '"additionalProperties": True}', "1.5", "1.6"),
]
