"""``lexbor_dom.MetadataSource`` (C walks over Lexbor's nodes) answers what ``html_metadata.CssSource``
(selectolax's CSS queries) answers, so ``read_metadata`` gives the same metadata through either."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser
from strategies import html_markup

from qatbe.segmentation.html_metadata import (
    _MAX_BODY_NODES,
    _META_KEYS,
    CssSource,
    PageFacts,
    read_from,
    read_metadata,
)

try:
    from qatbe.segmentation import lexbor_nodes
    from qatbe.segmentation.lexbor_dom import MetadataSource

    FAST = lexbor_nodes.available()
except ImportError:
    FAST = False

pytestmark = pytest.mark.skipif(not FAST, reason="the compiled Lexbor access is not available here")


def _node(node: Any) -> tuple[object, ...] | None:
    if node is None:
        return None
    chain = []
    parent = node.parent
    while parent is not None and len(chain) < 70:
        chain.append(parent.tag if parent.tag and parent.tag[0] != "-" else None)
        parent = parent.parent
    return node.tag, node.tag_id, node.attributes, node.text(deep=True), tuple(chain)


def _answers(source: Any) -> tuple[object, ...]:
    picks = source.body_picks(_MAX_BODY_NODES)
    return (source.head(_META_KEYS), source.jsonld_texts(), source.language(), source.page_types(),
            source.first_h1_text(),
            [_node(n) for n in picks], [_node(source.itemprop_name(n)) if n is not None else None for n in picks],
            [_node(n) for n in source.body_picks(3)])


def _same(html: str) -> None:
    tree = LexborHTMLParser(html)
    assert _answers(MetadataSource(tree)) == _answers(CssSource(tree))
    eager = read_metadata(tree)
    assert read_from(MetadataSource(tree)) == eager
    # What the segmenter keeps of the page reads the same, and tells its language and kind at once.
    facts = PageFacts(MetadataSource(tree))
    assert read_from(facts) == eager
    assert facts.page_language == eager.language
    assert facts.discussion is (eager.extra.get("page_kind") == "discussion")


_TAGS = ["head", "body", "meta", "title", "link", "script", "a", "time", "h1", "div", "p", "article", "main", "span",
         "svg", "math", "template", "noscript", "iframe", "foreignObject"]
_ATTRS = ["", ' name="description" content="A page"', ' property="og:title" content=" T "', ' name="AUTHOR"',
          ' itemprop="datePublished" content="2024-05-01"', ' http-equiv="content-language" content="de"',
          ' rel="canonical" href="https://e.x/a"', ' rel="Canonical stylesheet" href="/b"', ' rel="author"',
          ' type="application/ld+json"', ' type="Application/LD+JSON"', ' type="text/javascript"',
          ' itemprop="author"', ' itemprop="NAME"', ' itemprop', ' datetime="2023-01-02"', ' class="pubdate"',
          ' lang="fr"', ' name="" property="og:url" content="u"', ' content=""',
          ' itemscope itemtype="https://schema.org/QAPage"', ' itemtype=""']
_WORDS = ["alpha", "2024-03-04", '{"@type": "NewsArticle", "headline": "H", "datePublished": "2022-02-02"}',
          "By Jo Poe", "é", "  ", "Site | Name"]
markup = html_markup(_TAGS, _ATTRS, _WORDS, 60)


@settings(max_examples=400, deadline=None)
@given(markup)
def test_same_answers_on_generated_pages(html: str) -> None:
    _same(html)


# Attribute values that the C side reads on its ASCII path and hands to Python's str methods otherwise: keys and
# tokens in any case, with ASCII and Unicode whitespace around them (a no-break space, an information separator),
# the Kelvin sign (lower-cased to "k"), "&" (a content that may clean to nothing), non-ASCII text.
_PIECES = ["author", "Author", "datePublished", "DATECREATED", "og:title", "OG:Description", "description",
           "keywords", "canonical", "Canonical", "publish", "post-date", "Entry-Date", "nofollow", "2024-01-02",
           "application/ld+json", " ", "\t", "\n", "\xa0", "\x1c", "\u2003", "\u212a", "&amp;", "&nbsp;", "&", "é",
           "x", "", "ke", "ywords", "https://schema.org/QAPage"]
_NAMES = ["property", "name", "itemprop", "http-equiv", "content", "rel", "class", "datetime", "pubdate", "lang",
          "href", "type", "itemtype"]
_ELEMENTS = ["meta", "link", "time", "a", "span", "article", "main", "head", "body", "title", "script", "html", "h1"]


@st.composite
def _attribute_pages(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 25))):
        tag = draw(st.sampled_from(_ELEMENTS))
        attrs = []
        for name in draw(st.lists(st.sampled_from(_NAMES), max_size=4, unique=True)):
            if draw(st.integers(0, 5)) == 0:
                attrs.append(f" {name}")  # no value: selectolax's None
            else:
                value = "".join(draw(st.lists(st.sampled_from(_PIECES), max_size=4)))
                attrs.append(f' {name}="{value}"')
        parts.append(f"<{tag}{''.join(attrs)}>{draw(st.sampled_from(_WORDS))}")
        if draw(st.booleans()):
            parts.append(f"</{draw(st.sampled_from(_ELEMENTS))}>")
    return "".join(parts)


@settings(max_examples=400, deadline=None)
@given(_attribute_pages())
def test_same_answers_on_generated_attribute_values(html: str) -> None:
    _same(html)


def test_same_answers_on_edge_pages() -> None:
    for html in ("", "<html></html>", "text", "<!-- c -->", "<head></head>", "<title>a</title><title>b</title>",
                 "<svg><title>s</title><a rel=x>l</a></svg><math><time>t</time></math>"):
        _same(html)


@pytest.mark.corpora
def test_same_answers_on_real_pages(corpora: Path) -> None:
    files = sorted((corpora / "wcxb" / "html").glob("*.html.gz"))[:40]
    files += sorted((corpora / "scrapinghub-aeb" / "html").glob("*.html.gz"))[:20]
    if not files:
        pytest.skip("no pages found under the corpora")
    for file in files:
        _same(gzip.decompress(file.read_bytes()).decode("utf-8", "replace"))

