"""Evidence that an element is boilerplate (or main content), read from its tag and attributes.

Why hand-written regexes: the evidence is a page author's naming habits (``class="site-nav"``, ``id="footer"``,
``role="navigation"``), and no maintained library exposes them as a reusable classifier. The patterns only raise
*evidence*; the segmenter weighs it against text and link density before it calls a block boilerplate, so a
wrapper named ``has-sidebar`` that holds the whole article is not thrown away.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Names are compared word by word: a class/id string is split at spaces, "-" and "_", trailing digits dropped,
# and adjacent words are also tried joined ("author-box" -> "authorbox"), so set lookups replace regex scans (the
# walk meets a few hundred new class strings per page). Long words may also sit inside a compound
# ("mainNavigation"), which the infix list catches.
_NEG_WORDS = frozenset(
    [
        "nav", "navbar", "menu", "menus", "submenu", "breadcrumb", "breadcrumbs", "crumb", "crumbs",
        "footer", "foot", "sidebar", "sidenav", "aside", "share", "sharing", "social", "socials",
        "cookie", "cookies", "consent", "gdpr", "newsletter", "subscribe", "subscription", "signup",
        "related", "recommended", "promo", "promos", "advert", "adverts", "ad", "ads", "advertisement",
        "sponsored", "banner", "masthead", "popup", "modal", "toolbar", "pagination", "pager", "skip",
        "skiplink", "tagcloud", "topbar", "outbrain", "taboola", "disqus", "authorbox", "aboutauthor",
        "authorbio", "authorinfo", "authordescription", "authorbiography", "authordetails", "aboutauthor",
        "paywall", "regwall", "morestories", "readmore", "trending", "mostpopular", "jumplink", "jumplinks", "login",
        "signin", "header", "siteheader", "pageheader", "offcanvas", "drawer", "dropdown", "megamenu",
        "hamburger", "comment", "comments", "commentlist", "respond", "copyright", "legal",
        "disclaimer", "imprint", "tags", "metanav", "toc", "tableofcontents", "gallery", "resgallery",
        "slideshow", "lightbox",
        # Wikipedia's notices about the page itself ("This article is a stub. You can help Wikipedia by
        # expanding it.", "This article needs additional citations"), not about its subject.
        "stub", "ambox",
        # News sites' "recirculation" modules: links to more of the site's stories.
        "recirc", "recirculation",
        # Forum software's controls inside a post: XenForo's "Click to expand..." under a long quotation
        # (bbCodeBlock-expandLink, quoteExpand) and its reaction line ("X, Y and 3 others", "Z likes this.").
        "expandlink", "quoteexpand", "reactionsbar", "likessummary"
    ]
)
_NEG_INFIXES = ("navigation", "breadcrumb", "sidebar", "newsletter", "cookie", "footer", "socialmedia", "sharebar",
                "shareicons", "sharing", "relatedposts", "relatedarticles", "related_posts", "advertis", "subscribe",
                "comment", "toolbar")
# Words whose evidence is only weak: comments (main content on a forum), headers (which also hold an article's
# title), banners (a service page's headline), tables of contents, legal notes, paywalls (the box that asks for a
# subscription, but also ``has-paywall`` on the article it guards).
_WEAK_WORDS = frozenset(
    [
        "comment", "comments", "commentlist", "respond", "header", "siteheader", "pageheader", "toc",
        "banner", "tableofcontents", "tags", "legal", "disclaimer", "gallery", "resgallery",
        "slideshow", "lightbox", "paywall", "regwall"
    ]
)
_WEAK_INFIXES = ("comment",)
_STRONG_WORDS = _NEG_WORDS - _WEAK_WORDS
_STRONG_INFIXES = tuple(f for f in _NEG_INFIXES if f not in _WEAK_INFIXES)
_META_WORDS = frozenset(
    [
        "byline", "bylines", "author", "authors", "dateline", "date", "published", "pubdate",
        "timestamp", "postedon", "entrydate", "postdate", "articledate", "postmeta", "entrymeta",
        "articlemeta", "time"
    ]
)
_QUOTE_WORDS = frozenset(["quote", "blockquote", "bbcodequote", "pullquote"])
_HIDDEN_CLASSES = frozenset(
    [
        "hidden", "d-none", "is-hidden", "visually-hidden", "sr-only", "screen-reader-text",
        "screenreader", "hide", "invisible", "u-hidden", "a11y-hidden", "offscreen",
        # Wikipedia sort keys (hidden by its stylesheet: .sortkey{display:none}); as text they glue onto the
        # visible cell ("Halfin, EliezerEliezer Halfin") and break the answer.
        "sortkey",
    ]
)
_SPLIT = re.compile(r"[\s_-]+")
_KNOWN_WORDS = _NEG_WORDS | _WEAK_WORDS | _QUOTE_WORDS | _META_WORDS
_STRONG_INFIX = re.compile("|".join(map(re.escape, _STRONG_INFIXES)))
_WEAK_INFIX = re.compile("|".join(map(re.escape, _WEAK_INFIXES)))
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden")

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


def _words(lower: str) -> set[str]:
    raw = [w.rstrip("0123456789") for w in _SPLIT.split(lower)]
    words = set(raw)
    for k in range(len(raw) - 1):
        words.add(raw[k] + raw[k + 1])
        if k + 2 < len(raw):
            words.add(raw[k] + raw[k + 1] + raw[k + 2])
    words.discard("")
    return words


@lru_cache(maxsize=16384)
def _token(token: str) -> tuple[int, bool, bool, bool]:
    """Evidence of one class name or id (``site-nav``, ``entry-content``); cached, as pages repeat them.

    A page brings about 80 class names its site has not shown before: the word sets are intersected once with
    every word any rule knows, and the infixes are one regex search each, not a scan per infix."""
    lower = token.lower()
    hidden = lower in _HIDDEN_CLASSES
    known = _words(lower) & _KNOWN_WORDS
    if known and not known.isdisjoint(_QUOTE_WORDS):
        return NONE, True, hidden, False
    level = NONE
    if (known and not known.isdisjoint(_STRONG_WORDS)) or _STRONG_INFIX.search(lower) is not None:
        level = STRONG
    elif (known and not known.isdisjoint(_WEAK_WORDS)) or _WEAK_INFIX.search(lower) is not None:
        level = WEAK
    return level, False, hidden, bool(known) and not known.isdisjoint(_META_WORDS)


@lru_cache(maxsize=8192)
def _names(names: str) -> tuple[int, bool, bool, bool]:
    """(negative level, is a quotation, hidden by class, byline-like) for an element's class and id names.

    Each name is judged alone (cached); the strongest negative evidence wins, and a quotation name cancels it.
    """
    level = NONE
    quote = hidden = meta = False
    for token in names.split():
        t_level, t_quote, t_hidden, t_meta = _token(token)
        level = max(level, t_level)
        quote = quote or t_quote
        hidden = hidden or t_hidden
        meta = meta or t_meta
    return (NONE if quote else level), quote, hidden, meta


def _name_string(attrs: dict[str, str | None]) -> str:
    cls = attrs.get("class")
    ident = attrs.get("id")
    if cls and ident:
        return cls + " " + ident
    return cls or ident or ""


def hidden_by_class(tag: str, attrs: dict[str, str | None]) -> bool:
    """Class names a site's stylesheet hides (see ``_HIDDEN_CLASSES``), and footnote markers
    (``<sup class="reference">``): what a reader does not see, for the paths that do not call ``evidence``."""
    cls = attrs.get("class")
    if not cls:
        return False
    tokens = cls.lower().split()
    return (tag == "sup" and "reference" in tokens) or any(t in _HIDDEN_CLASSES for t in tokens)


def _role(attrs: dict[str, str | None]) -> str:
    role = attrs.get("role")
    return role.strip().lower() if role else ""


def _hidden_by_attributes(attrs: dict[str, str | None]) -> bool:
    """``hidden``, ``aria-hidden="true"``, or an inline style that hides the element."""
    if "hidden" in attrs:
        return True
    aria = attrs.get("aria-hidden")
    if aria is not None and aria.strip().lower() == "true":
        return True
    style = attrs.get("style")
    if style:
        low = style.lower()
        return ("none" in low or "hidden" in low) and bool(_HIDDEN_STYLE.search(low))
    return False


def is_hidden(attrs: dict[str, str | None]) -> bool:
    """True when the element is not rendered: ``hidden``, ``aria-hidden="true"``, or an inline style that hides it.

    Screen-reader-only classes count too: that text is not what a reader of the page sees. A tab panel is hidden
    only until its tab is clicked (FAQ and specification tabs): its text is the page's, like a closed <details>.
    """
    if not attrs or _role(attrs) == "tabpanel":
        return False
    if _hidden_by_attributes(attrs):
        return True
    cls = attrs.get("class")
    return bool(cls and _names(cls)[2])


def evidence(tag: str, attrs: dict[str, str | None]) -> tuple[int, bool, bool, bool]:
    """(negative level, positive, hidden, byline) in one call: the walk asks this of every element."""
    if not attrs:
        neg = (WEAK if tag == "header" else STRONG) if tag in NEG_TAGS else NONE
        return neg, tag in POS_TAGS, False, tag == "address"
    names = _name_string(attrs)
    itemprop = attrs.get("itemprop")
    level, quote, hidden_class, byline = _names(names) if names else (NONE, False, False, False)
    if itemprop and not byline:
        byline = _names(itemprop)[3]
    role = _role(attrs)
    # hidden (a tab panel never: see ``is_hidden``); a footnote marker (<sup class="reference">[3]</sup>) is not
    # text either: it glues onto the word before it ("Eilatj[›]") and only costs tokens.
    hidden = role != "tabpanel" and (
        hidden_class or (tag == "sup" and "reference" in names.lower().split()) or _hidden_by_attributes(attrs))
    # negative
    if role in NEG_ROLES:
        neg = STRONG
    elif quote:
        neg = NONE  # <aside class="quote"> is a quotation in a post (Discourse), not a sidebar
    else:
        neg = (WEAK if tag == "header" else STRONG) if tag in NEG_TAGS else NONE
        neg = max(neg, level)
    pos = tag in POS_TAGS or role == "main" or bool(itemprop and "articlebody" in itemprop.lower())
    return neg, pos, hidden, byline or tag == "address"
