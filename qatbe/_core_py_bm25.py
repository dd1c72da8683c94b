"""BM25 and the proximity pairs (twin of ``_core_bm25.pxi``): the checks of a page's term arrays, the scores.

Part of the pure-Python twin of ``qatbe._core`` (``qatbe._core_py`` gathers the parts).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from itertools import pairwise

import numpy as np
import numpy.typing as npt

LUCENE = 0


OKAPI = 1


OKAPI_MIN_MEAN = 0.01  # okapi: floor of the mean IDF, so that a matched term never scores <= 0


PLUS = 2


BM25L = 3


def _check_offsets(offsets: Sequence[int], end: int, name: str, end_name: str) -> int:
    """CSR offsets (every array of "where item i starts"): at least one, from 0 to ``end``, never decreasing.
    Returns how many items they delimit."""
    n = len(offsets) - 1
    if n < 0:
        raise ValueError(f"{name} must hold at least one offset")
    if offsets[0] != 0 or offsets[n] != end:
        raise ValueError(f"{name} must start at 0 and end at {end_name}")
    if any(offsets[i + 1] < offsets[i] for i in range(n)):
        raise ValueError(f"{name} must be non-decreasing")
    return n


def _check_csr(doc_terms: Sequence[int], doc_offsets: Sequence[int], n_terms: int) -> int:
    if n_terms < 0:
        raise ValueError("n_terms must be >= 0")
    n_docs = _check_offsets(doc_offsets, len(doc_terms), "doc_offsets", "len(doc_terms)")
    for t in doc_terms:
        if t < 0 or t >= n_terms:
            raise ValueError(f"document term id {t} out of range [0, {n_terms})")
    return n_docs


def _positions(positions: npt.NDArray[np.int64] | Sequence[int] | None, offsets: Sequence[int]) -> list[int]:
    """Each entry's place in its document (its own index without ``positions``), checked as the compiled core
    checks them: one per entry, >= 0 and increasing within a document."""
    n = offsets[-1] if offsets else 0
    if positions is None:
        return list(range(n))
    places = [int(p) for p in positions]
    if len(places) != n:
        raise ValueError(f"positions must have one entry per document term ({n}), not {len(places)}")
    for d in range(len(offsets) - 1):
        run = places[offsets[d]:offsets[d + 1]]
        if any(b <= a for a, b in pairwise([-1, *run])):
            raise ValueError("positions must be >= 0 and increase within each document")
    return places


def _check_query(query_terms: Sequence[int], n_terms: int) -> None:
    for t in query_terms:
        if t < 0 or t >= n_terms:
            raise ValueError(f"query term id {t} out of range [0, {n_terms})")


def _slots(query_terms: Sequence[int]) -> dict[int, int]:
    slot_of: dict[int, int] = {}
    for q, t in enumerate(query_terms):
        slot_of.setdefault(int(t), q)
    return slot_of


def bm25_scores(
    doc_terms: npt.NDArray[np.int32],
    doc_offsets: npt.NDArray[np.int64],
    n_terms: int,
    query_terms: npt.NDArray[np.int32],
    query_weights: npt.NDArray[np.float64],
    k1: float = 1.2,
    b: float = 0.75,
    variant: int = 0,
    delta: float = 0.5,
    prior_n: float = 0.0,
    prior_df: npt.NDArray[np.float64] | None = None,
    doc_lengths: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.float64]:
    """BM25 score of every segment for the query terms (distinct ids; a repeated id scores once)."""
    terms = [int(t) for t in doc_terms]
    offsets = [int(o) for o in doc_offsets]
    qterms = [int(t) for t in query_terms]
    n_docs = _check_csr(terms, offsets, n_terms)
    n_q = len(qterms)
    if len(query_weights) != n_q:
        raise ValueError("query_terms and query_weights must have the same length")
    if variant not in (0, 1, 2, 3):
        raise ValueError(f"unknown BM25 variant {variant}")
    if not (math.isfinite(k1) and k1 >= 0 and math.isfinite(b) and 0 <= b <= 1 and math.isfinite(delta) and delta >= 0):
        raise ValueError("k1 and delta must be finite and >= 0, b in [0, 1]")
    if not (math.isfinite(prior_n) and prior_n >= 0):
        raise ValueError("prior_n must be finite and >= 0")
    if doc_lengths is not None:
        if len(doc_lengths) != n_docs:
            raise ValueError("doc_lengths must have one entry per document")
        if not all(math.isfinite(x) and x >= 0 for x in doc_lengths):
            raise ValueError("doc_lengths must be finite and >= 0")
    if prior_df is not None and len(prior_df) != n_q:
        raise ValueError("prior_df must have one entry per query term")
    for q in range(n_q):
        if not (math.isfinite(query_weights[q]) and query_weights[q] >= 0):
            raise ValueError("query weights must be finite and >= 0")
        if prior_df is not None and not (math.isfinite(prior_df[q]) and 0 <= prior_df[q] <= prior_n):
            raise ValueError("prior_df values must lie in [0, prior_n]")
    _check_query(qterms, n_terms)
    scores = np.zeros(n_docs, dtype=np.float64)
    if n_docs == 0 or n_q == 0:
        return scores
    slot_of = _slots(qterms)
    tf = [[0.0] * n_q for _ in range(n_docs)]
    total = 0.0
    lengths = [float(offsets[d + 1] - offsets[d]) if doc_lengths is None else float(doc_lengths[d])
               for d in range(n_docs)]
    for d in range(n_docs):
        total += lengths[d]
        for i in range(offsets[d], offsets[d + 1]):
            slot = slot_of.get(terms[i])
            if slot is not None:
                tf[d][slot] += 1.0
    df = [sum(1.0 for d in range(n_docs) if tf[d][q] > 0) for q in range(n_q)]
    avgdl = total / n_docs
    if avgdl <= 0:
        avgdl = 1.0
    n = n_docs + prior_n
    idf = []
    for q in range(n_q):
        dfq = df[q] + (float(prior_df[q]) if prior_df is not None else 0.0)
        if variant == LUCENE:
            idf.append(math.log(1.0 + (n - dfq + 0.5) / (dfq + 0.5)))
        elif variant == OKAPI:
            idf.append(math.log((n - dfq + 0.5) / (dfq + 0.5)))
        elif variant == PLUS:
            idf.append(math.log((n + 1.0) / dfq) if dfq > 0 else 0.0)
        else:
            idf.append(math.log((n + 1.0) / (dfq + 0.5)))
    if variant == OKAPI:
        mean_idf = sum(idf) / n_q
        if mean_idf <= 0:
            mean_idf = OKAPI_MIN_MEAN
        idf = [delta * mean_idf if v <= 0 else v for v in idf]
    for d in range(n_docs):
        norm = 1.0 - b + b * lengths[d] / avgdl
        total_d = 0.0
        for q in range(n_q):
            f = tf[d][q]
            if f <= 0:
                continue
            w = float(query_weights[q])
            if variant in (LUCENE, OKAPI):
                total_d += w * idf[q] * f * (k1 + 1.0) / (f + k1 * norm)
            elif variant == PLUS:
                total_d += w * idf[q] * (delta + f * (k1 + 1.0) / (f + k1 * norm))
            elif norm > 0.0:
                c = f / norm
                total_d += w * idf[q] * (k1 + 1.0) * (c + delta) / (k1 + c + delta)
            else:  # a zero normalised length (b = 1, a caller's length of 0): c is infinite, the tf part k1 + 1
                total_d += w * idf[q] * (k1 + 1.0)
        scores[d] = total_d
    return scores


def proximity_pairs(
    doc_terms: npt.NDArray[np.int32],
    doc_offsets: npt.NDArray[np.int64],
    n_terms: int,
    query_terms: npt.NDArray[np.int32],
    window: int = 8,
    positions: npt.NDArray[np.int64] | None = None,
) -> npt.NDArray[np.float64]:
    """Per segment, the number of distinct pairs of query slots that occur within ``window`` tokens of each other;
    ``positions``: each term's place (see ``qatbe._core.proximity_pairs``)."""
    terms = [int(t) for t in doc_terms]
    offsets = [int(o) for o in doc_offsets]
    qterms = [int(t) for t in query_terms]
    n_docs = _check_csr(terms, offsets, n_terms)
    _check_query(qterms, n_terms)
    places = _positions(positions, offsets)
    if window < 1:
        raise ValueError("window must be >= 1")
    out = np.zeros(n_docs, dtype=np.float64)
    if n_docs == 0 or len(qterms) < 2:
        return out
    slot_of = _slots(qterms)
    for d in range(n_docs):
        at: dict[int, list[int]] = {}
        for p in range(offsets[d], offsets[d + 1]):
            slot = slot_of.get(terms[p])
            if slot is not None:
                at.setdefault(slot, []).append(places[p])
        pairs = 0
        slots = sorted(at)
        for i, a in enumerate(slots):
            for c in slots[i + 1 :]:
                if any(abs(x - y) <= window for x in at[a] for y in at[c]):
                    pairs += 1
        out[d] = float(pairs)
    return out


def _texts(texts: Iterable[str]) -> list[str]:
    """The texts as a list, each checked to be a str (as ``qatbe._core``'s own ``_texts``)."""
    items = list(texts)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"tokenize expects str items, got {type(item).__name__}")
    return items
