"""Markdown segmenter fixtures: each file is an input, a separator line, and the expected compact listing.

An optional first line ``% key=value ...`` sets integer Settings options for that case.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe import Settings
from qatbe.segmentation import markdown
from qatbe.segmentation.listing import listing
from qatbe.segmentation.markdown import segment_markdown
from qatbe.segmentation.text import LINE_END

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "markdown").glob("*.txt"))
SEPARATOR = "\n==== expected ====\n"


def _load(path: Path) -> tuple[str, Settings, str]:
    raw = path.read_text(encoding="utf-8")
    source, expected = raw.split(SEPARATOR)
    options: dict[str, int] = {}
    if source.startswith("%"):
        first, source = source.split("\n", 1)
        options = {k: int(v) for k, v in (kv.split("=") for kv in first[1:].split())}
    return source, Settings(**options), expected.rstrip("\n")  # type: ignore[arg-type]


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture(path: Path) -> None:
    source, settings, expected = _load(path)
    assert listing(segment_markdown(source, settings).segments) == expected


def test_fixtures_exist() -> None:
    assert len(FIXTURES) >= 6


def test_positions_point_at_the_source() -> None:
    source = "# Title\n\nFirst para.\n\n- item one\n- item two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    segments = segment_markdown(source, Settings()).segments
    for seg in segments:
        first_word = seg.text.split()[0]
        assert source.find(first_word, seg.position) == seg.position or source[seg.position:].lstrip("#-| ").startswith(
            first_word
        ), (seg, source[seg.position:seg.position + 20])


def test_heading_path_follows_levels() -> None:
    source = "# A\n\n## B\n\ntext b\n\n### C\n\ntext c\n\n## D\n\ntext d\n"
    paths = {s.text: s.heading_path for s in segment_markdown(source, Settings()).segments}
    assert paths["text b"] == ("A", "B")
    assert paths["text c"] == ("A", "B", "C")
    assert paths["text d"] == ("A", "D")
    assert paths["D"] == ("A",)


def test_deeply_nested_quotes_and_lists_do_not_recurse() -> None:
    source = ">" * 5000 + " deep\n\n" + "".join("  " * i + "- x\n" for i in range(2000))
    segments = segment_markdown(source, Settings()).segments
    assert any("deep" in s.text for s in segments)


def test_split_parts_never_break_rows_or_lines() -> None:
    rows = "\n".join(f"| r{i} a | r{i} b |" for i in range(200))
    code = "\n".join(f"    line_{i} = {i} * 2" for i in range(300))
    source = f"| H1 | H2 |\n|---|---|\n{rows}\n\n```py\n{code}\n```\n"
    segments = segment_markdown(source, Settings(max_segment_tokens=40)).segments
    tables = [s for s in segments if s.kind.value == "table"]
    codes = [s for s in segments if s.kind.value == "code"]
    assert len(tables) > 1 and len(codes) > 1
    for t in tables:
        lines = t.markdown.split("\n")
        assert lines[:2] == ["| H1 | H2 |", "| --- | --- |"]
        assert all(line.startswith("| r") and line.endswith(" |") for line in lines[2:])
    code_lines = [ln for c in codes for ln in c.text.split("\n")]
    assert code_lines == [f"    line_{i} = {i} * 2" for i in range(300)]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_positions_hold_for_every_kind_of_line_end(newline: str) -> None:
    """markdown-it counts "\r\n" and a lone "\r" as one line end each; the offsets of its line numbers must too."""
    source = newline.join(["# Title", "", "First para.", "", "- item one", "- item two", "", "| a | b |", "|---|---|",
                           "| 1 | 2 |", "", "Last para."])
    segments = segment_markdown(source, Settings()).segments
    assert [s.text.split()[0] for s in segments] == ["Title", "First", "item", "a", "Last"]
    for seg in segments:
        assert source[seg.position:].lstrip("#-| ").startswith(seg.text.split()[0]), (seg, source[seg.position:][:20])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "é", " ", "\n", "\r", "\r\n", "\u2028", "\x0b", "#"]), max_size=40).map("".join))
def test_line_starts_count_lines_as_markdown_it_does(text: str) -> None:
    # Only "\r\n", a lone "\r" and "\n" end a line (LINE_END); "\u2028" and "\v" do not, as str.splitlines says.
    expected = [0] + [m.end() for m in re.finditer(LINE_END, text)]
    assert markdown._line_starts(text) == expected
    assert markdown._line_starts(text.replace("\r", "")) == [0] + [i + 1 for i, c in enumerate(text.replace("\r", ""))
                                                                   if c == "\n"]
