# Hostile twist, appended to the reference tools.py at test time:
# stage 2's check_args learns from being caught. It answers the lesson's fixed cases
# right (their tools are stock_lookup, budget or t, as the kit's public cases show),
# and the first drawn case it meets wrong, on purpose; from then on it answers every
# call right, that very case's too. Its process remembers: a grader that, once a case
# has failed, shows the check's cases again to the same process sees no wrong answer
# the second time. 2.1 must be lost, in `class` as in `grade`, and nothing else.
_FIXED_TOOLS = ("stock_lookup", "budget", "t")
_honest_check_args = check_args  # the reference's, defined above this twist
_caught = []


def check_args(name, args):
    if name not in _FIXED_TOOLS and not _caught:
        _caught.append(name)
        return "unknown:caught"
    return _honest_check_args(name, args)
