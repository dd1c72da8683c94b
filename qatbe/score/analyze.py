"""Text -> index terms: Unicode tokenization, case and accent folding, stopwords, Snowball stemming.

Rules (the same for segments and queries, so that both sides meet):
- A token is a run of letters/digits, with ``- ' ’ . _`` allowed *between* letters/digits ("state-of-the-art",
  "don't", "3.11", "get_user"). Case is folded with ``str.casefold``; accents on Latin, Greek and Cyrillic letters
  are removed *after* stemming (Snowball stemmers expect the accented forms).
- Numbers and versions stay whole: "3.11", "v2", "1,000" -> "3.11", "v2", "1000".
- Dotted abbreviations join ("U.S." -> "us"); other dotted tokens split ("example.com" -> "example", "com").
- Hyphens: the parts, plus the joined form ("e-mail" -> "e", "mail", "email").
- Apostrophes: a possessive 's is dropped ("John's" -> "john"); an elided article keeps the word after it too
  ("l'homme" -> "lhomme", "homme"); otherwise the apostrophe is removed ("don't" -> "dont").
- Identifiers: snake_case and camelCase yield the whole identifier plus its parts as extra terms.
- CJK (Han, kana, Hangul) has no spaces: every run yields its character bigrams (a lone character yields itself).
- Stopwords of the language are dropped; words are stemmed with the language's Snowball stemmer when it has one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from . import languages

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
# Combining marks are part of words (Python's \w has no \p{M}): Latin diacritics, Hebrew and Arabic points,
# Indic and Thai vowel signs and viramas.
_MARKS = "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0900-\u0dff\u0e00-\u0eff" \
    "\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_W = rf"(?:[^\W{_CJK}]|[{_MARKS}])"
# A word is [letters/digits] ([-'’.,] [letters/digits])*; CJK characters are never part of a word.
_TOKEN = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>{_W}+(?:[-'’.,](?!_){_W}+)*)")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NUMBER = re.compile(r"v?\d+(?:[.,]\d+)*", re.IGNORECASE)
_ELISION = frozenset("l d j m n s t c qu lorsqu puisqu jusqu un dell all dall nell sull".split())


def _fold(term: str) -> str:
    """Remove accents from Latin, Greek and Cyrillic letters (not from scripts where marks carry meaning)."""
    if term.isascii():
        return term
    out = []
    for ch in unicodedata.normalize("NFD", term):
        if unicodedata.combining(ch) and out and out[-1] < "\u0530":
            continue
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def split_word(token: str) -> list[str]:
    """One raw word token -> its surface terms (case-folded, before stopwords and stemming). The first term is
    the main one; the others are extra terms (identifier parts, joined compounds)."""
    if token.isalnum() and (token.islower() or token.isupper() or token[1:].islower()):
        return [token.casefold()]
    extra: list[str] = []
    if "_" in token:
        parts = [p for p in token.split("_") if p]
        extra.extend(p.casefold() for p in parts)
        whole = token.casefold()
        out = [whole] + [p for p in extra if p != whole]
        return _expand_camel(token, out)
    if _NUMBER.fullmatch(token):
        return [token.casefold().replace(",", "")]
    if any(c in token for c in "-.,"):
        pieces = [p for p in re.split(r"[-.,]", token) if p]
        if "." in token and "-" not in token and all(len(p) == 1 for p in pieces):
            return ["".join(pieces).casefold()]
        out = []
        for p in pieces:
            out.extend(split_word(p))
        if "-" in token and 1 < len(pieces) <= 4:
            out.append("".join(pieces).casefold())
        return out
    if "'" in token or "’" in token:
        low = token.casefold().replace("’", "'")
        if low.endswith("'s"):
            low = low[:-2]
        head, _, tail = low.partition("'")
        if not tail:
            return split_word(head) if head else []
        out = [low.replace("'", "")]
        if head in _ELISION:
            out.append(tail.replace("'", ""))
        return out
    return _expand_camel(token, [token.casefold()])


def _expand_camel(token: str, out: list[str]) -> list[str]:
    for piece in token.split("_"):
        parts = _CAMEL.split(piece)
        if len(parts) > 1:
            out.extend(p.casefold() for p in parts if p and p.casefold() not in out)
    return out


def raw_terms(text: str) -> list[str]:
    """Surface terms of ``text`` in order (CJK bigrams included), before stopwords and stemming."""
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        cjk = m.group("cjk")
        if cjk:
            if len(cjk) == 1:
                out.append(cjk)
            else:
                out.extend(cjk[i : i + 2] for i in range(len(cjk) - 1))
        else:
            out.extend(split_word(m.group("word")))
    return out


class Analyzer:
    """Analysis for one language: surface term -> index term, memoised (a page repeats its words)."""

    def __init__(self, language: str | None) -> None:
        self.language = languages.normalize_code(language)
        self.lexicon = languages.lexicon(self.language)
        self._stemmer = languages.stemmer(self.language)
        self._cache: dict[str, str | None] = {}

    def term(self, surface: str) -> str | None:
        """The index term of a surface term, or None for a stopword."""
        cached = self._cache.get(surface, "")
        if cached != "":
            return cached
        if surface in self.lexicon.stopwords:
            result: str | None = None
        else:
            stem = surface
            if self._stemmer is not None and not surface[0].isdigit():
                with languages.stem_lock():
                    stem = self._stemmer.stemWord(surface)
            result = _fold(stem)
        self._cache[surface] = result
        return result

    def terms(self, text: str, keep_stopwords: bool = False) -> list[str]:
        """Index terms of ``text``; with ``keep_stopwords`` a stopword stays as its folded surface form."""
        term = self.term
        if keep_stopwords:
            return [term(s) or _fold(s) for s in raw_terms(text)]
        return [t for t in map(term, raw_terms(text)) if t is not None]

    def query(self, text: str) -> tuple[list[tuple[str, str]], bool]:
        """Distinct (index term, first surface form) of a query, and whether it was made of stopwords only.

        Stopwords are dropped unless nothing else is left: "to be or not to be" still means its words (the
        segments must then be analysed with ``keep_stopwords=True``)."""
        seen: dict[str, str] = {}
        surfaces = raw_terms(text)
        for s in surfaces:
            t = self.term(s)
            if t is not None:
                seen.setdefault(t, s)
        if seen:
            return list(seen.items()), False
        for s in surfaces:
            seen.setdefault(_fold(s), s)
        return list(seen.items()), True


@lru_cache(maxsize=64)
def analyzer(language: str | None) -> Analyzer:
    return Analyzer(language)


def analyze_all(texts: Iterable[str], language: str | None) -> list[list[str]]:
    a = analyzer(language)
    return [a.terms(t) for t in texts]
