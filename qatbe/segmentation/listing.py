"""A compact, line-per-segment listing of segments: what `qatbe segment` prints and what fixture files hold."""

from __future__ import annotations

from collections.abc import Iterable

from ..types import Segment


def listing_line(segment: Segment) -> str:
    head = segment.kind.value + (f":{segment.level}" if segment.level else "")
    if segment.language:
        head += f"[{segment.language}]"
    return f"{head} {segment.markdown}".replace("\\", "\\\\").replace("\n", "\\n")


def listing(segments: Iterable[Segment]) -> str:
    return "\n".join(listing_line(s) for s in segments)
