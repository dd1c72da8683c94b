"""HTML to typed segments: one iterative walk over the Lexbor tree, then boilerplate decided by evidence.

The walk (``_Walker``) turns the tree into raw blocks in document order (heading, paragraph, list, table, code,
quote, caption, byline). Each block remembers the nearest enclosing element that carried evidence (a ``_Ctx``:
``<nav>``, ``class="sidebar"``, ``hidden``, ``<main>``, ...) and how much of its text sits inside links. Nothing is
dropped during the walk except text no reader sees (scripts, styles, forms, SVG, ...).

The decision (``_decide``) then weighs that evidence with page-level facts: how much of the page's prose lies
under each flagged element, whether a ``<main>``/``<article>`` holds most of the prose, link density, runs of
link-heavy blocks. Boilerplate is emitted as NAVIGATION (``boilerplate=True``) so ``qatbe.segment`` can show it;
``extract`` leaves it out unless asked.

Source positions: selectolax does not expose offsets, so each block's first plain word is searched for in the
HTML from a cursor that only moves forward (bounded window), which keeps positions monotonic and the cost linear.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from ..settings import Settings
from ..types import Metadata, ParsedDocument, SegmentKind
from .builder import ListItem, SegmentBuilder
from .html_boilerplate import NONE, STRONG, WEAK, evidence
from .html_guard import limit_nesting
from .html_metadata import read_metadata
from .html_tables import CHEAP_INLINE, SKIP_TAGS, TableData, read_table

_TEXT = "-text"
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_LISTS = frozenset({"ul", "ol", "menu", "dl"})
# Elements that end the current run of inline text.
_BLOCKS = frozenset(
    {"p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "address", "center", "hgroup",
     "fieldset", "legend", "form", "details", "figure", "tr", "td", "th", "tbody", "thead", "tfoot", "table",
     "body", "dialog", "search", "li", "dt", "dd", "blockquote", "pre", "figcaption", "caption", "summary", "hr",
     "ul", "ol", "dl", "menu", "h1", "h2", "h3", "h4", "h5", "h6", "frameset", "label", "option", "noscript"}
)
_SCRIPT_LIKE = ("script", "style", "template", "svg", "iframe", "object", "embed", "canvas", "select",
                "textarea", "button", "math")
# <label> names a form control; like the control itself it is not text (a comment form's "Your email").
_WALK_SKIP = (SKIP_TAGS - {"noscript"}) | {"label"}
_PLAIN = frozenset({"li", "dt", "dd", "tr", "td", "th", "tbody", "thead", "tfoot"})
_NO_ATTRS: dict[str, str | None] = {}
_MAIN_LIKE = 'main, article, [role="main"], p, h1, h2, table, pre, blockquote'
_CODE_LANG = re.compile(
    r"(?:^|\s)(?:language|lang|highlight-source|brush:?)[-:\s]?([A-Za-z0-9_+#.-]+)", re.IGNORECASE
)
_WORD = re.compile(r"[A-Za-z0-9]{4,}")
_SEARCH_WINDOW = 1 << 17
_BYLINE_MAX = 200
# A short caption that only credits an image ("Foto: dpa", "Photo: Getty Images", "© Reuters") is not text.
_CREDIT_LABEL = re.compile(
    r"\W*(?:foto|fotos|photo|photos|bild|bilder|image|images|credit|credits|crédit|titelbild|photograph)\s*:",
    re.IGNORECASE,
)
_CREDIT = re.compile(
    r"^\W*(?:quelle|source)\s*:|©|\(c\)|getty\s*images|shutterstock|thinkstock|istock|imago|picture[- ]alliance|\bdpa\b|\breuters\b|"
    r"\bafp\b|\bap photo\b",
    re.IGNORECASE,
)
_CREDIT_MAX = 120
# Short lines that open with words naming page furniture (en, de, fr, es, it, pl: the evaluation languages).
_FURNITURE_TEXT = re.compile(
    r"\W*(?:read more|read also|see also|related (?:articles|posts|stories|content)|more (?:from|on|stories)\b"
    r"|you (?:may|might) also like|share this|leave a (?:comment|reply)|post a comment"
    r"|lesen sie auch|mehr zum thema|das könnte (?:dich|sie)|weitere (?:artikel|beiträge|themen|nachrichten"
    r"|informationen|aktuelle)|aktuelle (?:news|nachrichten|artikel)|kommentare? schreiben|teilen:"
    r"|à lire aussi|lire aussi|voir aussi|vos réactions|leer también|te puede interesar|artículos relacionados"
    r"|zobacz (?:też|także)|czytaj (?:też|także)|leggi anche)\b",
    re.IGNORECASE,
)
_TEASER_MAX = 400  # text under one linked headline, at most, for it to be a teaser
_TEASER_SHARE = 0.5
_TEASER_ARTICLE = 1000
_COPYRIGHT = re.compile(r"\W{0,3}(?:©|\(c\)\s*\d{4}|copyright\b)", re.IGNORECASE)

# Frame kinds (what to do when an element is left).
# Containers whose share of the page's prose is measured (see _decide).
_BOX_TAGS = frozenset({"div", "section", "article", "main", "td", "th", "center", "form", "aside", "header",
                       "footer", "nav", "noscript", "details", "blockquote", "body"})

_K_INLINE = 0
_K_LINK = 1
_K_BLOCK = 2
_K_SPACE = 3
_K_HEADING = 4
_K_LIST = 5
_K_ITEM = 6
_K_QUOTE = 7
_K_CAPTION = 8
_K_SUMMARY = 9

# Modes (what a run of inline text becomes when it ends).
_M_PARA = 0
_M_HEADING = 1
_M_ITEM = 2
_M_QUOTE = 3
_M_CAPTION = 4
_M_SUMMARY = 5
_LEAF_MODES = frozenset({_M_HEADING, _M_ITEM, _M_CAPTION, _M_SUMMARY})


class _Ctx:
    """An element that carried evidence; blocks point at their nearest one, which points at its parent."""

    __slots__ = (
        "boiler",
        "byline",
        "chars",
        "cleared",
        "flagged",
        "good",
        "hidden",
        "main",
        "name",
        "neg",
        "order",
        "parent",
        "pos",
        "pos_prose",
        "prose",
        "tag",
        "total",
        "total_good",
    )

    def __init__(self, parent: _Ctx | None, tag: str, neg: int, pos: bool, hidden: bool, byline: bool,
                 order: int) -> None:
        self.parent = parent
        self.tag = tag
        self.neg = neg
        self.pos = pos
        self.hidden = hidden
        self.byline = byline
        self.chars = 0  # text directly attributed to this context
        self.good = 0  # ... of which not inside links
        self.total = 0
        self.total_good = 0
        self.boiler = False
        self.main = False
        self.order = order
        self.name = ""  # class/id, for debugging and reports
        self.prose = 0  # prose under this element (see _prose)
        self.pos_prose = 0  # the most prose held by one <main>/<article> below it
        self.flagged = False  # this element or an ancestor carries negative or hiding evidence
        self.cleared = False  # an ancestor with weak evidence was judged content (a thread's posts below it)


class _Box:
    """A container element (div, section, td, ...): where prose concentrates tells where the main text is."""

    __slots__ = ("inside", "parent", "prose")

    def __init__(self, parent: _Box | None) -> None:
        self.parent = parent
        self.prose = 0
        self.inside = False


class _Block:
    __slots__ = (
        "boiler",
        "box",
        "chars",
        "ctx",
        "furniture",
        "items",
        "kind",
        "lang",
        "level",
        "link",
        "meta",
        "table",
        "text",
    )

    def __init__(self, kind: str, text: str, ctx: _Ctx, chars: int, link: int, level: int = 0) -> None:
        self.kind = kind  # "h", "p", "quote", "caption", "summary", "list", "table", "code"
        self.text = text
        self.ctx = ctx
        self.chars = chars
        self.link = link
        self.level = level
        self.items: list[tuple[str, int, bool, int, _Ctx]] = []
        self.table: TableData | None = None
        self.lang: str | None = None
        self.boiler = False
        self.meta = False
        self.box: _Box | None = None
        self.furniture = False  # a flagged subtree emitted whole (see _Walker._furniture)


@dataclass(frozen=True, slots=True)
class _ListState:
    ordered: bool
    counter: list[int]


class _Walker:
    """One pass over the body, producing raw blocks and evidence contexts (see the module docstring)."""

    def __init__(self) -> None:
        self.root = _Ctx(None, "body", NONE, False, False, False, 0)
        self.ctxs: list[_Ctx] = [self.root]
        self.ctx = self.root
        self.blocks: list[_Block] = []
        self.buf: list[str] = []
        self.link = 0
        self.in_link = 0
        self.modes: list[tuple[int, int]] = [(_M_PARA, 0)]
        self.lists: list[_ListState] = []
        self.list_block: _Block | None = None
        self.in_article = 0
        self.box = _Box(None)
        self.boxes: list[_Box] = [self.box]
        self.page_chars = 1

    # -- emitting ----------------------------------------------------------------------------------------

    def flush(self) -> None:
        buf = self.buf
        if not buf:
            return
        # Collapsed here, once per block, so that lengths and densities measure visible text, not indentation.
        text = " ".join("".join(buf).split())
        if "\xad" in text or "\u200b" in text:  # soft hyphens and zero-width spaces are invisible
            text = text.replace("\xad", "").replace("\u200b", "")
        buf.clear()
        link = self.link
        self.link = 0
        if not text:
            return
        mode, level = self.modes[-1]
        ctx = self.ctx
        if mode == _M_ITEM:
            block = self.list_block
            if block is None:  # an item outside any list: a list of one
                block = self._open_list_block()
            state = self.lists[-1] if self.lists else _ListState(False, [1])
            depth = max(len(self.lists) - 1, 0) + level
            block.items.append((text, depth, state.ordered, state.counter[0], ctx))
            block.chars += len(text)
            block.link += link
            return
        kind = ("p", "h", "p", "quote", "caption", "summary")[mode]
        block = _Block(kind, text, ctx, len(text), link, level)
        block.box = self.box
        self.blocks.append(block)

    def _open_list_block(self) -> _Block:
        block = _Block("list", "", self.ctx, 0, 0)
        block.box = self.box
        self.blocks.append(block)
        self.list_block = block
        return block

    def _break_list(self) -> None:
        """A structure that cannot live inside a list item interrupts the list: later items start a new block."""
        if self.lists:
            self.list_block = None

    # -- the walk ----------------------------------------------------------------------------------------

    def walk(self, body: Any) -> None:
        self.page_chars = max(len(body.text(deep=True)), 1)
        stack: list[tuple[Any, int, _Ctx | None, _Box | None]] = [
            (body.iter(include_text=True), _K_BLOCK, None, None)
        ]
        buf = self.buf
        blocks_set = _BLOCKS
        while stack:
            for node in stack[-1][0]:
                tag = node.tag
                if tag == _TEXT:
                    s = node.text_content
                    if s:
                        buf.append(s)
                        if self.in_link:
                            self.link += len(s.strip())
                    continue
                if tag in _WALK_SKIP or tag[0] in "-!_":
                    continue
                if tag == "br":
                    buf.append(" ")
                    continue
                if tag in CHEAP_INLINE:
                    if tag == "a" and self.modes[-1][0] == _M_HEADING and _same_page(node):
                        # A heading's permalink (href="#...", documentation sites) is not a link away.
                        stack.append((node.iter(include_text=True), _K_INLINE, None, None))
                    elif tag == "a":
                        self.in_link += 1
                        stack.append((node.iter(include_text=True), _K_LINK, None, None))
                    else:
                        stack.append((node.iter(include_text=True), _K_INLINE, None, None))
                    break
                if tag == "hr":
                    self.flush()
                    continue
                # List items and table parts take their evidence from their list or table (speed: ~a third
                # of all elements, and reading attributes builds a dict).
                attrs = _NO_ATTRS if tag in _PLAIN else node.attributes
                saved: _Ctx | None = None
                neg, pos, hidden, byline = evidence(tag, attrs)
                # <noscript> is what a reader without JavaScript sees (Discourse serves its posts there): kept
                # like hidden content, i.e. only when it holds the page's prose.
                if tag == "noscript":
                    hidden = True
                elif hidden and tag not in blocks_set and "-" not in tag:
                    continue  # hidden inline text (icons, screen-reader labels) is simply not there
                if tag == "form" and neg < WEAK:
                    # Form controls never become text; a form's prose (a shop's product description, a
                    # page-wrapping ASP.NET form) is content only when it holds a fair share of the page.
                    neg = WEAK
                if neg and tag == "header" and self.in_article:
                    neg = NONE  # an article's own header holds its title and byline
                if pos and neg and (tag == "main" or neg == WEAK):
                    neg = NONE  # <main class="hasSidebar">: the element's role outranks a layout class name
                if byline and tag in _HEADINGS:
                    byline = False
                if neg or pos or hidden or byline:
                    saved = self.ctx
                    self.ctx = _Ctx(saved, tag, neg, pos, hidden, byline, len(self.ctxs))
                    self.ctx.name = f"{attrs.get('id') or ''}.{attrs.get('class') or ''}"[:80]
                    self.ctxs.append(self.ctx)
                    if pos:
                        self.in_article += 1
                    elif (neg == STRONG or hidden) and self._furniture(node):
                        self.ctx = saved
                        continue
                kind = self._enter(node, tag, attrs)
                if kind < 0:  # consumed whole (table, pre)
                    if saved is not None:
                        if self.ctx.pos:
                            self.in_article -= 1
                        self.ctx = saved
                    continue
                saved_box = None
                if kind == _K_BLOCK and tag in _BOX_TAGS:
                    saved_box = self.box
                    self.box = _Box(saved_box)
                    self.boxes.append(self.box)
                stack.append((node.iter(include_text=True), kind, saved, saved_box))
                break
            else:
                _, kind, saved, saved_box = stack.pop()
                if kind == _K_LINK:
                    self.in_link -= 1
                elif kind != _K_INLINE:
                    self._leave(kind)
                if saved is not None:
                    if self.ctx.pos:
                        self.in_article -= 1
                    self.ctx = saved
                if saved_box is not None:
                    self.box = saved_box
        self.flush()

    def _furniture(self, node: Any) -> bool:
        """Emit a small flagged subtree (a menu, a footer, a hidden panel) as one block without walking it.

        Why: such subtrees are a third or more of a typical page's elements, and reading them node by node in
        Python is the walk's main cost. Only subtrees too small to be a mislabelled wrapper are cut short (under
        a fifth of the page's text, no <main>/<article> inside); the decision step still judges their context.
        """
        text = " ".join(node.text(deep=True, separator=" ").split())
        if len(text) * 5 >= self.page_chars or node.css_first(_MAIN_LIKE) is not None:
            return False
        self.flush()
        if text:
            self._break_list()
            block = _Block("p", text, self.ctx, len(text), len(text))  # counted as links: never prose
            block.box = self.box
            block.furniture = True
            self.blocks.append(block)
        return True

    def _enter(self, node: Any, tag: str, attrs: dict[str, str | None]) -> int:
        mode = self.modes[-1][0]
        level = _HEADINGS.get(tag)
        if level is not None:
            self.flush()
            self._break_list()
            self.modes.append((_M_HEADING, level))
            return _K_HEADING
        if tag in _LISTS:
            self.flush()
            if self.list_block is None:
                self._open_list_block()
            start = attrs.get("start")
            first = int(start) if start and start.strip().isdigit() and len(start) < 9 else 1
            self.lists.append(_ListState(tag == "ol", [first - 1]))
            self.modes.append((_M_PARA, 0))
            return _K_LIST
        if tag == "li" or tag == "dt" or tag == "dd":
            self.flush()
            if self.list_block is None:
                self._open_list_block()
            if self.lists and tag == "li":
                self.lists[-1].counter[0] += 1
            self.modes.append((_M_ITEM, 1 if tag == "dd" else 0))
            return _K_ITEM
        if tag == "table":
            self.flush()
            self._break_list()
            data = read_table(node)
            if data is None:  # a layout table: its cells are page regions, walked like any container
                return _K_SPACE if mode in _LEAF_MODES else _K_BLOCK
            block = _Block("table", "", self.ctx, data.chars, data.link_chars)
            block.box = self.box
            block.table = data
            self.blocks.append(block)
            return -1
        if tag == "pre":
            self.flush()
            self._break_list()
            code = node.text(deep=True)
            block = _Block("code", code, self.ctx, len(code), 0)
            block.box = self.box
            block.lang = _code_language(node, attrs)
            self.blocks.append(block)
            return -1
        if tag == "blockquote" and mode not in _LEAF_MODES:
            self.flush()
            self.modes.append((_M_QUOTE, 0))
            return _K_QUOTE
        if tag == "figcaption" or tag == "caption":
            self.flush()
            self.modes.append((_M_CAPTION, 0))
            return _K_CAPTION
        if tag == "summary" and mode not in _LEAF_MODES:
            self.flush()
            self.modes.append((_M_SUMMARY, 0))
            return _K_SUMMARY
        if tag in _BLOCKS or "-" in tag:
            if mode in _LEAF_MODES:
                self.buf.append(" ")
                return _K_SPACE
            self.flush()
            return _K_BLOCK
        return _K_INLINE

    def _leave(self, kind: int) -> None:
        if kind == _K_SPACE:
            self.buf.append(" ")
            return
        self.flush()
        if kind == _K_BLOCK:
            return
        self.modes.pop()  # list, heading, item, quote, caption, summary each pushed one mode
        if kind == _K_LIST:
            self.lists.pop()
            if not self.lists:
                self.list_block = None


def _same_page(node: Any) -> bool:
    href = node.attributes.get("href") or ""
    return href.startswith("#")


def _code_language(node: Any, attrs: dict[str, str | None]) -> str | None:
    for cls in (attrs.get("class"), attrs.get("data-lang"), attrs.get("data-language")):
        if cls:
            match = _CODE_LANG.search(cls)
            if match:
                return match.group(1).lower()
            if cls is not attrs.get("class"):
                return cls.strip().lower() or None
    child = node.css_first("code")
    if child is not None:
        cls = child.attributes.get("class")
        if cls:
            match = _CODE_LANG.search(cls)
            if match:
                return match.group(1).lower()
    return None


# -- deciding what is boilerplate -----------------------------------------------------------------------------

# A flagged element holding more than this share of the page's prose (at low link density) is a wrapper whose name
# lies (``<div class="layout has-sidebar">`` around everything), not furniture.
_WRAPPER_SHARE = 0.5
# A ``<main>``/``<article>`` is trusted as the main content only when it holds at least this share of the prose.
_MAIN_SHARE = 0.4
_LINKY = 0.5
_MIN_PROSE = 300
_ARTICLE_PROSE = 1000  # prose outside a comment section for the page to be an article with comments
_SHORT = 80
_LONE_LINK = 120  # a link paragraph this short inside the main text is an action ("Start now"), not a menu
# The main box must hold at least this share of the page's prose.
_BOX_SHARE = 0.75


def _good(block: _Block) -> int:
    return max(block.chars - block.link, 0)


def _prose(block: _Block) -> int:
    """Text that reads like content: blocks of some length with few links (headings and menus do not count).

    Lists and tables must be nearly link-free to count: a list of teasers (linked headline and a line of text
    each) is long and fairly text-dense, yet it is what surrounds an article, not the article.
    """
    if block.kind == "h" or block.chars < 80:
        return 0
    limit = 0.1 if block.kind == "list" or block.kind == "table" else 0.3
    if block.link > limit * block.chars:
        return 0
    return _good(block)


def _decide(walker: _Walker, discussion: bool = False) -> None:
    blocks = walker.blocks
    ctxs = walker.ctxs
    for block in blocks:
        ctx = block.ctx
        ctx.chars += block.chars
        ctx.good += _good(block)
        ctx.prose += _prose(block)
    for ctx in ctxs:
        ctx.total = ctx.chars
        ctx.total_good = ctx.good
    for ctx in reversed(ctxs):  # children were created after their parents
        parent = ctx.parent
        if parent is not None:
            parent.total += ctx.total
            parent.total_good += ctx.total_good
            parent.prose += ctx.prose
            held = ctx.prose if ctx.pos else ctx.pos_prose
            parent.pos_prose = max(parent.pos_prose, held)
    root = walker.root
    if root.prose == 0:  # a page of short lines only: measure shares in plain visible text instead
        for ctx in ctxs:
            ctx.prose = ctx.total_good
    page_prose = max(root.prose, 1)
    page_chars = max(root.total, 1)

    # The main container: the tightest <main>/<article>/role=main that still holds most of the prose.
    main: _Ctx | None = None
    candidates = [c for c in ctxs if c.pos and not c.hidden and c.prose > 0 and c.prose >= _MAIN_SHARE * page_prose]
    for ctx in candidates:
        if main is None or ctx.prose <= main.prose:
            main = ctx
    protected: set[int] = set()
    node = main
    while node is not None:
        protected.add(node.order)
        node = node.parent
    if any(c.order not in protected for c in candidates):
        # Two sibling <article> posts both hold much of the prose: neither is "the" main text.
        main = None
        protected = set()

    # The main box: the tightest container holding most of the prose (a readability-style density argument,
    # without trusting any name). On pages where prose is spread out, that is the body and nothing is pruned.
    boxes = walker.boxes
    for block in blocks:
        if block.box is not None and not block.ctx.boiler:
            block.box.prose += _prose(block)
    for box in reversed(boxes):
        if box.parent is not None:
            box.parent.prose += box.prose
    main_box = boxes[0]
    need = _BOX_SHARE * boxes[0].prose
    for box in boxes:
        if box.prose >= need and box.prose <= main_box.prose:
            main_box = box
    for box in boxes:
        box.inside = box is main_box or (box.parent is not None and box.parent.inside)
    # With only a line or two of prose on the page, where it sits says nothing about where the content is.
    pruning_box = main_box is not boxes[0] and boxes[0].prose >= _MIN_PROSE

    for ctx in ctxs:
        parent = ctx.parent
        if parent is None:
            continue
        ctx.main = parent.main or ctx is main
        ctx.byline = ctx.byline or parent.byline
        ctx.flagged = parent.flagged or bool(ctx.neg) or ctx.hidden
        ctx.cleared = parent.cleared
        if parent.boiler:
            ctx.boiler = True
            continue
        if ctx.order in protected:
            continue
        reference = main.prose if (main is not None and parent.main) else page_prose
        share = ctx.prose / max(reference, 1)
        # An element named like furniture that holds most of the prose, or that holds an <article> carrying
        # most of its own prose, is a wrapper whose name lies (``class="layout sidebar-first"``).
        wrapper = share > _WRAPPER_SHARE or (
            ctx.pos_prose >= 0.5 * max(ctx.prose, 1) and ctx.pos_prose >= 0.1 * page_prose
        )
        if ctx.hidden:
            ctx.boiler = share <= _WRAPPER_SHARE
        elif ctx.neg == STRONG:
            ctx.boiler = not wrapper
        elif ctx.neg == WEAK:
            # Weak names (comments, header, toc) are content when they hold much of the prose, when they are also
            # an <article>, or when an enclosing weak element already proved to be content (posts of a thread).
            ctx.boiler = share < 0.25 and not wrapper and not ctx.pos and not ctx.cleared
            if not ctx.boiler and not ctx.cleared and not discussion and "comment" in ctx.name.lower():
                # Comments under an article are furniture however many there are; a thread whose first post is
                # itself a "comment" has no prose outside them.
                ctx.boiler = page_prose - ctx.prose >= max(_ARTICLE_PROSE, 0.15 * page_prose)
            ctx.cleared = not ctx.boiler

    for i, block in enumerate(blocks):
        ctx = block.ctx
        boiler = ctx.boiler
        if boiler and block.kind == "h" and block.level == 1 and not ctx.hidden and ctx.neg != STRONG:
            boiler = False
        density = block.link / block.chars if block.chars else 0.0
        if not boiler and main is not None and not ctx.main:
            boiler = ctx.flagged or not _stands_alone(block, density)
        if not boiler and pruning_box and block.box is not None and not block.box.inside:
            boiler = ctx.flagged or not _near_prose(block, density)
        if not boiler and density > _LINKY and block.kind != "h" and block.kind != "code":
            if block.kind == "table":
                # Data tables link their entities (Wikipedia); only a header-less grid of links is a menu.
                boiler = block.table is not None and block.table.header is None and density > 0.8
            elif block.kind == "list" and block.chars >= 0.3 * page_chars:
                boiler = False  # a list of links that is the bulk of the page is what the page lists
            else:
                # Inside the main text a lone link ("Start now", "Download the form") is content; runs of
                # links and link lists are menus.
                if main is not None:
                    inside = ctx.main
                elif pruning_box:
                    inside = block.box is not None and block.box.inside
                else:  # no container stands out: anything not named like furniture may be main text
                    inside = not ctx.flagged
                boiler = (not inside or block.kind == "list" or block.chars > _LONE_LINK
                          or _linky_neighbour(blocks, i))
        if not boiler and block.kind in ("p", "h") and block.chars <= 60 and _FURNITURE_TEXT.match(block.text):
            boiler = True  # "Read more", "Lesen Sie auch", "Leave a comment": the words of page furniture
        if not boiler and block.kind == "p" and _COPYRIGHT.match(block.text):
            boiler = True  # "© 2022 Example News. All rights reserved." is a notice, not the text
        if not boiler and block.chars <= _CREDIT_MAX and block.kind in ("caption", "p"):
            if _CREDIT_LABEL.match(block.text):
                boiler = True
            elif block.kind == "caption" or ctx.byline:
                boiler = bool(_CREDIT.search(block.text))
        block.boiler = boiler
        block.meta = ctx.byline and block.kind == "p" and block.chars <= _BYLINE_MAX

    if main is None:
        _teasers(blocks)
    _repeats(blocks)
    _trailing_labels(blocks)
    _orphan_headings(blocks)


def _teasers(blocks: list[_Block]) -> None:
    """Linked headlines, each with a line or two under it, are teasers for other pages ("More stories").

    Used only when no <main>/<article> marks the main text, and only while teasers are a minority of the kept
    text: on a listing page the teasers are the content.
    """
    sections: list[list[_Block]] = []
    current: list[_Block] | None = None
    for block in blocks:
        if block.kind == "h":
            current = None
            if not block.boiler and block.chars and block.link >= 0.6 * block.chars:
                current = [block]
                sections.append(current)
        elif current is not None and not block.boiler:
            current.append(block)
    teasers = [sec for sec in sections if sum(b.chars for b in sec[1:]) < _TEASER_MAX]
    if len(teasers) < 2:
        return
    in_teasers = {id(b) for sec in teasers for b in sec}
    teaser_chars = sum(b.chars for sec in teasers for b in sec)
    other_prose = sum(_prose(b) for b in blocks if not b.boiler and id(b) not in in_teasers)
    if other_prose < max(_TEASER_ARTICLE, _TEASER_SHARE * teaser_chars):
        return  # no article beside them: the teasers are the page
    for sec in teasers:
        for block in sec:
            block.boiler = True


def _repeats(blocks: list[_Block]) -> None:
    """A line of text said again later (a slideshow caption, a pull quote, a repeated teaser) is kept once."""
    seen: set[str] = set()
    for block in blocks:
        if block.boiler or block.kind not in ("p", "caption", "quote") or block.chars < 30:
            continue
        if block.text in seen:
            block.boiler = True
        else:
            seen.add(block.text)


def _is_label(block: _Block) -> bool:
    """A few words with no sentence in them: "Read more", "Kontakt:", "À lire aussi", "Zu allen Beiträgen"."""
    if block.kind not in ("p", "h") or block.meta or block.link * 2 > block.chars:
        return False  # a lone link ("Start now") is an action, judged by the link rules
    text = block.text
    if len(text) > 60 or text[-1:] in ".!?…" or any(ch.isdigit() for ch in text):
        return False
    return len(text.split()) <= 6


def _trailing_labels(blocks: list[_Block]) -> None:
    """Labels after the last real block of text introduce furniture ("More on this topic:", "Back to the index").

    One or two of them; a longer run of short lines at the end is a list of names (a listing page), not labels.
    """
    labels: list[_Block] = []
    for block in reversed(blocks):
        if block.boiler:
            continue
        if not _is_label(block):
            if len(labels) <= 2:  # only after real text: a page whose only words are a label keeps them
                for label in labels:
                    label.boiler = True
            return
        labels.append(block)


def _stands_alone(block: _Block, density: float) -> bool:
    """Outside the main container, only the page title and real prose survive."""
    if block.kind == "h":
        return block.level == 1
    if block.kind == "p":
        return block.chars >= 250 and density < 0.2
    return False


def _near_prose(block: _Block, density: float) -> bool:
    """Outside the densest box the evidence is weaker than outside a <main>: keep what reads like text."""
    if density > 0.3:
        return False
    if block.kind == "h":
        return True
    return block.kind in ("p", "quote", "summary") and block.chars >= _SHORT


def _linky_neighbour(blocks: list[_Block], i: int) -> bool:
    for j in (i - 1, i + 1):
        if 0 <= j < len(blocks):
            other = blocks[j]
            if other.chars and other.link / other.chars > _LINKY and other.kind != "h":
                return True
    return False


def _orphan_headings(blocks: list[_Block]) -> None:
    """A heading whose section holds nothing but boilerplate ("Related stories", "Share") is boilerplate too."""
    content_after = [False] * 7  # index = heading level; True when kept content follows before a same-level heading
    for block in reversed(blocks):
        if block.kind == "h":
            level = block.level
            if not block.boiler and not content_after[level]:
                block.boiler = True
            if not block.boiler:
                for lv in range(1, level):
                    content_after[lv] = True
            for lv in range(level, 7):
                content_after[lv] = False
        elif not block.boiler:
            for lv in range(1, 7):
                content_after[lv] = True


# -- emitting --------------------------------------------------------------------------------------------------


class _Locator:
    """Source offsets by searching each block's first plain word from a forward-only cursor.

    Linear by construction: every search is bounded by a window, and all searches together may scan at most a
    few times the page (a budget), after which blocks get the cursor's position. Misses (a word split by a tag or
    an entity) leave the cursor where it is, so positions stay monotonic.
    """

    __slots__ = ("budget", "cursor", "html")

    def __init__(self, html: str) -> None:
        self.html = html
        body = html.find("<body")
        self.cursor = max(body, 0)
        self.budget = 4 * len(html) + _SEARCH_WINDOW

    def find(self, text: str) -> int:
        if self.budget <= 0:
            return self.cursor
        match = _WORD.search(text, 0, 400)
        needle = match.group(0) if match else text.strip()[:8]
        if not needle:
            return self.cursor
        end = self.cursor + min(_SEARCH_WINDOW, self.budget)
        at = self.html.find(needle, self.cursor, end)
        if at < 0:
            self.budget -= end - self.cursor
            return self.cursor
        self.budget -= at + len(needle) - self.cursor
        self.cursor = at + len(needle)
        return at


def _emit(builder: SegmentBuilder, blocks: list[_Block], html: str) -> None:
    locate = _Locator(html)
    for block in blocks:
        kind = block.kind
        boiler = block.boiler
        if kind == "list":
            items: list[ListItem] = []
            base = min((depth for _, depth, _, _, _ in block.items), default=0)
            for text, depth, ordered, number, _ in block.items:
                items.append(ListItem(text, depth - base, ordered, number, locate.find(text)))
            if items:
                builder.list(items, items[0].position, boilerplate=boiler)
            continue
        if kind == "table":
            data = block.table
            assert data is not None
            first = next((c for row in ((data.header or ()),) + data.rows for c in row if c.strip()), "")
            builder.table(data.header, data.rows, locate.find(first), caption=data.caption, boilerplate=boiler)
            continue
        position = locate.find(block.text)
        if kind == "h":
            builder.heading(block.text, block.level, position, boilerplate=boiler)
        elif kind == "code":
            if boiler:
                builder.paragraph(block.text, position, boilerplate=True)
            else:
                builder.code(block.text, block.lang, position)
        elif kind == "quote":
            builder.quote(block.text, position, boilerplate=boiler)
        elif kind == "caption" or block.meta:
            builder.paragraph(block.text, position, kind=SegmentKind.METADATA, boilerplate=boiler)
        else:
            builder.paragraph(block.text, position, boilerplate=boiler)


def _byline_author(blocks: list[_Block]) -> str | None:
    for block in blocks:
        if block.meta and not block.boiler:
            text = " ".join(block.text.split())
            if text.lower().startswith("by ") and len(text) < 80:
                return text[3:].strip() or None
    return None


def segment_html(html: str, settings: Settings) -> ParsedDocument:
    """Split an HTML page into typed segments (boilerplate as NAVIGATION) and read its metadata."""
    source = limit_nesting(html)
    tree = LexborHTMLParser(source)
    metadata = read_metadata(tree)
    tree.strip_tags(list(_SCRIPT_LIKE))
    body = tree.body or tree.root
    walker = _Walker()
    if body is not None:
        walker.walk(body)
    _decide(walker, metadata.extra.get("page_kind") == "discussion")
    builder = SegmentBuilder(settings)
    _emit(builder, walker.blocks, html)
    if metadata.author is None:
        author = _byline_author(walker.blocks)
        if author:
            metadata = Metadata(title=metadata.title, author=author, date=metadata.date,
                                description=metadata.description, language=metadata.language, url=metadata.url,
                                extra=metadata.extra)
    return ParsedDocument(segments=tuple(builder.segments), metadata=metadata, format="html")
