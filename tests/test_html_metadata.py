"""Document metadata from <title>, <meta>, <link rel=canonical>, <html lang>, JSON-LD and bylines."""

from __future__ import annotations

from qatbe import Settings
from qatbe.segmentation.html import segment_html


def _meta(html: str):  # type: ignore[no-untyped-def]
    return segment_html(html, Settings()).metadata


def test_jsonld_graph_with_author_list() -> None:
    html = """<html lang="en-GB"><head><title>Site | Story</title>
    <link rel="canonical" href="https://example.org/story">
    <script type="application/ld+json">{"@context": "https://schema.org", "@graph": [
      {"@type": "WebSite", "name": "Example"},
      {"@type": ["NewsArticle"], "headline": "The story", "datePublished": "2024-02-03",
       "author": [{"@type": "Person", "name": "A. Writer"}, {"name": "B. Editor"}]}]}</script>
    </head><body><p>Body text.</p></body></html>"""
    meta = _meta(html)
    assert meta.author == "A. Writer, B. Editor"
    assert meta.date == "2024-02-03"
    assert meta.language == "en-GB"
    assert meta.url == "https://example.org/story"
    assert meta.title == "The story"
    assert meta.extra["html_title"] == "Site | Story"


def test_meta_tags_and_opengraph() -> None:
    html = """<html><head><title>T</title>
    <meta name="author" content="Jo Bloggs"><meta name="description" content="What it is about.">
    <meta property="article:published_time" content="2023-01-01T10:00:00Z">
    <meta property="og:url" content="https://example.org/a"></head><body><p>x</p></body></html>"""
    meta = _meta(html)
    assert (meta.author, meta.description, meta.date, meta.url, meta.title) == (
        "Jo Bloggs", "What it is about.", "2023-01-01T10:00:00Z", "https://example.org/a", "T")


def test_broken_jsonld_is_ignored() -> None:
    html = '<head><script type="application/ld+json">{"@type": "Article", "author": </script></head><p>x</p>'
    assert _meta(html).author is None


def test_byline_fills_a_missing_author_and_stays_in_the_text() -> None:
    html = "<body><article><h1>T</h1><p class='byline'>By Sam Poe</p><p>Text of the piece.</p></article></body>"
    doc = segment_html(html, Settings())
    assert doc.metadata.author == "Sam Poe"
    assert any(s.text == "By Sam Poe" and s.kind.value == "metadata" for s in doc.segments)


def test_scripts_never_become_text_but_jsonld_is_read() -> None:
    html = ('<head><script type="application/ld+json">{"@type":"Article","headline":"H"}</script></head>'
            "<body><script>var secret = 1;</script><p>Visible.</p></body>")
    doc = segment_html(html, Settings())
    assert doc.metadata.title == "H"
    assert all("secret" not in s.text and "Article" not in s.text for s in doc.segments)


def test_canonical_link_is_the_first_whose_rel_is_canonical() -> None:
    html = """<html><head><link rel="stylesheet" href="/a.css"><link rel="canonicalize" href="/no">
    <link rel=" CANONICAL " href="https://example.org/yes"><link rel="canonical" href="/later"></head>
    <body><p>Body text.</p></body></html>"""
    assert _meta(html).url == "https://example.org/yes"
