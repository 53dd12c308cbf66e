# Hostile twist, appended to the reference tools.py at test time:
# the grade compiles a submission once, in its first child, and hands the code to the later
# stages' children (grader/kit/compiled.py). At import (the code is written by then) this
# rewrites that file in its workdir with code of its own, which would give every later stage
# nothing but a SystemExit. The later stages must run the grader's compile of the source, and
# keep all their points.
import marshal as _marshal
import os as _os

_forged = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), ".tools.code")
if _os.path.exists(_forged):
    with open(_forged, "wb") as _file:
        _file.write(_marshal.dumps(compile("raise SystemExit('forged code ran')", __file__, "exec")))
