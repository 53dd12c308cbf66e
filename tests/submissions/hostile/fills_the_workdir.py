# Hostile twist, appended to the reference tools.py at test time:
# stage 2's check_args writes 16 MB files into its folder, each under the per-file cap,
# 80 MB together against the folder's 64 MB, then answers as the reference does.
# Only stage 2 may lose points.
import os

_reference_check_args = check_args


def check_args(name, args):
    for n in range(5):
        if not os.path.exists(f"fill{n}"):
            with open(f"fill{n}", "wb") as out:
                out.write(b"x" * (16 << 20))
    return _reference_check_args(name, args)
