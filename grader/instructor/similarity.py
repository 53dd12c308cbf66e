"""Which students' solutions are alike, and where: similar_pairs(sources, starter) -> [Pair, ...].

The fingerprints are copydetect's (the MOSS method: the code tokenized, names and strings abstracted away,
every k-gram of what is left hashed), so a copy with its variables renamed, its comments rewritten or its
functions reordered still matches. Two kinds of code are no evidence, and are left out before anything is
compared:

- the starter: the kit's skeleton is in every student's file, and so is any boilerplate the instructor gave;
- the class's common code: what at least a quarter of the class's independent solutions wrote alike. This
  lab dictates much of its code (the contract table, `if "max" in spec: ...`): honest solutions share half
  their fingerprints with each other, and a fingerprint that many students wrote on their own tells nothing
  about two of them (MOSS's -m; copydetect has none). Near copies of each other (each holds SAME of the
  other's code) count once, as a group, so a solution copied by half the class is not common code.

A pair's share on each side is copydetect's similarity: the fraction of that student's code (what is left of
it) that the other's file has too. A pair is listed when either side's share is at least the threshold, of
at least MIN_SHARED characters of tokenized code (about ten lines): a file that holds little of its own
beyond the starter is not a copy for sharing a few lines. In a class smaller than COMMON_FLOOR, honest
solutions of this lab reach 0.8 against each other: there, read the list as a ranking.
"""

import io
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from copydetect import CodeFingerprint
from copydetect.defaults import NOISE_THRESHOLD
from copydetect.utils import get_copied_slices, get_token_coverage

# copydetect's noise threshold: the shortest match counted, in characters of tokenized code.
K = NOISE_THRESHOLD
# Every k-gram is kept (copydetect's default: guarantee threshold = noise threshold). Winnowing
# with a window over 1 keeps the smallest hash of each window, and Python salts str hashes in
# each process: the fingerprints, and so the shares, would change from one run to the next.
WINDOW = 1
# A fingerprint of fewer students than this is never common code: in any class, up to this
# many students copying one solution are found.
COMMON_FLOOR = 5
# Near copies, counted once for common code: each holds this share of the other's code, the starter
# left out. Disguised copies (names changed, functions reordered, comments rewritten) reach 0.9 and over;
# honest solutions of this lab 0.8 on the side that shares most, and less than 0.75 on both.
SAME = 0.85
MIN_SHARED = 8 * K


@dataclass(frozen=True)
class Pair:
    """Two students (first < second) whose code is alike: the share of each one's code that the
    other has, and where it is, as 1-based inclusive line ranges of each one's file."""

    first: str
    second: str
    first_share: float
    second_share: float
    # Each side's own ranges, not matched up: a reordered copy has the shared code in other
    # places, and in another number of pieces, than the file it was copied from.
    first_lines: tuple[tuple[int, int], ...]
    second_lines: tuple[tuple[int, int], ...]

    @property
    def share(self) -> float:
        return max(self.first_share, self.second_share)


def similar_pairs(
    sources: dict[str, str], starter: str, threshold: float = 0.6, common: float | None = 0.25
) -> list[Pair]:
    """Every pair of students (name -> text of their tools.py) where either one's share is at least threshold,
    most alike first, the same in any process. A fingerprint that at least `common` of the class has counts as
    starter code; None counts none (in a class that copied one leaked solution, that solution is common)."""
    names = sorted(sources)
    if len(names) < 2:
        return []
    printed = {name: _fingerprint(sources[name]) for name in names}
    excluded = {int(h) for h in _fingerprint(starter).hash_idx}
    if common is not None:
        groups = copy_groups({name: _Kept(printed[name], excluded) for name in names})
        counts = Counter(h for group in groups for h in {int(h) for name in group for h in printed[name].hash_idx})
        many = max(COMMON_FLOOR, math.ceil(common * len(groups)))
        excluded |= {h for h, count in counts.items() if count >= many}
    kept = {name: _Kept(printed[name], excluded) for name in names}

    pairs = []
    for first, second, (first_slices, second_slices) in _compared(kept):
        first_share, second_share = kept[first].share(first_slices), kept[second].share(second_slices)
        if _listed(first_share, first_slices, threshold) or _listed(second_share, second_slices, threshold):
            first_lines = kept[first].line_ranges(first_slices, sources[first])
            second_lines = kept[second].line_ranges(second_slices, sources[second])
            pairs.append(Pair(first, second, first_share, second_share, first_lines, second_lines))
    return sorted(pairs, key=lambda pair: (-pair.share, pair.first, pair.second))


def _compared(kept: dict[str, "_Kept"]):
    """(first, second, (first's shared slices, second's)) for every pair of students, first < second."""
    names = sorted(kept)
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            yield first, second, (kept[first].shared_with(kept[second]), kept[second].shared_with(kept[first]))


def _listed(share: float, slices: np.ndarray, threshold: float) -> bool:
    """One side of a pair makes it listed: its share is at least threshold, of enough code to tell
    (threshold 0 asks for every pair, as a ranking)."""
    return share >= threshold and (threshold <= 0 or int(np.sum(slices[1] - slices[0])) >= MIN_SHARED)


def copy_groups(kept: dict[str, "_Kept"]) -> list[list[str]]:
    """The students in groups of near copies (each holds SAME of the other's code), single students alone."""
    near = [
        (first, second)
        for first, second, (first_slices, second_slices) in _compared(kept)
        if min(kept[first].share(first_slices), kept[second].share(second_slices)) >= SAME
    ]
    return joined(near, kept)


def joined(links: Iterable[tuple[str, str]], names: Iterable[str] = ()) -> list[list[str]]:
    """The names joined by links, in groups (each sorted, the largest first); one of names in no link alone."""
    group = {name: {name} for name in names}
    for first, second in links:
        together = group.get(first, {first}) | group.get(second, {second})
        for name in together:
            group[name] = together
    found = {tuple(sorted(members)) for members in group.values()}
    return sorted((list(members) for members in found), key=lambda members: (-len(members), members))


def quote(source: str, ranges: tuple[tuple[int, int], ...]) -> str:
    """The lines of source in ranges, each after its number, for a report; "..." between ranges."""
    lines = source.splitlines()
    return "\n...\n".join(
        "\n".join(f"{number:5}  {lines[number - 1]}" for number in range(begin, min(end, len(lines)) + 1))
        for begin, end in ranges
    )


def _fingerprint(source: str) -> CodeFingerprint:
    # The language named, copydetect never guesses it from the file name (only a label here),
    # and never logs, on the root logger, a warning for a name it cannot guess from.
    return CodeFingerprint("tools.py", K, WINDOW, language="python", fp=io.StringIO(source))


class _Kept:
    """One student's fingerprints less the excluded ones, as arrays: a pair costs no Python loop. What
    copydetect's compare_files computes (tests check they agree to the last bit), where its Python loop over
    the shared hashes is too slow for 125,000 pairs; not its boilerplate argument either, which in 0.5.0 also
    drops a place of every k-gram a file repeats (np.intersect1d is told the hashes are unique)."""

    def __init__(self, printed: CodeFingerprint, excluded: set[int]):
        kept = {int(h): places for h, places in printed.hash_idx.items() if int(h) not in excluded}
        self.coverage = get_token_coverage(kept, K, len(printed.filtered_code))
        # By hash, so that a lookup of them all in another student's sorted hashes is one pass.
        places = sorted((h, place) for h, all_places in kept.items() for place in all_places)
        self.place_hashes = np.array([h for h, _ in places], dtype=np.int64)
        self.places = np.array([place for _, place in places], dtype=np.int64)
        self.hashes = np.unique(self.place_hashes)
        self.offsets = printed.offsets

    def shared_with(self, other: "_Kept") -> np.ndarray:
        """The slices of tokenized code (starts, ends) covered by k-grams that other has too."""
        if not len(other.hashes):
            return get_copied_slices([], K)
        found = other.hashes[np.searchsorted(other.hashes, self.place_hashes).clip(max=len(other.hashes) - 1)]
        return get_copied_slices(self.places[found == self.place_hashes], K)

    def share(self, slices: np.ndarray) -> float:
        return float(np.sum(slices[1] - slices[0]) / self.coverage) if self.coverage else 0.0

    def line_ranges(self, slices: np.ndarray, source: str) -> tuple[tuple[int, int], ...]:
        """The slices as line ranges of source, merged where they meet."""
        if len(self.offsets):
            # compare_files' own way back from tokenized code to the source's characters
            places = np.searchsorted(self.offsets[:, 0], slices).clip(0, len(self.offsets) - 1)
            slices = slices + self.offsets[:, 1][places]
        ranges: list[tuple[int, int]] = []
        for begin, end in zip(*slices.astype(int).tolist(), strict=True):
            first = source.count("\n", 0, begin) + 1
            last = first + source.count("\n", begin, max(begin, end - 1))
            if ranges and first <= ranges[-1][1] + 1:
                ranges[-1] = (ranges[-1][0], max(last, ranges[-1][1]))
            else:
                ranges.append((first, last))
        return tuple(ranges)
