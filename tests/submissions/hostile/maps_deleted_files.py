# Hostile twist, appended to the reference tools.py at test time:
# stage 2's check_args writes six files of 15 MB into its folder (each under the per-file
# cap), maps each, closes its descriptor and deletes it: 90 MB held against the folder's
# 64 MB by mappings alone, in files no walk of the folder's names sees and no open
# descriptor shows. Then it answers as the reference does: only stage 2 may lose points.
import ctypes
import mmap
import os

_reference_check_args = check_args
_mapped = []
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p


def check_args(name, args):
    if not _mapped:
        for n in range(6):
            with open(f"mapped{n}", "wb") as out:
                out.write(b"x" * (15 << 20))
            fd = os.open(f"mapped{n}", os.O_RDONLY)
            _mapped.append(_libc.mmap(None, 15 << 20, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0))
            os.close(fd)
            os.unlink(f"mapped{n}")
    return _reference_check_args(name, args)
