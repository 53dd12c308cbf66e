# Hostile twist, appended to the reference tools.py at test time:
# stage 2's check_args writes six files of 15 MB into its folder (each under the per-file
# cap) and deletes each while it is still open: 90 MB held against the folder's 64 MB, in
# files no walk of the folder's names sees (their blocks stay until the last descriptor
# closes). Then it answers as the reference does: only stage 2 may lose points.
import os

_reference_check_args = check_args
_held = []


def check_args(name, args):
    if not _held:
        for n in range(6):
            with open(f"held{n}", "wb") as out:
                out.write(b"x" * (15 << 20))
            _held.append(os.open(f"held{n}", os.O_RDONLY))
            os.unlink(f"held{n}")
    return _reference_check_args(name, args)
