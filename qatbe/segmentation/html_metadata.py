"""Document metadata from ``<title>``, ``<meta>``, ``<link rel=canonical>``, ``<html lang>`` and JSON-LD.

It must run before scripts are stripped (JSON-LD lives in ``<script type="application/ld+json">``). Sources are
tried in order of how deliberate they are: JSON-LD and OpenGraph are written for machines, ``<title>`` often carries
the site name, and a byline in the text is the last resort (the segmenter passes it in).
"""

from __future__ import annotations

import json
from typing import Any

from ..types import Metadata
from .builder import clean_inline

_ARTICLE_TYPES = ("article", "posting", "report", "webpage", "page", "review", "recipe", "product", "question",
                  "howto", "event", "course", "videoobject")
_MAX_JSONLD_CHARS = 1_000_000
# JSON-LD types that say the page is a discussion: its comments and answers are the content.
_DISCUSSION_TYPES = ("qapage", "discussionforumposting", "socialmediaposting")
_MAX_JSONLD_NODES = 5_000


def _clean(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    # The same as re.sub(r"\s+", " ", value).strip() (str.split and the regex agree on every code point's
    # whitespace-ness); clean_inline returns already-clean text without copying it. Every <meta> content passes here.
    return clean_inline(value)[:1000] or None


def _name(value: object) -> str | None:
    """A person or organisation as JSON-LD writes it: a string, {"name": ...}, or a list of either."""
    if isinstance(value, list):
        names = [n for n in (_name(v) for v in value[:10]) if n]
        return ", ".join(dict.fromkeys(names)) or None
    if isinstance(value, dict):
        return _clean(value.get("name"))
    return _clean(value)


def _jsonld_objects(raw: str) -> list[dict[str, Any]]:
    """Every JSON object in one JSON-LD script, flattened out of lists and ``@graph`` (iteratively, bounded)."""
    if len(raw) > _MAX_JSONLD_CHARS:
        return []
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
    return found


def _types(obj: dict[str, Any]) -> str:
    kind = obj.get("@type")
    if isinstance(kind, list):
        return " ".join(str(k) for k in kind).lower()
    return str(kind or "").lower()


def read_metadata(tree: Any) -> Metadata:
    """Collect metadata from the parsed page (call before scripts are removed)."""
    # <meta>, <title> and <link> belong in <head>; searching only there saves a walk of the whole body.
    head = tree.head if tree.head is not None else tree
    meta: dict[str, str] = {}
    for node in head.css("meta"):
        attrs = node.attributes
        key = attrs.get("property") or attrs.get("name") or attrs.get("itemprop") or attrs.get("http-equiv")
        content = _clean(attrs.get("content"))
        if key and content:
            meta.setdefault(key.strip().lower(), content)

    ld: dict[str, str] = {}
    discussion = False
    for script in tree.css('script[type="application/ld+json"]'):
        for obj in _jsonld_objects(script.text(deep=True)):
            kinds = _types(obj)
            discussion = discussion or any(k in kinds for k in _DISCUSSION_TYPES)
            if not any(k in kinds for k in _ARTICLE_TYPES):
                continue
            for field, key in (("headline", "title"), ("name", "title"), ("datePublished", "date"),
                               ("dateCreated", "date"), ("description", "description"), ("url", "url"),
                               ("dateModified", "modified")):
                value = _clean(obj.get(field))
                if value:
                    ld.setdefault(key, value)
            author = _name(obj.get("author")) or _name(obj.get("creator"))
            if author:
                ld.setdefault("author", author)

    title_node = head.css_first("title")
    title_tag = _clean(title_node.text(deep=True)) if title_node is not None else None
    canonical = None
    # Only links whose rel mentions "canonical" (ASCII case-insensitive, a superset of the test below) are looked
    # at: building the attribute dict of every <link> (stylesheets, preloads, icons) cost more than the lookup.
    for link in head.css('link[rel*="canonical" i]'):
        attrs = link.attributes
        if (attrs.get("rel") or "").strip().lower() == "canonical":
            canonical = _clean(attrs.get("href"))
            break
    root = tree.root
    language = _clean(root.attributes.get("lang")) if root is not None else None
    if language is None:
        language = meta.get("content-language") or meta.get("og:locale") or meta.get("language")

    def first(*values: str | None) -> str | None:
        return next((v for v in values if v), None)

    title = first(meta.get("og:title"), ld.get("title"), meta.get("twitter:title"), title_tag)
    author = first(ld.get("author"), meta.get("author"), meta.get("article:author"), meta.get("dc.creator"),
                   meta.get("byl"), meta.get("parsely-author"), meta.get("sailthru.author"))
    if author and author.startswith(("http://", "https://")):
        author = ld.get("author") or None
    date = first(ld.get("date"), meta.get("article:published_time"), meta.get("datepublished"),
                 meta.get("date"), meta.get("dc.date"), meta.get("dc.date.issued"), meta.get("pubdate"),
                 meta.get("publish-date"), meta.get("parsely-pub-date"), meta.get("sailthru.date"),
                 meta.get("og:published_time"))
    description = first(meta.get("description"), meta.get("og:description"), ld.get("description"),
                        meta.get("twitter:description"))
    url = first(canonical, meta.get("og:url"), ld.get("url"))
    extra: dict[str, str] = {}
    if discussion or "forum" in (meta.get("og:type") or "").lower():
        extra["page_kind"] = "discussion"
    for key, source in (("site_name", meta.get("og:site_name")), ("modified", ld.get("modified")),
                        ("keywords", meta.get("keywords")), ("type", meta.get("og:type")),
                        ("html_title", title_tag)):
        if source:
            extra[key] = source
    return Metadata(title=title, author=author, date=date, description=description, language=language, url=url,
                    extra=extra)
