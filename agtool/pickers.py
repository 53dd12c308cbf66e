"""agtool.pickers: who fills the model's seat in the retry graph.

A picker turns a request into (tool, args): the `pick` node of stage 6 calls
one, and run(request, picker=...) swaps it. The rules picker (pick_by_rules: the
lab's own copy of the one tools.py is given) passes the request through as asked.
NoisyPicker does too, most of the time; otherwise it makes the mistakes the lesson
lists, the way a model does: wrong differently each time, and the same way again
for the same seed.
"""

import random
from collections.abc import Callable
from typing import Any

# Names a model reaches for instead of the contract's: close ones a fix can
# rename back (sku_id), and ones too far for that (max_results).
SYNONYMS = {
    "sku": ["sku_id", "product_sku", "item_code"],
    "limit": ["max_results", "top_k", "limits"],
    "region": ["location", "regions", "area"],
}
INVENTED_REGIONS = ["mars", "gangnam", "tokyo", "Seoul"]
INVENTED_TOOLS = ["stock_search", "get_stock", "inventory_lookup", "delivery_time"]
TOO_MANY_ROWS = 20


def pick_by_rules(request: Any) -> tuple:
    """Turn a request into (tool, args) by rule: tools.pick_by_rules, provided code outside the solution
    blocks, copied here so that the model seat never leans on a helper the student may rename."""
    if not isinstance(request, dict):
        return None, {}
    args = request.get("args", {})
    return request.get("tool"), dict(args) if isinstance(args, dict) else args


# Each mistake takes (tool, args, random) and returns the new (tool, args), or
# None when the request gives it nothing to get wrong (no limit to inflate).
def rename_to_synonym(tool: Any, args: dict, rng: random.Random) -> tuple | None:
    names = [name for name in args if name in SYNONYMS]
    if not names:
        return None
    name = rng.choice(names)
    renamed = {(rng.choice(SYNONYMS[name]) if key == name else key): value for key, value in args.items()}
    return tool, renamed


def number_as_string(tool: Any, args: dict, rng: random.Random) -> tuple | None:
    names = [name for name, value in args.items() if type(value) in (int, float)]
    if not names:
        return None
    name = rng.choice(names)
    return tool, {**args, name: str(args[name])}


def invent_region(tool: Any, args: dict, rng: random.Random) -> tuple | None:
    if "region" not in args:
        return None
    return tool, {**args, "region": rng.choice(INVENTED_REGIONS)}


def ask_too_many_rows(tool: Any, args: dict, rng: random.Random) -> tuple | None:
    if "limit" not in args:
        return None
    return tool, {**args, "limit": TOO_MANY_ROWS}


def call_a_tool_that_does_not_exist(tool: Any, args: dict, rng: random.Random) -> tuple | None:
    return rng.choice(INVENTED_TOOLS), args


MISTAKES: dict[str, Callable[[Any, dict, random.Random], tuple | None]] = {
    "synonym": rename_to_synonym,
    "number_as_string": number_as_string,
    "invented_region": invent_region,
    "too_many_rows": ask_too_many_rows,
    "unknown_tool": call_a_tool_that_does_not_exist,
}

# How often each mistake is tried on a request: with these, about two requests
# in five carry at least one mistake.
DEFAULT_RATES = {
    "synonym": 0.1,
    "number_as_string": 0.08,
    "invented_region": 0.1,
    "too_many_rows": 0.1,
    "unknown_tool": 0.05,
}


class NoisyPicker:
    """A picker that behaves like a model making the lesson's mistakes, reproducibly by seed.

    rates: mistake name -> chance in 0..1 that it is tried on a request (names
    in MISTAKES; unnamed ones keep DEFAULT_RATES). Each request draws the same
    number of random values whatever it holds, so one seed and one sequence of
    requests always give the same picks.
    """

    def __init__(self, seed: int = 0, rates: dict[str, float] | None = None):
        rates = {**DEFAULT_RATES, **(rates or {})}
        for name, rate in rates.items():
            if name not in MISTAKES:
                raise ValueError(f"rates names {name!r}; the mistakes are {', '.join(MISTAKES)}")
            if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
                raise ValueError(f"rates[{name!r}] is {rate!r}; give a chance between 0 and 1")
        self.seed, self.rates, self.random = seed, rates, random.Random(seed)

    def __call__(self, request: Any) -> tuple:
        """(tool, args) for a request, as the pick node wants them."""
        tool, args, _ = self.pick(request)
        return tool, args

    def pick(self, request: Any) -> tuple[Any, Any, list[str]]:
        """(tool, args, the names of the mistakes made), in MISTAKES order."""
        tool, args = pick_by_rules(request)
        made: list[str] = []
        for name, mistake in MISTAKES.items():
            tried = self.random.random() < self.rates[name]
            rng = random.Random(self.random.random())  # drawn every time, so the stream never shifts
            if tried and isinstance(args, dict):
                changed = mistake(tool, args, rng)
                if changed is not None:
                    (tool, args), made = changed, [*made, name]
        return tool, args, made

    def __repr__(self) -> str:
        return f"NoisyPicker(seed={self.seed!r}, rates={self.rates!r})"
