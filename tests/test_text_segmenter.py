"""Plain text: blocks end at blank lines whatever ends the lines, and at form feeds; positions point at the source."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qatbe import Settings
from qatbe.segmentation.text import segment_text


def _blocks(text: str) -> list[tuple[str, int]]:
    return [(s.text, s.position) for s in segment_text(text, Settings()).segments]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_a_blank_line_ends_a_block_whatever_ends_the_lines(newline: str) -> None:
    text = newline.join(["First line", "of the first block.", "", "The second block.", "  \t", "The third."])
    blocks = _blocks(text)
    assert [t for t, _ in blocks] == ["First line of the first block.", "The second block.", "The third."]
    assert all(text.startswith(t.split()[0], p) for t, p in blocks)


def test_a_line_break_alone_does_not_end_a_block() -> None:
    assert [t for t, _ in _blocks("one\r\ntwo\rthree\nfour")] == ["one two three four"]


def test_a_form_feed_is_a_page_break() -> None:
    """pdftotext separates pages with a form feed, often with no blank line around it."""
    text = "End of page one.\fStart of page two.\n\f\nPage three."
    assert [t for t, _ in _blocks(text)] == ["End of page one.", "Start of page two.", "Page three."]


_LINE = st.text(alphabet=st.sampled_from("abc xyz."), min_size=1, max_size=12).filter(str.strip)


@given(st.lists(st.lists(_LINE, min_size=1, max_size=4), min_size=1, max_size=6),
       st.sampled_from(["\n", "\r\n", "\r"]))
def test_line_endings_do_not_change_the_blocks(blocks: list[list[str]], newline: str) -> None:
    """The same text with Unix, Windows or old Mac line ends gives the same blocks, each at its own offset."""
    unix = "\n\n".join("\n".join(lines) for lines in blocks)
    other = unix.replace("\n", newline)
    assert [t for t, _ in _blocks(other)] == [t for t, _ in _blocks(unix)]
    for text, position in _blocks(other):
        letters = [c for c in text if c.isalnum()]
        if letters:  # a span starts at the block's first letter or digit (qatbe.segmentation.spans)
            assert other[position] == letters[0]
