"""Truncation of one segment: markers counted, never inside a code line or a table row (seed 000)."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import qatbe
from qatbe.render import SEPARATOR, block
from qatbe.select.truncate import MARK_END, MARK_MIDDLE, truncate
from qatbe.tokens import chars_div4, words

common = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
STRATEGIES = ["truncate_end", "truncate_middle"]

CODE = "```python\n" + "\n".join(f"value_{i} = compute({i}, 'x')  # step {i}" for i in range(40)) + "\n```"
TABLE = "| Name | Fee |\n|---|---|\n" + "\n".join(f"| item number {i} | {i * 7} crowns |" for i in range(40))
PROSE = " ".join(f"Sentence {i} says something useful about renewals." for i in range(15))
LIST = "\n".join(f"- list item {i} with a few words" for i in range(40))


def one(source: str) -> qatbe.Segment:
    return qatbe.segment(source, max_segment_tokens=4000)[0]


@common
@given(st.sampled_from([CODE, TABLE, PROSE, LIST]), st.integers(0, 500), st.sampled_from(STRATEGIES),
       st.sampled_from(["markdown", "text"]), st.sampled_from([chars_div4, words]))
def test_cut_copy_fits_the_limit_with_its_marker(source: str, limit: int, strategy: str, fmt: str,
                                                 estimate: object) -> None:
    seg = one(source)
    cut = truncate(seg, limit, estimate, strategy, fmt)  # type: ignore[arg-type]
    if cut is None:
        return
    out = block(cut, fmt)
    assert estimate(out + SEPARATOR) <= limit  # type: ignore[operator]
    assert (MARK_MIDDLE if strategy == "truncate_middle" else MARK_END) in out
    assert len(out) < len(block(seg, fmt)) + len(MARK_MIDDLE) + 200


@common
@given(st.integers(20, 400), st.sampled_from(STRATEGIES))
def test_code_is_cut_between_whole_lines_and_keeps_its_fence(limit: int, strategy: str) -> None:
    seg = one(CODE)
    cut = truncate(seg, limit, chars_div4, strategy)
    if cut is None:
        return
    original = set(seg.text.split("\n"))
    fences = cut.markdown.count("```")
    assert fences % 2 == 0 and fences >= 2
    body = [ln for ln in cut.markdown.split("\n") if not ln.startswith("```") and ln not in (MARK_END, MARK_MIDDLE)]
    assert body and all(ln in original for ln in body)


@common
@given(st.integers(20, 400), st.sampled_from(STRATEGIES))
def test_tables_keep_their_header_and_whole_rows(limit: int, strategy: str) -> None:
    seg = one(TABLE)
    cut = truncate(seg, limit, chars_div4, strategy)
    if cut is None:
        return
    rows = set(seg.markdown.split("\n"))
    lines = [ln for ln in cut.markdown.split("\n") if ln and ln not in (MARK_END, MARK_MIDDLE)]
    assert lines[0] == "| Name | Fee |" and all(ln in rows for ln in lines)
    assert all(re.fullmatch(r"\|.*\|", ln) for ln in lines)


def test_prose_end_and_middle_markers() -> None:
    seg = one(PROSE)
    end = truncate(seg, 40, chars_div4, "truncate_end")
    middle = truncate(seg, 40, chars_div4, "truncate_middle")
    assert end is not None and end.text.startswith("Sentence 0") and end.text.endswith(MARK_END)
    assert middle is not None and middle.text.startswith("Sentence 0") and middle.text.endswith("renewals.")
    assert MARK_MIDDLE in middle.text


def test_headings_and_tiny_limits_are_not_cut() -> None:
    heading = qatbe.segment("# A rather long heading about renewal fees and forms")[0]
    assert truncate(heading, 5, chars_div4, "truncate_end") is None
    assert truncate(one(PROSE), 3, chars_div4, "truncate_end") is None
    with pytest.raises(ValueError):
        truncate(one(PROSE), 30, chars_div4, "drop")


@pytest.mark.parametrize("source", [CODE, TABLE, PROSE, LIST])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_kind_can_be_cut_to_a_middling_limit(source: str, strategy: str) -> None:
    seg = one(source)
    cut = truncate(seg, seg.tokens // 2, chars_div4, strategy)
    assert cut is not None and seg.tokens // 4 < chars_div4(block(cut) + SEPARATOR) <= seg.tokens // 2
