# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled BM25 kernel over flat arrays (CSR layout).

``doc_terms[doc_offsets[d]:doc_offsets[d + 1]]`` are the term ids of segment ``d``. Only query terms are
counted, through a dense term-id -> query-slot map, so the cost is one pass over the tokens plus
O(segments x query terms). Both loops run without the GIL. The pure-Python twin is ``qatbe._core_py``.

Variants (``variant``):
  0 lucene: idf = ln(1 + (N - df + 0.5) / (df + 0.5)), tf part = tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)).
            Never negative, which matters on a page of 20-500 segments where a term can be in most of them.
  1 okapi:  idf = ln((N - df + 0.5) / (df + 0.5)), negative values replaced by eps * mean idf of the query terms
            (eps = ``delta``), as rank-bm25's BM25Okapi does.
  2 plus:   BM25+ (Lv & Zhai 2011): idf = ln((N + 1) / df), tf part + delta, for terms present in the segment.
  3 l:      BM25L (Lv & Zhai 2011): c = tf / (1 - b + b dl / avgdl), idf = ln((N + 1) / (df + 0.5)),
            tf part = (k1 + 1)(c + delta) / (k1 + c + delta), for terms present in the segment.
"""

import numpy as np
from libc.math cimport log

LUCENE = 0
OKAPI = 1
PLUS = 2
BM25L = 3


def bm25_scores(const int[::1] doc_terms, const long long[::1] doc_offsets, Py_ssize_t n_terms,
                const int[::1] query_terms, const double[::1] query_weights,
                double k1=1.2, double b=0.75, int variant=0, double delta=0.5):
    cdef Py_ssize_t n_docs = doc_offsets.shape[0] - 1
    cdef Py_ssize_t n_q = query_terms.shape[0]
    if n_docs < 0:
        raise ValueError("doc_offsets must hold at least one offset")
    if query_weights.shape[0] != n_q:
        raise ValueError("query_terms and query_weights must have the same length")
    if variant < 0 or variant > 3:
        raise ValueError(f"unknown BM25 variant {variant}")
    if n_docs > 0 and (doc_offsets[0] != 0 or doc_offsets[n_docs] != doc_terms.shape[0]):
        raise ValueError("doc_offsets must start at 0 and end at len(doc_terms)")
    cdef Py_ssize_t i, d, q
    for i in range(n_q):
        if query_terms[i] < 0 or query_terms[i] >= n_terms:
            raise ValueError("query term id out of range")
    scores_arr = np.zeros(n_docs, dtype=np.float64)
    if n_docs == 0 or n_q == 0:
        return scores_arr
    cdef double[::1] scores = scores_arr
    qmap_arr = np.full(n_terms, -1, dtype=np.int32)
    cdef int[::1] qmap = qmap_arr
    tf_arr = np.zeros((n_docs, n_q), dtype=np.float64)
    cdef double[:, ::1] tf = tf_arr
    df_arr = np.zeros(n_q, dtype=np.float64)
    cdef double[::1] df = df_arr
    idf_arr = np.zeros(n_q, dtype=np.float64)
    cdef double[::1] idf = idf_arr
    cdef int t, slot
    cdef long long start, end
    cdef double total = 0.0, avgdl, dl, norm, f, c, mean_idf
    cdef double N = <double> n_docs
    with nogil:
        for q in range(n_q):
            if qmap[query_terms[q]] < 0:
                qmap[query_terms[q]] = <int> q
        for d in range(n_docs):
            start = doc_offsets[d]
            end = doc_offsets[d + 1]
            if end < start:
                with gil:
                    raise ValueError("doc_offsets must be non-decreasing")
            total += <double> (end - start)
            for i in range(start, end):
                t = doc_terms[i]
                if t < 0 or t >= n_terms:
                    with gil:
                        raise ValueError("document term id out of range")
                slot = qmap[t]
                if slot >= 0:
                    tf[d, slot] += 1.0
        for d in range(n_docs):
            for q in range(n_q):
                if tf[d, q] > 0.0:
                    df[q] += 1.0
        avgdl = total / N
        if avgdl <= 0.0:
            avgdl = 1.0
        mean_idf = 0.0
        for q in range(n_q):
            if variant == 0:
                idf[q] = log(1.0 + (N - df[q] + 0.5) / (df[q] + 0.5))
            elif variant == 1:
                idf[q] = log((N - df[q] + 0.5) / (df[q] + 0.5))
            elif variant == 2:
                idf[q] = log((N + 1.0) / df[q]) if df[q] > 0.0 else 0.0
            else:
                idf[q] = log((N + 1.0) / (df[q] + 0.5))
            mean_idf += idf[q]
        if variant == 1:
            mean_idf = mean_idf / <double> n_q
            for q in range(n_q):
                if idf[q] < 0.0:
                    idf[q] = delta * mean_idf
        for d in range(n_docs):
            dl = <double> (doc_offsets[d + 1] - doc_offsets[d])
            norm = 1.0 - b + b * dl / avgdl
            for q in range(n_q):
                f = tf[d, q]
                if f <= 0.0:
                    continue
                if variant == 0 or variant == 1:
                    scores[d] += query_weights[q] * idf[q] * f * (k1 + 1.0) / (f + k1 * norm)
                elif variant == 2:
                    scores[d] += query_weights[q] * idf[q] * (delta + f * (k1 + 1.0) / (f + k1 * norm))
                else:
                    c = f / norm
                    scores[d] += query_weights[q] * idf[q] * (k1 + 1.0) * (c + delta) / (k1 + c + delta)
    return scores_arr
