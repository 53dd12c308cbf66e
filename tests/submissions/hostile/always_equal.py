# Hostile twist, appended to the reference tools.py at test time:
# stage 2's check_args answers with a value equal to everything: it would pass any
# `==` made inside the student's process. Only stage 2 may lose points.


class AlwaysEqual(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


def check_args(name, args):
    return AlwaysEqual("")
