"""Reading HTML tables: which tables are data (one TABLE segment) and which are page layout (cells walked)."""

from __future__ import annotations

import qatbe
from qatbe import SegmentKind


def _kinds(html: str) -> list[SegmentKind]:
    return [s.kind for s in qatbe.segment(html, format="html")]


ROWS = "".join(f"<tr><td>Station {i}</td><td>{100 + i}.3 FM</td><td>Owner {i}</td></tr>" for i in range(6))


def test_a_table_without_header_cells_or_caption_is_still_data() -> None:
    # Lexbor matches a selector against the node itself, so "a table inside this table" must look below it.
    kinds = _kinds(f"<body><p>Radio stations of the town.</p><table>{ROWS}</table></body>")
    assert SegmentKind.TABLE in kinds
    assert kinds.count(SegmentKind.PARAGRAPH) == 1


def test_a_header_less_table_holding_a_table_is_layout() -> None:
    html = (f"<body><table><tr><td><p>{'Words of the article. ' * 20}</p>"
            f"<table>{ROWS}</table></td><td>Sidebar</td></tr></table></body>")
    segments = qatbe.segment(html, format="html")
    kinds = [s.kind for s in segments]
    assert kinds.count(SegmentKind.TABLE) == 1  # the inner data table only
    assert any(s.kind is SegmentKind.PARAGRAPH and "Words of the article" in s.text for s in segments)


def test_text_is_composed_unicode_without_invisible_characters() -> None:
    # "e" + COMBINING ACUTE ACCENT reads as "é": in a paragraph and in a table cell alike.
    html = ("<body><p>Cafe\u0301 au lait, soft\xadly.</p><table><tr><th>Name</th><th>Drink</th></tr>"
            "<tr><td>Cafe\u0301</td><td>lait\u200b</td></tr></table></body>")
    texts = [s.text for s in qatbe.segment(html, format="html")]
    assert texts[0] == "Caf\u00e9 au lait, softly."
    assert "Caf\u00e9" in texts[1] and "\u0301" not in texts[1] and "\u200b" not in texts[1]
