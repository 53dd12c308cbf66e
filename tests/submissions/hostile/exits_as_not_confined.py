# Hostile twist, appended to the reference tools.py at test time:
# stage 3's check_result ends its process with exit code 71, the code the zygote once
# used to say "this child could not be confined": a grader that believed it would blame
# the machine and grade nothing. Only stage 3 may lose points.
import os


def check_result(name, value):
    os._exit(71)
