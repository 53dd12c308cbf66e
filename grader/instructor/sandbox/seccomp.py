"""A seccomp filter for the sandboxed child: no network of any kind, and none of the ways around the fence.

Landlock has rules for TCP only; UDP, raw and netlink sockets, and a connect() to a
pathname UNIX socket (a Docker or Jupyter socket) are all made with socket(2), so the
filter refuses socket(2) outright (socketpair(2), which asyncio needs, stays). The
other refused calls are the ones that would get around it or around the uid the child
runs as: io_uring makes sockets without socket(2), ptrace and process_vm_* reach into
other processes, new namespaces and mounts change what paths mean, open_by_handle_at
opens a file without a path. Each returns EPERM, so the submission sees an ordinary error.

Through libseccomp (Debian's libseccomp2) and its ctypes binding, pyseccomp.
"""

import errno

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
)


def available() -> str | None:
    """None when a filter can be loaded here, else why not."""
    try:
        import pyseccomp

        pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
    except Exception as error:  # no libseccomp, or a kernel without seccomp filters
        return f"seccomp unavailable ({type(error).__name__}: {error})"
    return None


def confine() -> None:
    """Load the filter into this process and all it starts; raises if it cannot."""
    import pyseccomp

    refused = pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
    for name in REFUSED:
        try:
            refused.add_rule(pyseccomp.ERRNO(errno.EPERM), name)
        except (ValueError, RuntimeError, OSError):  # a call this architecture does not have
            continue
    refused.load()
