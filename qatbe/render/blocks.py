"""Render stage: chosen segments, in document order, become one markdown or plain-text string.

Adjacent parts of one source unit (sentences of a paragraph, row groups of a table, line blocks of a code block,
runs of list items) are merged back: the table header appears once, the code sits in one fence. Row groups of one
table with rows left out between them are one table too, the gap shown by a row of ``…`` (``gap_row``): a header
line and its separator cost more than that row, and a reader is told that rows are missing. A merged block is never
longer than its parts joined by the block separator, so per-segment costs stay an upper bound.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..types import Segment, SegmentKind

SEPARATOR = "\n\n"
_INLINE_KINDS = (SegmentKind.PARAGRAPH, SegmentKind.QUOTE, SegmentKind.METADATA, SegmentKind.NAVIGATION)


def block(segment: Segment, fmt: str = "markdown") -> str:
    """One segment on its own, as it would appear in the output."""
    if fmt == "markdown":
        return segment.markdown
    if segment.kind is SegmentKind.LIST:
        return segment.markdown
    return segment.text


def _continues(prev: Segment, seg: Segment) -> bool:
    return prev.group == seg.group and seg.part == prev.part + 1 and prev.kind is seg.kind


def _merge(prev_block: str, prev: Segment, seg: Segment, fmt: str) -> str:
    kind = seg.kind
    if kind in _INLINE_KINDS:
        return prev_block + " " + seg.text
    if kind is SegmentKind.TABLE and fmt == "markdown" and seg.header:
        return prev_block + "\n" + seg.markdown[len(seg.header) + 1 :]
    if kind is SegmentKind.CODE and fmt == "markdown" and seg.header is not None:
        fence = "`" * (len(seg.header) - len(seg.header.lstrip("`")))
        return prev_block[: -len(fence) - 1] + "\n" + seg.text + "\n" + fence
    return prev_block + "\n" + block(seg, fmt)


def _later_rows(prev: Segment, seg: Segment, fmt: str) -> bool:
    """``seg`` holds later rows of the markdown table ``prev`` began, with rows left out between them."""
    return (fmt == "markdown" and seg.kind is SegmentKind.TABLE and prev.kind is SegmentKind.TABLE
            and prev.group == seg.group and seg.part > prev.part + 1 and seg.header is not None
            and prev.header == seg.header)


def gap_row(header: str) -> str:
    """The row that stands for rows left out of a table: one ``…`` a column (counted on the header's separator
    line, whose cells hold no text that could hide a ``|``)."""
    columns = max(1, header.rsplit("\n", 1)[-1].count("---"))
    return "| " + " | ".join(["…"] * columns) + " |"


def render(segments: Sequence[Segment], fmt: str = "markdown") -> str:
    """Join chosen segments (already in document order) into the final text."""
    blocks: list[str] = []
    prev: Segment | None = None
    for seg in segments:
        if prev is not None and blocks and _continues(prev, seg):
            blocks[-1] = _merge(blocks[-1], prev, seg, fmt)
        elif prev is not None and blocks and _later_rows(prev, seg, fmt):
            header = seg.header or ""
            blocks[-1] = blocks[-1] + "\n" + gap_row(header) + "\n" + seg.markdown[len(header) + 1 :]
        else:
            blocks.append(block(seg, fmt))
        prev = seg
    return SEPARATOR.join(blocks)
