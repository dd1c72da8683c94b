"""HTML to typed segments: parse with Lexbor, walk (``html_walk``), decide boilerplate (``html_decide``), emit.

Boilerplate is emitted as NAVIGATION (``boilerplate=True``) so ``qatbe.segment`` can show it; ``extract`` leaves
it out unless asked.

Emitting blocks as segments (and finding their source positions) is ``html_emit``'s job.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from ..settings import Settings
from ..types import Metadata, ParsedDocument
from .builder import SegmentBuilder
from .html_decide import decide
from .html_emit import _byline_author, _emit
from .html_guard import limit_nesting
from .html_metadata import read_metadata
from .html_walk import SCRIPT_LIKE, Walker


def segment_html(html: str, settings: Settings) -> ParsedDocument:
    """Split an HTML page into typed segments (boilerplate as NAVIGATION) and read its metadata."""
    source = limit_nesting(html)
    tree = LexborHTMLParser(source)
    metadata = read_metadata(tree)
    tree.strip_tags(list(SCRIPT_LIKE))
    body = tree.body or tree.root
    walker = Walker()
    if body is not None:
        walker.walk(body)
    decide(walker, metadata.extra.get("page_kind") == "discussion")
    builder = SegmentBuilder(settings)
    _emit(builder, walker.blocks, html)
    if metadata.author is None:
        author = _byline_author(walker.blocks)
        if author:
            metadata = Metadata(title=metadata.title, author=author, date=metadata.date,
                                description=metadata.description, language=metadata.language, url=metadata.url,
                                extra=metadata.extra)
    return ParsedDocument(segments=tuple(builder.segments), metadata=metadata, format="html")
