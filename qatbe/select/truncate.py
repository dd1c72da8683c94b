"""Truncation of a segment that does not fit the space left (seed 000: ``truncate_end`` / ``truncate_middle``).

The cut copy carries a visible marker, ``[...]`` at the end or ``[...truncated...]`` in the middle, and the marker
is part of what is measured, so the copy's cost (its rendered block plus the block separator, as ``measure``
counts it) is at most the space it was cut for. Prose is cut between words. Code, tables and lists are cut only
between whole lines: a code block keeps its fence (the marker goes outside it, and a middle cut closes and reopens
the fence), a table keeps its header row (repeated after a middle cut), so no half row or half line is ever shown.

The longest cut that fits is found by binary search over the number of kept units, measuring each candidate with
the caller's estimator; only a measured candidate is ever returned, so even an estimator that is not monotone in
length cannot push the copy over the limit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from ..render.blocks import SEPARATOR, block
from ..types import Segment, SegmentKind

MARK_END = "[...]"
MARK_MIDDLE = "[...truncated...]"
MIN_WORDS = 5  # fewer kept words than this read as noise, not context
STRATEGIES = ("truncate_end", "truncate_middle")

Builder = Callable[[int], tuple[str, str]]  # kept units -> (text, markdown)


def _split(n: int, k: int, middle: bool) -> tuple[int, int]:
    """How many units to keep from the head and from the tail when keeping ``k`` of ``n``."""
    if not middle:
        return k, 0
    return (k + 1) // 2, k // 2


def _prose(seg: Segment, middle: bool) -> tuple[int, Builder]:
    words = seg.text.split()
    prefix = "> " if seg.kind is SegmentKind.QUOTE else ""

    def build(k: int) -> tuple[str, str]:
        head, tail = _split(len(words), k, middle)
        if middle:
            text = " ".join([*words[:head], MARK_MIDDLE, *words[len(words) - tail :]])
        else:
            text = " ".join([*words[:head], MARK_END])
        return text, prefix + text

    return len(words), build


def _code(seg: Segment, middle: bool) -> tuple[int, Builder]:
    lines = seg.text.split("\n")
    opener = seg.header if seg.header is not None else "```"
    fence = seg.markdown.rsplit("\n", 1)[-1] if "\n" in seg.markdown else "```"

    def build(k: int) -> tuple[str, str]:
        head, tail = _split(len(lines), k, middle)
        first = "\n".join(lines[:head])
        if not middle:
            return first + "\n" + MARK_END, f"{opener}\n{first}\n{fence}\n{MARK_END}"
        last = "\n".join(lines[len(lines) - tail :])
        text = f"{first}\n{MARK_MIDDLE}\n{last}"
        return text, f"{opener}\n{first}\n{fence}\n{MARK_MIDDLE}\n{opener}\n{last}\n{fence}"

    return len(lines), build


def _rows(seg: Segment, middle: bool) -> tuple[int, Builder]:
    """Tables (header kept, repeated after a middle cut) and lists: whole lines only."""
    md_lines = seg.markdown.split("\n")
    head_md: list[str] = []
    if seg.kind is SegmentKind.TABLE and seg.header:
        head_md = seg.header.split("\n")
    rows_md = md_lines[len(head_md) :]
    text_lines = seg.text.split("\n")
    if len(text_lines) >= len(rows_md):
        head_text, rows_text = text_lines[: len(text_lines) - len(rows_md)], text_lines[len(text_lines) - len(rows_md) :]
    else:  # an unexpected shape: cut the markdown lines and show them in both formats
        head_text, rows_text = head_md, rows_md
    gap = "\n\n" if seg.kind is SegmentKind.TABLE else "\n"  # a line right under a table would read as a row

    def part(head: list[str], rows: Sequence[str]) -> str:
        return "\n".join([*head, *rows])

    def build(k: int) -> tuple[str, str]:
        head, tail = _split(len(rows_md), k, middle)
        out: list[str] = []
        for lines_head, rows in ((head_text, rows_text), (head_md, rows_md)):
            first = part(lines_head, rows[:head])
            if middle:
                out.append(first + gap + MARK_MIDDLE + gap + part(lines_head, rows[len(rows) - tail :]))
            else:
                out.append(first + gap + MARK_END)
        return out[0], out[1]

    return len(rows_md), build


def truncate(segment: Segment, limit: int, estimate: Callable[[str], int], strategy: str,
             fmt: str = "markdown") -> Segment | None:
    """A cut copy of ``segment`` whose cost (block + separator) is at most ``limit``, or None if none is worth it.

    Headings are never cut (a half heading misleads), nor is anything that would keep fewer than ``MIN_WORDS``
    words of prose or no whole line of a block. The copy gets a group of its own so the renderer never merges it
    with a neighbouring part of the same unit (the marker must stay where the cut is).
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown truncation strategy {strategy!r}")
    middle = strategy == "truncate_middle"
    kind = segment.kind
    if kind is SegmentKind.HEADING or limit <= 0:
        return None
    if kind is SegmentKind.CODE:
        n, build = _code(segment, middle)
        least = 1
    elif kind in (SegmentKind.TABLE, SegmentKind.LIST):
        n, build = _rows(segment, middle)
        least = 1
    else:
        n, build = _prose(segment, middle)
        least = MIN_WORDS
    if middle:
        least = max(least, 2)  # a middle cut keeps something on both sides
    if n - 1 < least:
        return None

    def candidate(k: int) -> Segment:
        text, markdown = build(k)
        return dataclasses.replace(segment, text=text, markdown=markdown, group=-2 - segment.index, part=0)

    def cost(seg: Segment) -> int:
        return int(estimate(block(seg, fmt) + SEPARATOR))

    best: Segment | None = None
    lo, hi = least, n - 1  # keeping all n units is not a truncation
    while lo <= hi:
        mid = (lo + hi) // 2
        cand = candidate(mid)
        if cost(cand) <= limit:
            best, lo = cand, mid + 1
        else:
            hi = mid - 1
    return best
