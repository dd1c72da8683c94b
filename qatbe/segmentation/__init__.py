"""Segmentation stage: a document becomes a flat stream of typed ``Segment`` records in document order."""

from __future__ import annotations

from ..settings import Settings
from ..types import ParsedDocument


def parse(text: str, fmt: str, settings: Settings, navigation: bool = True) -> ParsedDocument:
    """Dispatch to the segmenter of ``fmt`` (``html``, ``markdown`` or ``text``). With ``navigation=False``
    boilerplate is left out (only HTML has any), every other segment keeping its index."""
    if fmt == "html":
        from .html import segment_html

        return segment_html(text, settings, navigation)
    if fmt == "markdown":
        from .markdown import segment_markdown

        return segment_markdown(text, settings)
    from .text import segment_text

    return segment_text(text, settings)


__all__ = ["parse"]
