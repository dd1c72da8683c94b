"""HTML to typed segments: parse with Lexbor, walk (``html_walk``), decide boilerplate (``html_decide``), emit.

Boilerplate is emitted as NAVIGATION (``boilerplate=True``) so ``qatbe.segment`` can show it; ``extract`` leaves
it out unless asked.

Emitting blocks as segments is ``html_emit``'s job; their source spans are found by ``spans``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from selectolax.lexbor import LexborHTMLParser

from .._backend import html_walk, kernel
from ..settings import Settings
from ..types import DeferredMetadata, Metadata, ParsedDocument
from .builder import SegmentBuilder, clean_inline
from .html_decide import decide, rescue
from .html_emit import _emit
from .html_guard import at_risk, limit_nesting
from .html_math import has_math, replace_math
from .html_metadata import CssSource, PageFacts, read_from, with_byline
from .html_structured import EMPTY_BODY, body_text_chars, structured_html
from .html_walk import SCRIPT_LIKE, Block, Walker
from .spans import ANCHORED_NEAR, aligner

# The compiled walk and metadata search when qatbe._backend chooses them (it probes Lexbor here, on first import).
_choice = html_walk()
FAST_WALK = _choice.fast
FAST_METADATA = _choice.metadata
WHY_PYTHON_WALK = _choice.why_python  # None when the compiled walk is used
if FAST_WALK:
    from .html_fastwalk import FastWalker, SpanAligner, anchor_offsets, fast_walk
if FAST_METADATA:
    from .lexbor_dom import MetadataSource

_DATELINE_BEFORE = 3
_DATELINE_AFTER = 8


def _dateline_window(blocks: list[Block]) -> list[Block]:
    """The blocks around the page's first heading (a few before it, more after), where a page shows its date and
    byline; from the top of the page if it has no heading."""
    start = next((i for i, b in enumerate(blocks) if b.kind == "h"), 0)
    return blocks[max(start - _DATELINE_BEFORE, 0) : start + _DATELINE_AFTER]


def _datelines(window: list[Block]) -> Iterator[str]:
    """The short paragraph-like blocks of a ``_dateline_window``. Lazy: ``with_byline`` stops early."""
    for block in window:
        if block.kind in ("p", "h") and block.chars <= 80:
            yield clean_inline(block.text)


def _bylines(blocks: list[Block]) -> Iterator[str]:
    """The texts of the blocks marked as bylines (by their element's name, ``html_boilerplate._META_WORDS``) and kept
    in the text. Lazy: ``with_byline`` stops early."""
    for block in blocks:
        if block.meta and not block.boiler:
            yield clean_inline(block.text)


_AUTHOR_NAMED = re.compile("author|byline", re.IGNORECASE)


def _pruned_bylines(blocks: list[Block]) -> Iterator[str]:
    """Bylines left out of the text with their surroundings: an author box that the main-text rules pruned still
    names the author. Only lines that say "By" or whose element is named for an author (``post-author``,
    ``byline``): a pruned line named for a date or the page's meta is a label ("Release Date:"), a category or a
    footer's address."""
    for block in blocks:
        if block.meta and block.boiler:
            text = clean_inline(block.text)
            if text[:3].lower() == "by " or _AUTHOR_NAMED.search(block.ctx.name) is not None:
                yield text


def _walk(tree: LexborHTMLParser) -> Walker | FastWalker:
    """The page's raw blocks: by the compiled walk over Lexbor's nodes when it can read them (``lexbor_nodes``),
    else by the Python walk over selectolax's objects, which needs script-like elements stripped first."""
    if FAST_WALK:
        body = tree.body or tree.root
        if body is None:
            return FastWalker()
        return fast_walk(body.mem_id)
    tree.strip_tags(list(SCRIPT_LIKE))
    body = tree.body or tree.root
    walker = Walker()
    if body is not None:
        walker.walk(body)
    return walker


class Structured(NamedTuple):
    """Blocks ``first`` to ``last`` (excluded) were read from the page's JSON-LD, which the source holds from
    ``start`` to ``end``: their segments' span."""

    first: int
    last: int
    start: int
    end: int


_JSONLD_SCRIPT = re.compile(r"<script\b[^>]*?\btype\s*=\s*[\"']?application/ld\+json\b[^>]*>.*?(?:</script\s*>|\Z)",
                            re.IGNORECASE | re.DOTALL)


def _with_structured(blocks: list[Block], scripts: list[str], discussion: bool,
                     source: str) -> tuple[list[Block], Structured | None]:
    """``blocks`` with the page's JSON-LD text (``html_structured``) walked in after its last kept block (its
    title, its byline), when that text is at least ``EMPTY_BODY`` characters and twice what the body kept; and
    which blocks those are, and where ``source`` holds the JSON-LD (found here with a regular expression: the
    tree keeps no source positions, and this runs only for a page whose body is empty)."""
    fragment = structured_html(scripts)
    if not fragment:
        return blocks, None
    walker = _walk(LexborHTMLParser(f"<body><article>{fragment}</article></body>"))
    decide(walker, discussion)
    found = body_text_chars(walker.blocks)
    if found < max(EMPTY_BODY, 2 * body_text_chars(blocks)):
        return blocks, None
    at = max([i + 1 for i, b in enumerate(blocks) if not b.boiler], default=0)
    held = [m.span() for m in _JSONLD_SCRIPT.finditer(source)]
    where = Structured(at, at + len(walker.blocks), held[0][0], held[-1][1]) if held else None
    return blocks[:at] + walker.blocks + blocks[at:], where


def page_facts(tree: LexborHTMLParser) -> PageFacts:
    """What the page's metadata is read from: by the C search over Lexbor's nodes when it can read them
    (``lexbor_dom``), else by selectolax's CSS queries (the same answers; tests/test_lexbor_dom.py checks)."""
    return PageFacts(MetadataSource(tree) if FAST_METADATA else CssSource(tree))


def _deferred_metadata(facts: PageFacts, blocks: list[Block]) -> DeferredMetadata:
    """The page's metadata as ``read_from`` and then ``with_byline`` read it, read when first asked for
    (``DeferredMetadata`` says why). Only the blocks ``with_byline`` may read are kept for it -- the marked ones
    (bylines, kept or pruned: two a page on scrapinghub-aeb) and the dateline window -- and their texts are
    cleaned only then: cleaning every candidate at once cost about 15 us of each extract."""
    marked = [b for b in blocks if b.meta]
    window = _dateline_window(blocks)

    def read() -> Metadata:
        metadata = read_from(facts)
        if metadata.author is None or metadata.date is None:
            metadata = with_byline(metadata, _bylines(marked), _datelines(window), _pruned_bylines(marked))
        return metadata

    return DeferredMetadata.of(read, facts.page_language)


def segment_html(html: str, settings: Settings, navigation: bool = True) -> ParsedDocument:
    """Split an HTML page into typed segments (boilerplate as NAVIGATION, or only counted with
    ``navigation=False``: see ``SegmentBuilder``) and read its metadata."""
    # Encoded here as selectolax would encode a str (errors="ignore"), by the kernel (kernel.utf8_encode says why):
    # the "<" are counted in the bytes, and the fast locator searches them.
    data = kernel.utf8_encode(html)
    source = html
    if at_risk(len(html), kernel.byte_count(data, 0x3C)):
        source = limit_nesting(html)
        data = kernel.utf8_encode(source)
    tree = LexborHTMLParser(data)
    facts = page_facts(tree)  # the metadata itself is read when asked for (_deferred_metadata)
    if has_math(data):  # formulas become TeX text before the walk, which skips <math> (html_math says why)
        replace_math(tree)
    walker = _walk(tree)  # the Python walk strips scripts: the JSON-LD for an empty body is in the facts
    discussion = facts.discussion
    decide(walker, discussion)
    blocks = walker.blocks
    structured = None
    if body_text_chars(blocks, EMPTY_BODY) < EMPTY_BODY:
        blocks, structured = _with_structured(blocks, facts.jsonld_texts(), discussion, html)
    rescue(blocks)
    # Spans are found in the page as given, which limit_nesting may have changed; the walk's texts are collapsed
    # already (clean=False).
    spans = aligner(html, data if source is html else None)
    anchors = None
    if FAST_WALK and source is html and isinstance(spans, SpanAligner) and tree.root is not None:
        anchors = anchor_offsets(spans, tree.root.mem_id, [b.node for b in blocks])
        spans.near = ANCHORED_NEAR
    builder = SegmentBuilder(settings, navigation, clean=False, spans=spans, anchored=anchors is not None)
    if structured is None:
        _emit(builder, blocks, anchors)
    else:
        first, last = structured.first, structured.last
        _emit(builder, blocks[:first], anchors[:first] if anchors is not None else None)
        builder.hold(structured.start, structured.end)
        _emit(builder, blocks[first:last])
        builder.hold(-1, -1)
        _emit(builder, blocks[last:], anchors[last:] if anchors is not None else None)
    return ParsedDocument(segments=tuple(builder.segments), metadata=_deferred_metadata(facts, blocks),
                          format="html")
