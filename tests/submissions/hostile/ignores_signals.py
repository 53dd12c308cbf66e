# Hostile twist, appended to the reference tools.py at test time:
# the module ignores and blocks the signals a timeout is usually made of,
# and stage 4's call_tool never returns. Only stage 4 may lose points.
import signal

_SIGNALS = (signal.SIGALRM, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGXCPU)
for _sig in _SIGNALS:
    signal.signal(_sig, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)


def call_tool(name, args):
    while True:
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
