"""`python -m grader pilot`: before a term, what the sandbox will have on this machine and what the grade will do.

It names the kernel, the user, each layer (Landlock's ABI, seccomp, a uid of the child's own,
the namespaces root may make), the cgroups the machine has (the grader makes and writes none:
budgets are watched from the grader, grader/instructor/sandbox/budget.py), then starts one
confined child the way every grade does and says whether it came up confined. Last, the verdict:
what is left open, and whether the Gradescope bundle would grade here or refuse. The bundle's
setup.sh runs it, so the instructor's build log says it for Gradescope's own machine.
"""

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from grader.instructor.sandbox.confine import Layers
from grader.instructor.sandbox.session import SandboxSession
from grader.kit.errors import SessionDied


def cgroups() -> str:
    """The cgroup hierarchy here, in words: the grader reads none and writes none, on any of them."""
    if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        try:
            own = Path("/proc/self/cgroup").read_text().strip().rsplit(":", 1)[-1]
        except OSError:
            own = "?"
        delegated = os.access(f"/sys/fs/cgroup{own}", os.W_OK)
        return f"v2, this process in {own} ({'writable: delegated' if delegated else 'not writable'}); unused"
    if os.path.isdir("/sys/fs/cgroup"):
        return "v1 (the host's): unused"
    return "none"


def try_a_child() -> str:
    """Start one confined child on an empty module and ask it one request, as a grade does."""
    with tempfile.TemporaryDirectory(prefix="agtool-pilot-") as folder:
        path = os.path.join(folder, "tools.py")
        Path(path).write_text("ANSWER = 42\n")
        started = time.perf_counter()
        try:
            with SandboxSession(path, 1) as box:
                said = box.request({"stage": 1, "calls": [{"fn": "ANSWER", "get": True}]})
        except SessionDied as died:
            return f"could not be started: {died}"
        seconds = time.perf_counter() - started
    # An answer at all means confined: a child whose confinement fails exits before it reads a request.
    value = said.get("results", [{}])[0].get("value") if "results" in said else said
    if value != 42:
        return f"started, but answered {value!r} where 42 was asked"
    return f"started, confined, and answered in {seconds:.2f} s"


def report(layers: Layers | None = None, child: bool = True) -> list[str]:
    layers = layers or Layers.here()
    gaps = layers.missing()
    lines = [
        f"machine: {platform.system()} {platform.release()}, Python {platform.python_version()}, "
        f"uid {os.geteuid()}{' (root)' if os.geteuid() == 0 else ''}",
        layers.describe(),
        f"cgroups: {cgroups()}",
        "budgets: memory, processes, CPU time and workdir bytes per submission, watched from the grader"
        + (", and a process cap on each child's own uid" if layers.drop_user else ""),
    ]
    if child:
        lines.append(f"a confined child: {try_a_child()}")
    lines += [f"missing: {gap}" for gap in gaps] or ["missing: nothing"]
    lines.append(
        "reads: the grader's files, the class and its outputs are out of a child's reach"
        if layers.confines_reads()
        else "reads: NOT confined: a child can read the grader's files (the oracle) where its user can"
    )
    lines.append(
        "the Gradescope bundle grades here"
        if layers.confines_writes_and_signals()
        else "the Gradescope bundle refuses to grade here (it would score 0 with the reason) unless built "
        "with --allow-unconfined: run it as root, or on a Linux 6.12+ kernel (Landlock signal scoping)"
    )
    return lines


def command(parser: argparse.ArgumentParser):
    return run


def run(args: argparse.Namespace) -> int:
    print("\n".join(report()))
    sys.stdout.flush()
    return 0
