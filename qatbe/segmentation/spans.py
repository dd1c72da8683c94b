"""Source spans: where in the decoded source each segment's text was read, as ``source[start:end]``.

Lexbor (through selectolax) keeps no source positions on its nodes: its tokenizer knows them, but neither its
node structures nor selectolax's API carry them into the tree. So the spans are found another exact way, by
aligning texts with a *stream*: the source's readable characters with every whitespace character left out, each
mapped to the source range it was read from.

* HTML: the characters outside tags, comments and raw-text elements (``<script>``, ``<style>``, ``<title>``,
  ``<textarea>``, ...), character references decoded (each decoded character maps to its whole ``&...;``).
* Markdown and plain text: the source characters as written.

A unit (a block the walk read, a list item, a table row, a markdown block) is the first occurrence of its own
non-whitespace characters in the stream at or after where the previous unit ended: walks read text in document
order, and a run of text is a contiguous stretch of the source, so the match starts at the unit's first character
and ends after its last. Whitespace cannot tell units apart (the walk collapses it, block tags add it), which is why
the stream leaves it out. A unit whose characters are not contiguous in the source (a skipped element inside it: a
hidden label, a button, a formula replaced by TeX) is placed piece by piece: its whitespace-separated words in
order from the first one found, a word that does not occur in the source at all (TeX) being passed over. The
search is bounded (a window, and a budget proportional to the page), so the cost stays linear on any page.

Units that are not found get an empty span where the stream stands, so that starts never go back: text the walk
reads in another order than the source has it (a grid's merged header cells, text a tree builder moves), and
the blocks read from a page's JSON-LD (``html_structured``), whose text is inside a ``<script>``, not among the
page's readable characters. A formula replaced by its TeX (``html_math``) is placed by the words of the unit
that occur in the page, so its span runs from the text before the formula to the text after it. Parts of a
split unit (``SegmentBuilder``) are found inside the unit's span.

Why hand-written: no library maps an HTML5 parse back to source offsets (html5lib and Python's ``html.parser`` give
line and column of tags, not of the text a tree builder kept, and parsing the page twice would double the
segmenter's cost); this is one regular-expression pass over the page plus one ``str.find`` a unit.
"""

from __future__ import annotations

import bisect
import html as _html
import re
import unicodedata

# What never reaches a text node the walk reads, in one alternation: comments, raw-text and escapable raw-text
# elements with their contents, tags (quoted attribute values may hold ">"), declarations and processing
# instructions. Anything else, a "<" not starting a tag included, is text.
# Possessive quantifiers throughout: a match never backtracks (linear on any page), and the runs between tags are
# taken whole, three times faster than a character at a time.
_NOT_TEXT = re.compile(
    r"<!--(?:[^-]++|-(?!->))*+(?:-->|\Z)"
    r"|<(script|style|xmp|iframe|noembed|noframes)(?=[\s/>])[^>]*+>(?:[^<]++|<(?!/\1[\s/>]))*+(?:</\1\s*+>|\Z)"
    r"|<plaintext(?=[\s/>]).*\Z"
    r"|</?[A-Za-z][^\s/>]*+(?:[^>\"']++|\"[^\"]*+\"|'[^']*+')*+>"
    r"|<[!?/][^>]*+>",
    re.DOTALL | re.IGNORECASE,
)
_REFERENCE = re.compile(r"&(?:#[0-9]+;?|#[xX][0-9A-Fa-f]+;?|[A-Za-z][A-Za-z0-9]*;?)")
_NON_SPACE = re.compile(r"\S")
_WORD = re.compile(r"\w+")
# The characters the walk removes from its texts (html_tables.visible_text): they are left out of the stream too.
_INVISIBLE = ("\xad", "\u200b")
_WINDOW = 1 << 17
_NEAR = 1 << 12  # how far a unit is searched once the page's budget is spent
_NEAR_WORDS = 64  # slack between the words of a unit placed piece by piece (see Stream.find)
_NEAR_CELL = 256  # how far past the previous cell a table's cell is looked for (plus four times its length)
_JUMP = 256  # a unit found further than this from the previous one is checked against the next (Stream.align)
_LOOKAHEAD = 3  # how many following units are checked
_CHECKED = 2  # the shortest text of a following unit that can speak against a far match
_PIECE = 256


class Stream:
    """A source's readable characters without whitespace (``text``), and where each came from in the source.

    The stream is a sequence of pieces; a piece is a stretch of stream characters read either from a run of
    source text (``_raw[k]``, at most ``_PIECE`` characters, starting at ``_sources[k]``: its characters map one
    to one, whitespace skipped) or from one character reference or composed character (``_raw[k]`` is None:
    every character maps to the source range ``_sources[k]`` to ``_ends[k]``). ``_at[k]`` is where the piece
    starts in the stream.
    """

    __slots__ = ("_at", "_budget", "_ends", "_markup", "_raw", "_sources", "cursor", "length", "text")

    def __init__(self, source: str, *, markup: bool) -> None:
        self._at: list[int] = []  # stream index where each piece starts
        self._sources: list[int] = []  # source offset where each piece starts
        self._ends: list[int] = []  # source offset where each piece ends
        self._raw: list[str | None] = []  # the source run of a one-to-one piece, else None
        self._markup = markup
        parts: list[str] = []
        self.length = 0
        if markup:
            at = 0
            starts, sources, ends, raws = self._at, self._sources, self._ends, self._raw
            for match in _NOT_TEXT.finditer(source):
                start, end = match.span()
                if start > at:
                    run = source[at:start]
                    # Most runs between two tags are short plain ASCII: taken here, without the calls of _text.
                    if start - at <= _PIECE and run.isascii() and "&" not in run:
                        chars = "".join(run.split())
                        if chars:
                            starts.append(self.length)
                            sources.append(at)
                            ends.append(start)
                            raws.append(run)
                            parts.append(chars)
                            self.length += len(chars)
                    else:
                        self._text(source, at, start, parts, decode=True)
                at = end
            if at < len(source):
                self._text(source, at, len(source), parts, decode=True)
        else:
            self._text(source, 0, len(source), parts, decode=False)
        self.text = "".join(parts)
        self.cursor = 0
        self._budget = 64 * len(self.text) + _WINDOW

    # -- building ----------------------------------------------------------------------------------------

    def _text(self, source: str, start: int, end: int, parts: list[str], *, decode: bool) -> None:
        """The run ``source[start:end]`` into the stream, character references decoded when ``decode``."""
        run = source[start:end]
        if decode and "&" in run:
            at = 0
            for match in _REFERENCE.finditer(run):
                if match.start() > at:
                    self._plain(run[at : match.start()], start + at, parts)
                value = _html.unescape(match.group())
                self._piece("".join(value.split()), start + match.start(), start + match.end(), parts)
                at = match.end()
            if at < len(run):
                self._plain(run[at:], start + at, parts)
        else:
            self._plain(run, start, parts)

    def _plain(self, run: str, start: int, parts: list[str]) -> None:
        if (self._markup and not run.isascii()
                and (not unicodedata.is_normalized("NFC", run) or any(c in run for c in _INVISIBLE))):
            self._composed(run, start, parts)
            return
        # Pieces of at most _PIECE characters: mapping a stream index back reads its piece's characters.
        for at in range(0, len(run), _PIECE):
            piece = run[at : at + _PIECE]
            chars = "".join(piece.split())
            if not chars:
                continue
            self._at.append(self.length)
            self._sources.append(start + at)
            self._ends.append(start + at + len(piece))
            self._raw.append(piece)
            parts.append(chars)
            self.length += len(chars)

    def _composed(self, run: str, start: int, parts: list[str]) -> None:
        """A run whose characters the walk changes (NFC composition, invisible characters dropped): one piece per
        character as the walk writes it, mapped to the source characters it was composed from."""
        i = 0
        n = len(run)
        while i < n:
            j = i + 1
            while j < n and unicodedata.combining(run[j]):
                j += 1
            cluster = run[i:j]
            if cluster not in _INVISIBLE and not cluster.isspace():
                self._piece(unicodedata.normalize("NFC", cluster), start + i, start + j, parts)
            i = j

    def _piece(self, chars: str, start: int, end: int, parts: list[str]) -> None:
        if not chars:
            return
        self._at.append(self.length)
        self._sources.append(start)
        self._ends.append(end)
        self._raw.append(None)
        parts.append(chars)
        self.length += len(chars)

    # -- mapping -----------------------------------------------------------------------------------------

    def _source_range(self, i: int) -> tuple[int, int]:
        """The source range stream character ``i`` was read from."""
        k = bisect.bisect_right(self._at, i) - 1
        raw = self._raw[k]
        if raw is None:
            return self._sources[k], self._ends[k]
        skip = i - self._at[k]  # the skip-th non-whitespace character of the run
        for match in _NON_SPACE.finditer(raw):
            if skip == 0:
                at = self._sources[k] + match.start()
                return at, at + 1
            skip -= 1
        raise AssertionError("a stream character beyond its run")  # the run holds as many as it put in the stream

    def stream_at(self, offset: int) -> int:
        """The first stream index read at or after source ``offset``."""
        k = bisect.bisect_right(self._sources, offset) - 1
        if k < 0:
            return 0
        if offset >= self._ends[k]:
            return self._at[k + 1] if k + 1 < len(self._at) else self.length
        raw = self._raw[k]
        if raw is None:
            return self._at[k] if offset <= self._sources[k] else (self._at[k + 1] if k + 1 < len(self._at)
                                                                     else self.length)
        before = raw[: offset - self._sources[k]]
        return self._at[k] + len(before) - sum(1 for c in before if c.isspace())

    def source_span(self, lo: int, hi: int) -> tuple[int, int]:
        """The source range of stream characters ``lo`` to ``hi`` (exclusive, ``lo < hi``)."""
        return self._source_range(lo)[0], self._source_range(hi - 1)[1]

    def source_offset(self, i: int) -> int:
        """Where stream index ``i`` lies in the source (the end of the source past the last character)."""
        if i >= self.length:
            return self._ends[-1] if self._ends else 0
        return self._source_range(i)[0]

    # -- finding -----------------------------------------------------------------------------------------

    def find(self, text: str, lo: int, hi: int, pieces: bool = True) -> tuple[int, int]:
        """Stream range ``(a, b)`` of ``text`` within stream indexes ``lo`` to ``hi``: its characters as one
        stretch, else (when ``pieces``) its words in order (see the module docstring); ``(lo, lo)`` when not
        found."""
        if self._markup and not text.isascii():  # as the stream reads the page (a <pre>'s text is not composed)
            text = unicodedata.normalize("NFC", text.replace("\xad", "").replace("\u200b", ""))
        key = "".join(text.split())
        if not key or lo >= hi:
            return lo, lo
        if self._budget <= 0:  # the page has cost its budget: only near matches from here on
            hi = min(hi, lo + _NEAR)
        stream = self.text
        at = stream.find(key, lo, hi)
        self._budget -= (at + len(key) if at >= 0 else hi) - lo
        if at >= 0:
            return at, at + len(key)
        if not pieces:
            return lo, lo
        # Piece by piece: the words in order, each from where the previous one ended; all of them close to the
        # first one found (a unit's words are, whatever the walk skipped between them), and together most of its
        # characters, or a few common words found far apart would carry the cursor past the units that follow.
        first = -1
        end = lo
        found_chars = 0
        for word in text.split():
            for piece in ((word,) if stream.find(word, end, hi) >= 0 else _WORD.findall(word)):
                found = stream.find(piece, end, hi)
                if found < 0:
                    continue
                if first < 0:
                    first = found
                    hi = min(hi, found + 2 * len(key) + _NEAR_WORDS)
                end = found + len(piece)
                found_chars += len(piece)
        self._budget -= hi - lo
        if first < 0 or 2 * found_chars < len(key):
            return lo, lo
        return first, end

    def align(self, texts: list[str], near: set[int] | frozenset[int] = frozenset(),
              whole: set[int] | frozenset[int] = frozenset()) -> list[tuple[int, int]]:
        """Source ranges of the units of a document (their texts, in document order), each found from where
        the previous one ended; an empty range there for a unit that is not found. The units whose indexes are
        in ``near`` are only looked for close to where the previous one ended (a table's cells after its first:
        a grid's cells are next to each other in the source, and a short cell found anywhere else would be
        another copy). The units in ``whole`` are only taken as one stretch of characters (a table's header
        cells: stacked header rows are merged per column, whose words are then far apart).

        A unit found far from where the previous one ended is checked against the units that follow: when one
        of them lies before it, the far match is another copy of the unit's text (a short label, a number in a
        table) and taking it would carry every later unit past its own place; the unit is then not found.
        """
        out: list[tuple[int, int]] = []
        stream = self.text
        for i, text in enumerate(texts):
            lo = self.cursor
            reach = _NEAR_CELL + 4 * len(text) if i in near else _WINDOW
            a, b = self.find(text, lo, min(self.length, lo + reach), i not in whole)
            if a - lo > _JUMP:
                for later in texts[i + 1 : i + 1 + _LOOKAHEAD]:
                    key = "".join(later.split())
                    if len(key) >= _CHECKED and stream.find(key, lo, a) >= 0:
                        a = b = lo
                        break
            if a == b:
                at = self.source_offset(lo)
                out.append((at, at))
                continue
            self.cursor = b
            out.append(self.source_span(a, b))
        return out

    def part_span(self, text: str, start: int, end: int) -> tuple[int, int]:
        """Source range of ``text``, a part of the unit at ``source[start:end]``, found from ``start`` on."""
        lo = self.stream_at(start)
        hi = self.stream_at(end)
        a, b = self.find(text, lo, hi)
        if a == b:  # not in the unit's characters: the part is somewhere in what is left of the unit
            return start, end
        return self.source_span(a, b)



def trimmed(source: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` without the whitespace at either end of ``source[start:end]``."""
    while start < end and source[start].isspace():
        start += 1
    while end > start and source[end - 1].isspace():
        end -= 1
    return start, end
