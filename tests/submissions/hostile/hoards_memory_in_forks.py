# Hostile twist, appended to the reference tools.py at test time:
# stage 5's first call_memo forks six processes that each hold 150 MB (under the
# per-process cap, 900 MB together against the submission's 512 MB), waits until all of
# it is held, and answers as the reference does. Only stage 5 may lose points.
import os
import time

_reference_call_memo = call_memo
_hoarding = []


def call_memo(name, args, memo):
    if not _hoarding:
        held, holding = os.pipe()
        for _ in range(6):
            pid = os.fork()
            if pid == 0:
                block = b"x" * (150 << 20)  # written, so resident
                os.write(holding, b"+")
                time.sleep(120)
                os._exit(0)
            _hoarding.append(pid)
        for _ in _hoarding:
            os.read(held, 1)
    return _reference_call_memo(name, args, memo)
