"""HTML tables to a rectangular grid: header row, colspan/rowspan expanded, nested structure flattened into cells.

Why hand-written: selectolax gives the tree, not a table model, and the libraries that build one (pandas.read_html,
html-table-parser) need lxml or re-parse the markup. The grid rules here are the few a reader expects: a cell that
spans columns or rows repeats its text in every slot it covers, a nested table or list inside a cell becomes the
cell's text, and the header is the ``<thead>`` rows or the leading rows made only of ``<th>``. A row that is one
cell across the whole table is a title and is said once (``table_data``).

A table without header cells whose cells hold headings, nested tables or long prose is a *layout* table: its cells
are page regions, not data, so ``read_table`` returns None and the segmenter walks it like any other container.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from .html_boilerplate import hidden_by_class, is_hidden

# Tags whose text never reaches a reader.
SKIP_TAGS = frozenset(
    {"script", "style", "template", "svg", "noscript", "iframe", "head", "object", "embed", "canvas", "button",
     "select", "option", "textarea", "input", "title", "meta", "link", "video", "audio", "map", "frame",
     "frameset", "noframes", "datalist", "source", "track", "param", "img", "picture", "area", "slot"}
)
# Inline tags that practically never carry hiding or naming evidence: their attributes are not read (speed).
CHEAP_INLINE = frozenset(
    {"a", "b", "i", "em", "strong", "code", "sub", "small", "abbr", "u", "s", "q", "cite", "tt", "kbd",
     "var", "samp", "mark", "del", "ins", "dfn", "bdi", "bdo", "nobr", "big", "strike", "acronym", "wbr", "data",
     "time", "font", "rt", "rp", "ruby"}
)
# Tags after which text must not run into the next word.
SPACED = frozenset(
    {"p", "div", "li", "ul", "ol", "dl", "dt", "dd", "tr", "td", "th", "table", "h1", "h2", "h3", "h4", "h5", "h6",
     "br", "hr", "blockquote", "pre", "section", "article", "figure", "figcaption", "caption", "address",
     "header", "footer", "nav", "aside", "main", "details", "summary", "center", "form", "fieldset", "tbody",
     "thead", "tfoot", "label"}
)
_STRUCTURE = frozenset({"table", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "article", "section"})
_MAX_COLSPAN = 64
_MAX_ROWSPAN = 2048
_MAX_WIDTH = 256
_LONG_CELL = 600

# selectolax's names for the nodes that are not elements: "-text", "-comment", "-doctype", "-document"; the
# other kinds (a processing instruction such as "<?php ?>" left in a page, CDATA) have no name, and read as
# NAMELESS_TAG, which the walks skip as they skip comments.
TEXT_TAG = "-text"
NAMELESS_TAG = "-"


@dataclass(frozen=True, slots=True)
class FlatText:
    text: str
    link_chars: int
    structure: int  # how many structural elements (tables, headings, pre, ...) the subtree holds


def visible_text(raw: str) -> str:
    """Text as a reader sees it: whitespace runs collapsed, invisible soft hyphens and zero-width spaces gone, and
    composed Unicode (NFC), so that the same word typed with combining marks and without compares equal, as it
    does on screen (extraction benchmarks count a decomposed "é" as a different word)."""
    text = " ".join(raw.split())
    if text.isascii():
        return text
    if "\xad" in text or "\u200b" in text:
        text = text.replace("\xad", "").replace("\u200b", "")
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def flat_text(node: Any) -> FlatText:
    """The text of a subtree with block boundaries as spaces, hidden and script-like parts left out.

    Iterative (an explicit stack of child iterators) so that deep nesting cannot hit the recursion limit.
    """
    parts: list[str] = []
    link = 0
    in_link = 0
    structure = 0
    stack: list[tuple[Any, str]] = [(node.iter(include_text=True), "")]
    while stack:
        for child in stack[-1][0]:
            tag = child.tag or NAMELESS_TAG
            if tag == TEXT_TAG:
                s = child.text_content
                if s:
                    parts.append(s)
                    if in_link:
                        link += len(s.strip())
                continue
            if tag in SKIP_TAGS or tag[0] in "-!_":
                continue
            if tag == "br" or tag == "hr":
                parts.append(" ")
                continue
            if tag not in CHEAP_INLINE:
                child_attrs = child.attributes
                if is_hidden(child_attrs) or hidden_by_class(tag, child_attrs):
                    continue
            if tag in _STRUCTURE:
                structure += 1
            if tag in SPACED:
                parts.append(" ")
            if tag == "a":
                in_link += 1
            stack.append((child.iter(include_text=True), tag))
            break
        else:
            _, tag = stack.pop()
            if tag == "a":
                in_link -= 1
            elif tag in SPACED:
                parts.append(" ")
    return FlatText(visible_text("".join(parts)), link, structure)


@dataclass(frozen=True, slots=True)
class TableData:
    header: tuple[str, ...] | None
    rows: tuple[tuple[str, ...], ...]
    caption: str | None
    chars: int
    link_chars: int


def _int_attr(attrs: dict[str, str | None], name: str, high: int) -> int:
    return int_value(attrs.get(name), high)


def int_value(value: str | None, high: int) -> int:
    """A span attribute's number, between 1 and ``high``: the decimal digits among its first six characters ("2px"
    is 2). ``isdecimal``, not ``isdigit``: superscript digits ("²") are digits that ``int()`` refuses."""
    if not value:
        return 1
    digits = "".join(ch for ch in value.strip()[:6] if ch.isdecimal())
    if not digits:
        return 1
    return min(max(int(digits), 1), high)


def _rows(table: Any) -> tuple[list[tuple[Any, bool]], Any | None]:
    """The table's own ``<tr>`` elements (not those of nested tables) with an in-``<thead>`` flag, and its caption."""
    rows: list[tuple[Any, bool]] = []
    caption = None
    for child in table.iter():
        tag = child.tag
        if tag == "tr":
            rows.append((child, False))
        elif tag in ("thead", "tbody", "tfoot"):
            head = tag == "thead"
            for row in child.iter():
                if row.tag == "tr":
                    rows.append((row, head))
        elif tag == "caption" and caption is None:
            caption = child
    return rows, caption


def read_table(table: Any) -> TableData | None:
    """Read a data table into a grid, or return None for a layout table (see the module docstring)."""
    attrs = table.attributes
    role = (attrs.get("role") or "").strip().lower()
    if role in ("presentation", "none"):
        return None
    row_nodes, caption_node = _rows(table)
    if caption_node is None and not any(in_head for _, in_head in row_nodes):
        own_th = any(cell.tag == "th" for row, _ in row_nodes for cell in row.iter())
        # Lexbor matches a selector against the node itself too: ask the children, or every table is "nested".
        if not own_th and any(child.css_first("table") is not None for child in table.iter()):
            # Header-less with a table inside: layout. Decided before reading any cell, so that tables nested
            # N deep cost N scans in C rather than N walks in Python.
            return None
    raw_rows: list[tuple[list[tuple[str, bool, int, int]], bool]] = []
    has_th = caption_node is not None
    structure = 0
    long_cells = 0
    chars = 0
    link = 0
    for row, in_head in row_nodes:
        cells: list[tuple[str, bool, int, int]] = []
        for cell in row.iter():
            tag = cell.tag
            if tag != "td" and tag != "th":
                continue
            cattrs = cell.attributes
            if is_hidden(cattrs):
                continue
            flat = flat_text(cell)
            structure += flat.structure
            chars += len(flat.text)
            link += flat.link_chars
            if len(flat.text) > _LONG_CELL:
                long_cells += 1
            is_th = tag == "th"
            has_th = has_th or is_th or in_head
            cells.append((flat.text, is_th, _int_attr(cattrs, "colspan", _MAX_COLSPAN),
                          _int_attr(cattrs, "rowspan", _MAX_ROWSPAN)))
        raw_rows.append((cells, in_head))
    caption = flat_text(caption_node).text if caption_node is not None else None
    return table_data(raw_rows, has_th, structure, long_cells, caption, chars, link)


RawRow = tuple[list[tuple[str, bool, int, int]], bool]  # (cells as (text, is_th, colspan, rowspan), in <thead>)


def table_data(raw_rows: list[RawRow], has_th: bool, structure: int, long_cells: int, caption: str | None,
               chars: int, link: int) -> TableData | None:
    """The table the walks read cell by cell (``read_table``; the compiled walk's ``_read_table``): None for a
    layout table, else its grid with the header rows stacked (``_merge_header``).

    A row that is one cell spanning every column is a title, not data, and is said once: the first header row
    becomes the caption when the table has none (rather than a prefix of every column's header), and in the body
    its text fills the first slot only (a section row such as "Group A" above its rows)."""
    width = max((sum(c[2] for c in cells) for cells, _ in raw_rows), default=0)
    if not has_th and (structure or long_cells or width <= 1):
        return None
    if has_th and width <= 1 and (structure or long_cells):
        return None
    grid = _expand(raw_rows)
    body_start = 0
    head_rows: list[tuple[str, ...]] = []
    for (cells, in_head), row in zip(raw_rows, grid):
        if cells and (in_head or all(c[1] for c in cells)):
            head_rows.append(row)
            body_start += 1
        else:
            break
    if caption is None and head_rows:
        first, _ = raw_rows[0]
        if _spans_all(first, width):
            caption = first[0][0]  # the title cell's text
            head_rows.pop(0)
    header = tuple(_merge_header(col) for col in zip(*head_rows)) if head_rows else None
    rows = tuple(row[:1] + ("",) * (len(row) - 1) if _spans_all(cells, width) else row
                 for (cells, _), row in zip(raw_rows[body_start:], grid[body_start:]))
    return TableData(header, rows, caption, chars, link)


def _spans_all(cells: list[tuple[str, bool, int, int]], width: int) -> bool:
    """One cell, one row high, across all ``width`` (> 1) columns."""
    return width > 1 and len(cells) == 1 and cells[0][2] >= width and cells[0][3] == 1


def _merge_header(column: tuple[str, ...]) -> str:
    """Stack multi-row header cells: "Population" over "2010" becomes "Population 2010" (repeats said once)."""
    seen: list[str] = []
    for text in column:
        text = " ".join(text.split())
        if text and (not seen or seen[-1] != text):
            seen.append(text)
    return " ".join(seen)


def _expand(raw_rows: list[tuple[list[tuple[str, bool, int, int]], bool]]) -> list[tuple[str, ...]]:
    """Expand colspan/rowspan so every row has one slot per column, each holding its covering cell's text."""
    carry: dict[int, tuple[str, int]] = {}  # column -> (text, rows still to cover)
    grid: list[tuple[str, ...]] = []
    for cells, _ in raw_rows:
        row: list[str] = []
        col = 0
        queue = iter(cells)
        pending = next(queue, None)
        while (pending is not None or any(c >= col for c in carry)) and col < _MAX_WIDTH:
            if col in carry:
                text, left = carry[col]
                row.append(text)
                if left <= 1:
                    del carry[col]
                else:
                    carry[col] = (text, left - 1)
                col += 1
                continue
            if pending is None:
                row.append("")
                col += 1
                continue
            text, _, colspan, rowspan = pending
            for _ in range(colspan):
                if col >= _MAX_WIDTH:
                    break
                row.append(text)
                if rowspan > 1:
                    carry[col] = (text, rowspan - 1)
                col += 1
            pending = next(queue, None)
        grid.append(tuple(row))
    return grid
