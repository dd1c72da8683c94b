"""The HTML walk: one iterative pass over the Lexbor tree that turns it into raw blocks in document order.

Blocks are headings, paragraphs, lists, tables, code, quotes, captions and bylines. Each block remembers the nearest
enclosing element that carried evidence (a ``Ctx``: ``<nav>``, ``class="sidebar"``, ``hidden``, ``<main>``, ...),
the container box it sits in, and how much of its text sits inside links. Nothing is dropped here except text no
reader sees (scripts, styles, forms, SVG, ...): deciding what is boilerplate is ``html_decide``'s job, with
page-level facts the walk cannot know while it is still walking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from .html_boilerplate import NONE, STRONG, WEAK, evidence
from .html_tables import CHEAP_INLINE, NAMELESS_TAG, SKIP_TAGS, TEXT_TAG, TableData, read_table, visible_text

_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_LISTS = frozenset({"ul", "ol", "menu", "dl"})
# Elements that end the current run of inline text.
_BLOCKS = frozenset(
    {"p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "address", "center", "hgroup",
     "fieldset", "legend", "form", "details", "figure", "tr", "td", "th", "tbody", "thead", "tfoot", "table",
     "body", "dialog", "search", "li", "dt", "dd", "blockquote", "pre", "figcaption", "caption", "summary", "hr",
     "ul", "ol", "dl", "menu", "h1", "h2", "h3", "h4", "h5", "h6", "frameset", "label", "option", "noscript"}
)
SCRIPT_LIKE = ("script", "style", "template", "svg", "iframe", "object", "embed", "canvas", "select",
                "textarea", "button", "math")
# <label> names a form control; like the control itself it is not text (a comment form's "Your email").
_WALK_SKIP = (SKIP_TAGS - {"noscript"}) | {"label"}
_PLAIN = frozenset({"li", "dt", "dd", "tr", "td", "th", "tbody", "thead", "tfoot"})
_NO_ATTRS: dict[str, str | None] = {}
_MAIN_LIKE = 'main, article, [role="main"], p, h1, h2, table, pre, blockquote'
_CODE_LANG = re.compile(
    r"(?:^|\s)(?:language|lang|highlight-source|brush:?)[-:\s]?([A-Za-z0-9_+#.-]+)", re.IGNORECASE
)

# Frame kinds (what to do when an element is left).
# Containers whose share of the page's prose is measured (see decide).
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
_K_BUTTON = 10

# A link styled as a button (class="btn", "wp-block-button__link", slot="primary-cta", role="button") is drawn as a
# box of its own, not as words of the sentence around it: it ends the run of text before it and is a block of its
# own, so that decide can judge it alone (a call to action such as "Hire talent" after a hero's sentence).
_BUTTON_CLASS = re.compile(r"btn|button|(?<![a-z])cta(?![a-z])", re.IGNORECASE | re.ASCII)

# Modes (what a run of inline text becomes when it ends).
_M_PARA = 0
_M_HEADING = 1
_M_ITEM = 2
_M_QUOTE = 3
_M_CAPTION = 4
_M_SUMMARY = 5
_LEAF_MODES = frozenset({_M_HEADING, _M_ITEM, _M_CAPTION, _M_SUMMARY})
_BR_BREAKS = frozenset({_M_PARA, _M_QUOTE})  # where <br><br> ends a block (a list item stays one item)


class Ctx:
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

    def __init__(self, parent: Ctx | None, tag: str, neg: int, pos: bool, hidden: bool, byline: bool,
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


class Box:
    """A container element (div, section, td, ...): where prose concentrates tells where the main text is."""

    __slots__ = ("inside", "parent", "prose")

    def __init__(self, parent: Box | None) -> None:
        self.parent = parent
        self.prose = 0
        self.inside = False


class Block:
    __slots__ = (
        "boiler",
        "box",
        "button",
        "chars",
        "ctx",
        "furniture",
        "items",
        "kind",
        "lang",
        "level",
        "link",
        "meta",
        "node",
        "table",
        "text",
    )

    def __init__(self, kind: str, text: str, ctx: Ctx, chars: int, link: int, level: int = 0) -> None:
        self.kind = kind  # "h", "p", "quote", "caption", "summary", "list", "table", "code"
        self.text = text
        self.ctx = ctx
        self.chars = chars
        self.link = link
        self.level = level
        self.items: list[tuple[str, int, bool, int, Ctx]] = []
        self.table: TableData | None = None
        self.lang: str | None = None
        self.boiler = False
        self.meta = False
        self.box: Box | None = None
        self.furniture = False  # a flagged subtree emitted whole (see Walker._furniture)
        self.button = False  # the text of a link drawn as a button (see _BUTTON_CLASS)
        # The address of the node the block's text starts in (its first text node, or the list's, table's or
        # pre's element), for html_fastwalk.anchor_offsets: set by the compiled walk (anchors need Lexbor's nodes
        # read in C), 0 here.
        self.node = 0


class Walked(Protocol):
    """What a walk hands to the decision step (``Walker`` here, or ``html_fastwalk.FastWalker``)."""

    root: Ctx
    ctxs: list[Ctx]
    blocks: list[Block]
    boxes: list[Box]


@dataclass(frozen=True, slots=True)
class _ListState:
    ordered: bool
    counter: list[int]


class Walker:
    """One pass over the body, producing raw blocks and evidence contexts (see the module docstring)."""

    def __init__(self) -> None:
        self.root = Ctx(None, "body", NONE, False, False, False, 0)
        self.ctxs: list[Ctx] = [self.root]
        self.ctx = self.root
        self.blocks: list[Block] = []
        self.buf: list[str] = []
        self.link = 0
        self.in_link = 0
        self.br_mark = -1  # where the buffer stood after the last <br>, until text or a flush
        self.modes: list[tuple[int, int]] = [(_M_PARA, 0)]
        self.lists: list[_ListState] = []
        self.list_block: Block | None = None
        self.in_article = 0
        self.box = Box(None)
        self.boxes: list[Box] = [self.box]
        self.page_chars = 1
        self.body: Any = None
        # mem_ids of the elements that are or contain a main-like element (see _holds_main), filled on first use.
        self.main_holders: set[int] | None = None
        # evidence() is a pure function of the tag and the attributes, and a page repeats its elements (list
        # entries, cards, posts): answers are kept per (tag, attributes), or per tag for elements without any.
        self.evidence_memo: dict[object, tuple[int, bool, bool, bool]] = {}

    # -- emitting ----------------------------------------------------------------------------------------

    def flush(self) -> None:
        buf = self.buf
        self.br_mark = -1
        if not buf:
            return
        # Collapsed here, once per block, so that lengths and densities measure visible text, not indentation.
        text = visible_text("".join(buf))
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
        block = Block(kind, text, ctx, len(text), link, level)
        block.box = self.box
        self.blocks.append(block)

    def _open_list_block(self) -> Block:
        block = Block("list", "", self.ctx, 0, 0)
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
        """Walk ``body`` in document order with an explicit stack (deep nesting cannot hit the recursion limit).

        Children are reached through ``first_child``/``next`` rather than one ``iter()`` generator per element:
        about half the cost of the traversal itself.
        """
        self.page_chars = max(len(body.text(deep=True)), 1)
        self.body = body
        memo = self.evidence_memo
        # One frame per open element: (its next sibling, frame kind, context to restore, box to restore).
        stack: list[tuple[Any, int, Ctx | None, Box | None]] = []
        buf = self.buf
        blocks_set = _BLOCKS
        node = body.first_child
        while True:
            if node is None:
                if not stack:
                    break
                node, kind, outer, outer_box = stack.pop()
                if kind == _K_LINK:
                    self.in_link -= 1
                elif kind == _K_BUTTON:
                    self.in_link -= 1
                    count = len(self.blocks)
                    self.flush()
                    if len(self.blocks) > count:
                        self.blocks[-1].button = True
                elif kind != _K_INLINE:
                    self._leave(kind)
                if outer is not None:
                    if self.ctx.pos:
                        self.in_article -= 1
                    self.ctx = outer
                if outer_box is not None:
                    self.box = outer_box
                continue
            tag = node.tag or NAMELESS_TAG
            if tag == TEXT_TAG:
                s = node.text_content
                # Whitespace before any text would only be collapsed away by flush (and with an empty buffer
                # there is no link text to reset either): not buffering it saves a flush per block boundary.
                if s and (buf or not s.isspace()):
                    buf.append(s)
                    if self.in_link:
                        self.link += len(s.strip())
                node = node.next
                continue
            if tag in _WALK_SKIP or tag[0] in "-!_":
                node = node.next
                continue
            if tag == "br":
                # Two line breaks with nothing but blanks between them end a paragraph: pages (old sites,
                # forum posts, CMS text fields) write paragraphs as text<br><br>text.
                mark = self.br_mark
                if (mark >= 0 and self.modes[-1][0] in _BR_BREAKS
                        and _blank(buf, mark)):
                    self.flush()
                else:
                    buf.append(" ")
                    self.br_mark = len(buf)
                node = node.next
                continue
            if tag in CHEAP_INLINE:
                if tag == "a" and self.modes[-1][0] == _M_HEADING and _same_page(node):
                    # A heading's permalink (href="#...", documentation sites) is not a link away.
                    stack.append((node.next, _K_INLINE, None, None))
                elif tag == "a":
                    self.in_link += 1
                    if self.modes[-1][0] == _M_PARA and is_button(node.attributes):
                        self.flush()
                        stack.append((node.next, _K_BUTTON, None, None))
                    else:
                        stack.append((node.next, _K_LINK, None, None))
                else:
                    stack.append((node.next, _K_INLINE, None, None))
                node = node.first_child
                continue
            if tag == "hr":
                self.flush()
                node = node.next
                continue
            # List items and table parts take their evidence from their list or table (speed: ~a third
            # of all elements, and reading attributes builds a dict).
            attrs = _NO_ATTRS if tag in _PLAIN else node.attributes
            saved: Ctx | None = None
            key: object = (tag, tuple(attrs.items())) if attrs else tag
            found = memo.get(key)
            if found is None:
                found = memo[key] = evidence(tag, attrs)
            neg, pos, hidden, byline = found
            # <noscript> is what a reader without JavaScript sees (Discourse serves its posts there): kept
            # like hidden content, i.e. only when it holds the page's prose.
            if tag == "noscript":
                hidden = True
            elif hidden and tag not in blocks_set and "-" not in tag:
                node = node.next
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
                self.ctx = Ctx(saved, tag, neg, pos, hidden, byline, len(self.ctxs))
                self.ctx.name = f"{attrs.get('id') or ''}.{attrs.get('class') or ''}"[:80]
                self.ctxs.append(self.ctx)
                if pos:
                    self.in_article += 1
                elif (neg == STRONG or hidden) and self._furniture(node, saved):
                    self.ctx = saved
                    node = node.next
                    continue
            kind = self._enter(node, tag, attrs)
            if kind < 0:  # consumed whole (table, pre)
                if saved is not None:
                    if self.ctx.pos:
                        self.in_article -= 1
                    self.ctx = saved
                node = node.next
                continue
            saved_box = None
            if kind == _K_BLOCK and tag in _BOX_TAGS:
                saved_box = self.box
                self.box = Box(saved_box)
                self.boxes.append(self.box)
            stack.append((node.next, kind, saved, saved_box))
            node = node.first_child
        self.flush()

    def _furniture(self, node: Any, outer: Ctx) -> bool:
        """Emit a small flagged subtree (a menu, a footer, a hidden panel) as one block without walking it.

        Why: such subtrees are a third or more of a typical page's elements, and reading them node by node in
        Python is the walk's main cost. Only subtrees too small to be a mislabelled wrapper are cut short (under
        a fifth of the page's text, no <main>/<article> inside); the decision step still judges their context.
        """
        text = " ".join(node.text(deep=True, separator=" ").split())
        if len(text) * 5 >= self.page_chars or self._holds_main(node):
            return False
        # The text buffered so far belongs to the element around the furniture: flushed under its context (a
        # product card's price must not take the negative evidence of the empty "modal-icon" span after it).
        furniture_ctx = self.ctx
        self.ctx = outer
        self.flush()
        self.ctx = furniture_ctx
        if not text:
            return True
        self._break_list()
        block = Block("p", text, self.ctx, len(text), len(text))  # counted as links: never prose
        block.box = self.box
        block.furniture = True
        self.blocks.append(block)
        return True

    def _holds_main(self, node: Any) -> bool:
        """``node.css_first(_MAIN_LIKE) is not None`` (the node itself or a descendant matches), answered from
        one query per page: the matches and all their ancestors, by ``mem_id``.

        Why: a CSS query parses its selector on every call, and asking it of every furniture candidate cost
        about as much as the rest of the furniture test.
        """
        holders = self.main_holders
        if holders is None:
            holders = self.main_holders = set()
            for match in self.body.css(_MAIN_LIKE):
                while match is not None:
                    key = match.mem_id
                    if key in holders:
                        break
                    holders.add(key)
                    match = match.parent
        return node.mem_id in holders

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
            self.lists.append(_ListState(tag == "ol", [list_start(attrs.get("start")) - 1]))
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
            block = Block("table", "", self.ctx, data.chars, data.link_chars)
            block.box = self.box
            block.table = data
            self.blocks.append(block)
            return -1
        if tag == "pre":
            self.flush()
            self._break_list()
            code = pre_text(node)
            block = Block("code", code, self.ctx, len(code), 0)
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


def _blank(parts: list[str], start: int) -> bool:
    """Every part from ``start`` on is whitespace (a loop: the walk is a cpdef method, where Cython takes no
    generator expressions)."""
    for i in range(start, len(parts)):
        if not parts[i].isspace():
            return False
    return True


def is_button(attrs: dict[str, str | None]) -> bool:
    """A link drawn as a button (see ``_BUTTON_CLASS``)."""
    role = attrs.get("role")
    if role is not None and role.strip(" \t\n\r\f").lower() == "button":
        return True
    for name in ("class", "slot"):
        value = attrs.get(name)
        if value and _BUTTON_CLASS.search(value) is not None:
            return True
    return False


def _same_page(node: Any) -> bool:
    href = node.attributes.get("href") or ""
    return href.startswith("#")


def _code_language(node: Any, attrs: dict[str, str | None]) -> str | None:
    child = node.css_first("code")
    return code_language(attrs, child.attributes.get("class") if child is not None else None)


def pre_text(pre: Any) -> str:
    """The text of a ``<pre>`` as a browser lays it out: text nodes as written, ``<br>`` a line break, and each
    block-level element inside on lines of its own.

    Why not ``pre.text()``: code highlighters write a listing's lines as elements (CodeMirror's
    ``<div class="cm-line">``, Expressive Code's ``<div class="ec-line">``) or end them with ``<br>``, and the
    joined text nodes run every line into the next ("#!/usr/bin/env python3import subprocess"). An empty line
    is an empty block holding a ``<br>``; text that starts with a newline starts its own line already.
    Script-like elements are stripped before the Python walk; the compiled walk skips them (``FastWalker.pre_text``).
    """
    out: list[str] = []
    pending = False  # a block started or ended since the last content: the next content starts a line

    def line_break() -> None:
        if out and out[-1][-1] != "\n":
            out.append("\n")

    left: list[Any] = []  # the elements entered, innermost last
    node = pre.child
    while True:
        if node is None:
            if not left:
                break
            node = left.pop()
            if _blocklike(node.tag):
                pending = True
            node = node.next
            continue
        tag = node.tag or NAMELESS_TAG
        if tag == TEXT_TAG:
            s = node.text_content
            if s:
                if pending and s[0] != "\n":
                    line_break()
                pending = False
                out.append(s)
        elif tag == "br":
            if pending:
                line_break()
                pending = False
            out.append("\n")
        elif _blocklike(tag):
            pending = True
        if tag != TEXT_TAG and node.child is not None:
            left.append(node)
            node = node.child
            continue
        node = node.next  # an element without children is left as it is entered: its break is pending already
    return "".join(out)


def _blocklike(tag: str) -> bool:
    """Does an element with this tag start a line of its own (a ``_BLOCKS`` tag or a custom element)? Text and
    comment nodes ("-text", "-comment") do not."""
    return tag[:1] != "-" and (tag in _BLOCKS or "-" in tag)


def code_language(attrs: dict[str, str | None], code_class: str | None) -> str | None:
    """A ``<pre>``'s language: from its class (``language-python``, ``brush: js``), ``data-lang`` or
    ``data-language``, else from the class of the first ``<code>`` inside it (``code_class``)."""
    for cls in (attrs.get("class"), attrs.get("data-lang"), attrs.get("data-language")):
        if cls:
            match = _CODE_LANG.search(cls)
            if match:
                return match.group(1).lower()
            if cls is not attrs.get("class"):
                return cls.strip().lower() or None
    if code_class:
        match = _CODE_LANG.search(code_class)
        if match:
            return match.group(1).lower()
    return None


def list_start(start: str | None) -> int:
    """The first number of an ordered list from its ``start`` attribute (1 when absent or not a plain number).

    ``isdecimal``, not ``isdigit``: superscript digits ("²") are digits that ``int()`` refuses."""
    return int(start) if start and start.strip().isdecimal() and len(start) < 9 else 1
