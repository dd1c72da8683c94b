"""Invariants of the HTML segmenter on generated markup (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import html_markup

from qatbe import SegmentKind, Settings
from qatbe.segmentation.html import segment_html

_TAGS = ["div", "p", "span", "a", "ul", "li", "ol", "table", "tr", "td", "th", "h2", "pre", "nav", "article",
         "blockquote", "section", "em", "b", "br", "dl", "dt", "dd", "main", "footer", "figure", "figcaption"]
_ATTRS = ["", ' class="nav"', ' class="content"', ' hidden', ' style="display:none"', ' colspan="3"',
          ' rowspan="2"', ' class="language-py"', ' role="main"', ' aria-hidden="true"']
_WORDS = ["alpha", "beta", "gamma", "&amp;", "δέλτα", "  ", "\n", "1,5", "x|y", "1 < 2", "&nbsp;",
          "<?php echo 1 ?>", "<![CDATA[c]]>", "<!-- note -->"]


markup = html_markup(_TAGS, _ATTRS, _WORDS, 60,
                     tail="<script>var secretScript = 1;</script><style>.secretStyle{}</style>")


@settings(max_examples=150, deadline=None)
@given(markup)
def test_segments_are_sane_and_deterministic(html: str) -> None:
    doc = segment_html(html, Settings())
    assert doc == segment_html(html, Settings())
    # Spans lie in the page; they increase in document order except where the walk emits a block after blocks
    # that follow it in the source (a list after the blocks nested in its items): tests/test_spans.py.
    assert all(0 <= s.start <= s.end <= len(html) for s in doc.segments)
    for segment in doc.segments:
        assert segment.text.strip()
        assert "secretScript" not in segment.text and "secretStyle" not in segment.text
        if segment.kind is SegmentKind.TABLE:
            rows = segment.markdown.splitlines()
            widths = {row.count(" | ") for row in rows if row.startswith("| ")}
            assert len(widths) <= 1  # every rendered row has the same number of cells


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["alpha beta.", "gamma delta epsilon zeta eta theta iota kappa.", "eta"]),
                min_size=1, max_size=30))
def test_text_of_plain_paragraphs_survives(paragraphs: list[str]) -> None:
    html = "<body><main>" + "".join(f"<p>{p}</p>" for p in paragraphs) + "</main></body>"
    kept = [s.text for s in segment_html(html, Settings()).segments if s.kind is not SegmentKind.NAVIGATION]
    # Repeated lines may be dropped as repeats; every distinct line survives at least once.
    assert set(kept) >= {p for p in paragraphs if len(p) >= 30} and set(paragraphs) >= set(kept)
