from .types import Segment, SegmentKind

FIELDS: tuple[str, ...]

def new_segment(kind: SegmentKind, text: str, markdown: str, position: int, index: int, level: int,
                heading_path: tuple[str, ...], language: str | None, group: int, part: int, header: str | None,
                tokens: int = ..., score: float = ..., matched: bool = ...) -> Segment: ...
def with_outcome(seg: Segment, tokens: int, score: float, matched: bool) -> Segment: ...
