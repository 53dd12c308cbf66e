"""Stage 5 judges the lesson, not the reference's choices: every reasonable memo scores full,
and each real bug a module written from the kit had costs its own check, with a hint that names it.

The lesson: one key exactly for one call (name and args, key order aside), memo_key never raises, a
str name with dict args JSON holds exactly always gets a key and args JSON cannot hold exactly never
do; a hit equals the envelope it remembers and is never the same object. The conventions, where any
choice is right: None or a key of its own for a name that is no str, args that are no dict and ints
over 14,000 bits; any text for the key; JSON text or an exact copy in the memo. Each variant below is
the reference with one such choice made the other way; each bug, one a module written without the
reference really had (tests/mutants/stage5.py holds them too, for the mutation matrix).
"""

from dataclasses import dataclass
from pathlib import Path

import pytest

from grader.kit.grading import grade
from grader.kit.local import LocalSession
from tests.mutation import edited

pytestmark = [pytest.mark.grader, pytest.mark.stage5]

SEEDS = (0, 7)
_KEY_LINES = (
    "if not isinstance(name, str) or not is_json(args):\n        return None\n"
    '    return f"{name} {json.dumps(args, sort_keys=True)}"'
)
_TRY_STORE = 'if key is not None and envelope["ok"]:\n        try:\n            memo[key] = json.dumps(envelope)\n'
_HIT = "        return json.loads(memo[key])\n"
_STORE = (
    'if key is not None and envelope["ok"] and is_json(envelope["value"]):\n'
    "        memo[key] = json.dumps(envelope)  # a value JSON cannot hold is returned, not remembered\n"
)


@dataclass(frozen=True)
class Variant:
    choice: str
    edits: tuple[tuple[str, str], ...]

    def source(self) -> str:
        return edited(self.choice, *self.edits)

    def write(self, folder: Path) -> Path:
        path = folder / "tools.py"
        path.write_text(self.source())
        return path


CHOICES = [
    Variant(
        "-0.0 and 0.0 share a key (equal floats; JSON writes them apart)",
        (
            (
                '    return f"{name} {json.dumps(args, sort_keys=True)}"',
                '    return f"{name} {json.dumps(unsigned_zeros(args), sort_keys=True)}"',
            ),
            (
                "\ndef is_json(",
                "\ndef unsigned_zeros(value):\n"
                "    if type(value) is float and value == 0:\n        return 0.0\n"
                "    if type(value) is list:\n        return [unsigned_zeros(item) for item in value]\n"
                "    if type(value) is dict:\n        return {k: unsigned_zeros(v) for k, v in value.items()}\n"
                "    return value\n\n\ndef is_json(",
            ),
        ),
    ),
    Variant(
        "no key for args that are not a dict (the door refuses them: no memo keeps them)",
        (
            (
                "if not isinstance(name, str) or not is_json(args):",
                "if not isinstance(name, str) or type(args) is not dict or not is_json(args):",
            ),
        ),
    ),
    Variant(  # not `return True`: json.dumps raises on an int of over 4,300 digits, and memo_key never raises
        "a key for every int json.dumps prints (JSON and Python hold 2 ** 14_000 exactly; 14,284 bits: 4,300 digits)",
        (("return value.bit_length() <= MAX_INT_BITS", "return value.bit_length() <= 14_284"),),
    ),
    Variant(
        "another key text: a bar between the name and compact JSON",
        (
            (
                'return f"{name} {json.dumps(args, sort_keys=True)}"',
                "return name + '|' + json.dumps(args, sort_keys=True, separators=(',', ':'), ensure_ascii=False)",
            ),
        ),
    ),
    Variant(
        "a key of its own for a name that is not a str",
        (
            (
                _KEY_LINES,
                "if not is_json(args) or not is_json(name):\n        return None\n"
                "    return json.dumps([name, args], sort_keys=True)",
            ),
        ),
    ),
    Variant(
        "an exact copy in the memo (copy.deepcopy), for every ok value",
        (
            (_HIT, '        return __import__("copy").deepcopy(memo[key])\n'),
            (
                _STORE,
                'if key is not None and envelope["ok"]:\n        memo[key] = __import__("copy").deepcopy(envelope)\n',
            ),
        ),
    ),
    Variant(
        "JSON text kept only when it gives the envelope back",
        (
            (
                _STORE,
                'if key is not None and envelope["ok"]:\n'
                "        try:\n            text = json.dumps(envelope)\n"
                "        except (TypeError, ValueError):\n            text = None\n"
                "        if text is not None and json.loads(text) == envelope:\n            memo[key] = text\n",
            ),
        ),
    ),
]


def failed_checks(path: Path, seed: int) -> dict:
    graded = grade(str(path), LocalSession, seed=seed, stages=(5,))
    return {result.check.label: result.mismatch for result in graded.results if not result.passed}


@pytest.mark.parametrize("variant", CHOICES, ids=[variant.choice for variant in CHOICES])
def test_a_reasonable_choice_costs_no_point(variant, tmp_path):
    path = variant.write(tmp_path)
    for seed in SEEDS:
        assert failed_checks(path, seed) == {}, f"seed {seed}"


# Each real bug: the check it costs, and words its feedback must say (in the got or the hint).
BUGS = [
    (
        "a list that holds itself makes memo_key raise RecursionError",
        Variant(
            "",
            (
                (
                    "    try:  # a list that holds itself recurses until Python stops it: no JSON text holds it\n"
                    "        if kind is list:\n            return all(map(is_json, value))\n",
                    "    if True:\n        if kind is list:\n            return all(map(is_json, value))\n",
                ),
                ("    except RecursionError:\n        return False\n", ""),
            ),
        ),
        {"5.3", "5.6"},
        ("RecursionError", "holds itself"),
    ),
    (
        'a str that says "NaN" gets no key (is_json searched the JSON text)',
        Variant(
            "",
            (
                (
                    "    if value is None or kind in (str, bool):\n        return True\n",
                    '    if kind is str:\n        return "NaN" not in value\n'
                    "    if value is None or kind is bool:\n        return True\n",
                ),
            ),
        ),
        {"5.1"},
        ("NaN-1", "type"),
    ),
    (
        "no space between the name and the JSON: ('t1', 2) and ('t', 12) share a key",
        Variant(
            "",
            (
                (
                    'return f"{name} {json.dumps(args, sort_keys=True)}"',
                    "return name + json.dumps(args, sort_keys=True)",
                ),
            ),
        ),
        {"5.2"},
        ("'t12' and 't12'", "apart"),
    ),
    (
        "json.dumps catches ValueError only: an ok value with a set raises TypeError",
        Variant(
            "",
            (
                (
                    _STORE,
                    _TRY_STORE + "        except ValueError:\n            pass\n",
                ),
            ),
        ),
        {"5.6"},
        ("TypeError", "never raises"),
    ),
    (
        "a hit is a lossy JSON copy: a tuple comes back a list",
        Variant(
            "",
            (
                (
                    _STORE,
                    _TRY_STORE + "        except (TypeError, ValueError):\n            pass\n",
                ),
            ),
        ),
        {"5.6"},
        ("'at': ()", "'at': []", "equal the envelope it remembers"),  # the smallest: an empty tuple
    ),
]


@pytest.mark.parametrize("bug, variant, checks, words", BUGS, ids=[bug for bug, *_ in BUGS])
def test_a_real_bug_costs_its_check_and_says_why(bug, variant, checks, words, tmp_path):
    path = variant.write(tmp_path)
    for seed in SEEDS:
        failed = failed_checks(path, seed)
        assert set(failed) == checks, f"seed {seed}"
        first = failed[min(checks)]
        said = f"{first.call}\n{first.expected}\n{first.got}\n{first.hint}"
        assert all(word in said for word in words), said
