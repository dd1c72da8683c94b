"""Near-duplicate segments, within and across documents, found before they cost budget.

Search results repeat themselves: the same press release on three sites, a disclaimer on every page, a paragraph
quoted in full. Two checks, cheapest first:

1. exact: the text lower-cased with punctuation and whitespace runs removed, compared as a string;
2. near: word 3-shingles, Jaccard similarity ≥ ``threshold`` (default 0.8). Candidates come from a bottom-k
   sketch (each segment indexed under its ``SKETCH`` smallest shingle hashes), so the check stays close to linear
   instead of comparing every pair; every reported pair is then verified with the exact Jaccard of the full sets.

Shingles are tuples of word ids (ids given in order of first appearance within the call), so their hashes do not
depend on ``PYTHONHASHSEED`` (ints and tuples of ints hash the same in every process) and the result is
deterministic. Segments shorter than ``MIN_WORDS`` words only get the exact check (a shingle set of two or three items makes
Jaccard meaningless). The first occurrence, in the order given, is kept; later copies are reported with the slot
of the copy they repeat. Headings are never duplicates: "## Installation" on two pages introduces different text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..types import Segment, SegmentKind

THRESHOLD = 0.8
MIN_WORDS = 8
SKETCH = 4
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
    sketches: dict[int, list[int]] = {}
    sets: dict[int, frozenset[int]] = {}
    of: dict[int, int] = {}
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
        if len(words) < MIN_WORDS:
            continue
        sh = shingles([vocab.setdefault(w, len(vocab)) for w in words])
        sketch = sorted(sh)[:SKETCH]
        seen: set[int] = set()
        for h in sketch:
            for j in sketches.get(h, ()):
                if j not in seen:
                    seen.add(j)
                    if jaccard(sh, sets[j]) >= threshold:
                        of[i] = j
                        break
            if i in of:
                break
        if i in of:
            continue
        sets[i] = sh
        for h in sketch:
            sketches.setdefault(h, []).append(i)
    return Duplicates(of)
