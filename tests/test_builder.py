"""SegmentBuilder's fast paths give the same answers as the plain code they stand for."""

from __future__ import annotations

import sys

from hypothesis import given
from hypothesis import strategies as st

from qatbe.segmentation.builder import SegmentBuilder, clean_inline
from qatbe.settings import Settings
from qatbe.types import SegmentKind

# Text rich in every kind of whitespace str.split() knows, next to printable and non-printable characters.
_WHITESPACE = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
_CHARS = st.one_of(st.sampled_from(_WHITESPACE), st.sampled_from("ab |\u200b\u00ad\x00"), st.characters())
_TEXT = st.text(_CHARS)
_CELL = st.text(_CHARS, max_size=12)  # small enough that a table never splits into row groups


def test_every_whitespace_but_space_is_unprintable() -> None:
    """clean_inline's fast path relies on this: printable text can hold no whitespace other than " "."""
    assert [c for c in _WHITESPACE if c.isprintable()] == [" "]


@given(_TEXT)
def test_clean_inline_is_split_and_join(text: str) -> None:
    assert clean_inline(text) == " ".join(text.split())


def test_segments_carry_what_the_builder_was_given() -> None:
    builder = SegmentBuilder(Settings())
    builder.heading("Title", 1, 3)
    builder.heading("Part", 2, 10)
    builder.paragraph("Some  text\nhere.", 20)
    builder.code("print(1)", "python", 40)
    heading, sub, para, code = builder.segments
    assert (heading.kind, heading.text, heading.markdown, heading.position, heading.level) == (
        SegmentKind.HEADING, "Title", "# Title", 3, 1)
    assert (sub.heading_path, sub.index, sub.level) == (("Title",), 1, 2)
    assert (para.kind, para.text, para.markdown, para.position, para.heading_path) == (
        SegmentKind.PARAGRAPH, "Some text here.", "Some text here.", 20, ("Title", "Part"))
    assert (code.language, code.header, code.markdown) == ("python", "```python", "```python\nprint(1)\n```")
    assert [s.index for s in builder.segments] == [0, 1, 2, 3]
    assert len({s.group for s in builder.segments}) == 4
    assert all(s.part == 0 and s.tokens == 0 for s in builder.segments)


def test_table_drops_blank_rows_and_a_blank_header() -> None:
    builder = SegmentBuilder(Settings())
    builder.table([" ", "\n"], [["a|b", " x  y "], ["\t", ""], ["c"]], 0)
    (table,) = builder.segments
    assert table.header is None
    assert table.markdown == "| a\\|b | x y |\n| c |  |"
    assert table.text == "a\\|b | x y\nc | "


@given(st.lists(st.lists(_CELL, max_size=3), max_size=4), st.one_of(st.none(), st.lists(_CELL, max_size=3)))
def test_table_keeps_rows_with_text(rows: list[list[str]], header: list[str] | None) -> None:
    builder = SegmentBuilder(Settings())
    builder.table(header, rows, 0)
    kept = [r for r in rows if any(c.split() for c in r)]
    has_head = bool(header) and any(c.split() for c in header or ())
    if not kept and not has_head:
        assert builder.segments == []
        return
    (table,) = builder.segments
    body = table.markdown.split("\n")[2 if has_head else 0 :]
    assert len([line for line in body if line]) == len(kept)
    assert (table.header is not None) == has_head
