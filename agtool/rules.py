"""The rules the grade judges, each written once, under the label of the check that judges it.

A check judges its rule and nothing else; every rule here is judged by its check. Two texts
are drawn from this one: the check's own (`Check.rule`, quoted in feedback) and the list
"What the grade judges", folded at the end of the stage's notebook; the docstring (or comment)
of agtool/tools.py that `where` names points to that list by label, and states no rule again.
`python -m grader.instructor.rule_text` writes the list and the pointers, and
tests/grader/test_rules.py fails while they differ from what it would write.

A rule is the lesson where it must be (the lesson's core rules, and what follows from them) and
accepts every reasonable choice where the lesson does not fix one; where it keeps one
choice exact, it says why. `example` is the notebook's alone: cases that show the rule,
printed in parentheses after it, never a rule of their own.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    where: str  # what it constrains in agtool/tools.py: a function, whose docstring points to it, or TOOLS or FIXES
    text: str  # the sentences, in Markdown: backticks mark code
    example: str = ""


RULES: dict[str, Rule] = {
    "1.1": Rule(
        "TOOLS",
        "Each TOOLS entry is a dict with fn (the function itself, not its name), description, args and returns; "
        "upgrade, if any, names another tool of TOOLS.",
    ),
    "1.2": Rule(
        "TOOLS",
        "stock_lookup's limit is an int from 1 to 2, its rows a list of at most 2 items {region: str, qty: int >="
        " 0}, and its upgrade is stock_lookup_v2.",
    ),
    "1.3": Rule(
        "TOOLS",
        "stock_lookup_v2 takes and gives what stock_lookup does (the same args and returns), has no upgrade of "
        "its own, and its fn is inventory.stock_lookup_v2, the endpoint that honours limit.",
    ),
    "1.4": Rule(
        "TOOLS",
        "delivery_eta takes sku and region (busan, jeju or seoul) and its days must lie in 0..14.",
    ),
    "1.5": Rule(
        "describe_tools",
        'describe_tools() gives one {"type": "function", "function": {...}} entry per tool of TOOLS, and nothing else.',
    ),
    "1.6": Rule(
        "describe_tools",
        "Each arg is a property with its JSON Schema type, enum for allowed, minimum and maximum for min and max;"
        " required lists the required args; additionalProperties is false. A description, or a default, in an arg"
        " spec is an extra that no check reads.",
    ),
    "2.1": Rule(
        "check_args",
        "`check_args` reads `TOOLS[name]` when it is called, and returns `None` when `args` meet its contract.",
    ),
    "2.2": Rule(
        "check_args",
        "Every name in `args` that the contract does not have is `unknown:<name>`, even a name that is not a str:"
        ' `{1: 2}` gives `unknown:1`. Inside a dict arg too: `{"where": {1: 2}}` gives `unknown:where.1`. After '
        "`unknown:` a name that is not a str may be spelled your way (`str(name)` is one way), so long as it "
        'names no field of the contract; where `str(name)` would (a name `1` beside a field named `"1"`), the '
        "lesson does not say, and any reason is right. `check_args` is called with a tool of TOOLS and a dict "
        "(the door sees to both): "
        "for an unknown tool or args that are not a dict, what it does is yours.",
    ),
    "2.3": Rule(
        "check_args",
        "A required arg (`required` is `True` unless the spec says `False`) that is absent is `missing:<arg>`; an"
        " absent optional arg is fine, and a present arg is never missing, even when its value is `None`, `0`, "
        "`False` or an empty str.",
    ),
    "2.4": Rule(
        "check_args",
        "`bool` never passes for `int` or `float` (bool is an int in Python!); an int passes for `float`; a dict "
        "subclass (an `OrderedDict`) passes for `dict`, as in a result (3.1); `any` lets every value through.",
    ),
    "2.5": Rule(
        "check_args",
        "Both bounds are inclusive, and NaN is outside every range that has a bound; a float arg with no `min` "
        "and no `max` lets NaN through. An int too big for a float, such as `10 ** 400`, is compared as it is: "
        "above `max` it is `range:<arg>`, and it never makes `check_args` raise.",
    ),
    "2.6": Rule(
        "check_args",
        "A value that is not in the arg's allowed list is `allowed:<arg>`, compared with its type: `bool` is "
        "never an int here either, so `True` is not allowed where `1` is (though `True == 1` in Python), nor `1` "
        "where `True` is. Whether an int equals a float of the same value (`1` against an allowed `1.0`) is "
        "yours: the lesson does not decide it, and the grade accepts either.",
    ),
    "2.7": Rule(
        "check_args",
        "Inside a nested arg the field is a dotted path: `type:filter.color`. An item of a list arg, at any "
        "depth, is named by its list: `range:points`. Every rule of the item spec holds for each item, allowed "
        "too: `allowed:skus`. Naming the item's position as well (`range:points.1`, `range:points[1]`) is right "
        "too: stage 6 fixes only top-level args, so nothing reads what follows the list's name.",
    ),
    "2.8": Rule(
        "check_args",
        "When several checks fail, any one of their reasons is right (`None` is not), but a name the contract "
        "does not have comes first: a misspelt arg is missing too, and stage 6 can rename the misspelling "
        "(`args:unknown`) where it has no fix for `args:missing`.",
    ),
    "3.1": Rule(
        "check_result",
        "`check_result` reads `TOOLS[name]` when it is called, and returns `None` when `value` meets its returns "
        "spec. Keys the spec does not mention are allowed.",
    ),
    "3.2": Rule(
        "check_result",
        "A value that is not a dict is `shape:result`. A dict subclass (an `OrderedDict`, as "
        "`json.loads(..., object_pairs_hook=OrderedDict)` gives) is a dict, as a value, a row or a key's value.",
    ),
    "3.3": Rule(
        "check_result",
        "A key of the spec that is missing, or a value of the wrong type, is `shape:<key>`: `True` is not an int,"
        " `4.0` is not an int, an int is a fine float (`total=10` passes), and an `any` key takes every type.",
    ),
    "3.4": Rule(
        "check_result",
        "An empty list, dict or str is `empty:<key>` unless the spec says `allow_empty=True`, in an `any` key "
        'too; `0`, `False` and `None` are not empty. An empty tuple, set or bytes (`()`, `set()`, `b""`) in an '
        "`any` key is no JSON value a tool sends: calling it empty or not is yours.",
    ),
    "3.5": Rule(
        "check_result",
        "A list longer than `max_len` is `too_big:<key>`; exactly `max_len` items pass.",
    ),
    "3.6": Rule(
        "check_result",
        "A number outside `min..max` is `range:<key>` (both bounds inclusive), NaN too; a float key with no `min`"
        " and no `max` lets NaN through, and so does an `any` key. An int too big for a float, such as `10 ** "
        "400`, is compared as it is: outside `min..max` it is `range:<key>`, and it never makes `check_result` "
        "raise.",
    ),
    "3.7": Rule(
        "check_result",
        "Every item of a list with `items` is checked against the item specs, items of items too, and the field "
        "is its dotted path: `range:rows.qty`; an item that is not a dict is `shape:<key>`. Naming the item's "
        "position as well (`range:rows.1.qty`, `range:rows[1].qty`) is right too: no later stage reads what "
        "follows the list's name.",
    ),
    "3.8": Rule(
        "check_result",
        "`check_result` never raises on a value JSON could send, nor on a set, bytes, an object or a dict with "
        "int keys where a key's value should be: each gets `None` or a reason. A value that breaks a rule never "
        'gets `None`, whatever another key holds. The one exception to "never raises": beside a value whose '
        "own `==` raises (no JSON value does), letting that `TypeError` out is right too, and so is a reason "
        "(the door refuses either); `None` is not: an `except` that answers `None` passes what it could not "
        "check.",
    ),
    "4.1": Rule(
        "call_tool",
        'Returns exactly `{"ok": bool, "value": ..., "error": str | None}`. ok is True only when every check '
        'passes: `{"ok": True, "value": value, "error": None}`. A failure has value None and its reason as error. '
        "The body is called with exactly the args given, as keywords: an optional arg left out stays out (its "
        "`default` is documentation only: the door never fills it in), and none is added or dropped.",
    ),
    "4.2": Rule(
        "call_tool",
        "A name that is not a str, or not in TOOLS, is `tool:unknown:<name>`; args that are not a dict are "
        "`args:shape:args`. A name that is not a str may be spelled your way after `tool:unknown:` (`str(name)` "
        "is one way): no tool has it, and nothing reads it.",
    ),
    "4.3": Rule(
        "call_tool",
        "Args that check_args refuses are `args:<reason>`, and the body is not run.",
    ),
    "4.4": Rule(
        "call_tool",
        "Any Exception from the body is `tool:raised:<ExceptionType>`. `<ExceptionType>` names the exception's "
        "class: `type(e).__name__` (`KeyError`), or a dotted name that ends in it (`Inventory.Down`, "
        "`builtins.KeyError`). KeyboardInterrupt, SystemExit, GeneratorExit and asyncio.CancelledError are no "
        "Exception: the door lets them out.",
        example=(
            "The grader's spy bodies raise every family of `Exception`, and each of these four: it expects the "
            "four to come out of `call_tool` as they went in."
        ),
    ),
    "4.5": Rule(
        "call_tool",
        "A value that check_result refuses is `result:<reason>`.",
    ),
    "4.6": Rule(
        "call_tool",
        "In order: `tool:unknown:<name>`, `args:shape:args`, `args:<reason>`, `tool:raised:<ExceptionType>`, "
        "`result:<reason>`; else ok.",
    ),
    "5.1": Rule(
        "memo_key",
        "Equal for args equal up to key order, nested too. A str name and dict args JSON holds exactly always get"
        " a key, whatever their strs say. `-0.0` and `0.0` are equal floats that JSON writes apart: one key "
        "for both, or two, is yours (a second key only costs a body run).",
        example=('`memo_key("t", {"sku": "NaN-1"})` is a key.'),
    ),
    "5.2": Rule(
        "memo_key",
        "Two different calls never share a key: 1, 1.0 and True give different keys, and so do two tool names. "
        "memo_key never raises: a name that is not a str, args that are not a dict and ints of more than 14,000 "
        "bits may get None or a key of their own.",
        example=(
            '`memo_key("t1", 2)` and `memo_key("t", 12)` are two keys, or None; `memo_key(5, args)` is None or a '
            'key that `memo_key("5", args)` is not.'
        ),
    ),
    "5.3": Rule(
        "memo_key",
        "None when JSON cannot hold the args exactly: NaN and infinities, tuples, sets, bytes and other objects, "
        "keys that are not str, and a list that holds itself. An int of up to 14,000 bits gets a key. A call "
        "without a key is never remembered.",
        example=("`2 ** 14_000 - 1` has 14,000 bits: a key."),
    ),
    "5.4": Rule(
        "call_memo",
        "A hit returns the remembered envelope without running the body.",
    ),
    "5.5": Rule(
        "call_memo",
        "Only ok envelopes are remembered.",
    ),
    "5.6": Rule(
        "call_memo",
        "A hit equals the envelope it remembers and is never the same object, so a caller who changes a returned "
        "value cannot change what a later hit returns. call_memo never raises: a value JSON cannot hold exactly "
        "(a set, a tuple, a key 1, a list that holds itself, an int of over 4,300 digits) is not remembered, or "
        "remembered exactly.",
        example=("Which of the two you choose is not judged: the body may run again, or a hit may equal the envelope."),
    ),
    "6.1": Rule(
        "build_graph",
        'MAX_ATTEMPTS = 3 and DEFAULT_REGION = "seoul"; build_graph() compiles a StateGraph with the nodes pick, '
        "call, fix, answer and give_up.",
    ),
    "6.2": Rule(
        "run",
        'A call that succeeds goes straight to answer: status "answered", one door call, through the memo run is '
        "given. The answer is a sentence that shows the ok value's text: every str in it, keys too, as it is "
        "(non-ASCII letters such as É too, never escaped), or with the escapes `json.dumps` or `repr` write for "
        "quotes, backslashes and control characters (those are not letters). A value JSON cannot show (keys of "
        "mixed types, a list that holds itself) is answered with its text too, as `repr` writes it; one that "
        "holds an int of over 4,300 digits, which nothing in Python prints, with any sentence.",
        example=(
            'Its wording is yours: `json.dumps(value, ensure_ascii=False)` or a repr both show `"É"`; '
            '`json.dumps` alone writes `\\u00c9`, raises `TypeError` on `{"sku": "A-100", 1: "extra"}` with '
            "`sort_keys=True`, and `ValueError` on a list that holds itself (`log = [()]; log.append(log)`), "
            'which a repr writes `[(), [...]]`. "Never escaped" is kept exact on purpose: the answer is the '
            "sentence the agent gives a person, and `\\u00c9` is JSON's spelling for a program, not a letter "
            "anyone reads."
        ),
    ),
    "6.3": Rule(
        "run",
        "A fix is looked up by the full reason, then by its `<stage>:<check>` prefix, never by how a reason "
        "starts: `args:allowed:region_code` has no fix; a fixable reason takes the fix edge and calls again.",
        example=(
            'Under every seed it also sends `{"sku": "A-100", "skuu": "B-200", ...}`, which must be answered '
            "about A-100; a misspelt `sku:`, whose reason `args:unknown:sku:` has the prefix `args:unknown`; and "
            "`limit=2 ** 1100`, clamped to 2."
        ),
    ),
    "6.4": Rule(
        "run",
        "A reason with no fix (result:empty above all) goes straight to give_up: one door call.",
    ),
    "6.5": Rule(
        "run",
        "A reason that comes back, or a fix that cannot help, gives up: a fix cannot help when it returns None "
        "(no upgrade) or when its field is not an arg of the contract (a dotted field such as where.min_qty). "
        "use_default_region may instead return None (cannot help) where the contract's allowed list has no "
        "DEFAULT_REGION.",
        example=(
            "So `args:range:where.min_qty` and `args:unknown:where.max_qty` take the fix edge, find their "
            'prefix\'s fix, and give up after it: path pick, call, fix, give_up. Where `"seoul"` is not allowed, a'
            " fix that writes it anyway gives up when `args:allowed:region` comes back, after two door calls, and"
            " one that returns None gives up after one: both are right. A reason that comes back is also probed "
            "where no choice avoids it: a tool and its upgrade that upgrade to each other, both answering too "
            "many rows."
        ),
    ),
    "6.6": Rule(
        "run",
        "At most max_attempts door calls; max_attempts=0 makes none, and so does a negative one. Any int is a "
        "limit: a run of max_attempts calls is never cut short, and a huge max_attempts (2 ** 40) costs nothing "
        "until the calls are made. A max_attempts that is not an int (True and False included) makes no call: the"
        ' run gives up at once (status "gave_up", attempts 0, answer None) with a reason that names max_attempts,'
        " such as run:type:max_attempts.",
        example=(
            "LangGraph stops a run whose steps reach its `recursion_limit`: a run of n calls takes up to 2n + 1 "
            "steps, and 2 when max_attempts is 0 or below, so `2 * max(max_attempts, 0) + 3` never cuts one "
            "short, and `2 ** max_attempts` is no limit to compute. The grade runs 51 calls with "
            "`max_attempts=51`, and `max_attempts=-2 ** 40`, with LangGraph's default limit at 25, as before "
            "LangGraph 1.0 and as a deployment may set it with `LANGGRAPH_DEFAULT_RECURSION_LIMIT`: a run that "
            "leaves the limit to LangGraph is cut short. "
            'The rest of that state is yours: the lab\'s own is `agtool.contract.ODD_LIMIT`, `{"tool": None, '
            '"args": None, "result": None, "reasons": ["run:type:max_attempts"], "path": [], "attempts": 0, '
            '"status": "gave_up", "answer": None}`.'
        ),
    ),
    "6.7": Rule(
        "run",
        "The state holds tool, args, result (the last envelope), reasons, path, attempts, status and answer.",
    ),
    "6.8": Rule(
        "FIXES",
        "FIXES maps args:allowed:region to use_default_region, args:range to clamp_into_range, args:unknown to "
        "rename_or_drop and result:too_big to switch_to_upgrade. A fix changes only the field its reason names, "
        "and every other arg the caller gave stays as it was: rename_or_drop renames onto a contract arg not "
        'given yet, else drops the name; switch_to_upgrade returns None (or `{"tool": None}`) when the tool has '
        "no upgrade, and never raises. clamp_into_range sets the arg to min when it is below min, to max when it "
        "is above max, an int of any size too; NaN is neither, so for NaN it may return None, or set the arg to "
        "any number within the bounds (min, max, or between). A fix returns a new args dict: the one in "
        '`state["args"]` is the caller\'s, and stays as it was. use_default_region sets DEFAULT_REGION whatever '
        'the value was, a near miss (`"Busan"`) too. What rename_or_drop does with an arg name that is not a '
        "str (`{1: 2}`) is yours: the lesson's names are strs, and the grade sends no other to a fix.",
        example=(
            "A fix reads the field the reason names as a top-level arg of the contract: for a dotted field such "
            "as where.min_qty it finds none, and cannot help. The grader calls each fix of your `FIXES` alone, "
            "with a state, so this check scores before `run` is written. For a tool with no upgrade, `None` and "
            '`{"tool": None}` both say "cannot help", which is all the fix node needs to know; an exception there'
            " is a bug: the spec names the case and its answer."
        ),
    ),
    "6.9": Rule(
        "run",
        "picker(request) replaces the rules in pick: it is called once and must return (tool, args), which go to "
        "the door as they are. An exception out of the picker either goes out of run as it is, or ends the run "
        "gave_up at once (attempts 0, answer None) with a reason that names its type, such as "
        "pick:raised:ValueError.",
        example=("A picker that returns `(5, [])` is refused by the door, `tool:unknown:5`, and the run gives up."),
    ),
}
