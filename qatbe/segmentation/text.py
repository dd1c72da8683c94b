"""Plain text: blocks are separated by blank lines; there is no other structure to trust."""

from __future__ import annotations

import re

from ..settings import Settings
from ..types import Metadata, ParsedDocument
from .builder import SegmentBuilder
from .spans import aligner

# A block ends at a blank line -- whatever ends its lines: "\n", "\r\n" (Windows) or a lone "\r" (old Mac OS) -- or
# at a form feed, the page break of text extracted from PDF (pdftotext puts one between pages).
# LINE_END is also how markdown.py counts lines; a lone "\r" must not be followed by "\n", or a backtracking
# match could read the two halves of one "\r\n" as a blank line.
LINE_END = r"(?:\r\n|\r(?!\n)|\n)"
_BLANK = re.compile(rf"{LINE_END}[^\S\r\n\f]*{LINE_END}|[^\S\r\n\f]*\f\s*")


def segment_text(text: str, settings: Settings) -> ParsedDocument:
    builder = SegmentBuilder(settings, spans=aligner(text, markup=False))
    start = 0
    for match in _BLANK.finditer(text):
        builder.paragraph(text[start : match.start()], start)
        start = match.end()
    builder.paragraph(text[start:], start)
    return ParsedDocument(segments=tuple(builder.segments), metadata=Metadata(), format="text")
