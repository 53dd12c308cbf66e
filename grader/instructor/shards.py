"""One class over several machines: `class --shard I/N` grades the I-th of N shards, and `merge` puts the
shards' OUT folders together. A student's shard is fixed by their name alone (its sha256), so every machine
agrees on it without talking to the others, a rerun of a shard grades the same students, and the students
spread evenly.
"""

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from grader.instructor.records import read_json
from grader.kit.report import write_atomically


@dataclass(frozen=True)
class Shard:
    index: int  # 1 .. count
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, student: str) -> bool:
        number = int.from_bytes(hashlib.sha256(student.encode("utf-8", "surrogateescape")).digest()[:8], "big")
        return number % self.count == self.index - 1


def parse_shard(text: str) -> Shard:
    """ "I/N" -> Shard(I, N); ValueError with what to write otherwise."""
    index, slash, count = text.partition("/")
    if not (slash and index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise ValueError(f"must be I/N with 1 <= I <= N, such as 2/4, not {text!r}")
    return Shard(int(index), int(count))


SHARD_RECORD = ".shard.json"  # in a class's OUT: which shard of how many it holds, for `merge`


def write_shard(out: Path, shard: Shard) -> None:
    """Record in OUT which shard it holds (a run without --shard holds 1/1): merge checks the set is whole."""
    write_atomically(out / SHARD_RECORD, json.dumps({"index": shard.index, "count": shard.count}) + "\n")


def read_shard(out: Path) -> Shard | None:
    """The shard OUT holds, as `class` recorded it; None when it recorded none."""
    return read_json(out / SHARD_RECORD, lambda record: Shard(int(record["index"]), int(record["count"])))
