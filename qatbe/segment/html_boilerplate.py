"""Evidence that an element is boilerplate (or main content), read from its tag and attributes.

Why hand-written regexes: the evidence is a page author's naming habits (``class="site-nav"``, ``id="footer"``,
``role="navigation"``), and no maintained library exposes them as a reusable classifier. The patterns only raise
*evidence*; the segmenter weighs it against text and link density before it calls a block boilerplate, so a
wrapper named ``has-sidebar`` that holds the whole article is not thrown away.
"""

from __future__ import annotations

import re

# Names that mark page furniture. Short words (nav, menu, ad) must stand alone between separators; long ones may
# sit inside a compound (mainNavigation, footerLinks).
_NEG_TOKEN = (
    r"nav|navbar|menu|menus|submenu|breadcrumbs?|crumbs?|footer|foot|sidebar|sidenav|aside|share|sharing|"
    r"social|socials|cookies?|consent|gdpr|newsletter|subscribe|subscription|signup|related|recommended|"
    r"promo|promos|advert|adverts|ads?|advertisement|sponsored|banner|masthead|popup|modal|toolbar|"
    r"pagination|pager|skip|skiplink|tagcloud|topbar|outbrain|taboola|disqus|"
    r"author-?box|about-?author|more-?stories|read-?more|readmore|trending|most-?popular|jump-?links?|"
    r"login|signin|header|site-?header|page-?header|offcanvas|"
    r"drawer|dropdown|megamenu|hamburger|comments?|commentlist|respond|copyright|legal|"
    r"disclaimer|imprint|tags|meta-?nav|toc|table-?of-?contents"
)
_NEG = re.compile(rf"(?:^|[\s_-])(?:{_NEG_TOKEN})(?=$|[\s_\d-])", re.IGNORECASE)
_NEG_INFIX = re.compile(
    r"navigation|breadcrumb|sidebar|newsletter|cookie|footer|socialmedia|sharebar|shareicons|sharing|"
    r"relatedposts|relatedarticles|related_posts|advertis|subscribe|comment",
    re.IGNORECASE,
)
# Names where the evidence is only weak: they mark comments (main content on a forum), headers (which also hold
# an article's title) and tables of contents.
_WEAK = re.compile(
    r"(?:^|[\s_-])(?:comments?|commentlist|respond|header|site-?header|page-?header|toc|banner|"
    r"table-?of-?contents|tags|legal|disclaimer)(?=$|[\s_\d-])|comment",
    re.IGNORECASE,
)
_POS = re.compile(
    r"(?:^|[\s_-])(?:article|articles?-?body|post-?body|post-?content|entry-?content|entry|story|story-?body|"
    r"main-?content|content-?main|page-?content|prose|markdown-?body|rich-?text|body-?copy|article-?content|"
    r"blog-?post|post|text|content)(?=$|[\s_\d-])",
    re.IGNORECASE,
)
_META = re.compile(
    r"(?:^|[\s_-])(?:byline|bylines|author|authors|dateline|date|published|pubdate|timestamp|posted-?on|"
    r"entry-?date|post-?date|article-?date|post-?meta|entry-?meta|article-?meta|time)(?=$|[\s_\d-])",
    re.IGNORECASE,
)
_QUOTE = re.compile(r"(?:^|[\s_-])(?:quote|blockquote|bbcode-?quote|pullquote)(?=$|[\s_\d-])", re.IGNORECASE)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_HIDDEN_CLASS = re.compile(
    r"(?:^|\s)(?:hidden|d-none|is-hidden|visually-hidden|sr-only|screen-reader-text|screenreader|hide|"
    r"invisible|u-hidden|a11y-hidden|offscreen)(?=$|\s)",
    re.IGNORECASE,
)

NEG_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "menu", "menubar", "search", "dialog", "alertdialog",
     "toolbar", "tablist", "alert", "status", "log"}
)
NEG_TAGS = frozenset({"nav", "aside", "footer", "header", "menu", "dialog"})
POS_TAGS = frozenset({"main", "article"})

# Evidence values.
NONE = 0
WEAK = 1
STRONG = 2


def is_hidden(attrs: dict[str, str | None]) -> bool:
    """True when the element is not rendered: ``hidden``, ``aria-hidden="true"``, or an inline style that hides it.

    Screen-reader-only classes count too: that text is not what a reader of the page sees.
    """
    if "hidden" in attrs:
        return True
    aria = attrs.get("aria-hidden")
    if aria is not None and aria.strip().lower() == "true":
        return True
    style = attrs.get("style")
    if style and _HIDDEN_STYLE.search(style):
        return True
    cls = attrs.get("class")
    return bool(cls and _HIDDEN_CLASS.search(cls))


def negative_evidence(tag: str, attrs: dict[str, str | None]) -> int:
    """How strongly the element's tag, role and names say "page furniture" (NONE, WEAK or STRONG)."""
    role = attrs.get("role")
    if role and role.strip().lower() in NEG_ROLES:
        return STRONG
    names = " ".join(v for v in (attrs.get("class"), attrs.get("id")) if v)
    if names and _QUOTE.search(names):
        return NONE  # <aside class="quote"> is a quotation in a post (Discourse), not a sidebar
    level = NONE
    if tag in NEG_TAGS:
        level = WEAK if tag == "header" else STRONG
    if names and (_NEG.search(names) or _NEG_INFIX.search(names)):
        level = max(level, WEAK if _WEAK.search(names) and not _strong_name(names) else STRONG)
    return level


def _strong_name(names: str) -> bool:
    stripped = _WEAK.sub(" ", names)
    return bool(_NEG.search(stripped) or _NEG_INFIX.search(stripped))


def positive_evidence(tag: str, attrs: dict[str, str | None]) -> bool:
    """The element says it holds the main content (``<main>``, ``<article>``, ``role=main``, ``articleBody``)."""
    if tag in POS_TAGS:
        return True
    role = attrs.get("role")
    if role and role.strip().lower() == "main":
        return True
    itemprop = attrs.get("itemprop")
    return bool(itemprop and "articlebody" in itemprop.lower())


def content_name(attrs: dict[str, str | None]) -> bool:
    """The element is named like a content container (``entry-content``, ``post-body``, ``article``)."""
    names = " ".join(v for v in (attrs.get("class"), attrs.get("id")) if v)
    return bool(names and _POS.search(names))


def metadata_name(attrs: dict[str, str | None]) -> bool:
    """The element is named like a byline or a date line."""
    names = " ".join(v for v in (attrs.get("class"), attrs.get("id"), attrs.get("itemprop")) if v)
    return bool(names and _META.search(names))
