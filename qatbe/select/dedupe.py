"""Near-duplicate segments, within and across documents, found before they cost budget.

Search results repeat themselves: the same press release on three sites, a disclaimer on every page, a paragraph
quoted in full. Two checks, cheapest first:

1. exact: the text lower-cased with punctuation and whitespace runs removed, compared as a string;
2. near: word 3-shingles, Jaccard similarity ≥ ``threshold`` (default 0.8). Candidates come from prefix
   filtering (Bayardo, Ma and Srikant, "Scaling up all pairs similarity search", 2007): each set's shingles in
   one global order, rarest first, and a set indexed under its first ``|x| - ceil(t |x|) + 1``; two sets at
   Jaccard ≥ t share one of those, so no pair is missed, and since a phrase every segment holds ("and passport
   fees") comes last it puts no two segments in one bucket. Every candidate is verified with the exact Jaccard of
   the full sets. (Why not a bottom-k sketch: it can miss a pair, and a shingle common to thousands of
   segments makes one bucket of them all, which makes templated pages quadratic.)

Shingles are tuples of word ids (ids given in order of first appearance within the call), so their hashes do not
depend on ``PYTHONHASHSEED`` (ints and tuples of ints hash the same in every process) and the result is
deterministic. Segments shorter than ``MIN_WORDS`` words only get the exact check (a shingle set of two or three items makes
Jaccard meaningless). The first occurrence, in the order given, is kept; later copies are reported with the slot
of the earliest kept segment they repeat. Headings are never duplicates: "## Installation" on two pages introduces different text.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..types import Segment, SegmentKind

THRESHOLD = 0.8
MIN_WORDS = 8
_WORD = re.compile(r"\w+")


def normalise(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def shingles(ids: Sequence[int], size: int = 3) -> frozenset[int]:
    """Hashes of the word-id ``size``-grams of a segment (deterministic: see the module docstring)."""
    if len(ids) < size:
        return frozenset((hash(tuple(ids)),))
    return frozenset(hash(tuple(ids[i : i + size])) for i in range(len(ids) - size + 1))


def jaccard(a: frozenset[int], b: frozenset[int]) -> float:
    if not a and not b:
        return 1.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


@dataclass(frozen=True)
class Duplicates:
    """``of[i]`` is the slot that segment ``i`` repeats, for every dropped slot ``i``."""

    of: dict[int, int]

    @property
    def dropped(self) -> frozenset[int]:
        return frozenset(self.of)


def find_duplicates(segments: Sequence[Segment], threshold: float = THRESHOLD) -> Duplicates:
    """Slots of ``segments`` that repeat an earlier slot (exactly after normalising, or by shingle Jaccard)."""
    exact: dict[str, int] = {}
    vocab: dict[str, int] = {}
    of: dict[int, int] = {}
    near: list[tuple[int, frozenset[int]]] = []  # the texts long enough for the near check, in order
    for i, seg in enumerate(segments):
        if seg.kind is SegmentKind.HEADING:
            continue
        norm = normalise(seg.text)
        if not norm:
            continue
        if norm in exact:
            of[i] = exact[norm]
            continue
        exact[norm] = i
        words = norm.split(" ")
        if len(words) >= MIN_WORDS:
            near.append((i, shingles([vocab.setdefault(w, len(vocab)) for w in words])))
    frequency: Counter[int] = Counter()
    for _, sh in near:
        frequency.update(sh)
    index: dict[int, list[int]] = {}  # shingle -> kept slots with it in their prefix
    sets: dict[int, frozenset[int]] = {}
    for i, sh in near:
        # The overlap a set at Jaccard >= t needs is at least ceil(t |x|); the tolerance keeps a product such as
        # 0.8 * 10 = 8.000000000000002 from shortening the prefix.
        length = len(sh) - math.ceil(threshold * len(sh) - 1e-9) + 1
        if sum([frequency[h] == 1 for h in sh]) >= length:
            # Its prefix holds only shingles no other text has (they come first in the order): it repeats no
            # text and no text repeats it. Most texts are such; they cost no sort and no index entry.
            continue
        prefix = sorted(sorted(sh), key=frequency.__getitem__)[:length]  # by frequency, then hash (stable sort)
        candidates = sorted({j for h in prefix for j in index.get(h, ())})
        match = next((j for j in candidates if jaccard(sh, sets[j]) >= threshold), None)
        if match is not None:
            of[i] = match
            continue
        sets[i] = sh
        for h in prefix:
            index.setdefault(h, []).append(i)
    return Duplicates(of)
