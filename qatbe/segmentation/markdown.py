"""Markdown segmentation with markdown-it-py's block parser, or markdown-it-pyrs's when it is installed.

Only block structure matters for segmentation, so the core ``inline`` rule is switched off: inline content stays
as written (emphasis, code spans), which is also what the rendered output should show. Measured on the squad11 and
conditionalqa markdown (1.07 MB): block-only parsing runs at 11.2 MB/s against 3.7 MB/s with inline parsing on.
Link and image targets are dropped from inline text because a URL costs many tokens and rarely carries an answer.

One walk (``_Walk``) holds what each block becomes; each parser's output drives it in document order:
markdown-it-py's flat token stream (``_pure_document``) and markdown-it-pyrs's tree (``_pyrs_document``), both
read in a loop (the tree with an explicit stack), so no depth meets the recursion limit.

The parser: markdown-it-pyrs (``pip install 'qatbe[fast-markdown]'``, the Rust port of markdown-it, its block
rules only) parses about five times as fast and gives the same segments (tests/test_markdown_parsers.py on every
dev markdown document). It has no nesting limit, so a document whose lines open many containers, or whose tree
comes out deeper than ``_PYRS_MAX_LEVEL``, is parsed by markdown-it-py, whose limit decides what such a document
becomes. ``QATBE_MARKDOWN_PARSER`` picks the parser: ``auto`` (the default: markdown-it-pyrs when importable),
``markdown-it-py`` or ``markdown-it-pyrs``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate, repeat
from operator import add
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from selectolax.lexbor import LexborHTMLParser

from .._backend import MARKDOWN_PARSER_ENV, markdown_parser_choice
from ..errors import ConfigError
from ..settings import Settings
from ..types import Metadata, ParsedDocument
from .builder import ListItem, SegmentBuilder
from .front_matter import FrontMatter, read_front_matter
from .spans import aligner
from .text import LINE_END, segment_text

_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\((?:[^()\s]|\([^)]*\))*(?:\s+\"[^\"]*\")?\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")


_MAX_NESTING = 40
_LINE_END = re.compile(LINE_END)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True, "maxNesting": _MAX_NESTING}).enable("table")
    md.core.ruler.disable("inline")
    return md


# The deepest token level a markdown-it-pyrs tree may reach; deeper, markdown-it-py parses the document (its
# ``maxNesting`` truncation, and the plain-text fallback below, decide what such a document becomes).
_PYRS_MAX_LEVEL = 30
# A line opening this many containers (quote, list markers) or indented this far goes to markdown-it-py at once:
# markdown-it-pyrs nests without limit, and its time grows faster than the input on such lines (100,000 list
# markers on one line: 11 s).
# Each match starts at a line break (a literal first character makes the search skip ahead at memchr speed); the
# first line is checked with one put in front. Only time depends on this: a tree too deep is refused anyway.
_DEEP_LINE = re.compile(r"\n(?:(?:[ \t]*(?:>|[-*+]|\d{1,9}[.)])(?=[ \t>\r\n]|\Z)){12}|[ \t]{48})")
# A quote's line followed by a line that does not continue the quote's markers: a lazy continuation, which the
# two parsers end differently when the next line opens a table or an ordered list not numbered 1
# (tests/test_markdown_parsers.py); such documents go to markdown-it-py.
_LAZY_QUOTE = re.compile(r"\n[ \t]{0,3}>[^\n]*\n[ \t]*[^\s>]")
# A line holding a pipe (a table's row, perhaps) followed by a non-blank line without one: where a table ends, the
# two parsers differ for some lines (an ordered list not numbered 1); such documents go to markdown-it-py.
_TABLE_END = re.compile(r"\|[^\n]*\n[ \t]*[^\s|][^\n|]*(?:\n|\Z)")
_NEWLINES = re.compile(r"\r\n?")
_PYRS_RULES: list[Any] = ["blockquote", "code", "fence", "heading", "hr", "lheading", "list", "paragraph", "reference",
               "html_block", "table"]


@lru_cache(maxsize=1)
def _pyrs() -> Any:
    """markdown-it-pyrs with its block rules only (inline content stays as written), or None when absent."""
    try:
        import markdown_it_pyrs
    except ImportError:
        return None
    return markdown_it_pyrs.MarkdownIt("zero").enable_many(_PYRS_RULES)


def segment_markdown(text: str, settings: Settings) -> ParsedDocument:
    """The segments of markdown ``text``: from markdown-it-pyrs's tree where it is installed, chosen and the
    document is not deeply nested, from markdown-it-py's tokens otherwise."""
    choice = markdown_parser_choice()  # QATBE_MARKDOWN_PARSER, read by qatbe._backend
    if choice != "markdown-it-py":
        document = _pyrs_document(text, settings)
        if document is not None:
            return document
        if choice == "markdown-it-pyrs" and _pyrs() is None:
            raise ConfigError(f"{MARKDOWN_PARSER_ENV}=markdown-it-pyrs but it is not installed (pip install "
                              "'qatbe[fast-markdown]')")
    return _pure_document(text, settings)


def _pyrs_document(text: str, settings: Settings) -> ParsedDocument | None:
    """The segments of ``text`` from markdown-it-pyrs's tree, or None when markdown-it-py must parse it (no
    markdown-it-pyrs, a deep line, a deep tree, a node this does not read).

    The tree drives the same ``_Walk`` as markdown-it-py's tokens, each node as the events its tokens give:
    a paragraph (or a tight list item's text at block level) is text, a heading its level and text, the
    containers open and close, a table row its cells; the levels are those markdown-it-py gives, so a tree too
    deep for the fallback's limit goes to the fallback. A block's position is the start of the line its source
    span (bytes of the UTF-8 text, as markdown-it-pyrs counts them) starts on."""
    md = _pyrs()
    if md is None:
        return None
    front = read_front_matter(text)
    # The front matter's lines are parsed as blank lines: the positions stay those of ``text``.
    source = text if front is None else "\n" * front.lines + text[front.end:]
    if _DEEP_LINE.search(source) is not None or _DEEP_LINE.match("\n" + source[:2000]) is not None:
        return None
    if ">" in source and _LAZY_QUOTE.search("\n" + source) is not None:
        return None
    if "|" in source and _TABLE_END.search(source) is not None:
        return None
    source = _NEWLINES.sub("\n", source).replace("\x00", "\ufffd")  # what markdown-it-py does first
    raw = source.encode("utf-8")
    walk = _Walk(text, front, settings)
    if front is None and "\r" not in text and len(raw) == len(source):
        # One byte a character, and the parsed text is the source: a line's start is found in it directly.
        def position(node: Any) -> int:
            first = node.srcmap[0] if node.srcmap else 0
            return source.rfind("\n", 0, first) + 1
    else:
        starts = [0] + [m.end() for m in re.finditer(b"\n", raw)]
        line_starts = _line_starts(text)

        def position(node: Any) -> int:
            line = bisect_right(starts, node.srcmap[0] if node.srcmap else 0) - 1
            return line_starts[line] if line < len(line_starts) else len(text)

    # (node, level, closing): an explicit stack, so depth never meets the recursion limit.
    stack: list[tuple[Any, int, bool]] = [(child, 0, False) for child in reversed(md.tree(source).children)]
    while stack:
        node, level, closing = stack.pop()
        name = node.name
        if level > _PYRS_MAX_LEVEL:
            return None
        if closing:
            _CLOSE[name](walk)
        elif name == "paragraph":
            inner = _inline(node)
            if inner is None:
                return None
            walk.text(inner, position(node))
        elif name == "text":  # at block level: a tight list item's hidden paragraph
            walk.text(node.meta["content"], position(node))
        elif name == "heading" or name == "lheading":
            inner = _inline(node)
            if inner is None:
                return None
            walk.heading(node.meta["level"], inner, position(node))
        elif name == "list_item":
            walk.item_open(position(node))
            stack.append((node, level, True))
            stack.extend([(child, level + 1, False) for child in reversed(node.children)])
        elif name == "bullet_list" or name == "ordered_list" or name == "blockquote":
            if name == "blockquote":
                walk.quote_open(position(node))
            else:
                walk.list_open(name == "ordered_list", node.meta.get("start", 1))
            stack.append((node, level, True))
            stack.extend([(child, level + 1, False) for child in reversed(node.children)])
        elif name == "table":
            # thead and tbody one level down, their rows two, the cells three (markdown-it-py's levels).
            if level + 3 > _PYRS_MAX_LEVEL:
                return None
            walk.table_open(position(node))
            for part in node.children:
                if part.name not in ("thead", "tbody"):
                    return None
                for row in part.children:
                    if row.name != "trow":
                        return None
                    cells: list[str] = []
                    for cell in row.children:
                        inner = _inline(cell) if cell.name == "tcell" else None
                        if inner is None:
                            return None
                        cells.append(inner)
                    walk.row(cells, part.name == "thead")
            walk.table_close()
        elif name == "fence" or name == "code_block":
            meta = node.meta
            walk.code(meta["content"], meta.get("info", "") if name == "fence" else "", position(node))
        elif name == "html_block":
            walk.html(node.meta["content"], position(node))
        elif name != "hr" and name != "definition":  # a rule or a link reference definition: no segment
            return None
    return walk.document()


def _inline(node: Any) -> str | None:
    """The text of a block's inline children, as written (None: a child that is not text)."""
    parts = []
    for child in node.children:
        if child.name != "text":
            return None
        parts.append(child.meta["content"])
    return "".join(parts)


def inline_text(content: str) -> str:
    """Inline markdown as a reader needs it: link and image targets dropped, everything else kept."""
    if "]" not in content:  # most paragraphs have no link; skip three regex scans
        return content
    content = _IMAGE.sub(r"\1", content)
    content = _LINK.sub(r"\1", content)
    return _REF_LINK.sub(r"\1", content)


@dataclass
class _ListState:
    ordered: bool
    number: int
    items: list[ListItem] = field(default_factory=list)


class _Walk:
    """What each markdown block becomes: the one walk both parsers drive, block by block in document order.

    A block's text goes to the open quote, else the open list item, else a block of its own (``_held``); a list
    item's own text comes before its nested lists; nested lists are flattened into their outermost list, and a
    list inside a quote into the quote's text; a table's header is its head row."""

    __slots__ = ("_front", "builder", "item_pos", "item_text", "lists", "quote_depth", "quote_parts", "quote_pos",
                 "table_header", "table_pos", "table_rows", "title")

    def __init__(self, text: str, front: FrontMatter | None, settings: Settings) -> None:
        spans = aligner(text, markup=False)
        if front is not None:
            spans.skip_to(front.end)  # the front matter is metadata: no segment comes from it
        self._front = front
        self.builder = SegmentBuilder(settings, spans=spans)
        self.title: str | None = None
        self.lists: list[_ListState] = []  # open lists, outermost first
        self.item_text: list[list[str]] = []  # text collected for each open list item
        self.item_pos: list[int] = []
        self.quote_depth = 0
        self.quote_parts: list[str] = []
        self.quote_pos = -1
        self.table_header: list[str] = []
        self.table_rows: list[list[str]] = []
        self.table_pos = -1

    def _held(self, content: str) -> bool:
        """Whether ``content`` went into the open quote or list item (each is emitted whole when it closes)."""
        if self.quote_depth:
            self.quote_parts.append(content)
        elif self.lists:
            self.item_text[-1].append(content)
        else:
            return False
        return True

    def _place(self, content: str, position: int) -> None:
        if not self._held(content):
            self.builder.paragraph(content, position)

    def text(self, content: str, position: int) -> None:
        self._place(inline_text(content), position)

    def heading(self, level: int, content: str, position: int) -> None:
        content = inline_text(content)
        if not self._held(content):
            self.builder.heading(content, level, position)
            if self.title is None and level == 1:
                segments = self.builder.segments
                self.title = segments[-1].text if segments else None

    def html(self, content: str, position: int) -> None:
        plain = _html_text(content)
        if plain:
            self._place(plain, position)

    def code(self, content: str, info: str, position: int) -> None:
        if not self._held(content):
            self.builder.code(content, info.split()[0] if info.strip() else None, position)

    def list_open(self, ordered: bool, start: float | str | None) -> None:
        if self.lists and self.item_text and self.item_text[-1]:
            # The parent item's own text comes before its children: emit it now, keep the item open.
            self._flush_item(keep_open=True)
        self.lists.append(_ListState(ordered=ordered, number=int(start or 1) if ordered else 1))

    def item_open(self, position: int) -> None:
        self.item_text.append([])
        self.item_pos.append(position)

    def item_close(self) -> None:
        self._flush_item()

    def list_close(self) -> None:
        state = self.lists.pop()
        if self.lists:
            self.lists[-1].items.extend(state.items)
        elif self.quote_depth:
            self.quote_parts.extend(item.text for item in state.items)
        else:
            self.builder.list(state.items, state.items[0].position if state.items else -1)

    def quote_open(self, position: int) -> None:
        if self.quote_depth == 0:
            self.quote_parts, self.quote_pos = [], position
        self.quote_depth += 1

    def quote_close(self) -> None:
        self.quote_depth -= 1
        if self.quote_depth == 0:
            self.builder.quote(" ".join(self.quote_parts), self.quote_pos)

    def table_open(self, position: int) -> None:
        self.table_header, self.table_rows, self.table_pos = [], [], position

    def row(self, cells: list[str], head: bool) -> None:
        row = [inline_text(cell).replace("\\|", "|") for cell in cells]  # the builder escapes pipes again
        if head:
            self.table_header = row
        else:
            self.table_rows.append(row)

    def table_close(self) -> None:
        self.builder.table(self.table_header or None, self.table_rows, self.table_pos)

    def _flush_item(self, *, keep_open: bool = False) -> None:
        if not self.item_text:
            return
        parts = self.item_text.pop()
        pos = self.item_pos.pop()
        state = self.lists[-1]
        if parts:
            state.items.append(ListItem(" ".join(parts), depth=len(self.lists) - 1, ordered=state.ordered,
                                        number=state.number, position=pos))
            state.number += 1
        if keep_open:
            self.item_text.append([])
            self.item_pos.append(pos)

    def document(self) -> ParsedDocument:
        # Unclosed structures cannot happen with markdown-it (it closes everything), but stay safe.
        while self.lists:
            state = self.lists.pop()
            self.builder.list(state.items, -1)
        front = self._front
        metadata = Metadata(title=self.title) if front is None else front.metadata(self.title)
        return ParsedDocument(segments=tuple(self.builder.segments), metadata=metadata, format="markdown")


_CLOSE = {"bullet_list": _Walk.list_close, "ordered_list": _Walk.list_close, "list_item": _Walk.item_close,
          "blockquote": _Walk.quote_close}


def _pure_document(text: str, settings: Settings) -> ParsedDocument:
    """The segments of ``text`` from markdown-it-py's tokens."""
    front = read_front_matter(text)
    # The front matter's lines are parsed as blank lines: the tokens' line numbers stay those of ``text``.
    tokens = _parser().parse(text if front is None else "\n" * front.lines + text[front.end:])
    if tokens and max(t.level for t in tokens) >= _MAX_NESTING - 1:
        # markdown-it stops descending at maxNesting and silently drops what lies deeper (its block parser
        # recurses, so the limit cannot simply be raised). Such input is pathological; keeping every word as
        # plain-text blocks is the honest result.
        return segment_text(text, settings)
    line_starts = _line_starts(text)
    walk = _Walk(text, front, settings)

    def position(token: Token) -> int:
        if token.map is None:
            return -1
        line = token.map[0]
        return line_starts[line] if line < len(line_starts) else len(text)

    heading: tuple[int, int] | None = None  # an open heading's level and position
    row: list[str] | None = None  # an open table row's cells
    head = False
    for tok in tokens:
        kind = tok.type
        if kind == "inline":
            if heading is not None:
                walk.heading(heading[0], tok.content, heading[1])
            elif row is not None:
                row.append(tok.content)
            else:
                walk.text(tok.content, position(tok))
        elif kind == "heading_open":
            heading = (int(tok.tag[1]), position(tok))
        elif kind == "heading_close":
            heading = None
        elif kind == "bullet_list_open" or kind == "ordered_list_open":
            walk.list_open(kind == "ordered_list_open", tok.attrs.get("start", 1))
        elif kind == "list_item_open":
            walk.item_open(position(tok))
        elif kind == "list_item_close":
            walk.item_close()
        elif kind == "bullet_list_close" or kind == "ordered_list_close":
            walk.list_close()
        elif kind == "blockquote_open":
            walk.quote_open(position(tok))
        elif kind == "blockquote_close":
            walk.quote_close()
        elif kind == "fence" or kind == "code_block":
            walk.code(tok.content, tok.info, position(tok))
        elif kind == "table_open":
            walk.table_open(position(tok))
        elif kind == "thead_open" or kind == "thead_close":
            head = kind == "thead_open"
        elif kind == "tr_open":
            row = []
        elif kind == "tr_close":
            if row is not None:
                walk.row(row, head)
            row = None
        elif kind == "table_close":
            walk.table_close()
        elif kind == "html_block":
            walk.html(tok.content, position(tok))
    return walk.document()


def _line_starts(text: str) -> list[int]:
    r"""Where each line of ``text`` starts, lines as markdown-it counts them (it normalises "\r\n" and a lone "\r"
    to "\n" before parsing: ``LINE_END``). Without a "\r" (nearly every text) the lines are split at "\n" and
    their lengths summed in C. Why not the regex everywhere: ``LINE_END`` has no literal first character to skip
    ahead to, so its search steps through every character of the text."""
    if "\r" in text:
        return [0] + [m.end() for m in _LINE_END.finditer(text)]
    return list(accumulate(map(add, map(len, text.split("\n")[:-1]), repeat(1)), initial=0))


def _html_text(fragment: str) -> str:
    """Raw HTML inside markdown: keep its visible text (selectolax drops tags, scripts and styles)."""
    tree = LexborHTMLParser(fragment)
    for node in tree.css("script, style, template, svg, noscript"):
        node.decompose()
    root = tree.body
    return (root.text(separator=" ") if root is not None else "").strip()
