"""The decision step's regex prefilters answer exactly as the plain regexes (``html_decide._head`` and friends).

A prefilter may only rule a text out when its regex cannot match it, so each prefiltered test must agree with its
regex on every text: on texts the regexes themselves generate (matches, with re.IGNORECASE's case changes), on the
same texts with the characters that case-folding treats in surprising ways ("İ", "ı", "ſ", the Kelvin sign), on
arbitrary text, and on every short block of real pages. The texts of every alternative of every regex are
enumerated from its parse tree, so that no opening word can be missed by chance. Both the compiled module (when
built) and its ``.py`` source are checked: the compiled one reads characters as C code points.
"""

from __future__ import annotations

import gzip
import itertools
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser
from test_html_decide_compiled import PURE

from qatbe.segmentation import html_decide
from qatbe.segmentation.html import _walk
from qatbe.segmentation.html_guard import limit_nesting

try:  # the regex parser: private, but the only way to list a pattern's alternatives
    import re._constants as sre_constants
    import re._parser as sre_parse
except ImportError:  # Python 3.10
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

MODULES = [pytest.param(PURE, id="source")]
if not html_decide.__file__.endswith(".py"):
    MODULES.append(pytest.param(html_decide, id="compiled"))

M = PURE  # the regexes and word sets are the same objects' values in both modules
# (regex, how it is applied, the first words that may open a match)
ANCHORED: list[tuple[re.Pattern[str], str, frozenset[str]]] = [
    (M._FURNITURE_TEXT, "match", M._FURNITURE_TEXT_HEADS),
    (M._FURNITURE_LINE, "fullmatch", M._FURNITURE_LINE_HEADS),
    (M._POST_META, "match", M._POST_META_HEADS),
    (M._PAGE_NOTICE, "match", M._PAGE_NOTICE_HEADS),
    (M._CREDIT_LABEL, "match", M._CREDIT_LABEL_HEADS),
    (M._COPYRIGHT, "match", M._COPYRIGHT_HEADS),
    (M._SOCIAL_ASK, "match", M._SOCIAL_HEADS),
]
WORDS = sorted(set().union(*(heads for _, _, heads in ANCHORED), M._CREDIT_WORDS))
# Every code point but the surrogates, as one string to run a regex over.
EVERY = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
# Case-folding traps: re.IGNORECASE and str.lower() disagree on the first three; the others are folded alike.
TRAPS = {"i": "İı", "I": "İı", "s": "ſ", "S": "ſ", "k": "\u212a", "K": "\u212a", "å": "\u212b", "ß": "\u1e9e"}


def _plain(regex: re.Pattern[str], how: str, text: str) -> bool:
    return getattr(regex, how)(text) is not None


def _prefiltered(module: ModuleType) -> list[tuple[str, Callable[[str], bool], Callable[[str], bool]]]:
    """Each prefiltered test of ``module`` beside the plain regex test it stands for."""
    return [
        ("furniture", lambda t: module._furniture_words(t, module._head(t)),
         lambda t: M._FURNITURE_TEXT.match(t) is not None or M._FURNITURE_LINE.fullmatch(t) is not None),
        ("post_meta", lambda t: module._post_meta(t, module._head(t)), lambda t: _plain(M._POST_META, "match", t)),
        ("page_notice", lambda t: module._page_notice(t, module._head(t)),
         lambda t: _plain(M._PAGE_NOTICE, "match", t)),
        ("copyright", lambda t: module._copyright(t, module._head(t)), lambda t: _plain(M._COPYRIGHT, "match", t)),
        ("credit_label", lambda t: module._credit_label(t, module._head(t)),
         lambda t: _plain(M._CREDIT_LABEL, "match", t)),
        ("credit", module._credit, lambda t: _plain(M._CREDIT, "search", t)),
        ("social", lambda t: module._social_line(t, module._head(t)),
         lambda t: _plain(M._SOCIAL_ASK, "match", t) and len({m.lower() for m in M._SOCIAL_NETWORK.findall(t)}) >= 2),
    ]


def _agree(module: ModuleType, text: str) -> None:
    for name, fast, plain in _prefiltered(module):
        assert fast(text) == plain(text), (name, text)
    head = module._head(text)
    for regex, how, heads in ANCHORED:
        if _plain(regex, how, text):  # the word set itself lists the opening word (or the head is left to the regex)
            mark = regex is M._COPYRIGHT and "©" in text[:4]
            assert head is None or head in heads or mark, (regex.pattern[:40], text, head)


def _bend(data: st.DataObject, text: str) -> str:
    """The text with some letters swapped for characters that case-fold into them (or nearly)."""
    out = []
    for ch in text:
        if ch in TRAPS and data.draw(st.booleans()):
            out.append(data.draw(st.sampled_from(TRAPS[ch])))
        else:
            out.append(ch)
    return "".join(out)


def _matches(regex: re.Pattern[str], how: str) -> st.SearchStrategy[str]:
    """Texts the regex matches as the decision step applies it (at the start, or in full, or anywhere)."""
    if how == "search":
        return st.from_regex(regex)
    return st.from_regex(re.compile(r"\A(?:" + regex.pattern + ")", regex.flags), fullmatch=how == "fullmatch")


_C = sre_constants
_CATEGORY = {_C.CATEGORY_DIGIT: "7", _C.CATEGORY_NOT_DIGIT: "x", _C.CATEGORY_SPACE: " ", _C.CATEGORY_NOT_SPACE: "x",
             _C.CATEGORY_WORD: "a", _C.CATEGORY_NOT_WORD: " "}
_REPEATS = {_C.MAX_REPEAT, _C.MIN_REPEAT, getattr(_C, "POSSESSIVE_REPEAT", _C.MAX_REPEAT)}


def _concat(options: list[list[str]]) -> list[str]:
    """One option per position, concatenated: every combination while there are few, else every option once."""
    if len(list(itertools.islice(itertools.product(*options), 301))) <= 300:
        return ["".join(combo) for combo in itertools.product(*options)]
    return ["".join(opt if j == i else other[0] for j, other in enumerate(options))
            for i, opts in enumerate(options) for opt in opts]


def _texts(pattern: sre_parse.SubPattern) -> list[str]:
    """Texts along every alternative of a parsed pattern: each branch, each optional part with and without it,
    each character set's members, one character for each class (lookaheads are left to the suffixes that
    ``_alternatives`` tries)."""
    options: list[list[str]] = []
    for op, av in pattern:
        if op is _C.LITERAL:
            options.append([chr(av)])
        elif op is _C.IN:
            members = [chr(a) if o is _C.LITERAL else chr(a[0]) if o is _C.RANGE else _CATEGORY[a]
                       for o, a in av if o is not _C.NEGATE]
            options.append(["x"] if any(o is _C.NEGATE for o, _ in av) else members)
        elif op is _C.BRANCH:
            options.append([text for branch in av[1] for text in _texts(branch)])
        elif op is _C.SUBPATTERN:
            options.append(_texts(av[-1]))
        elif op in _REPEATS:
            low, high, item = av
            options.append(list(dict.fromkeys(text * k for k in sorted({low, min(low + 1, high)})
                                              for text in _texts(item))))
        elif op is _C.ANY or op is _C.NOT_LITERAL:
            options.append(["x" if (op is _C.ANY or av != ord("x")) else "y"])
        elif op not in (_C.AT, _C.ASSERT, _C.ASSERT_NOT):
            raise NotImplementedError(op)
    return list(dict.fromkeys(_concat(options))) if options else [""]


def _alternatives(regex: re.Pattern[str], how: str) -> list[str]:
    """Texts the regex matches as the decision step applies it, along every one of its alternatives."""
    texts = _texts(sre_parse.parse(regex.pattern, regex.flags))
    return [v for t in texts for v in (t, t + ":", t + " :", t + ":x", t + " x", t + "x") if _plain(regex, how, v)]


def test_word_characters_digits_and_lowercase_are_the_regexes() -> None:
    """``_head`` reads \\w as str.isalnum() or "_" and \\d as str.isdecimal(), and lowercases with str.lower()."""
    assert re.findall(r"\w", EVERY) == [c for c in EVERY if c.isalnum() or c == "_"]
    assert re.findall(r"\d", EVERY) == [c for c in EVERY if c.isdecimal()]
    assert [c for c in EVERY if len(c.lower()) != 1] == ["İ"]


@pytest.mark.parametrize("module", MODULES)
def test_only_the_three_traps_fold_otherwise_than_lowercase(module: ModuleType) -> None:
    """Every code point that re.IGNORECASE matches to a character of a listed word lowercases to that character,
    but "İ", "ı" and "ſ", which the prefilters leave to the regexes; all are word characters."""
    folded_otherwise = set()
    for ch in sorted(set("".join(WORDS))):
        matched = set(re.compile(re.escape(ch), re.IGNORECASE).findall(EVERY))
        folded_otherwise |= {c for c in matched if c.lower() != ch}
        if ch.isalnum():
            assert all(c.isalnum() for c in matched), ch
        else:  # "©", "(", ")", " ": no word character stands for them
            assert not any(c.isalnum() or c == "_" for c in matched), ch
    assert folded_otherwise == {"İ", "ı", "ſ"}
    for trap in folded_otherwise:
        assert module._head("a" + trap) is None and module._head(trap + "a") is None
        assert module._head(". " + trap + "x") is None and not module._plain_case("photo " + trap)


def test_the_word_sets_are_lowercase_and_short() -> None:
    for word in WORDS:
        assert word == word.lower()
    assert max(len(w) for _, _, heads in ANCHORED for w in heads) <= M._HEAD_MAX


@pytest.mark.parametrize("module", MODULES)
def test_head_is_the_first_word_lowercased(module: ModuleType) -> None:
    assert module._head("  «Read more» about it") == "read"
    assert module._head("---") == "" and module._head("") == ""
    assert module._head("12 bloggers like this") is None  # \d+ alternatives: left to the regex
    assert module._head("%d bloggern gefällt das") == "d"
    assert module._head("Über den Autor") == "über"
    assert module._head("x" * 17) == "" and module._head("x" * 16) == "x" * 16
    assert module._head("snake_case word") == "snake_case"
    assert module._head("THİS entry") is None and module._head("Poſted in") is None
    assert module._head("\u212aeep reading") == "keep"  # the Kelvin sign lowercases to "k", as the regex reads it


@pytest.mark.parametrize(("regex", "how", "heads"), ANCHORED,
                         ids=["furniture_text", "furniture_line", "post_meta", "page_notice", "credit_label",
                              "copyright", "social"])
def test_each_word_set_is_the_opening_words_of_its_regex(regex: re.Pattern[str], how: str,
                                                         heads: frozenset[str]) -> None:
    """Every alternative's opening word is listed, and nothing else is (a "©" opens _COPYRIGHT with no word)."""
    opened = {M._head(text) for text in _alternatives(regex, how)
              if not (regex is M._COPYRIGHT and "©" in text[:4])}
    assert opened - {None, ""} == heads


@pytest.mark.parametrize("module", MODULES)
@pytest.mark.parametrize(("regex", "how"), [(r, h) for r, h, _ in ANCHORED] + [(M._CREDIT, "search")],
                         ids=["furniture_text", "furniture_line", "post_meta", "page_notice", "credit_label",
                              "copyright", "social", "credit"])
def test_prefilters_agree_along_every_alternative(module: ModuleType, regex: re.Pattern[str], how: str) -> None:
    texts = _alternatives(regex, how)
    assert texts
    for text in texts:
        for variant in (text, text.upper(), text.title(), "« " + text, "1" + text, "%" + text,
                        text.replace("i", "İ"), text.replace("i", "ı"), text.replace("s", "ſ"),
                        text.replace("k", "\u212a"), text.upper().replace("I", "İ")):
            _agree(module, variant)


@pytest.mark.parametrize("module", MODULES)
@pytest.mark.parametrize(("regex", "how", "heads"), [*ANCHORED, (M._CREDIT, "search", frozenset())],
                         ids=["furniture_text", "furniture_line", "post_meta", "page_notice", "credit_label",
                              "copyright", "social", "credit"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_prefilters_agree_on_matches_of_each_regex(module: ModuleType, regex: re.Pattern[str], how: str,
                                                   heads: frozenset[str], data: st.DataObject) -> None:
    text = data.draw(_matches(regex, how))
    assert _plain(regex, how, text)
    _agree(module, text)
    _agree(module, _bend(data, text))
    _agree(module, data.draw(st.sampled_from(["", " ", "«", "(", "©", "1", "%"])) + text)


_PHRASES = st.sampled_from(sorted({*WORDS, "read more", "see also", "posted in", "last updated", "this entry was",
                                   "(c) 2024", "© dpa", "copyright", "photo:", "foto: dpa", "getty images",
                                   "Quelle:", "we earn a commission", "javascript is disabled in your",
                                   "%d bloggers like this", "5 bloggern gefällt das", "3 min read", "posts: 12",
                                   "reply", "add to cart", "teilen:", "tags:", "schlagwörter",
                                   "continue with email", "by continuing, you agree"}))


@pytest.mark.parametrize("module", MODULES)
@settings(max_examples=150, deadline=None)
@given(data=st.data(), parts=st.lists(st.one_of(_PHRASES, st.text(max_size=8)), max_size=5))
def test_prefilters_agree_on_phrases_and_noise(module: ModuleType, data: st.DataObject, parts: list[str]) -> None:
    glue = data.draw(st.sampled_from(["", " ", ": ", "\u00a0", " – ", "_"]))
    text = glue.join(parts)
    for variant in (text, text.upper(), text.title(), _bend(data, text), _bend(data, text.upper())):
        _agree(module, variant)


@pytest.mark.parametrize("module", MODULES)
@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_prefilters_agree_on_any_text(module: ModuleType, text: str) -> None:
    _agree(module, text)


@pytest.mark.corpora
@pytest.mark.parametrize("module", MODULES)
def test_prefilters_agree_on_real_blocks(module: ModuleType, corpora: Path) -> None:
    files = [f for name in ("scrapinghub-aeb", "wcxb", "trafilatura-eval")
             for f in sorted((corpora / name / "html").glob("*.html.gz"))[:40]]
    if not files:
        pytest.skip("no pages found under the corpora")
    texts = set()
    for file in files:
        html = gzip.decompress(file.read_bytes()).decode("utf-8", "replace")
        texts.update(b.text for b in _walk(LexborHTMLParser(limit_nesting(html))).blocks if b.chars <= 400)
    for text in texts:
        _agree(module, text)


def _cookie_rule(text: str) -> bool:
    """What ``_cookie_notice`` stands for: the lowercase regex over the lowercased text."""
    return M._COOKIE_NOTICE.search(text.lower()) is not None


def _spells_cookie(text: str) -> bool:
    return "ookie" in text or "OOKIE" in text


@pytest.mark.parametrize("module", MODULES)
def test_every_cookie_notice_alternative_holds_the_word(module: ModuleType) -> None:
    """``_cookie_notice`` looks for the word before the regex: each alternative's texts must hold it."""
    texts = _alternatives(M._COOKIE_NOTICE, "search")
    assert len(texts) > 50
    for text in texts:
        assert "cookie" in text, text
        for variant in (text, text.title(), text.upper(), "x " + text + " y"):
            assert module._cookie_notice(variant), variant


@pytest.mark.parametrize("module", MODULES)
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_cookie_notice_is_the_regex_over_the_lowercase(module: ModuleType, data: st.DataObject) -> None:
    """On the regex's own matches (in any case, bent or not) and on arbitrary text: the rule fires exactly when
    the regex finds a notice in the lowercased text, for texts that write the word as cookie, Cookie or COOKIE,
    and never otherwise."""
    match = data.draw(st.from_regex(M._COOKIE_NOTICE))
    for text in (match, match.upper(), match.title(), _bend(data, match), data.draw(st.text(max_size=60)),
                 data.draw(st.text(max_size=20)) + match.capitalize()):
        expected = _cookie_rule(text) and _spells_cookie(text)
        assert module._cookie_notice(text) == expected, text
    exact = data.draw(st.from_regex(M._COOKIE_NOTICE, fullmatch=True))
    if exact.isascii():  # a non-ASCII letter may lowercase to a letter and a combining mark, which \w is not
        assert module._cookie_notice(exact) and module._cookie_notice(exact.upper()), exact
