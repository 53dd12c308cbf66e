"""A seccomp filter for the sandboxed child: no network of any kind, and none of the ways around the fence.

Landlock has rules for TCP only; UDP, raw and netlink sockets, and a connect() to a
pathname UNIX socket (a Docker or Jupyter socket) are all made with socket(2), so the
filter refuses socket(2) outright (socketpair(2), which asyncio needs, stays). The
other refused calls are the ones that would get around it or around the uid the child
runs as: io_uring makes sockets without socket(2), ptrace and process_vm_* reach into
other processes, new namespaces and mounts change what paths mean (the new mount API's
calls, and clone(2) with a namespace flag, included), open_by_handle_at opens a file
without a path. And the ones that hold memory or state no rlimit counts and no session's
end removes: memfd_create (memory outside the address space), System V IPC and POSIX
message queues (objects that outlive every process, and pin kernel memory under limits
every user shares). Each returns EPERM, so the submission sees an ordinary
error; clone3(2), whose flags sit in memory a filter cannot read, returns ENOSYS, the
answer of a kernel without it, so that libc falls back to clone(2), where the flags are read.

Through libseccomp (Debian's libseccomp2) and its ctypes binding, pyseccomp.
"""

import ctypes
import errno
import functools
import os
import tempfile

REFUSED = (
    "socket",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "bpf",
    "userfaultfd",
    "perf_event_open",
    "keyctl",
    "add_key",
    "request_key",
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "open_by_handle_at",
    "name_to_handle_at",
    "kexec_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    # the new mount API: mounts without mount(2)
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "open_tree",
    "move_mount",
    "mount_setattr",
    # memory and state that outlive or escape the session's budgets
    "memfd_create",
    "memfd_secret",
    "shmget",
    "shmat",
    "shmctl",
    "shmdt",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "semget",
    "semop",
    "semtimedop",
    "semctl",
    "ipc",  # the single System V entry point of 32-bit x86
    # POSIX message queues: objects of the IPC namespace, like System V's, that outlive every process
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
)
# clone(2)'s flags that make a namespace: each refused where it is set (argument 0, the flags).
NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}


def available() -> str | None:
    """None when a filter can be loaded here, else why not."""
    try:
        import pyseccomp

        pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
    except Exception as error:  # no libseccomp, or a kernel without seccomp filters
        return f"seccomp unavailable ({type(error).__name__}: {error})"
    return None


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_BPF_INSTRUCTION = 8  # bytes of one struct sock_filter


@functools.cache
def program() -> bytes:
    """The filter as the kernel takes it (BPF), compiled by libseccomp once a process: the zygote
    compiles it before its first fork (4 ms), and each child only loads it."""
    import pyseccomp

    refused = pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
    rules: list[tuple[int, str, tuple]] = [(errno.EPERM, name, ()) for name in REFUSED]
    rules += [
        (errno.EPERM, "clone", (pyseccomp.Arg(0, pyseccomp.MASKED_EQ, flag, flag),))
        for flag in NAMESPACE_FLAGS.values()
    ]
    rules.append((errno.ENOSYS, "clone3", ()))
    for answer, name, conditions in rules:
        try:
            refused.add_rule(pyseccomp.ERRNO(answer), name, *conditions)
        except (ValueError, RuntimeError, OSError):  # a call this architecture does not have
            continue
    with tempfile.TemporaryFile() as compiled:
        refused.export_bpf(compiled)
        compiled.seek(0)
        return compiled.read()


def confine() -> None:
    """Load the filter into this process and all it starts; raises if it cannot. The caller has set
    no_new_privs (confine.enter), as the kernel requires of a process that is not root's."""
    compiled = program()
    instructions = ctypes.create_string_buffer(compiled, len(compiled))
    fprog = _SockFprog(len(compiled) // _BPF_INSTRUCTION, ctypes.cast(instructions, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"seccomp: {os.strerror(code)}")
