"""One class over several machines: `class --shard I/N` grades the I-th of N shards, and `merge`
(grader/instructor/merge.py) puts the shards' OUT folders together.

A student's shard is fixed by their name alone (its sha256), so every machine agrees on it
without talking to the others, a rerun of a shard grades the same students, and the
students spread evenly. What each shard writes is keyed as one run's is: per student, the
stamp (the seed, the submission's sha256, the lab's): a redelivered shard, or a shard run
twice, changes nothing.
"""

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Shard:
    index: int  # 1 .. count
    count: int

    def holds(self, student: str) -> bool:
        number = int.from_bytes(hashlib.sha256(student.encode("utf-8", "surrogateescape")).digest()[:8], "big")
        return number % self.count == self.index - 1


def parse_shard(text: str) -> Shard:
    """ "I/N" -> Shard(I, N); ValueError with what to write otherwise (argparse shows it in one line)."""
    index, slash, count = text.partition("/")
    if not (slash and index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise ValueError(f"must be I/N with 1 <= I <= N, such as 2/4, not {text!r}")
    return Shard(int(index), int(count))
