"""Document metadata from <title>, <meta>, <link rel=canonical>, <html lang>, JSON-LD and bylines."""

from __future__ import annotations

import re

import pytest
from selectolax.lexbor import LexborHTMLParser

from qatbe import Settings
from qatbe.segmentation.html import segment_html
from qatbe.segmentation.html_metadata import read_metadata


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
        "Jo Bloggs", "What it is about.", "2023-01-01T10:00:00+00:00", "https://example.org/a", "T")


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


def _page(head: str = "", body: str = "<p>Body text of the page.</p>") -> str:
    return f"<html><head>{head}</head><body>{body}</body></html>"


def test_a_blank_meta_does_not_hide_a_later_one() -> None:
    head = ('<meta name="description" content="   "><meta name="description" content="&amp;nbsp;">'
            '<meta name="description" content="The real one."><meta name="description" content="Not this.">'
            '<meta name="viewport" content="width=device-width">')
    assert _meta(_page(head)).description == "The real one."


def test_meta_read_in_order_of_preference_whatever_the_document_order() -> None:
    head = ('<meta property="og:description" content="OG text"><meta name="twitter:description" content="TW">'
            '<meta name="description" content="  Plain\n  text  ">')
    assert _meta(_page(head)).description == "Plain text"
    assert _meta(_page('<meta name="twitter:description" content="TW">')).description == "TW"


def test_long_values_are_cleaned_as_a_whole_would_be() -> None:
    long_text = ("word \n\t " * 900) + "  end"
    meta = _meta(_page(f'<meta name="description" content="{long_text}">'))
    assert meta.description == re.sub(r"\s+", " ", long_text).strip()[:1000]
    spaced = " " * 3000 + "short"  # the head of the value cleans to nothing: the whole value is cleaned
    assert _meta(_page(f'<meta name="description" content="{spaced}">')).description == "short"


def test_first_title_and_first_canonical_among_metas() -> None:
    head = ('<meta name="a" content="b"><link rel="canonical nofollow" href="/no"><title>First</title>'
            '<meta name="c" content="d"><link rel="Canonical" href="https://example.org/1"><title>Second</title>'
            '<link rel="canonical" href="https://example.org/2">')
    meta = _meta(_page(head))
    assert (meta.title, meta.url) == ("First", "https://example.org/1")


def test_jsonld_fields_skip_blank_values() -> None:
    ld = ('[{"@type": "Article", "headline": "  ", "description": 7, "url": ""},'
          ' {"@type": "NewsArticle", "headline": "Real\\nheadline", "description": "D", "url": "https://e.org/x"}]')
    meta = _meta(_page(f'<script type="application/ld+json">{ld}</script>'))
    assert (meta.title, meta.description, meta.url) == ("Real headline", "D", "https://e.org/x")


def test_dates_are_iso_and_keep_the_page_text() -> None:
    meta = _meta(_page('<script type="application/ld+json">{"@type": "BlogPosting", "datePublished": "Jun 24, 2024"}'
                       "</script>"))
    assert meta.date == "2024-06-24"
    assert meta.extra["date_text"] == "Jun 24, 2024"
    iso = _meta(_page('<meta property="article:published_time" content="2024-06-24">'))
    assert iso.date == "2024-06-24" and "date_text" not in iso.extra


def test_published_beats_modified_which_is_only_a_fallback() -> None:
    ld = '{"@type": "Article", "dateModified": "2025-03-05", "datePublished": "2025-01-01T03:00:00"}'
    meta = _meta(_page(f'<script type="application/ld+json">{ld}</script>'))
    assert (meta.date, meta.extra["modified"]) == ("2025-01-01T03:00:00", "2025-03-05")
    only = _meta(_page('<meta property="article:modified_time" content="2025-03-05T12:00:00Z">'))
    assert only.date == "2025-03-05T12:00:00+00:00"


def test_an_unreadable_date_falls_through_to_the_next_source() -> None:
    head = ('<script type="application/ld+json">{"@type": "Article", "datePublished": "\\\\"}</script>'
            '<meta property="article:published_time" content="2025-12-17T13:22:47Z">')
    assert _meta(_page(head)).date == "2025-12-17T13:22:47+00:00"


def test_jsonld_main_entity_is_read() -> None:
    ld = ('{"@type": "QAPage", "mainEntity": {"@type": "Question", "name": "Q?", "dateCreated": "2023-08-13 13:21",'
          ' "author": {"@type": "Person", "name": "AtlanG"}}}')
    meta = _meta(_page(f'<script type="application/ld+json">{ld}</script>'))
    assert (meta.date, meta.author) == ("2023-08-13T13:21:00", "AtlanG")


@pytest.mark.parametrize(("body", "date"), [
    ('<article><p>Text.</p><span itemprop="datePublished" content="2006-08-08T22:13+00:00">Aug</span></article>',
     "2006-08-08T22:13:00+00:00"),
    ('<div><time class="entry-date published" datetime="2024-04-02T10:20:00+00:00">Apr 2</time></div>',
     "2024-04-02T10:20:00+00:00"),
    (('<aside><time datetime="2020-01-01">old</time></aside><article><p>x</p><time datetime="2023-09-01">Sep 1</time>'
     "</article>"), "2023-09-01"),
    ('<article><time datetime="bad">17. Dezember 2025</time><p>x</p></article>', "2025-12-17"),
])
def test_body_markup_gives_the_date_when_head_has_none(body: str, date: str | None) -> None:
    assert _meta(_page(body=body)).date == date


def test_a_time_outside_article_is_not_the_date_unless_the_page_is_a_discussion() -> None:
    body = '<div><time datetime="2024-09-11T16:36:25+00:00">11. Sep 2024</time><p>First post.</p></div>'
    assert read_metadata(LexborHTMLParser(_page(body=body))).date is None
    forum = '<meta property="og:type" content="forum">'
    assert read_metadata(LexborHTMLParser(_page(forum, body))).date == "2024-09-11T16:36:25+00:00"


def test_the_first_time_anywhere_is_the_last_resort() -> None:
    """A page that marks no main text and no discussion (a link aggregator's story) still dates its post with its
    first ``<time>``: after every other source, the modification date included."""
    body = ('<div><a href="/u/val">val</a> <time datetime="2024-08-12 10:00:23">1 year ago</time></div>'
            '<p>The story text, long enough to be the page.</p><time datetime="2025-01-01">a reply</time>')
    meta = _meta(_page(body=body))
    assert (meta.date, meta.extra["first_time"]) == ("2024-08-12T10:00:23", "2024-08-12T10:00:23")
    modified = _meta(_page('<meta property="article:modified_time" content="2025-03-05">', body))
    assert (modified.date, modified.extra["first_time"]) == ("2025-03-05", "2024-08-12T10:00:23")
    dateline = _meta(_page(body="<h1>Story</h1><p>May 25, 2023</p>" + body))
    assert dateline.date == "2023-05-25"
    published = _meta(_page('<meta property="article:published_time" content="2022-02-02">', body))
    assert (published.date, "first_time" in published.extra) == ("2022-02-02", False)  # not searched for


def test_dateline_near_the_title_gives_a_date_and_a_sentence_does_not() -> None:
    body = "<main><h1>Sleep training</h1><p>May 25, 2023</p><p>Body text of the article goes here.</p></main>"
    assert _meta(_page(body=body)).date == "2023-05-25"
    sentence = ("<main><h1>History</h1><p>The bridge that opened on May 25, 2023 was the longest one built in "
                "the region for a century, and it carried trains.</p></main>")
    assert _meta(_page(body=sentence)).date is None


def test_byline_gives_author_and_date() -> None:
    body = ("<article><h1>T</h1><p class='byline'>By Sam Poe · Updated Mar 5, 2025</p>"
            "<p>Text of the piece.</p></article>")
    meta = _meta(_page(body=body))
    assert (meta.author, meta.date, meta.extra["date_text"]) == ("Sam Poe", "2025-03-05",
                                                                 "By Sam Poe · Updated Mar 5, 2025")


def test_body_author_microdata_and_rel_author() -> None:
    micro = '<article><span itemprop="author"><span itemprop="name">Jon Foster</span></span><p>x</p></article>'
    assert _meta(_page(body=micro)).author == "Jon Foster"
    link = '<article><a rel="author" href="/u/kev">Kev</a><p>x</p></article>'
    assert _meta(_page(body=link)).author == "Kev"
    assert _meta(_page('<meta name="author" content="https://example.org/kev">')).author is None


@pytest.mark.parametrize(("head", "body", "title"), [
    (('<title>Managing dependencies - The Go Programming Language</title>'
     '<meta property="og:site_name" content="The Go Programming Language">'), "", "Managing dependencies"),
    ('<title>Turning off all LED of RPi 5 - Raspberry Pi Forums</title>', "<h1>Turning off all LED of RPi 5</h1>",
     "Turning off all LED of RPi 5"),
    ('<title>Pricing | Loom</title><link rel="canonical" href="https://www.loom.com/pricing">', "", "Pricing"),
    ('<title>Sheets for Every Bed | Soft &amp; Durable</title>', "<h1>All Sheets</h1>",
     "Sheets for Every Bed | Soft & Durable"),
    ('<title>Create &amp;#038; Market Tours</title>', "", "Create & Market Tours"),
])
def test_title_drops_the_site_name_part(head: str, body: str, title: str) -> None:
    assert _meta(_page(head, body + "<p>Body text.</p>")).title == title


def test_faq_questions_are_not_the_page_title() -> None:
    ld = ('{"@type": "FAQPage", "mainEntity": [{"@type": "Question", "name": "Which shirt is best?",'
          ' "dateCreated": "2020-01-01"}]}')
    meta = _meta(_page(f'<title>T-Shirts &amp; Tops</title><script type="application/ld+json">{ld}</script>'))
    assert (meta.title, meta.date) == ("T-Shirts & Tops", None)


@pytest.mark.parametrize(("byline", "author"), [
    ("<p class='author'>Andrew Gerrand<br>4 August 2010</p>", "Andrew Gerrand"),  # marked: a bare name counts
    ("<div class='byline'><p>Text by Hunter Dukes</p></div>", "Hunter Dukes"),
    ("<p class='byline'>Sun Dec 17, 2023</p>", None),  # a date is not a name
    ("<p class='byline'>5 min read</p>", None),
    # the date's month cut off the name: the first digit ends the byline, the month before it goes too
    ("<div class='byline'>By <a href='/p/sm'>Steven Mufson</a> <span>March 18 at 12:22 PM</span></div>",
     "Steven Mufson"),
    ("<p class='byline'>By Jo Poe, Monday, March 18, 2024</p>", "Jo Poe"),
    ("<p class='byline'>By April Smith 12 May 2024</p>", "April Smith"),
    ("<p class='byline'>By Jo Poe » Sat Dec 12, 2020</p>", "Jo Poe"),  # a phpBB post header
    ("<p class='byline'>Von Max Muster am 12.03.2021</p>", "Max Muster"),  # "by" and "on" in German
    ("<p class='byline'>Par Jeanne Roux le 12 mars 2021</p>", "Jeanne Roux"),
    ("<p class='byline'>By Dana Kim, Senior Staff Technologist, Speech, Privacy, and Technology Project</p>",
     "Dana Kim"),  # too long for a name: cut at the first comma
])
def test_byline_names(byline: str, author: str | None) -> None:
    body = f"<article><h1>Title</h1>{byline}<p>Text of the piece, long enough to be the body.</p></article>"
    assert _meta(_page(body=body)).author == author


def test_a_bare_name_in_an_unmarked_line_is_not_an_author() -> None:
    body = "<article><h1>Title</h1><p>Andrew Gerrand</p><p>Text of the piece.</p></article>"
    assert _meta(_page(body=body)).author is None


@pytest.mark.parametrize("kind", ["QAPage", "DiscussionForumPosting", "SocialMediaPosting", '["Thing", "QAPage"]'])
def test_discussion_types_mark_the_page(kind: str) -> None:
    value = kind if kind.startswith("[") else f'"{kind}"'
    meta = _meta(_page(f'<script type="application/ld+json">{{"@type": {value}}}</script>'))
    assert meta.extra.get("page_kind") == "discussion"
    assert "page_kind" not in _meta(_page('<script type="application/ld+json">{"@type": "Organization"}</script>')).extra


@pytest.mark.parametrize(("html", "discussion"), [
    ('<html itemscope itemtype="https://schema.org/QAPage"><body><p>Q</p></body></html>', True),
    ('<html><body itemscope itemtype="http://schema.org/DiscussionForumPosting"><p>Q</p></body></html>', True),
    # A type on an inner element is a part's: a product page's FAQ marks its questions and answers.
    ('<html><body><div itemscope itemtype="https://schema.org/QAPage"><p>Q</p></div></body></html>', False),
    ('<html itemscope itemtype="https://schema.org/Product"><body><p>Q</p></body></html>', False),
])
def test_the_page_microdata_type_marks_a_discussion(html: str, discussion: bool) -> None:
    assert (_meta(html).extra.get("page_kind") == "discussion") is discussion


def test_a_head_cut_short_is_read_on_into_the_body() -> None:
    # An <iframe> in the head ends it: the parser puts the <title> and <meta>s after it into the body. An icon's
    # <title> in the body comes first and is not the page's.
    html = ('<html><head><script src="a.js"></script><iframe src="x"></iframe>'
            '<title>The story</title><meta name="description" content="What it says.">'
            '<meta property="og:url" content="https://example.org/story"></head>'
            '<body><p>Text of the story.</p></body></html>')
    meta = _meta(html.replace("<script", '<svg><title>Search icon</title></svg><script', 1))
    assert (meta.title, meta.description, meta.url) == ("The story", "What it says.", "https://example.org/story")


def test_a_head_with_a_title_is_not_read_on_into_the_body() -> None:
    html = ('<html><head><title>The story</title></head><body><p>Text.</p>'
            '<meta name="description" content="An embedded card\'s description."></body></html>')
    assert _meta(html).description is None


@pytest.mark.parametrize(("value", "author"), [
    ("facebook.com/vegolosi", None),  # what Facebook's article:author often holds
    ("www.example.org/people/jane-doe", None),
    ("https://example.org/jane", None),
    ("Vegolosi.it", "Vegolosi.it"),  # a site named as the author is how the page names it
    ("AC/DC", "AC/DC"),
    ("Jane Doe / Reuters", "Jane Doe / Reuters"),
])
def test_web_addresses_are_not_author_names(value: str, author: str | None) -> None:
    html = f'<html><head><title>T</title><meta property="article:author" content="{value}"></head><body></body></html>'
    assert _meta(html).author == author


_ARTICLE = "<main><article><h1>Title</h1>" + "".join(
    f"<p>Paragraph {i} of the piece, long enough to be read as the text of the article itself.</p>"
    for i in range(8)) + "</article></main>"


@pytest.mark.parametrize(("box", "author"), [
    ('<div class="post-author"><p>Jane Doe</p></div>', "Jane Doe"),  # named for an author: a bare name counts
    ('<div class="post-meta"><p>By Jane Doe</p></div>', "Jane Doe"),
    ('<div class="release_date"><p>Release Date:</p><p>5 Dec, 2019</p></div>', None),  # a label, not a name
    ('<div class="post-author"><p>Autoreninfo</p></div>', None),  # one word: a label too
])
def test_a_byline_pruned_from_the_text_still_names_the_author(box: str, author: str | None) -> None:
    # The box sits outside the <main> that holds the article, so the main-text rules leave it out of the text.
    meta = segment_html(f"<html><body>{_ARTICLE}<div class='sidebar-x'>{box}</div></body></html>", Settings())
    assert all("Jane Doe" not in s.text for s in meta.segments if s.kind.value != "navigation")
    assert meta.metadata.author == author


def test_a_pruned_byline_comes_after_the_page_own_lines() -> None:
    body = (_ARTICLE.replace("<h1>Title</h1>", "<h1>Title</h1><p class='byline'>By Ann Lee</p>")
            + '<div class="post-author"><p>Jane Doe</p></div>')
    assert _meta(f"<html><body>{body}</body></html>").author == "Ann Lee"
