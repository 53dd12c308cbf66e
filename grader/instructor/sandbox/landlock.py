"""Landlock, through ctypes: kernel-enforced limits a sandboxed child cannot lift.

After `confine(workdir, readable)` this process and everything it starts may read only
beneath the `readable` paths and its workdir, may write only beneath workdir (and to
/dev/null), may not bind or connect TCP sockets (ABI 4, kernel 6.7+), and may not
signal, nor reach the abstract unix sockets of, any process outside the sandbox, such
as the grader (ABI 6, kernel 6.12+).

An allow-list, not a deny-list: what the child may read is named (Python, its packages,
the system's libraries, the private copy of the submission), so a repository's .git,
other checkouts, a class folder or OUT are out of reach without being listed.

Best effort: on a kernel without Landlock, or where a container forbids it, `abi()` is 0
and `confine` restricts nothing; the caller says so (grader/instructor/sandbox/confine.py).
"""

import ctypes
import os
import stat
from collections.abc import Iterable

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same on every architecture
_GET_ABI_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR, _TRUNCATE = 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 14
_READS = _EXECUTE | _READ_FILE | _READ_DIR
_FILE_RIGHTS = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE  # what a rule on a file may hold
# Every right that changes the file system -> the ABI version that knows it.
_CHANGES = {
    _WRITE_FILE: 1,
    1 << 4: 1,
    1 << 5: 1,
    1 << 6: 1,
    1 << 7: 1,
    1 << 8: 1,
    1 << 9: 1,
    1 << 10: 1,
    1 << 11: 1,
    1 << 12: 1,
    1 << 13: 2,
    _TRUNCATE: 3,
}
_TCP_BIND_AND_CONNECT, NET_SINCE = 0b11, 4
_SIGNALS_AND_ABSTRACT_SOCKETS, SCOPE_SINCE = 0b11, 6

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock cannot be used here."""
    return max(0, _libc.syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_GET_ABI_VERSION)))


def confine(workdir: str, readable: Iterable[str], version: int) -> None:
    """Restrict this process and its future children with ABI `version` (at most the kernel's); raises if it cannot."""
    changes = sum(right for right, since in _CHANGES.items() if since <= version)
    # Fields a kernel does not know are left zero: it accepts the larger struct then.
    ruleset = _RulesetAttr(
        changes | _READS,
        _TCP_BIND_AND_CONNECT if version >= NET_SINCE else 0,
        _SIGNALS_AND_ABSTRACT_SOCKETS if version >= SCOPE_SINCE else 0,
    )
    size = ctypes.sizeof(ruleset) if version >= SCOPE_SINCE else (16 if version >= NET_SINCE else 8)
    ruleset_fd = _call(_CREATE_RULESET, ctypes.byref(ruleset), ctypes.c_size_t(size), ctypes.c_uint32(0))
    try:
        rules = [(workdir, changes | _READS), (os.devnull, changes | _READS), *((path, _READS) for path in readable)]
        for path, allowed in rules:
            _allow(ruleset_fd, path, allowed & ruleset.handled_access_fs)
        _call_libc(_libc.prctl, _PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        _call(_RESTRICT_SELF, ruleset_fd, ctypes.c_uint32(0))
    finally:
        os.close(ruleset_fd)


def _allow(ruleset_fd: int, path: str, allowed: int) -> None:
    try:
        path_fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:  # not on this machine
        return
    try:
        if not stat.S_ISDIR(os.fstat(path_fd).st_mode):
            allowed &= _FILE_RIGHTS
        rule = _PathBeneath(allowed, path_fd)
        _call(_ADD_RULE, ruleset_fd, _RULE_PATH_BENEATH, ctypes.byref(rule), ctypes.c_uint32(0))
    finally:
        os.close(path_fd)


def _call(number: int, *args) -> int:
    return _call_libc(_libc.syscall, number, *args)


def _call_libc(function, *args) -> int:
    result = function(*args)
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"landlock: {os.strerror(errno)}")
    return result
