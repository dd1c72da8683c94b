"""Deciding which raw blocks of a page are boilerplate, by evidence weighed against the whole page.

The walk (``html_walk``) records evidence per element; this step weighs it with page-level facts: how much of the
page's prose lies under each flagged element, whether a ``<main>``/``<article>`` holds most of the prose, which
container box holds most of it, link density, runs of link-heavy blocks, teaser lists, repeated lines, trailing
labels and headings left with nothing under them. Blocks are only marked (``Block.boiler``), never removed, so
``qatbe.segment`` can still show them as NAVIGATION.
"""

from __future__ import annotations

import re

from .._backend import kernel
from .html_boilerplate import STRONG, WEAK
from .html_tables import TableData
from .html_walk import Block, Box, Ctx, Walked

_BYLINE_MAX = 200
# A short caption that only credits an image ("Foto: dpa", "Photo: Getty Images", "© Reuters") is not text.
_CREDIT_LABEL = re.compile(
    r"\W*(?:(?:image|photo|picture|bild|foto|top)\s+)?"
    r"(?:foto|fotos|photo|photos|bild|bilder|image|images|credit|credits|crédit|titelbild|photograph)\s*:",
    re.IGNORECASE,
)
_CREDIT = re.compile(
    r"^\W*(?:quelle|source)\s*:|©|\(c\)|getty\s*images|shutterstock|thinkstock|istock|imago|picture[- ]alliance|\bdpa\b|\breuters\b|"
    r"\bafp\b|\bap photo\b",
    re.IGNORECASE,
)
_CREDIT_MAX = 120
# Short lines that open with words naming page furniture (en, de, fr, es, it, pl: the evaluation languages).
_FURNITURE_TEXT = re.compile(
    r"\W*(?:read more|read also|see also|related (?:articles|posts|stories|content)|more (?:from|on|stories|to explore)\b"
    r"|you (?:may|might) (?:also )?(?:like|enjoy)|share this|leave a (?:comment|reply)|post a comment"
    r"|trending (?:news|now|stories)|most (?:read|popular|viewed)|top stories|popular (?:stories|posts|articles)"
    r"|lesen sie auch|mehr zum thema|das könnte (?:dich|sie)|weitere (?:artikel|beiträge|themen|nachrichten"
    r"|informationen|aktuelle)|aktuelle (?:news|nachrichten|artikel)|kommentare? schreiben|teilen:"
    r"|à lire aussi|lire aussi|voir aussi|vos réactions|leer también|te puede interesar|artículos relacionados"
    r"|zobacz (?:też|także)|czytaj (?:też|także)|leggi anche"
    r"|lue myös|lees ook|läs också|les også|læs også|leia também|veja também|čtěte také|citește și"
    r"|keep reading|continue reading|lire la suite|sigue leyendo|seguir leyendo|continua a leggere"
    r"|about the author|über (?:den autor|die autorin)|zurück zu[mr]?|back to (?:top|overview|home|the (?:top|list))"
    r"|tags(?=\s*:)|schlagw[öo]rte?|stichw[öo]rte?(?=\s*:)|bild (?:anzeigen|schließen|vergrößern)|noch keine bewertungen"
    r"|(?:%d|\d+)?\s*bloggern gefällt das|(?:\d+\s+)?bloggers? like this"
    r"|(?:join|subscribe to|sign up (?:for|to)) (?:our|the|my) (?:\w+ ){0,3}newsletter|follow us)\b",
    re.IGNORECASE,
)
# Whole lines that are page furniture wherever they stand: an ad slot's label, a quote expander, a reading-time
# estimate, a table of contents' title, a forum author's post counters, a placeholder ("Loading..."), a button's
# "Learn more", an image's "Caption" toggle, a sign-in prompt.
_FURNITURE_LINE = re.compile(
    r"\W*(?:advertisement|advert|anzeige|werbung|publicité|publicidad|pubblicità|reklama|sponsored(?: content)?"
    r"|click to expand\W*|\d+\s*(?:min|mins|minutes?)\s+read|on this page|in this article"
    r"|(?:(?:join(?:ed)?(?: date)?|posts|threads|messages|reaction score|reputation|likes received|trophy points)"
    r"\s*:\s*[\w ,./-]{1,30}?\s*){1,6}"
    r"|(?:\d+\W*)?(?:reply|flag|quote|report|permalink|upvote|downvote)(?:\W+(?:reply|flag|quote|report|permalink"
    r"|upvote|downvote|like|\d+)){0,4}|code\W+select all"
    r"|add to (?:cart|basket|bag|wish ?list)|in den warenkorb|ajouter au panier|\d+ (?:reviews?|ratings?)"
    r"|(?:continue|sign (?:up|in)|log ?in) with (?:e-?mail|google|apple|facebook|microsoft|github|x|phone(?: number)?)"
    r"|loading|please wait|learn more|caption"
    r"|(?:already have|don't have|do not have) an account\W+(?:log ?in|sign (?:in|up)|register)(?: here| now)?)\W*",
    re.IGNORECASE,
)
# A link or button alone on its line that asks the reader to do something ("Get started", "Book a demo",
# "Check price at REI") is a call to action, not text. Only for link-only lines (see decide): the same words in a
# sentence are content.
_ACTION_LINE = re.compile(
    r"\W*(?:get|start|try|book|schedule|download|record|hire|shop|buy|check|see|explore|discover|subscribe|sign"
    r"|join|contact|request|order|register|talk|call|watch|read)\b.{0,40}",
    re.IGNORECASE,
)
# Notices about the page rather than its subject: an affiliate disclosure ("We earn a commission for products
# purchased through some links in this article."), or a warning about the reader's browser ("Please note that
# Javascript is turned off", "Aktivieren Sie JavaScript um das Video zu sehen", "update your browser").
_PAGE_NOTICE = re.compile(
    r"\W*(?:(?:we|i) (?:may )?(?:earn|receive|get) (?:a )?(?:small )?(?:commission|compensation|affiliate)"
    r"|as an amazon associate|this (?:post|article|page|site) (?:may )?contains? affiliate links"
    r"|by (?:continuing|signing (?:up|in)|logging in|registering|subscribing|creating an account|clicking [^.]{1,40}?)"
    r",? you (?:agree|accept|acknowledge|consent)"
    r"|(?:this|our) (?:site|website|content) is reader-supported"
    r"|(?:please note(?: that)?\W*)?javascript (?:is|has been|seems to be) (?:turned off|disabled|deactivated)"
    r" (?:in|on|for) your"
    r"|(?:please )?(?:enable|activate|turn on) javascript|(?:bitte )?aktivieren sie javascript"
    r"|javascript (?:is required|must be enabled|ist deaktiviert)|update required\W+to (?:play|view)"
    r"|(?:please )?(?:update|upgrade) your browser|your browser (?:is out of date|is not supported|does not support)"
    r"|lade für ein besseres erlebnis einen neueren browser)\b",
    re.IGNORECASE,
)
_PAGE_NOTICE_MAX = 300
# A cookie banner's text, wherever it stands in a short paragraph: the site saying it sets cookies ("We use
# cookies", "This website uses cookies", "Wir verwenden Cookies", "Ce site utilise des cookies"), asking for
# consent ("By using our site, you agree to our cookie use", "Accept all cookies"), or a consent manager's
# category texts ("These cookies allow us to count visits"). The page's class names usually give a banner away;
# these are the banners whose markup does not. The phrases are the site's own voice (we, our, this site, you
# agree), not an article's about cookies, and every alternative holds "cookie" (``_cookie_notice`` relies on it).
_COOKIE_NOTICE = re.compile(
    r"\b(?:we|i) (?:use|place|set|store) (?:\w+ ){0,3}cookies"
    r"|\b(?:this|our) (?:web ?)?(?:site|page|portal|shop|store|app) (?:uses|places|sets|stores) (?:\w+ ){0,3}cookies"
    r"|\b(?:by|when) (?:using|continuing to (?:use|browse)|browsing|visiting|you (?:use|continue to use|visit)) "
    r"(?:our|this|the) (?:web ?)?(?:site|page|service)s?\b.{0,80}\b(?:agree|consent|accept).{0,40}cookie"
    r"|\byou (?:agree|consent) to (?:our |the )?(?:use of )?cookies"
    r"|\b(?:accept|allow|reject|decline|manage) (?:all |optional |necessary |our )?cookies\b"
    r"|\bcookie (?:settings|preferences|consent)\b"
    r"|\bthese cookies (?:are|allow|help|enable|may|collect|let)\b.{0,200}\b(?:us|our|we)\b"
    r"|\b(?:wir )?(?:verwenden|nutzen|setzen|benutzen) (?:wir )?(?:\w+ ){0,4}cookies"
    r"|\b(?:web)?seite (?:verwendet|nutzt|benutzt|setzt) (?:\w+ ){0,2}cookies|\bcookie-einstellungen"
    r"|\b(?:stimmst du|stimmen sie) der (?:verwendung|nutzung) von cookies"
    r"|\b(?:nous utilisons|ce site (?:web )?utilise|ce site internet utilise) (?:des )?cookies"
    r"|\b(?:utilizamos|usamos|este sitio (?:web )?(?:utiliza|usa)) (?:\w+ ){0,3}cookies"
    r"|\b(?:utilizziamo|usiamo|questo sito (?:web )?(?:utilizza|usa)) (?:\w+ ){0,3}cookie",
    # applied to the lowercased text (``_cookie_notice``): case-blind matching costs ~30 ns a character here
)
_COOKIE_NOTICE_MAX = 600
# A post's filing line ("This entry was posted in News on May 3", "Dieser Eintrag wurde veröffentlicht in ...",
# "Erstellt am ...", "Publié le ...", a forum's "Last edited by X on ..., edited 3 times in total."): what the blog
# or forum software says about the text, not the text.
_POST_META = re.compile(
    r"\W*(?:this (?:entry|post|article) was (?:posted|published|filed)|filed under\b|posted in\b"
    r"|last (?:updated|modified|edited by)\b|(?:dieser|der) (?:eintrag|beitrag|artikel|text) wurde\b"
    r"|(?:veröffentlicht|erstellt|aktualisiert|geschrieben) am\b|zuletzt (?:aktualisiert|geändert)\b"
    r"|publié le\b|mis à jour le\b|publicado (?:el|por)\b|actualizado el\b|pubblicato il\b|opublikowano\b)",
    re.IGNORECASE,
)
_POST_META_MAX = 400  # a filing line, at most (WordPress adds "You can follow the comments ... RSS 2.0 feed")
_ORPHAN_MAX = 100  # a heading longer than this is a sentence, kept even with nothing under it
_ITEM_WORDS = 4  # words per item, on average, for a linked list inside the main text to be text (_sentence_items)
_TEASER_LINK = 300  # a linked line after a "read also" label, at most
_TEASER_MAX = 400  # text under one linked headline, at most, for it to be a teaser
_TEASER_SHARE = 0.5
_TEASER_ARTICLE = 1000
_DIALOG_NAME = re.compile(r"cookie|consent|gdpr|modal|popup")  # names of boxes laid over the page
_RECENT = 3  # kept blocks before a block in which _repeats looks for it whole
_REPEAT_MIN = 30  # characters of a line said again for _repeats to keep it once (shorter lines repeat by nature)
_TRAILING_LABELS = 2  # labels after the last real text that _trailing_labels drops; a longer run is a list of names
# The toggle that ends a caption shown expanded or truncated ("... less", "... more"), left out when it is compared.
_TOGGLES = frozenset({"less", "more"})
_TOGGLE_TAIL = re.compile(r"\s*(?:\.\.\.|…)?\s*\b(?:less|more)\Z", re.IGNORECASE)
_TEASER_LIKE = 3  # short teasers of one build that make a longer section of that build a teaser too
_TEASER_LONG = 1000  # ... up to this much text under its headline
_COPYRIGHT = re.compile(r"\W{0,3}(?:©|\(c\)\s*\d{4}|copyright\b)", re.IGNORECASE)
# A paragraph that is nothing but markup shown as text: a tracking pixel's <img>, an <iframe> or <script> tag
# escaped by the page itself ("&lt;img height=1 ...&gt;") or left in a <noscript> that is read as text.
_MARKUP_TEXT = re.compile(r"(?:<(?:img|iframe|script|link|meta|noscript)\b[^<>]*>\s*)+", re.IGNORECASE)

# Prefilters, so that a short block meets only the regexes it could match. Each anchored regex above opens, after
# its non-word characters (``\W*``), with one of a few words; a text whose first word (``_head``) is none of them
# cannot match it. Every word set must list every first word its regex admits, lowercased (str.lower() and
# re.IGNORECASE agree on every character but the three below, which ``_head`` leaves to the regex);
# tests/test_html_decide_prefilters.py checks each prefiltered test against its plain regex.
_FURNITURE_TEXT_HEADS = frozenset({
    "read", "see", "related", "more", "you", "share", "leave", "post", "trending", "most", "top", "popular",
    "lesen", "mehr", "das", "weitere", "aktuelle", "kommentar", "kommentare", "teilen",
    "à", "lire", "voir", "vos", "leer", "te", "artículos", "zobacz", "czytaj", "leggi",
    "lue", "lees", "läs", "les", "læs", "leia", "veja", "čtěte", "citește",
    "keep", "continue", "sigue", "seguir", "continua", "about", "über", "zurück", "back", "tags",
    "schlagwort", "schlagworte", "schlagwört", "schlagwörte", "stichwort", "stichworte", "stichwört", "stichwörte",
    "bild", "noch", "d", "dbloggern", "bloggern", "blogger", "bloggers",  # "%d bloggern", "%dbloggern"
    "join", "subscribe", "sign", "follow",
})
_FURNITURE_LINE_HEADS = frozenset({
    "advertisement", "advert", "anzeige", "werbung", "publicité", "publicidad", "pubblicità", "reklama", "sponsored", "click",
    "on", "in", "join", "joined", "posts", "threads", "messages", "reaction", "reputation", "likes", "trophy",
    "reply", "flag", "quote", "report", "permalink", "upvote", "downvote", "code", "add", "ajouter", "continue",
    "sign", "log", "login", "loading", "please", "learn", "already", "don", "do", "caption",
})
_PAGE_NOTICE_HEADS = frozenset({
    "we", "i", "as", "this", "our", "please", "javascript", "enable", "activate", "turn", "bitte", "aktivieren",
    "update", "upgrade", "your", "lade", "by",
})
_POST_META_HEADS = frozenset({
    "this", "filed", "posted", "last", "dieser", "der", "veröffentlicht", "erstellt", "aktualisiert", "geschrieben",
    "zuletzt", "publié", "mis", "publicado", "actualizado", "pubblicato", "opublikowano",
})
_CREDIT_LABEL_HEADS = frozenset({
    "image", "photo", "picture", "bild", "foto", "top", "fotos", "photos", "bilder", "images", "credit", "credits",
    "crédit", "titelbild", "photograph",
})
_COPYRIGHT_HEADS = frozenset({"c", "copyright"})  # "(c) 2024", "Copyright"; a "©" is looked for on its own
# What _CREDIT can only match holding (in the lowercased text): it searches anywhere, so no first word helps.
_CREDIT_WORDS = ("©", "(c)", "quelle", "source", "getty", "shutterstock", "thinkstock", "istock", "imago", "picture",
                 "dpa", "reuters", "afp", "ap photo")
# re.IGNORECASE compares three characters otherwise than their str.lower(): it reads "İ" as "i" (lower() makes two
# characters of it), "ı" as "i" and "ſ" as "s" (lower() keeps them). A text holding one is left to the regexes
# (``_head``, ``_plain_case``); the tests check over every code point that no other character differs so.
_HEAD_MAX = 16  # no word in the sets above is longer: a longer first word opens none of the regexes

# A flagged element holding more than this share of the page's prose (at low link density) is a wrapper whose name
# lies (``<div class="layout has-sidebar">`` around everything), not furniture.
_WRAPPER_SHARE = 0.5
# A ``<main>``/``<article>`` is trusted as the main content only when it holds at least this share of the prose.
_MAIN_SHARE = 0.4
_LINKY = 0.5
_MIN_PROSE = 300
_ARTICLE_PROSE = 1000  # prose outside a comment section for the page to be an article with comments
_SHORT = 80
_LONE_LINK = 120  # a link paragraph this short inside the main text is not a menu (a name, a button)
# A paragraph inside the main text with at least this many characters outside its links, ending as a sentence
# does, is text whatever its links cover ("The investigation had been shelved in 2017 but was <a>re-opened
# earlier this year following his eviction</a>."); a teaser's "Read more:" has a few.
_LINKED_SENTENCE = 40
# The main box must hold at least this share of the page's prose.
_BOX_SHARE = 0.75
_BOX_COVER = 0.25  # share of the visible text (blocks not in furniture) the densest box must hold to prune
_MENU_TABLE_DENSITY = 0.8  # a table this link-dense is a menu unless it has the shape of data
_DATA_CELL = 40  # the median cell of a data table is a name, a date or a number: short


def _good(block: Block) -> int:
    return max(block.chars - block.link, 0)


def _prose(block: Block) -> int:
    """Text that reads like content: blocks of some length with few links (headings and menus do not count).

    Lists and tables must be nearly link-free to count: a list of teasers (linked headline and a line of text
    each) is long and fairly text-dense, yet it is what surrounds an article, not the article.
    """
    if block.kind == "h" or block.chars < 80:
        return 0
    limit = 0.1 if block.kind == "list" or block.kind == "table" else 0.3
    if block.link > limit * block.chars:
        return 0
    return _good(block)


def _head(text: str) -> str | None:
    """The text's first word (its first run of word characters), lowercased, for the ``_*_HEADS`` prefilters.

    Why: an anchored regex whose every alternative opens with a fixed word can only match where that word opens
    the text, so a set lookup rules out most short blocks for a few character reads instead of a regex match each
    (~0.5 us). "" when the text has no word or a longer one than any listed (then none of them can open it); None
    when lowercase cannot judge the word (it opens with a digit, which ``\\d+`` alternatives match, or holds "İ",
    "ı" or "ſ"): the caller then asks the regex itself.
    """
    n = len(text)
    start = 0
    while start < n:
        ch = text[start]
        if ch.isalnum() or ch == "_":  # the regexes' \w
            break
        start += 1
    if start == n:
        return ""
    if text[start].isdecimal():  # the regexes' \d
        return None
    end = start
    while end < n:
        ch = text[end]
        if not (ch.isalnum() or ch == "_"):
            break
        if ch in "İıſ":
            return None
        end += 1
        if end - start > _HEAD_MAX:
            return ""
    return text[start:end].lower()


def _plain_case(text: str) -> bool:
    """Whether ``text.lower()`` holds every word that an IGNORECASE regex finds in the text: no "İ", "ı" or "ſ"."""
    for ch in text:
        if ch in "İıſ":
            return False
    return True


def _furniture_words(text: str, head: str | None) -> bool:
    """``_FURNITURE_TEXT.match`` or ``_FURNITURE_LINE.fullmatch``; each asked only when the first word can open it."""
    return ((head is None or head in _FURNITURE_TEXT_HEADS) and _FURNITURE_TEXT.match(text) is not None) or (
        (head is None or head in _FURNITURE_LINE_HEADS) and _FURNITURE_LINE.fullmatch(text) is not None)


def _post_meta(text: str, head: str | None) -> bool:
    """``_POST_META.match``, asked only when the first word can open it."""
    return (head is None or head in _POST_META_HEADS) and _POST_META.match(text) is not None


def _page_notice(text: str, head: str | None) -> bool:
    """``_PAGE_NOTICE.match``, asked only when the first word can open it."""
    return (head is None or head in _PAGE_NOTICE_HEADS) and _PAGE_NOTICE.match(text) is not None


# A line that asks the reader to follow the site on two or more social networks ("Follow Newsbeat on Instagram,
# Facebook, Twitter and YouTube."): furniture wherever it stands. The verb is required: a sentence that names
# networks ("The video spread on Facebook and Twitter") is text.
_SOCIAL_LINE_MAX = 160
_SOCIAL_ASK = re.compile(
    r"\W*(?:follow|find|like|connect with|join|subscribe|folgen?|suivez|retrouvez|síguenos|seguici|seguinos"
    r"|obserwuj|volg)\b", re.IGNORECASE)
_SOCIAL_HEADS = frozenset({
    "follow", "find", "like", "connect", "join", "subscribe", "folge", "folgen", "suivez", "retrouvez", "síguenos",
    "seguici", "seguinos", "obserwuj", "volg",
})
_SOCIAL_NETWORK = re.compile(
    r"\b(?:facebook|twitter|instagram|youtube|linkedin|tiktok|pinterest|snapchat|threads|mastodon|bluesky"
    r"|whatsapp|telegram)\b", re.IGNORECASE)


def _social_line(text: str, head: str | None) -> bool:
    """``_SOCIAL_ASK`` opens the line (asked only when the first word can open it) and ``_SOCIAL_NETWORK`` names
    two networks or more in it."""
    return ((head is None or head in _SOCIAL_HEADS) and _SOCIAL_ASK.match(text) is not None
            and len({m.lower() for m in _SOCIAL_NETWORK.findall(text)}) >= 2)


def _cookie_notice(text: str) -> bool:
    """``_COOKIE_NOTICE`` found in the lowercased text of a paragraph that writes the word as "cookie", "Cookie"
    or "COOKIE" (every alternative holds it). Why the word first: most paragraphs never say it, and lowercasing
    a non-ASCII text costs about 1 us; a case-blind regex was slower still (~30 ns a character)."""
    return kernel.holds_either(text, b"ookie", b"OOKIE") and _COOKIE_NOTICE.search(text.lower()) is not None


def _copyright(text: str, head: str | None) -> bool:
    """``_COPYRIGHT.match``, asked only of texts opening with "(c)" or "copyright" or with a "©" among the first
    four characters (the regex allows three non-word characters before it)."""
    if head is not None and head not in _COPYRIGHT_HEADS:
        n = min(len(text), 4)
        k = 0
        while k < n and text[k] != "©":
            k += 1
        if k == n:
            return False
    return _COPYRIGHT.match(text) is not None


def _credit_label(text: str, head: str | None) -> bool:
    """``_CREDIT_LABEL.match``, asked only when the first word can open it."""
    return (head is None or head in _CREDIT_LABEL_HEADS) and _CREDIT_LABEL.match(text) is not None


def _credit(text: str) -> bool:
    """``_CREDIT.search``, asked only of texts whose lowercase holds one of ``_CREDIT_WORDS`` (unanchored and
    case-blind, the regex costs ~10 us on a caption)."""
    if _plain_case(text):
        low = text.lower()
        for word in _CREDIT_WORDS:
            if word in low:
                break
        else:
            return False
    return _CREDIT.search(text) is not None


def decide(walker: Walked, discussion: bool = False) -> None:
    blocks = walker.blocks
    ctxs = walker.ctxs
    for block in blocks:
        ctx = block.ctx
        ctx.chars += block.chars
        ctx.good += _good(block)
        ctx.prose += _prose(block)
    for ctx in ctxs:
        ctx.total = ctx.chars
        ctx.total_good = ctx.good
    for ctx in reversed(ctxs):  # children were created after their parents
        parent = ctx.parent
        if parent is not None:
            parent.total += ctx.total
            parent.total_good += ctx.total_good
            parent.prose += ctx.prose
            held = ctx.prose if ctx.pos else ctx.pos_prose
            parent.pos_prose = max(parent.pos_prose, held)
    root = walker.root
    if root.prose == 0:  # a page of short lines only: measure shares in plain visible text instead
        for ctx in ctxs:
            ctx.prose = ctx.total_good
    page_prose = max(root.prose, 1)
    page_chars = max(root.total, 1)

    # The main container: the tightest <main>/<article>/role=main that still holds most of the prose.
    main: Ctx | None = None
    candidates = [c for c in ctxs if c.pos and not c.hidden and c.prose > 0 and c.prose >= _MAIN_SHARE * page_prose]
    for ctx in candidates:
        if main is None or ctx.prose <= main.prose:
            main = ctx
    protected: set[int] = set()
    node = main
    while node is not None:
        protected.add(node.order)
        node = node.parent
    for ctx in candidates:
        if ctx.order not in protected:
            # Two sibling <article> posts both hold much of the prose: neither is "the" main text.
            main = None
            protected = set()
            break

    # Posts of a thread are often sibling "comment" elements with nothing around them but the page, and a product
    # page's features sibling "gallery" panels: one alone holds little of the prose, all of them most of it. Weak
    # evidence is weighed per group of such siblings (same parent, tag and class).
    group_prose: dict[tuple[int, str, str], int] = {}
    for ctx in ctxs:
        if ctx.neg == WEAK and ctx.parent is not None:
            key = _sibling_key(ctx)
            group_prose[key] = group_prose.get(key, 0) + ctx.prose

    # Cards: three or more sibling <article>s of one class (a shop's products, a blog's post list).
    card_count: dict[tuple[int, str, str], int] = {}
    for ctx in ctxs:
        if ctx.pos and ctx.tag == "article" and ctx.parent is not None:
            key = _sibling_key(ctx)
            card_count[key] = card_count.get(key, 0) + 1
    cards = {ctx.order for ctx in ctxs if ctx.pos and ctx.tag == "article" and ctx.parent is not None
             and card_count[_sibling_key(ctx)] >= 3}

    # The prose of each element's nearest <article>/<main> (itself included), by creation order.
    article_prose = [0] * len(ctxs)
    for ctx in ctxs:
        parent = ctx.parent
        if ctx.pos:
            article_prose[ctx.order] = ctx.prose
        elif parent is not None:
            article_prose[ctx.order] = article_prose[parent.order]
        if parent is None:
            continue
        ctx.main = parent.main or ctx is main
        ctx.byline = ctx.byline or parent.byline
        ctx.flagged = parent.flagged or bool(ctx.neg) or ctx.hidden
        ctx.cleared = parent.cleared
        if parent.boiler:
            ctx.boiler = True
            continue
        if ctx.order in protected:
            continue
        reference = main.prose if (main is not None and parent.main) else page_prose
        share = ctx.prose / max(reference, 1)
        # An element named like furniture that holds most of the prose, or that holds an <article> carrying
        # most of its own prose, is a wrapper whose name lies (``class="layout sidebar-first"``).
        # So is one that holds most of its own <article>'s prose (``<div class="paywall-container">`` around the
        # article's body, on a page whose comments outweigh the article).
        wrapper = share > _WRAPPER_SHARE or (
            ctx.pos_prose >= 0.5 * max(ctx.prose, 1) and ctx.pos_prose >= 0.1 * page_prose
        ) or (not ctx.pos and ctx.prose > _WRAPPER_SHARE * article_prose[ctx.order] > 0)
        if ctx.hidden:
            ctx.boiler = share <= _WRAPPER_SHARE
        elif ctx.neg == STRONG:
            # A cookie or consent box, a modal or a popup is never a wrapper around the text, however much it
            # says: on a short article a consent dialog's policy text outweighs the article.
            ctx.boiler = not wrapper or _DIALOG_NAME.search(ctx.name.lower()) is not None
        elif ctx.neg == WEAK:
            # Weak names (comments, header, toc) are content when they hold much of the prose, when they are also
            # an <article>, or when an enclosing weak element already proved to be content (posts of a thread).
            group = group_prose[_sibling_key(ctx)]
            ctx.boiler = group / max(reference, 1) < 0.25 and not wrapper and not ctx.pos and not ctx.cleared
            if not ctx.boiler and not ctx.cleared and not discussion and "comment" in ctx.name.lower():
                # Comments under an article are furniture however many there are; a thread whose first post is
                # itself a "comment" has no prose outside them (in its <main>, when they are in one: a sidebar's
                # prose is no article).
                ctx.boiler = reference - max(ctx.prose, group) >= max(_ARTICLE_PROSE, 0.15 * reference)
            ctx.cleared = not ctx.boiler

    # The main box: the tightest container holding most of the prose (a readability-style density argument,
    # without trusting any name). On pages where prose is spread out, that is the body and nothing is pruned.
    # Measured after the decisions above, so that a comment section that outweighs its article is not the box.
    boxes = walker.boxes
    for block in blocks:
        if block.box is not None and not block.ctx.boiler:
            block.box.prose += _prose(block)
    for box in reversed(boxes):
        if box.parent is not None:
            box.parent.prose += box.prose
    main_box = boxes[0]
    need = _BOX_SHARE * boxes[0].prose
    for box in boxes:
        if box.prose >= need and box.prose <= main_box.prose:
            main_box = box
    if discussion:
        main_box = _around_first_post(blocks, main, main_box)
    for box in boxes:
        box.inside = box is main_box or (box.parent is not None and box.parent.inside)
    # With only a line or two of prose on the page, where it sits says nothing about where the content is.
    pruning_box = main_box is not boxes[0] and boxes[0].prose >= _MIN_PROSE
    if pruning_box:
        # Nor when the box holds little of the text a reader sees: prose counts paragraphs and nearly link-free lists
        # only, so a page whose content is a list of features, each with its "Learn more" link, looks like one
        # short intro; the box would drop the list (Mozilla Readability's test page mozilla-2: recall 0.43).
        visible = 0
        for block in blocks:
            if not block.ctx.boiler:
                visible += _good(block)
        pruning_box = main_box.prose >= _BOX_COVER * visible

    title_seen = False
    label_before = False
    for i, block in enumerate(blocks):
        ctx = block.ctx
        boiler = ctx.boiler
        if boiler and block.kind == "h" and block.level == 1 and not ctx.hidden and ctx.neg != STRONG:
            # The page's title, even inside a header; a later <h1> in furniture ("Want to read on?") stays out.
            boiler = title_seen
        density = block.link / block.chars if block.chars else 0.0
        if not boiler and main is not None and not ctx.main:
            boiler = ctx.flagged or not _stands_alone(block, density)
        if not boiler and pruning_box and block.box is not None and not block.box.inside:
            boiler = ctx.flagged or not (_near_prose(block, density) or (
                # Inside the <article>, a list without a single link (ingredients, facts) is the article's, and so
                # is its code (a question's example beside answers that hold most of the prose).
                ctx.main and (block.kind == "code" or (
                    block.kind == "list" and block.link == 0 and len(block.items) >= 3))))
        if not boiler and density > _LINKY and block.kind != "h" and block.kind != "code":
            if block.kind == "table":
                # Data tables link their entities (Wikipedia); only a grid of links is a menu.
                # A header row is left alone: header cells are what a data table has and a menu does not.
                boiler = block.table is not None and block.table.header is None and _menu_table(block.table, density)
            elif block.kind == "list" and block.chars >= 0.3 * page_chars:
                boiler = False  # a list of links that is the bulk of the page is what the page lists
            else:
                # Inside the main text a lone link is content ("Lifetime guarantee", a product's name) unless it
                # asks the reader to act ("Start now", "Book a demo": _ACTION_LINE); runs of links and link lists
                # are menus.
                if main is not None:
                    inside = ctx.main
                elif pruning_box:
                    inside = block.box is not None and block.box.inside
                else:  # no container stands out: anything not named like furniture may be main text
                    inside = not ctx.flagged
                if block.kind == "list" and main is not None and inside and _sentence_items(block):
                    boiler = False  # a changelog, a reference list: links whose items say something
                elif block.kind == "p" and ctx.order in cards and not ctx.flagged:
                    boiler = False  # a card's linked name or summary is what a listing lists
                elif (block.kind == "p" and inside and block.chars - block.link >= _LINKED_SENTENCE
                      and block.text.rstrip()[-1:] in ".!?"):
                    boiler = False  # a sentence whose words are partly links
                else:
                    boiler = (not inside or block.kind == "list" or block.chars > _LONE_LINK
                              or (block.button and len(block.text.split()) <= 8)
                              or _linky_neighbour(blocks, i)
                              or (block.kind == "p" and len(block.text.split()) <= 8
                                  and _ACTION_LINE.fullmatch(block.text) is not None))
        head = None
        if not boiler and (block.kind == "p" or block.kind == "h" or block.kind == "caption"):
            head = _head(block.text)  # once per block, for the prefilters of the regexes below
        if not boiler and block.kind in ("p", "h") and block.chars <= 60 and _furniture_words(block.text, head):
            boiler = True  # "Read more", "Lesen Sie auch", "Leave a comment": the words of page furniture
            label_before = True
        elif (not boiler and label_before and block.kind in ("p", "list") and block.chars <= _TEASER_LINK
              and density > _LINKY):
            boiler = True  # the link that "Lesen Sie auch:" / "Lue myös:" introduces is a teaser for another page
        else:
            label_before = False
        if not boiler and block.kind == "p" and block.chars <= _POST_META_MAX and _post_meta(block.text, head):
            boiler = True
        if not boiler and block.kind == "p" and block.chars <= _PAGE_NOTICE_MAX and _page_notice(block.text, head):
            boiler = True
        if not boiler and block.kind == "p" and block.chars <= _SOCIAL_LINE_MAX and _social_line(block.text, head):
            boiler = True
        if not boiler and block.kind == "p" and block.chars <= _COOKIE_NOTICE_MAX and _cookie_notice(block.text):
            boiler = True
        if not boiler and block.kind == "p" and _copyright(block.text, head):
            boiler = True  # "© 2022 Example News. All rights reserved." is a notice, not the text
        if not boiler and block.kind == "p" and block.text[:1] == "<" and _MARKUP_TEXT.fullmatch(block.text):
            boiler = True
        if not boiler and block.chars <= _CREDIT_MAX and block.kind in ("caption", "p"):
            if _credit_label(block.text, head):
                boiler = True
            elif block.kind == "caption" or ctx.byline:
                boiler = _credit(block.text)
        block.boiler = boiler
        if block.kind == "h" and block.level == 1 and not boiler:
            title_seen = True
        block.meta = ctx.byline and block.kind == "p" and block.chars <= _BYLINE_MAX

    if main is None:
        _teasers(blocks)
    _repeats(blocks)
    _trailing_labels(blocks)
    _orphan_headings(blocks)


def _sibling_key(ctx: Ctx) -> tuple[int, str, str]:
    """Siblings of one kind: the same enclosing element with evidence, tag and class (ids differ per post)."""
    parent = ctx.parent
    return (parent.order if parent is not None else -1, ctx.tag, ctx.name.partition(".")[2])


def _sentence_items(block: Block) -> bool:
    """A linked list whose items read like lines of text, not like menu entries: ``_ITEM_WORDS`` words or more
    per item on average.

    Why: inside the main container, a list of links is a menu ("Home", "Pricing", "Contact") unless its items
    say something: a changelog's entries, a reference list, a category's member pages, a resource list. Teaser
    lists of headlines also read like text; they are caught by their labels ("Read more:") and names instead.
    Measured with ``qatbe bench extraction``: wcxb 0.852 -> 0.855 (forum 0.803 -> 0.816, listing 0.638 -> 0.660,
    collection 0.653 -> 0.648), scrapinghub-aeb and trafilatura-eval unchanged.
    """
    if block.ctx.flagged or not block.items:
        return False
    return sum(len(text.split()) for text, *_ in block.items) >= _ITEM_WORDS * len(block.items)


def _teasers(blocks: list[Block]) -> None:
    """Linked headlines, each with a line or two under it, are teasers for other pages ("More stories").

    Used only when no <main>/<article> marks the main text, and only while teasers are a minority of the kept
    text: on a listing page the teasers are the content. A headline is linked when links make at least four
    fifths of it: a forum post's header names a linked member and adds an unlinked rank ("MargoFarrel Member",
    three fifths linked), and the post under it is no teaser (wcxb 0520 lost a reply to this rule at 0.6).
    """
    sections: list[list[Block]] = []
    current: list[Block] | None = None
    for block in blocks:
        if block.kind == "h":
            current = None
            if not block.boiler and block.chars and block.link >= 0.8 * block.chars:
                current = [block]
                sections.append(current)
        elif current is not None and not block.boiler:
            current.append(block)
    body = [sum([b.chars for b in sec[1:]]) for sec in sections]  # text under each headline
    teasers = [sec for sec, chars in zip(sections, body) if chars < _TEASER_MAX]
    if len(teasers) < 2:
        return
    in_teasers = {id(b) for sec in teasers for b in sec}
    teaser_chars = sum(b.chars for sec in teasers for b in sec)
    other_prose = sum(_prose(b) for b in blocks if not b.boiler and id(b) not in in_teasers)
    if other_prose < max(_TEASER_ARTICLE, _TEASER_SHARE * teaser_chars):
        return  # no article beside them: the teasers are the page
    # A teaser list is one template filled in again and again: a section built like _TEASER_LIKE or more of
    # the short ones (heading level, the kinds of the blocks under it) is one more, if a longer summary.
    shapes: dict[tuple[object, ...], int] = {}
    for sec in teasers:
        shape = _shape(sec)
        shapes[shape] = shapes.get(shape, 0) + 1
    teasers += [sec for sec, chars in zip(sections, body)
                if _TEASER_MAX <= chars < _TEASER_LONG and shapes.get(_shape(sec), 0) >= _TEASER_LIKE]
    for sec in teasers:
        for block in sec:
            block.boiler = True


def _shape(section: list[Block]) -> tuple[object, ...]:
    """A linked-headline section's build: its heading level and the kinds of the blocks under it."""
    return (section[0].level, *[b.kind for b in section[1:]])


def _repeats(blocks: list[Block]) -> None:
    """A line of text said again later (a slideshow caption, a pull quote, a repeated teaser) is kept once.

    So is a caption that a block just before it already holds whole, shown again in its expanded and its
    truncated form ("... Southeast Asian nation. less", "... military relations ... more"). Only such a
    toggle marks one: a paragraph that repeats a sentence of the one before it (a reply quoting a post, a
    note said again under each tab of a tutorial) is text."""
    seen: set[str] = set()
    kept: list[Block] = []  # the blocks kept so far; a toggle looks in the last _RECENT of them
    for block in blocks:
        if block.boiler:
            continue
        if block.kind in ("p", "caption", "quote") and block.chars >= _REPEAT_MIN:
            text = block.text
            if text in seen:
                block.boiler = True
                continue
            seen.add(text)
            if text[-4:].lower() in _TOGGLES:  # the regex only for the texts it can change
                core = _TOGGLE_TAIL.sub("", text)
                if len(core) < len(text) and len(core) >= _REPEAT_MIN and any(
                        core in _block_text(other) for other in kept[-_RECENT:]):
                    block.boiler = True
                    continue
        kept.append(block)


def _block_text(block: Block) -> str:
    """A block's text; a list's is its items' texts joined."""
    return " ".join([item[0] for item in block.items]) if block.kind == "list" else block.text


def _is_label(block: Block) -> bool:
    """A few words with no sentence in them: "Read more", "Kontakt:", "À lire aussi", "Zu allen Beiträgen"."""
    if block.kind not in ("p", "h") or block.meta or block.link * 2 > block.chars:
        return False  # a lone link ("Start now") is an action, judged by the link rules
    text = block.text
    if len(text) > 60 or text[-1:] in ".!?…" or any(ch.isdigit() for ch in text):
        return False
    if ", " in text and text[-1:] != ":":
        return False  # a sign-off after the text ("XX, Die Redaktion", "Cheers, Tom"), not a label
    return len(text.split()) <= 6


def _trailing_labels(blocks: list[Block]) -> None:
    """Labels after the last real block of text introduce furniture ("More on this topic:", "Back to the index").

    One or two of them; a longer run of short lines at the end is a list of names (a listing page), not labels.
    """
    labels: list[Block] = []
    for block in reversed(blocks):
        if block.boiler:
            continue
        if not _is_label(block):
            # Only after real text: a page whose only words are a label keeps them.
            if len(labels) <= _TRAILING_LABELS:
                for label in labels:
                    label.boiler = True
            return
        labels.append(block)


def _stands_alone(block: Block, density: float) -> bool:
    """Outside the main container, only the page title and real prose survive."""
    if block.kind == "h":
        return block.level == 1
    if block.kind == "p":
        return block.chars >= 250 and density < 0.2
    return False


def _around_first_post(blocks: list[Block], main: Ctx | None, box: Box) -> Box:
    """On a discussion page, ``box`` widened to the nearest box that also holds the first post (its first block of
    prose or code, inside ``main`` when there is one). Why: a thread's answers or replies can outweigh its
    question, and the tightest box holding most of the prose then held the answers only; the question's short
    lines and its code fell outside and were pruned (a Stack Overflow question's example, a forum's opening post)."""
    first: Box | None = None
    for block in blocks:
        if (block.box is not None and not block.ctx.boiler and (_prose(block) > 0 or block.kind == "code")
                and (main is None or block.ctx.main)):
            first = block.box
            break
    if first is None:
        return box
    around: set[Box] = set()
    up: Box | None = first
    while up is not None:
        around.add(up)
        up = up.parent
    while box.parent is not None and box not in around:
        box = box.parent
    return box


def _near_prose(block: Block, density: float) -> bool:
    """Outside the densest box the evidence is weaker than outside a <main>: keep what reads like text."""
    if density > 0.3:
        return False
    if block.kind == "h":
        return True
    return block.kind in ("p", "quote", "summary") and block.chars >= _SHORT


def _menu_table(table: TableData, density: float) -> bool:
    """A grid of links is a menu (a navbox: a label cell beside a cell of dozens of links); a table of many rows
    of a few short cells is data even when every name in it is a link (a list of office holders, of winners)."""
    if density <= _MENU_TABLE_DENSITY:
        return False
    cells = sorted(len(cell) for row in table.rows for cell in row if cell)
    if not cells:
        return True
    width = max(len(row) for row in table.rows)
    short = cells[len(cells) // 2] <= _DATA_CELL
    # Three columns at least: a footer's two-column grid of short links is still a menu.
    return not (len(table.rows) >= 3 and width >= 3 and short)


def _linky_neighbour(blocks: list[Block], i: int) -> bool:
    for j in (i - 1, i + 1):
        if 0 <= j < len(blocks):
            other = blocks[j]
            if other.chars and other.link / other.chars > _LINKY and other.kind != "h":
                return True
    return False


def rescue(blocks: list[Block]) -> None:
    """When every block was judged boilerplate, the blocks no element names as furniture are kept after all.

    Why: an empty answer for a page that has words is a silent wrong answer. It happens on small pages whose only
    text sits in a link (``<a href="javascript:">`` around the paragraphs) or under headings with nothing but
    images below them. Text inside an element named or tagged as furniture (a nav, a footer, a cookie box) or
    hidden stays out: a page of nothing but menus still yields nothing.
    """
    for block in blocks:
        if not block.boiler and block.chars:
            return
    for block in blocks:
        if block.chars and not block.ctx.flagged:
            block.boiler = False


def _orphan_headings(blocks: list[Block]) -> None:
    """A heading whose section holds nothing but boilerplate ("Related stories", "Share") is boilerplate too.

    Not a long one: a sentence set as a heading (a standfirst in an ``<h4>`` above the first subheading) is text.
    """
    content_after = [False] * 7  # index = heading level; True when kept content follows before a same-level heading
    for block in reversed(blocks):
        if block.kind == "h":
            level = block.level
            if not block.boiler and not content_after[level] and block.chars <= _ORPHAN_MAX:
                block.boiler = True
            if not block.boiler:
                for lv in range(1, level):
                    content_after[lv] = True
            for lv in range(level, 7):
                content_after[lv] = False
        elif not block.boiler:
            for lv in range(1, 7):
                content_after[lv] = True
