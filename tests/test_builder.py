"""SegmentBuilder's fast paths give the same answers as the plain code they stand for."""

from __future__ import annotations

import sys
from itertools import pairwise

from hypothesis import given, settings
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


# Over-long sentences (no sentence end inside): lower-case words and names of up to three capitalised words, with
# or without clause marks. 16-token units (64 characters) make every generated sentence over-long.
_LOWER = st.text("abcdefgh", min_size=3, max_size=9)
_NAME = st.lists(st.text("abcdefgh", min_size=1, max_size=8).map(str.capitalize), min_size=2, max_size=3).map(
    " ".join)
# A lower-case word, then maybe a name: names never touch, so no run of capitalised words is longer than three.
_PIECE = st.tuples(_LOWER, st.one_of(st.just(""), _NAME)).map(lambda t: f"{t[0]} {t[1]}".strip())


def _long_sentence(pieces: list[str]) -> str:
    return " ".join(pieces) + "."


def _paragraph_parts(text: str, tokens: int = 16) -> list[str]:
    builder = SegmentBuilder(Settings(max_segment_tokens=tokens))
    builder.paragraph(text, 0)
    return [s.text for s in builder.segments]


@given(st.lists(_PIECE, min_size=20, max_size=60))
def test_an_over_long_sentence_is_never_split_inside_a_name(pieces: list[str]) -> None:
    """Names here are at most 3 x 8 letters, far less than half a unit, so a space outside every name is always
    in reach and no cut may fall between two capitalised words."""
    text = _long_sentence(pieces)
    parts = _paragraph_parts(text)
    assert len(parts) > 1
    assert " ".join(parts) == text
    for left, right in pairwise(parts):
        assert not (left.split()[-1][0].isupper() and right.split()[0][0].isupper()), (left, right)
        assert len(left) <= 64


@given(st.lists(st.one_of(_LOWER, _LOWER.map(lambda w: w + ",")), min_size=20, max_size=60))
def test_an_over_long_sentence_splits_after_the_last_clause_mark_in_reach(pieces: list[str]) -> None:
    """A part ends at a comma whenever the back half of its size limit holds one, and only the last part may be
    shorter than half the limit."""
    text = _long_sentence(pieces)
    parts = _paragraph_parts(text)
    assert " ".join(parts) == text
    for part, following in pairwise(parts):
        assert 32 <= len(part) <= 64
        window = (part + " " + following)[32:64]
        if "," in window.rstrip(","):  # a comma other than one the part already ends on
            assert part.endswith(","), (part, following)


def test_the_airline_list_keeps_virgin_atlantic_whole() -> None:
    """A hotpotqa page: at 80-token units the last space before the limit fell between "Virgin" and "Atlantic"."""
    text = ("17 airlines partner with Gogo to provide in-flight WiFi, including British Airways, Aer Lingus, "
            "Iberia, Gol linhas aereas, Beijing Capital, Aeromexico, American Airlines, Air Canada, Alaska Airlines, "
            "Delta Air Lines, Japan Airlines, JTA, United Airlines, Hainan Airlines, Virgin America, Vietnam "
            "Airlines and Virgin Atlantic.")
    parts = _paragraph_parts(text, tokens=80)
    assert len(parts) == 2
    assert parts[1] == "Vietnam Airlines and Virgin Atlantic."


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["a", "word", ".", "!", "?", "…", "。", "！", "？", '"', "'", "”", "’", ")", "]", " ",
                                 "\n", "\u3000", "\xa0", "3.14", "e.g."]), max_size=40).map("".join))
def test_sentence_ends_are_where_the_regex_ends(text: str) -> None:
    from qatbe.segmentation.builder import _SENTENCE_END, sentence_ends

    assert sentence_ends(text) == [m.end() for m in _SENTENCE_END.finditer(text)]


@given(st.text(st.characters(), max_size=8))
def test_invisible_means_only_format_control_and_space_characters(text: str) -> None:
    import unicodedata

    from qatbe.segmentation.builder import invisible

    assert invisible(text) == (not text.isprintable() and all(unicodedata.category(c)[0] in "CZ" for c in text))
    assert not invisible(text + "a")


def test_a_block_that_shows_nothing_is_no_segment() -> None:
    """What a page leaves of an emptied element (a zero-width joiner, a word joiner, a bidi mark) is no segment;
    the same characters inside words stay."""
    import qatbe

    html = "<h2>Fees \u200e</h2><p>\u200d</p><h2>\u2060</h2><p>\u200f \u200b</p><p>a\u200db</p>"
    assert [(s.kind, s.text) for s in qatbe.segment(html)] == [
        (SegmentKind.HEADING, "Fees \u200e"), (SegmentKind.PARAGRAPH, "a\u200db")]
    assert [s.text for s in qatbe.segment("Intro.\n\n\u200d\n\nEnd.", format="text")] == ["Intro.", "End."]
