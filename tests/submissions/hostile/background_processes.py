# Hostile twist, appended to the reference tools.py at test time:
# at import the module leaves seven processes behind, all deaf to SIGTERM and SIGHUP:
# a child in its process group, a double-forked daemon in a session of its own, a
# second one that forks three generations more, and a program started in a new
# session (or, where running programs is refused, a fork in a new session). It appends their pids to spawned.pids in its working directory, so the
# test can check that none outlives the grading. And a racer, in a session of its own,
# forks all the time (children that live a moment), so that some fork is under way
# when the grader's sweep of its uid goes round: none of them may outlive it either.
# The racer fills the sandbox's cap on processes now and then, so every fork of the twist's
# own waits for room (_fork): the twist must leave its processes behind, not fail to import.
import os
import signal
import subprocess
import time


def _fork():
    """os.fork(), waiting while the sandbox's cap on processes is full (the racer's children live a moment)."""
    while True:
        try:
            return os.fork()
        except BlockingIOError:
            time.sleep(0.01)


def _linger():
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
    time.sleep(600)
    os._exit(0)


def _daemon(generations, report):
    """In a session of its own, each generation forks the next, reports its pid and lingers."""
    os.setsid()
    for _ in range(generations):
        if _fork() != 0:
            break
    os.write(report, b"%d " % os.getpid())
    _linger()


def _racer():
    os.setsid()
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
    while True:
        try:
            if os.fork() == 0:
                time.sleep(0.05)
                os._exit(0)
        except OSError:  # the sandbox's cap on processes: wait for some to end
            time.sleep(0.01)
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass


def _spawn():
    child = _fork()
    if child == 0:
        _linger()
    read_end, write_end = os.pipe()
    for generations in (0, 3):
        middle = _fork()
        if middle == 0:
            if _fork() == 0:
                _daemon(generations, write_end)
            os._exit(0)             # the double fork: the daemons lose their parent
        os.waitpid(middle, 0)
    middle = _fork()
    if middle == 0:
        if _fork() == 0:
            _racer()
        os._exit(0)
    os.waitpid(middle, 0)
    try:
        program = subprocess.Popen(["sleep", "600"], start_new_session=True).pid
    except OSError:             # where the sandbox refuses to run programs: a new session all the same
        program = _fork()
        if program == 0:
            os.setsid()
            _linger()
    os.close(write_end)
    reported = b""
    while len(reported.split()) < 5:
        reported += os.read(read_end, 4096)
    with open("spawned.pids", "a") as record:
        record.write("".join(f"{pid}\n" for pid in [child, program, *map(int, reported.split())]))


_spawn()
