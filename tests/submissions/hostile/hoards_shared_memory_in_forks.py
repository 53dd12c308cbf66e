# Hostile twist, appended to the reference tools.py at test time:
# stage 5's first call_memo forks four processes, one after the other; each maps 200 MB of
# MAP_SHARED | MAP_ANONYMOUS memory (shmem: statm calls it "shared", not anonymous),
# writes all of it, and forks a holder that reads every page (so each page is in two
# processes, private to neither), then both wait. 800 MB held together, under every
# process's address-space cap, against the submission's 512 MB; at no moment more than
# 200 MB private to one process. It answers as the reference does once all of it is held:
# only stage 5 may lose points.
import mmap
import os
import time

_reference_call_memo = call_memo
_sharing = []


def _hold_shared(holding):
    block = mmap.mmap(-1, 200 << 20)  # MAP_SHARED | MAP_ANONYMOUS
    chunk = b"x" * (1 << 20)
    for offset in range(0, len(block), len(chunk)):
        block[offset : offset + len(chunk)] = chunk  # written, so resident
    if os.fork() == 0:  # the holder maps every page too
        for offset in range(0, len(block), mmap.PAGESIZE):
            block[offset]
        os.write(holding, b"+")
    time.sleep(120)
    os._exit(0)


def call_memo(name, args, memo):
    if not _sharing:
        held, holding = os.pipe()
        for _ in range(4):
            pid = os.fork()
            if pid == 0:
                _hold_shared(holding)
            _sharing.append(pid)
            os.read(held, 1)
    return _reference_call_memo(name, args, memo)
