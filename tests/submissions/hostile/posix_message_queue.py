# Hostile twist, appended to the reference tools.py at test time:
# at every import, a POSIX message queue with a fixed name, a message in it: an object of
# the IPC namespace that outlives every process unless the sandbox refuses mq_open or gives
# the child a namespace of its own, and that pins kernel memory for every uid that makes
# one (the system's limit on queues is shared by all). The module is the reference's
# otherwise: no stage may lose points, and nothing may be left behind.
import ctypes as _ctypes
import os as _os

_libc = _ctypes.CDLL(None, use_errno=True)
_QUEUE = b"/agtool-lab-left-behind"
_queue = _libc.mq_open(_QUEUE, _os.O_CREAT | _os.O_RDWR, 0o666, None)
if _queue >= 0:
    _libc.mq_send(_queue, b"left behind", 11, 0)
