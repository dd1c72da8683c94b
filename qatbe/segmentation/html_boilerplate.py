"""Evidence that an element is boilerplate (or main content), read from its tag and attributes.

Why hand-written regexes: the evidence is a page author's naming habits (``class="site-nav"``, ``id="footer"``,
``role="navigation"``), and no maintained library exposes them as a reusable classifier. The patterns only raise
*evidence*; the segmenter weighs it against text and link density before it calls a block boilerplate, so a
wrapper named ``has-sidebar`` that holds the whole article is not thrown away.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

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
_STRONG_INFIX = re.compile("|".join(map(re.escape, _STRONG_INFIXES)))
_WEAK_INFIX = re.compile("|".join(map(re.escape, _WEAK_INFIXES)))
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden")

NEG_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "menu", "menubar", "search", "dialog", "alertdialog",
     "toolbar", "tablist", "alert", "status", "log"}
)
POS_ROLES = frozenset({"main"})
# A tab panel is hidden only until its tab is clicked (FAQ and specification tabs): its text is the page's, like a
# closed <details>, whatever hides it.
SHOWN_ROLES = frozenset({"tabpanel"})
NEG_TAGS = frozenset({"nav", "aside", "footer", "header", "menu", "dialog"})
WEAK_TAGS = frozenset({"header"})  # a page header also holds an article's title
POS_TAGS = frozenset({"main", "article"})
BYLINE_TAGS = frozenset({"address"})
# A footnote marker (<sup class="reference">[3]</sup>) is not text: it glues onto the word before it ("Eilatj[›]")
# and only costs tokens.
FOOTNOTE_TAGS = frozenset({"sup"})
FOOTNOTE_CLASSES = frozenset({"reference"})
POS_ITEMPROP = "articlebody"  # searched for in an itemprop value (schema.org's articleBody)

# Evidence values.
NONE = 0
WEAK = 1
STRONG = 2

# -- facts and rules -----------------------------------------------------------------------------------------
#
# Reading an element splits into facts and rules. Facts are what its attribute values contain: the bits below
# for the words of a class name or id (and their joins), for a whole name and for a role; the strongest infix in
# a name; whether ``hidden``, ``aria-hidden`` or an inline style hides it. The rules (``name_rule``,
# ``neg_rule``, ``pos_rule``, ``hidden_rule``, ``byline_rule``) turn facts into evidence. The functions below
# read the facts in Python; the compiled walk (``html_fastwalk``) reads the same facts from UTF-8 bytes with the
# same word lists, and looks the rules up in tables made from these functions (``RULE_TABLES``), so each rule is
# written once. An element's several names combine as the strongest level and any flag.

# Bits of a name's words (the compiled walk's word table keeps the same bits, checked at its import).
QUOTE_WORD = 1
STRONG_WORD = 2
WEAK_WORD = 4
META_WORD = 8
# Bits of a whole class name.
HIDDEN_NAME = 16
FOOTNOTE_NAME = 32
# Bits of a whole role value.
NEG_ROLE = 64
POS_ROLE = 128
SHOWN_ROLE = 256

NAME_WORD_BITS = 16  # the word bits take the four lowest bits


def _bits(*groups: tuple[frozenset[str], int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for words, bit in groups:
        for word in words:
            out[word] = out.get(word, 0) | bit
    return out


WORD_BITS = _bits((_QUOTE_WORDS, QUOTE_WORD), (_STRONG_WORDS, STRONG_WORD), (_WEAK_WORDS, WEAK_WORD),
                  (_META_WORDS, META_WORD))
NAME_BITS = _bits((_HIDDEN_CLASSES, HIDDEN_NAME), (FOOTNOTE_CLASSES, FOOTNOTE_NAME))
ROLE_BITS = _bits((NEG_ROLES, NEG_ROLE), (POS_ROLES, POS_ROLE), (SHOWN_ROLES, SHOWN_ROLE))


def name_rule(words: int, infix: int) -> tuple[int, bool, bool]:
    """(negative level, is a quotation, byline-like) of one class name or id, from the bits of its words
    (``words``) and the strongest infix level in it (``infix``). A quotation name says nothing else."""
    if words & QUOTE_WORD:
        return NONE, True, False
    if words & STRONG_WORD or infix == STRONG:
        level = STRONG
    elif words & WEAK_WORD or infix == WEAK:
        level = WEAK
    else:
        level = NONE
    return level, False, bool(words & META_WORD)


def neg_rule(tag: int, names: int, quote: bool, role: bool) -> int:
    """The element's negative level from the tag's (``tag``), its names' (``names``), a quotation name
    (``quote``) and a role in ``NEG_ROLES`` (``role``). <aside class="quote"> is a quotation in a post
    (Discourse), not a sidebar."""
    if role:
        return STRONG
    if quote:
        return NONE
    return max(tag, names)


def pos_rule(tag: bool, role: bool, itemprop: bool) -> bool:
    """Main content: a main-like tag, a role in ``POS_ROLES``, or an itemprop naming ``POS_ITEMPROP``."""
    return tag or role or itemprop


def hidden_rule(shown: bool, by_name: bool, footnote: bool, by_attribute: bool) -> bool:
    """Not rendered: a name a stylesheet hides (``_HIDDEN_CLASSES``), a footnote marker, or ``hidden``,
    ``aria-hidden="true"`` or an inline style that hides it; never a role in ``SHOWN_ROLES``."""
    return not shown and (by_name or footnote or by_attribute)


def byline_rule(names: bool, itemprop: bool, tag: bool) -> bool:
    """Byline-like: a name or an itemprop in ``_META_WORDS``, or a tag in ``BYLINE_TAGS``."""
    return names or itemprop or tag


def _table(rule: Callable[..., int | bool | tuple[int, bool, bool]], *sizes: int) -> tuple[int, ...]:
    """``rule`` at every combination of its arguments (each ``range(size)``, the last varying fastest), as ints;
    a (level, quote, meta) answer packed as level | quote << 2 | meta << 3."""
    out = []
    for args in itertools.product(*(range(size) for size in sizes)):
        answer = rule(*(a if size > 2 else bool(a) for a, size in zip(args, sizes, strict=True)))
        if isinstance(answer, tuple):
            level, quote, meta = answer
            out.append(level | quote << 2 | meta << 3)
        else:
            out.append(int(answer))
    return tuple(out)


# The rules as tables for the compiled walk, indexed by their arguments in order (see ``_table``).
RULE_TABLES = {
    "name": _table(name_rule, NAME_WORD_BITS, 3),
    "neg": _table(neg_rule, 3, 3, 2, 2),
    "pos": _table(pos_rule, 2, 2, 2),
    "hidden": _table(hidden_rule, 2, 2, 2, 2),
    "byline": _table(byline_rule, 2, 2, 2),
}


class NameFacts(NamedTuple):
    """What an element's class names and ids say: ``name_rule``'s answers combined, and the whole-name bits."""

    level: int
    quote: bool
    hidden: bool
    meta: bool
    footnote: bool


_NO_NAMES = NameFacts(NONE, False, False, False, False)


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
def _token(token: str) -> NameFacts:
    """The facts of one class name or id (``site-nav``, ``entry-content``) through ``name_rule``; cached, as
    pages repeat them. A page brings about 80 class names its site has not shown before: each is split once, and
    the infixes are one regex search per level, not a scan per infix."""
    lower = token.lower()
    words = 0
    for word in _words(lower):
        words |= WORD_BITS.get(word, 0)
    infix = STRONG if _STRONG_INFIX.search(lower) else WEAK if _WEAK_INFIX.search(lower) else NONE
    level, quote, meta = name_rule(words, infix)
    whole = NAME_BITS.get(lower, 0)
    return NameFacts(level, quote, bool(whole & HIDDEN_NAME), meta, bool(whole & FOOTNOTE_NAME))


@lru_cache(maxsize=8192)
def _names(names: str) -> NameFacts:
    """``_token`` of each name in ``names`` combined: the strongest level, any flag."""
    level = NONE
    quote = hidden = meta = footnote = False
    for token in names.split():
        one = _token(token)
        level = max(level, one.level)
        quote = quote or one.quote
        hidden = hidden or one.hidden
        meta = meta or one.meta
        footnote = footnote or one.footnote
    return NameFacts(level, quote, hidden, meta, footnote)


def _name_string(attrs: dict[str, str | None]) -> str:
    cls = attrs.get("class")
    ident = attrs.get("id")
    if cls and ident:
        return cls + " " + ident
    return cls or ident or ""


def _role_bits(attrs: dict[str, str | None]) -> int:
    role = attrs.get("role")
    return ROLE_BITS.get(role.strip().lower(), 0) if role else 0


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


def hidden_by_class(tag: str, attrs: dict[str, str | None]) -> bool:
    """Hidden by class names alone, whatever the role (a stylesheet's hiding classes, a footnote marker): what a
    reader does not see, for the paths that do not call ``evidence``."""
    return hidden_by_names(tag in FOOTNOTE_TAGS, attrs)


def hidden_by_names(footnote_tag: bool, attrs: dict[str, str | None]) -> bool:
    """``hidden_by_class`` for a tag that is (``footnote_tag``) or is not in ``FOOTNOTE_TAGS``."""
    cls = attrs.get("class")
    if not cls:
        return False
    names = _names(cls)
    return hidden_rule(False, names.hidden, footnote_tag and names.footnote, False)


def is_hidden(attrs: dict[str, str | None]) -> bool:
    """True when the element is not rendered: ``hidden``, ``aria-hidden="true"``, an inline style that hides it,
    or a class a stylesheet hides (screen-reader-only text is not what a reader of the page sees)."""
    if not attrs:
        return False
    cls = attrs.get("class")
    by_name = bool(cls and _names(cls).hidden)
    return hidden_rule(bool(_role_bits(attrs) & SHOWN_ROLE), by_name, False, _hidden_by_attributes(attrs))


class TagFacts(NamedTuple):
    """What a tag's name says to the rules: its negative level, main-like, byline-like, a footnote marker."""

    neg: int
    pos: bool
    byline: bool
    footnote: bool


def tag_facts(tag: str) -> TagFacts:
    neg = (WEAK if tag in WEAK_TAGS else STRONG) if tag in NEG_TAGS else NONE
    return TagFacts(neg, tag in POS_TAGS, tag in BYLINE_TAGS, tag in FOOTNOTE_TAGS)


def evidence(tag: str, attrs: dict[str, str | None]) -> tuple[int, bool, bool, bool]:
    """(negative level, positive, hidden, byline) in one call: the walk asks this of every element."""
    facts = tag_facts(tag)
    if not attrs:
        return (neg_rule(facts.neg, NONE, False, False), pos_rule(facts.pos, False, False),
                hidden_rule(False, False, False, False), byline_rule(False, False, facts.byline))
    name_string = _name_string(attrs)
    names = _names(name_string) if name_string else _NO_NAMES
    itemprop = attrs.get("itemprop")
    prop_meta = bool(itemprop and not names.meta and _names(itemprop).meta)
    roles = _role_bits(attrs)
    neg = neg_rule(facts.neg, names.level, names.quote, bool(roles & NEG_ROLE))
    pos = pos_rule(facts.pos, bool(roles & POS_ROLE), bool(itemprop and POS_ITEMPROP in itemprop.lower()))
    hidden = hidden_rule(bool(roles & SHOWN_ROLE), names.hidden, facts.footnote and names.footnote,
                         _hidden_by_attributes(attrs))
    return neg, pos, hidden, byline_rule(names.meta, prop_meta, facts.byline)
