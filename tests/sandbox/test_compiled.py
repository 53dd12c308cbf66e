"""A submission compiled once a grade (grader/kit/compiled.py): the later children use the code only
when the file holds what the first child said, and compile the source themselves otherwise."""

import marshal
import os

import pytest

from grader.kit import compiled

pytestmark = pytest.mark.grader

SOURCE = b"def f():\n    return g()\n\n\ndef g():\n    raise ValueError('from g')\n\nANSWER = 42\n"


def job_in(folder, **more) -> dict:
    (folder / "tools.py").write_bytes(SOURCE)
    return {"path": str(folder / "tools.py"), "shown": f"{folder.name}/tools.py", "workdir": str(folder), **more}


def said_by(job: dict) -> tuple:
    read, write = os.pipe()
    code = compiled.prepare(job, write)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        return code, pipe.read()


def run(code) -> dict:
    names: dict = {}
    exec(code, names)
    return names


def test_the_first_child_compiles_writes_the_code_and_says_its_digest(tmp_path):
    code, said = said_by(job_in(tmp_path, keep_code=True))
    data = (tmp_path / compiled.CODE_FILE).read_bytes()
    assert said == b"\n" + compiled.digest(data).encode()
    assert run(code)["ANSWER"] == 42


def test_a_later_child_runs_the_code_as_compiled_from_the_file_its_job_names(tmp_path):
    first, later = tmp_path / "first", tmp_path / "later"
    first.mkdir(), later.mkdir()
    said_by(job_in(first, keep_code=True))
    data = (first / compiled.CODE_FILE).read_bytes()
    (later / compiled.CODE_FILE).write_bytes(data)
    given = {"sha256": compiled.digest(data), "source": compiled.digest(SOURCE)}
    code, said = said_by(job_in(later, code=given))
    assert said == b""  # it was not asked to keep one
    with pytest.raises(ValueError) as raised:
        run(code)["f"]()
    frames = []
    tb = raised.value.__traceback__
    while tb:
        frames.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    assert frames[-2:] == ["later/tools.py"] * 2  # f and g, as this child's job names the file: the line is found


@pytest.mark.parametrize("which", ["code", "source"])
def test_a_file_that_is_not_what_was_said_is_ignored_and_the_source_compiled(tmp_path, which):
    forged = compile("ANSWER = 'forged'", "x", "exec")
    (tmp_path / compiled.CODE_FILE).write_bytes(marshal.dumps(forged))
    data = (tmp_path / compiled.CODE_FILE).read_bytes()
    given = {"sha256": compiled.digest(b"something else"), "source": compiled.digest(SOURCE)}
    if which == "source":  # the digest holds, but for another tools.py than this child's
        given = {"sha256": compiled.digest(data), "source": compiled.digest(b"another tools.py")}
    code, _ = said_by(job_in(tmp_path, code=given))
    assert run(code)["ANSWER"] == 42


def test_source_that_does_not_compile_gives_none_and_writes_nothing(tmp_path):
    job = job_in(tmp_path, keep_code=True)
    (tmp_path / "tools.py").write_bytes(b"def f(:\n")
    code, said = said_by(job)
    assert code is None and said == b"" and not (tmp_path / compiled.CODE_FILE).exists()
