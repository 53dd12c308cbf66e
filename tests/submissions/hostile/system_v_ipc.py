# Hostile twist, appended to the reference tools.py at test time:
# at every import, System V shared memory, a message queue and a semaphore with a fixed
# key: objects that outlive every process unless the sandbox refuses them or gives the
# child a namespace of its own, and that a classmate's child with the same key would
# find. The module is the reference's otherwise: no stage may lose points, and nothing
# may be left behind.
import ctypes as _ctypes

_libc = _ctypes.CDLL(None, use_errno=True)
_KEY = 0x41474C31
_libc.shmget(_KEY, 64 << 20, 0o1666)
_libc.msgget(_KEY, 0o1666)
_libc.semget(_KEY, 1, 0o1666)
