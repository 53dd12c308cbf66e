"""grader.instructor.mutation: the grader's blind spots, found by a real mutation-testing tool.

    python -m grader.instructor.mutation run [--seed S] [--jobs N] [--timeout SEC] [--sample K]
                                             [--json FILE] [--keep DIR]
    python -m grader.instructor.mutation report [RUN.json]
    python -m grader.instructor.mutation list
    python -m grader.instructor.mutation kill-check PATH [--seed S] [--reference REF]

cosmic-ray (pinned in requirements.txt) mutates only the lines strictly inside the `# BEGIN SOLUTION`
blocks (the kit's marker parser, grader/instructor/release.py, feeds its line filter), one mutant at a
time; its test command is `kill-check`, which grades the mutant in-process at a fixed seed: killed when
a check fails. `run` mutates copies in a snapshot of agtool/ and grader/ taken once, one `cosmic-ray exec`
per worker; agtool/tools.py is never written, and a stopped run leaves nothing running. A survivor is
an equivalent (listed with why in equivalent_mutants.toml) or a blind spot of the grader
(mutation_blind_spots.md). Exit 0 when every survivor is a listed equivalent, 1 when not (or a
kill-check broke), 2 on bad input. A mutant's identity is stable across runs: the operator, its
function, the text of its line and what the mutant puts there, never a line number alone.
"""

import argparse
import builtins
import contextlib
import ctypes
import difflib
import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from grader.instructor.release import ReleaseError, solution_blocks, stage_of
from grader.kit.checks import CHECKLISTS
from grader.kit.grading import grade
from grader.kit.local import LocalSession

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "agtool" / "tools.py"
EQUIVALENTS = Path(__file__).resolve().with_name("equivalent_mutants.toml")
RECORDED = Path(__file__).resolve().with_name("mutation_run.json")  # the last full run, checked in
BIN = Path(sys.executable).parent
SEED = 0
TIMEOUT = 180.0  # seconds for one kill-check (the reference grades in about 5)
MARK = "mutation-kill-check:"


class MutationError(Exception):
    """Bad input or a broken set-up: one clear line, exit 2."""


# ── Which lines are solution ─────────────────────────────────────────────────


def solution_ranges(source: str, filename: str = "tools.py") -> list[tuple[int, int]]:
    """(first, last) 1-based inclusive of the lines strictly inside each SOLUTION block."""
    try:
        blocks = solution_blocks(source.splitlines(), filename)
    except ReleaseError as error:
        raise MutationError(str(error)) from None
    ranges = [(begin + 2, end) for begin, end in blocks if end > begin + 1]
    if not ranges:
        raise MutationError(f"{filename}: no '# BEGIN SOLUTION' block: nothing to mutate")
    return ranges


# ── Mutants and their identity ───────────────────────────────────────────────


@dataclass(frozen=True)
class Mutant:
    job_id: str
    operator: str
    occurrence: int
    function: str  # the def the mutated node is in ("" at module level)
    start: int  # 1-based line of the mutated node (for the reader; not identity)
    end: int
    line: str  # the original text of the mutated line(s), stripped
    mutated: str  # what the mutant puts there, stripped
    nth: int = 0  # among mutants with the same identity otherwise, in file order

    @property
    def identity(self) -> tuple:
        return (self.operator, self.function, self.line, self.mutated, self.nth)

    def describe(self) -> str:
        where = f"{self.function}()" if self.function else "module level"
        return f"{self.operator} in {where}, line {self.start}: {self.line}  ->  {self.mutated}"


def _changed_text(original: list[str], mutated: list[str], start: int, end: int) -> tuple[str, str]:
    if len(original) == len(mutated):
        rows = [i for i in range(len(original)) if original[i] != mutated[i]] or list(range(start - 1, end))
        return (" / ".join(original[i].strip() for i in rows), " / ".join(mutated[i].strip() for i in rows))
    old, new = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=original, b=mutated, autojunk=False).get_opcodes():
        if tag != "equal":
            old += [line.strip() for line in original[i1:i2]]
            new += [line.strip() for line in mutated[j1:j2]]
    return " / ".join(old), " / ".join(new)


def describe_mutants(source: str, work_items) -> list[Mutant]:
    """Each work item (one mutation of `source`) with its identity, in file order.

    cosmic-ray names a mutant by its occurrence in the whole module, which would take a
    parse of the module per mutant; the same mutation is found by its position in the
    top-level statement around it (parsed alone, at its own line numbers) instead."""
    import cosmic_ray.plugins
    from cosmic_ray.ast import ast_nodes, get_ast
    from cosmic_ray.mutating import mutate_code

    original = source.splitlines()
    tops = [(child.start_pos[0], child.end_pos[0]) for child in get_ast(source).children]
    found = []
    for item in work_items:
        (spec,) = item.mutations
        operator = cosmic_ray.plugins.get_operator(spec.operator_name)(**(spec.operator_args or {}))
        first, last = next(((a, b) for a, b in tops if a <= spec.start_pos[0] <= b), (1, len(original)))
        piece = "\n" * (first - 1) + "\n".join(original[first - 1 : last]) + "\n"
        positions = [pos for node in ast_nodes(get_ast(piece)) for pos in operator.mutation_positions(node)]
        wanted = (tuple(spec.start_pos), tuple(spec.end_pos))
        local = [k for k, (start, end) in enumerate(positions) if (tuple(start), tuple(end)) == wanted]
        code = mutate_code(piece, operator, local[0]) if len(local) == 1 else None
        if code is None:  # not found alone: the whole module, as cosmic-ray does it
            code = mutate_code(source, operator, spec.occurrence)
            piece = source
        if code is None:
            raise MutationError(f"cosmic-ray listed {spec.operator_name} #{spec.occurrence} but cannot apply it")
        start, end = spec.start_pos[0], spec.end_pos[0]
        changed = _changed_text(piece.splitlines(), code.splitlines(), start, end)
        found.append(
            Mutant(item.job_id, spec.operator_name, spec.occurrence, spec.definition_name or "", start, end, *changed)
        )
    found.sort(key=lambda m: (m.start, m.operator, m.occurrence))
    seen: Counter[tuple] = Counter()
    numbered = []
    for mutant in found:
        numbered.append(replace(mutant, nth=seen[mutant.identity[:4]]))
        seen[mutant.identity[:4]] += 1
    return numbered


# ── The equivalents file ─────────────────────────────────────────────────────


@dataclass(frozen=True)
class Equivalent:
    operator: str
    function: str
    line: str
    mutated: str
    why: str
    nth: int = 0

    @property
    def identity(self) -> tuple:
        return (self.operator, self.function, self.line, self.mutated, self.nth)


def load_equivalents(path: Path = EQUIVALENTS) -> list[Equivalent]:
    if not path.exists():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise MutationError(f"{path}: not valid TOML: {error}") from None
    fields = ("operator", "function", "line", "mutated", "why")
    entries = []
    for number, entry in enumerate(data.get("equivalent", []), 1):
        missing = [key for key in fields if not isinstance(entry.get(key), str)]
        if missing:
            raise MutationError(f"{path}: [[equivalent]] #{number} has no str {missing[0]!r}")
        if not entry["why"].strip():
            raise MutationError(f"{path}: [[equivalent]] #{number} must say why it is equivalent")
        entries.append(Equivalent(**{key: entry[key] for key in fields}, nth=int(entry.get("nth", 0))))
    return entries


# ── cosmic-ray: a session of the solution's mutants ──────────────────────────


CONFIG = """\
[cosmic-ray]
module-path = "tools.py"
timeout = {timeout}
excluded-modules = []
test-command = {command}

[cosmic-ray.distributor]
name = "local"

[cosmic-ray.filters.line-filter]
lines = {{"tools.py" = [{lines}]}}
"""


def _tool(name: str, *args: str, cwd: Path) -> None:
    command = [str(BIN / name), *args]
    if not (BIN / name).exists():
        raise MutationError(f"{name} is not installed in {BIN}: pip install -r requirements.txt")
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, preexec_fn=_die_with_parent)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise MutationError(f"{name} {' '.join(args)} failed (exit {done.returncode}): {tail[0]}")


def new_session(workdir: Path, source: str, test_command: str = "true", timeout: float = TIMEOUT) -> Path:
    """Write tools.py and cr.toml into workdir; `cosmic-ray init`, then cosmic-ray's line filter.
    Returns the session database; its pending work items are the solution's mutants."""
    (workdir / "tools.py").write_text(source, encoding="utf-8")
    lines = ", ".join(json.dumps(f"{first}-{last}") for first, last in solution_ranges(source))
    config = CONFIG.format(timeout=float(timeout), command=json.dumps(test_command), lines=lines)
    (workdir / "cr.toml").write_text(config, encoding="utf-8")
    _tool("cosmic-ray", "init", "cr.toml", "session.sqlite", cwd=workdir)
    _tool("cr-filter-lines", "session.sqlite", "--config", "cr.toml", cwd=workdir)
    return workdir / "session.sqlite"


def pending(session: Path) -> list:
    from cosmic_ray.work_db import WorkDB, use_db

    with use_db(str(session), WorkDB.Mode.open) as db:
        return list(db.pending_work_items)


def _skip(session: Path, job_ids: list[str], why: str) -> None:
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    if job_ids:
        with use_db(str(session), WorkDB.Mode.open) as db:
            db.set_multiple_results(job_ids, WorkResult(output=why, worker_outcome=WorkerOutcome.SKIPPED))


def solution_mutants(source: str) -> list[Mutant]:
    """Every mutant cosmic-ray makes of the solution lines of `source` (in a temporary directory)."""
    with tempfile.TemporaryDirectory(prefix="agtool-mutants-") as tmp:
        session = new_session(Path(tmp), source)
        return describe_mutants(source, pending(session))


# ── The kill check: the grader as the test suite ─────────────────────────────


def kill_check(path: str, seed: int = SEED, reference: str | None = None) -> list[str]:
    """The labels of the checks that fail on the module at `path`, graded in-process (empty: it survives).
    Given the unmutated `reference`, the changed lines' stages are graded first and the rest only if they
    pass: the verdict of a full grade (each stage in its own session, each check seeded on its own), sooner."""
    from cosmic_ray.exceptions import CosmicRayTestingException

    # cosmic-ray's ExceptionReplacer writes `except CosmicRayTestingException:`, a handler
    # that catches nothing the module raises; the name must exist for that to mean it.
    builtins.CosmicRayTestingException = CosmicRayTestingException  # type: ignore[attr-defined]  # a new builtin
    source = Path(path).read_text(encoding="utf-8")
    everything = tuple(CHECKLISTS)
    first: tuple = everything
    if reference is not None:
        before = Path(reference).read_text(encoding="utf-8").splitlines()
        after = source.splitlines()
        changed = {i + 1 for i in range(min(len(before), len(after))) if before[i] != after[i]}
        if len(before) != len(after):
            changed.add(min(len(before), len(after)))
        stages = {stage_of(after, number) for number in changed}
        if stages and None not in stages:
            first = tuple(stage for stage in everything if stage in stages)
    for group in (first, tuple(stage for stage in everything if stage not in first)):
        if group:
            failed = [r.check.label for r in grade(path, LocalSession, seed=seed, stages=group).results if not r.passed]
            if failed:
                return failed
    return []


def _die_with_parent() -> None:
    """In a child: the kernel kills it when its parent dies (Linux), so a stopped run leaves nothing behind."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux: no prctl, nothing to arm
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _main_kill_check(args) -> int:
    _die_with_parent()
    # jsonschema builds the grammar of its optional "iri" format (rfc3987_syntax) at import: seconds per
    # mutant. The grader never checks formats, so making that import fail (None) changes no verdict.
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
    if os.getppid() == 1:  # the parent is already gone
        return 3
    for given in filter(None, (args.path, args.reference)):
        if not Path(given).is_file():
            print(f"mutation: error: no such file: {given}", file=sys.stderr)
            return 2
    try:
        failed = kill_check(args.path, args.seed, args.reference)
    except Exception as error:  # the grader itself broke on this module: neither killed nor survived
        print(f"{MARK} grader-error {type(error).__name__}: {error}")
        return 3
    if failed:
        print(f"{MARK} killed by {' '.join(failed)}")
        return 1
    print(f"{MARK} survived (every check passed, seed {args.seed})")
    return 0


# ── The run ──────────────────────────────────────────────────────────────────


@dataclass
class Outcome:
    mutant: Mutant
    status: str  # killed, timeout, survived, error
    detail: str  # the failing labels, or what broke


def _classify(result) -> tuple[str, str]:
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    output = result.output or ""
    marked = [line for line in output.splitlines() if line.startswith(MARK)]
    if result.worker_outcome != WorkerOutcome.NORMAL:
        return "error", f"cosmic-ray worker: {result.worker_outcome.value}: {output.strip()[-200:]}"
    if result.test_outcome == TestOutcome.SURVIVED and marked and "survived" in marked[-1]:
        return "survived", ""
    if result.test_outcome == TestOutcome.KILLED and output.strip() == "timeout":
        return "timeout", "no verdict within the timeout"
    if result.test_outcome == TestOutcome.KILLED and marked and " killed by " in marked[-1]:
        return "killed", marked[-1].split(" killed by ", 1)[1]
    return "error", (marked[-1] if marked else output.strip()[-300:] or "no output")


def _progress(sessions: list[Path]) -> int:
    done = 0
    for session in sessions:
        try:
            with sqlite3.connect(f"file:{session}?mode=ro", uri=True, timeout=1) as db:
                done += db.execute(
                    "select count(*) from work_results where lower(worker_outcome) != 'skipped'"
                ).fetchone()[0]
        except sqlite3.Error:
            pass
    return done


def run(
    seed: int = SEED,
    jobs: int | None = None,
    timeout: float = TIMEOUT,
    sample: int | None = None,
    keep: Path | None = None,
) -> tuple[list[Outcome], str]:
    """Every solution mutant, graded, and the tools.py they were made from (the snapshot's)."""
    from cosmic_ray.work_db import WorkDB, use_db

    jobs = max(1, jobs or os.cpu_count() or 1)
    tmp = Path(tempfile.mkdtemp(prefix="agtool-mutation-"))
    workers: list[subprocess.Popen] = []

    def stop(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    old = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        # One grader for the whole run: agtool/ and grader/ as they are now, copied once (they
        # are edited while a run takes its minutes); every kill-check imports this copy.
        snapshot = tmp / "src"
        for package in ("agtool", "grader"):
            debris = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")
            shutil.copytree(ROOT / package, snapshot / package, ignore=debris)
        source = (snapshot / "agtool" / "tools.py").read_text(encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(snapshot), os.environ.get("PYTHONPATH")]))}
        command = (
            f"{sys.executable} -m grader.instructor.mutation kill-check tools.py --seed {seed} --reference reference.py"
        )
        first = tmp / "w0"
        first.mkdir()
        session = new_session(first, source, command, timeout)
        items = sorted(
            pending(session),
            key=lambda i: (i.mutations[0].start_pos, i.mutations[0].operator_name, i.mutations[0].occurrence),
        )
        if sample is not None and sample < len(items):
            chosen = set(i.job_id for i in random.Random(seed).sample(items, sample))
            _skip(session, [i.job_id for i in items if i.job_id not in chosen], "not sampled")
            items = [i for i in items if i.job_id in chosen]
        mutants = {m.job_id: m for m in describe_mutants(source, items)}

        (first / "reference.py").write_text(source, encoding="utf-8")
        started = time.perf_counter()
        baseline = subprocess.run(
            [sys.executable, "-m", "grader.instructor.mutation", "kill-check", "reference.py", "--seed", str(seed)],
            cwd=first,
            env=env,
            capture_output=True,
            text=True,
            preexec_fn=_die_with_parent,
        )
        if baseline.returncode != 0:
            said = (baseline.stdout + baseline.stderr).strip().splitlines()[-1:] or ["no output"]
            raise MutationError(
                f"the grader does not pass the unmutated reference at seed {seed} ({said[0]}): no mutant can be judged"
            )
        print(
            f"mutation: {len(items)} mutants of the solution lines; the reference grades 100 in "
            f"{time.perf_counter() - started:.1f}s; {jobs} workers (cosmic-ray exec), seed {seed}",
            file=sys.stderr,
        )

        sessions = [session]
        for number in range(1, jobs):
            workdir = tmp / f"w{number}"
            workdir.mkdir()
            for name in ("tools.py", "reference.py", "cr.toml", "session.sqlite"):
                shutil.copy(first / name, workdir / name)
            sessions.append(workdir / "session.sqlite")
        for number, db in enumerate(sessions):
            _skip(db, [i.job_id for k, i in enumerate(items) if k % jobs != number], "another worker's")

        for db in sessions:
            with (db.parent / "exec.log").open("w") as out:
                workers.append(
                    subprocess.Popen(
                        [str(BIN / "cosmic-ray"), "exec", "cr.toml", "session.sqlite"],
                        cwd=db.parent,
                        env=env,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        preexec_fn=_die_with_parent,
                    )
                )
        last = time.perf_counter()
        while any(worker.poll() is None for worker in workers):
            time.sleep(1)
            if time.perf_counter() - last >= 30:
                last = time.perf_counter()
                print(f"mutation: {_progress(sessions)}/{len(items)} graded, {last - started:.0f}s", file=sys.stderr)
        broken = [db.parent.name for db, worker in zip(sessions, workers, strict=True) if worker.returncode != 0]
        if broken:
            tail = (tmp / broken[0] / "exec.log").read_text(errors="replace").strip().splitlines()[-1:]
            raise MutationError(f"cosmic-ray exec failed in {', '.join(broken)}: {tail}")

        outcomes = []
        for db in sessions:
            with use_db(str(db), WorkDB.Mode.open) as work_db:
                for item, result in work_db.completed_work_items:
                    if item.job_id in mutants and result.output not in ("another worker's", "not sampled"):
                        status, detail = _classify(result)
                        outcomes.append(Outcome(mutants[item.job_id], status, detail))
        missing = len(items) - len(outcomes)
        if missing:
            raise MutationError(f"{missing} mutants have no result; see the logs in {keep or tmp}")
        print(f"mutation: graded in {time.perf_counter() - started:.0f}s", file=sys.stderr)
        outcomes.sort(key=lambda o: (o.mutant.start, o.mutant.operator, o.mutant.occurrence))
        return outcomes, source
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.terminate()
        for worker in workers:
            try:
                worker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
        for sig, handler in old.items():
            signal.signal(sig, handler)
        if keep is not None:
            shutil.copytree(tmp, keep, dirs_exist_ok=True)
        shutil.rmtree(tmp, ignore_errors=True)


def report(outcomes: list[Outcome], equivalents: list[Equivalent]) -> int:
    """Print the numbers and the lists; 0 when every survivor is a listed equivalent."""
    listed = {entry.identity: entry for entry in equivalents}
    survivors = [o for o in outcomes if o.status == "survived"]
    equivalent = [o for o in survivors if o.mutant.identity in listed]
    blind = [o for o in survivors if o.mutant.identity not in listed]
    killed = [o for o in outcomes if o.status in ("killed", "timeout")]
    errors = [o for o in outcomes if o.status == "error"]
    wrongly_listed = [o for o in outcomes if o.status != "survived" and o.mutant.identity in listed]
    seen = {o.mutant.identity for o in outcomes}
    stale = [entry for entry in equivalents if entry.identity not in seen]
    judged = len(outcomes) - len(equivalent)
    score = len(killed) / judged if judged else 1.0

    print(
        f"mutants: {len(outcomes)}  killed: {len(killed)} (timeout {sum(o.status == 'timeout' for o in killed)})"
        f"  survived: {len(survivors)}  equivalent: {len(equivalent)}  errors: {len(errors)}"
    )
    print(f"mutation score: {score:.1%} (killed {len(killed)} / non-equivalent {judged})")
    print(f"\nequivalent survivors ({len(equivalent)}, {EQUIVALENTS.relative_to(ROOT)}):")
    for o in equivalent:
        print(f"  {o.mutant.describe()}\n      why: {listed[o.mutant.identity].why}")
    print(f"\nsurvivors not listed as equivalent: blind spots of the grader ({len(blind)}):")
    for o in blind:
        print(f"  {o.mutant.describe()}")
    if errors:
        print(f"\nkill-check errors ({len(errors)}): the grader broke on these, no verdict:")
        for o in errors:
            print(f"  {o.mutant.describe()}\n      {o.detail}")
    if wrongly_listed:
        print(f"\nlisted as equivalent but killed ({len(wrongly_listed)}): take them out of the file:")
        for o in wrongly_listed:
            print(f"  {o.mutant.describe()} ({o.status} by {o.detail})")
    if stale:
        print(f"\nlisted as equivalent but no such mutant today ({len(stale)}):")
        for entry in stale:
            print(f"  {entry.operator} in {entry.function}(): {entry.line}  ->  {entry.mutated}")
    return 0 if not blind and not errors else 1


def solution_digest(source: str) -> str:
    """A digest of the solution lines only: a docstring edit elsewhere does not make a recorded run stale."""
    lines = source.splitlines()
    text = "\n".join(line for first, last in solution_ranges(source) for line in lines[first - 1 : last])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def save_run(path: Path, outcomes: list[Outcome], seed: int, seconds: float, source: str) -> None:
    data = {
        "tool": "cosmic-ray 8.7.0",
        "seed": seed,
        "seconds": round(seconds),
        "solution": solution_digest(source),
        "outcomes": [{**o.mutant.__dict__, "status": o.status, "detail": o.detail} for o in outcomes],
    }
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def load_run(path: Path) -> tuple[str, list[Outcome]]:
    """A recorded run: one line saying what it was and whether the solution changed since; its outcomes."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        outcomes = [
            Outcome(Mutant(**{k: row[k] for k in Mutant.__dataclass_fields__}), row["status"], row["detail"])
            for row in data["outcomes"]
        ]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise MutationError(f"{path}: not a recorded run ({type(error).__name__}: {error})") from None
    today = solution_digest(REFERENCE.read_text(encoding="utf-8"))
    fresh = (
        "the solution lines are the same today"
        if data.get("solution") == today
        else "STALE: the solution lines have changed since; run `run` again"
    )
    return (
        f"recorded run ({path.name}): {data.get('tool')}, seed {data.get('seed')}, {data.get('seconds')}s; {fresh}"
    ), outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.instructor.mutation", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    go = commands.add_parser("run", help="mutate the solution blocks and grade every mutant; print the score")
    go.add_argument("--seed", type=int, default=SEED)
    go.add_argument("--jobs", type=int, default=None, help="workers (default: the machine's cores)")
    go.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds for one mutant's grade")
    go.add_argument("--sample", type=int, default=None, help="grade K mutants drawn by the seed, not all")
    go.add_argument("--json", type=Path, default=None, help="also write every mutant's outcome here")
    go.add_argument("--keep", type=Path, default=None, help="keep the sessions and logs in this directory")
    commands.add_parser("list", help="print every solution mutant, as [[equivalent]] entries would name it")
    again = commands.add_parser("report", help="print a recorded run's numbers with today's equivalents file")
    again.add_argument(
        "file",
        nargs="?",
        type=Path,
        default=RECORDED,
        help=f"a run's --json (default: {RECORDED.relative_to(ROOT)}, the run checked in)",
    )
    check = commands.add_parser("kill-check", help="grade one module; exit 1 when a check fails (killed)")
    check.add_argument("path")
    check.add_argument("--seed", type=int, default=SEED)
    check.add_argument("--reference", default=None, help="the unmutated module: its changed stage is graded first")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit:
        return 2 if exit.code else 0
    if args.command == "kill-check":
        return _main_kill_check(args)
    try:
        if args.command == "list":
            for mutant in solution_mutants(REFERENCE.read_text(encoding="utf-8")):
                print(mutant.describe())
            return 0
        if args.command == "report":
            equivalents = load_equivalents()
            header, outcomes = load_run(args.file)
            print(header)
            return report(outcomes, equivalents)
        if any(given is not None and given < 1 for given in (args.jobs, args.sample)):
            raise MutationError("--jobs and --sample must be at least 1")
        if args.timeout <= 0:
            raise MutationError("--timeout must be positive")
        equivalents = load_equivalents()
        begun = time.perf_counter()
        outcomes, source = run(args.seed, args.jobs, args.timeout, args.sample, args.keep)
    except MutationError as error:
        print(f"mutation: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mutation: stopped; agtool/tools.py was never written, the workers are ended", file=sys.stderr)
        return 130
    if args.json:
        save_run(args.json, outcomes, args.seed, time.perf_counter() - begun, source)
    return report(outcomes, equivalents)


if __name__ == "__main__":
    sys.exit(main())
