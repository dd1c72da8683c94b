"""Segmenter throughput (MB/s in ``extra_info``): HTML with Lexbor and markdown with markdown-it-py."""

from __future__ import annotations

import pytest
from conftest import html_inputs, markdown_inputs, mb_per_s
from selectolax.lexbor import LexborHTMLParser

import qatbe

HTML = html_inputs()
MARKDOWN = markdown_inputs()


@pytest.mark.parametrize(("label", "html"), HTML, ids=[label for label, _ in HTML])
def test_parse_floor(benchmark: object, label: str, html: str) -> None:
    """The Lexbor parse alone: the floor the HTML segmenter is measured against."""
    benchmark(LexborHTMLParser, html)  # type: ignore[operator]
    mb_per_s(benchmark, len(html.encode("utf-8")))


@pytest.mark.parametrize(("label", "html"), HTML, ids=[label for label, _ in HTML])
def test_segment_html(benchmark: object, label: str, html: str) -> None:
    segments = benchmark(qatbe.segment, html, format="html")  # type: ignore[operator]
    assert segments
    mb_per_s(benchmark, len(html.encode("utf-8")))


@pytest.mark.parametrize(("label", "markdown"), MARKDOWN, ids=[label for label, _ in MARKDOWN])
def test_segment_markdown(benchmark: object, label: str, markdown: str) -> None:
    segments = benchmark(qatbe.segment, markdown, format="markdown")  # type: ignore[operator]
    assert segments
    mb_per_s(benchmark, len(markdown.encode("utf-8")))
