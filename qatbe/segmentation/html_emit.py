"""Blocks to segments: hand each walked block to the builder, with its source position.

Source positions: selectolax does not expose offsets, so each block's first plain word is searched for in the
HTML from a cursor that only moves forward (bounded window), which keeps positions monotonic and the cost linear.
"""

from __future__ import annotations

from typing import Any

from ..types import SegmentKind
from .builder import ListItem, SegmentBuilder, clean_inline
from .html_tables import TableData
from .html_walk import Block

_SEARCH_WINDOW = 1 << 17
_PARAGRAPH = SegmentKind.PARAGRAPH
_QUOTE = SegmentKind.QUOTE
_METADATA = SegmentKind.METADATA


class _Locator:
    """Source offsets by searching each block's first plain word from a forward-only cursor.

    Linear by construction: every search is bounded by a window, and all searches together may scan at most a
    few times the page (a budget), after which blocks get the cursor's position. Misses (a word split by a tag or
    an entity) leave the cursor where it is, so positions stay monotonic.
    """

    __slots__ = ("budget", "cursor", "html", "window")

    def __init__(self, html: str, window: int = _SEARCH_WINDOW) -> None:
        if window < 1:
            raise ValueError("window must be at least 1 character")
        self.html = html
        self.window = window
        body = html.find("<body")
        self.cursor = max(body, 0)
        self.budget = 4 * len(html) + window

    def find(self, text: str) -> int:
        cursor = self.cursor
        budget = self.budget
        if budget <= 0:
            return cursor
        needle = _needle(text)
        if not needle:
            return cursor
        end = cursor + min(budget, self.window)
        at = self.html.find(needle, cursor, end)
        if at < 0:
            self.budget = budget - (end - cursor)
            return cursor
        self.cursor = at + len(needle)
        self.budget = budget - (self.cursor - cursor)
        return at


def _needle(text: str) -> str:
    """What the locator searches for: the first match of ``[A-Za-z0-9]{4,}`` in the first 400 characters, else
    the first eight characters after blanks. A loop rather than the regex: compiled (html_emit.pxd) it is a C scan
    of the text, and the regex engine's search was a tenth of the emit stage (tests/test_segment_speedpath.py
    checks the two agree)."""
    n = min(len(text), 400)
    run = 0
    for i in range(n):
        c = text[i]
        if "a" <= c <= "z" or "A" <= c <= "Z" or "0" <= c <= "9":
            run += 1
        elif run >= 4:
            return text[i - run : i]
        else:
            run = 0
    if run >= 4:
        return text[n - run : n]
    return text.strip()[:8]


def _emit(builder: SegmentBuilder, blocks: list[Block], html: str, locate: Any = None) -> None:
    """Hand every block to the builder; ``locate`` finds source positions (``_Locator(html)`` unless given:
    ``html_fastwalk.ByteLocator`` finds the same ones faster)."""
    if locate is None:
        locate = _Locator(html)
    find = locate.find
    for block in blocks:
        kind = block.kind
        boiler = block.boiler
        # Paragraphs are two blocks in three: they are tested first.
        if kind == "p" and not block.meta:
            builder.add_paragraph(block.text, find(block.text), _PARAGRAPH, boiler)
        elif kind == "list":
            if block.items:
                base = min([item[1] for item in block.items])
                items = [ListItem(text, depth - base, ordered, number, find(text))
                         for text, depth, ordered, number, _ in block.items]
                builder.add_list(items, items[0].position, boiler)
        elif kind == "table":
            data = block.table
            assert data is not None
            first = _first_cell(data)
            builder.table(data.header, data.rows, find(first), caption=data.caption, boilerplate=boiler)
        else:
            text = block.text
            position = find(text)
            if kind == "h":
                builder.add_heading(text, block.level, position, boiler)
            elif kind == "code":
                if boiler:  # as inline text: the builder takes the walk's texts as collapsed, code is not
                    builder.add_paragraph(clean_inline(text), position, _PARAGRAPH, True)
                else:
                    builder.code(text, block.lang, position)
            elif kind == "quote":
                builder.add_paragraph(text, position, _QUOTE, boiler)
            elif kind == "caption" or block.meta:
                builder.add_paragraph(text, position, _METADATA, boiler)
            else:
                builder.add_paragraph(text, position, _PARAGRAPH, boiler)


def _first_cell(data: TableData) -> str:
    """The table's first non-blank cell, header first: where its text starts in the source."""
    for row in ((data.header or ()),) + data.rows:
        for cell in row:
            if cell.strip():
                return cell
    return ""

