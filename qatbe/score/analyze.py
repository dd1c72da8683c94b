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
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._backend import kernel
from . import languages

if TYPE_CHECKING:
    from .._core import Scan

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NUMBER = re.compile(r"v?\d+(?:[.,]\d+)*", re.IGNORECASE)
# Snowball stemmers that also strip or rewrite word beginnings: no prefix filter for these languages, which
# would lose those terms. Dutch is one ("gemaakt" -> "maak", "gebruikt" -> "bruik": 464 of its 10,000 most
# frequent words); tests/test_analyze_index.py checks every shipped lexicon's words against the filter.
# Persian is another (274 of its 10,000: "اخبار" -> "خبر", and Arabic letters rewritten as Persian ones).
_PREFIX_STEMMERS = frozenset({"ar", "fa", "id", "ga", "nl"})
# Stemmers that rewrite a word's second letter, and what the prefix filter admits for it. German reads ae, oe, ue
# as ä, ö, ü ("oeuvre" -> "ouvr", "ueber" -> "uber"): a term starting with a, o or u also admits words starting
# with that letter and an e. English makes lying, dying, tying lie, die, tie: those three terms admit ly, dy, ty
# (only those: every "di" term admitting every "dy" word would cost more than it saves).
_SPELLED_UMLAUTS = {"de": "aou"}
_WHOLE_TERM: dict[str, dict[str, str]] = {"en": {"lie": "ly", "die": "dy", "tie": "ty"}}
# Finnish and Turkish stems of two letters may have a rewritten second one ("ssa" -> "sa", "abla" -> "ap", "ağız" ->
# "ak"): there a two-letter term is filtered as a one-letter term is (its first letter, followed by anything).
_SHORT_STEMS_REWRITTEN = frozenset({"fi", "tr"})
# Stemmers whose terms of four letters or more start with their word's first three: there a query term that long
# admits only the words that start with its first three letters (a simple word's third letter is checked too).
# English (Porter2): every rewrite falls after the third letter of a stem that keeps four or more -- the y -> i
# of "cry" -> "cri" and the exceptions ("skies" -> "sky", "dying" -> "die") make stems of three. Checked on the
# English lexicon (tests/test_analyze_index.py) and on 1.49 million words made of every root of up to three
# letters and each suffix the stemmer rewrites; it lets a third fewer of a page's words into the index.
_THIRD_LETTER = frozenset({"en"})
# A raw token's index terms, and per term the prefix the query's prefix filter checks (None: no check).
_TokenTerms = tuple[tuple[str, ...], tuple[str | None, ...]]
_NO_CHECK: tuple[str | None, ...] = (None,)  # a simple token's one term is checked by the tokenizer
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


@lru_cache(maxsize=1 << 14)
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


def raw_terms(text: str) -> list[str]:
    """Surface terms of ``text`` in order (CJK bigrams included), before stopwords and stemming."""
    return raw_terms_each([text])[0]


def raw_terms_each(texts: Sequence[str]) -> list[list[str]]:
    """``raw_terms`` of each text, from one tokenizer call (a simple token is its own only surface term, already
    lower-cased; the others are split by ``split_word``)."""
    ids, offsets, vocab, simple = kernel.tokenize(texts)
    per_token = [(tok,) if flag else split_cached(tok) for tok, flag in zip(vocab, simple)]
    flat = ids.tolist()
    bounds = offsets.tolist()
    return [[s for i in flat[bounds[k]:bounds[k + 1]] for s in per_token[i]] for k in range(len(texts))]


@lru_cache(maxsize=256)
def _after(first: str) -> frozenset[str]:
    """The prefixes a token that can yield the one-character term ``first`` may start with: ``first`` and ``first``
    followed by any ASCII character (a prefix key is two characters, or one for a one-character token).

    Why: the prefix filter rules tokens out by their first two characters; without this, a one-character query
    term ("SysV" -> "sys", "v"; "Type 2 diabetes" -> "2"), common in page titles, would turn the filter off
    for the whole page and every token would be analysed."""
    return frozenset([first] + [first + chr(c) for c in range(128)]) if first.isascii() else frozenset([first])


# The code points the index's prefix filter can fold (Latin, Greek and Cyrillic, where ``_fold`` removes accents).
FOLD_LIMIT = 0x530


@lru_cache(maxsize=1)
def fold_table() -> npt.NDArray[np.uint32]:
    """For the index's prefix filter on non-ASCII tokens: each code point below ``FOLD_LIMIT`` as the analyser
    folds it -- ``_fold(ch.casefold())`` -- or 0 when that is not one character (ß -> ss, İ -> i̇) or ``ch`` is a
    combining mark (``_fold`` drops it, so the characters after it move up).

    Why: without it every token with a letter outside ASCII would be analysed, and the index of a Russian page
    would cost several times its scan. The filter rules a token out by the folded first two characters of each
    part a term can start at, which are the term's own when the stemmer only rewrites endings and the stem
    keeps two characters; a one-letter query term (or, in Finnish and Turkish, a two-letter one: a stem that
    may have lost or changed its second letter) keeps the filter off for these tokens (``index``)."""
    out = np.zeros(FOLD_LIMIT, dtype=np.uint32)
    for code in range(FOLD_LIMIT):
        ch = chr(code)
        if unicodedata.combining(ch):
            continue
        low = ch.casefold()
        folded = _fold(low) if len(low) == 1 else ""
        if len(folded) == 1:
            out[code] = ord(folded)
    out.flags.writeable = False
    return out


# Memo entries per table before it starts afresh. Analyzers live for the process (one per language), and a
# pipeline over millions of pages meets an unbounded vocabulary (names, numbers, typos): the memo must not grow
# with it. 100,000 entries hold a site's working vocabulary in about 35 MB a memo (benchmarks/rss_stream.py: a
# larger bound only deepens the saw-tooth of filling and clearing); clearing is invisible in the output (the memo
# only saves work).
MEMO_MAX = 100_000
# Prefix filters kept per analyser (one per distinct query's terms) before the memo starts afresh.
FILTER_MEMO_MAX = 256


class Analyzer:
    """Analysis for one language: surface term -> index term, memoised (a page repeats its words)."""

    def __init__(self, language: str | None) -> None:
        self.language = languages.normalize_code(language)
        self.lexicon = languages.lexicon(self.language)
        self._stemmer = languages.stemmer(self.language)
        self._cache: dict[str, str | None] = {}
        # Raw token -> its index terms ("" for none) and the prefix of each term the query's prefix filter checks,
        # without / with keep_stopwords, kept in the compiled kernel so that ``index`` makes no Python object for
        # a token it has seen before. One lock: a memo is in use by one ``index`` call at a time.
        self._memos = (kernel.TermMemo(MEMO_MAX), kernel.TermMemo(MEMO_MAX))
        self._memo_lock = threading.Lock()
        self._analysers = (partial(self._analyse, False), partial(self._analyse, True))
        self._filters = self.language not in _PREFIX_STEMMERS  # may the index skip tokens by their prefix?
        self._filter_memo: dict[tuple[str, ...], tuple[frozenset[str], npt.NDArray[np.uint32] | None]] = {}

    def cache_sizes(self) -> dict[str, int]:
        """Entries held now: the fuller term memo, the surface-term cache, the prefix filters (``qatbe.caches``)."""
        return {"term memo": max(len(m) for m in self._memos), "surface terms": len(self._cache),
                "prefix filters": len(self._filter_memo)}

    def term(self, surface: str) -> str | None:
        """The index term of a surface term, or None for a stopword."""
        cached = self._cache.get(surface, "")
        if cached != "":
            return cached
        return self._learn_terms([surface])[surface]

    def _learn_terms(self, surfaces: list[str]) -> dict[str, str | None]:
        """The index term of each of ``surfaces`` (non-empty, distinct), put in the cache too; the caller
        reads the returned terms, not the cache, which another thread may start afresh meanwhile. Why the
        stemmer is called once for them all: a page's first extract analyses the words no page before it had,
        and a lock and a PyStemmer call for each word, with the per-word bookkeeping around them, cost a new
        token about half as much again as one ``stemWords`` call for them all (which stems each word as
        ``stemWord`` does)."""
        cache = self._cache
        if len(cache) + len(surfaces) > MEMO_MAX:
            cache.clear()
        stopwords = self.lexicon.stopwords
        out: dict[str, str | None] = {}
        to_stem: list[str] = []
        for surface in surfaces:
            if surface in stopwords:
                out[surface] = None
            elif self._stemmer is not None and not surface[0].isdigit():
                to_stem.append(surface)
            else:
                out[surface] = _fold(surface)
        if to_stem:
            with languages.stem_lock():
                stems = self._stemmer.stemWords(to_stem)  # type: ignore[union-attr]
            for surface, stem in zip(to_stem, stems):
                out[surface] = _fold(stem)
        cache.update(out)
        return out

    def _terms_of(self, surfaces: Sequence[str]) -> dict[str, str | None]:
        """The index term of each distinct one of ``surfaces`` (non-empty): the memo's first, then those it lacks
        learnt in one ``_learn_terms`` call (a page's or a question's words are mostly known; "" marks not yet)."""
        cached = self._cache.get
        known = {s: cached(s, "") for s in surfaces}
        new = [s for s, t in known.items() if t == ""]
        if new:
            known.update(self._learn_terms(new))
        return known

    def terms(self, text: str, keep_stopwords: bool = False) -> list[str]:
        """Index terms of ``text``; with ``keep_stopwords`` a stopword stays as its folded surface form."""
        term = self.term
        if keep_stopwords:
            return [term(s) or _fold(s) for s in raw_terms(text)]
        return [t for t in map(term, raw_terms(text)) if t is not None]

    def index(
        self,
        texts: Sequence[str] | Scan,
        vocab: dict[str, int],
        keep_stopwords: bool = False,
        only: Sequence[str] | None = None,
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """Term ids of every text in CSR form (``ids[offsets[i]:offsets[i + 1]]``), adding new terms to ``vocab``,
        and each text's length in raw tokens (query-independent; a token yielding several terms counts once).

        Stopwords stay in the stream as one shared id (they count in the segment length, as in Lucene without a
        stop filter, but never match). With ``only`` (the query's index terms), tokens that cannot become one of
        them are not analysed at all: they map to that shared id too. Which tokens cannot: words whose folded first
        two letters at every place a term of theirs can start (the word's start, after a hyphen, an apostrophe or an
        underscore, at a camelCase step) differ from every query term's -- the first letter, for a one-letter term,
        which then leaves every word with a letter outside ASCII in (``fold_table``) -- in a language whose stemmer
        only rewrites word endings (all Snowball stemmers but Arabic, Indonesian, Irish and Dutch), the second
        letters German, English, Finnish and Turkish rewrite admitted too (``_SPELLED_UMLAUTS``, ``_WHOLE_TERM``,
        ``_SHORT_STEMS_REWRITTEN``): every word of every shipped lexicon passes (tests/test_analyze_index.py).
        In English a query term of four letters or more also rules out the simple words whose third letter
        differs from its own (``_THIRD_LETTER``). The kernel's ``TermMemo`` tokenizes, looks every distinct
        token of the page up in its memo (kept across pages) and writes the term ids of every occurrence; Python
        analyses only the tokens it has never seen (``_analyse``). ``texts`` may be a ``kernel.scan`` of the
        texts, which a caller that reads the page more than once makes once.
        """
        ids, offsets, lengths, new = self.index_met(texts, vocab, keep_stopwords, only)
        if new:
            vocab.update(zip(new, range(len(vocab), len(vocab) + len(new))))
        return ids, offsets, lengths

    def index_met(
        self,
        texts: Sequence[str] | Scan,
        vocab: dict[str, int],
        keep_stopwords: bool = False,
        only: Sequence[str] | None = None,
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], npt.NDArray[np.float64], list[str]]:
        """``index``, but the terms ``vocab`` lacks are returned (the fourth value, in order: their ids are
        ``len(vocab)`` on) instead of added to it; only "" is added. Why: a caller that looks only a few of
        them up need not pay for adding them (the scorer, which reads ``index_sparse``, the same way: it looks
        the near words up among them, and adding the few dozen a page meets would be work for nothing)."""
        return self._read_page("index", texts, vocab, keep_stopwords, only)

    def index_sparse(
        self,
        texts: Sequence[str] | Scan,
        vocab: dict[str, int],
        keep_stopwords: bool = False,
        only: Sequence[str] | None = None,
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64],
               list[str]]:
        """``index_met`` without the term "": ``(ids, positions, offsets, lengths, met)``, ``positions[i]`` the
        place ``index_met`` gives ``ids[i]`` in its text's terms (``TermMemo.index_sparse``).

        Why: nine terms in ten of the scorer's read are "" (stopwords and the tokens its prefix filter rules
        out), which it never counts but wrote and read again; all it needs of them is how far apart they put two
        query words (``kernel.page_scores`` takes the positions)."""
        return self._read_page("index_sparse", texts, vocab, keep_stopwords, only)

    def _read_page(self, read: str, texts: Sequence[str] | Scan, vocab: dict[str, int], keep_stopwords: bool,
                   only: Sequence[str] | None) -> tuple[Any, ...]:
        """The memo's ``read`` ("index" or "index_sparse") of the texts through the prefix filter of ``only``."""
        prefixes, fold = self._filter(only)
        # Term ids in order of first appearance, "" (stopwords, filtered tokens) sharing one id.
        vocab.setdefault("", len(vocab))
        with self._memo_lock:
            return getattr(self._memos[keep_stopwords], read)(  # type: ignore[no-any-return]
                texts, prefixes, vocab, self._analysers[keep_stopwords], fold)

    def _filter(self, only: Sequence[str] | None) -> tuple[frozenset[str] | None, npt.NDArray[np.uint32] | None]:
        """The prefix filter ``index`` reads tokens with when it need only find ``only`` (see there), and the
        folding table that lets it rule out non-ASCII tokens too: ``(None, None)`` for no filter."""
        if only is None or not self._filters or not all(only):
            return None, None
        # Memoised by the terms: a pipeline asks the same query of page after page, and the bridges' mention
        # count asks with the same heading words each time a page is scored again (building the set on every
        # call would repeat that work; with a new query on every call the memo saves nothing and costs a
        # dictionary lookup).
        key = tuple(only)
        made = self._filter_memo.get(key)
        if made is None:
            if len(self._filter_memo) >= FILTER_MEMO_MAX:
                self._filter_memo.clear()
            made = self._filter_memo[key] = self._make_filter(key)
        return made

    def _make_filter(self, only: tuple[str, ...]) -> tuple[frozenset[str], npt.NDArray[np.uint32] | None]:
        """``_filter`` of the terms ``only`` (each non-empty), in a language whose stemmer allows one."""
        third = self.language in _THIRD_LETTER
        prefixes = {t[:3] if third and len(t) >= 4 and t[:3].isascii() and t[:3].isalnum() else t[:2] for t in only}
        umlauts = _SPELLED_UMLAUTS.get(self.language or "", "")
        whole = _WHOLE_TERM.get(self.language or "", {})
        short = 2 if self.language in _SHORT_STEMS_REWRITTEN else 1  # terms this long admit any second letter
        for t in only:
            if len(t) <= short:
                prefixes |= _after(t[0])
            if t[0] in umlauts:
                prefixes.add(t[0] + "e")
            if t in whole:
                prefixes.add(whole[t])
        # non-ASCII tokens too (a short term keeps every one: see fold_table)
        fold = fold_table() if min(map(len, only), default=short + 1) > short else None
        return frozenset(prefixes), fold

    def bridge_credits(
        self, texts: Sequence[str] | Scan, raw: npt.NDArray[np.float64], heads: Sequence[int],
        up: npt.NDArray[np.int64], groups: Sequence[int] | None, asked: set[str], top_n: int, min_share: float,
        name_bridge: float, name_section: float,
    ) -> dict[int, float]:
        """The bridges' credits of a page (``qatbe.score.bm25.bridge_credits``), read with this analyser's memo
        in one kernel call (``TermMemo.bridge_credits``); the mention count reads the page through ``index``'s
        prefix filter for the credited headings' words."""
        with self._memo_lock:
            return self._memos[False].bridge_credits(  # type: ignore[no-any-return]
                texts, self._analysers[False], raw, heads, up, groups, asked, top_n, min_share, name_bridge,
                name_section, self._filter)

    def _analyse(self, keep_stopwords: bool, tokens: list[str], simple: bytes) -> list[_TokenTerms]:
        """For ``TermMemo.index``: the index terms of each raw token ("" for none), and per term the prefix the
        query's prefix filter checks -- the first two letters of the term of an ASCII part of a non-simple token
        (the compiled tokenizer tests a non-simple token's part starts only roughly) -- or None.

        Why the term's letters, not the part's: a stemmer may rewrite a word's start too. English drops a leading
        apostrophe, and the part "'aa" of "_'aa" is the term "aa": checked by "'a", the query "aa" lost it."""
        parts = [(token,) if flag else split_cached(token) for token, flag in zip(tokens, simple)]
        known = self._terms_of([s for surfaces in parts for s in surfaces if s])
        known[""] = ""  # an empty part (split_word's) is no term
        out: list[_TokenTerms] = []
        for surfaces, flag in zip(parts, simple):
            if flag:  # a simple token is its one surface term
                s = surfaces[0]
                t = known[s]
                if t is None:
                    t = _fold(s) if keep_stopwords else ""
                out.append(((t,), _NO_CHECK))
                continue
            terms: list[str] = []
            checks: list[str | None] = []
            for s in surfaces:
                t = known[s]
                if t is None:
                    t = _fold(s) if keep_stopwords else ""
                terms.append(t)
                checks.append(t[:2] if t and s.isascii() else None)
            out.append((tuple(terms), tuple(checks)))
        return out

    def query(self, text: str) -> tuple[list[tuple[str, str]], bool]:
        """Distinct (index term, first surface form) of a query, and whether it was made of stopwords only.

        Stopwords are dropped unless nothing else is left: "to be or not to be" still means its words (the
        segments must then be analysed with ``keep_stopwords=True``)."""
        return self.query_terms(raw_terms(text))

    def query_terms(self, surfaces: Sequence[str]) -> tuple[list[tuple[str, str]], bool]:
        """``query`` of a text whose ``raw_terms`` are ``surfaces``."""
        seen: dict[str, str] = {}
        known = self._terms_of(surfaces)  # a new question's new words in one stemmer call, as a page's
        for s in surfaces:
            t = known[s]
            if t is not None:
                seen.setdefault(t, s)
        if seen:
            return list(seen.items()), False
        for s in surfaces:
            seen.setdefault(_fold(s), s)
        return list(seen.items()), True


# Analysers kept, least recently used first out. One per language code as ``languages.normalize_code`` reads it
# ("en-GB", "en_US" and "EN" share the one for "en"), so a crawl's pages keep a handful; each holds its memos
# (``MEMO_MAX`` entries each at most), which go with it.
ANALYZERS_KEPT = 64
_analyzers: OrderedDict[str | None, Analyzer] = OrderedDict()
_analyzers_lock = threading.Lock()


def analyzer(language: str | None) -> Analyzer:
    """The process's analyser of a language (a declared code such as "en-GB", or None)."""
    code = languages.normalize_code(language)
    with _analyzers_lock:
        found = _analyzers.get(code)
        if found is not None:
            _analyzers.move_to_end(code)
            return found
        found = _analyzers[code] = Analyzer(code)
        if len(_analyzers) > ANALYZERS_KEPT:
            _analyzers.popitem(last=False)
        return found


def analyzers() -> list[Analyzer]:
    """The analysers kept now, least recently used first (``qatbe.caches`` reads their memos' sizes)."""
    with _analyzers_lock:
        return list(_analyzers.values())


def preload(codes: Iterable[str] | None = None) -> None:
    """Build now what a process otherwise builds on its first page in each language: the analysers of ``codes``
    (default: every language with a lexicon), with their lexicons and stemmers, and the language guesser's
    stopword tables. About 0.2 s for all; for a service or a benchmark that should not charge a page with it."""
    for code in sorted(languages.LEXICONS) if codes is None else codes:
        analyzer(code)
    languages.guesser_tables()


def clear_analyzers() -> None:
    """Drop every analyser (and its memos): for benchmarks that swap the kernel module."""
    with _analyzers_lock:
        _analyzers.clear()


def analyze_all(texts: Iterable[str], language: str | None) -> list[list[str]]:
    a = analyzer(language)
    return [a.terms(t) for t in texts]
