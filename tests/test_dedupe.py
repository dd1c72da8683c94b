"""Near-duplicate segments: exactly the pairs a brute force finds, however common the shared phrases."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe.select.dedupe import MIN_WORDS, THRESHOLD, find_duplicates, jaccard, normalise, shingles
from qatbe.types import Segment, SegmentKind


def _segments(texts: list[str]) -> list[Segment]:
    return [Segment(SegmentKind.PARAGRAPH, t, t, i, i) for i, t in enumerate(texts)]


def _brute(texts: list[str]) -> dict[int, int]:
    """The specification written out: a text repeats the first earlier text with the same normalised words, else
    the earliest kept earlier text (of at least MIN_WORDS words) at shingle Jaccard >= THRESHOLD."""
    vocab: dict[str, int] = {}
    first: dict[str, int] = {}
    kept: list[tuple[int, frozenset[int]]] = []
    of: dict[int, int] = {}
    for i, text in enumerate(texts):
        norm = normalise(text)
        if not norm:
            continue
        if norm in first:
            of[i] = first[norm]
            continue
        first[norm] = i
        words = norm.split(" ")
        if len(words) < MIN_WORDS:
            continue
        sh = shingles([vocab.setdefault(w, len(vocab)) for w in words])
        match = next((j for j, other in kept if jaccard(sh, other) >= THRESHOLD), None)
        if match is None:
            kept.append((i, sh))
        else:
            of[i] = match
    return of


_WORDS = st.sampled_from(["the", "passport", "fee", "renewal", "office", "form", "online", "post", "photo", "child",
                          "adult", "days"])
_TEXT = st.lists(_WORDS, min_size=0, max_size=16).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXT, max_size=25), st.data())
def test_the_pairs_are_the_brute_force_ones(texts: list[str], data: st.DataObject) -> None:
    """Texts from twelve words, many sharing long runs, with edited copies of earlier ones mixed in."""
    for _ in range(data.draw(st.integers(0, 6))):
        if texts:
            base = data.draw(st.sampled_from(texts)).split(" ")
            k = data.draw(st.integers(0, len(base)))
            texts.append(" ".join(base[:k] + data.draw(st.lists(_WORDS, max_size=2)) + base[k:]))
    assert find_duplicates(_segments(texts)).of == _brute(texts)


def test_a_phrase_every_segment_shares_makes_no_duplicates() -> None:
    """Templated pages: every paragraph ends "and passport fees", none repeats another."""
    texts = [f"Doc {d} paragraph {i} about word{i} and passport fees." for d in range(10) for i in range(300)]
    assert find_duplicates(_segments(texts)).of == {}


def test_edited_copies_across_pages_repeat_the_earliest_kept_one() -> None:
    base = ("The renewal fee for an adult passport is 92 crowns when you apply online before the end of May, and "
            "the office sends the new passport by post within three weeks of the day it receives your photo.")
    texts = ["An unrelated opening paragraph about the weather and the trains this week.", base,
             base.replace("92", "95"), base.replace("online", "on the web"), base + " Thank you."]
    dup = find_duplicates(_segments(texts)).of
    assert dup == _brute(texts) and dup.get(2) == 1 and dup.get(4) == 1 and 0 not in dup and 1 not in dup
