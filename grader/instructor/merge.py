"""`python -m grader merge SHARD_OUT ... --out OUT`: the shards of one class (`class --shard I/N`), as one.

The shards must be the whole class (each OUT records which shard it holds), or the merge is refused, naming
the missing ones, unless --partial: then the books name each missing shard, whose students have no row (so
Canvas keeps their grade as it was). merge reads records only, never a rendered book: each student's record
from the shard that graded them (a student in two shards must have the same stamp in both), and each shard's
entries with no row (records.NO_ROW; a shard whose run stopped before it graded everyone is refused). OUT
then gets what a single `class` run writes, from those records and the term files in OUT, byte for byte.
"""

import argparse
import sys
from pathlib import Path

from grader.instructor.graded import Graded
from grader.instructor.records import NO_ROW, RECORD, STUDENTS, read_no_row, read_record, write_record
from grader.instructor.shards import SHARD_RECORD, read_shard
from grader.instructor.submissions import NO_TOOLS_PY, UsageError
from grader.instructor.views import open_books, read_books_input


def missing_shards(shards: list[Path]) -> tuple[str, ...]:
    """The shards ("2/3") the given OUT folders lack to be a whole class; UsageError for a set that mixes
    counts, or an OUT that records none."""
    held = {}
    for shard in shards:
        recorded = read_shard(shard)
        if recorded is None:
            raise UsageError(
                f"SHARD_OUT {str(shard)!r} records no shard ({SHARD_RECORD}): run its `class --shard I/N` again"
            )
        held[shard] = recorded
    counts = {recorded.count for recorded in held.values()}
    if len(counts) > 1:
        named = ", ".join(f"{shard} is {recorded}" for shard, recorded in held.items())
        raise UsageError(f"the shards are of different classes' splits ({named}): give the shards of one run")
    (count,) = counts
    indices = {recorded.index for recorded in held.values()}
    return tuple(f"{index}/{count}" for index in range(1, count + 1) if index not in indices)


def merge(shards: list[Path], out: Path, partial: bool = False) -> list[Graded]:
    """Merge the shards' OUT folders into out; returns the records of everyone graded."""
    for shard in shards:
        if not (shard / "gradebook.csv").is_file():
            raise UsageError(f"SHARD_OUT {str(shard)!r} holds no gradebook.csv: give an OUT a `class --shard` wrote")
    missing = missing_shards(shards)
    if missing and not partial:
        raise UsageError(
            f"shard {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing, so the books would "
            "lack their students: give every shard, or --partial to write the books without them (they say so)"
        )
    found: dict[str, tuple[Path, Graded]] = {}  # student -> (the shard that graded them, their record)
    not_graded: dict[str, str] = {}
    for shard in shards:
        held = sorted((shard / STUDENTS).iterdir()) if (shard / STUDENTS).is_dir() else []  # a shard may be empty
        for folder in held:
            if not (folder / RECORD).is_file():
                continue  # graded only in part when its shard stopped: that shard's rerun grades it
            record = read_record(shard, folder.name)
            if record is None:  # an earlier release's
                raise UsageError(
                    f"{folder.name}'s results in {shard} are not this grader's: grade that shard again, then merge"
                )
            earlier = found.get(folder.name)
            if earlier and earlier[1].stamp != record.stamp:
                raise UsageError(
                    f"{folder.name} was graded differently in {earlier[0]} and {shard} "
                    "(another submission, seed or lab): grade that shard again, then merge"
                )
            found[folder.name] = (shard, record)
        recorded = read_no_row(shard)
        if recorded is None:
            raise UsageError(
                f"{shard / NO_ROW}: missing or not this grader's, so the entries this shard gave no row are "
                "unknown (a run of an earlier release, or one killed before its end): run its "
                "`class --shard I/N` again, then merge"
            )
        no_row, left = recorded
        if left:
            raise UsageError(
                f"{shard}: its run stopped before grading {len(left)} students ({', '.join(left[:3])}"
                f"{', …' if len(left) > 3 else ''}): run its `class --shard I/N` again (it resumes), then merge"
            )
        not_graded.update(no_row)
    out.mkdir(parents=True, exist_ok=True)
    rows = [record for _, (_, record) in sorted(found.items())]
    handed_in = {row.student for row in rows if row.ungraded != NO_TOOLS_PY}  # those with a file
    not_graded = {student: why for student, why in not_graded.items() if student not in found}
    books = open_books(out, *read_books_input(out, set(found), handed_in))
    for record in rows:  # feedback.md and results.json are written from it, with the final
        write_record(out, record)
    books.write(rows, not_graded, True, missing_shards=missing)
    whole = f"{len(shards)} shards" + (f", partial: shard {', '.join(missing)} missing" if missing else "")
    print(f"{out / 'gradebook.csv'}: {len(rows)} students from {whole}", file=sys.stderr)
    return rows


def command(parser: argparse.ArgumentParser):
    parser.add_argument("shards", nargs="+", metavar="SHARD_OUT", help="the OUT folder of each `class --shard`")
    parser.add_argument("--out", required=True, help="where the class's gradebook and students' folders go")
    parser.add_argument(
        "--partial",
        action="store_true",
        help="merge a set of shards that is not the whole class (the books name the missing shards)",
    )
    return run


def run(args: argparse.Namespace) -> int:
    try:
        merge([Path(shard) for shard in args.shards], Path(args.out), partial=args.partial)
    except UsageError as error:
        print(f"grader merge: {error}", file=sys.stderr)
        return 2
    return 0
