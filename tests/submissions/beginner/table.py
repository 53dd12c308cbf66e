"""The beginners' real bugs: for each beginner module, every bug still in it, with its fix.

BUGS: module -> [Bug(stage, what, old, new), ...]. `what` says what is wrong and quotes the rule of
the kit it breaks; `old` is an exact substring of the module, found once, and `new` the smallest
edit that makes that one bug right. A fix that needs several edits gives `old` and `new` as tuples
of the same length, applied pair by pair. With all its fixes applied a module is correct: it must
score 100. With every fix but one applied it must lose points in that bug's stage, and in no other.
How the modules and this table were made: README.md. tests/grader/test_validity.py judges them.

ONE_BUG: the one-bug modules of issue 33, each ../correct/kit_minimal.py with one edit, its only bug;
they are no files: one_bug_source makes each one's text, source reads any beginner module, and
`python tests/submissions/beginner/table.py DIR` writes them all into DIR, as a class hands them in.

Only bugs against a rule the kit states are here. What the reviewers called taste, or a rule the kit
leaves open, is a comment under its module and has no fix: the grader must not take points for it.
"""

import itertools
import sys
from pathlib import Path
from typing import NamedTuple


class Bug(NamedTuple):
    stage: int
    what: str
    old: str | tuple[str, ...]
    new: str | tuple[str, ...]


def cycle_guard(lines: str) -> tuple[str, str]:
    """is_json's list and dict lines, inside a try that makes a list holding itself no JSON."""
    inside = "".join(f"    {line}\n" for line in lines.splitlines())
    guarded = f"    try:  # a list that holds itself recurses until Python stops it\n{inside}"
    return lines, guarded + "    except RecursionError:\n        return False\n"


SELF_HOLDING = (
    'is_json and memo_key raise RecursionError on args holding a list that holds itself; the kit: is_json '
    '"Never raises: a list that holds itself is no JSON", "memo_key never raises", None for "a list that holds itself"'
)
ISINSTANCE_CONTAINERS = (
    "    if isinstance(value, list):\n        return all(is_json(v) for v in value)\n"
    "    if isinstance(value, dict):\n        return all(isinstance(k, str) and is_json(v) for k, v in value.items())\n"
)
HUGE_INT_ANSWER = (
    "an ok value holding an int of over 4300 digits (an extra key) makes answer raise ValueError, its repr "
    'fallback too, so run raises; the kit: run "Never raises", "a value JSON cannot show ... is answered too" '
    "(found while verifying the fixes, not in the reviewer's report)"
)
REPR_FALLBACK = (
    "        text = repr(value)\n",
    "        try:\n            text = repr(value)\n"
    "        except ValueError:  # an int of over 4300 digits: Python will not print it\n"
    '            text = "a value Python cannot print"\n',
)
REPR_ANSWER = (
    "    return {\"status\": \"answered\", \"answer\": f\"{state['tool']} answered: {state['result']['value']!r}\", "
    '"path": ["answer"]}\n',
    '    try:\n        text = repr(state["result"]["value"])\n'
    "    except ValueError:  # an int of over 4300 digits: Python will not print it\n"
    '        text = "a value Python cannot print"\n'
    "    return {\"status\": \"answered\", \"answer\": f\"{state['tool']} answered: {text}\", "
    '"path": ["answer"]}\n',
)
TUPLE_REMEMBERED = (
    "call_memo remembers an ok value JSON cannot hold exactly as JSON text: a tuple in it comes back a list "
    'on a hit; the kit: "A hit equals the envelope it remembers", "a value JSON cannot hold exactly (a set, '
    'a tuple, a key 1, a list that holds itself) is not remembered, or remembered exactly" (stated since the '
    "kit's revision; the reviewer, reading the kit before it, counted the JSON round trip taste)"
)
NOT_GIVEN_YET = '"rename_or_drop renames onto a contract arg not given yet, else drops the name"'
NEGATIVE = '"max_attempts=0 makes none, and so does a negative one", run "Never raises"'

ALLOWED_EQ = (
    "the allowed list is tested with `in` (==): True passes an any arg whose allowed holds 1; the kit: \"bool "
    "never passes for int\", \"A value that is not in the arg's allowed list is allowed:<arg>\" (stated since issue "
    "33: compared with its type; the kit before it was silent, so the reviewer could not count it)"
)
EXACT_DICT_ARG = (
    "has_type tests for a dict by its exact type: an OrderedDict for a dict arg is refused (and so is one in a "
    "result's dict key, where check_result asks has_type); the kit: \"a dict subclass (an OrderedDict) passes for "
    "dict, as in a result\" (2.4, stated when the kit's self-check found it where the grade did not)"
)
EXACT_DICT = (
    "check_result tests for a dict by its exact type: an OrderedDict result is shape:result; the kit: \"A value "
    "that is not a dict is shape:result\" (an OrderedDict is a dict: stated since issue 33, which turned the "
    "reviewer's taste into a rule)"
)
IN_PLACE = (
    "the fixes change state['args'] in place: the caller's dict (a picker's own) is rewritten; the kit: \"every "
    "other arg the caller gave stays as it was\", a picker's args \"go to the door as they are\" (judged since issue "
    "33, which turned the reviewer's taste into a rule)"
)


def exact_allowed(line: str, value: str = "value", spec: str = "spec") -> tuple[str, str]:
    """A beginner's `value not in spec["allowed"]` line, and the same test compared with the type."""
    fixed = line.replace(
        f'{value} not in {spec}["allowed"]', f'not any(type({value}) is type(a) and {value} == a for a in {spec}["allowed"])'
    )
    return line, fixed


# ── the one-bug modules of issue 33: kit_minimal.py with one edit each ──────────

HERE = Path(__file__).resolve().parent
KIT_MINIMAL = HERE.parent / "correct" / "kit_minimal.py"
ONE_BUG_HEADER = (
    "# A beginner's tools.py, written for issue 33 by the engineer who added the check that sees its bug: the\n"
    "# kit's minimal correct module (../correct/kit_minimal.py) with one habit of a beginner who wrote from the\n"
    "# notebooks, {habit}. Its bug, and the fix, are in table.py; see README.md.\n"
)


class OneBug(NamedTuple):
    """A module that is ../correct/kit_minimal.py with one beginner's habit: its one bug, undone by its fix."""

    habit: str  # "who ...": the beginner, in the module's header
    checks: tuple[str, ...]  # the checks that see the bug, at every seed
    bug: Bug  # old: what the beginner wrote; new: kit_minimal.py's text that old replaces


# Each one a real beginner's bug, from the kit's own words (README.md); the comment says what was written.
ONE_BUG: dict[str, OneBug] = {
    # Fay wrote: call_tool fills in an optional arg's default before it calls the body.
    "fay.py": OneBug(
        "who fills in an optional arg's default at the door",
        ("4.1",),
        Bug(4, 'the door fills in an optional arg\'s default before calling the body (call_tool(\'t\', {}) runs the body with n=3); the kit: default is "documentation only: the door never fills it in"',
            '        defaults = {arg: spec["default"] for arg, spec in TOOLS[name]["args"].items() if "default" in spec}\n        value = TOOLS[name]["fn"](**{**defaults, **args})  # the model may leave an optional arg out\n',
            '        value = TOOLS[name]["fn"](**args)\n'),
    ),
    # Gus wrote: check_result tests for a dict with type(value) == dict.
    "gus.py": OneBug(
        "who tests for a dict by its exact type",
        ("3.1",),
        Bug(3, 'check_result tests for a dict with type(value) == dict: an OrderedDict result is shape:result; the kit: "A value that is not a dict is shape:result" (an OrderedDict is a dict)',
            '    return check_fields(specs, value, "") if type(value) == dict else "shape:result"\n',
            '    return check_fields(specs, value, "") if isinstance(value, dict) else "shape:result"\n'),
    ),
    # Hana wrote: use_default_region sets the allowed region closest to the one given.
    "hana.py": OneBug(
        "who lets use_default_region guess the region a near miss meant",
        ("6.8",),
        Bug(6, 'use_default_region maps a near miss to the allowed region it resembles ("Busan" to "busan", "Jeju" to "jeju") instead of DEFAULT_REGION; the kit: FIXES maps args:allowed:region to use_default_region, which sets DEFAULT_REGION',
            '        allowed = TOOLS[state["tool"]]["args"][name].get("allowed", [])\n        close = difflib.get_close_matches(str(state["args"][name]).lower(), allowed, n=1)  # "Jeju" meant jeju\n        return {"args": {**state["args"], name: close[0] if close else DEFAULT_REGION}}\n',
            '        return {"args": {**state["args"], name: DEFAULT_REGION}}\n'),
    ),
    # Ivan wrote: find_fix takes the first key of FIXES the reason starts with.
    "ivan.py": OneBug(
        "who looks a fix up by the start of the reason",
        ("6.3",),
        Bug(6, 'find_fix looks a reason up by startswith over FIXES\' keys: args:allowed:region_code gets use_default_region; the kit: "A fix is looked up by the full reason, then by its <stage>:<check> prefix"',
            '    for key, fix in FIXES.items():\n        if reason.startswith(key):\n            return fix\n    return None\n',
            '    return FIXES.get(reason) or FIXES.get(":".join(reason.split(":")[:2]))\n'),
    ),
    # Jin wrote: answer writes the value with json.dumps, and a stock phrase where it cannot.
    "jin.py": OneBug(
        "who answers with JSON and gives up on the text when json.dumps cannot write it",
        ("6.2",),
        Bug(6, 'the answer drops the value\'s text where json.dumps cannot write it (keys of mixed types, a list that holds itself): "a value that cannot be printed"; the kit: the answer "shows the ok value\'s text", "a value JSON cannot show ... is answered too"',
            '    try:\n        text = json.dumps(state["result"]["value"], sort_keys=True, ensure_ascii=False)\n    except (TypeError, ValueError):\n        text = "a value that cannot be printed"\n    return {"status": "answered", "answer": f"{state[\'tool\']} answered: {text}",\n',
            '    return {"status": "answered", "answer": f"{state[\'tool\']} answered: {_text(state[\'result\'][\'value\'], repr)}",\n'),
    ),
    # Kai wrote: clamp_into_range writes the clamped value into state["args"].
    "kai.py": OneBug(
        "who repairs the args a fix is handed in place",
        ("6.8",),
        Bug(6, 'clamp_into_range repairs state[\'args\'] in place: the caller\'s dict (a picker\'s own) is rewritten; the kit: "every other arg the caller gave stays as it was", a picker\'s args "go to the door as they are"',
            '    state["args"][name] = value  # repair the args where they are\n    return {"args": state["args"]}\n',
            '    return {"args": {**state["args"], name: value}}\n'),
    ),
    # Lea wrote: the allowed test compares values with == alone.
    "lea.py": OneBug(
        "who tests an allowed list with ==",
        ("2.6",),
        Bug(2, 'the allowed list is tested with ==: True passes an any arg whose allowed holds 1; the kit: "bool never passes for int", "A value that is not in the arg\'s allowed list is allowed:<arg>" (compared with its type)',
            '    if "allowed" in spec and not any(value == a for a in spec["allowed"]):\n',
            '    if "allowed" in spec and not any(type(value) is type(a) and value == a for a in spec["allowed"]):\n'),
    ),
    # Nico wrote: clamp_into_range clamps every arg out of range, not only the one its reason names.
    "nico.py": OneBug(
        "who clamps every number out of range while clamping one",
        ("6.3", "6.8"),
        Bug(6, 'clamp_into_range clamps every out-of-range arg, not only the one its reason names (limit=5 and budget=0.1: both repaired at once); the kit: "A fix changes only the field its reason names, and every other arg the caller gave stays as it was" (6.3 saw it only when its draw held two range failures: seeds 2, 3, 4 and 6 of the issue\'s seven)',
            '    args = {**state["args"], name: value}\n    for other, spec in TOOLS[state["tool"]]["args"].items():  # the other numbers out of range too, while here\n        if type(args.get(other)) in (int, float) and "min" in spec and args[other] < spec["min"]:\n            args[other] = spec["min"]\n        elif type(args.get(other)) in (int, float) and "max" in spec and args[other] > spec["max"]:\n            args[other] = spec["max"]\n    return {"args": args}\n',
            '    return {"args": {**state["args"], name: value}}\n'),
    ),
}


BUGS: dict[str, list[Bug]] = {
    # ── Ana (b1 beginner1) ──
    # Taste, no fix: call_memo quietly leaves out a value json.dumps cannot write (only successes
    # *may* be remembered).
    # Allowed since issue 33, though its reviewer counted it: clamp_into_range sets NaN to max when min is 0
    # (spec.get('min') or spec.get('max')): NaN may be set to any number within the bounds.
    "ana.py": [
        Bug(2, ALLOWED_EQ, *exact_allowed('        if "allowed" in spec and value not in spec["allowed"]:\n')),
        Bug(2, "a non-str name inside a nested dict arg raises TypeError ('unknown:' + prefix + key); the kit: "
            '"Every name in args that the contract does not have is unknown:<name>, even a name that is not a str", '
            '"Inside a dict arg too: {"where": {1: 2}} gives unknown:where.1"',
            '            return "unknown:" + prefix + key\n',
            '            return f"unknown:{prefix}{key}"\n'),
        Bug(5, SELF_HOLDING, *cycle_guard(ISINSTANCE_CONTAINERS)),
        Bug(5, TUPLE_REMEMBERED,
            '    if key is not None and result["ok"]:\n',
            '    if key is not None and result["ok"] and is_json(result["value"]):\n'),
        Bug(6, "memo = memo or {} swaps the caller's empty memo for a new one: the same call runs its body "
            'again; the kit: "one door call, through the memo run is given"',
            "    memo = memo or {}\n",
            "    memo = {} if memo is None else memo\n"),
        Bug(6, "recursion_limit is a fixed 100: a run of 50 calls or more raises GraphRecursionError; the kit: "
            '"Any int is a limit: a run of max_attempts calls is never cut short", run "Never raises"',
            'config={"recursion_limit": 100}',
            'config={"recursion_limit": 2 * max(max_attempts, 0) + 10}'),
        Bug(6, HUGE_INT_ANSWER, *REPR_FALLBACK),
    ],
    # ── Ben (b1 beginner2) ──
    # Taste, no fix: exact-type checks elsewhere (an OrderedDict refused as a result or an arg is a bug since
    # issue 33, as is changing state["args"] in place: listed below); the blanket
    # `except Exception: return "shape:result"` in check_result; find_fix raises IndexError on a
    # reason with no colon (outside the reason format); arg_schema leaves description out (an extra).
    # Harmless once clamp_into_range is right: fix() catches only KeyError.
    "ben.py": [
        Bug(2, EXACT_DICT_ARG,
            "    return type(value) == _PY_TYPES[kind]\n",
            '    return type(value) == _PY_TYPES[kind] or (kind == "dict" and isinstance(value, dict))\n'),
        Bug(2, ALLOWED_EQ,
            ('        if "allowed" in spec and v not in spec["allowed"]:\n',
             '                if "allowed" in item_spec and item not in item_spec["allowed"]:\n'),
            ('        if "allowed" in spec and not any(type(v) is type(a) and v == a for a in spec["allowed"]):\n',
             '                if "allowed" in item_spec and not any(type(item) is type(a) and item == a '
             'for a in item_spec["allowed"]):\n')),
        Bug(3, EXACT_DICT + " (its rows too)",
            ("        if type(value) != dict:\n", "                if type(item) != dict:\n"),
            ("        if not isinstance(value, dict):\n", "                if not isinstance(item, dict):\n")),
        Bug(6, IN_PLACE,
            ('    args = state["args"]\n    args["region"] = DEFAULT_REGION\n',
             '    spec = TOOLS[state["tool"]]["args"][name]\n    args = state["args"]\n',
             '    bad = field_of(state["reasons"][-1])\n    args = state["args"]\n'),
            ('    args = dict(state["args"])\n    args["region"] = DEFAULT_REGION\n',
             '    spec = TOOLS[state["tool"]]["args"][name]\n    args = dict(state["args"])\n',
             '    bad = field_of(state["reasons"][-1])\n    args = dict(state["args"])\n')),
        Bug(1, 'a nested dict arg\'s schema has no "additionalProperties": False; the kit: "Nested dicts are closed '
            'too. A dict arg with properties gets its own required and additionalProperties: False"',
            '        s["required"] = [k for k, v in spec["properties"].items() if v.get("required", True)]\n',
            '        s["required"] = [k for k, v in spec["properties"].items() if v.get("required", True)]\n'
            '        s["additionalProperties"] = False\n'),
        Bug(2, "an item of a list arg is checked one level down only: items of items pass unchecked "
            '(grid=[[1], [99]] against max 9 is None); the kit: "An item of a list arg, at any depth, is named '
            'by its list" -> range:grid',
            '                if "properties" in item_spec:\n'
            '                    r = check_arg_fields(item_spec["properties"], item, f + ".")\n'
            "                    if r:\n                        return r\n",
            '                if "properties" in item_spec:\n'
            '                    r = check_arg_fields(item_spec["properties"], item, f + ".")\n'
            "                    if r:\n                        return r\n"
            '                if "items" in item_spec:\n'
            "                    r = check_arg_fields({k: item_spec}, {k: item}, prefix)\n"
            "                    if r:\n                        return r\n"),
        Bug(5, SELF_HOLDING, *cycle_guard(
            "    if t == list:\n        return all(is_json(x) for x in value)\n"
            "    if t == dict:\n        return all(type(k) == str and is_json(v) for k, v in value.items())\n")),
        Bug(5, "call_memo remembers every ok value as JSON text, unguarded: json.dumps raises on a value JSON "
            "cannot write (a set in an extra key, a list that holds itself), and a tuple comes back a list on a hit; "
            'the kit: "call_memo never raises: a value JSON cannot hold exactly (a set, a tuple, a key 1, a list '
            'that holds itself) is not remembered, or remembered exactly", "A hit equals the envelope it remembers"',
            '    if key is not None and result["ok"]:\n',
            '    if key is not None and result["ok"] and is_json(result["value"]):\n'),
        Bug(6, "clamp_into_range calls math.isnan on an int too large for a float (limit=2**1100): "
            "OverflowError, and fix() lets it out, so run raises; the kit: clamp_into_range sets the arg \"to max "
            'when it is above max, an int of any size too", run "Never raises"',
            "    if math.isnan(v):\n",
            "    if v != v:  # NaN\n"),
        Bug(6, "rename_or_drop renames onto a contract arg already given (skuu -> sku overwrites the sku); "
            f"the kit: {NOT_GIVEN_YET}",
            '    names = list(TOOLS[state["tool"]]["args"].keys())\n'
            "    match = difflib.get_close_matches(bad, names, n=1, cutoff=0.6)\n"
            "    value = args.pop(bad)\n",
            "    value = args.pop(bad)\n"
            '    names = [n for n in TOOLS[state["tool"]]["args"] if n not in args]\n'
            "    match = difflib.get_close_matches(bad, names, n=1, cutoff=0.6)\n"),
        Bug(6, "recursion_limit 2n + 10 is below 1 for max_attempts <= -5 (ValueError) and too small at -4 "
            f"(GraphRecursionError); the kit: {NEGATIVE}",
            '"recursion_limit": 2 * max_attempts + 10}',
            '"recursion_limit": 2 * max(max_attempts, 0) + 10}'),
        Bug(6, "switch_to_upgrade raises KeyError for a tool with no upgrade; the kit: \"switch_to_upgrade returns "
            'None (or {"tool": None}) when the tool has no upgrade, and never raises"',
            '    return {"tool": TOOLS[state["tool"]]["upgrade"]}\n',
            '    return {"tool": TOOLS[state["tool"]].get("upgrade")}\n'),
        Bug(6, HUGE_INT_ANSWER, *REPR_FALLBACK),
    ],
    # ── Chloe (b1 beginner3) ──
    # Taste, no fix: run returns LangGraph's whole state (request too); the order of TOOLS; the
    # unknown-name check written twice, in check_args and check_arg_fields.
    # Allowed by the kit as it stands, though its reviewer counted it: switch_to_upgrade gives
    # {"tool": None} for a tool with no upgrade ("returns None (or {"tool": None})").
    "chloe.py": [
        Bug(2, ALLOWED_EQ, *exact_allowed('    if "allowed" in spec and value not in spec["allowed"]:\n')),
        Bug(5, 'is_json refuses any args whose JSON text holds "NaN" or "Infinity" (sku="NaN-1"): no key; the '
            'kit: "A str name and dict args JSON holds exactly always get a key, whatever their strs say"',
            "        text = json.dumps(value)\n    except (TypeError, ValueError):\n        return False\n"
            '    if "NaN" in text or "Infinity" in text:\n        return False\n',
            "        text = json.dumps(value, allow_nan=False)\n    except (TypeError, ValueError):\n"
            "        return False\n"),
        Bug(5, TUPLE_REMEMBERED,
            '    if envelope["ok"] and key:\n',
            '    if envelope["ok"] and key and is_json(envelope["value"]):\n'),
        Bug(6, "clamp_into_range calls math.isnan on an int too large for a float (limit=2**1100): the fix "
            "raises and the run gives up; the kit: clamp_into_range sets the arg \"to max when it is above max, an "
            'int of any size too", and the run calls again',
            "    if math.isnan(value):\n",
            "    if value != value:  # NaN\n"),
        Bug(6, "rename_or_drop renames onto a contract arg already given (skuu -> sku overwrites the sku); "
            f"the kit: {NOT_GIVEN_YET}",
            'difflib.get_close_matches(arg, list(TOOLS[state["tool"]]["args"]), n=1, cutoff=0.6)',
            'difflib.get_close_matches(arg, [n for n in TOOLS[state["tool"]]["args"] if n not in args], n=1, '
            "cutoff=0.6)"),
        Bug(6, "recursion_limit 2n + 5 is below 1 for max_attempts <= -3 (ValueError) and too small at -2 "
            f"(GraphRecursionError); the kit: {NEGATIVE}",
            '"recursion_limit": 2 * max_attempts + 5}',
            '"recursion_limit": 2 * max(max_attempts, 0) + 5}'),
        Bug(6, HUGE_INT_ANSWER, *REPR_ANSWER),
    ],
    # ── Sam (b2 student1) ──
    # Taste, no fix: exact-type checks (type(x) == ...; an int subclass as max_attempts is refused:
    # the kit states no rule for subclasses); functools.lru_cache on find_fix (a bug only if FIXES
    # changed while the module runs, which the kit does not name); an empty description left out;
    # one _REGION dict shared by every tool; the door's outer `except Exception` labels a check that
    # raises as tool:raised (harmless once the checks are right).
    # Not counted: is_json raises RecursionError on a list that holds itself (against its docstring),
    # but it is a helper no check calls, and memo_key, which does, catches it.
    # Allowed by the kit as it stands, though its reviewer counted it: is_json lets an int of more
    # than 14,000 bits through, so memo_key gives it a key of its own ("ints of more than 14,000 bits
    # may get None or a key of their own").
    "sam.py": [
        Bug(2, EXACT_DICT_ARG, "        return type(value) == dict\n", "        return isinstance(value, dict)\n"),
        Bug(2, ALLOWED_EQ, *exact_allowed('    if "allowed" in spec and value not in spec["allowed"]:\n')),
        Bug(1, 'arg_schema leaves out a max of 0 (if spec.get("max"):); the kit: "Each arg is a property with its '
            'JSON Schema type, enum for allowed, minimum and maximum for min and max"',
            '    if spec.get("max"):\n',
            '    if "max" in spec:\n'),
        Bug(1, 'arg_schema leaves a dict arg with properties {} open (if spec.get("properties"):); the kit: '
            '"A dict arg with properties gets its own required and additionalProperties: False"',
            '    if spec.get("properties"):\n',
            '    if "properties" in spec:\n'),
        Bug(2, "in_range calls math.isnan on an int too large for a float (limit=10**400): check_args raises "
            'OverflowError, bounds or none; the kit: "An int too big for a float, such as 10 ** 400, is compared '
            'as it is: above max it is range:<arg>, and it never makes check_args raise"',
            "    if math.isnan(value) and",
            "    if value != value and"),
        Bug(3, "check_result's `except Exception: return None` passes a value whose check raised (an any key "
            'whose == raises, beside an n of -1); the kit: "None when value meets TOOLS[name]["returns"]; else '
            'one reason", "check_result never raises" -> range:n',
            ('        if v in ("", [], {}) and not spec.get("allow_empty", False):\n',
             '        return check_fields(TOOLS[name]["returns"], value, "")\n    except Exception:\n'
             "        return None\n"),
            ('        if isinstance(v, (str, list, dict)) and len(v) == 0 and not spec.get("allow_empty", False):\n',
             '        return check_fields(TOOLS[name]["returns"], value, "")\n    except Exception:\n'
             '        return "shape:result"\n')),
        Bug(5, TUPLE_REMEMBERED,
            "            memo[key] = json.dumps(envelope)\n",
            "            text = json.dumps(envelope)\n"
            "            if json.loads(text) == envelope:  # a tuple would come back a list\n"
            "                memo[key] = text\n"),
        Bug(6, "clamp_into_range calls math.isnan on an int too large for a float (limit=10**400): the fix "
            "raises and the run gives up; the kit: clamp_into_range sets the arg \"to max when it is above max, an "
            'int of any size too", and the run calls again',
            "    if math.isnan(args[arg]):\n",
            "    if args[arg] != args[arg]:  # NaN\n"),
        Bug(6, HUGE_INT_ANSWER.replace("its repr fallback", "its str fallback"),
            "        text = str(value)\n",
            "        try:\n            text = str(value)\n"
            "        except ValueError:  # an int of over 4300 digits: Python will not print it\n"
            '            text = "a value Python cannot print"\n'),
    ],
    # ── Olly (b2 student2) ──
    # Taste, no fix: find_fix raises ValueError on a reason with no colon (outside the reason
    # format); the regions written out as literals instead of inventory.REGIONS.
    # Allowed by the kit as it stands, though its reviewer counted it: switch_to_upgrade gives
    # {"tool": None} for a tool with no upgrade ("returns None (or {"tool": None})").
    "olly.py": [
        Bug(2, ALLOWED_EQ, *exact_allowed('        if "allowed" in spec and value not in spec["allowed"]:\n')),
        Bug(2, "an item of a list arg is never checked against allowed (skus=['Z-999'] against allowed "
            "['A-100', 'B-200'] is None, and the body runs); the kit: \"Every rule of the item spec holds for each "
            'item, allowed too: allowed:skus"',
            '    if ("min" in spec or "max" in spec) and not in_range(item, spec):\n        return f"range:{field}"\n',
            '    if ("min" in spec or "max" in spec) and not in_range(item, spec):\n        return f"range:{field}"\n'
            '    if "allowed" in spec and not any(type(item) is type(a) and item == a for a in spec["allowed"]):\n'
            '        return f"allowed:{field}"\n'),
        Bug(5, SELF_HOLDING + " (found while verifying the fixes, not in the reviewer's report)",
            *cycle_guard(ISINSTANCE_CONTAINERS)),
        Bug(5, TUPLE_REMEMBERED,
            '    if key is not None and envelope["ok"]:\n',
            '    if key is not None and envelope["ok"] and is_json(envelope["value"]):\n'),
        Bug(6, "memo=memo or {} swaps the caller's empty memo for a new one: the same call runs its body "
            'again; the kit: "one door call, through the memo run is given"',
            "memo=memo or {}",
            "memo={} if memo is None else memo"),
        Bug(6, "no recursion_limit: LangGraph's default cuts a run of over 5,000 calls short "
            '(GraphRecursionError); the kit: "Any int is a limit: a run of max_attempts calls is never cut short"',
            '    return build_graph().invoke({"request": request}, context=context)\n',
            '    return build_graph().invoke({"request": request}, context=context,\n'
            '                                config={"recursion_limit": 2 * max(max_attempts, 0) + 10})\n'),
        Bug(6, "rename_or_drop renames onto a contract arg already given (skus -> sku overwrites the sku); "
            f"the kit: {NOT_GIVEN_YET}",
            "difflib.get_close_matches(arg, list(contract), n=1, cutoff=0.6)",
            "difflib.get_close_matches(arg, [n for n in contract if n not in args], n=1, cutoff=0.6)"),
        Bug(6, HUGE_INT_ANSWER, *REPR_FALLBACK),
    ],
    # ── Dana (b2 student3) ──
    # Taste, no fix (check_result's type(value) is not dict, refusing an OrderedDict, is a bug since
    # issue 33: listed below); fix() catches only (KeyError, ValueError), which no kit fix exceeds;
    # stock_lookup and stock_lookup_v2 share their args and returns dicts; check_args and
    # check_result run outside any try in the door (harmless while they are right).
    # Allowed by the kit as it stands, though its reviewer counted it: the door names the type by
    # __qualname__ (tool:raised:Inventory.Down: "or a dotted name that ends in it").
    "dana.py": [
        Bug(2, ALLOWED_EQ, *exact_allowed('    if "allowed" in spec and value not in spec["allowed"]:\n')),
        Bug(3, EXACT_DICT, "    if type(value) is not dict:\n        return \"shape:result\"\n",
            "    if not isinstance(value, dict):\n        return \"shape:result\"\n"),
        Bug(4, "the door catches BaseException and re-raises only three: asyncio.CancelledError, or any other "
            'BaseException, becomes tool:raised; the kit: "Any Exception from the body is tool:raised", '
            '"KeyboardInterrupt, SystemExit, GeneratorExit and asyncio.CancelledError are no Exception: the door '
            'lets them out"',
            "    except (KeyboardInterrupt, SystemExit, GeneratorExit):\n        raise\n"
            "    except BaseException as error:\n",
            "    except Exception as error:\n"),
        Bug(5, "no space between the name and the JSON: memo_key('t1', 2) == memo_key('t', 12); the kit: "
            '"Two different calls never share a key: ... and so do two tool names", "The space between the name '
            'and the JSON keeps ("t1", 2) apart from ("t", 12)"',
            "    return name + json.dumps(args, sort_keys=True)\n",
            '    return name + " " + json.dumps(args, sort_keys=True)\n'),
        Bug(5, SELF_HOLDING + " (found while verifying the fixes, not in the reviewer's report)",
            *cycle_guard(
                "    if isinstance(value, list):\n        return all(is_json(item) for item in value)\n"
                "    if isinstance(value, dict):\n"
                "        return all(isinstance(k, str) and is_json(v) for k, v in value.items())\n")),
        Bug(5, "call_memo remembers every ok value as JSON text and catches only ValueError: a set in an extra "
            "key raises TypeError out of call_memo, and a tuple comes back a list on a hit; the kit: \"call_memo "
            "never raises: a value JSON cannot hold exactly (a set, a tuple, a key 1, a list that holds itself) is "
            'not remembered, or remembered exactly", "A hit equals the envelope it remembers"',
            '    if envelope["ok"]:\n        try:\n            memo[key] = json.dumps(envelope)\n',
            '    if envelope["ok"] and is_json(envelope["value"]):\n        try:\n'
            "            memo[key] = json.dumps(envelope)\n"),
        Bug(6, "recursion_limit 2n + 2 is too small for max_attempts=0 (pick, give_up: GraphRecursionError) and "
            f"below 1 for negative ones (ValueError); the kit: {NEGATIVE}",
            '"recursion_limit": 2 * max_attempts + 2}',
            '"recursion_limit": 2 * max(max_attempts, 1) + 2}'),
        Bug(6, "find_fix takes the prefix with rsplit(':', 1): args:unknown:sku:id looks up args:unknown:sku and "
            'finds no fix; the kit: "A fix is looked up by the full reason, then by its <stage>:<check> prefix"',
            'FIXES.get(reason.rsplit(":", 1)[0])',
            'FIXES.get(":".join(reason.split(":")[:2]))'),
        Bug(6, HUGE_INT_ANSWER, *REPR_ANSWER),
    ],
    # ── the one-bug modules of issue 33 (ONE_BUG, above): each bug is its module's only one ──
    **{module: [one.bug] for module, one in ONE_BUG.items()},
}


# ── every beginner module, as text or as files ──────────────────────────────


def one_bug_source(module: str) -> str:
    """The text of a one-bug module ("fay.py"): kit_minimal.py's code under the module's header, its fix undone."""
    one = ONE_BUG[module]
    lines = KIT_MINIMAL.read_text(encoding="utf-8").splitlines(keepends=True)
    code = "".join(itertools.dropwhile(lambda line: line.startswith("#"), lines))  # its own header goes
    if code.count(one.bug.new) != 1:
        raise ValueError(f"{KIT_MINIMAL}: {module}'s fix (table.py ONE_BUG, new) is not found once: {one.bug.new!r}")
    return ONE_BUG_HEADER.format(habit=one.habit) + code.replace(one.bug.new, one.bug.old)


def source(module: str) -> str:
    """The text of any beginner module ("ana.py", "fay.py"): its file, or the one-bug module made."""
    return one_bug_source(module) if module in ONE_BUG else (HERE / module).read_text(encoding="utf-8")


def write(folder: Path, modules=None) -> list[Path]:
    """Write the beginner modules (all of BUGS by default) into folder, as a class hands them in; their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for module in BUGS if modules is None else modules:
        path = folder / module
        path.write_text(source(module), encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":  # python tests/submissions/beginner/table.py DIR: every beginner module, in DIR
    if len(sys.argv) != 2:
        sys.exit("usage: python tests/submissions/beginner/table.py DIR (writes every beginner module into DIR)")
    for written in write(Path(sys.argv[1])):
        print(written)
