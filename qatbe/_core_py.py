"""Pure-Python twin of ``qatbe._core``: same signatures, same results; the fallback and the test oracle.

Written as plain loops on purpose, so that it reads like the formulas in ``_core.pyx``'s docstring.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

LUCENE = 0
OKAPI = 1
PLUS = 2
BM25L = 3


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
) -> npt.NDArray[np.float64]:
    n_docs = len(doc_offsets) - 1
    n_q = len(query_terms)
    if n_docs < 0:
        raise ValueError("doc_offsets must hold at least one offset")
    if len(query_weights) != n_q:
        raise ValueError("query_terms and query_weights must have the same length")
    if variant not in (0, 1, 2, 3):
        raise ValueError(f"unknown BM25 variant {variant}")
    if n_docs > 0 and (doc_offsets[0] != 0 or doc_offsets[n_docs] != len(doc_terms)):
        raise ValueError("doc_offsets must start at 0 and end at len(doc_terms)")
    for t in query_terms:
        if t < 0 or t >= n_terms:
            raise ValueError("query term id out of range")
    scores = np.zeros(n_docs, dtype=np.float64)
    if n_docs == 0 or n_q == 0:
        return scores
    slot_of: dict[int, int] = {}
    for q, t in enumerate(query_terms):
        slot_of.setdefault(int(t), q)
    tf = [[0.0] * n_q for _ in range(n_docs)]
    total = 0
    for d in range(n_docs):
        start, end = int(doc_offsets[d]), int(doc_offsets[d + 1])
        if end < start:
            raise ValueError("doc_offsets must be non-decreasing")
        total += end - start
        for i in range(start, end):
            t = int(doc_terms[i])
            if t < 0 or t >= n_terms:
                raise ValueError("document term id out of range")
            slot = slot_of.get(t)
            if slot is not None:
                tf[d][slot] += 1.0
    df = [sum(1.0 for d in range(n_docs) if tf[d][q] > 0) for q in range(n_q)]
    n = float(n_docs)
    avgdl = total / n or 1.0
    idf = []
    for q in range(n_q):
        if variant == LUCENE:
            idf.append(math.log(1.0 + (n - df[q] + 0.5) / (df[q] + 0.5)))
        elif variant == OKAPI:
            idf.append(math.log((n - df[q] + 0.5) / (df[q] + 0.5)))
        elif variant == PLUS:
            idf.append(math.log((n + 1.0) / df[q]) if df[q] > 0 else 0.0)
        else:
            idf.append(math.log((n + 1.0) / (df[q] + 0.5)))
    if variant == OKAPI:
        mean_idf = sum(idf) / n_q
        idf = [delta * mean_idf if v < 0 else v for v in idf]
    for d in range(n_docs):
        dl = float(doc_offsets[d + 1] - doc_offsets[d])
        norm = 1.0 - b + b * dl / avgdl
        total_d = 0.0
        for q in range(n_q):
            f = tf[d][q]
            if f <= 0:
                continue
            if variant in (LUCENE, OKAPI):
                total_d += query_weights[q] * idf[q] * f * (k1 + 1.0) / (f + k1 * norm)
            elif variant == PLUS:
                total_d += query_weights[q] * idf[q] * (delta + f * (k1 + 1.0) / (f + k1 * norm))
            else:
                c = f / norm
                total_d += query_weights[q] * idf[q] * (k1 + 1.0) * (c + delta) / (k1 + c + delta)
        scores[d] = total_d
    return scores
