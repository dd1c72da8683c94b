from collections.abc import Collection, Iterable, Sequence

from .types import Segment, SegmentKind

FIELDS: tuple[str, ...]

def new_segment(kind: SegmentKind, text: str, markdown: str, position: int, index: int, level: int,
                heading_path: tuple[str, ...], language: str | None, group: int, part: int, header: str | None,
                tokens: int = ..., score: float = ..., matched: bool = ..., end: int = ...) -> Segment: ...
def with_outcome(seg: Segment, tokens: int, score: float, matched: bool) -> Segment: ...
def outcomes(segments: Sequence[Segment], slots: Iterable[int], costs: Sequence[int], scores: Sequence[float],
             matched: Collection[int]) -> tuple[Segment, ...]: ...
