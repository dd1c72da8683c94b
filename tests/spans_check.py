"""The span check of tests/test_spans.py, shared with its corpus run: is each segment's text where its span says?

A segment's *words* are the runs of letters and digits (``str.isalnum``) of its text; for a table part after the
first, of its rows only (the header it repeats is in the source once, before it). The span's *readable* letters
and digits are those of ``source[start:end]`` with markup removed (tags, comments) and character references
decoded (``html.unescape``); whitespace and punctuation are not compared. The check: the words occur in order in
the readable letters and digits, each after the previous one; a word that does not (text the page holds in an
attribute, a cell a row or column span repeats) must occur somewhere in the span, markup included.
"""

from __future__ import annotations

import html as html_lib
import re

from qatbe.types import Segment, SegmentKind

_MARKUP = re.compile(r"<!--.*?-->|<[A-Za-z/!?][^>]*>", re.DOTALL)


def _alnum(text: str) -> str:
    return "".join(c for c in text if c.isalnum())


def words(seg: Segment) -> list[str]:
    text = seg.text
    if seg.kind in (SegmentKind.TABLE, SegmentKind.NAVIGATION) and seg.part and seg.header:
        lines = seg.header.split("\n")
        skip = (1 if lines[0].startswith("Table: ") else 0) + (1 if any(ln.startswith("| ") for ln in lines) else 0)
        text = "\n".join(text.split("\n")[skip:])
    return re.findall(r"[^\W_]+", text)


def misses(source: str, seg: Segment, markup: bool) -> list[str]:
    """The words of ``seg`` that the check does not find in its span (empty when it passes)."""
    piece = source[seg.start : seg.end]
    readable = _alnum(html_lib.unescape(_MARKUP.sub("", piece))) if markup else _alnum(piece)
    everything = _alnum(html_lib.unescape(piece)) if markup else readable
    found: list[str] = []
    at = 0
    for word in words(seg):
        key = _alnum(word)
        hit = readable.find(key, at)
        if hit >= 0:
            at = hit + len(key)
        elif key not in everything:
            found.append(word)
    return found
