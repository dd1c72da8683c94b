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
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import chain

import numpy as np
import numpy.typing as npt

from .._backend import kernel
from . import languages

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NUMBER = re.compile(r"v?\d+(?:[.,]\d+)*", re.IGNORECASE)
# Snowball stemmers that also strip or rewrite word beginnings: no prefix filter for these languages.
_PREFIX_STEMMERS = frozenset({"ar", "id", "ga"})
# A raw token's index terms, and per term the prefix the query's prefix filter checks (None: no check).
_TokenTerms = tuple[tuple[str, ...], tuple[str | None, ...] | None]
_ELISION = frozenset(["l", "d", "j", "m", "n", "s", "t", "c", "qu", "lorsqu", "puisqu", "jusqu", "un", "dell", "all", "dall", "nell", "sull"])


def _fold(term: str) -> str:
    """Remove accents from Latin, Greek and Cyrillic letters (not from scripts where marks carry meaning)."""
    if term.isascii():
        return term
    out: list[str] = []
    for ch in unicodedata.normalize("NFD", term):
        if unicodedata.combining(ch) and out and out[-1] < "\u0530":
            continue
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


@lru_cache(maxsize=1 << 16)
def split_cached(token: str) -> tuple[str, ...]:
    """``split_word``, memoised across pages: the tokens that reach it (non-ASCII, joined, mixed case) recur."""
    return tuple(split_word(token))


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
        low = low.removesuffix("'s")
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


def surfaces(token: str, simple: bool) -> list[str]:
    """The surface terms of one raw token from the tokenizer (``simple`` tokens are already lower-cased)."""
    return [token] if simple else split_word(token)


def raw_terms(text: str) -> list[str]:
    """Surface terms of ``text`` in order (CJK bigrams included), before stopwords and stemming."""
    ids, _, vocab, simple = kernel.tokenize([text])
    per_token = [surfaces(tok, bool(flag)) for tok, flag in zip(vocab, simple)]
    return [s for i in ids.tolist() for s in per_token[i]]


# Memo entries per table before it starts afresh. Analyzers live for the process (one per language), and a
# pipeline over millions of pages meets an unbounded vocabulary (names, numbers, typos): the memo must not grow
# with it. 200,000 entries hold a large site's working vocabulary in a few tens of MB; clearing is invisible in the
# output (the memo only saves work).
MEMO_MAX = 200_000


class Analyzer:
    """Analysis for one language: surface term -> index term, memoised (a page repeats its words)."""

    def __init__(self, language: str | None) -> None:
        self.language = languages.normalize_code(language)
        self.lexicon = languages.lexicon(self.language)
        self._stemmer = languages.stemmer(self.language)
        self._cache: dict[str, str | None] = {}
        # Raw token -> (its index terms, "" for none; the prefix of each term the query's prefix filter checks,
        # or None when no part is checked), without / with keep_stopwords. ``index`` then handles most tokens of a
        # page with one dictionary lookup.
        self._tokens: tuple[dict[str, _TokenTerms], dict[str, _TokenTerms]] = ({}, {})

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
        if len(self._cache) >= MEMO_MAX:
            self._cache.clear()
        self._cache[surface] = result
        return result

    def terms(self, text: str, keep_stopwords: bool = False) -> list[str]:
        """Index terms of ``text``; with ``keep_stopwords`` a stopword stays as its folded surface form."""
        term = self.term
        if keep_stopwords:
            return [term(s) or _fold(s) for s in raw_terms(text)]
        return [t for t in map(term, raw_terms(text)) if t is not None]

    def index(
        self,
        texts: Sequence[str],
        vocab: dict[str, int],
        keep_stopwords: bool = False,
        only: Sequence[str] | None = None,
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """Term ids of every text in CSR form (``ids[offsets[i]:offsets[i + 1]]``), adding new terms to ``vocab``,
        and each text's length in raw tokens (query-independent; a token yielding several terms counts once).

        Stopwords stay in the stream as one shared id (they count in the segment length, as in Lucene without a
        stop filter, but never match). With ``only`` (the query's index terms), tokens that cannot become one of
        them are not analysed at all: they map to that shared id too. Which tokens cannot: plain ASCII words
        whose first two letters differ from every query term's, in a language whose stemmer only rewrites word
        endings (all Snowball stemmers but Arabic, Indonesian and Irish; the English exceptions dying/lying/tying
        -> die/lie/tie are the known misses). The compiled tokenizer interns tokens page-wide, so each distinct
        token is looked up once per page (its analysis is memoised across pages) and the per-occurrence work is
        numpy gathers.
        """
        prefixes = None
        if only is not None and self.language not in _PREFIX_STEMMERS and all(len(t) >= 2 for t in only):
            prefixes = sorted({t[:2] for t in only})
        tok_ids, tok_offsets, tokens, simple = kernel.tokenize(texts, prefixes)
        wanted = frozenset(prefixes) if prefixes is not None else None
        known = self._tokens[keep_stopwords].get
        fill = self._token_terms
        # A token's terms come from the memo unless the prefix filter must look at its parts (rare: ASCII tokens
        # with joiners, underscores or inner capitals, e.g. "e-mail", "getUserName").
        per = [e[0] if (e := known(tok)) is not None and (e[1] is None or wanted is None)
               else fill(tok, flag, keep_stopwords, wanted) for tok, flag in zip(tokens, simple)]
        flat = list(chain.from_iterable(per))
        # Term ids in order of first appearance, "" (stopwords, filtered tokens) sharing one id.
        vocab.setdefault("", len(vocab))
        base = len(vocab)
        new = [t for t in dict.fromkeys(flat) if t not in vocab]
        vocab.update(zip(new, range(base, base + len(new))))
        terms = np.fromiter(map(vocab.__getitem__, flat), dtype=np.int32, count=len(flat))
        lengths = np.diff(tok_offsets).astype(np.float64)
        counts = list(map(len, per))
        if counts.count(1) == len(counts):  # one term per token: a gather
            return terms[tok_ids], tok_offsets, lengths
        starts = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        ids, offsets = kernel.remap(tok_ids, tok_offsets, starts, terms)
        return ids, offsets, lengths

    def _token_terms(self, token: str, simple: int, keep_stopwords: bool, wanted: frozenset[str] | None
                     ) -> tuple[str, ...]:
        """The index terms of one raw token for ``index`` ("" for none), memoised without the prefix filter; the
        filter maps an ASCII part of a non-simple token whose first two letters no query term has to ""."""
        entry = self._tokens[keep_stopwords].get(token)
        if entry is None:
            terms: list[str] = []
            checks: list[str | None] = []
            for s in ((token,) if simple else split_cached(token)):
                t = self.term(s) if s else ""
                if t is None:
                    t = _fold(s) if keep_stopwords else ""
                terms.append(t)
                checks.append(s[:2] if s and not simple and s.isascii() else None)
            entry = (tuple(terms), tuple(checks) if any(c is not None for c in checks) else None)
            memo = self._tokens[keep_stopwords]
            if len(memo) >= MEMO_MAX:
                memo.clear()
            memo[token] = entry
        terms_of, checks_of = entry
        if checks_of is None or wanted is None:
            return terms_of
        return tuple("" if c is not None and c not in wanted else t for t, c in zip(terms_of, checks_of))

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
