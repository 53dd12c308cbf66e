# Hostile twist, appended to the reference tools.py at test time:
# stage 2's check_args accepts everything, and the module then loads the instructor's
# reference solution (agtool/tools.py beside the lab's package, where the grader runs)
# into itself, which would put a correct check_args back. Where Landlock works the
# read is refused, so stage 2 loses points as it would without the attempt.
from pathlib import Path

import agtool


def check_args(name, args):
    return None


_reference = Path(agtool.__file__).with_name("tools.py")
try:
    exec(compile(_reference.read_text(), str(_reference), "exec"), globals())
except OSError:
    pass
