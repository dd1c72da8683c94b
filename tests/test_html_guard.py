"""limit_nesting: pages are returned as they are unless their nesting could hurt the parser."""

from __future__ import annotations

from qatbe.segmentation.html_guard import limit_nesting


def test_ordinary_pages_come_back_as_the_same_object() -> None:
    short = "<div>" * 5_000 + "x"  # deep, but too short to hold 20,000 tags: left alone by design
    assert limit_nesting(short) is short
    long_but_flat = "<p>" + "word " * 50_000 + "</p>"
    assert limit_nesting(long_but_flat) is long_but_flat
    many_shallow = "<p>x</p>" * 30_000
    assert limit_nesting(many_shallow) is many_shallow


def test_deep_nesting_is_flattened_beyond_the_limit_and_text_kept() -> None:
    html = "<div>" * 30_000 + "deep text" + "</div>" * 30_000
    out = limit_nesting(html)
    assert out.count("<div>") == 1_500 and out.count("</div>") == 1_500 and "deep text" in out
    assert limit_nesting(html, max_depth=40_000) is html
