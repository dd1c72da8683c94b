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


def _table(html: str) -> list[qatbe.Segment]:
    tables = [s for s in qatbe.segment(f"<body>{html}</body>", format="html") if s.kind is SegmentKind.TABLE]
    assert len(tables) == 1
    return tables


def test_a_cell_spanning_some_columns_repeats_in_each() -> None:
    (table,) = _table("<table><tr><th>Year</th><th colspan=2>Score</th></tr>"
                      "<tr><td>2001</td><td colspan=2>4-2 aet</td></tr><tr><td>2002</td><td>1</td><td>0</td></tr>"
                      "</table>")
    assert "| Year | Score | Score |" in table.markdown
    assert "| 2001 | 4-2 aet | 4-2 aet |" in table.markdown


def test_a_title_row_across_the_table_is_its_caption_and_a_section_row_is_said_once() -> None:
    (table,) = _table("<table><tr><th colspan=3>Largest urban areas</th></tr>"
                      "<tr><th>Rank</th><th>Name</th><th>Population</th></tr>"
                      "<tr><td colspan=3>North Island</td></tr>"
                      "<tr><td>1</td><td>Auckland</td><td>1,695,900</td></tr>"
                      "<tr><td colspan=3 rowspan=2>Lost row</td></tr><tr></tr>"
                      "<tr><td>2</td><td>Wellington</td><td>215,400</td></tr></table>")
    lines = table.markdown.splitlines()
    assert lines[:3] == ["Table: Largest urban areas", "| Rank | Name | Population |", "| --- | --- | --- |"]
    assert "| North Island |  |  |" in lines
    assert table.markdown.count("Largest urban areas") == 1
    # Two rows high, it is not a plain section row: it repeats as any spanning cell does.
    assert "| Lost row | Lost row | Lost row |" in lines


def test_a_title_row_under_a_caption_stays_in_the_header() -> None:
    (table,) = _table("<table><caption>Cities</caption><tr><th colspan=2>Largest</th></tr>"
                      "<tr><th>Name</th><th>Population</th></tr><tr><td>Auckland</td><td>1,695,900</td></tr>"
                      "</table>")
    assert table.markdown.splitlines()[:2] == ["Table: Cities", "| Largest Name | Largest Population |"]
