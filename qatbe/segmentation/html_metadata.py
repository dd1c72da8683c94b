"""Document metadata from ``<title>``, ``<meta>``, ``<link rel=canonical>``, ``<html lang>``, JSON-LD and microdata.

It must run before scripts are stripped (JSON-LD lives in ``<script type="application/ld+json">``). Sources are
tried in order of how deliberate they are: JSON-LD and OpenGraph are written for machines, ``<title>`` often carries
the site name, and a byline in the text is the last resort (the segmenter passes it in).

Dates are ISO 8601 (``dates.parse_date``); the page's own text is kept in ``extra["date_text"]`` when it differs.
Publication dates, in order: JSON-LD ``datePublished``/``dateCreated``/``uploadDate``; ``<meta>`` such as
``article:published_time``; an element marked ``itemprop=datePublished`` or a ``<time>`` whose class says
"publish"; the first ``<time datetime>`` inside ``<article>``/``<main>`` (on a discussion page, the first on the
page: the opening post's); then (in the segmenter) a byline's date; only then the modification date, and last the
first ``<time datetime>`` anywhere on the page. The body is searched only when the machine-written sources have
no date, so most pages pay nothing for it.

Titles lose a site-name part ("How to X | Example Blog" → "How to X") when a part separated by `` | ``, `` - ``,
`` – ``, `` — ``, `` • `` or `` :: `` is the site's name (``og:site_name`` or the host name) or the other part is
the page's first ``<h1>``.
"""

from __future__ import annotations

import html as _html
import json
import re
from collections.abc import Iterable
from dataclasses import replace
from itertools import chain
from typing import Any
from urllib.parse import urlsplit

from selectolax.lexbor import LexborHTMLParser

from ..types import Metadata
from .dates import MONTH_NAMES, parse_date

_ARTICLE_TYPES = ("article", "posting", "report", "webpage", "page", "review", "recipe", "product", "question",
                  "howto", "event", "course", "videoobject")
_MAX_JSONLD_CHARS = 1_000_000
# JSON-LD types that say the page is a discussion: its comments and answers are the content.
_DISCUSSION_TYPES = ("qapage", "discussionforumposting", "socialmediaposting")
_MAX_JSONLD_NODES = 5_000
# A JSON escape of a control character (backslash, u0001) or of a surrogate: the source's own control characters
# are gone (``qatbe.source``), the ones JSON writes as escapes are taken out here, with the same replacements; a
# surrogate escape becomes U+FFFD unless it is half of a pair. An escaped backslash before the "u" is no escape.
_CONTROL_CODE = r"00[01][0-9a-fA-F]|007[fF]|008[0-9a-fA-F]|009[0-9a-fA-F]"
_HIGH_SURROGATE = r"[dD][89abAB][0-9a-fA-F]{2}"
_LOW_SURROGATE = r"[dD][c-fC-F][0-9a-fA-F]{2}"
_JSON_ESCAPE = re.compile(
    rf"(?<!\\)((?:\\\\)*)\\u({_CONTROL_CODE}|{_HIGH_SURROGATE}(?:\\u{_LOW_SURROGATE})?|{_LOW_SURROGATE})"
)
# Whether ``_JSON_ESCAPE`` can match at all: an escape of one of the same codes, wherever it stands. Its look-behind
# makes the regex engine try every position of a script (about 30 us for a 1 KB one); this search starts with a
# literal backslash-u, which the engine jumps between, so a script with no such escape (nearly all) costs ~0.5 us.
_JSON_ESCAPE_CANDIDATE = re.compile(rf"\\u(?:{_CONTROL_CODE}|{_HIGH_SURROGATE}|{_LOW_SURROGATE})")
# "Does the type name one of these?" as one regex search (the same substring test as a loop over the tuple).
_ARTICLE_KIND = re.compile("|".join(_ARTICLE_TYPES))
_DISCUSSION_KIND = re.compile("|".join(_DISCUSSION_TYPES))
_LD_FIELDS = (("headline", "title"), ("name", "title"), ("description", "description"), ("url", "url"))
_JSONLD_SELECTOR = 'script[type="application/ld+json"]'


_PUBLISHED_META = ("article:published_time", "datepublished", "og:published_time", "og:publish_date",
                   "article:published", "publish_date", "publish-date", "pubdate", "date", "dc.date",
                   "dc.date.issued", "dc.date.created", "dcterms.date", "dcterms.issued", "dcterms.created",
                   "citation_publication_date", "citation_date", "parsely-pub-date", "sailthru.date", "ms.date")
_MODIFIED_META = ("article:modified_time", "og:updated_time", "datemodified", "last-modified", "dcterms.modified")
_AUTHOR_META = ("author", "article:author", "dc.creator", "dcterms.creator", "citation_author", "byl",
                "parsely-author", "sailthru.author")
# The <meta> keys read_metadata reads (a <meta> under any other key is skipped before its content is cleaned).
_META_KEYS = frozenset({"og:type", "og:url", "og:title", "twitter:title", "og:site_name", "application-name",
                        "description", "og:description", "twitter:description", "keywords", "content-language",
                        "og:locale", "language", *_PUBLISHED_META, *_MODIFIED_META, *_AUTHOR_META})
_HEAD_SELECTOR = 'meta, title, link[rel*="canonical" i]'
# Lexbor's ids of two tags that query matches (fixed in a Lexbor build; read from it rather than assumed).
_META_TAG, _TITLE_TAG = (node.tag_id for node in LexborHTMLParser("<meta><title></title>").css("meta, title"))
# One body query for every marked-up date and author, filtered here: each CSS query is a walk of the whole tree
# (~0.1 ms on a typical page, a third of this module's budget) whatever the selector, so one broad query beats
# three narrow ones.
_BODY_SELECTOR = "[itemprop], a[rel], time"
_MAX_BODY_NODES = 2_000
_MAX_ANCESTORS = 64
_PUBLISHED_ITEMPROPS = ("datepublished", "datecreated")
_PUBLISHED_CLASSES = ("publish", "post-date", "entry-date")
_TITLE_SEPARATOR = re.compile(r"\s+(?:\||-|–|—|•|·|::|»|/)\s+")
_MAX_NAME_CHARS = 80
_MAX_NAME_WORDS = 6
_NON_WORD = re.compile(r"[\W_]+")
_MAX_CLEAN = 1_000
_CLEAN_HEAD = 2 * _MAX_CLEAN


def _collapse(text: str) -> str:
    """``" ".join(text.split())``, without splitting text that is mostly clean already.

    Long ``<meta>`` descriptions and JSON-LD strings break lines ("goal. \\n They"), which defeats
    ``clean_inline``'s fast path, and splitting 2,000 characters into words costs ~10 µs. Here newlines, tabs and
    carriage returns become spaces and runs of spaces are halved until none is left: every character ``str.split``
    splits on, except " ", is non-printable (tests/test_builder.py checks all code points), so once the text is
    printable " " is its only whitespace, and the result is the split-and-join's. Anything else non-printable
    (a no-break space, a control character) takes the split-and-join itself.
    """
    if not text.isprintable():
        spaced = text.replace("\n", " ").replace("\t", " ").replace("\r", " ")
        if not spaced.isprintable():
            return " ".join(text.split())
        text = spaced
    elif "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    while "  " in text:
        text = text.replace("  ", " ")
    return text.strip(" ")


def _clean(value: object) -> str | None:
    """``value`` as one line of at most 1,000 characters (entities escaped twice by the page undone), or None."""
    if not isinstance(value, str):
        return None
    # The same as re.sub(r"\s+", " ", value).strip()[:1000] (str.split and the regex agree on every code point's
    # whitespace-ness). Whitespace only ever shrinks and the cleaned prefix of a value is a prefix of the cleaned
    # value, so a long value is cleaned from its head when that yields the 1,000 characters kept.
    if len(value) > _CLEAN_HEAD:
        text = _collapse(value[:_CLEAN_HEAD])
        text = text[:_MAX_CLEAN] if len(text) >= _MAX_CLEAN else _collapse(value)[:_MAX_CLEAN]
    else:
        text = _collapse(value)[:_MAX_CLEAN]
    if "&" in text and ";" in text:  # escaped twice by the page ("&amp;#038;"): the parser undid only one level
        text = _collapse(_html.unescape(text))
    return text or None


def _filled(value: str) -> bool:
    """Whether ``_clean(value)`` is not None, for a non-empty ``value``, mostly without cleaning it: with no "&" there
    is nothing to unescape, and the cleaned text is empty exactly when the value is all whitespace."""
    if "&" in value:
        return _clean(value) is not None
    return not value.isspace()


def _name(value: object) -> str | None:
    """A person or organisation as JSON-LD writes it: a string, {"name": ...}, or a list of either."""
    if isinstance(value, list):
        names = [n for n in (_name(v) for v in value[:10]) if n]
        return ", ".join(dict.fromkeys(names)) or None
    if isinstance(value, dict):
        return _clean(value.get("name"))
    return _clean(value)


def _json_escape(match: re.Match[str]) -> str:
    lead, code = match.groups()
    if len(code) > 4:  # a surrogate pair: one character, kept
        return match.group(0)
    value = int(code, 16)
    if value in (0x09, 0x0A, 0x0D):
        return match.group(0)
    if value in (0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x85):
        return lead + "\\n"
    if value == 0x1F:
        return lead + " "
    return lead + ("\\ufffd" if value >= 0xD800 else "")


def jsonld_objects(raw: str) -> list[dict[str, Any]]:
    """Every JSON object in one JSON-LD script, flattened out of lists, ``@graph`` and a single ``mainEntity`` (the
    page's main thing: a forum thread's posting, a Q&A page's question), iteratively and bounded."""
    if len(raw) > _MAX_JSONLD_CHARS:
        return []
    if _JSON_ESCAPE_CANDIDATE.search(raw) is not None:
        raw = _JSON_ESCAPE.sub(_json_escape, raw)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return []
    found: list[dict[str, Any]] = []
    stack: list[Any] = [data]
    while stack and len(found) < _MAX_JSONLD_NODES:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            found.append(item)
            graph = item.get("@graph")
            if isinstance(graph, list):
                stack.extend(reversed(graph))
            main = item.get("mainEntity")
            if isinstance(main, dict):  # one main thing; a list (an FAQ's questions) is parts, not the subject
                stack.append(main)
    return found


def jsonld_types(obj: dict[str, Any]) -> str:
    """The object's ``@type`` names, lower-cased and joined: one substring test then covers a list of types and
    schema.org's subtypes ("NewsArticle", "HowToStep")."""
    kind = obj.get("@type")
    if isinstance(kind, list):
        return " ".join(str(k) for k in kind).lower()
    return str(kind or "").lower()


# A web address without its scheme ("facebook.com/vegolosi", "www.example.org/people/jane"): what Facebook's
# ``article:author`` often holds. A site's name alone ("Example.it") is kept: it is how the page names its author.
_SCHEMELESS_URL = re.compile(r"(?:www\.)?[\w-]+(?:\.[\w-]+)+/\S*", re.IGNORECASE)


def _author(value: str | None) -> str | None:
    """A name as pages write it, or None: URLs, handles and long text are not names."""
    if not value:
        return None
    text = value.strip(" ,;:|-–—·•»«›‹")
    if text[:3].lower() == "by ":
        text = text[3:].lstrip()
    if not text or text.startswith(("http://", "https://", "@")) or len(text) > _MAX_NAME_CHARS:
        return None
    if "/" in text and _SCHEMELESS_URL.fullmatch(text) is not None:
        return None
    return text


def _date(*values: str | None) -> tuple[str, str] | None:
    """(ISO date, original text) of the first value that holds a date."""
    return _first_date(values)


def _first_date(values: Iterable[str | None]) -> tuple[str, str] | None:
    """(ISO date, original text) of the first value that holds a date; ``values`` is read no further than that."""
    for value in values:
        if value:
            iso = parse_date(value)
            if iso is not None:
                return iso, value
    return None


def _node_date(node: Any) -> tuple[str, str] | None:
    """A date from an element: its ``content``/``datetime`` attribute, else its visible text (searched)."""
    attrs = node.attributes
    found = _date(_clean(attrs.get("content")), _clean(attrs.get("datetime")))
    if found is None:
        text = _clean(node.text(deep=True))
        iso = parse_date(text, search=True) if text else None
        found = (iso, text) if iso and text else None
    return found


def _under(node: Any, tags: tuple[str, str], limit: int | None) -> bool:
    """Whether one of ``node``'s ancestors (the first ``limit``; all with None) has one of ``tags``: the CSS twin
    of ``lexbor_dom._under``."""
    parent = node.parent
    depth = 0
    while parent is not None and (limit is None or depth < limit):
        if parent.tag in tags:
            return True
        parent = parent.parent
        depth += 1
    return False


def _in_main(node: Any) -> bool:
    """Whether ``node`` sits inside ``<article>`` or ``<main>`` (ancestors looked at: a bounded number)."""
    return _under(node, ("article", "main"), _MAX_ANCESTORS)


def _body_marks(source: Any, discussion: bool, want_date: bool, want_author: bool
                ) -> tuple[tuple[str, str] | None, str | None, str | None]:
    """(date, author, last-resort date) from the body's markup, when no machine-written value gave one (see the
    module doc).

    Date: an element marked ``itemprop=datePublished``/``dateCreated`` or a ``<time>`` marked as published, else
    the first ``<time datetime>`` inside ``<article>``/``<main>`` (on a discussion page, the first on the page).
    Author: the first ``itemprop=author`` or ``rel=author`` link. The source picks the candidates
    (``CssSource.body_picks``). Last resort: with no date, the first ``<time datetime>`` anywhere on the page
    (``with_byline`` takes it after every other source: a page without ``<article>`` or ``<main>`` -- a link
    aggregator's story, a forum thread not marked as one -- dates its post with the first ``<time>``, but on
    another page it may be a sidebar's).
    """
    published, main_time, first_time, author_node = source.body_picks(_MAX_BODY_NODES)
    date = last = None
    if want_date:
        for node in (published, main_time if main_time is not None else (first_time if discussion else None)):
            date = _node_date(node) if node is not None else None
            if date is not None:
                break
        if date is None and first_time is not None:
            found = _node_date(first_time)
            last = found[0] if found is not None else None
    author = _node_author(source, author_node) if want_author and author_node is not None else None
    return date, author, last


def _node_author(source: Any, node: Any) -> str | None:
    name = source.itemprop_name(node)
    source = name if name is not None else node
    value = _clean(source.attributes.get("content")) or _clean(source.text(deep=True))
    author = _author(value)
    if author is None or len(author.split()) > _MAX_NAME_WORDS:
        return None
    return author


def _norm(text: str) -> str:
    return _NON_WORD.sub("", text.lower())


def _strip_site(title: str, site_names: tuple[str | None, ...], url: str | None, h1: Any) -> str:
    """``title`` without a part that names the site (see the module doc); unchanged when no part does."""
    parts = _TITLE_SEPARATOR.split(title)
    if len(parts) < 2:
        return title
    names = {_norm(n) for n in site_names if n}
    names.discard("")
    hosts: list[str | None] = []  # the URL's host name, parsed when first needed (most titles match a name first)

    def is_site(part: str) -> bool:
        key = _norm(part)
        if not key:
            return False
        if key in names:
            return True
        if len(key) < 3:
            return False
        if not hosts:
            hosts.append(_host(url))
        host = hosts[0]
        return host is not None and key in host

    if is_site(parts[-1]):
        kept = parts[:-1]
        while len(kept) > 1 and is_site(kept[-1]):
            kept.pop()
        return title[: _cut(title, len(kept))]
    if is_site(parts[0]) and len(parts) == 2:
        return parts[1]
    # Last, as it costs a walk of the tree: the first <h1> repeating the title's first part.
    heading = h1() if h1 is not None else None
    if heading:
        key = _norm(heading)
        if key and _norm(parts[0]) == key:
            return parts[0]
    return title


def _cut(title: str, keep: int) -> int:
    """Where the ``keep``-th separator of ``title`` starts (so kept parts keep their own separators)."""
    for n, match in enumerate(_TITLE_SEPARATOR.finditer(title), start=1):
        if n == keep:
            return match.start()
    return len(title)


def _host(url: str | None) -> str | None:
    if not url:
        return None
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return None
    return _norm(host.removeprefix("www.")) or None


def _in_foreign(node: Any) -> bool:
    """Whether ``node`` sits inside an ``<svg>`` or ``<math>`` (whose elements are not HTML ones)."""
    return _under(node, ("svg", "math"), None)


class CssSource:
    """What ``read_from`` reads of a parsed page, by selectolax's CSS queries. ``lexbor_dom.MetadataSource``
    answers the same with C walks over Lexbor's nodes (the tests compare the two); nodes answer ``tag``,
    ``tag_id``, ``attributes``, ``parent`` and ``text(deep=True)`` as selectolax's nodes do."""

    def __init__(self, tree: Any) -> None:
        self.tree = tree

    def head(self, wanted: frozenset[str]) -> tuple[dict[str, str], str | None, str | None]:
        """From ``<head>`` (the whole page if it has none; then the body, if the head holds no ``<title>``): for
        each ``wanted`` key, the raw content of the first ``<meta>`` under that key (its ``property``, ``name``,
        ``itemprop`` or ``http-equiv``, stripped and lower-cased) whose content is not blank once cleaned
        (``_filled``); the first ``<title>``'s raw text; the raw ``href`` of the first ``<link>`` whose ``rel`` is
        "canonical". One query: ``<meta>``, ``<title>`` and ``<link>`` belong in ``<head>``. Contents are cleaned
        only when read: most pages carry a description two or three times, and only one is used."""
        head = self.tree.head if self.tree.head is not None else self.tree
        nodes = head.css(_HEAD_SELECTOR)
        body = self.tree.body
        if head is not self.tree and body is not None and not any(n.tag_id == _TITLE_TAG for n in nodes):
            # A head without a <title> was most likely cut short: an element that belongs in the body (an
            # <iframe>, an <img>, stray text) ends the head, and the parser puts the <title> and <meta>s after it
            # into the body. They are read from there, after the head's own (SVG titles are not the page's).
            nodes = nodes + [n for n in body.css(_HEAD_SELECTOR) if not _in_foreign(n)]
        metas: dict[str, str] = {}
        title_text = canonical = None
        title_seen = canonical_seen = False
        for node in nodes:
            tag = node.tag_id  # an int compare: cheaper than building the tag name, on every <meta> of the page
            if tag == _META_TAG:
                attrs = node.attributes
                key = attrs.get("property") or attrs.get("name") or attrs.get("itemprop") or attrs.get("http-equiv")
                if key:
                    key = key.strip().lower()
                    if key in wanted and key not in metas:
                        content = attrs.get("content")
                        if content and _filled(content):
                            metas[key] = content
            elif tag == _TITLE_TAG:
                if not title_seen:
                    title_text = node.text(deep=True)
                    title_seen = True
            elif not canonical_seen:
                # Only links whose rel mentions "canonical" (ASCII case-insensitive, a superset of this test) match
                # the query: building the attribute dict of every <link> (stylesheets, preloads, icons) cost more.
                attrs = node.attributes
                if (attrs.get("rel") or "").strip().lower() == "canonical":
                    canonical = attrs.get("href")
                    canonical_seen = True
        return metas, title_text, canonical

    def jsonld_texts(self) -> list[str]:
        return [script.text(deep=True) for script in self.tree.css(_JSONLD_SELECTOR)]

    def language(self) -> str | None:
        root = self.tree.root
        return root.attributes.get("lang") if root is not None else None

    def page_types(self) -> list[str]:
        """The microdata ``itemtype`` of ``<html>`` and of ``<body>`` (the page's own, as in
        ``<html itemscope itemtype="https://schema.org/QAPage">``), where set and not empty."""
        out = []
        for node in (self.tree.root, self.tree.body):
            value = node.attributes.get("itemtype") if node is not None else None
            if value:
                out.append(value)
        return out

    def first_h1_text(self) -> str | None:
        node = self.tree.css_first("h1")
        return node.text(deep=True) if node is not None else None

    def body_picks(self, limit: int) -> tuple[Any, Any, Any, Any]:
        """Among the body's elements with ``itemprop``, ``<a rel>`` and ``<time>`` (the first ``limit`` in document
        order, an element once per selector it matches), the candidates ``_body_marks`` reads: (the first marked
        as published, the first plain ``<time datetime>`` inside ``<article>``/``<main>`` before it, the first
        plain ``<time datetime>`` before it, the first marked as the author); None where there is none.

        "Before it": a loop that stops once it has a published date never sees the later ones. One query for the
        three selectors, filtered here: each query is a walk."""
        body = self.tree.body if self.tree.body is not None else self.tree
        published = main_time = first_time = author = None
        for node in body.css(_BODY_SELECTOR)[:limit]:
            attrs = node.attributes
            tag = node.tag
            itemprop = attrs.get("itemprop")
            itemprop = itemprop.strip().lower() if itemprop else ""
            if author is None and (
                    itemprop == "author" or (tag == "a" and "author" in (attrs.get("rel") or "").lower().split())):
                author = node
            if published is None:
                if itemprop in _PUBLISHED_ITEMPROPS:
                    published = node
                elif tag == "time":
                    classes = (attrs.get("class") or "").lower()
                    if "pubdate" in attrs or any(c in classes for c in _PUBLISHED_CLASSES):
                        published = node
                    elif attrs.get("datetime") is not None:
                        if first_time is None:
                            first_time = node
                        if main_time is None and _in_main(node):
                            main_time = node
        return published, main_time, first_time, author

    def itemprop_name(self, node: Any) -> Any:
        return node.css_first('[itemprop="name" i]')


def read_metadata(tree: Any) -> Metadata:
    """Collect metadata from the parsed page (call before scripts are removed)."""
    return read_from(CssSource(tree))


def page_language(declared: str | None, raw_meta: dict[str, str]) -> str | None:
    """The page's language: ``<html lang>``, else its ``<meta>`` (``raw_meta``: ``head``'s raw contents)."""
    language = _clean(declared)
    if language is None:
        for key in ("content-language", "og:locale", "language"):
            raw = raw_meta.get(key)
            language = _clean(raw) if raw is not None else None
            if language:
                break
    return language


def _declared_discussion(raw_meta: dict[str, str], page_types: list[str]) -> bool:
    """A page declares itself a discussion in JSON-LD (``_ld_discussion``), in its og:type, or as the microdata
    type of its <html> or <body> (Stack Exchange's sites: itemtype="https://schema.org/QAPage"). A microdata type
    on an inner element is a part's (a product page's FAQ is a list of Questions), so only the page's own counts.
    This is the og:type and microdata part."""
    og_type = raw_meta.get("og:type")
    return ("forum" in ((_clean(og_type) if og_type is not None else None) or "").lower()
            or any(_DISCUSSION_KIND.search(kind.lower()) is not None for kind in page_types))


def _ld_discussion(objects: list[dict[str, Any]]) -> bool:
    """Whether one JSON-LD script's objects hold one of an article type and a discussion type (both in its
    ``@type``; every discussion type names an article type too, "qapage" holding "page", so none is missed)."""
    for obj in objects:
        kinds = jsonld_types(obj)
        if _ARTICLE_KIND.search(kinds) is not None and _DISCUSSION_KIND.search(kinds) is not None:
            return True
    return False


class _Kept:
    """An element as ``read_from`` reads it (``attributes``, ``text``), copied out of the DOM; ``name`` is its
    ``itemprop=name`` element's copy, for the author mark."""

    __slots__ = ("_text", "attributes", "name")

    def __init__(self, node: Any, name: _Kept | None = None) -> None:
        self.attributes: dict[str, str | None] = node.attributes
        self._text: str = node.text(deep=True)
        self.name = name

    def text(self, deep: bool = True) -> str:
        if not deep:
            raise ValueError("a kept element holds its deep text only")
        return self._text


def _kept(node: Any) -> _Kept | None:
    return _Kept(node) if node is not None else None


class PageFacts:
    """Everything ``read_from`` reads of a page, copied out of its DOM at once (``CssSource`` or
    ``lexbor_dom.MetadataSource`` in, a few strings and dicts kept): ``read_from`` reads it as it reads a source,
    after the DOM is gone. Why: the copying is the cheap part of reading metadata; the rest (dates, names and
    titles found and cleaned) can then wait until the metadata is asked for (``types.DeferredMetadata``), and an
    extraction that never asks never pays for it.

    ``page_language`` (``read_from``'s ``language``) and ``discussion`` (``extra["page_kind"]``) are read at once:
    the segmenter needs them."""

    __slots__ = (
        "_declared_language",
        "_h1",
        "_head",
        "_picks",
        "_scripts",
        "_types",
        "discussion",
        "page_language",
    )

    def __init__(self, source: Any) -> None:
        self._head: tuple[dict[str, str], str | None, str | None] = source.head(_META_KEYS)
        self._scripts: list[str] = source.jsonld_texts()
        self._declared_language: str | None = source.language()
        self._types: list[str] = source.page_types()
        self._h1: str | None = source.first_h1_text()
        published, main_time, first_time, author = source.body_picks(_MAX_BODY_NODES)
        named = None
        if author is not None:
            named = _Kept(author, _kept(source.itemprop_name(author)))
        self._picks = (_kept(published), _kept(main_time), _kept(first_time), named)
        raw_meta = self._head[0]
        self.page_language = page_language(self._declared_language, raw_meta)
        # The JSON-LD is parsed for this now and again by ``read_from`` if the metadata is asked for: the texts are
        # what a parsed document keeps (parsed objects take more room, in every document kept unread).
        self.discussion: bool = (any(_ld_discussion(jsonld_objects(script)) for script in self._scripts)
                                 or _declared_discussion(raw_meta, self._types))

    def head(self, wanted: frozenset[str]) -> tuple[dict[str, str], str | None, str | None]:
        if wanted is not _META_KEYS:
            raise ValueError("PageFacts holds the <meta> keys read_from reads, no others")
        return self._head

    def jsonld_texts(self) -> list[str]:
        return self._scripts

    def language(self) -> str | None:
        return self._declared_language

    def page_types(self) -> list[str]:
        return self._types

    def first_h1_text(self) -> str | None:
        return self._h1

    def body_picks(self, limit: int) -> tuple[Any, Any, Any, Any]:
        if limit != _MAX_BODY_NODES:
            raise ValueError(f"PageFacts holds the picks among the first {_MAX_BODY_NODES} marks, no others")
        return self._picks

    def itemprop_name(self, node: _Kept) -> _Kept | None:
        return node.name


def read_from(source: Any) -> Metadata:
    """``read_metadata`` over a ``CssSource`` or an equivalent (``lexbor_dom.MetadataSource``)."""
    # key -> the raw content of the first <meta> under that key whose content is not blank once cleaned.
    raw_meta, title_text, canonical_href = source.head(_META_KEYS)
    canonical = _clean(canonical_href)

    def meta(key: str) -> str | None:
        """The cleaned content of the page's ``<meta>`` under ``key`` (never empty), or None."""
        raw = raw_meta.get(key)
        return _clean(raw) if raw is not None else None

    ld: dict[str, str] = {}  # "author"; and "title", "description", "url" raw, cleaned when read, as raw_meta
    ld_dates: list[Any] = []  # raw values, cleaned by _first_date when (and only as far as) they are read
    ld_modified: list[Any] = []
    site_names: list[str] = []
    discussion = False
    for script in source.jsonld_texts():
        objects = jsonld_objects(script)
        discussion = discussion or _ld_discussion(objects)
        for obj in objects:
            kinds = jsonld_types(obj)
            if kinds == "website":
                name = _clean(obj.get("name"))
                if name:
                    site_names.append(name)
            if _ARTICLE_KIND.search(kinds) is None:
                continue
            # The first value of a field that is not blank once cleaned wins.
            for field, key in _LD_FIELDS:
                if key not in ld:
                    value = obj.get(field)
                    if value and isinstance(value, str) and _filled(value):
                        ld[key] = value
            ld_dates.extend((obj.get("datePublished"), obj.get("dateCreated"), obj.get("uploadDate")))
            ld_modified.append(obj.get("dateModified"))
            if "author" not in ld:
                author = _author(_name(obj.get("author")) or _name(obj.get("creator")))
                if author:
                    ld["author"] = author

    title_tag = _clean(title_text)
    language = page_language(source.language(), raw_meta)
    # Below, "a or b or c" is the first non-empty of a, b, c, and reads (so cleans) no more than it needs.
    discussion = discussion or _declared_discussion(raw_meta, source.page_types())
    url = canonical or meta("og:url") or _clean(ld.get("url"))
    title = meta("og:title") or _clean(ld.get("title")) or meta("twitter:title") or title_tag
    if title is not None:
        def h1() -> str | None:
            return _clean(source.first_h1_text())

        title = _strip_site(title, (meta("og:site_name"), meta("application-name"), *site_names), url, h1)
    # map(_clean, filter(None, map(raw_meta.get, keys))) is map(meta, keys) without its Nones, in C but for _clean.
    author = ld.get("author") or next(
        (a for a in map(_author, map(_clean, filter(None, map(raw_meta.get, _AUTHOR_META)))) if a), None)
    dated = _first_date(chain(map(_clean, ld_dates), map(_clean, filter(None, map(raw_meta.get, _PUBLISHED_META)))))
    first_time = None
    if author is None or dated is None:
        body_date, body_author, first_time = _body_marks(source, discussion, dated is None, author is None)
        dated = dated or body_date
        author = author or body_author
    modified = _first_date(chain(map(_clean, ld_modified), map(_clean, filter(None, map(raw_meta.get, _MODIFIED_META)))))
    description = (meta("description") or meta("og:description") or _clean(ld.get("description"))
                   or meta("twitter:description"))
    extra: dict[str, str] = {}
    if discussion:
        extra["page_kind"] = "discussion"
    if dated is not None and dated[1] != dated[0]:
        extra["date_text"] = dated[1]
    for key, value in (("site_name", meta("og:site_name")), ("modified", modified[0] if modified else None),
                       ("first_time", first_time), ("keywords", meta("keywords")), ("type", meta("og:type")),
                       ("html_title", title_tag)):
        if value:
            extra[key] = value
    return Metadata(title=title, author=author, date=dated[0] if dated else None, description=description,
                    language=language, url=url, extra=extra)


_BYLINE_CUT = re.compile(r"\s+(?:\||·|•|—|–|-|on|updated|published)\s+|\d", re.IGNORECASE)
_MAX_BYLINES = 5


_BY = re.compile(r"(?:(?:text|words|written|posted|story|article|photos?)\s+)?by\s+", re.IGNORECASE)
# "By" in German, French, Spanish and Portuguese bylines ("Von Max Muster", "Par Jeanne Roux", "Por Ana Gil"),
# counted only before a capital: "von" and "par" also start ordinary lines.
_BY_ELSEWHERE = re.compile(r"(?:von|par|por)\s+", re.IGNORECASE)
_NAME_WORD = re.compile(r"(?:[^\W\d_][\w'’.-]*|de|da|di|van|von|der|den|la|le|del|bin|al)", re.UNICODE)
_MAX_BARE_NAME_WORDS = 4


def _byline_author(text: str, marked: bool = False, min_words: int = 1) -> str | None:
    """The author in a byline: "By Jo Poe · Jun 2, 2024" → "Jo Poe" (the name after "By", "Text by", "Von", ...,
    up to a separator, "on" or a digit; a name too long to be one is cut at its first comma: "By Jo Poe, Senior
    Staff Technologist, ..."). In a line the page marked as a byline (``marked``), a bare name also counts ("Andrew
    Gerrand 4 August 2010"): ``min_words`` to four words, each capitalised (or a particle such as "van")."""
    by = _BY.match(text)
    if by is None:
        other = _BY_ELSEWHERE.match(text)
        if other is not None and text[other.end() : other.end() + 1].isupper():
            by = other
    if by is None and not marked:
        return None
    rest = text[by.end():].strip() if by else text
    cut = _BYLINE_CUT.search(rest)
    piece = rest[: cut.start()] if cut else rest
    if cut is not None and cut.group()[0].isdigit():
        piece = _without_date_words(piece)  # "By Jo Poe March 18 at 12:22 PM": the date begins at "March"
    if by is not None and "," in piece and len(piece.split()) > _MAX_NAME_WORDS:
        piece = piece[: piece.index(",")]
    name = _author(piece)
    if name is None:
        return None
    words = name.split()
    if by is None:
        if not min_words <= len(words) <= _MAX_BARE_NAME_WORDS or not all(
                _NAME_WORD.fullmatch(w) and (w[0].isupper() or w in _PARTICLES) and w.lower().strip(".,")
                not in _NOT_NAME for w in words):
            return None
    elif len(words) > _MAX_NAME_WORDS:
        return None
    return name


_WEEKDAYS = frozenset({"mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "monday", "tuesday",
                       "wednesday", "thursday", "friday", "saturday", "sunday"})
# "on" and "at" before a date in the languages of the corpora ("Von Max Muster am 12.03.2021", "Par Jeanne Roux le
# 12 mars"): cut only right before the date, as "le" and "den" also sit inside names.
_DATE_NAMES = _WEEKDAYS | MONTH_NAMES | frozenset({"on", "at", "am", "um", "le", "el", "em", "op", "den", "vom"})


def _without_date_words(piece: str) -> str:
    """``piece`` less the month and weekday names at its end (with their commas and dots), and the "on" before
    them: the words of a date whose first digit cut the byline there."""
    words = piece.split()
    end = len(words)
    while end and words[end - 1].lower().strip(".,") in _DATE_NAMES:
        end -= 1
    return piece if end == len(words) else " ".join(words[:end])


_PARTICLES = frozenset({"de", "da", "di", "van", "von", "der", "den", "la", "le", "del", "bin", "al"})
# Words a byline holds that are not names: a bare-name guess containing one is refused.
_NOT_NAME = frozenset({"by", "from", "posted", "updated", "published", "share", "written", "read", "min", "today",
                       "yesterday", "testimonial", "admin"}) | _WEEKDAYS | MONTH_NAMES


_MAX_DATELINE_CHARS = 80
_MAX_DATELINE_REST = 40


def _dateline_date(text: str) -> str | None:
    """The date of a short line that is mostly a date ("Last updated: May 2, 2024", "By Jo Poe - 17.05.2021"),
    or None: a date inside a sentence is not the page's date."""
    if len(text) > _MAX_DATELINE_CHARS:
        return None
    iso = parse_date(text, search=True)
    if iso is None:
        return None
    if text[:3].lower() == "by ":  # a byline the page did not mark as one
        return iso
    rest = _DATE_WORDS.sub("", text)
    return iso if len(rest.strip(" ,.:;|-–—·•")) <= _MAX_DATELINE_REST else None


_DATE_WORDS = re.compile(r"\d+(?:st|nd|rd|th)?|[^\W\d_]{3,10}\.?(?=[\s,]+\d)", re.IGNORECASE)


def _no_date(text: str) -> None:
    return None


def with_byline(metadata: Metadata, bylines: Iterable[str], datelines: Iterable[str] = (),
                pruned: Iterable[str] = ()) -> Metadata:
    """Fill a missing author or date from the page's bylines, then from short lines near its title, then from
    bylines the page left out of its text (the last resort, after every machine-written source), then a still
    missing date from the modification date, else from the page's first ``<time>`` (``extra["first_time"]``,
    ``_body_marks``); ``metadata`` is returned unchanged when nothing changes.

    The iterables are lazy: they are only read while something is missing. Bylines give an author after "By" (or a
    bare name, the line being marked as a byline) and any date they hold; datelines (short blocks around the first
    heading) give a date only if they are mostly one, and an author only after "By". Pruned bylines (an author box
    outside the main text: ``By <a>Jo Poe</a>, Senior Technologist``) give no date (it may be another story's), and a
    bare name there needs two words at least ("Autoreninfo" and "Redaktion" are labels).
    """
    author, date, extra = metadata.author, metadata.date, metadata.extra
    # (lines, their date reader, whether a bare name counts, the fewest words a bare name has)
    for source, dated, marked, min_words in ((bylines, lambda t: parse_date(t, search=True), True, 1),
                                             (datelines, _dateline_date, False, 1), (pruned, _no_date, True, 2)):
        if author is not None and date is not None:
            break
        for n, text in enumerate(source):
            if n >= _MAX_BYLINES * 3 or (author is not None and date is not None):
                break
            if author is None:
                author = _byline_author(text, marked, min_words)
            if date is None:
                iso = dated(text)
                if iso is not None:
                    date = iso
                    extra = {**extra, "date_text": text}
    if date is None:
        date = extra.get("modified") or extra.get("first_time")
    if author is metadata.author and date is metadata.date:
        return metadata
    return replace(metadata, author=author, date=date, extra=extra)
