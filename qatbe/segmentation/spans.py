"""Exact source spans: where in the decoded source each segment came from.

Lexbor keeps no source positions on its nodes, and the segmenters' texts are transformed (whitespace collapsed,
references decoded, cells joined), so a segment's span is found by alignment. The source is read once into a
*stream*: its readable letters and digits (``fold``: "é" reads as "e" however the page writes it), each with the
character range it came from. Markup is not readable: tags with their attributes, comments, declarations and the
content of the raw-text elements (``RAW_TEXT``, outside ``FOREIGN`` content; ``RCDATA``'s is text, tags
included); a character reference is read as
what ``html.unescape`` makes of it, and all its letters and digits get the reference's range. Plain text
(``markup=False``) is read as it is, references too.

A segment's own letters and digits are then placed at their first occurrence in the stream after the cursor
(``span``): where the previous segment's ended, or the segment's anchor (``skip_to``: for HTML, where the source
holds the block's element, html_fastwalk.anchor_offsets). Not found there, they are placed at their last
occurrence in the ``WINDOW`` before it (a block the walk emits after blocks that follow it in the source); a text
shorter than ``SHORT`` found more than ``FAR`` ahead is also placed behind when it is there (a menu item repeated
in the footer must not carry the cursor past the page). When they are not in the source in one run (text the
page holds in an attribute, a formula's TeX, cells a span repeats), the segment is placed line by line (a table
row, a list item), and a line not found word by word: the first placed word within ``WORD_WINDOW`` (more than
``NEAR`` ahead only when the next word follows it within ``NEAR``: a far copy of a common word must not carry the
span away), each later line within ``4 * near`` of the previous one and each later word within ``near``
(``NEAR``, or ``ANCHORED_NEAR`` when every unit has an anchor, and then the rest of the line from a word not
found, ``REST`` letters or more, further on in one piece), or in two pieces within ``near`` of each other (text
the walk leaves out or the parser moves between them); words not found are left out. The span runs from
the source range of the first placed character to that of the last: for HTML the element (or run of elements)
the text came from, for a split unit its part. Only letters and digits are compared, so what the segmenters
change (whitespace, quotes, bullets, separators) does not matter.

Linear cost: every search is bounded by a window, and all searches together may scan ``BUDGET_PER_CHAR`` times
the stream (plus a ``WINDOW``), after which each is limited to ``WORD_WINDOW`` and none looks behind the cursor.

``PySpanAligner`` is the reference; ``html_fastwalk.SpanAligner`` (compiled) gives the same spans over the UTF-8
bytes, and ``aligner`` returns it when it is built.
"""
from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from html import unescape
from html.entities import html5
from typing import Protocol

from .._backend import span_aligner

WINDOW = 1 << 16
WORD_WINDOW = 1 << 11
NEAR = 64
# With anchors (html_fastwalk.anchor_offsets: each unit's search starts where the source holds its element), a
# unit's later words may be this far apart (``near``): a far copy of a word then carries away only the end of one
# span, since the next unit starts at its own anchor.
ANCHORED_NEAR = 1 << 11
# With anchors, the rest of a line from a word not found near (at least ``REST`` letters) is looked for in one
# piece within ``WINDOW``: what follows text the page hides (a list of names it expands on demand).
REST = 24
FAR = 1 << 12
SHORT = 64
BUDGET_PER_CHAR = 32
# Elements whose content is not markup and not shown: skipped to their end tag.
RAW_TEXT = ("script", "style", "xmp", "iframe", "noembed", "noframes")
# Elements whose content is text, with references but no tags, up to their end tag (the standard's RCDATA): read.
RCDATA = ("title", "textarea")
# Foreign content: inside <svg> and <math> no element is raw text (an SVG <title> holds text). One of these start
# tags ends it (the HTML standard's "breakout" list: <font> only with a color, face or size, ``FONT_BREAKOUT``).
FOREIGN = ("svg", "math")
BREAKOUT = frozenset((
    "b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em", "embed", "h1", "h2", "h3",
    "h4", "h5", "h6", "head", "hr", "i", "img", "li", "listing", "menu", "meta", "nobr", "ol", "p", "pre", "ruby",
    "s", "small", "span", "strong", "strike", "sub", "sup", "table", "tt", "u", "ul", "var"))
FONT_BREAKOUT = re.compile(r"[\s/](?:color|face|size)[\s/=>]", re.IGNORECASE)


def breaks_out(tag: str, markup: str) -> bool:
    """Whether the start tag ``markup`` (named ``tag``, lower case) ends foreign content."""
    return tag in BREAKOUT or (tag == "font" and FONT_BREAKOUT.search(markup) is not None)
_TAG_NAME = re.compile(r"[^ \t\n\f\r/>]*")
_HANGUL = range(0xAC00, 0xD7A4)
_FOLD: dict[str, str] = {}  # filled on first use (fold_table): 1,493 characters, about 8 ms


def _folded(c: str) -> str:
    """``fold(c)``, computed."""
    if c.isascii() or ord(c) > 0xFFFF or ord(c) in _HANGUL:
        return c if c.isalnum() else ""
    return "".join(d for d in unicodedata.normalize("NFD", c) if d.isalnum())


def fold_table() -> dict[str, str]:
    """The characters of the Basic Multilingual Plane that ``fold`` changes, and what it makes of each."""
    if not _FOLD:
        for k in range(0x80, 0x10000):
            c = chr(k)
            found = _folded(c)
            if found != (c if c.isalnum() else ""):
                _FOLD[c] = found
    return _FOLD


def fold(c: str) -> str:
    """What the aligner compares a character as: the letters and digits of its canonical decomposition (NFD),
    so that "é" reads as "e" whether the page writes it precomposed, as "e" and U+0301 (a combining mark is not a
    letter) or as a reference; ``""`` for a character that is not a letter or digit. Each makes at most one
    (``fold_table``). Hangul syllables and characters past the Basic Multilingual Plane are compared as they
    are: their decomposition would triple a Korean page's stream, and the segmenters' NFC leaves them."""
    if c.isascii() or len(c) != 1 or ord(c) > 0xFFFF:
        return c if c.isalnum() else ""
    found = fold_table().get(c)
    if found is not None:
        return found
    return c if c.isalnum() else ""


# The letters and digits each named reference makes (html.entities.html5, the names with and without ";").
ENTITY_ALNUM: dict[str, str] = {name: "".join(_folded(c) for c in value) for name, value in html5.items()}
# What html.unescape makes of &#128; ... &#159; (windows-1252's characters).
NUMERIC_C1 = "".join(unescape(f"&#{k};") for k in range(0x80, 0xA0))
_SPACE = " \t\n\f\r"
_ENTITY_STOP = "\t\n\f <&#;"


class Aligner(Protocol):
    def span(self, text: str) -> tuple[int, int]: ...
    def skip_to(self, offset: int) -> None: ...


def numeric_alnum(num: int) -> str:
    """The letter or digit ``html.unescape`` makes of ``&#num;``, or ``""``."""
    if 0x80 <= num <= 0x9F:
        return fold(NUMERIC_C1[num - 0x80])
    if 0xD800 <= num <= 0xDFFF or num > 0x10FFFF:
        return ""
    return fold(chr(num))


def _letter(c: str) -> bool:
    return "a" <= c <= "z" or "A" <= c <= "Z"


def _markup_end(s: str, i: int, foreign: bool = False) -> int:
    """Where the markup starting with the ``<`` at ``i`` ends (``i`` when this ``<`` is text): a comment, a
    declaration or processing instruction, an end tag, or a start tag with its attributes (and, for the raw-text
    elements outside ``foreign`` content, their content up to the end tag)."""
    n = len(s)
    j = i + 1
    if j >= n:
        return i
    if s.startswith("!--", j):
        hit = s.find("-->", j + 3)
        return hit + 3 if hit >= 0 else n
    if s[j] in "!?" or (s[j] == "/" and j + 1 < n and _letter(s[j + 1])):
        hit = s.find(">", j)
        return hit + 1 if hit >= 0 else n
    if not _letter(s[j]):
        return i
    k = j
    while k < n and s[k] not in " \t\n\f\r/>":
        k += 1
    name = s[j:k]
    # Attributes: a quote opens a value only after "=" (spaces between allowed); a ">" inside one is text.
    while True:
        q = k
        while q < n and s[q] not in ">\"'":
            q += 1
        if q >= n:
            return n
        if s[q] == ">":
            k = q + 1
            break
        b = q - 1
        while b > i and s[b] in _SPACE:
            b -= 1
        if s[b] == "=":
            hit = s.find(s[q], q + 1)
            if hit < 0:
                return n
            k = hit + 1
        else:
            k = q + 1
    if not foreign and len(name) <= 9 and name.isascii() and name.lower() in RAW_TEXT:
        return _raw_end(s, k, name.lower())
    return k


def _raw_end(s: str, k: int, name: str) -> int:
    """Where the raw text from ``k`` ends: at the ``</name`` (any case) followed by a space, ``/`` or ``>``;
    ``len(s)`` when there is none."""
    n = len(s)
    m = len(name)
    while k < n:
        q = s.find("<", k)
        if q < 0:
            return n
        tag = s[q + 2 : q + 2 + m]
        if q + 2 + m <= n and s[q + 1] == "/" and tag.isascii() and tag.lower() == name and (
                q + 2 + m == n or s[q + 2 + m] in " \t\n\f\r/>"):
            return q
        k = q + 1
    return n


class PySpanAligner:
    """The stream and the cursor (see the module docstring); ``span(text)`` is the next segment's span."""

    __slots__ = ("budget", "cp", "cursor", "hi", "last_end", "lo", "near")

    def __init__(self, source: str, markup: bool = True) -> None:
        self.cp: list[str] = []
        self.lo: list[int] = []
        self.hi: list[int] = []
        self._build(source, markup)
        self.cursor = 0
        self.last_end = 0
        self.near = NEAR
        self.budget = BUDGET_PER_CHAR * len(self.cp) + WINDOW

    def _emit(self, value: str, lo: int, hi: int) -> None:
        for c in value:
            self.cp.append(c)
            self.lo.append(lo)
            self.hi.append(hi)

    def _build(self, s: str, markup: bool) -> None:
        n = len(s)
        i = 0
        foreign = 0  # open <svg> and <math>: their content has no raw text
        text_until = -1  # the end of an RCDATA element's content: no markup before it
        while i < n:
            c = s[i]
            folded = fold(c)
            if folded:
                self._emit(folded, i, i + 1)
            elif c == "&" and markup:
                j = i + 1
                if j < n and s[j] == "#":
                    j += 1
                    hexa = j < n and s[j] in "xX"
                    if hexa:
                        j += 1
                    k = j
                    while k < n and ("0" <= s[k] <= "9" or (hexa and "a" <= s[k].lower() <= "f")):
                        k += 1
                    if k > j:
                        num = int(s[j:k], 16 if hexa else 10)
                        k += k < n and s[k] == ";"
                        self._emit(numeric_alnum(num), i, k)
                        i = k
                        continue
                else:
                    k = j
                    while k < n and k - j < 32 and s[k] not in _ENTITY_STOP and s[k] < "\x80":
                        k += 1
                    if k > j:
                        semi = k < n and s[k] == ";"
                        name = s[j : k + semi]
                        value = ENTITY_ALNUM.get(name)
                        x = k + semi
                        if value is None:
                            x = -1
                            for q in range(len(name) - 1, 1, -1):
                                value = ENTITY_ALNUM.get(name[:q])
                                if value is not None:
                                    x = j + q
                                    break
                        if x >= 0 and value is not None:
                            self._emit(value, i, x)
                            i = x
                            continue
            elif c == "<" and markup and i >= text_until:
                j = _markup_end(s, i, foreign > 0)
                if j > i:
                    end = s[i + 1] == "/"
                    named = _TAG_NAME.match(s, i + 1 + end)
                    tag = named.group().lower() if named is not None and named.group().isascii() else ""
                    if tag in FOREIGN and (end or s[j - 2] != "/"):
                        foreign = max(foreign - 1, 0) if end else foreign + 1
                    elif foreign and not end and breaks_out(tag, s[i:j]):
                        foreign = 0
                    elif tag in RCDATA and not end and not foreign:
                        text_until = _raw_end(s, j, tag)
                    i = j
                    continue
            i += 1

    def _behind(self, key: list[str]) -> int:
        """The last place of ``key`` that ends before the cursor and starts in the ``WINDOW`` stream characters
        before it, or -1."""
        cp = self.cp
        m = len(key)
        low = max(self.cursor - WINDOW, 0)
        i = self.cursor - m
        while i >= low:
            if cp[i] == key[0] and cp[i + m - 1] == key[m - 1] and cp[i : i + m] == key:
                self.budget -= self.cursor - i
                return i
            i -= 1
        self.budget -= self.cursor - low
        return -1

    def _find(self, key: list[str], start: int, window: int) -> int:
        """The first ``i >= start`` where the stream holds ``key``, with ``i - start < window``; -1 if none.
        Every search is charged to the budget."""
        cp = self.cp
        m = len(key)
        end = min(start + window, len(cp) - m + 1)
        i = start
        while i < end:
            if cp[i] == key[0] and cp[i + m - 1] == key[m - 1] and cp[i : i + m] == key:
                self.budget -= i - start + m
                return i
            i += 1
        self.budget -= max(i - start, 0)
        return -1

    def _pieces(self, word: list[str], at: int) -> tuple[int, int]:
        """Where ``word`` starts and ends when the stream holds it in two pieces, the first within ``near`` of
        ``at`` and the second within ``near`` of the first (the longest first piece that works); (-1, -1) if not."""
        for k in range(len(word) - 1, 0, -1):
            p = self._find(word[:k], at, self.near + k)
            if p >= 0:
                q = self._find(word[k:], p + k, self.near + len(word) - k)
                if q >= 0:
                    return p, q + len(word) - k
        return -1, -1

    def span(self, text: str) -> tuple[int, int]:
        key: list[str] = []
        words: list[int] = []  # where each word starts and ends in key, in pairs
        lines: list[int] = []  # the first word of each line (of those with a word), then the number of words
        inside = False
        new_line = True
        for c in text:
            folded = fold(c)
            if folded:
                if not inside:
                    if new_line:
                        lines.append(len(words) // 2)
                        new_line = False
                    words.append(len(key))
                    inside = True
                key.append(folded)
                continue
            if inside:
                words.append(len(key))
                inside = False
            if c == "\n":
                new_line = True
        if inside:
            words.append(len(key))
        if not key:
            return (self.last_end, self.last_end)
        lines.append(len(words) // 2)
        window = WINDOW if self.budget > 0 else WORD_WINDOW
        p = self._find(key, self.cursor, window)
        if p > self.cursor + FAR and len(key) < SHORT and self.budget > 0 and len(key) <= self.cursor:
            at = self._behind(key)  # a short text far ahead: a copy behind is likelier its own place
            if at >= 0:
                return (self.lo[at], self.hi[at + len(key) - 1])
        if p >= 0:
            first, last = p, p + len(key) - 1
            self.cursor = p + len(key)
        elif self.budget > 0 and len(key) <= self.cursor and self._behind(key) >= 0:
            p = self._behind(key)
            return (self.lo[p], self.hi[p + len(key) - 1])
        else:
            first, last, at = -1, -1, self.cursor
            n_words = len(words) // 2
            for line in range(len(lines) - 1):
                wa, wb = lines[line], lines[line + 1]
                if len(lines) > 2:  # the whole line first (a table row, a list item)
                    ks, ke = words[2 * wa], words[2 * wb - 1]
                    p = self._find(key[ks:ke], at, WORD_WINDOW if first < 0 else 4 * self.near + ke - ks)
                    if p >= 0:
                        first = p if first < 0 else first
                        at = p + ke - ks
                        last = at - 1
                        continue
                for w in range(wa, wb):
                    word = key[words[2 * w] : words[2 * w + 1]]
                    if first >= 0:  # near the previous word, or left out
                        p = self._find(word, at, self.near + len(word))
                        ks, ke = words[2 * w], words[2 * wb - 1]
                        if p < 0 and self.near > NEAR and ke - ks >= REST:  # the rest of the line, further on
                            p = self._find(key[ks:ke], at, WINDOW)
                            if p >= 0:
                                at = p + ke - ks
                                last = at - 1
                                break
                        if p < 0:  # in two pieces, text the walk leaves out or moves between them
                            p, end = self._pieces(word, at)
                            if p >= 0:
                                at = end
                                last = at - 1
                                continue
                    else:
                        p = self._find(word, at, WORD_WINDOW)
                        if p > at + NEAR and w + 1 < n_words and \
                                self._find(key[words[2 * w + 2] : words[2 * w + 3]], p + len(word), NEAR) < 0:
                            p = -1  # far, and the next word is not right after it: another copy of the word
                        if p < 0:  # in two pieces
                            p, end = self._pieces(word, at)
                            if p >= 0:
                                first, at = p, end
                                last = at - 1
                                continue
                    if p >= 0:
                        first = p if first < 0 else first
                        at = p + len(word)
                        last = at - 1
            if first < 0:
                return (self.last_end, self.last_end)
            self.cursor = at
        self.last_end = self.hi[last]
        return (self.lo[first], self.hi[last])

    def skip_to(self, offset: int) -> None:
        """Start the cursor at the first stream character at or after source offset ``offset``."""
        self.cursor = bisect_left(self.lo, offset)

    def stream(self) -> tuple[str, list[int], list[int]]:
        """For tests: the stream as ``(text, starts, ends)``."""
        return ("".join(self.cp), list(self.lo), list(self.hi))


def aligner(source: str, data: bytes | None = None, markup: bool = True) -> Aligner:
    """The compiled ``SpanAligner`` when built, else ``PySpanAligner``: the same spans. ``data`` is ``source``
    as UTF-8 when the caller has it already."""
    compiled = span_aligner()
    if compiled is None or len(source) >= 0xFFFFFFFF:  # the compiled stream holds 32-bit offsets
        return PySpanAligner(source, markup)
    result: Aligner = compiled(source, data, markup)
    return result
