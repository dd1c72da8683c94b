"""Every cache that outlives a call, its bound and its eviction policy, and how full each is now (``sizes``).

A process that extracts millions of pages meets an unbounded vocabulary, unbounded class names and a new query
on every call, so every cache kept across calls is bounded by a count of entries. Each holds values that depend
only on their keys, so dropping entries changes no output, only the time to compute them again.

| cache (where) | key | bound | when full |
|---|---|---|---|
| analysers (``score.analyze.analyzer``) | language code, normalised | ``ANALYZERS_KEPT`` | least recently used out |
| term memo, two an analyser (``_core.TermMemo``) | raw token | ``MEMO_MAX`` when a call starts | cleared |
| surface term -> index term (``Analyzer._cache``) | surface term | ``MEMO_MAX`` | cleared |
| prefix filters (``Analyzer._filter_memo``) | a query's terms | ``FILTER_MEMO_MAX`` | cleared |
| word splits (``score.analyze.split_cached``) | raw token | 16,384 | least recently used out |
| one-letter prefixes (``score.analyze._after``) | a letter | 256 | least recently used out |
| queries read (``score.question._read_kept``) | language, query, weight | ``QUESTIONS_KEPT`` | least recently used out |
| language codes (``score.languages.normalize_code``) | declared code | 256 | least recently used out |
| lexicons, stopwords, stemmers (``score.languages``) | code | one per language shipped | never (fixed set) |
| settings variants (``prepare._default_with``) | option changes | 128 | least recently used out |
| class and id evidence (``segmentation.html_boilerplate``) | a name; a name list | 16,384; 8,192 | least recently used out |
| attribute evidence, hiding (``segmentation.html_fastwalk``) | tag and attributes | ``_MEMO_MAX`` each | cleared |
| exact powers (``select.knapsack._exact``) | exponent | 16 | least recently used out |

The term memo checks its bound when a call starts, so between calls it holds at most ``MEMO_MAX`` entries plus
the tokens of the call that filled it (one page's distinct tokens). Per-thread scratch blocks of the compiled core
(``_alloc.h``) are bounded by size class: about 1 MB a thread. ``benchmarks/rss_stream.py`` measures the resident
memory of a 100,000-page stream with a growing vocabulary against these bounds.
"""

from __future__ import annotations

from typing import NamedTuple


class CacheSize(NamedTuple):
    """One cache: its name (as in the table above), how many entries it holds now and its bound.

    For the caches kept per analyser, ``entries`` is the fullest analyser's."""

    name: str
    entries: int
    bound: int


def sizes() -> tuple[CacheSize, ...]:
    """How full every bounded cache is now, in the order of the module's table."""
    from . import prepare
    from .score import analyze, languages, question
    from .segmentation import html_boilerplate
    from .select import knapsack

    held = [a.cache_sizes() for a in analyze.analyzers()]
    out = [CacheSize("analysers", len(held), analyze.ANALYZERS_KEPT)]
    for name, bound in (("term memo", analyze.MEMO_MAX), ("surface terms", analyze.MEMO_MAX),
                        ("prefix filters", analyze.FILTER_MEMO_MAX)):
        out.append(CacheSize(name, max((h[name] for h in held), default=0), bound))
    out += [
        _lru("word splits", analyze.split_cached),
        _lru("one-letter prefixes", analyze._after),
        _lru("queries read", question._read_kept),
        _lru("language codes", languages.normalize_code),
        _lru("settings variants", prepare._default_with),
        _lru("class and id evidence: names", html_boilerplate._token),
        _lru("class and id evidence: lists", html_boilerplate._names),
    ]
    try:
        from .segmentation import html_fastwalk
    except ImportError:  # built without the compiled walk: its memos do not exist
        pass
    else:
        memo_max = int(html_fastwalk._MEMO_MAX)
        for kind, n in html_fastwalk.memo_sizes().items():
            out.append(CacheSize(f"attribute {kind} memo", n, memo_max))
    out.append(_lru("exact powers", knapsack._exact))
    return tuple(out)


def _lru(name: str, cached: object) -> CacheSize:
    info = cached.cache_info()  # type: ignore[attr-defined]
    return CacheSize(name, info.currsize, info.maxsize)
