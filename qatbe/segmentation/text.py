"""Plain text: blocks are separated by blank lines; there is no other structure to trust."""

from __future__ import annotations

import re

from ..settings import Settings
from ..types import Metadata, ParsedDocument
from .builder import SegmentBuilder

_BLANK = re.compile(r"\n[ \t]*\n")


def segment_text(text: str, settings: Settings) -> ParsedDocument:
    builder = SegmentBuilder(settings)
    start = 0
    for match in _BLANK.finditer(text):
        builder.paragraph(text[start : match.start()], start)
        start = match.end()
    builder.paragraph(text[start:], start)
    return ParsedDocument(segments=tuple(builder.segments), metadata=Metadata(), format="text")
