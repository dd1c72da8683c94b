"""Markdown segmentation with markdown-it-py's block parser, or markdown-it-pyrs's when it is installed.

Only block structure matters for segmentation, so the core ``inline`` rule is switched off: inline content stays
as written (emphasis, code spans), which is also what the rendered output should show. Measured on the squad11 and
conditionalqa markdown (1.07 MB): block-only parsing runs at 11.2 MB/s against 3.7 MB/s with inline parsing on. Link and image targets are
dropped from inline text because a URL costs many tokens and rarely carries an answer. The token stream is flat
(nesting is open/close pairs), so this walk is a loop with an explicit stack and cannot hit the recursion limit.

The parser: markdown-it-pyrs (``pip install 'qatbe[fast-markdown]'``, the Rust port of markdown-it, its block
rules only) parses about five times as fast; its tree becomes the token stream markdown-it-py would give
(``_pyrs_tokens``: type, tag, content, map, info, attrs, level), so the walk and the segments are the same
(tests/test_markdown_parsers.py on every dev markdown document). It has no nesting limit, so a document whose
lines open many containers, or whose tree comes out deeper than ``_PYRS_MAX_LEVEL``, is parsed by markdown-it-py,
whose limit decides what such a document becomes. ``QATBE_MARKDOWN_PARSER`` picks the parser: ``auto`` (the
default: markdown-it-pyrs when importable), ``markdown-it-py`` or ``markdown-it-pyrs``.
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
from .front_matter import read_front_matter
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


@dataclass(slots=True)
class _Token:
    """The fields of a markdown-it-py ``Token`` the walk reads (``attrs`` shared and empty unless given: the walk
    only reads it)."""

    type: str
    level: int
    tag: str = ""
    content: str = ""
    map: list[int] | None = None
    info: str = ""
    attrs: dict[str, Any] = field(default_factory=lambda: _NO_ATTRS)


_NO_ATTRS: dict[str, Any] = {}
_OPEN_CLOSE = {"bullet_list": "bullet_list", "ordered_list": "ordered_list", "list_item": "list_item",
               "blockquote": "blockquote", "table": "table", "thead": "thead", "tbody": "tbody", "trow": "tr"}


def _pyrs_tokens(text: str) -> list[_Token] | None:
    """markdown-it-py's token stream for ``text`` from markdown-it-pyrs's tree, or None when markdown-it-py must
    parse it (no markdown-it-pyrs, a deep line, a deep tree, a node this does not translate).

    Why rebuilt: the walk below reads markdown-it-py's tokens; each node becomes the tokens markdown-it-py
    emits for it that the walk reads (paragraph and table-cell open and close tokens, which it skips, are left
    out), at the level markdown-it-py gives them (a tight list item's text as a hidden paragraph's inline), and
    ``map``'s lines, start and end, come from the node's source span (bytes of the UTF-8 text, as
    markdown-it-pyrs counts them)."""
    md = _pyrs()
    if md is None or _DEEP_LINE.search(text) is not None or _DEEP_LINE.match("\n" + text[:2000]) is not None:
        return None
    if ">" in text and _LAZY_QUOTE.search("\n" + text) is not None:
        return None
    if "|" in text and _TABLE_END.search(text) is not None:
        return None
    text = _NEWLINES.sub("\n", text).replace("\x00", "\ufffd")  # what markdown-it-py does first
    raw = text.encode("utf-8")
    starts = [0] + [m.end() for m in re.finditer(b"\n", raw)]

    def lines(node: Any) -> list[int]:
        first, end = node.srcmap or (0, 0)
        return [bisect_right(starts, first) - 1, bisect_right(starts, max(end - 1, first))]

    def content(node: Any) -> str | None:
        """The text of a block's inline children, as written (None: a child that is not text)."""
        parts = []
        for child in node.children:
            if child.name != "text":
                return None
            parts.append(child.meta["content"])
        return "".join(parts)

    out: list[_Token] = []
    append = out.append
    # (node, level, closing): an explicit stack, as the walk below has, so depth never meets the recursion limit.
    stack: list[tuple[Any, int, bool]] = [(child, 0, False) for child in reversed(md.tree(text).children)]
    while stack:
        node, level, closing = stack.pop()
        name = node.name
        if level > _PYRS_MAX_LEVEL:
            return None
        if closing:
            append(_Token(f"{_OPEN_CLOSE[name]}_close", level))
        elif name == "paragraph" or name == "text":  # a text at block level: a tight list item's hidden paragraph
            where = lines(node)
            inner = node.meta["content"] if name == "text" else content(node)
            if inner is None:
                return None
            append(_Token("inline", level + 1, content=inner, map=where))
        elif name == "heading" or name == "lheading":
            where = lines(node)
            tag = f"h{node.meta['level']}"
            inner = content(node)
            if inner is None:
                return None
            append(_Token("heading_open", level, tag=tag, map=where))
            append(_Token("inline", level + 1, content=inner, map=where))
            append(_Token("heading_close", level, tag=tag))
        elif name in _OPEN_CLOSE:
            attrs = _NO_ATTRS
            if name == "ordered_list":
                number = node.meta.get("start", 1)
                attrs = {"start": number} if number != 1 else _NO_ATTRS
            append(_Token(f"{_OPEN_CLOSE[name]}_open", level, map=lines(node), attrs=attrs))
            stack.append((node, level, True))
            stack.extend([(child, level + 1, False) for child in reversed(node.children)])
        elif name == "tcell":
            inner = content(node)
            if inner is None:
                return None
            append(_Token("inline", level + 1, content=inner))
        elif name in ("fence", "code_block", "html_block"):
            meta = node.meta
            append(_Token(name, level, content=meta["content"], map=lines(node),
                          info=meta.get("info", "") if name == "fence" else ""))
        elif name == "hr":
            append(_Token("hr", level, map=lines(node)))
        elif name != "definition":  # a link reference definition: markdown-it-py emits no token for it
            return None
    return out


def parse_tokens(text: str) -> list[Any]:
    """The block tokens of ``text``: markdown-it-pyrs's, rebuilt as markdown-it-py's, where it is installed and
    chosen and the document is not deeply nested; markdown-it-py's otherwise."""
    choice = markdown_parser_choice()  # QATBE_MARKDOWN_PARSER, read by qatbe._backend
    if choice != "markdown-it-py":
        tokens = _pyrs_tokens(text)
        if tokens is not None:
            return tokens
        if choice == "markdown-it-pyrs" and _pyrs() is None:
            raise ConfigError(f"{MARKDOWN_PARSER_ENV}=markdown-it-pyrs but it is not installed (pip install "
                              "'qatbe[fast-markdown]')")
    return _parser().parse(text)


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


def segment_markdown(text: str, settings: Settings) -> ParsedDocument:
    front = read_front_matter(text)
    # The front matter's lines are parsed as blank lines: the tokens' line numbers stay those of ``text``.
    tokens = parse_tokens(text if front is None else "\n" * front.lines + text[front.end:])
    if tokens and max(t.level for t in tokens) >= _MAX_NESTING - 1:
        # markdown-it stops descending at maxNesting and silently drops what lies deeper (its block parser
        # recurses, so the limit cannot simply be raised). Such input is pathological; keeping every word as
        # plain-text blocks is the honest result.
        return segment_text(text, settings)
    line_starts = _line_starts(text)
    spans = aligner(text, markup=False)
    if front is not None:
        spans.skip_to(front.end)  # the front matter is metadata: no segment comes from it
    builder = SegmentBuilder(settings, spans=spans)
    title: str | None = None

    def offset(token: Token | _Token) -> int:
        if token.map is None:
            return -1
        line = token.map[0]
        return line_starts[line] if line < len(line_starts) else len(text)

    lists: list[_ListState] = []  # open lists, outermost first
    item_text: list[list[str]] = []  # text collected for each open list item
    item_pos: list[int] = []
    quote_depth = 0
    quote_parts: list[str] = []
    quote_pos = -1
    table_header: list[str] = []
    table_rows: list[list[str]] = []
    table_row: list[str] | None = None
    table_pos = -1
    in_head = False
    heading: tuple[int, int] | None = None

    def place(content: str, tok: Token | _Token) -> None:
        """Inline text goes to the open quote, else the open list item, else a paragraph of its own."""
        if quote_depth:
            quote_parts.append(content)
        elif lists:
            item_text[-1].append(content)
        else:
            builder.paragraph(content, offset(tok))

    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        kind = tok.type
        if kind == "heading_open":
            heading = (int(tok.tag[1]), offset(tok))
        elif kind == "heading_close":
            heading = None
        elif kind == "inline":
            content = inline_text(tok.content)
            if heading is not None:
                if quote_depth or lists:
                    (quote_parts if quote_depth else item_text[-1]).append(content)
                else:
                    builder.heading(content, heading[0], heading[1])
                    if title is None and heading[0] == 1:
                        title = builder.segments[-1].text if builder.segments else None
            elif table_row is not None:
                table_row.append(content.replace("\\|", "|"))  # the builder escapes pipes again
            else:
                place(content, tok)
        elif kind in ("bullet_list_open", "ordered_list_open"):
            start = int(tok.attrs.get("start", 1) or 1) if kind == "ordered_list_open" else 1
            if lists and item_text and item_text[-1]:
                # The parent item's own text comes before its children: emit it now, keep the item open.
                _flush_item(lists, item_text, item_pos, keep_open=True)
            lists.append(_ListState(ordered=kind == "ordered_list_open", number=start))
        elif kind == "list_item_open":
            item_text.append([])
            item_pos.append(offset(tok))
        elif kind == "list_item_close":
            _flush_item(lists, item_text, item_pos)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            state = lists.pop()
            if lists:
                lists[-1].items.extend(state.items)
            elif quote_depth:
                quote_parts.extend(item.text for item in state.items)
            else:
                builder.list(state.items, state.items[0].position if state.items else -1)
        elif kind == "blockquote_open":
            if quote_depth == 0:
                quote_parts, quote_pos = [], offset(tok)
            quote_depth += 1
        elif kind == "blockquote_close":
            quote_depth -= 1
            if quote_depth == 0:
                builder.quote(" ".join(quote_parts), quote_pos)
        elif kind in ("fence", "code_block"):
            language = tok.info.split()[0] if tok.info.strip() else None
            if quote_depth:
                quote_parts.append(tok.content)
            elif lists:
                item_text[-1].append(tok.content)
            else:
                builder.code(tok.content, language, offset(tok))
        elif kind == "table_open":
            table_header, table_rows, table_pos = [], [], offset(tok)
        elif kind == "thead_open":
            in_head = True
        elif kind == "thead_close":
            in_head = False
        elif kind == "tr_open":
            table_row = []
        elif kind == "tr_close":
            if table_row is not None:
                if in_head:
                    table_header = table_row
                else:
                    table_rows.append(table_row)
            table_row = None
        elif kind == "table_close":
            builder.table(table_header or None, table_rows, table_pos)
        elif kind == "html_block":
            plain = _html_text(tok.content)
            if plain:
                place(plain, tok)
        i += 1
    # Unclosed structures cannot happen with markdown-it (it closes everything), but stay safe.
    while lists:
        state = lists.pop()
        builder.list(state.items, -1)
    metadata = Metadata(title=title) if front is None else front.metadata(title)
    return ParsedDocument(segments=tuple(builder.segments), metadata=metadata, format="markdown")


def _line_starts(text: str) -> list[int]:
    r"""Where each line of ``text`` starts, lines as markdown-it counts them (it normalises "\r\n" and a lone "\r"
    to "\n" before parsing: ``LINE_END``). Without a "\r" (nearly every text) the lines are split at "\n" and
    their lengths summed in C. Why not the regex everywhere: ``LINE_END`` has no literal first character to skip
    ahead to, so its search steps through every character of the text."""
    if "\r" in text:
        return [0] + [m.end() for m in _LINE_END.finditer(text)]
    return list(accumulate(map(add, map(len, text.split("\n")[:-1]), repeat(1)), initial=0))


def _flush_item(
    lists: list[_ListState], item_text: list[list[str]], item_pos: list[int], *, keep_open: bool = False
) -> None:
    if not item_text:
        return
    parts = item_text.pop()
    pos = item_pos.pop()
    state = lists[-1]
    if parts:
        state.items.append(ListItem(" ".join(parts), depth=len(lists) - 1, ordered=state.ordered,
                                    number=state.number, position=pos))
        state.number += 1
    if keep_open:
        item_text.append([])
        item_pos.append(pos)


def _html_text(fragment: str) -> str:
    """Raw HTML inside markdown: keep its visible text (selectolax drops tags, scripts and styles)."""
    tree = LexborHTMLParser(fragment)
    for node in tree.css("script, style, template, svg, noscript"):
        node.decompose()
    root = tree.body
    return (root.text(separator=" ") if root is not None else "").strip()
