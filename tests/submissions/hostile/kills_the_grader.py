# Hostile twist, appended to the reference tools.py at test time:
# at import the module tries to kill the process that grades it, and that process's
# whole group, then carries on as the reference. Where Landlock scopes signals
# (Linux 6.12+) both kills are refused; the test is skipped elsewhere, since it
# would kill the test run itself.
import os
import signal

for _kill, _target in ((os.kill, os.getppid()), (os.killpg, os.getpgid(os.getppid()))):
    try:
        _kill(_target, signal.SIGKILL)
    except OSError:
        pass
