"""A submission compiled once a grade, not once a stage (a sixth of a stage's start): the child's side.

The first stage's child compiles tools.py before a line of it runs, writes the code (marshal) to
CODE_FILE and says its sha256 on the pipe only the grader's code holds; the parent keeps the file only
if its digest is the one said (the submission may have rewritten it since) and hands it to each later
child with both digests, which uses it only if they agree: the code is always the grader's compile of
the student's source, never anything the student's code wrote.
"""

import hashlib
import marshal
import os
from types import CodeType

CODE_FILE = ".tools.code"  # in a child's workdir, beside its tools.py
MAX_CODE_BYTES = 8 * 1024 * 1024  # a 1 MB tools.py marshals to a few MB; past this, each stage compiles


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def prepare(job: dict, said: int) -> CodeType | None:
    """The code of the job's tools.py, compiled as from job["shown"]: the parent's copy if its digests hold,
    else compiled here (and, when the job asks, written to CODE_FILE with its digest said on `said`). None
    if it does not compile: the import then fails with its SyntaxError (runner.load)."""
    path, shown = job["path"], job["shown"]
    try:
        with open(path, "rb") as file:
            source = file.read()
    except OSError:
        return None  # the import says why
    given = job.get("code")
    if given and given["source"] == digest(source):
        try:
            with open(os.path.join(job["workdir"], CODE_FILE), "rb") as file:
                data = file.read(MAX_CODE_BYTES + 1)
            if digest(data) == given["sha256"]:
                return _retarget(marshal.loads(data), shown)
        except (OSError, ValueError, EOFError, TypeError):
            pass
    try:
        code = compile(source, shown, "exec", dont_inherit=True)
    except Exception:  # SyntaxError, ValueError (a NUL byte), MemoryError, RecursionError: load says which
        return None
    if job.get("keep_code"):
        try:
            data = marshal.dumps(code)
            if len(data) <= MAX_CODE_BYTES:
                with open(os.path.join(job["workdir"], CODE_FILE), "wb") as file:
                    file.write(data)
                os.write(said, b"\n" + digest(data).encode())
        except (OSError, ValueError):  # a full workdir, a limit: the later stages compile for themselves
            pass
    return code


def _retarget(code: CodeType, filename: str) -> CodeType:
    """code, and every code object inside it, as compiled from `filename` (a later job may name it otherwise)."""
    consts = tuple(_retarget(const, filename) if isinstance(const, CodeType) else const for const in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)
