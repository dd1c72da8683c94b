"""Blocks to segments: hand each walked block to the builder. The builder's aligner (``spans``) finds each
segment's source span; the position passed is the block's anchor (``html_fastwalk.anchor_offsets``: where the
source holds its element), or -1.
"""

from __future__ import annotations

from ..types import SegmentKind
from .builder import ListItem, SegmentBuilder, clean_inline
from .html_walk import Block

_PARAGRAPH = SegmentKind.PARAGRAPH
_QUOTE = SegmentKind.QUOTE
_METADATA = SegmentKind.METADATA


def _emit(builder: SegmentBuilder, blocks: list[Block], anchors: list[int] | None = None) -> None:
    """Hand every block to the builder, in document order; ``anchors`` are the blocks' anchors."""
    for at, block in enumerate(blocks):
        position = anchors[at] if anchors is not None else -1
        kind = block.kind
        boiler = block.boiler
        # Paragraphs are two blocks in three: they are tested first.
        if kind == "p" and not block.meta:
            builder.add_paragraph(block.text, position, _PARAGRAPH, boiler)
        elif kind == "list":
            if block.items:
                base = min([item[1] for item in block.items])
                items = [ListItem(text, depth - base, ordered, number, -1)
                         for text, depth, ordered, number, _ in block.items]
                builder.add_list(items, position, boiler)
        elif kind == "table":
            data = block.table
            assert data is not None
            builder.table(data.header, data.rows, position, caption=data.caption, boilerplate=boiler)
        else:
            text = block.text
            if kind == "h":
                builder.add_heading(text, block.level, position, boiler)
            elif kind == "code":
                if boiler:  # as inline text: the builder takes the walk's texts as collapsed, code is not
                    builder.add_paragraph(clean_inline(text), position, _PARAGRAPH, True)
                else:
                    builder.code(text, block.lang, position)
            elif kind == "quote":
                builder.add_paragraph(text, position, _QUOTE, boiler)
            elif kind == "caption" or block.meta:
                builder.add_paragraph(text, position, _METADATA, boiler)
            else:
                builder.add_paragraph(text, position, _PARAGRAPH, boiler)
