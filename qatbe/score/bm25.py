"""Scoring stage: segments + query -> raw relevance per segment (before type weights).

Steps: pick the language (``settings.language``, else a cheap guess from the page), analyse every segment once,
map terms to ids, and call the compiled kernel with a background document-frequency prior (a page of 20-500
segments is too small a collection for reliable IDF: "the" and "passport" can have the same in-page df). Then
two cheap corrections BM25's bag of words misses: query terms close together (proximity pairs), and the heading
a segment sits under (a paragraph under "## Fees" is about fees).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .._backend import kernel
from ..settings import Settings
from ..types import Segment, SegmentKind
from . import languages
from .analyze import Analyzer, analyzer

_VARIANT = {"lucene": 0, "okapi": 1, "plus": 2, "l": 3}

# Query terms closer than this many tokens (stopwords removed) count as a pair for the proximity bonus.
PROXIMITY_WINDOW = 8


@dataclass(frozen=True)
class Scores:
    """Raw relevance per segment (before type weights) and what was searched for.

    ``raw[i] > 0`` iff segment ``i`` (or its heading) contains a query term. ``relevant`` is a relative floor:
    segments scoring at least ``floor`` x the best score; ``language`` is the analysis language (None: no
    stemming). ``query_terms`` are the index terms searched for, in query order.
    """

    raw: npt.NDArray[np.float64]
    query_terms: tuple[str, ...]
    relevant: npt.NDArray[np.bool_] | None = None
    language: str | None = None

    @property
    def any_match(self) -> bool:
        return bool(self.raw.size and self.raw.max() > 0.0)


def choose_language(segments: Sequence[Segment], settings: Settings) -> str | None:
    if settings.language:
        return languages.normalize_code(settings.language)
    sample: list[str] = []
    size = 0
    for seg in segments:
        if seg.kind in (SegmentKind.PARAGRAPH, SegmentKind.LIST, SegmentKind.QUOTE, SegmentKind.HEADING):
            sample.append(seg.text)
            size += len(seg.text)
            if size > 8000:
                break
    return languages.detect(" ".join(sample))


def _prior(an: Analyzer, surfaces: Sequence[str], avgdl: float, prior_n: float) -> npt.NDArray[np.float64]:
    """How many of the ``prior_n`` pseudo-segments contain each query term.

    A word with corpus frequency f (wordfreq, per token) appears in a segment of L tokens with probability
    1 - (1 - f)^L ~ 1 - exp(-f L). Words outside the lexicon's top list are treated as rare (f = 0).
    """
    out = np.zeros(len(surfaces), dtype=np.float64)
    for i, s in enumerate(surfaces):
        zipf = an.lexicon.zipf.get(s)
        if zipf is not None:
            f = 10.0 ** (zipf - 9.0)
            out[i] = prior_n * (1.0 - math.exp(-f * avgdl))
    return out


def heading_ancestors(segments: Sequence[Segment]) -> list[list[int]]:
    """For each segment, the indices of the headings above it (nearest first), from the heading levels."""
    out: list[list[int]] = []
    stack: list[tuple[int, int]] = []
    for i, seg in enumerate(segments):
        if seg.kind is SegmentKind.HEADING:
            while stack and stack[-1][0] >= seg.level:
                stack.pop()
            out.append([j for _, j in reversed(stack)])
            stack.append((seg.level, i))
        else:
            out.append([j for _, j in reversed(stack)])
    return out


def score_segments(segments: Sequence[Segment], query: str | None, settings: Settings) -> Scores:
    n = len(segments)
    if not query or not query.strip() or n == 0:
        return Scores(np.zeros(n, dtype=np.float64), (), np.zeros(n, dtype=bool))
    language = choose_language(segments, settings)
    an = analyzer(language)
    q, only_stopwords = an.query(query)
    if not q:
        return Scores(np.zeros(n, dtype=np.float64), (), np.zeros(n, dtype=bool), language)
    q_terms = [t for t, _ in q]
    vocab: dict[str, int] = {t: i for i, t in enumerate(q_terms)}
    flat, offs = an.index([seg.text for seg in segments], vocab, only_stopwords, q_terms)
    qids = np.arange(len(q_terms), dtype=np.int32)
    avgdl = max(1.0, len(flat) / n)
    prior_n = settings.background_prior if an.lexicon.zipf else 0.0
    prior_df = _prior(an, [s for _, s in q], avgdl, prior_n) if prior_n else np.zeros(len(q))
    raw = kernel.bm25_scores(
        flat, offs, len(vocab), qids, np.ones(len(q_terms), dtype=np.float64),
        settings.k1, settings.b, _VARIANT[settings.bm25], 0.5, prior_n, prior_df,
    )
    if settings.proximity > 0 and len(q_terms) > 1:
        pairs = kernel.proximity_pairs(flat, offs, len(vocab), qids, PROXIMITY_WINDOW)
        if pairs.any():
            n_eff = n + prior_n
            df = np.zeros(len(q_terms))
            idf = np.log(1.0 + (n_eff - df - prior_df + 0.5) / (df + prior_df + 0.5))
            raw = raw + settings.proximity * float(idf.mean()) * pairs
    if settings.heading_share > 0:
        inherited = np.zeros(n, dtype=np.float64)
        for i, anc in enumerate(heading_ancestors(segments)):
            if anc:
                inherited[i] = max(raw[j] for j in anc)
        raw = raw + settings.heading_share * inherited
    best = float(raw.max())
    relevant = (raw > 0) & (raw >= settings.relevance_floor * best)
    return Scores(raw, tuple(q_terms), relevant, language)
