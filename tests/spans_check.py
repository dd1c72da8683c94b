"""The span check of tests/test_spans.py, shared with its corpus run: is each segment's text where its span says?

A segment's *words* are the runs of letters and digits (``str.isalnum``) of its text; for a table part after the
first, of its rows only (the header it repeats is in the source once, before it); in a formula, not the TeX
commands (``\\frac``, ``\\begin{matrix}``) the segmenter writes for the page's MathML. The span's *readable* letters
and digits are those of ``source[start:end]`` with markup removed (tags, comments) and character references
decoded (``html.unescape``); whitespace, punctuation and combining marks are not compared (both sides are
decomposed, NFD: the segmenters compose what the page may write decomposed). The check: the words occur in order in
the readable letters and digits, each after the previous one (a word may be in two pieces with hidden text
between, ``_split``); a word that does not (text the page holds in an
attribute, a cell a row or column span repeats) must occur somewhere in the span, as readable text or with
the markup, or for a cell that a row span repeats from an earlier part of the table, between that part and the
span.
"""

from __future__ import annotations

import html as html_lib
import re
import unicodedata

from qatbe.types import Segment, SegmentKind

_HIDDEN = 1 << 11  # as far apart as the aligner places two words of one unit (spans.ANCHORED_NEAR)
# A formula's TeX (html_math writes it between dollar signs): its commands are what the segmenter writes for the
# page's MathML, not words of the page.
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$", re.DOTALL)
_TEX_COMMAND = re.compile(r"\\(?:begin|end)\{[A-Za-z*]+\}|\\[A-Za-z]+")
# Markup is not readable: comments, tags, and the content of script, style and template elements.
_MARKUP = re.compile(r"<!--.*?-->|<(script|style|template)\b[^>]*>.*?</\1\s*>|<[A-Za-z/!?][^>]*>", re.DOTALL | re.IGNORECASE)


def _alnum(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if c.isalnum())


def words(seg: Segment) -> list[str]:
    text = seg.text
    if seg.kind in (SegmentKind.TABLE, SegmentKind.NAVIGATION) and seg.part and seg.header:
        lines = seg.header.split("\n")
        skip = (1 if lines[0].startswith("Table: ") else 0) + (1 if any(ln.startswith("| ") for ln in lines) else 0)
        text = "\n".join(text.split("\n")[skip:])
    text = _MATH.sub(lambda m: _TEX_COMMAND.sub(" ", m.group()), text)
    return re.findall(r"[^\W_]+", text)


def misses(source: str, seg: Segment, markup: bool, table_start: int | None = None) -> list[str]:
    """The words of ``seg`` that the check does not find in its span (empty when it passes). For a table part
    after the first, ``table_start`` is where the table's first part starts: a cell that a row span repeats from
    an earlier part may be found between it and the part's span (it is in the source once, in an earlier row)."""
    piece = source[seg.start : seg.end]
    readable = _alnum(html_lib.unescape(_MARKUP.sub("", piece))) if markup else _alnum(piece)
    everything = _alnum(html_lib.unescape(piece)) if markup else readable
    if table_start is not None and seg.part and seg.kind in (SegmentKind.TABLE, SegmentKind.NAVIGATION):
        before = source[table_start : seg.start]
        everything += (_alnum(html_lib.unescape(_MARKUP.sub("", before))) + _alnum(html_lib.unescape(before))
                       if markup else _alnum(before))
    found: list[str] = []
    at = 0
    for word in words(seg):
        key = _alnum(word)
        hit = readable.find(key, at)
        if hit < 0:
            hit = _split(readable, key, at)
        if hit >= 0:
            at = hit
        elif key not in readable and key not in everything and _split(readable, key, 0) < 0:
            found.append(word)
    return found


def _split(readable: str, key: str, at: int) -> int:
    """Where ``key`` ends when the page writes it in two pieces with hidden text between (a segment joins what
    the walk shows: "°E" then a hidden span then "Coordinates" reads "°ECoordinates"), the second within
    ``_HIDDEN`` letters of the first; -1 when it does not."""
    for k in range(1, len(key)):
        first = readable.find(key[:k], at)
        while first >= 0:
            second = readable.find(key[k:], first + k, first + k + _HIDDEN + len(key) - k)
            if second >= 0:
                return second + len(key) - k
            first = readable.find(key[:k], first + 1)
            if first > at + len(readable):
                break
    return -1


def all_misses(source: str, segments: list[Segment], markup: bool) -> list[tuple[Segment, list[str]]]:
    """``misses`` of every segment of one document (in the builder's order), with each table part's first
    part found by its group."""
    first: dict[int, int] = {}
    out = []
    for seg in segments:
        if seg.part == 0:
            first[seg.group] = seg.start
        found = misses(source, seg, markup, first.get(seg.group) if seg.part else None)
        if found:
            out.append((seg, found))
    return out
