# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled scoring kernels over flat arrays (CSR layout). The pure-Python twin is ``qatbe._core_py``.

``doc_terms[doc_offsets[d]:doc_offsets[d + 1]]`` are the term ids of segment ``d``. Only query terms are
counted, through a dense term-id -> query-slot map, so the cost is one pass over the tokens plus
O(segments x query terms). Inputs are checked once at the boundary (ValueError, never a crash); the loops then
run without the GIL.

BM25 variants (``variant``), N segments, df = segments containing the term, dl / avgdl = segment length / mean:
  0 lucene: idf = ln(1 + (N - df + 0.5) / (df + 0.5)), tf part = tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)).
            Never negative, which matters on a page of 20-500 segments where a term can be in most of them.
  1 okapi:  idf = ln((N - df + 0.5) / (df + 0.5)); values <= 0 replaced by eps * mean idf of the query terms
            (eps = ``delta``; the mean floored at 0.01 so a match never scores <= 0). rank-bm25's BM25Okapi
            takes the mean over its whole vocabulary and can return negative scores.
  2 plus:   BM25+ (Lv & Zhai 2011): idf = ln((N + 1) / df), tf part + delta, for terms present in the segment.
  3 l:      BM25L (Lv & Zhai 2011): c = tf / (1 - b + b dl / avgdl), idf = ln((N + 1) / (df + 0.5)),
            tf part = (k1 + 1)(c + delta) / (k1 + c + delta), for terms present in the segment.

Background prior: a page is a tiny collection, so its document frequencies are noisy. ``prior_n`` pseudo-segments
are added to the collection in which query term ``q`` occurs ``prior_df[q]`` times (0 <= prior_df[q] <= prior_n):
every formula above then uses N' = N + prior_n and df' = df + prior_df[q]. With prior_n = 0 it is textbook BM25.
"""

import numpy as np
from libc.math cimport log, isfinite
from libc.stdlib cimport calloc, malloc, free

LUCENE = 0
OKAPI = 1
# okapi: floor of the mean IDF used for the negative-IDF replacement, so that a matched term never scores <= 0
# even when every query term is in most segments (rank-bm25 then returns negative scores).
cdef double OKAPI_MIN_MEAN = 0.01
PLUS = 2
BM25L = 3


cdef object _zeros(Py_ssize_t n):
    """A zeroed float64 array, written through a typed memoryview (no numpy cimport: no numpy headers needed)."""
    return np.zeros(n, dtype=np.float64)


cdef int _check_csr(const int[::1] doc_terms, const long long[::1] doc_offsets, Py_ssize_t n_terms) except -1:
    cdef Py_ssize_t n_docs = doc_offsets.shape[0] - 1
    cdef Py_ssize_t d, i
    cdef int t
    if n_docs < 0:
        raise ValueError("doc_offsets must hold at least one offset")
    if n_terms < 0:
        raise ValueError("n_terms must be >= 0")
    if doc_offsets[0] != 0 or doc_offsets[n_docs] != doc_terms.shape[0]:
        raise ValueError("doc_offsets must start at 0 and end at len(doc_terms)")
    for d in range(n_docs):
        if doc_offsets[d + 1] < doc_offsets[d]:
            raise ValueError("doc_offsets must be non-decreasing")
    with nogil:
        for i in range(doc_terms.shape[0]):
            t = doc_terms[i]
            if t < 0 or t >= n_terms:
                with gil:
                    raise ValueError(f"document term id {t} out of range [0, {n_terms})")
    return 0


cdef int _check_query(const int[::1] query_terms, Py_ssize_t n_terms) except -1:
    cdef Py_ssize_t i
    for i in range(query_terms.shape[0]):
        if query_terms[i] < 0 or query_terms[i] >= n_terms:
            raise ValueError(f"query term id {query_terms[i]} out of range [0, {n_terms})")
    return 0


def bm25_scores(const int[::1] doc_terms, const long long[::1] doc_offsets, Py_ssize_t n_terms,
                const int[::1] query_terms, const double[::1] query_weights,
                double k1=1.2, double b=0.75, int variant=0, double delta=0.5,
                double prior_n=0.0, const double[::1] prior_df=None):
    """BM25 score of every segment for the query terms (distinct ids; a repeated id scores once)."""
    cdef Py_ssize_t n_docs = doc_offsets.shape[0] - 1
    cdef Py_ssize_t n_q = query_terms.shape[0]
    cdef Py_ssize_t i, d, q
    _check_csr(doc_terms, doc_offsets, n_terms)
    if query_weights.shape[0] != n_q:
        raise ValueError("query_terms and query_weights must have the same length")
    if variant < 0 or variant > 3:
        raise ValueError(f"unknown BM25 variant {variant}")
    if not (isfinite(k1) and k1 >= 0.0 and isfinite(b) and 0.0 <= b <= 1.0 and isfinite(delta) and delta >= 0.0):
        raise ValueError("k1 and delta must be finite and >= 0, b in [0, 1]")
    if not (isfinite(prior_n) and prior_n >= 0.0):
        raise ValueError("prior_n must be finite and >= 0")
    if prior_df is not None and prior_df.shape[0] != n_q:
        raise ValueError("prior_df must have one entry per query term")
    for q in range(n_q):
        if not (isfinite(query_weights[q]) and query_weights[q] >= 0.0):
            raise ValueError("query weights must be finite and >= 0")
        if prior_df is not None and not (isfinite(prior_df[q]) and 0.0 <= prior_df[q] <= prior_n):
            raise ValueError("prior_df values must lie in [0, prior_n]")
    _check_query(query_terms, n_terms)
    scores_arr = _zeros(n_docs)
    if n_docs == 0 or n_q == 0:
        return scores_arr
    cdef double[::1] scores = scores_arr
    cdef int* qmap = <int*> malloc(max(n_terms, 1) * sizeof(int))
    cdef double* tf = <double*> calloc(n_docs * n_q, sizeof(double))
    cdef double* df = <double*> calloc(n_q, sizeof(double))
    cdef double* idf = <double*> calloc(n_q, sizeof(double))
    if qmap == NULL or tf == NULL or df == NULL or idf == NULL:
        free(qmap); free(tf); free(df); free(idf)
        raise MemoryError()
    cdef int slot
    cdef double total = 0.0, avgdl, dl, norm, f, c, mean_idf, N, dfq
    try:
        with nogil:
            for i in range(n_terms):
                qmap[i] = -1
            for q in range(n_q):
                if qmap[query_terms[q]] < 0:
                    qmap[query_terms[q]] = <int> q
            for d in range(n_docs):
                total += <double> (doc_offsets[d + 1] - doc_offsets[d])
                for i in range(doc_offsets[d], doc_offsets[d + 1]):
                    slot = qmap[doc_terms[i]]
                    if slot >= 0:
                        tf[d * n_q + slot] += 1.0
            for d in range(n_docs):
                for q in range(n_q):
                    if tf[d * n_q + q] > 0.0:
                        df[q] += 1.0
            avgdl = total / <double> n_docs
            if avgdl <= 0.0:
                avgdl = 1.0
            N = <double> n_docs + prior_n
            mean_idf = 0.0
            for q in range(n_q):
                dfq = df[q]
                if prior_df is not None:
                    dfq = dfq + prior_df[q]
                if variant == 0:
                    idf[q] = log(1.0 + (N - dfq + 0.5) / (dfq + 0.5))
                elif variant == 1:
                    idf[q] = log((N - dfq + 0.5) / (dfq + 0.5))
                elif variant == 2:
                    idf[q] = log((N + 1.0) / dfq) if dfq > 0.0 else 0.0
                else:
                    idf[q] = log((N + 1.0) / (dfq + 0.5))
                mean_idf += idf[q]
            if variant == 1:
                mean_idf = mean_idf / <double> n_q
                if mean_idf <= 0.0:
                    mean_idf = OKAPI_MIN_MEAN
                for q in range(n_q):
                    if idf[q] <= 0.0:
                        idf[q] = delta * mean_idf
            for d in range(n_docs):
                dl = <double> (doc_offsets[d + 1] - doc_offsets[d])
                norm = 1.0 - b + b * dl / avgdl
                for q in range(n_q):
                    f = tf[d * n_q + q]
                    if f <= 0.0:
                        continue
                    if variant == 0 or variant == 1:
                        scores[d] += query_weights[q] * idf[q] * f * (k1 + 1.0) / (f + k1 * norm)
                    elif variant == 2:
                        scores[d] += query_weights[q] * idf[q] * (delta + f * (k1 + 1.0) / (f + k1 * norm))
                    else:
                        c = f / norm
                        scores[d] += query_weights[q] * idf[q] * (k1 + 1.0) * (c + delta) / (k1 + c + delta)
    finally:
        free(qmap); free(tf); free(df); free(idf)
    return scores_arr


def proximity_pairs(const int[::1] doc_terms, const long long[::1] doc_offsets, Py_ssize_t n_terms,
                    const int[::1] query_terms, Py_ssize_t window=8):
    """Per segment, the number of distinct pairs of query slots that occur within ``window`` tokens of each other.

    Why: BM25 treats a segment as a bag of words, so "capital of France" scattered over a long paragraph scores
    like the sentence that says it. Counting close pairs is the cheapest proximity signal (one pass, O(matches x
    query terms)) and it is bounded by n_q (n_q - 1) / 2 per segment, so the caller can scale it.
    """
    cdef Py_ssize_t n_docs = doc_offsets.shape[0] - 1
    cdef Py_ssize_t n_q = query_terms.shape[0]
    cdef Py_ssize_t i, d, q, r
    _check_csr(doc_terms, doc_offsets, n_terms)
    _check_query(query_terms, n_terms)
    if window < 1:
        raise ValueError("window must be >= 1")
    out_arr = _zeros(n_docs)
    if n_docs == 0 or n_q < 2:
        return out_arr
    cdef double[::1] out = out_arr
    cdef int* qmap = <int*> malloc(max(n_terms, 1) * sizeof(int))
    cdef long long* last = <long long*> malloc(n_q * sizeof(long long))
    cdef char* seen = <char*> calloc(n_q * n_q, sizeof(char))
    if qmap == NULL or last == NULL or seen == NULL:
        free(qmap); free(last); free(seen)
        raise MemoryError()
    cdef int slot
    cdef long long lo, p
    try:
        with nogil:
            for i in range(n_terms):
                qmap[i] = -1
            for q in range(n_q):
                if qmap[query_terms[q]] < 0:
                    qmap[query_terms[q]] = <int> q
            for d in range(n_docs):
                lo = doc_offsets[d]
                for q in range(n_q):
                    last[q] = -1
                for q in range(n_q * n_q):
                    seen[q] = 0
                for p in range(lo, doc_offsets[d + 1]):
                    slot = qmap[doc_terms[p]]
                    if slot < 0:
                        continue
                    for r in range(n_q):
                        if r != slot and last[r] >= lo and p - last[r] <= window:
                            if slot < r:
                                q = slot * n_q + r
                            else:
                                q = r * n_q + slot
                            if not seen[q]:
                                seen[q] = 1
                                out[d] += 1.0
                    last[slot] = p
    finally:
        free(qmap); free(last); free(seen)
    return out_arr
