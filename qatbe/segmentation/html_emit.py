"""Blocks to segments: hand each walked block to the builder, with its source span.

Source spans: each block, list item and table row is found in the page's text stream (``spans.Stream``) from where
the previous one ended, so spans follow the walk's document order and the cost stays linear.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..types import SegmentKind
from .builder import ListItem, SegmentBuilder, clean_inline
from .html_tables import TableData
from .html_walk import Block
from .spans import Stream

_PARAGRAPH = SegmentKind.PARAGRAPH
_QUOTE = SegmentKind.QUOTE
_METADATA = SegmentKind.METADATA


def _emit(builder: SegmentBuilder, blocks: list[Block], stream: Stream) -> None:
    """Hand every block to the builder with its source span: the spans of all units (blocks, list items, table
    cells) are aligned first, in document order (``Stream.align``), and the builder finds its parts' spans
    inside them."""
    texts, cells, heads = _units(blocks)
    spans = iter(stream.align(texts, cells, heads))
    for block in blocks:
        kind = block.kind
        boiler = block.boiler
        # Paragraphs are two blocks in three: they are tested first.
        if kind == "p" and not block.meta:
            start, end = next(spans)
            builder.add_paragraph(block.text, start, _PARAGRAPH, boiler, end)
        elif kind == "list":
            if block.items:
                base = min([item[1] for item in block.items])
                items = []
                for text, depth, ordered, number, _ in block.items:
                    start, end = next(spans)
                    items.append(ListItem(text, depth - base, ordered, number, start, end))
                builder.add_list(items, items[0].position, boiler, items[-1].end)
        elif kind == "table":
            data = block.table
            assert data is not None
            _table(builder, data, spans, boiler)
        else:
            text = block.text
            start, end = next(spans)
            if kind == "h":
                builder.add_heading(text, block.level, start, boiler, end)
            elif kind == "code":
                if boiler:  # as inline text: the builder takes the walk's texts as collapsed, code is not
                    builder.add_paragraph(clean_inline(text), start, _PARAGRAPH, True, end)
                else:
                    builder.code(text, block.lang, start, end)
            elif kind == "quote":
                builder.add_paragraph(text, start, _QUOTE, boiler, end)
            elif kind == "caption" or block.meta:
                builder.add_paragraph(text, start, _METADATA, boiler, end)
            else:
                builder.add_paragraph(text, start, _PARAGRAPH, boiler, end)


def _units(blocks: list[Block]) -> tuple[list[str], set[int], set[int]]:
    """The texts whose spans ``_emit`` takes, in its order: a block's text, a list's items, a table's cells; the
    indexes of the table cells after each table's first, which ``Stream.align`` looks for near the one before,
    and of the header cells, which it takes only whole (``Stream.align`` says why)."""
    texts: list[str] = []
    cells: set[int] = set()
    heads: set[int] = set()
    for block in blocks:
        if block.kind == "list":
            texts.extend([item[0] for item in block.items])
        elif block.kind == "table":
            data = block.table
            assert data is not None
            first = len(texts)
            for row, cell in _cells(data):
                if row == -1:
                    heads.add(len(texts))
                texts.append(cell)
            cells.update(range(first + 1, len(texts)))
        else:
            texts.append(block.text)
    return texts, cells, heads


def _cells(data: TableData) -> list[tuple[int, str]]:
    """The cells of a table whose spans are found, as (row, text), the caption as row -2 and the header as row
    -1: the non-blank cells that are not a copy of the cell above or to their left (a cell spanning rows or
    columns is repeated in the grid and read once in the source)."""
    cells: list[tuple[int, str]] = []
    if data.caption:
        cells.append((-2, data.caption))
    above: tuple[str, ...] = ()
    rows = ((data.header,) if data.header else ()) + data.rows
    first = -1 if data.header else 0
    for k, row in enumerate(rows):
        for j, cell in enumerate(row):
            if cell.strip() and not (j < len(above) and above[j] == cell) and not (j and row[j - 1] == cell):
                cells.append((first + k, cell))
        above = row
    return cells


def _table(builder: SegmentBuilder, data: TableData, spans: Iterator[tuple[int, int]], boiler: bool) -> None:
    """A table with the span of its caption and header and of every row: a row from its first to its last cell
    of its own (``_cells``); a row without one, an empty span where the previous one ended."""
    start = end = head = -1
    rows = [(-1, -1)] * len(data.rows)
    for row, _ in _cells(data):
        a, b = next(spans)
        if start < 0:
            start = a  # where the table's first cell is, or would be (an empty span where the stream stood)
        if a == b:
            continue
        end = max(end, b)
        if row >= 0:
            first, _ = rows[row]
            rows[row] = (a if first < 0 else first, b)
        else:
            head = b
    last = max(start, head, 0)
    for k, (a, b) in enumerate(rows):
        if a < 0:
            rows[k] = (last, last)
        else:
            last = b
    builder.table(data.header, data.rows, max(start, 0), caption=data.caption, boilerplate=boiler,
                  row_spans=rows, end=max(end, start, 0))
