"""The pure-Python twin of ``qatbe/_segment.pyx``: ``Segment`` records built positionally.

Used when the compiled module is not built (``QATBE_NO_EXTENSION=1``, no compiler) or refuses to load; the
compiled one must give equal records (tests/test_records.py). Positional arguments in field order, because keyword
matching over Segment's 15 parameters made constructing a segment almost twice as slow.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from .types import Segment, SegmentKind


def new_segment(kind: SegmentKind, text: str, markdown: str, position: int, index: int, level: int,
                heading_path: tuple[str, ...], language: str | None, group: int, part: int, header: str | None,
                tokens: int = 0, score: float = 0.0, matched: bool = False, end: int = 0) -> Segment:
    """``Segment(kind, text, ..., matched, end)``."""
    return Segment(kind, text, markdown, position, index, level, heading_path, language, group, part, header,
                   tokens, score, matched, end)


def with_outcome(seg: Segment, tokens: int, score: float, matched: bool) -> Segment:
    """``dataclasses.replace(seg, tokens=tokens, score=score, matched=matched)`` without replace's generic walk
    over the fields, which cost more than selecting the segments."""
    return Segment(seg.kind, seg.text, seg.markdown, seg.position, seg.index, seg.level, seg.heading_path,
                   seg.language, seg.group, seg.part, seg.header, tokens, score, matched, seg.end)


def outcomes(segments: Sequence[Segment], slots: Iterable[int], costs: Sequence[int], scores: Sequence[float],
             matched: Collection[int]) -> tuple[Segment, ...]:
    """``with_outcome`` for each slot: its cost, its score and whether it was matched."""
    return tuple(with_outcome(segments[i], costs[i], scores[i], i in matched) for i in slots)
