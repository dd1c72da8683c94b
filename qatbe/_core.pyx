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

Segment length dl is the number of its term ids, unless ``doc_lengths`` gives it (the scorer passes the number of
raw tokens, so that a token that yields several terms -- "e-mail" -> e, mail, email -- counts once).

Background prior: a page is a tiny collection, so its document frequencies are noisy. ``prior_n`` pseudo-segments
are added to the collection in which query term ``q`` occurs ``prior_df[q]`` times (0 <= prior_df[q] <= prior_n):
every formula above then uses N' = N + prior_n and df' = df + prior_df[q]. With prior_n = 0 it is textbook BM25.
"""

import numpy as np
from libc.math cimport log, isfinite, pow
from libc.string cimport memchr, memcmp, memcpy, memset
from libc.stdlib cimport qsort
# The core's scratch buffers come from a per-thread cache of freed blocks (_alloc.h says why): these names are
# its functions, so that every malloc below is one.
cdef extern from "_alloc.h" nogil:
    void* malloc "qatbe_malloc"(size_t n)
    void* calloc "qatbe_calloc"(size_t count, size_t item)
    void* realloc "qatbe_realloc"(void* p, size_t n)
    void free "qatbe_free"(void* p)
    size_t qatbe_kept_bytes(int all)
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int32_t, int64_t
from cpython.object cimport PyObject
from cpython.bytes cimport PyBytes_FromStringAndSize, PyBytes_AS_STRING
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_SIMPLE, PyBUF_WRITABLE


cdef extern from "Python.h":
    int PyUnicode_KIND(object o)
    bint PyUnicode_IS_ASCII(object o)
    void* PyUnicode_DATA(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    Py_UCS4 PyUnicode_READ_CHAR(object o, Py_ssize_t index)
    uint32_t PyUnicode_READ(int kind, void* data, Py_ssize_t index) nogil
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    bint Py_UNICODE_ISALNUM(uint32_t ch) nogil
    bint Py_UNICODE_ISDECIMAL(uint32_t ch) nogil
    bint Py_UNICODE_ISSPACE(uint32_t ch) nogil
    bint Py_UNICODE_ISUPPER(uint32_t ch) nogil
    int PyUnicode_4BYTE_KIND

LUCENE = 0
OKAPI = 1
# okapi: floor of the mean IDF used for the negative-IDF replacement, so that a matched term never scores <= 0
# even when every query term is in most segments (rank-bm25 then returns negative scores).
cdef double OKAPI_MIN_MEAN = 0.01
PLUS = 2
BM25L = 3


# numpy's constructors and the dtypes the kernel makes arrays of, looked up once. Why: ``np.empty(n,
# dtype=np.int64)`` in compiled code looks up two module attributes and parses a keyword on every call, 165 ns
# against 85 for ``_EMPTY(n, _I64)`` (measured in a compiled loop); scoring a page makes some 37 arrays.
cdef object _EMPTY = np.empty
cdef object _ZEROS = np.zeros
cdef object _ARRAY = np.array
cdef object _I32 = np.dtype(np.int32)
cdef object _I64 = np.dtype(np.int64)
cdef object _F64 = np.dtype(np.float64)
cdef object _U8 = np.dtype(np.uint8)
cdef object _U32 = np.dtype(np.uint32)
cdef object _BOOL = np.dtype(np.bool_)


cdef object _zeros(Py_ssize_t n):
    """A zeroed float64 array, written through a typed memoryview (no numpy cimport: no numpy headers needed)."""
    return _ZEROS(n, _F64)


cdef int _check_offsets(const long long[::1] offsets, Py_ssize_t end, str name, str end_name) except -1:
    """CSR offsets (every array of "where item i starts"): at least one, from 0 to ``end``, never decreasing."""
    cdef Py_ssize_t n = offsets.shape[0] - 1, i
    if n < 0:
        raise ValueError(f"{name} must hold at least one offset")
    if offsets[0] != 0 or offsets[n] != end:
        raise ValueError(f"{name} must start at 0 and end at {end_name}")
    for i in range(n):
        if offsets[i + 1] < offsets[i]:
            raise ValueError(f"{name} must be non-decreasing")
    return 0


cdef int _check_up(const long long[::1] up) except -1:
    """Heading chains (``up``: per segment the heading above it, an earlier segment, or -1): a walk up them ends."""
    cdef Py_ssize_t i
    for i in range(up.shape[0]):
        if not -1 <= up[i] < i:
            raise ValueError(f"up[{i}] = {up[i]} is no segment before {i}")
    return 0


cdef int _check_csr(const int[::1] doc_terms, const long long[::1] doc_offsets, Py_ssize_t n_terms) except -1:
    cdef Py_ssize_t i
    cdef int t
    if n_terms < 0:
        raise ValueError("n_terms must be >= 0")
    _check_offsets(doc_offsets, doc_terms.shape[0], "doc_offsets", "len(doc_terms)")
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


cdef inline void _fill_qmap(int* qmap, Py_ssize_t n_terms, const int* query_terms, Py_ssize_t n_q) noexcept nogil:
    """Dense term id -> first query slot map (-1: not a query term); both kernels count only query terms."""
    cdef Py_ssize_t i
    for i in range(n_terms):
        qmap[i] = -1
    for i in range(n_q):
        if qmap[query_terms[i]] < 0:
            qmap[query_terms[i]] = <int> i


cdef int _check_bm25(const int[::1] doc_terms, const long long[::1] doc_offsets, Py_ssize_t n_terms,
                     const int[::1] query_terms, const double[::1] query_weights, double k1, double b, int variant,
                     double delta, double prior_n, const double[::1] prior_df, const double[::1] doc_lengths
                     ) except -1:
    """The checks ``bm25_scores`` and ``page_scores`` share (ValueError on anything the loops cannot take)."""
    cdef Py_ssize_t n_docs = doc_offsets.shape[0] - 1, n_q = query_terms.shape[0], d, q
    _check_csr(doc_terms, doc_offsets, n_terms)
    if query_weights.shape[0] != n_q:
        raise ValueError("query_terms and query_weights must have the same length")
    if variant < 0 or variant > 3:
        raise ValueError(f"unknown BM25 variant {variant}")
    if not (isfinite(k1) and k1 >= 0.0 and isfinite(b) and 0.0 <= b <= 1.0 and isfinite(delta) and delta >= 0.0):
        raise ValueError("k1 and delta must be finite and >= 0, b in [0, 1]")
    if not (isfinite(prior_n) and prior_n >= 0.0):
        raise ValueError("prior_n must be finite and >= 0")
    if doc_lengths is not None:
        if doc_lengths.shape[0] != n_docs:
            raise ValueError("doc_lengths must have one entry per document")
        for d in range(n_docs):
            if not (isfinite(doc_lengths[d]) and doc_lengths[d] >= 0.0):
                raise ValueError("doc_lengths must be finite and >= 0")
    if prior_df is not None and prior_df.shape[0] != n_q:
        raise ValueError("prior_df must have one entry per query term")
    for q in range(n_q):
        if not (isfinite(query_weights[q]) and query_weights[q] >= 0.0):
            raise ValueError("query weights must be finite and >= 0")
        if prior_df is not None and not (isfinite(prior_df[q]) and 0.0 <= prior_df[q] <= prior_n):
            raise ValueError("prior_df values must lie in [0, prior_n]")
    _check_query(query_terms, n_terms)
    return 0


cdef struct _Csr:
    # A checked CSR collection and query, as plain pointers for the GIL-free loops (NULL for an empty array).
    const int* terms
    const long long* offsets
    Py_ssize_t n_docs, n_terms
    const int* query
    Py_ssize_t n_q
    # Where each entry lies in its document's sequence of terms (NULL: at its own index). Why: the scorer's
    # index leaves out the terms no query slot can hold (``TermMemo.index_sparse``), a tenth of a page's terms
    # kept, and proximity still counts the distance between two query words in the whole text.
    const long long* pos


cdef int _bm25(const _Csr* c, const double* query_weights, double k1, double b, int variant, double delta,
               double prior_n, const double* prior_df, const double* doc_lengths, double* scores,
               long long* df_out) except -1 nogil:
    """BM25 of every document into ``scores`` (zeroed by the caller); ``df_out`` (optional): the document
    frequency of each query slot, before the prior. One body for ``bm25_scores`` and ``page_scores``, so that the
    two give the same floats."""
    cdef Py_ssize_t n_docs = c.n_docs, n_q = c.n_q, i, d, q
    if n_docs == 0 or n_q == 0:
        return 0
    cdef int* qmap = <int*> malloc(max(c.n_terms, 1) * sizeof(int))
    cdef double* tf = <double*> calloc(n_docs * n_q, sizeof(double))
    cdef double* df = <double*> calloc(n_q, sizeof(double))
    cdef double* idf = <double*> calloc(n_q, sizeof(double))
    cdef int slot
    cdef double total = 0.0, avgdl, dl, norm, f, cn, mean_idf, N, dfq
    if qmap == NULL or tf == NULL or df == NULL or idf == NULL:
        free(qmap); free(tf); free(df); free(idf)
        with gil:
            raise MemoryError()
    _fill_qmap(qmap, c.n_terms, c.query, n_q)
    for d in range(n_docs):
        if doc_lengths != NULL:
            total += doc_lengths[d]
        else:
            total += <double> (c.offsets[d + 1] - c.offsets[d])
        for i in range(c.offsets[d], c.offsets[d + 1]):
            slot = qmap[c.terms[i]]
            if slot >= 0:
                tf[d * n_q + slot] += 1.0
    for d in range(n_docs):
        for q in range(n_q):
            if tf[d * n_q + q] > 0.0:
                df[q] += 1.0
    if df_out != NULL:
        for q in range(n_q):
            df_out[q] = <long long> df[q]
    avgdl = total / <double> n_docs
    if avgdl <= 0.0:
        avgdl = 1.0
    N = <double> n_docs + prior_n
    mean_idf = 0.0
    for q in range(n_q):
        dfq = df[q]
        if prior_df != NULL:
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
        if doc_lengths != NULL:
            dl = doc_lengths[d]
        else:
            dl = <double> (c.offsets[d + 1] - c.offsets[d])
        norm = 1.0 - b + b * dl / avgdl
        for q in range(n_q):
            f = tf[d * n_q + q]
            if f <= 0.0:
                continue
            if variant == 0 or variant == 1:
                scores[d] += query_weights[q] * idf[q] * f * (k1 + 1.0) / (f + k1 * norm)
            elif variant == 2:
                scores[d] += query_weights[q] * idf[q] * (delta + f * (k1 + 1.0) / (f + k1 * norm))
            elif norm > 0.0:
                cn = f / norm
                scores[d] += query_weights[q] * idf[q] * (k1 + 1.0) * (cn + delta) / (k1 + cn + delta)
            else:  # a zero normalised length (b = 1, a caller's length of 0): c is infinite, the tf part k1 + 1
                scores[d] += query_weights[q] * idf[q] * (k1 + 1.0)
    free(qmap); free(tf); free(df); free(idf)
    return 0


cdef int _cmp_ll(const void* a, const void* b) noexcept nogil:
    cdef long long x = (<const long long*> a)[0], y = (<const long long*> b)[0]
    return (x > y) - (x < y)


cdef int _pairs(const _Csr* c, Py_ssize_t n_q, Py_ssize_t window, double* out) except -1 nogil:
    """Close pairs among the first ``n_q`` query slots into ``out`` (zeroed by the caller); see
    ``proximity_pairs``.

    Each occurrence of a query word is compared with the query-word occurrences among the ``window`` positions
    before it, which are among the last ``window`` occurrences (kept in a ring, read newest first until one is too
    far). A segment's pairs are told apart by a bit table for up to 64 query words (cleared per segment: 64 words
    of 64 bits), else by sorting their keys. Why: the first version compared each occurrence with every query
    slot and cleared an n_q x n_q table per segment; a 5,000-word query (a pasted document) then took 3 s on a
    page of 2,000 paragraphs, most of it clearing 25 MB per segment."""
    cdef Py_ssize_t n_docs = c.n_docs, d, i, k, n_ring, head, n_keys, cap = 64, unique
    cdef long long key
    cdef bint small = n_q <= 64
    cdef uint64_t seen[64]
    if n_docs == 0 or n_q < 2 or window < 1:
        return 0
    cdef int* qmap = <int*> malloc(max(c.n_terms, 1) * sizeof(int))
    cdef long long* ring_pos = <long long*> malloc(window * sizeof(long long))
    cdef int* ring_slot = <int*> malloc(window * sizeof(int))
    cdef long long* keys = <long long*> malloc(cap * sizeof(long long))
    cdef long long* grown
    cdef int slot, r, lo, hi
    cdef long long p, e
    if qmap == NULL or ring_pos == NULL or ring_slot == NULL or keys == NULL:
        free(qmap); free(ring_pos); free(ring_slot); free(keys)
        with gil:
            raise MemoryError()
    _fill_qmap(qmap, c.n_terms, c.query, n_q)
    for d in range(n_docs):
        n_ring = 0
        head = 0
        n_keys = 0
        unique = 0
        if small:
            memset(seen, 0, n_q * sizeof(uint64_t))
        for e in range(c.offsets[d], c.offsets[d + 1]):
            slot = qmap[c.terms[e]]
            if slot < 0:
                continue
            p = c.pos[e] if c.pos != NULL else e
            k = head
            for i in range(n_ring):  # newest first: positions only fall, so the first one too far ends the look
                k = k - 1 if k > 0 else window - 1
                if p - ring_pos[k] > window:
                    break
                r = ring_slot[k]
                if r == slot:
                    continue
                lo = min(slot, r)
                hi = max(slot, r)
                if small:
                    if not (seen[lo] >> hi) & 1:
                        seen[lo] |= (<uint64_t> 1) << hi
                        unique += 1
                    continue
                if n_keys == cap:
                    grown = <long long*> realloc(keys, 2 * cap * sizeof(long long))
                    if grown == NULL:
                        free(qmap); free(ring_pos); free(ring_slot); free(keys)
                        with gil:
                            raise MemoryError()
                    keys = grown
                    cap *= 2
                keys[n_keys] = (<long long> lo) * n_q + hi
                n_keys += 1
            ring_pos[head] = p
            ring_slot[head] = slot
            head = (head + 1) % window
            n_ring = min(n_ring + 1, window)
        if n_keys:
            qsort(keys, n_keys, sizeof(long long), _cmp_ll)
            unique = 1
            for i in range(1, n_keys):
                if keys[i] != keys[i - 1]:
                    unique += 1
        out[d] += unique
    free(qmap); free(ring_pos); free(ring_slot); free(keys)
    return 0


cdef _Csr _csr(const int[::1] doc_terms, const long long[::1] doc_offsets, Py_ssize_t n_terms,
               const int[::1] query_terms):
    cdef _Csr c
    c.terms = &doc_terms[0] if doc_terms.shape[0] else NULL
    c.offsets = &doc_offsets[0]
    c.n_docs = doc_offsets.shape[0] - 1
    c.n_terms = n_terms
    c.query = &query_terms[0] if query_terms.shape[0] else NULL
    c.n_q = query_terms.shape[0]
    c.pos = NULL
    return c


cdef int _use_positions(_Csr* c, const long long[::1] positions) except -1:
    """``c.pos`` from ``positions`` (None: none), checked: one per entry, >= 0 and increasing within a document."""
    cdef Py_ssize_t d, e, n = c.offsets[c.n_docs] if c.n_docs > 0 else 0
    cdef long long last
    if positions is None:
        return 0
    if positions.shape[0] != n:
        raise ValueError(f"positions must have one entry per document term ({n}), not {positions.shape[0]}")
    for d in range(c.n_docs):
        last = -1
        for e in range(c.offsets[d], c.offsets[d + 1]):
            if positions[e] <= last:
                raise ValueError("positions must be >= 0 and increase within each document")
            last = positions[e]
    c.pos = &positions[0] if n else NULL
    return 0


def bm25_scores(const int[::1] doc_terms, const long long[::1] doc_offsets, Py_ssize_t n_terms,
                const int[::1] query_terms, const double[::1] query_weights,
                double k1=1.2, double b=0.75, int variant=0, double delta=0.5,
                double prior_n=0.0, const double[::1] prior_df=None, const double[::1] doc_lengths=None):
    """BM25 score of every segment for the query terms (distinct ids; a repeated id scores once). With
    ``doc_lengths``, ``doc_terms`` may leave out the terms no query slot holds (``TermMemo.index_sparse``)."""
    _check_bm25(doc_terms, doc_offsets, n_terms, query_terms, query_weights, k1, b, variant, delta, prior_n,
                prior_df, doc_lengths)
    cdef _Csr c = _csr(doc_terms, doc_offsets, n_terms, query_terms)
    scores_arr = _zeros(c.n_docs)
    cdef double[::1] scores = scores_arr
    with nogil:
        _bm25(&c, &query_weights[0] if c.n_q else NULL, k1, b, variant, delta, prior_n,
              &prior_df[0] if prior_df is not None and c.n_q else NULL,
              &doc_lengths[0] if doc_lengths is not None and c.n_docs else NULL,
              &scores[0] if c.n_docs else NULL, NULL)
    return scores_arr


def proximity_pairs(const int[::1] doc_terms, const long long[::1] doc_offsets, Py_ssize_t n_terms,
                    const int[::1] query_terms, Py_ssize_t window=8, const long long[::1] positions=None):
    """Per segment, the number of distinct pairs of query slots that occur within ``window`` tokens of each other.
    ``positions``: each term's place in its segment's terms (default: its index), when ``doc_terms`` leave out
    the terms that are no query slot's.

    Why: BM25 treats a segment as a bag of words, so "capital of France" scattered over a long paragraph scores
    like the sentence that says it. Counting close pairs is the cheapest proximity signal (one pass, O(matches x
    query terms)) and it is bounded by n_q (n_q - 1) / 2 per segment, so the caller can scale it.
    """
    _check_csr(doc_terms, doc_offsets, n_terms)
    _check_query(query_terms, n_terms)
    if window < 1:
        raise ValueError("window must be >= 1")
    cdef _Csr c = _csr(doc_terms, doc_offsets, n_terms, query_terms)
    _use_positions(&c, positions)
    out_arr = _zeros(c.n_docs)
    cdef double[::1] out = out_arr
    with nogil:
        _pairs(&c, c.n_q, window, &out[0] if c.n_docs else NULL)
    return out_arr


cdef int _ints(obj, Py_ssize_t n, long long* out, str name) except -1:
    """A sequence of ``n`` ints into ``out`` (the page's small integer inputs come as lists: no array to build)."""
    cdef list items = list(obj)
    cdef Py_ssize_t i
    if len(items) != n:
        raise ValueError(f"{name} must have {n} entries, not {len(items)}")
    for i in range(n):
        out[i] = items[i]
    return 0


cdef inline uint32_t _last_visible(text) noexcept:
    """The code point of the last character of ``text`` (a str) that is not whitespace, 0 for none."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t i = PyUnicode_GET_LENGTH(text)
    cdef uint32_t c
    while i > 0:
        i -= 1
        c = PyUnicode_READ(kind, data, i)
        if not Py_UNICODE_ISSPACE(c):
            return c
    return 0


def page_scores(const int[::1] doc_terms, const long long[::1] doc_offsets, Py_ssize_t n_terms,
                const int[::1] query_terms, const double[::1] query_weights, const double[::1] doc_lengths,
                texts, heads, levels, groups, double k1=1.2, double b=0.75, int variant=0, double delta=0.5,
                double prior_n=0.0, const double[::1] prior_df=None, Py_ssize_t n_near=0, Py_ssize_t window=8,
                double proximity=0.0, double lead_in=0.0, double heading=0.0, double sibling=0.0,
                double floor=0.0, double inherit_words=0.0, const long long[::1] positions=None):
    """A page's scores in one call: ``(raw, bm25, proximity, lead_in, heading, sibling, relevant, best, df, up)``.

    Why one call: per page, the scorer made some twenty small array operations around its two kernels, each a
    few microseconds of call overhead on a few hundred numbers; here they are loops over the segments.

    ``bm25`` is ``bm25_scores`` of the query terms (the k1 ... prior_df, doc_lengths arguments); ``df`` the number
    of documents holding each query slot. Each further part is computed on ``raw`` so far (the sum of the parts
    before it) and added to it, in this order, when its share is > 0:

    - proximity: ``proximity`` x the close pairs among the first ``n_near`` query slots (``proximity_pairs``);
    - lead_in: ``lead_in`` x the score of the text before, when that one's last visible character is ":" or
      "：" and this text is not a heading;
    - heading: ``heading`` x the best score of the headings above (the chain of ``up``);
    - sibling: ``sibling`` x the score of the adjacent text of the same group (>= 0), the later one when higher.

    With ``inherit_words`` > 0, what a text inherits (lead_in, heading, sibling) is multiplied by
    min(1, ``doc_lengths[i]`` / ``inherit_words``): a text of fewer words carries less of what it sits under.

    A part that is 0 everywhere comes back as None (and adding it would change nothing: x + 0.0 is x here).
    ``heads`` are the indices of the headings (increasing), ``levels`` their levels; ``up[i]`` is, for a heading,
    the nearest heading before it of a lower level, for any other text the last heading before it (-1: none), as
    ``qatbe.score.bm25.heading_ancestors`` reads them (None without headings). ``best`` is the largest raw score
    (0 for none) and ``relevant`` says which are > 0 and >= ``floor`` x ``best``.

    ``positions`` (optional): each term's place in its text's terms, when ``doc_terms`` leave out terms no query
    slot holds (``TermMemo.index_sparse``); the lengths are ``doc_lengths``, whatever is left out.
    """
    _check_bm25(doc_terms, doc_offsets, n_terms, query_terms, query_weights, k1, b, variant, delta, prior_n,
                prior_df, doc_lengths)
    cdef _Csr c = _csr(doc_terms, doc_offsets, n_terms, query_terms)
    _use_positions(&c, positions)
    cdef Py_ssize_t n = c.n_docs, n_heads, j, d
    cdef list items = _texts(texts)
    if len(items) != n:
        raise ValueError("texts must have one entry per document")
    if not 0 <= n_near <= c.n_q:
        raise ValueError("n_near must lie in [0, len(query_terms)]")
    if window < 1:
        raise ValueError("window must be >= 1")
    if not (isfinite(proximity) and isfinite(lead_in) and isfinite(heading) and isfinite(sibling)
            and isfinite(floor) and isfinite(inherit_words)):
        raise ValueError("the shares and the floor must be finite")
    if inherit_words < 0.0:
        raise ValueError("inherit_words must be >= 0")
    heads_list = list(heads)
    n_heads = len(heads_list)
    cdef _Parts pt
    cdef uint32_t last
    cdef bint found[4]
    cdef double best = 0.0
    cdef long long* df_ptr
    # one block: the head indices and levels, the groups, the heading stack (longs); seven score rows (doubles);
    # the colon flags and the relevance flags (bytes)
    cdef char* block = <char*> calloc(1, (2 * n_heads + 2 * n + 1) * sizeof(long long) + 7 * n * sizeof(double)
                                      + 2 * n + 8)
    if block == NULL:
        raise MemoryError()
    cdef long long* longs = <long long*> block
    cdef double* rows = <double*> (block + (2 * n_heads + 2 * n + 1) * sizeof(long long))
    pt.head_idx = longs
    pt.head_level = longs + n_heads
    pt.group = longs + 2 * n_heads
    pt.stack = longs + 2 * n_heads + n
    pt.n_heads = n_heads
    pt.raw, pt.base, pt.prox, pt.lead = rows, rows + n, rows + 2 * n, rows + 3 * n
    pt.head, pt.sib, pt.inherited = rows + 4 * n, rows + 5 * n, rows + 6 * n
    pt.colon = <uint8_t*> (rows + 7 * n)
    pt.relevant = pt.colon + n
    try:
        _ints(heads_list, n_heads, pt.head_idx, "heads")
        _ints(levels, n_heads, pt.head_level, "levels")
        _ints(groups, n, pt.group, "groups")
        for j in range(n_heads):
            if not 0 <= pt.head_idx[j] < n or (j and pt.head_idx[j] <= pt.head_idx[j - 1]):
                raise ValueError("heads must be increasing document indices")
        if lead_in > 0.0:
            for d in range(n - 1):
                last = _last_visible(items[d])
                pt.colon[d] = last == 58 or last == 0xFF1A
        df_arr = _ZEROS(c.n_q, _I64)
        df_ptr = <long long*> _data(df_arr) if c.n_q else NULL
        with nogil:
            _page(&c, &query_weights[0] if c.n_q else NULL, k1, b, variant, delta, prior_n,
                  &prior_df[0] if prior_df is not None and c.n_q else NULL,
                  &doc_lengths[0] if n else NULL, n_near, window, proximity, lead_in, heading, sibling, floor,
                  inherit_words, &pt, found, &best, df_ptr)
        relevant_arr = _copy_array(pt.relevant, n, _BOOL)  # its bytes are 0 or 1
        return (_copy_array(pt.raw, n, _F64), _copy_array(pt.base, n, _F64),
                _copy_array(pt.prox, n, _F64) if found[0] else None,
                _copy_array(pt.lead, n, _F64) if found[1] else None,
                _copy_array(pt.head, n, _F64) if found[2] else None,
                _copy_array(pt.sib, n, _F64) if found[3] else None,
                relevant_arr, best, df_arr, _copy_array(pt.stack, n, _I64) if n_heads else None)
    finally:
        free(block)


cdef void* _data(arr) except NULL:
    """The data pointer of a C-contiguous array made here (valid while ``arr`` lives; never empty)."""
    cdef Py_buffer view
    PyObject_GetBuffer(arr, &view, PyBUF_SIMPLE | PyBUF_WRITABLE)
    cdef void* p = view.buf
    PyBuffer_Release(&view)
    return p


cdef object _copy_array(const void* src, Py_ssize_t n, dtype):
    """A new array of ``n`` items of ``dtype`` holding a copy of ``src``. Why not typed memoryviews: each costs
    more to set up than copying a page's scores."""
    arr = _EMPTY(n, dtype)
    if n:
        memcpy(_data(arr), src, n * (<Py_ssize_t> dtype.itemsize))
    return arr


cdef struct _Parts:
    # page_scores's per-segment inputs and outputs (see there); ``stack`` ends up holding ``up``.
    long long* head_idx
    long long* head_level
    long long* group
    long long* stack
    Py_ssize_t n_heads
    double* raw
    double* base
    double* prox
    double* lead
    double* head
    double* sib
    double* inherited
    uint8_t* colon
    uint8_t* relevant


cdef inline double _carried(const _Csr* c, const double* lengths, Py_ssize_t i, double words) noexcept nogil:
    """The share of an inherited score that text ``i`` keeps: min(1, its length / ``words``), its length being
    ``lengths[i]`` or, without lengths, its number of terms; 1 when ``words`` is 0."""
    cdef double length
    if words <= 0.0:
        return 1.0
    length = lengths[i] if lengths != NULL else <double> (c.offsets[i + 1] - c.offsets[i])
    return 1.0 if length >= words else length / words


cdef inline bint _add(double* part, double share, double* raw, Py_ssize_t n, const _Csr* c, const double* lengths,
                      double words) noexcept nogil:
    """``share`` x ``part`` (x ``_carried``) added to ``raw``, the part scaled in place; whether it is non-zero
    somewhere (adding a part that is 0 everywhere changes nothing: the scores are >= 0, so x + 0.0 is x)."""
    cdef Py_ssize_t i
    cdef bint found = False
    for i in range(n):
        part[i] = share * part[i] * _carried(c, lengths, i, words)
        if part[i] != 0.0:
            found = True
        raw[i] = raw[i] + part[i]
    return found


cdef int _page(const _Csr* c, const double* query_weights, double k1, double b, int variant, double delta,
               double prior_n, const double* prior_df, const double* doc_lengths, Py_ssize_t n_near,
               Py_ssize_t window, double proximity, double lead_in, double heading, double sibling, double floor,
               double inherit_words, _Parts* pt, bint* found, double* best_out, long long* df) except -1 nogil:
    """The loops of ``page_scores`` (arguments checked there; the rows zeroed; ``n`` >= 0)."""
    cdef Py_ssize_t n = c.n_docs, i, depth = 0, next_head = 0, n_heads = pt.n_heads
    cdef long long k
    cdef long long* up = pt.stack  # filled once the chains are read (the stack is then free)
    cdef long long* open_heads = pt.stack
    cdef double best = 0.0, value, cut
    cdef double* raw = pt.raw
    found[0] = found[1] = found[2] = found[3] = False
    if n == 0:
        best_out[0] = 0.0
        return 0
    _bm25(c, query_weights, k1, b, variant, delta, prior_n, prior_df, doc_lengths, pt.base, df)
    for i in range(n):
        raw[i] = pt.base[i]
    if proximity > 0.0 and n_near >= 2:
        _pairs(c, n_near, window, pt.prox)
        found[0] = _add(pt.prox, proximity, raw, n, c, doc_lengths, 0.0)  # a text's own words: not inherited
    # heading chains (heading_ancestors): a stack of the open headings, by level; `inherited` holds up for now
    for i in range(n):
        if next_head < n_heads and pt.head_idx[next_head] == i:
            while depth and pt.head_level[open_heads[depth - 1]] >= pt.head_level[next_head]:
                depth -= 1
            pt.inherited[i] = pt.head_idx[open_heads[depth - 1]] if depth else -1
            open_heads[depth] = next_head
            depth += 1
            next_head += 1
        else:
            pt.inherited[i] = pt.head_idx[open_heads[depth - 1]] if depth else -1
    for i in range(n):
        up[i] = <long long> pt.inherited[i]
    if lead_in > 0.0:
        next_head = 0
        for i in range(1, n):
            while next_head < n_heads and pt.head_idx[next_head] < i:
                next_head += 1
            if pt.colon[i - 1] and not (next_head < n_heads and pt.head_idx[next_head] == i):
                pt.lead[i] = raw[i - 1]
        found[1] = _add(pt.lead, lead_in, raw, n, c, doc_lengths, inherit_words)
    if heading > 0.0 and n_heads:
        for i in range(n):
            value = 0.0
            k = up[i]
            if k >= 0:
                value = raw[k]
                k = up[k]
                while k >= 0:
                    if raw[k] > value:
                        value = raw[k]
                    k = up[k]
            pt.head[i] = value
        found[2] = _add(pt.head, heading, raw, n, c, doc_lengths, inherit_words)
    if sibling > 0.0:
        for i in range(n):
            value = 0.0
            if pt.group[i] >= 0:
                if i > 0 and pt.group[i - 1] == pt.group[i]:
                    value = raw[i - 1]
                if i + 1 < n and pt.group[i + 1] == pt.group[i] and raw[i + 1] > value:
                    value = raw[i + 1]
            pt.sib[i] = value
        found[3] = _add(pt.sib, sibling, raw, n, c, doc_lengths, inherit_words)
    for i in range(n):
        if raw[i] > best:
            best = raw[i]
    cut = floor * best
    for i in range(n):
        pt.relevant[i] = raw[i] > 0.0 and raw[i] >= cut
    best_out[0] = best
    return 0


# ---------------------------------------------------------------------------------------------------------------
# A page's segments -> what the scorer reads of them (see ``page_fields``).


cdef extern from "Python.h":
    ctypedef struct PyMemberDef:
        int type
        Py_ssize_t offset
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member

cdef int _T_OBJECT_EX = 16  # PyMemberDef.type of a __slots__ entry (Py_T_OBJECT_EX)
_MEMBER = type(type.__dict__["__dictoffset__"])  # types.MemberDescriptorType, without importing types


cdef Py_ssize_t _slot_offset(cls, str name) except -2:
    """Where instances of ``cls`` hold their ``__slots__`` entry ``name`` (its byte offset), or -1 when ``cls``
    defines no such slot (the field is then read with getattr)."""
    d = cls.__dict__.get(name) if isinstance(cls, type) else None
    if type(d) is not _MEMBER:
        return -1
    cdef PyMemberDef* m = (<PyMemberDescrObject*> <PyObject*> d).d_member
    if m.type != _T_OBJECT_EX:
        return -1
    return m.offset


cdef inline object _field(item, cls, Py_ssize_t offset, str name):
    """``item.<name>``, read in place when ``item`` is exactly a ``cls`` whose slot is at ``offset``."""
    cdef PyObject* p
    if offset >= 0 and type(item) is cls:
        p = (<PyObject**> (<char*> <PyObject*> item + offset))[0]
        if p != NULL:
            return <object> p
    return getattr(item, name)  # an unset slot raises AttributeError here, as the attribute access would


def page_fields(segments, heading, prose):
    """What the scorer reads of a page's segments, in one pass: ``(texts, heads, levels, groups, use)``.

    ``texts[i]`` and ``groups[i]`` are segment i's ``text`` and ``group``; ``heads`` the indices of the segments
    whose ``kind`` is ``heading`` (identity, as ``kind is SegmentKind.HEADING``), ``levels`` their ``level``;
    ``use[i]`` is 1 when segment i's kind is in ``prose`` (``kind in prose``), else 0.

    Why compiled: the scorer read four fields of every segment in four list comprehensions, and tested each kind
    against a tuple of enum members, about a fifth of scoring a page of 90 segments. A ``Segment`` keeps its fields
    in ``__slots__``: here they are read where the slots are (the offsets its member descriptors give), other
    objects through getattr.
    """
    cdef list items = list(segments)
    cdef Py_ssize_t n = len(items), i, j, n_prose
    cdef list texts = [None] * n
    cdef list groups = [None] * n
    cdef list heads = []
    cdef list levels = []
    cdef tuple kinds = tuple(prose)
    cdef bytearray use = bytearray(n)
    cdef Py_ssize_t o_text = -1, o_kind = -1, o_group = -1, o_level = -1
    n_prose = len(kinds)
    # Kinds are enum members: when the heading and every prose kind are members of one enum, a member of that
    # enum is in ``prose`` iff it is one of them (distinct members have distinct values), so identity decides.
    kind_type = type(heading)
    cdef bint by_identity = all(type(k) is kind_type for k in kinds) and hasattr(kind_type, "_member_map_")
    cls = type(items[0]) if n else None
    if n:
        o_text = _slot_offset(cls, "text")
        o_kind = _slot_offset(cls, "kind")
        o_group = _slot_offset(cls, "group")
        o_level = _slot_offset(cls, "level")
    for i in range(n):
        item = items[i]
        texts[i] = _field(item, cls, o_text, "text")
        kind = _field(item, cls, o_kind, "kind")
        groups[i] = _field(item, cls, o_group, "group")
        if kind is heading:
            heads.append(i)
            levels.append(_field(item, cls, o_level, "level"))
        for j in range(n_prose):
            if kind is kinds[j]:
                use[i] = 1
                break
        else:
            if not (by_identity and type(kind) is kind_type) and kind in kinds:
                use[i] = 1
    return texts, heads, levels, groups, bytes(use)


# ---------------------------------------------------------------------------------------------------------------
# Tokenizer: texts -> raw token ids over a page-wide vocabulary (see ``tokenize``).


cdef inline bint _is_cjk(uint32_t c) noexcept nogil:
    return ((0x3040 <= c <= 0x30FF) or (0x3400 <= c <= 0x4DBF) or (0x4E00 <= c <= 0x9FFF)
            or (0xF900 <= c <= 0xFAFF) or (0xAC00 <= c <= 0xD7AF))


cdef inline bint _is_mark(uint32_t c) noexcept nogil:
    return ((0x0300 <= c <= 0x036F) or (0x0483 <= c <= 0x0489) or (0x0591 <= c <= 0x05C7)
            or (0x0610 <= c <= 0x061A) or (0x064B <= c <= 0x065F) or (0x0900 <= c <= 0x0DFF)
            or (0x0E00 <= c <= 0x0EFF) or (0x1AB0 <= c <= 0x1AFF) or (0x1DC0 <= c <= 0x1DFF)
            or (0x20D0 <= c <= 0x20FF) or (0xFE20 <= c <= 0xFE2F))


cdef inline bint _is_word(uint32_t c) noexcept nogil:
    if c < 128:
        return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122) or c == 95
    if _is_cjk(c):
        return False
    return Py_UNICODE_ISALNUM(c) or _is_mark(c)


cdef inline bint _is_joiner(uint32_t c) noexcept nogil:
    return c == 45 or c == 39 or c == 46 or c == 44 or c == 0x2019


cdef struct _Vocab:
    uint32_t* chars       # all keys, back to back
    Py_ssize_t n_chars, cap_chars
    int64_t* start       # key i = chars[start[i]:start[i] + length[i]]
    int32_t* length
    char* simple
    Py_ssize_t n, cap
    int32_t* table       # open addressing: vocab index or -1
    uint64_t* hashes
    Py_ssize_t table_size


cdef int _grow(void** p, Py_ssize_t* cap, Py_ssize_t need, Py_ssize_t item) except -1 nogil:
    cdef Py_ssize_t new_cap
    cdef void* q
    if need <= cap[0]:
        return 0
    new_cap = cap[0] * 2 if cap[0] else 64
    while new_cap < need:
        new_cap *= 2
    q = realloc(p[0], new_cap * item)
    if q == NULL:
        with gil:
            raise MemoryError()
    p[0] = q
    cap[0] = new_cap
    return 0


cdef int _rehash(_Vocab* v, Py_ssize_t expect=512) except -1 nogil:
    """Double the table (the first one: room for ``expect`` keys, at least 8; a page's texts tell how many
    tokens they can hold, and a query's table need not be a page's)."""
    cdef Py_ssize_t size = v.table_size * 2
    if not v.table_size:
        size = 16
        while size < 2 * expect:
            size *= 2
    cdef int32_t* table = <int32_t*> malloc(size * sizeof(int32_t))
    cdef uint64_t* hashes = <uint64_t*> malloc(size * sizeof(uint64_t))
    cdef Py_ssize_t i, j
    if table == NULL or hashes == NULL:
        free(table); free(hashes)
        with gil:
            raise MemoryError()
    for i in range(size):
        table[i] = -1
    for i in range(v.table_size):
        if v.table[i] >= 0:
            j = <Py_ssize_t> (v.hashes[i] & <uint64_t> (size - 1))
            while table[j] >= 0:
                j = (j + 1) & (size - 1)
            table[j] = v.table[i]
            hashes[j] = v.hashes[i]
    free(v.table); free(v.hashes)
    v.table = table
    v.hashes = hashes
    v.table_size = size
    return 0


cdef inline uint64_t _key_hash(const uint32_t* key, Py_ssize_t length, bint simple) noexcept nogil:
    """Two characters a multiply (the chain of multiplies is the hash's cost, and every token the index keeps is
    hashed), the high half folded into the low at the end, which the table's slot is taken from."""
    cdef uint64_t h = (1469598103934665603ULL ^ <uint64_t> length) * 2 + <uint64_t> simple
    cdef Py_ssize_t i = 0
    while i + 1 < length:
        h = (h ^ (<uint64_t> key[i] | (<uint64_t> key[i + 1] << 32))) * 0x9E3779B97F4A7C15ULL
        i += 2
    if i < length:
        h = (h ^ <uint64_t> key[i]) * 0x9E3779B97F4A7C15ULL
    return h ^ (h >> 29)


cdef inline Py_ssize_t _find_slot(const _Vocab* v, const uint32_t* key, Py_ssize_t length, bint simple,
                                  uint64_t h) noexcept nogil:
    """The table slot holding ``(key, simple)``, or the empty slot where it would go."""
    cdef Py_ssize_t j = <Py_ssize_t> (h & <uint64_t> (v.table_size - 1))
    cdef int32_t idx
    while True:
        idx = v.table[j]
        if idx < 0:
            return j
        if (v.hashes[j] == h and v.length[idx] == length and v.simple[idx] == simple
                and (length == 0 or memcmp(v.chars + v.start[idx], key, length * sizeof(uint32_t)) == 0)):
            return j  # (length 0: chars may still be NULL, and memcmp/memcpy on NULL is undefined even for 0 bytes)
        j = (j + 1) & (v.table_size - 1)


cdef inline int32_t _lookup(const _Vocab* v, const uint32_t* key, Py_ssize_t length, bint simple) noexcept nogil:
    """The index of ``(key, simple)`` in ``v``, or -1."""
    return v.table[_find_slot(v, key, length, simple, _key_hash(key, length, simple))]


cdef int32_t _intern(_Vocab* v, const uint32_t* key, Py_ssize_t length, bint simple) except -2 nogil:
    cdef uint64_t h = _key_hash(key, length, simple)
    cdef Py_ssize_t i, j
    cdef int32_t idx
    if (v.n + 1) * 2 > v.table_size:
        _rehash(v)
    j = _find_slot(v, key, length, simple, h)
    if v.table[j] >= 0:
        return v.table[j]
    _grow(<void**> &v.chars, &v.cap_chars, v.n_chars + length, sizeof(uint32_t))
    if v.n + 1 > v.cap:
        i = v.cap
        _grow(<void**> &v.start, &i, v.n + 1, sizeof(int64_t))
        i = v.cap
        _grow(<void**> &v.length, &i, v.n + 1, sizeof(int32_t))
        _grow(<void**> &v.simple, &v.cap, v.n + 1, sizeof(char))
    if length:  # the empty key: nothing to copy, and chars may still be NULL (UBSan, fuzz/README.md)
        memcpy(v.chars + v.n_chars, key, length * sizeof(uint32_t))
    idx = <int32_t> v.n
    v.start[idx] = v.n_chars
    v.length[idx] = <int32_t> length
    v.simple[idx] = simple
    v.n_chars += length
    v.n += 1
    v.table[j] = idx
    v.hashes[j] = h
    return idx


cdef struct _Out:
    int32_t* ids
    Py_ssize_t n, cap


cdef inline _Out _no_out() noexcept nogil:
    """An empty ``_Out`` (nothing allocated yet)."""
    cdef _Out out
    out.ids = NULL
    out.n = 0
    out.cap = 0
    return out


cdef inline int _emit(_Out* out, int32_t idx) except -1 nogil:
    if out.n >= out.cap:
        _grow(<void**> &out.ids, &out.cap, out.n + 1, sizeof(int32_t))
    out.ids[out.n] = idx
    out.n += 1
    return 0


cdef inline uint32_t _low(uint32_t c) noexcept nogil:
    return c + 32 if 65 <= c <= 90 else c


cdef struct _Prefixes:
    # The prefix keys (``_key_of``) as a bitmap over pairs of ASCII characters -- bit c0 * 129 + c1 + 1 for
    # "c0c1", bit c0 * 129 for a lone "c0" -- so that a token's check is one load, not a loop over the keys; the
    # keys themselves, sorted, for the rest (non-ASCII keys, searched by halving).
    uint64_t bits[259]
    const uint64_t* keys
    Py_ssize_t n
    # Optional (NULL: none): the folding table that lets non-ASCII tokens be ruled out too (see ``tokenize``).
    const uint32_t* fold
    Py_ssize_t n_fold
    # Three-character keys (ASCII): the bits no shorter key set, whose simple tokens must also have one of
    # their keys' third characters (``third_bit[j]``'s in ``third_mask[j]``, a bit per ASCII character); with
    # more than 64 such bits, none is limited.
    uint64_t limited[259]
    Py_ssize_t n_third
    uint16_t third_bit[64]
    uint64_t third_mask[64][2]


cdef inline bint _in_bitmap(uint64_t key) noexcept nogil:
    """Whether a prefix key is one of ASCII characters, kept in ``_Prefixes.bits`` (the others are searched)."""
    return ((key >> 22) & 0x3FFFFF) < 128 and (key & 0x3FFFFF) <= 128


cdef void _fill_prefixes(_Prefixes* p, const uint64_t* keys, Py_ssize_t n, Py_ssize_t n_other) noexcept nogil:
    """``p`` for the ``n`` prefix keys ``keys``, whose first ``n_other`` are the sorted keys not ``_in_bitmap``. A
    three-character key sets its first two's bit and, unless a shorter key sets that bit too, limits it to its
    third character (``_Prefixes.limited``)."""
    cdef Py_ssize_t k, j
    cdef uint64_t c0, c1, c2, bit
    cdef uint64_t whole[259]
    memset(p.bits, 0, sizeof(p.bits))
    memset(p.limited, 0, sizeof(p.limited))
    memset(whole, 0, sizeof(whole))
    p.keys = keys
    p.n = n_other
    p.fold = NULL
    p.n_fold = 0
    p.n_third = 0
    for k in range(n):
        c0 = (keys[k] >> 22) & 0x3FFFFF
        c1 = keys[k] & 0x3FFFFF
        if c0 < 128 and c1 <= 128:
            bit = c0 * 129 + c1
            p.bits[bit >> 6] |= (<uint64_t> 1) << (bit & 63)
            if not keys[k] >> 44:
                whole[bit >> 6] |= (<uint64_t> 1) << (bit & 63)
    for k in range(n):
        c2 = keys[k] >> 44
        if not c2:
            continue
        bit = ((keys[k] >> 22) & 0x3FFFFF) * 129 + (keys[k] & 0x3FFFFF)  # a three-character key is ASCII
        if (whole[bit >> 6] >> (bit & 63)) & 1:
            continue
        for j in range(p.n_third):
            if p.third_bit[j] == bit:
                break
        else:
            if p.n_third == 64:  # more limited starts than there is room for (the twin's THIRD_LIMITS):
                memset(p.limited, 0, sizeof(p.limited))  # none is limited
                p.n_third = 0
                return
            j = p.n_third
            p.n_third += 1
            p.third_bit[j] = <uint16_t> bit
            p.third_mask[j][0] = 0
            p.third_mask[j][1] = 0
        c2 -= 1
        p.third_mask[j][c2 >> 6] |= (<uint64_t> 1) << (c2 & 63)
        p.limited[bit >> 6] |= (<uint64_t> 1) << (bit & 63)


ctypedef fused _sorted_t:
    int32_t
    uint64_t


cdef inline bint _in_sorted(const _sorted_t* items, Py_ssize_t n, _sorted_t x) noexcept nogil:
    """Whether the increasing ``items[:n]`` hold ``x`` (a search by halving)."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if items[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo < n and items[lo] == x


cdef inline bint _key_in(const _Prefixes* p, uint64_t key) noexcept nogil:
    cdef uint64_t c0 = key >> 22, c1 = key & 0x3FFFFF, bit
    if c0 < 128 and c1 <= 128:
        bit = c0 * 129 + c1
        return (p.bits[bit >> 6] >> (bit & 63)) & 1
    return _in_sorted(p.keys, p.n, key)


cdef inline uint32_t _folded(uint32_t c, const _Prefixes* p) noexcept nogil:
    """``c`` as the analyser folds it (ASCII lower-cased; others through ``p.fold``), 0 when not known."""
    if c < 128:
        return _low(c)
    if c < <uint32_t> p.n_fold:
        return p.fold[c]
    return 0


cdef inline bint _has_prefix(const uint32_t* buf, Py_ssize_t length, Py_ssize_t a, Py_ssize_t b,
                             const _Prefixes* prefixes) noexcept nogil:
    """Is (buf[a], buf[b]) folded -- or buf[a] alone when b is past the end -- one of the prefixes? True when a
    character's folded form is not known (it cannot be ruled out)."""
    cdef uint32_t c0 = _folded(buf[a], prefixes), c1 = 0
    if c0 == 0:
        return True
    if b < length:
        c1 = _folded(buf[b], prefixes)
        if c1 == 0:
            return True
        return _key_in(prefixes, (<uint64_t> c0 << 22) | (<uint64_t> c1 + 1))
    return _key_in(prefixes, <uint64_t> c0 << 22)


cdef inline bint _ascii(const uint32_t* buf, Py_ssize_t length) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(length):
        if buf[k] >= 128:
            return False
    return True


cdef inline bint _is_lower(uint32_t c) noexcept nogil:
    return 97 <= c <= 122


cdef inline bint _is_upper(uint32_t c) noexcept nogil:
    return 65 <= c <= 90


cdef bint _complex_match(const uint32_t* buf, Py_ssize_t length, const _Prefixes* prefixes) noexcept nogil:
    """Can a token with joiners, underscores, inner capitals or non-ASCII letters yield a term with one of the
    prefixes? (A part start whose folded characters are not known always can.)

    Every term analyze.split_word makes of such a token starts at a part start (the token start, after a joiner
    or underscore, at a camelCase boundary): with the next character, or, for a joined form ("e-mail" ->
    "email", "1,000" -> "1000"), with the next character that is not a joiner.
    """
    cdef Py_ssize_t k
    for k in range(length):
        if (k == 0 or (_is_joiner(buf[k - 1]) or buf[k - 1] == 95)
                or ((_is_lower(buf[k - 1]) or 48 <= buf[k - 1] <= 57) and _is_upper(buf[k]))
                or (_is_upper(buf[k - 1]) and _is_upper(buf[k]) and k + 1 < length and _is_lower(buf[k + 1]))):
            if _part_match(buf, length, k, prefixes):
                return True
    return False


cdef inline bint _cjk_match(const uint32_t* buf, Py_ssize_t length, const _Prefixes* prefixes) noexcept nogil:
    """Can a CJK token (a bigram, or a lone character) be a term with one of the prefixes? Its one term is itself
    (no CJK language has a stemmer, and case and accent folding leave these scripts alone), except that the
    analyser's normalisation maps a compatibility ideograph to another character: such a token is kept."""
    cdef Py_ssize_t k
    for k in range(length):
        if 0xF900 <= buf[k] <= 0xFAFF:
            return True
    if length == 1:
        return _key_in(prefixes, <uint64_t> buf[0] << 22)
    return _key_in(prefixes, (<uint64_t> buf[0] << 22) | (<uint64_t> buf[1] + 1))


cdef inline bint _part_match(const uint32_t* buf, Py_ssize_t length, Py_ssize_t k,
                             const _Prefixes* prefixes) noexcept nogil:
    """A part starting at k: its first two characters, or its first and the next non-joiner (joined forms)."""
    cdef Py_ssize_t k2 = k + 1
    if _has_prefix(buf, length, k, k + 1, prefixes):
        return True
    while k2 < length and _is_joiner(buf[k2]):
        k2 += 1
    return k2 < length and _has_prefix(buf, length, k, k2, prefixes)


ctypedef fused _char_t:
    uint8_t
    uint16_t
    uint32_t


# ASCII character classes for the scan: one table load instead of a chain of range tests per character.
cdef enum:
    _LOWER = 1
    _UPPER = 2
    _DIGIT = 4
    _UNDER = 8
    _WORD = 15
cdef uint8_t _ACLASS[128]
for _c in range(128):
    _ACLASS[_c] = (_LOWER if 97 <= _c <= 122 else _UPPER if 65 <= _c <= 90 else _DIGIT if 48 <= _c <= 57
                   else _UNDER if _c == 95 else 0)


cdef extern from *:
    """
    /* How many code points from s[i] on are ASCII letters, digits or '_' (a token's body), sixteen a step (SSE2),
       with their classes ORed into *late (1 lower, 2 upper, 8 underscore: _ACLASS's bits; not 4, digit, which the
       scan never reads). It stops at the first other code point, or with fewer than sixteen left; the caller's
       scalar loop goes on from there.
       Why: the scalar loop's exit at a token's end is a branch that mispredicts once a token, and the loop itself
       was most of the scan's time; here a token's length is one count of trailing ones. Two-byte storage is
       packed to bytes with unsigned saturation first (anything above 255 becomes 255, which is no word byte). */
    #include <stdint.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    /* Which of sixteen bytes are ASCII lower-case letters, upper-case letters, digits and '_', a bit each: a
       byte in a range of k is below -128 + k once the range's first value is moved to -128. */
    static inline void qatbe_ascii_classes(__m128i v, unsigned* lo, unsigned* up, unsigned* dg, unsigned* us) {
        const __m128i lim26 = _mm_set1_epi8((char) (-128 + 26)), lim10 = _mm_set1_epi8((char) (-128 + 10));
        *lo = (unsigned) _mm_movemask_epi8(
            _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char) (128 - 'a'))), lim26));
        *up = (unsigned) _mm_movemask_epi8(
            _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char) (128 - 'A'))), lim26));
        *dg = (unsigned) _mm_movemask_epi8(
            _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char) (128 - '0'))), lim10));
        *us = (unsigned) _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('_')));
    }
    static inline unsigned qatbe_run16(__m128i v, unsigned char* late) {
        unsigned lo, up, dg, us;
        qatbe_ascii_classes(v, &lo, &up, &dg, &us);
        unsigned run = (unsigned) __builtin_ctz(~(lo | up | dg | us));  /* 16 bits of word bytes: at most 16 */
        unsigned keep = (1u << run) - 1u;
        /* the digit bit is left out: the scan never reads it (only lower, upper and underscore decide "simple") */
        *late |= (unsigned char) (((lo & keep) != 0) | (((up & keep) != 0) << 1) | (((us & keep) != 0) << 3));
        return run;
    }
    #endif
    static inline Py_ssize_t qatbe_word_run8(const uint8_t* s, Py_ssize_t i, Py_ssize_t n, unsigned char* late) {
        Py_ssize_t start = i;
    #if defined(__SSE2__)
        unsigned run;
        while (i + 16 <= n) {
            run = qatbe_run16(_mm_loadu_si128((const __m128i*) (s + i)), late);
            i += run;
            if (run < 16) break;
        }
    #endif
        return i - start;
    }
    static inline Py_ssize_t qatbe_word_run16(const uint16_t* s, Py_ssize_t i, Py_ssize_t n, unsigned char* late) {
        Py_ssize_t start = i;
    #if defined(__SSE2__)
        unsigned run;
        while (i + 16 <= n) {
            run = qatbe_run16(_mm_packus_epi16(_mm_loadu_si128((const __m128i*) (s + i)),
                                               _mm_loadu_si128((const __m128i*) (s + i + 8))), late);
            i += run;
            if (run < 16) break;
        }
    #endif
        return i - start;
    }
    """
    Py_ssize_t qatbe_word_run8(const uint8_t* s, Py_ssize_t i, Py_ssize_t n, uint8_t* late) nogil
    Py_ssize_t qatbe_word_run16(const uint16_t* s, Py_ssize_t i, Py_ssize_t n, uint8_t* late) nogil


cdef extern from *:
    """
    /* The character classes of a text's code points, a bit each, 64 to a word (bit b of word k: code point
       64 k + b): ASCII word characters (letters, digits, '_'), upper case, lower case, '_', the ASCII joiners
       (- ' . ,) and every code point above 127, which the caller classifies itself. Sixteen a step (SSE2); the
       last few, and every one where SSE2 is missing, one at a time. Two-byte storage is narrowed to bytes first,
       each code point above 127 to 0x80 (a saturating pack alone would turn those above 0x7FFF into 0).
       ``out`` holds six arrays of ``stride`` words each (W, U, L, S, J, H), of which the first (n + 63) / 64 are
       written. Why: ``_find_masked`` (qatbe/_core.pyx) finds a text's tokens from these. */
    #include <stdint.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    static inline void qatbe_classes16(__m128i v, uint64_t* m, unsigned shift) {
        unsigned lo32, up32, dg32, us32;
        qatbe_ascii_classes(v, &lo32, &up32, &dg32, &us32);
        uint64_t lo = lo32, up = up32, dg = dg32, us = us32;
        uint64_t jn = (unsigned) _mm_movemask_epi8(_mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('-')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\''))),
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('.')), _mm_cmpeq_epi8(v, _mm_set1_epi8(',')))));
        uint64_t hi = (unsigned) _mm_movemask_epi8(v);
        m[0] |= (lo | up | dg | us) << shift;
        m[1] |= up << shift;
        m[2] |= lo << shift;
        m[3] |= us << shift;
        m[4] |= jn << shift;
        m[5] |= hi << shift;
    }
    static inline __m128i qatbe_narrow16(const uint16_t* s) {
        const __m128i high = _mm_set1_epi16((short) 0xFF80), mark = _mm_set1_epi16(0x80);
        const __m128i zero = _mm_setzero_si128();
        __m128i a = _mm_loadu_si128((const __m128i*) s), b = _mm_loadu_si128((const __m128i*) (s + 8));
        __m128i ma = _mm_cmpeq_epi16(_mm_and_si128(a, high), zero);
        __m128i mb = _mm_cmpeq_epi16(_mm_and_si128(b, high), zero);
        a = _mm_or_si128(_mm_and_si128(a, ma), _mm_andnot_si128(ma, mark));
        b = _mm_or_si128(_mm_and_si128(b, mb), _mm_andnot_si128(mb, mark));
        return _mm_packus_epi16(a, b);
    }
    #endif
    static inline void qatbe_class_one(uint32_t c, uint64_t* m, unsigned b) {
        uint64_t bit = (uint64_t) 1 << b;
        if (c >= 128) { m[5] |= bit; return; }
        if (c >= 'a' && c <= 'z') { m[0] |= bit; m[2] |= bit; }
        else if (c >= 'A' && c <= 'Z') { m[0] |= bit; m[1] |= bit; }
        else if (c >= '0' && c <= '9') m[0] |= bit;
        else if (c == '_') { m[0] |= bit; m[3] |= bit; }
        else if (c == '-' || c == '\\'' || c == '.' || c == ',') m[4] |= bit;
    }
    static inline int qatbe_ctz64(uint64_t x) {  /* x != 0 */
    #if defined(__GNUC__) || defined(__clang__)
        return __builtin_ctzll(x);
    #else
        int count = 0;
        while (!(x & 1)) { x >>= 1; count++; }
        return count;
    #endif
    }
    static inline int qatbe_popcount64(uint64_t x) {
    #if defined(__GNUC__) || defined(__clang__)
        return __builtin_popcountll(x);
    #else
        int count = 0;
        for (; x; x &= x - 1) count++;
        return count;
    #endif
    }
    static void qatbe_class_masks(const void* data, int width, Py_ssize_t n, uint64_t* out, Py_ssize_t stride) {
        Py_ssize_t nw = (n + 63) >> 6, k, i, end;
        for (k = 0; k < nw; k++) {
            uint64_t m[6] = {0, 0, 0, 0, 0, 0};
            Py_ssize_t base = k << 6;
            i = base;
            end = base + 64 < n ? base + 64 : n;
    #if defined(__SSE2__)
            if (width == 1) {
                for (; i + 16 <= end; i += 16)
                    qatbe_classes16(_mm_loadu_si128((const __m128i*) ((const uint8_t*) data + i)), m,
                                    (unsigned) (i - base));
            } else {
                for (; i + 16 <= end; i += 16)
                    qatbe_classes16(qatbe_narrow16((const uint16_t*) data + i), m, (unsigned) (i - base));
            }
    #endif
            for (; i < end; i++)
                qatbe_class_one(width == 1 ? ((const uint8_t*) data)[i] : ((const uint16_t*) data)[i], m,
                                (unsigned) (i - base));
            for (int a = 0; a < 6; a++)
                out[a * stride + k] = m[a];
        }
    }
    """
    void qatbe_class_masks(const void* data, int width, Py_ssize_t n, uint64_t* out, Py_ssize_t stride) nogil
    int qatbe_ctz64(uint64_t x) nogil
    int qatbe_popcount64(uint64_t x) nogil


cdef inline void _put_at(_Out* out, int32_t idx, int32_t* at, Py_ssize_t t) noexcept nogil:
    """``_emit`` into room made beforehand (``_take_texts`` sizes ``out`` for every token of the texts), and the
    occurrence's token index ``t`` into ``at`` (when not NULL, as large) at the same place."""
    if at != NULL:
        at[out.n] = <int32_t> t
    out.ids[out.n] = idx
    out.n += 1


cdef enum:
    # What a token occurrence of a ``Scan`` is: how its characters become its key (``_take``).
    _TOK_SIMPLE = 0   # ASCII letters/digits, ordinary capitalisation: lower-cased
    _TOK_COMPLEX = 1  # anything else with word characters: as written
    _TOK_CJK = 2      # a CJK bigram, or a lone CJK character: as written, keyed as simple


cdef struct _Tok:
    # One token occurrence: ``length`` code points from ``start`` in its text. For a simple token, ``bit`` is its
    # prefix's bit in a ``_Prefixes`` bitmap (its first two characters, lower-cased), read when it is scanned, so
    # that a filtered read rules most tokens out without touching the text again.
    int64_t start
    int32_t length
    uint16_t kind
    uint16_t bit


cdef struct _Toks:
    _Tok* items
    Py_ssize_t n, cap


cdef inline int _add_tok(_Toks* toks, Py_ssize_t start, Py_ssize_t length, int kind, uint16_t bit
                         ) except -1 nogil:
    if toks.n >= toks.cap:
        _grow(<void**> &toks.items, &toks.cap, toks.n + 1, sizeof(_Tok))
    toks.items[toks.n].start = start
    toks.items[toks.n].length = <int32_t> length
    toks.items[toks.n].kind = <uint16_t> kind
    toks.items[toks.n].bit = bit
    toks.n += 1
    return 0


cdef inline uint16_t _simple_bit(uint32_t c0, uint32_t c1, bint two) noexcept nogil:
    """The ``_Prefixes`` bit of a simple token starting with ``c0`` (and ``c1`` when ``two``): ASCII letters or
    digits, lower-cased (see ``_fill_prefixes``). Lower-cased by setting bit 5, which every ASCII digit and
    lower-case letter has, and without a branch: whether a word starts with a capital was a tenth of the scan's
    time in mispredictions."""
    return <uint16_t> ((c0 | 0x20) * 129 + ((c1 | 0x20) + 1) * two)


cdef int _find_tokens(const _char_t* data, Py_ssize_t n, _Toks* toks, Py_ssize_t* longest) except -1 nogil:
    """One text's token occurrences, in one pass over its code points (what a token is: ``tokenize``); ``longest``
    raised to the longest word token's length (a CJK token, one or two characters, is in the Scan's floor of 2).
    The scan calls it for texts held four bytes a character, with CJK characters or mostly above 127;
    ``_find_masked``, which gives the same occurrences, does the others.

    Taking each token as it is found (one pass instead of two) was measured and counted more instructions
    (callgrind, 99 pages: 142 M against 134 M): the two loops are each tighter than their fusion."""
    cdef Py_ssize_t i = 0, start, k
    cdef uint32_t c, d
    cdef uint8_t cls, seen, late
    cdef bint simple
    while i < n:
        c = data[i]
        if c < 128:
            seen = _ACLASS[c]
            if not seen:
                i += 1
                continue
            simple = True
        elif _is_cjk(c):
            start = i
            while i < n and _is_cjk(data[i]):
                i += 1
            if i - start == 1:
                _add_tok(toks, start, 1, _TOK_CJK, 0)
            else:
                for k in range(start, i - 1):
                    _add_tok(toks, k, 2, _TOK_CJK, 0)
            continue
        elif not _is_word(c):
            i += 1
            continue
        else:
            seen = 0
            simple = False
        # A token: word runs joined by single joiners. Simple = ASCII letters/digits, and no upper-case letter
        # after the first unless none is lower case; its only term is its lower-case form (analyze.split_word).
        # ``seen`` gathers the classes of its ASCII characters, ``late`` those after the first character.
        start = i
        late = 0
        i += 1
        while True:
            if _char_t is uint8_t:
                i += qatbe_word_run8(data, i, n, &late)
            elif _char_t is uint16_t:
                i += qatbe_word_run16(data, i, n, &late)
            while i < n:
                d = data[i]
                if d < 128:
                    cls = _ACLASS[d]
                    if not cls:
                        break
                    late |= cls
                elif _is_word(d) and not _is_cjk(d):
                    simple = False
                else:
                    break
                i += 1
            if i + 1 < n and _is_joiner(data[i]):
                d = data[i + 1]
                if d != 95 and _is_word(d):
                    i += 1
                    simple = False
                    continue
            break
        seen |= late
        if (seen & _UNDER) or ((late & _UPPER) and (seen & _LOWER)):
            simple = False
        if i - start > longest[0]:
            longest[0] = i - start
        if simple:
            _add_tok(toks, start, i - start, _TOK_SIMPLE,
                     _simple_bit(data[start], data[start + 1] if i - start > 1 else 0, i - start > 1))
        else:
            _add_tok(toks, start, i - start, _TOK_COMPLEX, 0)
    return 0


# The words of class bits ``_find_masked`` keeps per 64 code points: the six ``qatbe_class_masks`` writes (word
# characters, upper case, lower case, '_', ASCII joiners, above 127), then the complex-token features and tokens.
# Once the code points above 127 are read, _H holds the complex tokens' marks instead (see ``_find_masked``).
cdef enum:
    _W = 0
    _U = 1
    _L = 2
    _S = 3
    _J = 4
    _H = 5
    _X = 6
    _T = 7
    _MASKS = 8


cdef inline uint64_t _add_carry(uint64_t a, uint64_t b, uint64_t* carry) noexcept nogil:
    """a + b + carry (0 or 1) of a multi-word sum, the carry out left in ``carry``."""
    cdef uint64_t s = a + b, t = s + carry[0]
    carry[0] = (s < a) | (t < s)
    return t


ctypedef fused _narrow_t:
    uint8_t
    uint16_t


cdef inline Py_ssize_t _put_tok(_Toks* toks, const _narrow_t* data, Py_ssize_t s, Py_ssize_t e, bint complex_,
                                 Py_ssize_t most) noexcept nogil:
    """``_find_masked``'s token at code points s..e into ``toks`` (room made beforehand); returns the longest
    token's length so far (``most`` or this one's). No branch: which kind of token comes next is up to the
    text."""
    cdef Py_ssize_t length = e - s + 1
    toks.items[toks.n].start = s
    toks.items[toks.n].length = <int32_t> length
    toks.items[toks.n].kind = <uint16_t> (_TOK_SIMPLE + complex_)
    toks.items[toks.n].bit = _simple_bit(data[s], data[s + (length > 1)], length > 1) * (not complex_)
    toks.n += 1
    return length if length > most else most


cdef int _find_masked(const _narrow_t* data, Py_ssize_t n, _Toks* toks, Py_ssize_t* longest, uint64_t* m
                      ) except -1 nogil:
    """``_find_tokens`` for a text held one or two bytes a character, without CJK characters and with at most a
    quarter of its code points above 127, from bit masks of its character classes (``qatbe_class_masks``);
    returns 0, having added nothing, for any other text (the caller then calls ``_find_tokens``). ``m``: room for
    ``_MASKS`` x ((n + 63) / 64 + 1) words.

    Why: the character-at-a-time scan branches on every separator, joiner and token end, and a branch that
    depends on the text is predicted only once the processor has seen the same text several times; on the
    speed bench's pages the first calls' scans took 1.1-1.4x a well-trained one. Here a token is a run of set
    bits of one mask (word characters, and each joiner with a word character on either side, not '_' after it),
    its start and end found by counting trailing zeros. Whether it is complex (a '_', a non-ASCII word
    character or a joiner in it; or an upper-case letter after its first and a lower-case one) is read off the
    bit after its end in T + F, the masks taken as multi-word numbers: for F a subset of T, a run of T holding a
    bit of F carries into the bit after it, and only such a run does."""
    cdef Py_ssize_t nw = (n + 63) >> 6, stride = nw + 1, k, b, base, cur = 0, most = longest[0], n_high = 0
    cdef uint64_t h, w, nxt, jj, t, st, en, carry, bit, cx, cu, cl, after, ends
    cdef uint64_t* marks = m + _H * stride
    cdef uint32_t c
    qatbe_class_masks(data, sizeof(_narrow_t), n, m, stride)
    for k in range(_X * stride, _MASKS * stride):
        m[k] = 0
    for k in range(_X):
        m[k * stride + nw] = 0
    # The code points above 127: a CJK one sends the text to _find_tokens, a word character (letters, digits,
    # combining marks) is a word character that makes its token complex, U+2019 is a joiner. A text of more
    # than a quarter of them (Cyrillic, Greek) goes to _find_tokens too, which reads them no slower and its
    # ASCII no faster (a Russian page: 13 % slower here).
    for k in range(nw):
        n_high += qatbe_popcount64(m[_H * stride + k])
    if 4 * n_high > n:
        return 0
    for k in range(nw):
        h = m[_H * stride + k]
        while h:
            b = qatbe_ctz64(h)
            h &= h - 1
            c = data[(k << 6) + b]
            bit = (<uint64_t> 1) << b
            if _is_cjk(c):
                return 0
            if _is_word(c):
                m[_W * stride + k] |= bit
                m[_X * stride + k] |= bit
            elif c == 0x2019:
                m[_J * stride + k] |= bit
    # A joiner joins when the code point before it is a word character and the one after it one other than '_'.
    # The tokens' mask T, and the bit after each complex token's end in ``marks``: complex features X, interior
    # upper-case letters and lower-case ones, each added to T.
    carry = cx = cu = cl = 0
    t = 0
    for k in range(nw + 1):
        w = m[_W * stride + k]
        if k < nw:
            nxt = m[_W * stride + k + 1] & ~m[_S * stride + k + 1]
            jj = m[_J * stride + k] & ((w << 1) | carry) & (((w & ~m[_S * stride + k]) >> 1) | (nxt << 63))
        else:
            jj = 0
        carry = w >> 63
        st = t >> 63  # the previous word's last bit of T
        t = w | jj
        st = t & ~((t << 1) | st)  # the tokens' first characters
        m[_T * stride + k] = t
        after = (_add_carry(t, m[_X * stride + k] | jj | m[_S * stride + k], &cx) & ~t)
        after |= (_add_carry(t, m[_U * stride + k] & ~st, &cu) & _add_carry(t, m[_L * stride + k], &cl) & ~t)
        marks[k] = after
    # Each run of T is a token: its end is the next end bit and, but for a token that began in an earlier word,
    # its start the next start bit.
    carry = 0
    for k in range(nw):
        t = m[_T * stride + k]
        base = k << 6
        st = t & ~((t << 1) | carry)
        en = t & ~((t >> 1) | (m[_T * stride + k + 1] << 63))
        ends = (marks[k] >> 1) | (marks[k + 1] << 63)  # the complex tokens' last characters
        if toks.n + 64 > toks.cap:
            _grow(<void**> &toks.items, &toks.cap, toks.n + 64, sizeof(_Tok))
        if t & carry and en:  # the token that began in an earlier word ends here
            b = qatbe_ctz64(en)
            en &= en - 1
            most = _put_tok(toks, data, cur, base + b, (ends >> b) & 1, most)
        carry = t >> 63
        while en:
            b = qatbe_ctz64(en)
            en &= en - 1
            most = _put_tok(toks, data, base + qatbe_ctz64(st), base + b, (ends >> b) & 1, most)
            st &= st - 1
        if st:
            cur = base + qatbe_ctz64(st)
    longest[0] = most
    return 1


cdef inline bint _third_ok(const _Prefixes* p, uint16_t bit, uint32_t c) noexcept nogil:
    """Whether a simple token whose first two characters are ``bit`` (a limited one) may go on, its third
    character, lower-cased, being ``c``."""
    cdef Py_ssize_t j
    for j in range(p.n_third):
        if p.third_bit[j] == bit:
            return c < 128 and (p.third_mask[j][c >> 6] >> (c & 63)) & 1
    return True


cdef int _take(const _char_t* data, const _Tok* toks, Py_ssize_t n_toks, _Vocab* v, _Out* out, uint32_t* buf,
               const _Prefixes* prefixes, bint keep_out, int32_t* at) except -1 nogil:
    """Intern the occurrences ``toks[:n_toks]`` of one text (``data``) into ``v`` and write their ids to ``out``
    (room made beforehand); ``buf`` holds the longest token. With ``prefixes``, a token none of whose terms can
    start with one of them is id 0 instead (see ``tokenize``), or not written at all unless ``keep_out``: a
    simple token is ruled out by its prefix bit, without reading the text again, so most of a page's tokens are
    never copied. ``at`` (NULL: not wanted): each written occurrence's index among the text's tokens, at the
    same place as its id."""
    cdef Py_ssize_t t, k, start, length
    cdef uint16_t bit
    for t in range(n_toks):
        if toks[t].kind == _TOK_SIMPLE:
            if prefixes != NULL:
                bit = toks[t].bit  # == _key_in(prefixes, key of its first two characters): both are ASCII
                if not (prefixes.bits[bit >> 6] >> (bit & 63)) & 1 or (
                        (prefixes.limited[bit >> 6] >> (bit & 63)) & 1 and toks[t].length > 2
                        and not _third_ok(prefixes, bit, _low(data[toks[t].start + 2]))):
                    if keep_out:
                        _put_at(out, 0, at, t)
                    continue
            start = toks[t].start
            length = toks[t].length
            for k in range(length):
                buf[k] = _low(data[start + k])
            _put_at(out, _intern(v, buf, length, True), at, t)
        elif toks[t].kind == _TOK_CJK:
            start = toks[t].start
            length = toks[t].length
            for k in range(length):
                buf[k] = data[start + k]
            if prefixes != NULL and prefixes.fold != NULL and not _cjk_match(buf, length, prefixes):
                if keep_out:
                    _put_at(out, 0, at, t)
                continue
            _put_at(out, _intern(v, buf, length, True), at, t)
        else:
            start = toks[t].start
            length = toks[t].length
            for k in range(length):
                buf[k] = data[start + k]
            if (prefixes != NULL and (prefixes.fold != NULL or _ascii(buf, length))
                    and not _complex_match(buf, length, prefixes)):
                if keep_out:
                    _put_at(out, 0, at, t)
                continue
            _put_at(out, _intern(v, buf, length, False), at, t)
    return 0


def tokenize(texts, prefixes=None, fold=None):
    """Raw tokens of every text, as ids over one vocabulary: ``(ids, offsets, vocab, simple)``.

    ``ids[offsets[i]:offsets[i + 1]]`` are the tokens of ``texts[i]`` in order; ``vocab[j]`` is token ``j``'s
    text. ``simple[j]`` is 1 when the token is ASCII letters/digits with ordinary capitalisation: its only term
    is then ``vocab[j]`` itself, already lower-cased; other tokens (``vocab[j]`` as written) are split by
    ``qatbe.score.analyze.split_word``. A token is a run of letters/digits/``_``/combining marks, with
    ``- ' ’ . ,`` allowed between two such runs (not before ``_``); every run of CJK characters yields its
    character bigrams (a lone character, itself). Why compiled: tokenization is most of the scoring cost, and
    interning here means Python analyses each distinct token once per page, not every occurrence.

    ``prefixes`` (optional, a collection of 1- or 2-character strings, or 3-character ASCII ones): a token none
    of whose terms can start with one of them is not interned but emitted as id 0, whose vocab entry is "". For
    a simple token that is its first two characters (or its only one) and, when only three-character prefixes
    start with those two, its third; for another all-ASCII token, the two characters at each part start and of
    its joined form (see ``_complex_match``; a three-character prefix counts by its first two there); other
    tokens are kept (but see ``fold``). The scorer passes the prefixes of the query terms, so that only tokens
    that can match are analysed.

    ``fold`` (optional, with ``prefixes``; a 1-D uint32 array): code point -> its folded lower-case form (what
    ``qatbe.score.analyze`` makes of it: case-folded, accents removed) or 0 when not known, for the code points
    below its length. With it, non-ASCII tokens are ruled out too: a token with non-ASCII letters by the folded
    characters at its part starts (a part start with a character not known is kept), a CJK token by its own one
    or two characters (compatibility ideographs, which normalisation maps to others, are kept).
    """
    cdef list items = _texts(texts)
    cdef _Vocab v
    cdef _Out out
    cdef Py_ssize_t j, n_keys, n_other
    cdef _Prefixes pre
    cdef const uint32_t[::1] fold_view = _fold_table(fold)
    cdef uint64_t* key_array = _prefix_array(prefixes, &n_keys, &n_other)
    _fill_prefixes(&pre, key_array, n_keys, n_other)
    _set_fold(&pre, fold_view)
    offsets_arr = _ZEROS(len(items) + 1, _I64)
    cdef Scan sc = _new_scan(items)
    memset_vocab(&v)
    out = _no_out()
    try:
        _take_texts(sc, NULL, 0, &pre if prefixes is not None else NULL, &v, &out, <long long*> _data(offsets_arr))
        ids_arr = _EMPTY(out.n, _I32)
        if out.n:
            _copy_ids(ids_arr, out.ids, out.n)
        vocab = [PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, v.chars + v.start[j], v.length[j])
                 for j in range(v.n)]
        simple = bytes([v.simple[j] for j in range(v.n)])
    finally:
        free(out.ids); free(key_array)
        _free_vocab(&v)
    return ids_arr, offsets_arr, vocab, simple


# The last folding table ``_fold_table`` accepted: the analysers pass the same read-only table on every call
# (``analyze.fold_table``), and checking it again cost two numpy calls and a dtype comparison (about 1 us) per read
# of a page. One tuple, replaced whole, so that a thread never reads one table's entry with another's.
cdef tuple _fold_memo = (None,)


cdef const uint32_t[::1] _fold_table(fold):
    """``fold`` checked (None stays None)."""
    global _fold_memo
    if fold is None:
        return None
    if _fold_memo[0] is fold:
        return fold
    arr = np.asarray(fold)
    if arr.dtype != np.uint32 or arr.ndim != 1:
        raise ValueError("fold must be a 1-D uint32 array")
    checked = np.ascontiguousarray(arr)
    if checked is fold and not arr.flags.writeable:
        # Remembered only when it is the table itself (no copy: the memoryview reads it, as a fresh check would)
        # and read-only, as the analysers' is.
        _fold_memo = (fold,)
    return checked


cdef void _set_fold(_Prefixes* p, const uint32_t[::1] fold) noexcept:
    if fold is not None and fold.shape[0] > 0:
        p.fold = &fold[0]
        p.n_fold = fold.shape[0]


cdef list _texts(texts):
    """The texts as a list, each checked to be a str (the scan reads their buffers directly)."""
    cdef list items = list(texts)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"tokenize expects str items, got {type(item).__name__}")
    return items


cdef int _compare_keys(const void* a, const void* b) noexcept nogil:
    cdef uint64_t x = (<const uint64_t*> a)[0], y = (<const uint64_t*> b)[0]
    return (x > y) - (x < y)


cdef uint64_t* _prefix_array(prefixes, Py_ssize_t* n, Py_ssize_t* n_other) except NULL:
    """The prefix keys (``_key_of``) of ``prefixes`` (None: none) as a C array at least one slot long (the caller
    frees it), ``n`` of them: first the ``n_other`` keys not ``_in_bitmap``, sorted (they are searched by halving,
    which a repeated key does not mislead), then the rest as they come (the bitmap takes them).

    Why in C: a one-character query term admits the term's letter followed by any ASCII character (129
    prefixes: ``analyze._after``), and keying them through a Python set and ``sorted`` cost 20 us a read."""
    if prefixes is not None and not isinstance(prefixes, (set, frozenset, list, tuple)):
        prefixes = list(prefixes)  # any iterable, read once
    cdef Py_ssize_t count = 0 if prefixes is None else len(prefixes), k = 0, j
    cdef uint64_t* out = <uint64_t*> malloc((count + 1) * sizeof(uint64_t))
    if out == NULL:
        raise MemoryError()
    try:
        if prefixes is not None:
            for p in prefixes:
                if k == count:  # a list grown while read (a set raises by itself)
                    raise ValueError("prefixes changed size while being read")
                out[k] = _key_of(p, True)
                k += 1
    except BaseException:
        free(out)
        raise
    # The keys not in the bitmap to the front (few or none: non-ASCII prefixes), sorted.
    count = 0
    for j in range(k):
        if not _in_bitmap(out[j]):
            out[count], out[j] = out[j], out[count]
            count += 1
    qsort(out, count, sizeof(uint64_t), _compare_keys)
    n_other[0] = count
    n[0] = k
    return out


cdef inline uint64_t _key_of(p, bint three=False) except? 0:
    """The key of a prefix (``three``: a three-character ASCII one allowed) or of a check (one or two)."""
    cdef Py_ssize_t length
    if not isinstance(p, str):
        raise ValueError(f"prefixes must be strings of 1 or 2 characters or 3 ASCII ones, not {p!r}")
    length = PyUnicode_GET_LENGTH(p)
    if (three and length == 3
            and max(PyUnicode_READ_CHAR(p, 0), PyUnicode_READ_CHAR(p, 1), PyUnicode_READ_CHAR(p, 2)) < 128):
        # the third character (plus one) above the first two's key: bits 44-51
        return ((<uint64_t> PyUnicode_READ_CHAR(p, 0) << 22) | (<uint64_t> PyUnicode_READ_CHAR(p, 1) + 1)
                | ((<uint64_t> PyUnicode_READ_CHAR(p, 2) + 1) << 44))
    if not 1 <= length <= 2:
        raise ValueError(f"prefixes must be strings of 1 or 2 characters or 3 ASCII ones, not {p!r}")
    if length == 1:
        return <uint64_t> PyUnicode_READ_CHAR(p, 0) << 22
    return (<uint64_t> PyUnicode_READ_CHAR(p, 0) << 22) | (<uint64_t> PyUnicode_READ_CHAR(p, 1) + 1)


cdef struct _Text:
    const void* data
    Py_ssize_t n
    int kind


cdef class Scan:
    """A page's raw tokens, found once (``scan``): where each occurrence lies in its text and how it is keyed.

    Why: the scorer reads the page's words more than once -- the query's index, the headings and best segments
    that the second-hop bridges compare, the mentions of a bridged heading over the whole page -- and finding
    the tokens (the pass over every code point) was most of each read. A Scan finds the tokens when it is made
    and keeps them; each read then only interns the occurrences it keeps (``TermMemo.index``/``terms`` take a
    Scan in place of the texts). It does not change after it is made, so threads may share one. The texts are
    kept referenced, so the buffers the occurrences point into live as long as the Scan. Each occurrence costs
    16 bytes while the Scan lives (a 10 MB text of short words: ~30 MB).
    """

    cdef list items
    cdef _Text* meta
    cdef _Toks toks
    cdef int64_t* offsets   # text t's occurrences: toks.items[offsets[t]:offsets[t + 1]]
    cdef Py_ssize_t longest  # the longest token's length, at least 2 (a CJK token's longest)
    cdef Py_ssize_t n_texts

    def __cinit__(self):
        self.items = []
        self.meta = NULL
        self.toks.items = NULL
        self.toks.n = 0
        self.toks.cap = 0
        self.offsets = NULL
        self.longest = 2
        self.n_texts = 0

    def __dealloc__(self):
        free(self.meta); free(self.toks.items); free(self.offsets)

    def __len__(self):
        """How many texts were scanned."""
        return len(self.items)

    @property
    def texts(self):
        """The scanned texts (a copy of the list)."""
        return list(self.items)


cdef Scan _new_scan(list items):
    """A Scan of ``items`` (checked to be str): their token occurrences, found in one GIL-free stretch."""
    cdef Scan out = Scan.__new__(Scan)
    cdef Py_ssize_t n_texts = len(items), t
    out.items = items
    out.n_texts = n_texts
    out.meta = <_Text*> malloc((n_texts + 1) * sizeof(_Text))
    out.offsets = <int64_t*> malloc((n_texts + 1) * sizeof(int64_t))
    if out.meta == NULL or out.offsets == NULL:
        raise MemoryError()
    cdef Py_ssize_t chars = 0, widest = 0
    for t in range(n_texts):
        text = items[t]
        out.meta[t].data = PyUnicode_DATA(text)
        out.meta[t].kind = PyUnicode_KIND(text)
        out.meta[t].n = PyUnicode_GET_LENGTH(text)
        chars += out.meta[t].n
        if out.meta[t].n > widest:
            widest = out.meta[t].n
    out.offsets[0] = 0
    cdef uint64_t* masks = <uint64_t*> malloc(_MASKS * ((widest + 63) // 64 + 1) * sizeof(uint64_t))
    if masks == NULL:
        raise MemoryError()
    try:
        with nogil:
            # Room for a token every four characters before the first: growing by doubling from 64 reallocated
            # a median page's occurrences six or seven times (kernel.scan over the speed bench's pages: 5 % faster).
            _grow(<void**> &out.toks.items, &out.toks.cap, chars // 4 + 1, sizeof(_Tok))
            _find_all(out, masks)
    finally:
        free(masks)
    return out


cdef int _find_all(Scan sc, uint64_t* masks) except -1 nogil:
    """Find the occurrences of every text of ``sc``; ``masks``: room for ``_find_masked``'s longest text."""
    cdef Py_ssize_t t
    for t in range(sc.n_texts):
        if sc.meta[t].kind == 1:
            if not _find_masked(<const uint8_t*> sc.meta[t].data, sc.meta[t].n, &sc.toks, &sc.longest, masks):
                _find_tokens(<const uint8_t*> sc.meta[t].data, sc.meta[t].n, &sc.toks, &sc.longest)
        elif sc.meta[t].kind == 2:
            if not _find_masked(<const uint16_t*> sc.meta[t].data, sc.meta[t].n, &sc.toks, &sc.longest, masks):
                _find_tokens(<const uint16_t*> sc.meta[t].data, sc.meta[t].n, &sc.toks, &sc.longest)
        else:
            _find_tokens(<const uint32_t*> sc.meta[t].data, sc.meta[t].n, &sc.toks, &sc.longest)
        sc.offsets[t + 1] = sc.toks.n
    return 0


def scan(texts):
    """The texts' token occurrences as a ``Scan``, which ``TermMemo.index`` and ``TermMemo.terms`` take in place of
    the texts: the same results, without finding the tokens again on each read."""
    return _new_scan(_texts(texts))


cdef Scan _as_scan(texts):
    """``texts`` itself when it is a Scan, else a new Scan of it."""
    if isinstance(texts, Scan):
        return <Scan> texts
    return _new_scan(_texts(texts))


cdef int _take_texts(Scan sc, const Py_ssize_t* which, Py_ssize_t n_which, const _Prefixes* prefixes, _Vocab* v,
                     _Out* out, long long* offsets, bint keep_out=True, int32_t* at=NULL) except -1:
    """Intern the occurrences of the scanned texts ``which[:n_which]`` (all texts, in order, when ``which`` is
    NULL) into ``v`` and ``out``; ``offsets[k + 1]`` = ids after the k-th text taken. With ``prefixes`` (NULL:
    none), id 0 is the empty token that stands for every token they rule out, written for each of them only
    with ``keep_out``. ``at``: as for ``_take``, with room for every token of the texts."""
    cdef Py_ssize_t k, t, total = 0, n = n_which if which != NULL else sc.n_texts
    cdef uint32_t* buf = NULL
    for k in range(n):
        t = which[k] if which != NULL else k
        total += sc.offsets[t + 1] - sc.offsets[t]
    buf = <uint32_t*> malloc((sc.longest + 2) * sizeof(uint32_t))
    if buf == NULL:
        raise MemoryError()
    try:
        with nogil:
            _grow(<void**> &out.ids, &out.cap, out.n + total + 1, sizeof(int32_t))
            _rehash(v, min(total + 1, 512))
            if prefixes != NULL:
                _intern(v, buf, 0, True)  # id 0: every token filtered out by the prefixes
            for k in range(n):
                t = which[k] if which != NULL else k
                if sc.meta[t].kind == 1:
                    _take(<const uint8_t*> sc.meta[t].data, sc.toks.items + sc.offsets[t],
                          sc.offsets[t + 1] - sc.offsets[t], v, out, buf, prefixes, keep_out, at)
                elif sc.meta[t].kind == 2:
                    _take(<const uint16_t*> sc.meta[t].data, sc.toks.items + sc.offsets[t],
                          sc.offsets[t + 1] - sc.offsets[t], v, out, buf, prefixes, keep_out, at)
                else:
                    _take(<const uint32_t*> sc.meta[t].data, sc.toks.items + sc.offsets[t],
                          sc.offsets[t + 1] - sc.offsets[t], v, out, buf, prefixes, keep_out, at)
                offsets[k + 1] = out.n
    finally:
        free(buf)
    return 0


cdef inline Py_ssize_t _copy_terms(int32_t* dst, const int32_t* src, Py_ssize_t n) noexcept nogil:
    """``src[:n]`` to ``dst``; returns n. Why not the plain loop at the call: GCC makes a loop like that a call to
    memcpy, and these copy one occurrence's terms, one term for nearly every token: the call was a third of
    ``TermMemo.index``'s write and a tenth of the whole index (perf, the speed bench's pages)."""
    cdef Py_ssize_t k
    if n == 1:
        dst[0] = src[0]
    else:
        for k in range(n):
            dst[k] = src[k]
    return n


cdef Py_ssize_t* _which(Scan sc, which, Py_ssize_t* n_out) except? NULL:
    """``which`` (indices of scanned texts, or None for all) as a C array (NULL for all); its length in n_out."""
    cdef list items
    cdef Py_ssize_t k, t, n = len(sc.items)
    cdef Py_ssize_t* out
    if which is None:
        n_out[0] = n
        return NULL
    items = list(which)
    out = <Py_ssize_t*> malloc((len(items) + 1) * sizeof(Py_ssize_t))
    if out == NULL:
        raise MemoryError()
    for k in range(len(items)):
        t = items[k]
        if not 0 <= t < n:
            free(out)
            raise IndexError(f"text index {t} out of range [0, {n})")
        out[k] = t
    n_out[0] = len(items)
    return out


cdef void _free_vocab(_Vocab* v) noexcept:
    free(v.chars); free(v.start); free(v.length); free(v.simple); free(v.table); free(v.hashes)
    memset_vocab(v)


cdef void memset_vocab(_Vocab* v) noexcept:
    v.chars = NULL
    v.n_chars = 0
    v.cap_chars = 0
    v.start = NULL
    v.length = NULL
    v.simple = NULL
    v.n = 0
    v.cap = 0
    v.table = NULL
    v.hashes = NULL
    v.table_size = 0


cdef void _copy_ids(int[::1] dst, int32_t* src, Py_ssize_t n) noexcept:
    cdef Py_ssize_t i
    for i in range(n):
        dst[i] = src[i]


def remap(const int[::1] tok_ids, const long long[::1] tok_offsets, const long long[::1] starts,
          const int[::1] terms):
    """Token ids -> term ids in CSR form: token ``j`` becomes ``terms[starts[j]:starts[j + 1]]`` (zero or more).

    ``(ids, offsets)`` keep the segments of ``tok_offsets`` and the token order. Why compiled: it is a gather
    over every token of the page, and numpy needs five passes for a ragged one.
    """
    cdef Py_ssize_t n_tok = tok_ids.shape[0], n_voc = starts.shape[0] - 1, n_seg = tok_offsets.shape[0] - 1
    cdef Py_ssize_t i, d, k, total = 0
    cdef int t
    _check_offsets(starts, terms.shape[0], "starts", "len(terms)")
    _check_offsets(tok_offsets, n_tok, "tok_offsets", "len(tok_ids)")
    for i in range(n_tok):
        t = tok_ids[i]
        if t < 0 or t >= n_voc:
            raise ValueError(f"token id {t} out of range [0, {n_voc})")
        total += starts[t + 1] - starts[t]
    ids_arr = _EMPTY(total, _I32)
    offsets_arr = _EMPTY(n_seg + 1, _I64)
    cdef int[::1] ids = ids_arr
    cdef long long[::1] offsets = offsets_arr
    cdef Py_ssize_t w = 0
    with nogil:
        offsets[0] = 0
        for d in range(n_seg):
            for i in range(tok_offsets[d], tok_offsets[d + 1]):
                t = tok_ids[i]
                for k in range(starts[t], starts[t + 1]):
                    ids[w] = terms[k]
                    w += 1
            offsets[d + 1] = w
    return ids_arr, offsets_arr


def bridge_rows(const double[::1] raw, heads, const long long[::1] up, groups, Py_ssize_t top_n):
    """The bridges' choice of where to look (see ``qatbe.score.bm25.bridge_credits``) and the texts they then
    read: ``(top, candidates, which, top_rows, top_offsets)``.

    ``top``: the ``top_n`` (at most 64) segments with the highest ``raw`` score > 0 that are not headings, best
    first, ties in page order (a stable sort). ``candidates``: the headings (``heads``, increasing) that some
    segment of ``top`` does not sit under (the chain of ``up``), in page order; none when ``top`` is empty.
    ``which`` lists the segments to take terms of: the candidates, then every best segment's split unit parts
    (itself, and its neighbours with the same ``groups[i] >= 0``; ``groups`` None: itself only), each once, in
    page order. Best segment t's parts are the rows ``top_rows[top_offsets[t]:top_offsets[t + 1]]`` of ``which``,
    in page order. ``which`` and the rows are None when there are no candidates: most pages stop here (every best
    segment under every heading, nothing to tokenize). Why compiled, and one call: in Python these were a list,
    a sort and a set per best segment over the whole page, then a list per best segment, a set, a sort, a
    dictionary and two arrays."""
    cdef long long best_i[64]
    cdef Py_ssize_t c = 0, n_cand = 0, n = raw.shape[0], n_which
    cdef long long* cand = _top_and_candidates(raw, heads, up, top_n, best_i, &c, &n_cand)
    cdef list group_list = None
    try:
        group_list = _group_list(groups, n)
        top_arr = _copy_array(best_i, c, _I64)
        cand_arr = _copy_array(cand, n_cand, _I64)
        if not n_cand:
            return top_arr, cand_arr, None, None, None
        offsets_arr = _EMPTY(c + 1, _I64)
        which_arr = _EMPTY(n_cand + 3 * c, _I64)
        rows_arr = _EMPTY(3 * c, _I64)
        n_which = _bridge_parts(best_i, c, group_list, n, cand, n_cand, <long long*> _data(offsets_arr),
                                <long long*> _data(which_arr), <long long*> _data(rows_arr))
        return top_arr, cand_arr, which_arr[:n_which], rows_arr[:offsets_arr[c]], offsets_arr
    finally:
        free(cand)


cdef list _group_list(groups, Py_ssize_t n):
    """``groups`` as a list checked to have one entry per segment (None stays None)."""
    if groups is None:
        return None
    cdef list out = list(groups)
    if len(out) != n:
        raise ValueError("groups needs one entry per segment")
    return out


cdef Py_ssize_t _bridge_parts(const long long* best_i, Py_ssize_t c, list group_list, Py_ssize_t n,
                              const long long* cand, Py_ssize_t n_cand, long long* offsets, long long* which,
                              long long* rows) except -1:
    """``bridge_rows``'s rows to read: ``which`` gets the ``n_cand`` candidates, then the best segments' split
    unit parts once each in page order (room for ``n_cand + 3 * c``); best segment t's parts are
    ``rows[offsets[t]:offsets[t + 1]]`` (room for ``3 * c``), as rows of ``which``. Returns how many rows
    ``which`` holds."""
    cdef long long parts[64 * 3]
    cdef Py_ssize_t t, p, q, n_parts = 0, n_taken = 0
    cdef long long i, g
    cdef long long* row_of = NULL
    offsets[0] = 0
    for t in range(c):
        i = best_i[t]
        g = group_list[i] if group_list is not None else -1
        if g >= 0 and i > 0 and group_list[i - 1] == g:
            parts[n_parts] = i - 1
            n_parts += 1
        parts[n_parts] = i
        n_parts += 1
        if g >= 0 and i + 1 < n and group_list[i + 1] == g:
            parts[n_parts] = i + 1
            n_parts += 1
        offsets[t + 1] = n_parts
    # the parts' segments once each, in page order, after the candidates: row_of[segment] = its row
    row_of = <long long*> malloc((n + 1) * sizeof(long long))
    if row_of == NULL:
        raise MemoryError()
    try:
        for p in range(n_parts):
            row_of[parts[p]] = -1
        memcpy(which, cand, n_cand * sizeof(long long))
        for p in range(n_parts):
            if row_of[parts[p]] < 0:
                row_of[parts[p]] = 0
                # insertion into the few taken so far keeps them in page order
                q = n_taken
                while q > 0 and which[n_cand + q - 1] > parts[p]:
                    which[n_cand + q] = which[n_cand + q - 1]
                    q -= 1
                which[n_cand + q] = parts[p]
                n_taken += 1
        for q in range(n_taken):
            row_of[which[n_cand + q]] = n_cand + q
        for p in range(n_parts):
            rows[p] = row_of[parts[p]]
    finally:
        free(row_of)
    return n_cand + n_taken


cdef long long* _top_and_candidates(const double[::1] raw, heads, const long long[::1] up, Py_ssize_t top_n,
                                    long long* best_i, Py_ssize_t* n_top, Py_ssize_t* n_cand) except NULL:
    """``bridge_rows``'s choice: the best segments into ``best_i`` (room for 64), their number in ``n_top``; the
    candidate headings as the returned array (the caller frees it), their number in ``n_cand``."""
    cdef Py_ssize_t n = raw.shape[0], n_heads, i, p, c = 0
    cdef long long k
    cdef double v
    cdef double best_v[64]
    if up.shape[0] != n:
        raise ValueError("up needs one entry per segment")
    if not 0 <= top_n <= 64:
        raise ValueError("top_n must lie in [0, 64]")
    _check_up(up)
    cdef long long* head_idx = _heads_array(heads, n, &n_heads)
    cdef uint8_t* is_head = <uint8_t*> calloc(n + 1, sizeof(uint8_t))
    cdef long long* under = <long long*> calloc(n + 1, sizeof(long long))  # per heading: the tops under it
    n_cand[0] = 0
    try:
        if is_head == NULL or under == NULL:
            raise MemoryError()
        for p in range(n_heads):
            is_head[head_idx[p]] = 1
        with nogil:
            for i in range(n if top_n else 0):
                v = raw[i]
                if not v > 0.0 or is_head[i] or (c == top_n and not v > best_v[c - 1]):
                    continue
                # after every equal score (page order), before the first lower one
                p = c if c < top_n else c - 1
                while p > 0 and best_v[p - 1] < v:
                    best_i[p] = best_i[p - 1]
                    best_v[p] = best_v[p - 1]
                    p -= 1
                best_i[p] = i
                best_v[p] = v
                if c < top_n:
                    c += 1
            for p in range(c):
                k = up[best_i[p]]
                while k >= 0:
                    under[k] += 1
                    k = up[k]
            if c:
                for p in range(n_heads):
                    if under[head_idx[p]] < c:
                        head_idx[n_cand[0]] = head_idx[p]
                        n_cand[0] += 1
        n_top[0] = c
        return head_idx
    except BaseException:
        free(head_idx)
        raise
    finally:
        free(is_head); free(under)


cdef long long* _heads_array(heads, Py_ssize_t n, Py_ssize_t* n_heads) except NULL:
    """``heads`` (increasing indices of segments 0 .. n - 1) as a C array (one slot at least); its length in
    ``n_heads``."""
    heads_list = list(heads)
    n_heads[0] = len(heads_list)
    cdef long long* out = <long long*> malloc((n_heads[0] + 1) * sizeof(long long))
    cdef Py_ssize_t p
    if out == NULL:
        raise MemoryError()
    try:
        _ints(heads_list, n_heads[0], out, "heads")
        for p in range(n_heads[0]):
            if not 0 <= out[p] < n or (p and out[p] <= out[p - 1]):
                raise ValueError("heads must be increasing segment indices")
    except BaseException:
        free(out)
        raise
    return out


def section_sizes(heads, const long long[::1] up):
    """Per segment: for a heading (``heads``, increasing), how many segments that are not headings sit under it
    at any depth (down the chains of ``up``); 0 for every other segment. Each segment counts once for the
    heading right above it, and each heading's total is then added to the heading above it, last heading first
    (a heading comes after the headings above it). Why compiled: the bridges' name factor asked it of the whole
    page in Python, a dictionary entry per segment."""
    cdef Py_ssize_t n = up.shape[0], n_heads
    _check_up(up)
    cdef long long* head_idx = _heads_array(heads, n, &n_heads)
    out_arr = _ZEROS(n, _I64)
    try:
        if n:
            _sizes_core(head_idx, n_heads, &up[0], n, <long long*> _data(out_arr))
        return out_arr
    finally:
        free(head_idx)


cdef int _sizes_core(const long long* head_idx, Py_ssize_t n_heads, const long long* up, Py_ssize_t n,
                     long long* out) except -1:
    """``section_sizes`` on checked C arrays (``n`` >= 1 segments): the sizes added to ``out`` (zeroed)."""
    cdef Py_ssize_t p, i
    cdef uint8_t* is_head = <uint8_t*> calloc(n + 1, sizeof(uint8_t))
    if is_head == NULL:
        raise MemoryError()
    with nogil:
        for p in range(n_heads):
            is_head[head_idx[p]] = 1
        for i in range(n):
            if up[i] >= 0 and not is_head[i]:
                out[up[i]] += 1
        for p in range(n_heads - 1, -1, -1):
            i = head_idx[p]
            if up[i] >= 0:
                out[up[i]] += out[i]
    free(is_head)
    return 0


def floor_cut(const double[::1] raw, double floor):
    """``(best, relevant)``: the best of ``raw`` (0.0 for none above it) and which scores are > 0 and >= ``floor``
    x ``best``, as ``page_scores`` gives them. Why: the scorer asks again after the bridges or the number cue
    raised some scores, and as numpy's max and three comparisons that cost four array calls a page."""
    cdef Py_ssize_t n = raw.shape[0], i
    cdef double best = 0.0, cut
    relevant_arr = _ZEROS(n, _BOOL)
    cdef uint8_t* relevant = <uint8_t*> _data(relevant_arr) if n else NULL
    with nogil:
        for i in range(n):
            if raw[i] > best:
                best = raw[i]
        cut = floor * best
        for i in range(n):
            relevant[i] = raw[i] > 0.0 and raw[i] >= cut
    return best, relevant_arr


def section_best(heads, const long long[::1] up, credited, const double[::1] values, double scale=1.0):
    """Per segment, ``scale`` x the best of ``values`` over the ``credited`` headings above it (the chain of
    ``up``), 0 for none (the scale: the bridges' share, applied here rather than by a numpy multiplication, a
    microsecond a page): each heading's best over its chain, one step per heading (a heading comes after the
    headings above it), read off per segment through ``up``. A heading's own credit is not its own: it sits in
    its parent's section. Why compiled: the bridges ran it as a dictionary walk and a numpy gather on every page
    they credit."""
    cdef Py_ssize_t n = up.shape[0], n_heads, n_credited = values.shape[0], p, i
    cdef long long above
    cdef double v
    _check_up(up)
    cdef long long* head_idx = _heads_array(heads, n, &n_heads)
    cdef long long* at = <long long*> malloc((n_credited + 1) * sizeof(long long))
    cdef double* own = <double*> calloc(n + 1, sizeof(double))
    cdef double* best = <double*> calloc(n + 1, sizeof(double))
    out_arr = _ZEROS(n, _F64)
    cdef double* out = <double*> _data(out_arr) if n else NULL
    try:
        if at == NULL or own == NULL or best == NULL:
            raise MemoryError()
        _ints(credited, n_credited, at, "credited")
        for p in range(n_credited):
            if not 0 <= at[p] < n:
                raise ValueError(f"credited[{p}] = {at[p]} is no segment")
        with nogil:
            for p in range(n_credited):
                own[at[p]] = values[p]
            for p in range(n_heads):
                i = head_idx[p]
                above = up[i]
                v = own[i]
                best[i] = v if above < 0 or not best[above] > v else best[above]
            for i in range(n):
                if up[i] >= 0:
                    out[i] = scale * best[up[i]]
        return out_arr
    finally:
        free(head_idx); free(at); free(own); free(best)


def bridge_shares(const int[::1] ids, const long long[::1] offsets, Py_ssize_t n_heads, const int[::1] bad,
                  const long long[::1] top_rows, const long long[::1] top_offsets, const long long[::1] head_at,
                  const long long[::1] top_at, const long long[::1] up, double min_share):
    """Which best segments name which candidate headings (the bridges' first step, see
    ``qatbe.score.bm25.bridge_credits``): ``(heading_rows, top_rows, shares, n_new)``.

    ``ids[offsets[r]:offsets[r + 1]]`` are the term ids (>= 0) of row r; rows 0 .. n_heads - 1 are the headings,
    and best segment t is the union of the rows ``top_rows[top_offsets[t]:top_offsets[t + 1]]`` (its split unit's
    parts). A heading's *new* words are its distinct ids not in ``bad`` (stopwords and the question's own terms);
    ``n_new[k]`` counts them. For each heading k with new words and each best segment t (at most 64) whose
    section it is not in (segment ``head_at[k]`` is not among the headings above segment ``top_at[t]``: the
    chain of ``up``), share = (new words of k in t) / n_new[k]; the pairs with share >= ``min_share`` come back in
    order of k, then t. Why compiled: per heading and best segment, with Python sets, this was a third of the
    bridges' time on pages with many headings (and numbering the ids compactly in numpy cost as much again)."""
    cdef Py_ssize_t n_rows = offsets.shape[0] - 1, n_tops = top_offsets.shape[0] - 1
    cdef Py_ssize_t n = up.shape[0], m = ids.shape[0], k, t, p, r, x, new, size = 16, j, n_ids = 0
    cdef long long a
    cdef uint64_t hbits
    _check_offsets(offsets, m, "offsets", "len(ids)")
    _check_offsets(top_offsets, top_rows.shape[0], "top_offsets", "len(top_rows)")
    if not 0 <= n_heads <= n_rows:
        raise ValueError("n_heads must lie in [0, number of rows]")
    if n_tops > 64:
        raise ValueError("at most 64 best segments")
    if head_at.shape[0] != n_heads or top_at.shape[0] != n_tops:
        raise ValueError("head_at needs one entry per heading, top_at one per best segment")
    for p in range(m):
        if ids[p] < 0:
            raise ValueError(f"term id {ids[p]} is negative")
    for p in range(top_rows.shape[0]):
        if not 0 <= top_rows[p] < n_rows:
            raise ValueError(f"row {top_rows[p]} out of range [0, {n_rows})")
    for k in range(n_heads):
        if not 0 <= head_at[k] < n:
            raise ValueError(f"head_at[{k}] = {head_at[k]} is no segment")
    for t in range(n_tops):
        if not 0 <= top_at[t] < n:
            raise ValueError(f"top_at[{t}] = {top_at[t]} is no segment")
    _check_up(up)
    n_new_arr = _ZEROS(n_heads, _I64)
    cdef list rows_k = [], rows_t = [], shares = []
    _shares_core(<const int32_t*> &ids[0] if m else NULL, m, &offsets[0], n_heads,
                 <const int32_t*> &bad[0] if bad.shape[0] else NULL, bad.shape[0],
                 &top_rows[0] if top_rows.shape[0] else NULL, &top_offsets[0], n_tops,
                 &head_at[0] if n_heads else NULL, &top_at[0] if n_tops else NULL, &up[0] if n else NULL, n,
                 min_share, <long long*> _data(n_new_arr) if n_heads else NULL, rows_k, rows_t, shares)
    return (_ARRAY(rows_k, _I64), _ARRAY(rows_t, _I64),
            _ARRAY(shares, _F64), n_new_arr)


cdef int _shares_core(const int32_t* ids, Py_ssize_t m, const long long* offsets, Py_ssize_t n_heads,
                      const int32_t* bad, Py_ssize_t n_bad, const long long* top_rows, const long long* top_offsets,
                      Py_ssize_t n_tops, const long long* head_at, const long long* top_at, const long long* up,
                      Py_ssize_t n, double min_share, long long* n_new, list rows_k, list rows_t, list shares
                      ) except -1:
    """``bridge_shares`` on checked C arrays (``m`` ids in ``ids``, the rows' ``offsets`` up to m): the pairs
    appended to the three lists, ``n_new`` (room for ``n_heads``) filled."""
    cdef Py_ssize_t k, t, p, r, x, new, size = 16, j, n_ids = 0
    cdef long long a
    cdef uint64_t hbits
    while size < 2 * (m + n_bad) + 2:
        size *= 2
    # ids -> compact numbers 0 .. n_ids - 1 (open addressing, -1 empty), then per compact id: bad, the best
    # segments holding it (a bit each), the last heading row that counted it
    cdef int32_t* keys = <int32_t*> malloc(size * sizeof(int32_t))
    cdef int32_t* slot_of = <int32_t*> malloc(size * sizeof(int32_t))
    cdef int32_t* compact = <int32_t*> malloc((m + 1) * sizeof(int32_t))
    cdef uint8_t* is_bad = <uint8_t*> calloc(m + n_bad + 1, sizeof(uint8_t))
    cdef uint64_t* in_top = <uint64_t*> calloc(m + n_bad + 1, sizeof(uint64_t))
    cdef long long* stamp = <long long*> malloc((m + n_bad + 1) * sizeof(long long))
    cdef uint64_t* above = <uint64_t*> calloc(n + 1, sizeof(uint64_t))  # per segment: the tops it heads
    cdef long long hits[64]
    try:
        if (keys == NULL or slot_of == NULL or compact == NULL or is_bad == NULL or in_top == NULL
                or stamp == NULL or above == NULL):
            raise MemoryError()
        with nogil:
            for j in range(size):
                keys[j] = -1
            for p in range(m + n_bad):
                x = ids[p] if p < m else bad[p - m]
                if x < 0:
                    continue  # a bad id the memo does not know: nothing to mark
                hbits = (<uint64_t> x) * 0x9E3779B97F4A7C15ULL
                j = <Py_ssize_t> (hbits >> 40) & (size - 1)
                while keys[j] >= 0 and keys[j] != x:
                    j = (j + 1) & (size - 1)
                if keys[j] < 0:
                    keys[j] = <int32_t> x
                    slot_of[j] = <int32_t> n_ids
                    stamp[n_ids] = -1
                    n_ids += 1
                if p < m:
                    compact[p] = slot_of[j]
                else:
                    is_bad[slot_of[j]] = 1
            for t in range(n_tops):
                for p in range(top_offsets[t], top_offsets[t + 1]):
                    r = top_rows[p]
                    for x in range(offsets[r], offsets[r + 1]):
                        in_top[compact[x]] |= (<uint64_t> 1) << t
                a = up[top_at[t]]
                while a >= 0:
                    above[a] |= (<uint64_t> 1) << t
                    a = up[a]
        for k in range(n_heads):
            new = 0
            for t in range(n_tops):
                hits[t] = 0
            for p in range(offsets[k], offsets[k + 1]):
                x = compact[p]
                if is_bad[x] or stamp[x] == k:
                    continue
                stamp[x] = k
                new += 1
                for t in range(n_tops):
                    if (in_top[x] >> t) & 1:
                        hits[t] += 1
            n_new[k] = new
            if not new:
                continue
            for t in range(n_tops):
                if (above[head_at[k]] >> t) & 1:
                    continue  # best segment t sits in heading k's section
                if <double> hits[t] / <double> new >= min_share:
                    rows_k.append(k)
                    rows_t.append(t)
                    shares.append(<double> hits[t] / <double> new)
    finally:
        free(keys); free(slot_of); free(compact); free(is_bad); free(in_top); free(stamp); free(above)
    return 0


cdef int _cmp_int32(const void* a, const void* b) noexcept nogil:
    cdef int32_t x = (<const int32_t*> a)[0], y = (<const int32_t*> b)[0]
    return (x > y) - (x < y)


cdef Py_ssize_t _new_ids(const int32_t* ids, const long long* offsets, Py_ssize_t k, const int32_t* sorted_bad,
                         Py_ssize_t n_bad, int32_t* out) noexcept nogil:
    """Heading row k's new words: its distinct ids (``ids[offsets[k]:offsets[k + 1]]``) that are not among the
    increasing ``sorted_bad``, increasing, into ``out`` (room for the row's ids); returns how many."""
    cdef Py_ssize_t x, new = 0, m = offsets[k + 1] - offsets[k]
    cdef int32_t v
    for x in range(m):
        out[x] = ids[offsets[k] + x]
    qsort(out, m, sizeof(int32_t), _cmp_int32)
    for x in range(m):
        v = out[x]
        if (new and out[new - 1] == v) or _in_sorted(sorted_bad, n_bad, v):
            continue
        out[new] = v
        new += 1
    return new


def bridge_best(const int[::1] ids, const long long[::1] offsets, const int[::1] bad, const long long[::1] rows_k,
                const long long[::1] rows_t, const double[::1] shares, const double[::1] values, named_ids,
                named_offsets, named_of, sizes, const long long[::1] head_at, double name_bridge,
                double name_section, double min_share):
    """The credit of each heading a best segment names (the bridges' pair loop, see
    ``qatbe.score.bm25.bridge_credits``): ``(heading_rows, credits)``, the rows in increasing order, only those
    whose credit is > 0.

    The pairs are ``bridge_shares``'s (heading row ``rows_k[p]``, best segment ``rows_t[p]``, ``shares[p]``), over
    the rows of ``ids``/``offsets``; best segment t scores ``values[t]``. A heading's credit is the best over its
    pairs of ``share * values[t] * factor``, where factor is 1, or for a *named* pair ``1 + (name_bridge - 1) /
    max(1, sizes[head_at[k]] / name_section) ** 0.5``. A pair is named when ``named_of[t] >= 0`` and at least
    ``min_share`` of heading k's new ids (distinct, not in ``bad``) are among the ids of row ``named_of[t]`` of
    ``named_ids``/``named_offsets`` (best segment t's words written as names). ``named_of`` None: no pair is
    named. Why compiled: in Python this loop built a set of term strings per heading and per best segment, a
    quarter of the bridges' time on a page where a best segment names a heading."""
    cdef Py_ssize_t m = ids.shape[0], n_rows = offsets.shape[0] - 1, n_pairs = rows_k.shape[0], p, k, t
    cdef Py_ssize_t n_named = 0, n_bad = bad.shape[0]
    cdef const int[::1] nid
    cdef const long long[::1] noff
    cdef const long long[::1] nof
    cdef const long long[::1] size_of
    _check_offsets(offsets, m, "offsets", "len(ids)")
    if rows_t.shape[0] != n_pairs or shares.shape[0] != n_pairs:
        raise ValueError("rows_k, rows_t and shares must have one entry per pair")
    if head_at.shape[0] > n_rows:
        raise ValueError("more headings than rows")
    for p in range(n_pairs):
        if not 0 <= rows_k[p] < head_at.shape[0] or (p and rows_k[p] < rows_k[p - 1]):
            raise ValueError("rows_k must be increasing heading rows")
        if not 0 <= rows_t[p] < values.shape[0]:
            raise ValueError(f"rows_t[{p}] = {rows_t[p]} has no value")
    if named_of is not None:
        nid = named_ids
        noff = named_offsets
        nof = named_of
        size_of = sizes
        n_named = noff.shape[0] - 1
        _check_offsets(noff, nid.shape[0], "named_offsets", "len(named_ids)")
        if nof.shape[0] != values.shape[0]:
            raise ValueError("named_of needs one entry per best segment")
        for t in range(nof.shape[0]):
            if not -1 <= nof[t] < n_named:
                raise ValueError(f"named_of[{t}] = {nof[t]} is no named row")
        for k in range(head_at.shape[0]):
            if not 0 <= head_at[k] < size_of.shape[0]:
                raise ValueError(f"head_at[{k}] = {head_at[k]} has no size")
    cdef double* best = <double*> calloc(head_at.shape[0] + 1, sizeof(double))
    cdef list out_k = []
    try:
        if best == NULL:
            raise MemoryError()
        _best_core(<const int32_t*> &ids[0] if m else NULL, m, &offsets[0], <const int32_t*> &bad[0] if n_bad else NULL,
                   n_bad, &rows_k[0] if n_pairs else NULL, &rows_t[0] if n_pairs else NULL,
                   &shares[0] if n_pairs else NULL, n_pairs, &values[0] if values.shape[0] else NULL,
                   <const int32_t*> &nid[0] if n_named and nid.shape[0] else NULL, &noff[0] if n_named else NULL,
                   n_named, &nof[0] if n_named and nof.shape[0] else NULL,
                   &size_of[0] if n_named and size_of.shape[0] else NULL, &head_at[0] if head_at.shape[0] else NULL,
                   name_bridge, name_section, min_share, out_k, best)
        ks = _ARRAY(out_k, _I64)
        credits = _EMPTY(len(out_k), _F64)
        for p in range(len(out_k)):
            credits[p] = best[<Py_ssize_t> out_k[p]]
        return ks, credits
    finally:
        free(best)


cdef int _best_core(const int32_t* ids, Py_ssize_t m, const long long* offsets, const int32_t* bad, Py_ssize_t n_bad,
                    const long long* rows_k, const long long* rows_t, const double* shares, Py_ssize_t n_pairs,
                    const double* values, const int32_t* nid, const long long* noff, Py_ssize_t n_named,
                    const long long* nof, const long long* size_of, const long long* head_at, double name_bridge,
                    double name_section, double min_share, list out_k, double* best) except -1:
    """``bridge_best`` on checked C arrays (no named rows: ``n_named`` 0): the credited heading rows appended to
    ``out_k`` in order of first credit, ``best[k]`` each row's credit (room for every heading, zeroed)."""
    cdef Py_ssize_t p, x, k, t, new = 0, hits, at_k = -1
    cdef double value, factor
    cdef bint named
    cdef int32_t* sorted_named = NULL
    cdef int32_t* sorted_bad = <int32_t*> malloc((n_bad + 1) * sizeof(int32_t))
    cdef int32_t* new_ids = <int32_t*> malloc((m + 1) * sizeof(int32_t))  # heading k's new ids, increasing
    try:
        if sorted_bad == NULL or new_ids == NULL:
            raise MemoryError()
        for p in range(n_bad):
            sorted_bad[p] = bad[p]
        qsort(sorted_bad, n_bad, sizeof(int32_t), _cmp_int32)
        if n_named:
            sorted_named = <int32_t*> malloc((noff[n_named] + 1) * sizeof(int32_t))
            if sorted_named == NULL:
                raise MemoryError()
            for p in range(noff[n_named]):
                sorted_named[p] = nid[p]
            for t in range(n_named):
                qsort(sorted_named + noff[t], noff[t + 1] - noff[t], sizeof(int32_t), _cmp_int32)
        for p in range(n_pairs):
            k = rows_k[p]
            t = rows_t[p]
            named = False
            if n_named and nof[t] >= 0:
                if k != at_k:  # the pairs come in order of k: each heading's new ids are found once
                    at_k = k
                    new = _new_ids(ids, offsets, k, sorted_bad, n_bad, new_ids)
                hits = 0
                for x in range(new):
                    if _in_sorted(<const int32_t*> sorted_named + noff[nof[t]], noff[nof[t] + 1] - noff[nof[t]],
                                  new_ids[x]):
                        hits += 1
                named = hits >= min_share * new
            factor = 1.0
            if named:
                # pow as Python's float ** calls it (in Cython, ** 0.5 of a double is a complex power)
                factor += (name_bridge - 1.0) / pow(max(1.0, size_of[head_at[k]] / name_section), 0.5)
            value = shares[p] * values[t] * factor
            if value > best[k]:
                if best[k] == 0.0 and value > 0.0:
                    out_k.append(k)
                best[k] = value
    finally:
        free(sorted_named); free(sorted_bad); free(new_ids)
    return 0


def bridge_mentions(const int[::1] ids, const long long[::1] offsets, Py_ssize_t n_words,
                    const int[::1] head_words, const long long[::1] head_offsets, const double[::1] need,
                    const long long[::1] head_at, const long long[::1] up, const unsigned char[::1] skip):
    """How many segments outside each candidate heading's section mention it (the bridges' divisor, see
    ``qatbe.score.bm25.bridge_credits``), as an int64 array with one count per heading.

    ``ids[offsets[i]:offsets[i + 1]]`` are segment i's term ids, the candidate words being ids 0 .. n_words - 1
    (any other id is ignored). Heading h's words are ``head_words[head_offsets[h]:head_offsets[h + 1]]`` (distinct);
    a segment mentions it when it holds at least ``need[h]`` of them, and counts when it is not skipped (``skip[i]``:
    the headings themselves) and heading h (segment ``head_at[h]``) is not among the headings above it (the
    chain of ``up``: the heading above each segment, an earlier one, or -1 for none). Why compiled: per segment and word, with a
    set per segment, this was the largest part of the bridges' time on pages with many headings."""
    cdef Py_ssize_t n = offsets.shape[0] - 1, n_heads = head_offsets.shape[0] - 1, p
    _check_offsets(offsets, ids.shape[0], "offsets", "len(ids)")
    _check_offsets(head_offsets, head_words.shape[0], "head_offsets", "len(head_words)")
    if n_words < 0:
        raise ValueError("n_words must be >= 0")
    if need.shape[0] != n_heads or head_at.shape[0] != n_heads:
        raise ValueError("need and head_at must have one entry per heading")
    if up.shape[0] != n or skip.shape[0] != n:
        raise ValueError("up and skip must have one entry per segment")
    for p in range(head_words.shape[0]):
        if not 0 <= head_words[p] < n_words:
            raise ValueError(f"head word {head_words[p]} out of range [0, {n_words})")
    _check_up(up)
    out_arr = _ZEROS(n_heads, _I64)
    if n_heads == 0 or n == 0:
        return out_arr
    _mentions_core(<const int32_t*> &ids[0] if ids.shape[0] else NULL, &offsets[0], n, n_words,
                   <const int32_t*> &head_words[0] if head_words.shape[0] else NULL, &head_offsets[0], n_heads,
                   &need[0], &head_at[0], &up[0], &skip[0], <long long*> _data(out_arr))
    return out_arr


cdef int _mentions_core(const int32_t* ids, const long long* offsets, Py_ssize_t n, Py_ssize_t n_words,
                        const int32_t* head_words, const long long* head_offsets, Py_ssize_t n_heads,
                        const double* need, const long long* head_at, const long long* up, const unsigned char* skip,
                        long long* out) except -1:
    """``bridge_mentions`` on checked C arrays (``n`` segments, ``n_heads`` >= 1 headings): the counts added to
    ``out`` (zeroed, one per heading)."""
    cdef Py_ssize_t i, p, h, k, w, n_touched
    cdef long long a
    cdef Py_ssize_t n_head_words = head_offsets[n_heads]
    # the headings of each word (CSR), a per-word stamp (the last segment that held it), per-heading counts
    cdef long long* word_start = <long long*> calloc(n_words + 1, sizeof(long long))
    cdef long long* word_heads = <long long*> malloc((n_head_words + 1) * sizeof(long long))
    cdef long long* fill = <long long*> calloc(n_words + 1, sizeof(long long))
    cdef long long* stamp = <long long*> malloc((n_words + 1) * sizeof(long long))
    cdef long long* count = <long long*> calloc(n_heads, sizeof(long long))
    cdef long long* touched = <long long*> malloc(n_heads * sizeof(long long))
    cdef bint inside
    try:
        if (word_start == NULL or word_heads == NULL or fill == NULL or stamp == NULL or count == NULL
                or touched == NULL):
            raise MemoryError()
        with nogil:
            for p in range(n_head_words):
                word_start[head_words[p] + 1] += 1
            for w in range(n_words):
                word_start[w + 1] += word_start[w]
                stamp[w] = -1
            for h in range(n_heads):  # headings in order, so each word's headings are in order too
                for p in range(head_offsets[h], head_offsets[h + 1]):
                    w = head_words[p]
                    word_heads[word_start[w] + fill[w]] = h
                    fill[w] += 1
            for i in range(n):
                if skip[i]:
                    continue
                n_touched = 0
                for p in range(offsets[i], offsets[i + 1]):
                    w = ids[p]
                    if w < 0 or w >= n_words or stamp[w] == i:
                        continue
                    stamp[w] = i
                    for k in range(word_start[w], word_start[w + 1]):
                        h = word_heads[k]
                        if count[h] == 0:
                            touched[n_touched] = h
                            n_touched += 1
                        count[h] += 1
                for k in range(n_touched):
                    h = touched[k]
                    if <double> count[h] >= need[h]:
                        inside = False
                        a = up[i]
                        while a >= 0:
                            if a == head_at[h]:
                                inside = True
                                break
                            a = up[a]
                        if not inside:
                            out[h] += 1
                    count[h] = 0
    finally:
        free(word_start); free(word_heads); free(fill); free(stamp); free(count); free(touched)
    return 0


def has_decimal(texts):
    """Per text, 1 if it holds a decimal digit (what ``re``'s ``\\d`` matches: Unicode category Nd), else 0, as a
    uint8 array. Why compiled: the scorer asks it of every segment of a page for a "how many"/"when" question,
    and a regex search there cost more than the BM25 kernel."""
    cdef list items = _texts(texts)
    cdef Py_ssize_t t, i, n
    cdef int kind
    cdef void* data
    cdef uint32_t c
    out_arr = _ZEROS(len(items), _U8)
    cdef unsigned char[::1] out = out_arr
    for t in range(len(items)):
        text = items[t]
        kind = PyUnicode_KIND(text)
        data = PyUnicode_DATA(text)
        n = PyUnicode_GET_LENGTH(text)
        with nogil:
            for i in range(n):
                c = PyUnicode_READ(kind, data, i)
                if (48 <= c <= 57) or (c >= 128 and Py_UNICODE_ISDECIMAL(c)):
                    out[t] = 1
                    break
    return out_arr


cdef inline bint _is_re_word(uint32_t c) noexcept nogil:
    """``re``'s ``\\w`` on a str: alphanumeric (``str.isalnum``) or ``_``."""
    if c < 128:
        return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122) or c == 95
    return Py_UNICODE_ISALNUM(c)


cdef inline bint _in_name_run(uint32_t c) noexcept nogil:
    """``[\\w'’&.-]``: what a capitalised word (``capitalised_words``) may hold after its first letter."""
    return _is_re_word(c) or c == 39 or c == 0x2019 or c == 38 or c == 46 or c == 45


cdef enum:
    # What a code point is to ``capitalised_words`` (``_name_class``)
    _NAME_RUN = 1    # in a word: [\w'’&.-]
    _NAME_WORD = 2   # \w
    _NAME_FIRST = 4  # may start a word: \w but not \d or _
    _NAME_UPPER = 8  # upper case


cdef uint8_t _name_class_of(uint32_t c) noexcept nogil:
    cdef bint digit = (48 <= c <= 57) or (c >= 128 and Py_UNICODE_ISDECIMAL(c))
    return ((_NAME_RUN if _in_name_run(c) else 0) | (_NAME_WORD if _is_re_word(c) else 0)
            | (_NAME_FIRST if _is_re_word(c) and c != 95 and not digit else 0)
            | (_NAME_UPPER if Py_UNICODE_ISUPPER(c) else 0))


# ``_name_class_of`` of the first 256 code points: most text the names are read from is Latin-1, and the Unicode
# database's calls were most of ``_name_spans``' time
cdef uint8_t _NAME_CLASS[256]
for _c in range(256):
    _NAME_CLASS[_c] = _name_class_of(_c)


cdef inline uint8_t _name_class(uint32_t c) noexcept nogil:
    return _NAME_CLASS[c] if c < 256 else _name_class_of(c)


cdef Py_ssize_t _name_spans(int kind, const void* data, Py_ssize_t n, Py_ssize_t** spans, Py_ssize_t* cap
                            ) except -1:
    """Where ``capitalised_words``' words lie in a text (``kind`` and ``data`` as ``PyUnicode_KIND`` and
    ``PyUnicode_DATA`` give them, ``n`` code points): word w at ``[spans[0][2 * w], spans[0][2 * w + 1])``, in
    order; returns how many. ``spans``, room for ``cap`` entries, is grown as needed (the caller frees it)."""
    if kind == 1:
        return _spans_of(<const uint8_t*> data, n, spans, cap)
    if kind == 2:
        return _spans_of(<const uint16_t*> data, n, spans, cap)
    return _spans_of(<const uint32_t*> data, n, spans, cap)


cdef Py_ssize_t _spans_of(const _char_t* data, Py_ssize_t n, Py_ssize_t** spans, Py_ssize_t* cap) except -1:
    cdef Py_ssize_t i = 0, e, p, m = 0
    cdef uint8_t c
    while i < n:
        if not _name_class(data[i]) & _NAME_RUN:
            i += 1
            continue
        e = i + 1
        while e < n and _name_class(data[e]) & _NAME_RUN:
            e += 1
        for p in range(i, e):
            c = _name_class(data[p])
            if c & _NAME_FIRST and (p == i or not _name_class(data[p - 1]) & _NAME_WORD):
                if c & _NAME_UPPER:
                    _grow(<void**> spans, cap, 2 * m + 2, sizeof(Py_ssize_t))
                    spans[0][2 * m] = p
                    spans[0][2 * m + 1] = e
                    m += 1
                break
        i = e
    return m


def capitalised_words(str text):
    """The words of ``text`` that start with an upper-case letter, joined by single spaces: what
    ``" ".join(w for w in re.findall(r"\\b[^\\W\\d_][\\w'’&.-]*", text) if w[0].isupper())`` returns.

    How: every match lies in a maximal run of ``[\\w'’&.-]`` and runs to its end (the class is greedy), and a run
    holds at most one match, starting at the run's first letter (``\\w`` but not ``\\d`` or ``_``) that follows a
    non-word character or starts the run. Why compiled: the scorer's second-hop bridges ask it of the best
    segments with their neighbours (a few thousand characters), and the regex read those at about 40 ns a
    character, a seventh of ``extract`` on a page where a bridge is named."""
    cdef Py_ssize_t* spans = NULL
    cdef Py_ssize_t cap = 0, m, w
    try:
        m = _name_spans(PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text), &spans, &cap)
        return " ".join([text[spans[2 * w]:spans[2 * w + 1]] for w in range(m)])
    finally:
        free(spans)


def control_scan(str text, Py_ssize_t sniff):
    """(``"\x00" in text``, how many of the first ``sniff`` characters are control characters or U+FFFD, the
    ``[\x00-\x08\x0e-\x1f\ufffd]`` of ``source._CONTROL``): the binary check every input gets, in one pass.
    Why compiled: on a page held two bytes a character, str.find's NUL scan and the control-character scans of
    the sample took longer than reading the page's metadata."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i, head = min(max(sniff, 0), n), controls = 0
    cdef bint zero = False
    cdef const unsigned char* one
    cdef const uint16_t* two
    cdef const uint32_t* four
    with nogil:
        if kind == 1:
            one = <const unsigned char*> data
            controls = qatbe_controls8(one, head)
            zero = memchr(one, 0, n) != NULL
        elif kind == 2:
            two = <const uint16_t*> data
            controls = qatbe_controls16(two, head)
            zero = qatbe_has_zero(two, n, 2)
        else:
            four = <const uint32_t*> data
            for i in range(head):
                controls += qatbe_is_control(four[i])
            zero = qatbe_has_zero(four, n, 4)
    return zero, controls


cdef extern from "_simd.h":
    void qatbe_simd_init() nogil
    int qatbe_simd_use_avx2(int on) nogil


qatbe_simd_init()


def kept_bytes(bint all_threads=False):
    """For tests and diagnostics: how many bytes of freed scratch blocks the core keeps for reuse (``_alloc.h``),
    in this thread's cache or in every live thread's."""
    return qatbe_kept_bytes(all_threads)


def use_avx2(bint on):
    """For tests: the page-wide scans (``utf8_encode``, ``control_scan``, ``byte_count``, ``contains_ci``) with
    AVX2 (where the processor has it: the default) or without; returns whether AVX2 is now in use. Not
    thread-safe: only tests call it."""
    return bool(qatbe_simd_use_avx2(on))


cdef extern from *:
    """
    /* A zero unit in a str's two- or four-byte storage: 64 bytes a step (SSE2), compared with zero and OR-ed,
       stopping at the first block that holds one. GCC left the plain loop scalar (0.19 ns a character on a page
       held two bytes a character, most of the binary check). */
    #include <stdint.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    static inline __m128i qatbe_zero_units(__m128i v, int width) {
        return width == 2 ? _mm_cmpeq_epi16(v, _mm_setzero_si128()) : _mm_cmpeq_epi32(v, _mm_setzero_si128());
    }
    #endif
    #if defined(QATBE_AVX2)
    QATBE_TARGET_AVX2 static int qatbe_has_zero_avx2(const char* s, Py_ssize_t size, int width, Py_ssize_t* at) {
        Py_ssize_t i = 0;
        const __m256i zero = _mm256_setzero_si256();
        for (; i + 128 <= size; i += 128) {
            const __m256i* v = (const __m256i*) (s + i);
            __m256i hit = _mm256_setzero_si256();
            for (int k = 0; k < 4; k++) {
                __m256i u = _mm256_loadu_si256(v + k);
                hit = _mm256_or_si256(hit, width == 2 ? _mm256_cmpeq_epi16(u, zero) : _mm256_cmpeq_epi32(u, zero));
            }
            if (_mm256_movemask_epi8(hit)) return 1;
        }
        *at = i;
        return 0;
    }
    #endif
    static int qatbe_has_zero(const void* data, Py_ssize_t n, int width) {
        const char* s = (const char*) data;
        Py_ssize_t i = 0, size = n * width;
    #if defined(QATBE_AVX2)
        if (qatbe_avx2 && qatbe_has_zero_avx2(s, size, width, &i)) return 1;
    #endif
    #if defined(__SSE2__)
        for (; i + 64 <= size; i += 64) {
            const __m128i* v = (const __m128i*) (s + i);
            __m128i hit = _mm_or_si128(
                _mm_or_si128(qatbe_zero_units(_mm_loadu_si128(v), width), qatbe_zero_units(_mm_loadu_si128(v + 1), width)),
                _mm_or_si128(qatbe_zero_units(_mm_loadu_si128(v + 2), width), qatbe_zero_units(_mm_loadu_si128(v + 3), width)));
            if (_mm_movemask_epi8(hit)) return 1;
        }
    #endif
        for (i /= width; i < n; i++)
            if (width == 2 ? ((const uint16_t*) data)[i] == 0 : ((const uint32_t*) data)[i] == 0) return 1;
        return 0;
    }
    /* How many of s[:n] are control characters or U+FFFD ([\x00-\x08\x0e-\x1f\ufffd]), sixteen (eight) a step:
       c <= 8 is a saturating c - 8 of zero, 0x0e <= c <= 0x1f a wrapping c - 0x0e at most 0x11. */
    static inline Py_ssize_t qatbe_is_control(uint32_t c) {
        return c <= 8 || (c >= 0x0e && c <= 0x1f) || c == 0xfffd;
    }
    static Py_ssize_t qatbe_controls8(const uint8_t* s, Py_ssize_t n) {
        Py_ssize_t i = 0, count = 0;
    #if defined(__SSE2__)
        const __m128i zero = _mm_setzero_si128(), eight = _mm_set1_epi8(8), low = _mm_set1_epi8(0x0e),
                      span = _mm_set1_epi8(0x11);
        for (; i + 16 <= n; i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i*) (s + i));
            __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(_mm_subs_epu8(v, eight), zero),
                                       _mm_cmpeq_epi8(_mm_subs_epu8(_mm_sub_epi8(v, low), span), zero));
            count += __builtin_popcount(_mm_movemask_epi8(hit));
        }
    #endif
        for (; i < n; i++) count += qatbe_is_control(s[i]);
        return count;
    }
    static Py_ssize_t qatbe_controls16(const uint16_t* s, Py_ssize_t n) {
        Py_ssize_t i = 0, count = 0;
    #if defined(__SSE2__)
        const __m128i zero = _mm_setzero_si128(), eight = _mm_set1_epi16(8), low = _mm_set1_epi16(0x0e),
                      span = _mm_set1_epi16(0x11), fffd = _mm_set1_epi16((short) 0xfffd);
        for (; i + 8 <= n; i += 8) {
            __m128i v = _mm_loadu_si128((const __m128i*) (s + i));
            __m128i hit = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi16(_mm_subs_epu16(v, eight), zero),
                             _mm_cmpeq_epi16(_mm_subs_epu16(_mm_sub_epi16(v, low), span), zero)),
                _mm_cmpeq_epi16(v, fffd));
            count += __builtin_popcount(_mm_movemask_epi8(hit)) / 2;
        }
    #endif
        for (; i < n; i++) count += qatbe_is_control(s[i]);
        return count;
    }
    """
    int qatbe_has_zero(const void* data, Py_ssize_t n, int width) nogil
    Py_ssize_t qatbe_is_control(uint32_t c) nogil
    Py_ssize_t qatbe_controls8(const uint8_t* s, Py_ssize_t n) nogil
    Py_ssize_t qatbe_controls16(const uint16_t* s, Py_ssize_t n) nogil


cdef extern from *:
    """
    /* A str stored two or four bytes a character as UTF-8, lone surrogates dropped: str.encode("utf-8",
       "ignore") for those storages. Eight characters at a time when all eight are ASCII (SSE2: the markup of an
       HTML page is), one at a time otherwise. One pass: the bytes object is made for the longest result (three
       bytes a character, four) and shrunk in place to what was written; a first pass that sized it exactly cost
       two fifths of the time. */
    #include <stdint.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    static inline unsigned char* qatbe_utf8_put16(uint16_t c, unsigned char* o) {
        if (c < 0x80) {
            *o++ = (unsigned char) c;
        } else if (c < 0x800) {
            *o++ = (unsigned char) (0xC0 | (c >> 6));
            *o++ = (unsigned char) (0x80 | (c & 0x3F));
        } else if (c < 0xD800 || c >= 0xE000) {
            *o++ = (unsigned char) (0xE0 | (c >> 12));
            *o++ = (unsigned char) (0x80 | ((c >> 6) & 0x3F));
            *o++ = (unsigned char) (0x80 | (c & 0x3F));
        }
        return o;
    }
    #if defined(QATBE_AVX2)
    /* Sixteen characters a step while they are ASCII; a step that is not goes on in the SSE2 loop's halves. */
    QATBE_TARGET_AVX2 static Py_ssize_t qatbe_utf8_ascii16_avx2(const uint16_t* s, Py_ssize_t n,
                                                                 unsigned char** out) {
        Py_ssize_t i = 0;
        unsigned char* o = *out;
        const __m256i high = _mm256_set1_epi16((short) 0xFF80), zero = _mm256_setzero_si256();
        for (; i + 16 <= n; i += 16) {
            __m256i v = _mm256_loadu_si256((const __m256i*) (s + i));
            if ((unsigned) _mm256_movemask_epi8(_mm256_cmpeq_epi16(_mm256_and_si256(v, high), zero)) != 0xFFFFFFFFu)
                break;
            _mm_storeu_si128((__m128i*) o, _mm_packus_epi16(_mm256_castsi256_si128(v),
                                                            _mm256_extracti128_si256(v, 1)));
            o += 16;
        }
        *out = o;
        return i;
    }
    #endif
    static unsigned char* qatbe_utf8_write16(const uint16_t* s, Py_ssize_t n, unsigned char* o) {
        Py_ssize_t i = 0;
    #if defined(QATBE_AVX2)
        if (qatbe_avx2) {
            /* Runs of sixteen ASCII characters at AVX2 width; each stop leaves eight characters to the loop below
               (at most one step of it), then the wide loop takes over again. */
            while (i + 16 <= n) {
                i += qatbe_utf8_ascii16_avx2(s + i, n - i, &o);
                if (i + 16 > n) break;
                Py_ssize_t stop = i + 8;
                for (; i < stop; i++) o = qatbe_utf8_put16(s[i], o);
            }
        }
    #endif
    #if defined(__SSE2__)
        const __m128i high = _mm_set1_epi16((short) 0xFF80), zero = _mm_setzero_si128();
        for (; i + 8 <= n; i += 8) {
            __m128i v = _mm_loadu_si128((const __m128i*) (s + i));
            if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(v, high), zero)) == 0xFFFF) {
                _mm_storel_epi64((__m128i*) o, _mm_packus_epi16(v, v));
                o += 8;
            } else {
                for (Py_ssize_t j = i; j < i + 8; j++) o = qatbe_utf8_put16(s[j], o);
            }
        }
    #endif
        for (; i < n; i++) o = qatbe_utf8_put16(s[i], o);
        return o;
    }
    static inline unsigned char* qatbe_utf8_put32(uint32_t c, unsigned char* o) {
        if (c < 0x10000) return qatbe_utf8_put16((uint16_t) c, o);
        *o++ = (unsigned char) (0xF0 | (c >> 18));
        *o++ = (unsigned char) (0x80 | ((c >> 12) & 0x3F));
        *o++ = (unsigned char) (0x80 | ((c >> 6) & 0x3F));
        *o++ = (unsigned char) (0x80 | (c & 0x3F));
        return o;
    }
    static unsigned char* qatbe_utf8_write32(const uint32_t* s, Py_ssize_t n, unsigned char* o) {
        Py_ssize_t i = 0;
    #if defined(__SSE2__)
        const __m128i high = _mm_set1_epi32((int) 0xFFFFFF80), zero = _mm_setzero_si128();
        for (; i + 8 <= n; i += 8) {
            __m128i a = _mm_loadu_si128((const __m128i*) (s + i)), b = _mm_loadu_si128((const __m128i*) (s + i + 4));
            /* Sixteen at a time while the markup lasts: the four-byte storage is mostly ASCII too. */
            while (i + 16 <= n) {
                __m128i c = _mm_loadu_si128((const __m128i*) (s + i + 8));
                __m128i d = _mm_loadu_si128((const __m128i*) (s + i + 12));
                __m128i any = _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d));
                if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(any, high), zero)) != 0xFFFF) break;
                _mm_storeu_si128((__m128i*) o, _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
                o += 16;
                i += 16;
                if (i + 8 > n) break;
                a = _mm_loadu_si128((const __m128i*) (s + i));
                b = _mm_loadu_si128((const __m128i*) (s + i + 4));
            }
            if (i + 8 > n) break;
            if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(_mm_or_si128(a, b), high), zero)) == 0xFFFF) {
                __m128i w = _mm_packs_epi32(a, b);
                _mm_storel_epi64((__m128i*) o, _mm_packus_epi16(w, w));
                o += 8;
            } else {
                for (Py_ssize_t j = i; j < i + 8; j++) o = qatbe_utf8_put32(s[j], o);
            }
        }
    #endif
        for (; i < n; i++) o = qatbe_utf8_put32(s[i], o);
        return o;
    }
    /* One byte a character, some of them outside ASCII (Latin-1: a no-break space or an accented letter, and no
       character past U+00FF): runs of ASCII copied sixteen (AVX2: thirty-two) bytes a step, each other
       character written as its two bytes. CPython encodes such a str one character at a time. */
    #if defined(QATBE_AVX2)
    QATBE_TARGET_AVX2 static Py_ssize_t qatbe_utf8_ascii8_avx2(const uint8_t* s, Py_ssize_t n, unsigned char** out) {
        Py_ssize_t i = 0;
        unsigned char* o = *out;
        for (; i + 32 <= n; i += 32) {
            __m256i v = _mm256_loadu_si256((const __m256i*) (s + i));
            if (_mm256_movemask_epi8(v)) break;
            _mm256_storeu_si256((__m256i*) o, v);
            o += 32;
        }
        *out = o;
        return i;
    }
    #endif
    static unsigned char* qatbe_utf8_write8(const uint8_t* s, Py_ssize_t n, unsigned char* o) {
        Py_ssize_t i = 0;
        while (i < n) {
    #if defined(QATBE_AVX2)
            if (qatbe_avx2 && i + 32 <= n) {
                i += qatbe_utf8_ascii8_avx2(s + i, n - i, &o);
                if (i >= n) break;
            }
    #endif
    #if defined(__SSE2__)
            if (i + 16 <= n) {
                __m128i v = _mm_loadu_si128((const __m128i*) (s + i));
                unsigned mask = (unsigned) _mm_movemask_epi8(v);
                if (!mask) {
                    _mm_storeu_si128((__m128i*) o, v);
                    o += 16;
                    i += 16;
                    continue;
                }
                unsigned ascii = (unsigned) __builtin_ctz(mask);  /* the ASCII bytes before the first other one */
                memcpy(o, s + i, ascii);
                o += ascii;
                i += ascii;
            }
    #endif
            uint8_t c = s[i++];
            if (c < 0x80) {
                *o++ = c;
            } else {
                *o++ = (unsigned char) (0xC0 | (c >> 6));
                *o++ = (unsigned char) (0x80 | (c & 0x3F));
            }
        }
        return o;
    }
    static PyObject* qatbe_utf8_encode(int kind, const void* data, Py_ssize_t n) {
        Py_ssize_t most = kind == 1 ? 2 : kind == 2 ? 3 : 4;
        if (n > PY_SSIZE_T_MAX / most) return PyErr_NoMemory();
        PyObject* out = PyBytes_FromStringAndSize(NULL, most * n);
        if (out == NULL) return NULL;
        unsigned char* start = (unsigned char*) PyBytes_AS_STRING(out);
        unsigned char* end;
        Py_BEGIN_ALLOW_THREADS
        end = kind == 1 ? qatbe_utf8_write8((const uint8_t*) data, n, start)
            : kind == 2 ? qatbe_utf8_write16((const uint16_t*) data, n, start)
                        : qatbe_utf8_write32((const uint32_t*) data, n, start);
        Py_END_ALLOW_THREADS
        if (_PyBytes_Resize(&out, end - start) < 0) return NULL;
        return out;
    }
    """
    object qatbe_utf8_encode(int kind, const void* data, Py_ssize_t n)



cdef extern from *:
    """
    /* Two spaces side by side in a str's storage (one or two bytes a character): sixteen (eight) positions a step,
       each compared with the next (SSE2), then the tail one by one. */
    #include <stdint.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    static int qatbe_double_space8(const uint8_t* s, Py_ssize_t n) {
        Py_ssize_t i = 0;
    #if defined(__SSE2__)
        const __m128i sp = _mm_set1_epi8(' ');
        for (; i + 17 <= n; i += 16) {
            __m128i a = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*) (s + i)), sp);
            __m128i b = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*) (s + i + 1)), sp);
            if (_mm_movemask_epi8(_mm_and_si128(a, b))) return 1;
        }
    #endif
        for (; i + 1 < n; i++) if (s[i] == ' ' && s[i + 1] == ' ') return 1;
        return 0;
    }
    static int qatbe_double_space16(const uint16_t* s, Py_ssize_t n) {
        Py_ssize_t i = 0;
    #if defined(__SSE2__)
        const __m128i sp = _mm_set1_epi16(' ');
        for (; i + 9 <= n; i += 8) {
            __m128i a = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i*) (s + i)), sp);
            __m128i b = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i*) (s + i + 1)), sp);
            if (_mm_movemask_epi8(_mm_and_si128(a, b))) return 1;
        }
    #endif
        for (; i + 1 < n; i++) if (s[i] == ' ' && s[i + 1] == ' ') return 1;
        return 0;
    }
    """
    int qatbe_double_space8(const uint8_t* s, Py_ssize_t n) nogil
    int qatbe_double_space16(const uint16_t* s, Py_ssize_t n) nogil


def untidy(str text):
    """``"  " in text or text[:1] == " " or text[-1:] == " "``: whether a text the HTML walk collapsed still needs
    its spaces collapsed (the walk deletes soft hyphens and zero-width spaces after collapsing).

    Why compiled: the builder asks it of every text of every page, and ``str.__contains__`` looks for two spaces
    at about 2 ns a character (each single space is a candidate it checks); here sixteen positions go at once."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    if n == 0:
        return False
    if PyUnicode_READ(kind, data, 0) == 32 or PyUnicode_READ(kind, data, n - 1) == 32:
        return True
    if kind == 1:
        return qatbe_double_space8(<const uint8_t*> data, n) != 0
    if kind == 2:
        return qatbe_double_space16(<const uint16_t*> data, n) != 0
    for i in range(n - 1):
        if PyUnicode_READ(kind, data, i) == 32 and PyUnicode_READ(kind, data, i + 1) == 32:
            return True
    return False


cdef inline bint _needle_at(int kind, const void* data, Py_ssize_t i, const unsigned char* needle,
                            Py_ssize_t m) noexcept nogil:
    cdef Py_ssize_t j
    for j in range(m):
        if PyUnicode_READ(kind, data, i + j) != needle[j]:
            return False
    return True


cdef bint _holds8(const uint8_t* data, Py_ssize_t n, const unsigned char* needle, Py_ssize_t m,
                  Py_ssize_t pivot) noexcept nogil:
    """Is ``needle`` in the one-byte text? memchr finds the candidates by the needle's ``pivot`` character."""
    cdef const uint8_t* p = data + pivot
    cdef const uint8_t* end = data + n - (m - pivot) + 1  # past the last place the pivot can stand
    while p < end:
        p = <const uint8_t*> memchr(p, needle[pivot], end - p)
        if p == NULL:
            return False
        if memcmp(p - pivot, needle, m) == 0:
            return True
        p += 1
    return False


def holds_either(str text, bytes first, bytes second):
    """``first in text or second in text`` for two ASCII needles of one length (a word in lower case and in
    capitals), without making a string.

    Why compiled: the decision step asks it of every short paragraph ("ookie" or "OOKIE"), and CPython widens an
    ASCII needle into a new string before searching a text stored two bytes a character (about 120 ns a call).
    Candidates are found by the needle's middle character (memchr in one-byte texts)."""
    cdef Py_ssize_t m = len(first), n = PyUnicode_GET_LENGTH(text), i, pivot
    cdef int kind = PyUnicode_KIND(text)
    cdef const void* data = PyUnicode_DATA(text)
    cdef const unsigned char* a = <const unsigned char*> PyBytes_AS_STRING(first)
    cdef const unsigned char* b = <const unsigned char*> PyBytes_AS_STRING(second)
    cdef Py_UCS4 c
    if len(second) != m or m == 0:
        raise ValueError("the two needles must be non-empty and of one length")
    for i in range(m):
        if a[i] >= 128 or b[i] >= 128:
            raise ValueError("the needles must be ASCII")
    if n < m:
        return False
    pivot = m // 2
    if kind == 1:
        return _holds8(<const uint8_t*> data, n, a, m, pivot) or _holds8(<const uint8_t*> data, n, b, m, pivot)
    for i in range(pivot, n - (m - pivot) + 1):
        c = PyUnicode_READ(kind, data, i)
        if (c == a[pivot] and _needle_at(kind, data, i - pivot, a, m)) or (
                c == b[pivot] and _needle_at(kind, data, i - pivot, b, m)):
            return True
    return False


def utf8_encode(str text):
    """``text.encode("utf-8", "ignore")``, what selectolax does to a str before Lexbor parses it.

    Why by hand: a page with one character outside Latin-1 (a curly quote, a dash: all of scrapinghub-aeb) is
    stored two bytes a character, one with an emoji four, and CPython encodes those one character at a time,
    about 0.35 ns each, more than the nesting guard and the metadata walk together. Here the mostly-ASCII markup
    goes eight or more characters a step. So does a page stored one byte a character with a character outside
    ASCII (a no-break space, an accented letter: 18 of the 394 speed-bench pages), which CPython encoded at 0.54 ns
    a character, seven times the two-byte pages; only an all-ASCII str is left to CPython (a copy)."""
    cdef int kind = PyUnicode_KIND(text)
    if PyUnicode_IS_ASCII(text):
        return text.encode("utf-8", "ignore")  # a copy of the str's own bytes
    return qatbe_utf8_encode(kind, PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text))


cdef extern from *:
    """
    /* How many bytes of s[:n] equal value: sixteen a step (SSE2), each lane's matches gathered in a byte (at most
       255 steps a block), the block's bytes summed by psadbw. */
    #include <stdint.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    #if defined(QATBE_AVX2)
    QATBE_TARGET_AVX2 static Py_ssize_t qatbe_byte_count_avx2(const uint8_t* s, Py_ssize_t n, uint8_t value,
                                                               Py_ssize_t* at) {
        Py_ssize_t i = 0, count = 0;
        const __m256i want = _mm256_set1_epi8((char) value), zero = _mm256_setzero_si256();
        while (i + 32 <= n) {
            __m256i lanes = zero;
            for (int step = 0; step < 255 && i + 32 <= n; step++, i += 32)
                lanes = _mm256_sub_epi8(lanes, _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i*) (s + i)), want));
            __m256i sums = _mm256_sad_epu8(lanes, zero);
            count += _mm256_extract_epi64(sums, 0) + _mm256_extract_epi64(sums, 1) + _mm256_extract_epi64(sums, 2)
                + _mm256_extract_epi64(sums, 3);
        }
        *at = i;
        return count;
    }
    #endif
    static Py_ssize_t qatbe_byte_count(const uint8_t* s, Py_ssize_t n, uint8_t value) {
        Py_ssize_t i = 0, count = 0;
    #if defined(QATBE_AVX2)
        if (qatbe_avx2) count = qatbe_byte_count_avx2(s, n, value, &i);
    #endif
    #if defined(__SSE2__)
        const __m128i want = _mm_set1_epi8((char) value), zero = _mm_setzero_si128();
        while (i + 16 <= n) {
            __m128i lanes = zero;
            for (int step = 0; step < 255 && i + 16 <= n; step++, i += 16)
                lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*) (s + i)), want));
            __m128i sums = _mm_sad_epu8(lanes, zero);
            count += _mm_cvtsi128_si32(sums) + _mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
        }
    #endif
        for (; i < n; i++) count += s[i] == value;
        return count;
    }
    """
    Py_ssize_t qatbe_byte_count(const uint8_t* s, Py_ssize_t n, uint8_t value) nogil


def byte_count(const unsigned char[::1] data, unsigned char value):
    """``data.count(bytes([value]))`` (CPython's single-byte count runs at about 0.35 ns a byte, and the nesting
    guard counts the "<" of every HTML page; this, at sixteen bytes a step, about 0.05)."""
    cdef Py_ssize_t n = data.shape[0], count
    cdef const unsigned char* p = &data[0] if n else NULL
    with nogil:
        count = qatbe_byte_count(p, n, value) if n else 0
    return count


cdef extern from *:
    """
    /* Whether s[:n] holds needle[:m] with its ASCII letters in either case (needle given in lower case, m >= 1):
       candidates where the first and the last bytes match (either case), sixteen start positions a step (SSE2),
       then the bytes between compared case-blind. */
    #include <stdint.h>
    #include <string.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    static inline uint8_t qatbe_up(uint8_t c) { return (c >= 'a' && c <= 'z') ? (uint8_t) (c - 32) : c; }
    static inline uint8_t qatbe_lo(uint8_t c) { return (c >= 'A' && c <= 'Z') ? (uint8_t) (c + 32) : c; }
    static int qatbe_same_ci(const uint8_t* s, const uint8_t* needle, size_t m) {
        size_t k;
        for (k = 0; k < m; k++) if (qatbe_lo(s[k]) != needle[k]) return 0;
        return 1;
    }
    #if defined(QATBE_AVX2)
    QATBE_TARGET_AVX2 static int qatbe_contains_ci_avx2(const uint8_t* s, size_t n, const uint8_t* needle,
                                                        size_t m, size_t* at) {
        size_t i = 0;
        const __m256i f1 = _mm256_set1_epi8((char) needle[0]), f2 = _mm256_set1_epi8((char) qatbe_up(needle[0]));
        const __m256i l1 = _mm256_set1_epi8((char) needle[m - 1]);
        const __m256i l2 = _mm256_set1_epi8((char) qatbe_up(needle[m - 1]));
        for (; i + m - 1 + 32 <= n; i += 32) {
            __m256i a = _mm256_loadu_si256((const __m256i*) (s + i));
            __m256i b = _mm256_loadu_si256((const __m256i*) (s + i + m - 1));
            unsigned mask = (unsigned) _mm256_movemask_epi8(_mm256_and_si256(
                _mm256_or_si256(_mm256_cmpeq_epi8(a, f1), _mm256_cmpeq_epi8(a, f2)),
                _mm256_or_si256(_mm256_cmpeq_epi8(b, l1), _mm256_cmpeq_epi8(b, l2))));
            while (mask) {
                unsigned bit = (unsigned) __builtin_ctz(mask);
                if (qatbe_same_ci(s + i + bit, needle, m)) return 1;
                mask &= mask - 1;
            }
        }
        *at = i;
        return 0;
    }
    #endif
    static int qatbe_contains_ci(const uint8_t* s, size_t n, const uint8_t* needle, size_t m) {
        size_t i = 0;
        if (n < m) return 0;
    #if defined(QATBE_AVX2)
        if (qatbe_avx2 && qatbe_contains_ci_avx2(s, n, needle, m, &i)) return 1;
    #endif
    #if defined(__SSE2__)
        const __m128i f1 = _mm_set1_epi8((char) needle[0]), f2 = _mm_set1_epi8((char) qatbe_up(needle[0]));
        const __m128i l1 = _mm_set1_epi8((char) needle[m - 1]), l2 = _mm_set1_epi8((char) qatbe_up(needle[m - 1]));
        for (; i + m - 1 + 16 <= n; i += 16) {
            __m128i a = _mm_loadu_si128((const __m128i*) (s + i));
            __m128i b = _mm_loadu_si128((const __m128i*) (s + i + m - 1));
            unsigned mask = (unsigned) _mm_movemask_epi8(_mm_and_si128(
                _mm_or_si128(_mm_cmpeq_epi8(a, f1), _mm_cmpeq_epi8(a, f2)),
                _mm_or_si128(_mm_cmpeq_epi8(b, l1), _mm_cmpeq_epi8(b, l2))));
            while (mask) {
                unsigned bit = (unsigned) __builtin_ctz(mask);
                if (qatbe_same_ci(s + i + bit, needle, m)) return 1;
                mask &= mask - 1;
            }
        }
    #endif
        for (; i + m <= n; i++) if (qatbe_same_ci(s + i, needle, m)) return 1;
        return 0;
    }
    """
    int qatbe_contains_ci(const uint8_t* s, size_t n, const uint8_t* needle, size_t m) nogil


def contains_ci(const unsigned char[::1] data, bytes needle):
    """Whether ``data`` holds ``needle`` with its ASCII letters in either case: ``needle.lower() in data.lower()``
    for an ASCII ``needle``, without the copies. Why compiled: every HTML page is asked whether it holds
    ``<math`` before the formulas are looked for, and ``bytes.find`` ran at about 0.5 ns a byte (twice that for
    the two cases), a tenth of ``extract`` on a large page; this runs sixteen bytes a step."""
    cdef Py_ssize_t n = data.shape[0], m = len(needle)
    cdef bytes low = needle.lower()
    cdef const unsigned char* want = low
    cdef int found
    if m == 0:
        return True
    if not needle.isascii():
        raise ValueError("needle must be ASCII")
    if n < m:
        return False
    with nogil:
        found = qatbe_contains_ci(&data[0], n, want, m)
    return found != 0


def last_visible(texts):
    """Per text, the code point of its last character that is not whitespace (what ``str.rstrip`` keeps), 0 when
    it has none, as a uint32 array (``page_scores`` reads it to find lead-ins, texts ending with a colon)."""
    cdef list items = _texts(texts)
    cdef Py_ssize_t t
    out_arr = _ZEROS(len(items), _U32)
    cdef unsigned int[::1] out = out_arr
    for t in range(len(items)):
        out[t] = _last_visible(items[t])
    return out_arr


# ---------------------------------------------------------------------------------------------------------------
# Term memo: raw tokens -> index term ids, kept across pages (see ``TermMemo``).


cdef tuple _csr_out(Py_ssize_t total, Py_ssize_t n_texts):
    """A page read's output arrays, to be filled: ``total`` int32 ids and ``n_texts + 1`` int64 offsets from 0."""
    return _EMPTY(total, _I32), _ZEROS(n_texts + 1, _I64)


cdef uint64_t* _begin(prefixes, const uint32_t[::1] fold_view, _Prefixes* pre, _Vocab* page, _Out* out
                      ) except NULL:
    """A page read's empty state: ``pre`` filled from ``prefixes`` (and the folding table), ``page`` and ``out``
    empty. Returns the key array ``pre`` points into (the caller frees it)."""
    cdef Py_ssize_t n_keys, n_other
    cdef uint64_t* key_array = _prefix_array(prefixes, &n_keys, &n_other)
    _fill_prefixes(pre, key_array, n_keys, n_other)
    _set_fold(pre, fold_view)
    memset_vocab(page)
    out[0] = _no_out()
    return key_array


cdef struct _Pairs:
    # ``TermMemo._find_pairs``' result: ``bridge_rows``' choice and rows, the rows' term ids, the bad ids
    long long best_i[64]
    Py_ssize_t c, n_cand, n_which, total, n_bad
    long long* cand
    long long* which
    long long* rows
    long long* top_offsets
    int32_t* ids
    long long* offsets
    int32_t* bad
    # with the names (``_find_pairs``' ``positions``): row r's occurrences from tok_at[r], occurrence i's ids at
    # ids[term_at[i]:term_at[i + 1]]
    long long* tok_at
    long long* term_at


cdef bint _names_in_rows(Scan sc, const _Pairs* P, list naming, int32_t** nid, long long** noff) except -1:
    """The names of each naming best segment ``naming[k]`` (``TermMemo.bridge_credits``), read off the terms ``P``
    holds of its rows: the terms of its occurrences that lie in a capitalised word (``_name_spans``), at
    ``nid[0][noff[0][k]:noff[0][k + 1]]`` (new arrays the caller frees). False, with nothing made, when an
    occurrence crosses a word's edge ("3-Corp": the word is "Corp", the token "3-Corp"; "Smith,Jones").

    Why: when none crosses, the occurrences inside a word are the tokens of the word as a string (a token's
    extent depends on its neighbours only, and a word's edges are no token's inside), so these are the terms
    ``terms`` gives of the ``capitalised_words`` strings -- without making the strings, scanning and looking
    them up again."""
    cdef Py_ssize_t k, t, x, r, seg, j, n_tok, m, q, base, w = 0, cap_ids = 0, cap_spans = 0
    cdef Py_ssize_t* spans = NULL
    cdef int32_t* out = NULL
    cdef long long* off = <long long*> malloc((len(naming) + 1) * sizeof(long long))
    cdef const _Tok* toks
    cdef int64_t s, e
    cdef long long a
    try:
        if off == NULL:
            raise MemoryError()
        off[0] = 0
        for k in range(len(naming)):
            t = naming[k]
            for x in range(P.top_offsets[t], P.top_offsets[t + 1]):
                r = P.rows[x]
                seg = P.which[r]
                m = _name_spans(sc.meta[seg].kind, sc.meta[seg].data, sc.meta[seg].n, &spans, &cap_spans)
                toks = sc.toks.items + sc.offsets[seg]
                n_tok = sc.offsets[seg + 1] - sc.offsets[seg]
                base = P.tok_at[r]
                q = 0
                for j in range(n_tok):
                    s = toks[j].start
                    e = s + toks[j].length
                    while q < m and spans[2 * q + 1] <= s:
                        q += 1
                    if q == m:
                        break
                    if spans[2 * q] >= e:
                        continue  # before the next word
                    if s < spans[2 * q] or e > spans[2 * q + 1]:
                        return False
                    _grow(<void**> &out, &cap_ids, w + P.term_at[base + j + 1] - P.term_at[base + j] + 1,
                          sizeof(int32_t))
                    for a in range(P.term_at[base + j], P.term_at[base + j + 1]):
                        out[w] = P.ids[a]
                        w += 1
            off[k + 1] = w
        nid[0] = out
        noff[0] = off
        out = NULL
        off = NULL
        return True
    finally:
        free(spans); free(out); free(off)


cdef void _init_pairs(_Pairs* P) noexcept:
    P.c = P.n_cand = P.n_which = P.total = P.n_bad = 0
    P.cand = P.which = P.rows = P.top_offsets = P.offsets = NULL
    P.ids = P.bad = NULL
    P.tok_at = P.term_at = NULL


cdef void _free_pairs(_Pairs* P) noexcept:
    free(P.cand); free(P.which); free(P.rows); free(P.top_offsets); free(P.ids); free(P.offsets); free(P.bad)
    free(P.tok_at); free(P.term_at)
    _init_pairs(P)


cdef class TermMemo:
    """What each raw token a page used means as index terms, remembered across pages, and the page index built
    from it: ``index(texts, prefixes, vocab, analyse)``.

    Why compiled: a page repeats its words and a site repeats its pages, so after the first pages almost every
    token is known; looking tokens up by their characters here, and writing the term ids of every occurrence here,
    leaves Python only the tokens it has never seen (``analyse``) and the page's new terms. Without it the
    scorer made a Python object, a dictionary lookup and a list entry per distinct token, three times a page.

    Entries are kept until there are ``max_entries`` of them when a call starts; the memo then starts afresh
    (clearing only costs the work again: the result never depends on what was remembered).
    """

    cdef _Vocab known            # (token, simple) -> entry index
    cdef int64_t* ent_start      # entry e's terms: ent_terms[ent_start[e]:ent_start[e + 1]]
    cdef Py_ssize_t ent_cap
    cdef int32_t* ent_terms      # term ids (indices into names)
    cdef uint64_t* ent_checks    # per term: the prefix key a filtered call checks, 0 for none
    cdef Py_ssize_t n_terms, terms_cap
    cdef list names              # term id -> term
    cdef dict term_ids           # term -> term id
    cdef int32_t* page_of        # term id -> page id during ``index`` (-1 otherwise)
    cdef Py_ssize_t page_of_cap
    cdef readonly Py_ssize_t max_entries
    cdef bint busy               # inside ``index`` (``analyse`` must not call back into this memo)

    def __cinit__(self, Py_ssize_t max_entries):
        if max_entries < 1:
            raise ValueError("max_entries must be >= 1")
        self.max_entries = max_entries
        memset_vocab(&self.known)
        self.ent_start = NULL
        self.ent_terms = NULL
        self.ent_checks = NULL
        self.page_of = NULL
        self._reset()

    def __dealloc__(self):
        _free_vocab(&self.known)
        free(self.ent_start); free(self.ent_terms); free(self.ent_checks); free(self.page_of)

    cdef int _reset(self) except -1:
        _free_vocab(&self.known)
        _rehash(&self.known)
        free(self.ent_start); free(self.ent_terms); free(self.ent_checks); free(self.page_of)
        self.ent_start = <int64_t*> malloc(sizeof(int64_t))
        if self.ent_start == NULL:
            raise MemoryError()
        self.ent_start[0] = 0
        self.ent_cap = 1
        self.ent_terms = NULL
        self.ent_checks = NULL
        self.n_terms = 0
        self.terms_cap = 0
        self.page_of = NULL
        self.page_of_cap = 0
        self.names = [""]
        self.term_ids = {"": 0}
        return 0

    def __len__(self):
        """How many tokens are remembered."""
        return self.known.n

    def term_ids_of(self, terms):
        """The id of each term in the numbering ``terms`` uses (-1 for a term not met yet): for a caller that
        holds terms as strings and must compare them with ``terms``' ids."""
        return [self.term_ids.get(term, -1) for term in terms]

    def terms(self, texts, analyse, which=None):
        """Every text's terms in CSR form as ids of this memo's own numbering: ``(ids, offsets, names)``, with
        ``names[ids[i]]`` the term ("" for none) and ``texts[t]``'s terms at ``ids[offsets[t]:offsets[t + 1]]``.

        Why: a caller that compares the term sets of a few texts (the bridges: headings against the best
        segments) needs neither a page numbering nor every term's name; ``index`` builds both. Tokens are all
        analysed (no prefix filter), as by ``index(texts, None, ...)``; ``names`` is the memo's list at the time
        (it only grows until the memo starts afresh, which replaces it), so its ids stay valid with it.
        ``texts`` may be a ``Scan`` of them; ``which`` (indices into the texts) takes only those texts, in that
        order (the k-th taken at ``ids[offsets[k]:offsets[k + 1]]``).
        """
        cdef Scan sc = _as_scan(texts)
        cdef Py_ssize_t n_texts
        cdef Py_ssize_t* picked = _which(sc, which, &n_texts)
        cdef int32_t* ids = NULL
        try:
            offsets_arr = _ZEROS(n_texts + 1, _I64)
            ids = self._read_terms(sc, picked, n_texts, analyse, <long long*> _data(offsets_arr), NULL, NULL)
            return _copy_array(ids, offsets_arr[n_texts], _I32), offsets_arr, self.names
        finally:
            free(ids); free(picked)

    cdef int32_t* _read_terms(self, Scan sc, const Py_ssize_t* picked, Py_ssize_t n_texts, analyse,
                              long long* offsets, long long** tok_at, long long** term_at) except NULL:
        """The terms of the scanned texts ``picked[:n_texts]`` (NULL: all) as ids of this memo's numbering, every
        token analysed (no prefix filter): a new array of them (the caller frees it), text k's at
        ``[offsets[k]:offsets[k + 1]]`` (``offsets``: room for ``n_texts + 1``). For ``terms`` and the bridges.
        With ``tok_at`` and ``term_at`` (both or neither; new arrays the caller frees): text k's occurrences are
        ``tok_at[0][k]`` on (its scanned occurrences in order), occurrence i's terms at
        ``[term_at[0][i]:term_at[0][i + 1]]``."""
        cdef Py_ssize_t i, d, e, w = 0, total = 0
        cdef long long* at = NULL
        cdef _Vocab page
        cdef _Out out
        cdef int32_t* entry = NULL
        cdef int32_t* ids = NULL
        cdef long long* tok_offsets = <long long*> calloc(n_texts + 1, sizeof(long long))
        if tok_offsets == NULL:
            raise MemoryError()
        memset_vocab(&page)
        out = _no_out()
        try:
            self._enter()
            self.busy = True
            try:
                entry = self._take_resolved(sc, picked, n_texts, NULL, &page, &out, tok_offsets, analyse)
            finally:
                self.busy = False
            for i in range(out.n):
                e = entry[out.ids[i]]
                total += self.ent_start[e + 1] - self.ent_start[e]
            ids = <int32_t*> malloc((total + 1) * sizeof(int32_t))
            if term_at != NULL:
                at = <long long*> malloc((out.n + 1) * sizeof(long long))
            if ids == NULL or (term_at != NULL and at == NULL):
                free(ids)
                raise MemoryError()
            with nogil:
                offsets[0] = 0
                for d in range(n_texts):
                    for i in range(tok_offsets[d], tok_offsets[d + 1]):
                        if at != NULL:
                            at[i] = w
                        e = entry[out.ids[i]]
                        w += _copy_terms(ids + w, self.ent_terms + self.ent_start[e],
                                         self.ent_start[e + 1] - self.ent_start[e])
                    offsets[d + 1] = w
                if at != NULL:
                    at[out.n] = w
            if term_at != NULL:
                term_at[0] = at
                tok_at[0] = tok_offsets
                at = tok_offsets = NULL
            return ids
        finally:
            free(tok_offsets); free(entry); free(out.ids); free(at)
            _free_vocab(&page)

    def bridge_credits(self, texts, analyse, const double[::1] raw, heads, const long long[::1] up, groups,
                       asked, Py_ssize_t top_n, double min_share, double name_bridge, double name_section,
                       filter_of):
        """The bridges' credits (``qatbe.score.bm25.bridge_credits`` says what they are), ``{heading: credit}``,
        in one call: ``bridge_rows``, this memo's ``terms`` of the rows it reads, ``bridge_shares`` (with the ids
        of "" and the question's terms ``asked`` as the words no heading's new words are), the best segments'
        capitalised words (``capitalised_words`` of each naming best segment's parts, their ``terms``: read off
        the rows' terms where they can be, ``_names_in_rows``) and the headings' section sizes unless
        ``name_bridge`` is 1, ``bridge_best``, then which segments hold the
        credited headings' new words (``holds``, read through the prefix filter ``filter_of(words)`` returns:
        ``(prefixes, fold)``) and ``bridge_mentions`` with ``min_share`` of each heading's new words needed.

        Why one call: between those nine calls, the arrays, lists and typed memoryviews passed cost as much as the
        work; as one call, the bridges took 69 µs instead of 101-104 at the median page of the speed bench that
        they credit, 9 instead of 15-16 where they find no pair. Each step's core stays behind its checked entry
        point (``bridge_rows`` ...), which the tests hold to its definition."""
        cdef Scan sc = _as_scan(texts)
        cdef _Pairs P
        cdef list rows_k = [], rows_t = [], shares = [], out_k = [], naming, strs, words, names
        cdef Py_ssize_t n = raw.shape[0], n_pairs, n_named = 0, n_heads = 0, i, k, t, x, n_credited, w
        cdef long long* rk = NULL
        cdef long long* rt = NULL
        cdef double* sh = NULL
        cdef double* values = NULL
        cdef double* best = NULL
        cdef long long* nof = NULL
        cdef long long* sizes = NULL
        cdef long long* head_idx = NULL
        cdef int32_t* head_words = NULL
        cdef long long* head_offsets = NULL
        cdef double* need = NULL
        cdef long long* head_at = NULL
        cdef unsigned char* skip = NULL
        cdef long long* counts = NULL
        cdef int32_t* named_ids = NULL
        cdef int32_t* word_ids = NULL
        cdef int32_t* new_ids = NULL
        cdef Py_ssize_t n_words = 0, q
        cdef long long* named_offsets = NULL
        cdef const int32_t* named_at = NULL
        cdef const long long* named_off_at = NULL
        cdef dict credit = {}
        _init_pairs(&P)
        try:
            if not self._find_pairs(sc, analyse, raw, heads, up, groups, ["", *sorted(asked)], top_n, min_share,
                                    name_bridge != 1.0, &P, rows_k, rows_t, shares):
                return credit
            names = self.names  # the numbering of P.ids, whatever a later read does to the memo
            n_pairs = len(rows_k)
            rk = <long long*> malloc((n_pairs + 1) * sizeof(long long))
            rt = <long long*> malloc((n_pairs + 1) * sizeof(long long))
            sh = <double*> malloc((n_pairs + 1) * sizeof(double))
            values = <double*> malloc((P.c + 1) * sizeof(double))
            best = <double*> calloc(P.n_cand + 1, sizeof(double))
            if rk == NULL or rt == NULL or sh == NULL or values == NULL or best == NULL:
                raise MemoryError()
            for i in range(n_pairs):
                rk[i] = rows_k[i]
                rt[i] = rows_t[i]
                sh[i] = shares[i]
            for t in range(P.c):
                values[t] = raw[P.best_i[t]]
            if name_bridge != 1.0:
                # a mention written as a name: each naming best segment's (with its parts) capitalised words
                naming = sorted(set(rows_t))
                if _names_in_rows(sc, &P, naming, &named_ids, &named_offsets):
                    named_at, named_off_at = named_ids, named_offsets
                else:  # an occurrence crosses a word's edge: the words as strings, read again
                    strs = []
                    for t in naming:
                        strs.append(capitalised_words(" ".join([
                            sc.items[P.which[P.rows[x]]] for x in range(P.top_offsets[t], P.top_offsets[t + 1])])))
                    named_arr, named_offsets_arr, named_names = self.terms(strs, analyse)
                    if named_names is not names:  # the memo started afresh: the names in the numbering of P.ids
                        number = {term: i for i, term in enumerate(names)}
                        named_arr = _ARRAY([number.get(named_names[x], -1) for x in named_arr.tolist()], _I32)
                    named_at = <const int32_t*> _data(named_arr)
                    named_off_at = <const long long*> _data(named_offsets_arr)
                n_named = len(naming)
                nof = <long long*> malloc((P.c + 1) * sizeof(long long))
                sizes = <long long*> calloc(n + 1, sizeof(long long))
                if nof == NULL or sizes == NULL:
                    raise MemoryError()
                for t in range(P.c):
                    nof[t] = -1
                for i in range(n_named):
                    nof[<Py_ssize_t> naming[i]] = i
                head_idx = _heads_array(heads, n, &n_heads)
                _sizes_core(head_idx, n_heads, &up[0], n, sizes)
            _best_core(P.ids, P.total, P.offsets, P.bad, P.n_bad, rk, rt, sh, n_pairs, values, named_at,
                       named_off_at, n_named, nof, sizes, P.cand, name_bridge, name_section, min_share, out_k, best)
            n_credited = len(out_k)
            if not n_credited:
                return credit
            # How many segments mention each credited heading: which of its new words (``_new_ids``) each segment
            # holds. The words are numbered in order of first appearance, as term ids; only the filter and holds
            # read them as strings.
            w = 0
            for k in out_k:
                w += P.offsets[k + 1] - P.offsets[k]
            head_words = <int32_t*> malloc((w + 1) * sizeof(int32_t))
            word_ids = <int32_t*> malloc((w + 1) * sizeof(int32_t))
            new_ids = <int32_t*> malloc((w + 1) * sizeof(int32_t))
            head_offsets = <long long*> malloc((n_credited + 1) * sizeof(long long))
            need = <double*> malloc((n_credited + 1) * sizeof(double))
            head_at = <long long*> malloc((n_credited + 1) * sizeof(long long))
            skip = <unsigned char*> calloc(n + 1, sizeof(unsigned char))
            counts = <long long*> calloc(n_credited + 1, sizeof(long long))
            if (head_words == NULL or word_ids == NULL or new_ids == NULL or head_offsets == NULL or need == NULL or head_at == NULL
                    or skip == NULL or counts == NULL):
                raise MemoryError()
            w = 0
            head_offsets[0] = 0
            for i in range(n_credited):
                k = out_k[i]
                for x in range(_new_ids(P.ids, P.offsets, k, P.bad, P.n_bad, new_ids)):
                    q = 0
                    while q < n_words and word_ids[q] != new_ids[x]:
                        q += 1
                    if q == n_words:
                        word_ids[n_words] = new_ids[x]
                        n_words += 1
                    head_words[w] = <int32_t> q
                    w += 1
                head_offsets[i + 1] = w
                need[i] = min_share * (w - head_offsets[i])
                head_at[i] = P.cand[k]
            words = [names[word_ids[q]] for q in range(n_words)]
            prefixes, fold = filter_of(words)
            held_arr, held_offsets_arr = self.holds(sc, prefixes, words, analyse, fold)
            if head_idx == NULL:
                head_idx = _heads_array(heads, n, &n_heads)
            for i in range(n_heads):
                skip[head_idx[i]] = 1  # the headings themselves mention nothing
            _mentions_core(<const int32_t*> _data(held_arr), <const long long*> _data(held_offsets_arr), n,
                           n_words, head_words, head_offsets, n_credited, need, head_at, &up[0], skip, counts)
            for i in range(n_credited):
                credit[head_at[i]] = best[<Py_ssize_t> out_k[i]] / max(1, counts[i])
            return credit
        finally:
            _free_pairs(&P)
            free(rk); free(rt); free(sh); free(values); free(best); free(nof); free(sizes); free(head_idx)
            free(head_words); free(head_offsets); free(need); free(head_at); free(skip); free(counts)
            free(named_ids); free(named_offsets); free(word_ids); free(new_ids)

    cdef bint _find_pairs(self, Scan sc, analyse, const double[::1] raw, heads, const long long[::1] up, groups,
                          list bad_terms, Py_ssize_t top_n, double min_share, bint positions, _Pairs* P,
                          list rows_k, list rows_t, list shares) except -1:
        """``bridge_credits``' first steps, into ``P`` (the caller frees it) and the three pair lists: whether any
        best segment names a candidate heading. ``positions``: with the rows' occurrences (``P.tok_at``,
        ``P.term_at``), for the names."""
        cdef Py_ssize_t n = raw.shape[0], k
        cdef Py_ssize_t* picked = NULL
        cdef long long* n_new = NULL
        cdef list group_list, bad_ids
        P.cand = _top_and_candidates(raw, heads, up, top_n, P.best_i, &P.c, &P.n_cand)
        try:
            group_list = _group_list(groups, n)
            if not P.n_cand:
                return False
            if len(sc.items) != n:
                raise ValueError("texts need one entry per segment")
            P.which = <long long*> malloc((P.n_cand + 3 * P.c + 1) * sizeof(long long))
            P.rows = <long long*> malloc((3 * P.c + 1) * sizeof(long long))
            P.top_offsets = <long long*> malloc((P.c + 1) * sizeof(long long))
            picked = <Py_ssize_t*> malloc((P.n_cand + 3 * P.c + 1) * sizeof(Py_ssize_t))
            P.offsets = <long long*> malloc((P.n_cand + 3 * P.c + 1) * sizeof(long long))
            n_new = <long long*> malloc((P.n_cand + 1) * sizeof(long long))
            if (P.which == NULL or P.rows == NULL or P.top_offsets == NULL or picked == NULL or P.offsets == NULL
                    or n_new == NULL):
                raise MemoryError()
            P.n_which = _bridge_parts(P.best_i, P.c, group_list, n, P.cand, P.n_cand, P.top_offsets, P.which,
                                      P.rows)
            for k in range(P.n_which):
                picked[k] = P.which[k]
            # the rows' terms, as ``terms(texts, analyse, which)`` reads them
            P.ids = self._read_terms(sc, picked, P.n_which, analyse, P.offsets, &P.tok_at if positions else NULL,
                                     &P.term_at if positions else NULL)
            P.total = P.offsets[P.n_which]
            bad_ids = self.term_ids_of(bad_terms)
            P.n_bad = len(bad_ids)
            P.bad = <int32_t*> malloc((P.n_bad + 1) * sizeof(int32_t))
            if P.bad == NULL:
                raise MemoryError()
            for k in range(P.n_bad):
                P.bad[k] = <int32_t> bad_ids[k]
            qsort(P.bad, P.n_bad, sizeof(int32_t), _cmp_int32)  # increasing, for _new_ids
            _shares_core(P.ids, P.total, P.offsets, P.n_cand, P.bad, P.n_bad, P.rows, P.top_offsets, P.c, P.cand,
                         P.best_i, &up[0], n, min_share, n_new, rows_k, rows_t, shares)
            return len(rows_k) > 0
        finally:
            free(picked); free(n_new)

    def index(self, texts, prefixes, dict vocab, analyse, fold=None):
        """Term ids of every text in CSR form, ``(ids, offsets, lengths, new_terms)``.

        The texts are tokenized as by ``tokenize(texts, prefixes)``; a token the prefixes rule out becomes one
        position of the term "". ``analyse(tokens, simple)`` is called once with the tokens not remembered yet
        (their text and simple flags, as ``tokenize`` gives them) and must return, for each, ``(terms, checks)``:
        its index terms ("" for none) and, per term, ``None`` or the 1- or 2-character prefix the term's
        surface must have when ``prefixes`` is given (the term counts as "" otherwise). ``vocab`` maps terms to
        page ids; the terms it lacks get ids from ``len(vocab)`` on in order of first appearance and are returned
        as ``new_terms`` in that order (the caller adds them). ``lengths[t]`` is text t's number of raw tokens.
        ``texts`` may be a ``Scan`` of them (``scan``): the tokens are then not found again. ``fold``: as for
        ``tokenize``.
        """
        return self._read_index(texts, prefixes, vocab, analyse, fold, False)

    def index_sparse(self, texts, prefixes, dict vocab, analyse, fold=None):
        """``index`` without the term "": ``(ids, positions, offsets, lengths, new_terms)``, where ``ids`` are the
        ids ``index`` gives but those of "" (stopwords, the tokens the prefixes rule out), ``positions[i]`` the
        place ``index`` gives ``ids[i]`` in its text's terms, and "" is never a new term (``vocab`` should hold it
        for the ids to be ``index``'s).

        Why: nine terms in ten of a page read through the query's prefix filter are "", and the scorer only counts
        the others (``page_scores`` takes the positions for the proximity of two query words). Writing every
        position was a third of the index's time, and the page scores' loops read them all again."""
        return self._read_index(texts, prefixes, vocab, analyse, fold, True)

    cdef tuple _read_index(self, texts, prefixes, dict vocab, analyse, fold, bint sparse):
        """``index``, or (``sparse``) ``index_sparse``: the page taken through the prefixes, looked up, written."""
        cdef Scan sc = _as_scan(texts)
        cdef const _Prefixes* use = NULL
        cdef Py_ssize_t n_texts = len(sc.items)
        cdef const uint32_t[::1] fold_view = _fold_table(fold)
        _check_vocab(vocab)
        self._enter()
        cdef _Vocab page
        cdef _Out out
        cdef int32_t* entry = NULL
        cdef int32_t* at = NULL
        cdef _Prefixes pre
        cdef uint64_t* key_array = _begin(prefixes, fold_view, &pre, &page, &out)
        if prefixes is not None:
            use = &pre
        tok_offsets_arr = _ZEROS(n_texts + 1, _I64)
        cdef long long* tok_offsets = <long long*> _data(tok_offsets_arr)
        self.busy = True
        try:
            if not sparse:
                entry = self._take_resolved(sc, NULL, 0, use, &page, &out, tok_offsets, analyse)
                return self._write(&page, &out, entry, tok_offsets_arr, vocab, use)
            at = <int32_t*> malloc((sc.offsets[n_texts] + 1) * sizeof(int32_t))
            if at == NULL:
                raise MemoryError()
            # only the occurrences the filter keeps, each with its index among its text's tokens
            entry = self._take_resolved(sc, NULL, 0, use, &page, &out, tok_offsets, analyse, False, at)
            return self._write_sparse(sc, &page, &out, at, entry, tok_offsets, vocab, use)
        finally:
            self.busy = False
            free(entry); free(at); free(key_array); free(out.ids)
            _free_vocab(&page)

    def holds(self, texts, prefixes, words, analyse, fold=None):
        """Which of ``words`` each text holds, ``(ids, offsets)``: text t's at ``ids[offsets[t]:offsets[t + 1]]``,
        as indices into ``words``, increasing, each once. The same sets as ``index(texts, prefixes, vocab,
        analyse, fold)`` with ``vocab`` numbering ``words`` from 0 gives (its ids below ``len(words)``), the
        prefix filter and the checks included.

        Why: a caller that only asks whether a text holds a few terms (the bridges' mention count) needs neither
        a page numbering nor an id per position; without them the pass over a page costs a third to a half less.
        """
        cdef Scan sc = _as_scan(texts)
        cdef bint filtered = prefixes is not None
        cdef Py_ssize_t n_texts = len(sc.items), n_words, j, k, i, d, e, w = 0
        cdef const uint32_t[::1] fold_view = _fold_table(fold)
        cdef list word_list = list(words)
        n_words = len(word_list)
        for term in word_list:
            if not isinstance(term, str) or not term:
                raise ValueError("words must be non-empty str terms")
        if len(set(word_list)) != n_words:
            raise ValueError("words must be distinct")
        self._enter()
        cdef _Vocab page
        cdef _Out out
        cdef int32_t* entry = NULL
        cdef int32_t* first = NULL   # page token j's words: held[first[j]:first[j + 1]]
        cdef int32_t* held = NULL
        cdef Py_ssize_t* stamp = NULL  # per word: 1 + the last text that took it
        cdef int32_t tid, pid, x
        cdef uint64_t check
        cdef Py_ssize_t total = 0, a
        cdef int32_t* ids
        cdef long long* offsets
        cdef _Prefixes pre
        cdef uint64_t* key_array = _begin(prefixes, fold_view, &pre, &page, &out)
        cdef const _Prefixes* use = &pre if filtered else NULL
        cdef list preset = []
        tok_offsets_arr = _ZEROS(n_texts + 1, _I64)
        cdef long long* tok_offsets = <long long*> _data(tok_offsets_arr)
        self.busy = True
        try:
            # only the occurrences the filter keeps: the others hold no word
            entry = self._take_resolved(sc, NULL, 0, use, &page, &out, tok_offsets, analyse, False)
            first = <int32_t*> malloc((page.n + 1) * sizeof(int32_t))
            stamp = <Py_ssize_t*> calloc(n_words + 1, sizeof(Py_ssize_t))
            if first == NULL or stamp == NULL:
                raise MemoryError()
            preset = self._preset(zip(word_list, range(n_words)))
            # Each page token's words once (a token's terms may repeat a word), then each text's, once each.
            for j in range(page.n):
                total += self.ent_start[entry[j] + 1] - self.ent_start[entry[j]]
            held = <int32_t*> malloc((total + 1) * sizeof(int32_t))
            total = 0
            if held == NULL:
                raise MemoryError()
            with nogil:
                first[0] = 0
                for j in range(page.n):
                    first[j + 1] = first[j]
                    e = entry[j]
                    for k in range(self.ent_start[e], self.ent_start[e + 1]):
                        tid = self.ent_terms[k]
                        check = self.ent_checks[k]
                        if use != NULL and check != 0 and not _key_in(use, check):
                            continue
                        pid = self.page_of[tid]
                        if pid >= 0:
                            held[first[j + 1]] = pid
                            first[j + 1] += 1
            # Room for every word in every text (untouched memory costs nothing), when any token holds one; on
            # a page too large for that, for every occurrence of a token that holds one.
            if first[page.n]:
                total = n_words * n_texts
                if total > (1 << 20):
                    total = 0
                    for i in range(out.n):
                        total += first[out.ids[i] + 1] - first[out.ids[i]]
            bound_arr, offsets_arr = _csr_out(total, n_texts)
            ids = <int32_t*> _data(bound_arr) if total else NULL
            offsets = <long long*> _data(offsets_arr)
            with nogil:
                for d in range(n_texts):
                    for i in range(tok_offsets[d], tok_offsets[d + 1]):
                        j = out.ids[i]
                        for k in range(first[j], first[j + 1]):
                            if stamp[held[k]] != d + 1:
                                stamp[held[k]] = d + 1
                                # in order: an insertion into the text's few words so far
                                x = held[k]
                                a = w
                                while a > offsets[d] and ids[a - 1] > x:
                                    ids[a] = ids[a - 1]
                                    a -= 1
                                ids[a] = x
                                w += 1
                    offsets[d + 1] = w
            return bound_arr[:w].copy() if w < total else bound_arr, offsets_arr
        finally:
            self.busy = False
            self._unset(preset)
            free(entry); free(first); free(held); free(stamp); free(key_array); free(out.ids)
            _free_vocab(&page)

    cdef int32_t* _take_resolved(self, Scan sc, const Py_ssize_t* which, Py_ssize_t n_which,
                                 const _Prefixes* prefixes, _Vocab* page, _Out* out, long long* tok_offsets,
                                 analyse, bint keep_out=True, int32_t* at=NULL) except NULL:
        """The tokens of the texts ``which[:n_which]`` (NULL: all) taken through ``prefixes`` (NULL: all) into
        ``page`` and ``out`` (``_take_texts``), then looked up in the memo: ``entry[j]`` is page token j's entry
        (the caller frees it), after ``analyse`` has told the tokens not remembered yet."""
        _take_texts(sc, which, n_which, prefixes, page, out, tok_offsets, keep_out, at)
        cdef int32_t* entry = <int32_t*> malloc((page.n + 1) * sizeof(int32_t))
        if entry == NULL:
            raise MemoryError()
        try:
            self._resolve(page, entry, analyse)
        except BaseException:
            free(entry)
            raise
        return entry

    cdef list _preset(self, pairs):
        """``page_of`` long enough for every term id (new slots -1), then each known term of ``pairs`` (term, page
        id) given its page id; the term ids set, for ``_unset``. The room is made when called: ``_enter`` may
        have started the memo afresh since the call began."""
        cdef Py_ssize_t n_names = len(self.names), cap = self.page_of_cap, i
        cdef list preset = []
        if n_names > cap:
            _grow(<void**> &self.page_of, &cap, n_names, sizeof(int32_t))
            for i in range(self.page_of_cap, cap):
                self.page_of[i] = -1
            self.page_of_cap = cap
        for term, pid_obj in pairs:
            tid_obj = self.term_ids.get(term)
            if tid_obj is not None:
                self.page_of[<Py_ssize_t> tid_obj] = <int32_t> pid_obj
                preset.append(tid_obj)
        return preset

    cdef int _unset(self, list preset) except -1:
        """``page_of`` back to -1 for the term ids ``_preset`` set."""
        for tid_obj in preset:
            self.page_of[<Py_ssize_t> tid_obj] = -1
        return 0

    cdef int _enter(self) except -1:
        """Before a call's work: refuse re-entry (``analyse`` calling back in), start afresh when full."""
        if self.busy:
            raise RuntimeError("TermMemo.index is not re-entrant (analyse called back into the same memo)")
        if self.known.n >= self.max_entries:
            self._reset()
        return 0

    cdef int _resolve(self, _Vocab* page, int32_t* entry, analyse) except -1:
        """``entry[j]``: the memo entry of page token j, after ``analyse`` has told the ones not remembered."""
        cdef Py_ssize_t j, k
        cdef list missing = []
        for j in range(page.n):
            entry[j] = _lookup(&self.known, page.chars + page.start[j], page.length[j], page.simple[j])
            if entry[j] < 0:
                missing.append(j)
        if not missing:
            return 0
        tokens = [PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, page.chars + page.start[j], page.length[j])
                  for j in missing]
        flags = bytes([page.simple[j] for j in missing])
        told = list(analyse(tokens, flags))
        if len(told) != len(missing):
            raise ValueError("analyse must return one (terms, checks) pair per token")
        for k in range(len(missing)):
            j = missing[k]
            entry[j] = self._learn(page.chars + page.start[j], page.length[j], page.simple[j], told[k])
        return 0

    cdef int32_t _learn(self, const uint32_t* key, Py_ssize_t length, bint simple, told) except -1:
        """Remember one token's terms and checks; its entry index."""
        terms, checks = told
        terms = tuple(terms)
        checks = tuple(checks)
        cdef Py_ssize_t n = len(terms), k, e = self.known.n
        if len(checks) != n:
            raise ValueError("terms and checks must have the same length")
        ids = []
        cdef list keys = []
        for k in range(n):
            term = terms[k]
            if not isinstance(term, str):
                raise TypeError(f"terms must be str, not {type(term).__name__}")
            keys.append(0 if checks[k] is None else _key_of(checks[k]))
            tid = self.term_ids.get(term)
            if tid is None:
                tid = len(self.names)
                self.names.append(term)
                self.term_ids[term] = tid
            ids.append(tid)
        if e + 2 > self.ent_cap:
            _grow(<void**> &self.ent_start, &self.ent_cap, e + 2, sizeof(int64_t))
        if self.n_terms + n > self.terms_cap:
            k = self.terms_cap
            _grow(<void**> &self.ent_terms, &k, self.n_terms + n, sizeof(int32_t))
            _grow(<void**> &self.ent_checks, &self.terms_cap, self.n_terms + n, sizeof(uint64_t))
        for k in range(n):
            self.ent_terms[self.n_terms + k] = <int32_t> ids[k]
            self.ent_checks[self.n_terms + k] = <uint64_t> keys[k]
        self.n_terms += n
        self.ent_start[e + 1] = self.n_terms
        _intern(&self.known, key, length, simple)
        return <int32_t> e

    cdef int _page_terms(self, const _Vocab* page, const _Out* out, const int32_t* entry, const _Prefixes* pre,
                         bint sparse, int32_t next_id, int32_t* start, int32_t** ptids, int32_t* kept,
                         _Out* fresh) except -1:
        """The page ids of each page token's terms, once a token, not once an occurrence: ``start[j]`` (room for
        ``page.n + 1``) where token j's are in ``ptids[0]`` (made here; the caller frees it). A term the prefixes
        rule out is ""; with ``sparse``, "" is -1 and ``kept[j]`` (zeroed) counts token j's others. The tokens are
        taken in order of first occurrence in ``out``, so that a term ``page_of`` lacks is numbered, from
        ``next_id``, in order of first appearance; its term id goes to ``fresh``."""
        cdef Py_ssize_t n_tok = page.n, i, k, j, e, m = 0
        cdef int32_t tid, pid
        cdef uint64_t check
        cdef int32_t* ids
        cdef int32_t* order = <int32_t*> malloc((n_tok + 1) * sizeof(int32_t))
        cdef uint8_t* met = <uint8_t*> calloc(n_tok + 1, sizeof(uint8_t))
        try:
            if order == NULL or met == NULL:
                raise MemoryError()
            start[0] = 0
            for j in range(n_tok):
                e = entry[j]
                start[j + 1] = start[j] + <int32_t> (self.ent_start[e + 1] - self.ent_start[e])
            ids = ptids[0] = <int32_t*> malloc((start[n_tok] + 1) * sizeof(int32_t))
            if ids == NULL:
                raise MemoryError()
            with nogil:
                for i in range(out.n):
                    j = out.ids[i]
                    if not met[j]:
                        met[j] = 1
                        order[m] = <int32_t> j
                        m += 1
                for i in range(m):
                    j = order[i]
                    e = entry[j]
                    for k in range(self.ent_start[e], self.ent_start[e + 1]):
                        tid = self.ent_terms[k]
                        check = self.ent_checks[k]
                        if pre != NULL and check != 0 and not _key_in(pre, check):
                            tid = 0
                        if sparse and tid == 0:
                            pid = -1
                        else:
                            pid = self.page_of[tid]
                            if pid < 0:
                                pid = next_id
                                next_id += 1
                                self.page_of[tid] = pid
                                _emit(fresh, tid)
                            if sparse:
                                kept[j] += 1
                        ids[start[j] + k - self.ent_start[e]] = pid
            return 0
        finally:
            free(order); free(met)

    cdef tuple _write(self, const _Vocab* page, const _Out* out, const int32_t* entry, tok_offsets_arr,
                      dict vocab, const _Prefixes* pre):
        """Every position's term ids over ``vocab`` (see ``index``)."""
        cdef Py_ssize_t n_texts = tok_offsets_arr.shape[0] - 1, n_tok = page.n
        cdef Py_ssize_t i, d, j, total = 0, w = 0
        cdef int32_t* start = NULL  # page token j's page ids: ptids[start[j]:start[j + 1]]
        cdef int32_t* ptids = NULL
        cdef int32_t* ids
        cdef long long* offsets
        cdef double* lengths
        cdef long long[::1] tok_offsets = tok_offsets_arr
        cdef list preset = self._preset(vocab.items())
        cdef _Out fresh = _no_out()
        try:
            start = <int32_t*> malloc((n_tok + 1) * sizeof(int32_t))
            if start == NULL:
                raise MemoryError()
            self._page_terms(page, out, entry, pre, False, <int32_t> len(vocab), start, &ptids, NULL, &fresh)
            for i in range(out.n):
                j = out.ids[i]
                total += start[j + 1] - start[j]
            ids_arr, offsets_arr = _csr_out(total, n_texts)
            lengths_arr = _EMPTY(n_texts, _F64)
            ids = <int32_t*> _data(ids_arr) if total else NULL
            offsets = <long long*> _data(offsets_arr)
            lengths = <double*> _data(lengths_arr) if n_texts else NULL
            with nogil:
                for d in range(n_texts):
                    for i in range(tok_offsets[d], tok_offsets[d + 1]):
                        j = out.ids[i]
                        w += _copy_terms(ids + w, ptids + start[j], start[j + 1] - start[j])
                    offsets[d + 1] = w
                    lengths[d] = <double> (tok_offsets[d + 1] - tok_offsets[d])
            new_terms = [self.names[fresh.ids[i]] for i in range(fresh.n)]
        finally:
            for i in range(fresh.n):
                self.page_of[fresh.ids[i]] = -1
            self._unset(preset)
            free(fresh.ids); free(start); free(ptids)
        return ids_arr, offsets_arr, lengths_arr, new_terms

    cdef tuple _write_sparse(self, Scan sc, const _Vocab* page, const _Out* out, const int32_t* at,
                             const int32_t* entry, const long long* tok_offsets, dict vocab, const _Prefixes* pre):
        """``index_sparse``'s arrays from the occurrences the filter kept (``out``, their token indices ``at``,
        text t's at ``tok_offsets[t]:tok_offsets[t + 1]``). A term's position is what ``_write`` would give it:
        each token before it in its text takes as many places as it has terms, a ruled-out one those of page
        token 0, the empty token that stands for them (one: "")."""
        cdef Py_ssize_t n_texts = sc.n_texts, n_tok = page.n
        cdef Py_ssize_t i, k, d, j, total = 0, w = 0, taken, n_out = 0
        cdef long long dense = 0, base
        cdef int32_t* start = NULL  # page token j's page ids: ptids[start[j]:start[j + 1]] (-1: "")
        cdef int32_t* kept = NULL   # how many of them are not -1
        cdef int32_t* ptids = NULL
        cdef int32_t* ids
        cdef long long* positions
        cdef long long* offsets
        cdef double* lengths
        cdef list preset = self._preset(vocab.items())
        cdef _Out fresh = _no_out()
        try:
            start = <int32_t*> malloc((n_tok + 1) * sizeof(int32_t))
            kept = <int32_t*> calloc(n_tok + 1, sizeof(int32_t))
            if start == NULL or kept == NULL:
                raise MemoryError()
            self._page_terms(page, out, entry, pre, True, <int32_t> len(vocab), start, &ptids, kept, &fresh)
            for i in range(out.n):
                total += kept[out.ids[i]]
            ids_arr, offsets_arr = _csr_out(total, n_texts)
            positions_arr = _EMPTY(total, _I64)
            lengths_arr = _EMPTY(n_texts, _F64)
            ids = <int32_t*> _data(ids_arr) if total else NULL
            positions = <long long*> _data(positions_arr) if total else NULL
            offsets = <long long*> _data(offsets_arr)
            lengths = <double*> _data(lengths_arr) if n_texts else NULL
            if pre != NULL and n_tok:
                n_out = start[1] - start[0]
            with nogil:
                for d in range(n_texts):
                    taken = 0  # the places the kept tokens so far take
                    for i in range(tok_offsets[d], tok_offsets[d + 1]):
                        j = out.ids[i]
                        # at[i] - (i - tok_offsets[d]): the ruled-out tokens before this one
                        base = dense + (at[i] - i + tok_offsets[d]) * n_out + taken
                        if kept[j]:
                            for k in range(start[j], start[j + 1]):
                                if ptids[k] >= 0:
                                    ids[w] = ptids[k]
                                    positions[w] = base + k - start[j]
                                    w += 1
                        taken += start[j + 1] - start[j]
                    offsets[d + 1] = w
                    lengths[d] = <double> (sc.offsets[d + 1] - sc.offsets[d])
                    dense += taken + n_out * (sc.offsets[d + 1] - sc.offsets[d]
                                              - tok_offsets[d + 1] + tok_offsets[d])
            new_terms = [self.names[fresh.ids[i]] for i in range(fresh.n)]
        finally:
            for i in range(fresh.n):
                self.page_of[fresh.ids[i]] = -1
            self._unset(preset)
            free(fresh.ids); free(start); free(kept); free(ptids)
        return ids_arr, positions_arr, offsets_arr, lengths_arr, new_terms


cdef int _check_vocab(dict vocab) except -1:
    """Page ids must be the ints 0 .. len(vocab) - 1 in some order (new terms continue from len(vocab))."""
    cdef Py_ssize_t n = len(vocab)
    cdef set seen = set()
    for term, pid in vocab.items():
        if not isinstance(term, str) or type(pid) is not int or not 0 <= pid < n or pid in seen:
            raise ValueError("vocab must map str terms to distinct ids 0 .. len(vocab) - 1")
        seen.add(pid)
    return 0


# ---------------------------------------------------------------------------------------------------------------
# Letter runs: what language detection reads of a text sample (see ``letter_runs``), and the string table it
# looks all-ASCII words up in (see ``string_table``).


cdef inline uint64_t _fnv(const uint32_t* key, Py_ssize_t length) noexcept nogil:
    cdef uint64_t h = 1469598103934665603ULL
    cdef Py_ssize_t i
    for i in range(length):
        h = (h ^ <uint64_t> key[i]) * 1099511628211ULL
    return h


cdef struct _Table:
    const uint32_t* chars
    const long long* starts
    const long long* values
    const int* slots
    Py_ssize_t mask


# Short ASCII words packed into one integer: 5 bits a letter (a = 1 ... z = 26), so that looking a run of letters
# up is one multiplication and one comparison, computed while the run is read (no hash pass, no memcmp).
cdef enum:
    _PACKED_MAX = 12
cdef uint64_t _GOLDEN = 0x9E3779B97F4A7C15ULL


cdef inline Py_ssize_t _packed_slot(uint64_t key, int shift) noexcept nogil:
    return <Py_ssize_t> ((key * _GOLDEN) >> shift)


def string_table(words, values):
    """A read-only map from strings to ints for ``letter_runs``: a ``StringTable`` of five arrays.

    ``chars[starts[i]:starts[i + 1]]`` are the code points of ``words[i]`` (uint32); ``slots`` is an open-addressing
    table (a power of two, at least twice the words; -1 empty; FNV-1a over the code points, linear probing) of
    word indices. ``packed`` (int64, shape (size, 2), size a power of two >= 8 and >= twice those words) holds the
    words of 1 to 12 letters a-z again as (key, value) rows: key = the letters' codes a = 1 ... z = 26, 5 bits
    each, first letter highest; 0 marks an empty row; the row of a key is its top bits of key x 0x9E3779B97F4A7C15,
    then linear probing. Why arrays: the scan reads them without the GIL, and the caller builds the table once.
    """
    cdef list items = list(words)
    cdef list vals = list(values)
    cdef Py_ssize_t n = len(items), i, j, size = 8, total = 0, short = 0, packed_size = 8
    cdef int shift = 61
    cdef uint64_t key
    if len(vals) != n:
        raise ValueError("words and values must have the same length")
    if len(set(items)) != n:
        raise ValueError("words must be distinct")
    for w in items:
        if not isinstance(w, str):
            raise TypeError(f"string_table expects str words, got {type(w).__name__}")
        total += len(w)
        if _packable(w):
            short += 1
    while size < 2 * n:
        size *= 2
    while packed_size < 2 * short:
        packed_size *= 2
        shift -= 1
    chars_arr = _EMPTY(total, _U32)
    starts_arr = _ZEROS(n + 1, _I64)
    values_arr = np.asarray(vals, dtype=np.int64).reshape(n)
    slots_arr = np.full(size, -1, dtype=np.int32)
    packed_arr = _ZEROS((packed_size, 2), _I64)
    cdef unsigned int[::1] chars = chars_arr
    cdef long long[::1] starts = starts_arr
    cdef int[::1] slots = slots_arr
    cdef long long[:, ::1] packed = packed_arr
    cdef Py_ssize_t at = 0
    for i in range(n):
        for ch in items[i]:
            chars[at] = ord(ch)
            at += 1
        starts[i + 1] = at
        j = <Py_ssize_t> (_fnv(<const uint32_t*> &chars[starts[i]] if at > starts[i] else NULL, at - starts[i])
                          & <uint64_t> (size - 1))
        while slots[j] >= 0:
            j = (j + 1) & (size - 1)
        slots[j] = <int> i
        if _packable(items[i]):
            key = 0
            for ch in items[i]:
                key = (key << 5) | <uint64_t> (ord(ch) - 96)
            j = _packed_slot(key, shift)
            while packed[j, 0]:
                j = (j + 1) & (packed_size - 1)
            packed[j, 0] = <long long> key
            packed[j, 1] = values_arr[i]
    return StringTable(chars_arr, starts_arr, values_arr, slots_arr, packed_arr)


cdef class StringTable:
    """What ``string_table`` builds: its five arrays as read-only attributes (``chars``, ``starts``, ``values``,
    ``slots``, ``packed``), and private copies the scan reads.

    Why an object: a table is built once and read for every page; checking five caller-supplied arrays before
    each scan (a malformed one could make a lookup probe forever) cost more than the scan of a short page.
    Only ``string_table`` makes one, so the copies are well formed by construction.
    """

    cdef readonly object chars, starts, values, slots, packed
    cdef readonly long long limit  # 1 + the largest value (0 for none): a scan's n_votes must be at least this
    cdef _Table table
    cdef long long* rows
    cdef uint64_t rows_mask
    cdef int shift
    cdef void* block

    def __cinit__(self, chars, starts, values, slots, packed):
        cdef const unsigned int[::1] c = chars
        cdef const long long[::1] st = starts
        cdef const long long[::1] v = values
        cdef const int[::1] sl = slots
        cdef const long long[:, ::1] pk = packed
        cdef Py_ssize_t n_chars = c.shape[0], n_words = v.shape[0], n_slots = sl.shape[0], n_rows = pk.shape[0], j
        cdef Py_ssize_t empty = 0
        cdef char* at
        # Checked once here (the scans then trust the copies): a lookup must never run off an array or probe a
        # table without an empty entry forever.
        if st.shape[0] != n_words + 1:
            raise ValueError("starts must hold len(values) + 1 offsets")
        _check_offsets(st, n_chars, "starts", "len(chars)")
        if n_slots < 1 or n_slots & (n_slots - 1) or n_slots < n_words:
            raise ValueError("slots must be a power of two, at least len(values)")
        for j in range(n_words):
            if v[j] < 0:
                raise ValueError("values must be >= 0")
        for j in range(n_slots):
            if sl[j] < -1 or sl[j] >= n_words:
                raise ValueError("slots must hold -1 or a word index")
            empty += sl[j] < 0
        if empty == 0:
            raise ValueError("slots must have an empty entry")
        if pk.shape[1] != 2 or n_rows < 8 or n_rows & (n_rows - 1):
            raise ValueError("packed must have shape (size, 2), size a power of two >= 8")
        empty = 0
        for j in range(n_rows):
            if pk[j, 0] < 0 or pk[j, 1] < 0:
                raise ValueError("packed rows must hold a key >= 0 and a value >= 0")
            empty += pk[j, 0] == 0
        if empty == 0:
            raise ValueError("packed must have an empty row")
        self.block = malloc(n_chars * sizeof(uint32_t) + (n_words + 1 + n_words + 2 * n_rows) * sizeof(long long)
                            + n_slots * sizeof(int) + 64)
        if self.block == NULL:
            raise MemoryError()
        at = <char*> self.block
        self.rows = <long long*> at
        memcpy(self.rows, &pk[0, 0], 2 * n_rows * sizeof(long long))
        at += 2 * n_rows * sizeof(long long)
        self.table.starts = <const long long*> at
        memcpy(at, &st[0], (n_words + 1) * sizeof(long long))
        at += (n_words + 1) * sizeof(long long)
        self.table.values = <const long long*> at
        if n_words:
            memcpy(at, &v[0], n_words * sizeof(long long))
        at += n_words * sizeof(long long)
        self.table.slots = <const int*> at
        memcpy(at, &sl[0], n_slots * sizeof(int))
        at += n_slots * sizeof(int)
        self.table.chars = <const uint32_t*> at
        if n_chars:
            memcpy(at, &c[0], n_chars * sizeof(uint32_t))
        self.table.mask = n_slots - 1
        self.rows_mask = <uint64_t> (n_rows - 1)
        self.shift = 64
        while (<uint64_t> 1) << (64 - self.shift) < <uint64_t> n_rows:
            self.shift -= 1
        self.limit = 0
        for j in range(n_words):
            self.limit = max(self.limit, v[j] + 1)
        for j in range(n_rows):
            if pk[j, 0]:
                self.limit = max(self.limit, pk[j, 1] + 1)
        for a in (chars, starts, values, slots, packed):
            a.flags.writeable = False
        self.chars, self.starts, self.values, self.slots, self.packed = chars, starts, values, slots, packed

    def __dealloc__(self):
        free(self.block)


cdef bint _packable(str w):
    """1 to 12 letters a-z: a word ``string_table`` also packs."""
    if not 1 <= len(w) <= _PACKED_MAX:
        return False
    for ch in w:
        if not "a" <= ch <= "z":
            return False
    return True


cdef inline long long _find(const _Table* t, const uint32_t* key, Py_ssize_t length, uint64_t h) noexcept nogil:
    """The value of ``key`` (whose ``_fnv`` hash is ``h``) in a ``string_table``, or -1."""
    cdef Py_ssize_t j = <Py_ssize_t> (h & <uint64_t> t.mask)
    cdef int w
    while True:
        w = t.slots[j]
        if w < 0:
            return -1
        if (t.starts[w + 1] - t.starts[w] == length
                and (length == 0 or memcmp(t.chars + t.starts[w], key, length * sizeof(uint32_t)) == 0)):
            return t.values[w]
        j = (j + 1) & t.mask


cdef inline bint _is_letter(uint32_t c) noexcept nogil:
    """What ``re``'s ``[^\W\d_]`` matches: alphanumeric but not a decimal digit (and not ``_``)."""
    if c < 128:
        return (65 <= c <= 90) or (97 <= c <= 122)
    return Py_UNICODE_ISALNUM(c) and not Py_UNICODE_ISDECIMAL(c)


# Per ASCII character: its letter code (a/A = 1 ... z/Z = 26), 0 for anything that is not a letter.
cdef uint8_t _LETTER[128]
for _c in range(128):
    _LETTER[_c] = _c - 64 if 65 <= _c <= 90 else _c - 96 if 97 <= _c <= 122 else 0


cdef struct _Part:
    # One text of a language sample: its buffer, how many code points the sample takes, and whether the space
    # joining it to the text before is in the sample.
    const void* data
    Py_ssize_t n
    int kind
    bint space


cdef struct _Runs:
    # What the letter-run scan keeps across the texts of a sample (see ``sample_runs``).
    long long* lo
    long long* hi
    Py_ssize_t k
    long long min_lo
    long long* in_range
    long long letters
    Py_ssize_t words, max_words
    const _Table* table
    const long long* packed
    uint64_t packed_mask
    int shift
    long long* votes
    _Vocab* v
    _Out* out
    uint32_t* buf


cdef inline long long _find_packed(const _Runs* s, uint64_t key) noexcept nogil:
    """The value of a packed key in the ``string_table``'s packed rows, or -1."""
    cdef Py_ssize_t j = _packed_slot(key, s.shift)
    cdef long long found
    while True:
        found = s.packed[2 * j]
        if found == <long long> key:
            return s.packed[2 * j + 1]
        if found == 0:
            return -1
        j = (j + 1) & s.packed_mask


cdef int _end_run(_Runs* s, const _char_t* data, Py_ssize_t start, Py_ssize_t end, uint64_t key, bint ascii
                  ) except -1 nogil:
    """The run data[start:end], one of the first ``max_words``: an all-ASCII run, lower-cased (its casefold),
    votes through the table (by its packed ``key`` when it has at most 12 letters); any other run is interned."""
    cdef Py_ssize_t k, length = end - start
    cdef long long value
    cdef uint64_t h = 1469598103934665603ULL
    cdef uint32_t c
    if ascii and length <= _PACKED_MAX:
        value = _find_packed(s, key)
    elif ascii:
        for k in range(length):  # lower-case and hash in one pass (_fnv of the lower-cased run)
            c = data[start + k]
            if c <= 90:
                c += 32
            s.buf[k] = c
            h = (h ^ <uint64_t> c) * 1099511628211ULL
        value = _find(s.table, s.buf, length, h)
    else:
        for k in range(length):
            s.buf[k] = data[start + k]
        _emit(s.out, _intern(s.v, s.buf, length, False))
        value = -1
    if value >= 0:
        s.votes[value] += 1
    s.words += 1
    return 0


cdef inline void _count_ranges(_Runs* s, uint32_t c) noexcept nogil:
    cdef Py_ssize_t r
    if s.k and c >= s.min_lo:
        for r in range(s.k):
            if s.lo[r] <= c <= s.hi[r]:
                s.in_range[r] += 1


cdef int _runs(_Runs* s, const _char_t* data, Py_ssize_t n) except -1 nogil:
    """One text of the sample (or its first n code points): code points per range, letters, and runs while fewer
    than ``max_words`` were read. An ASCII letter only extends the run's packed key; other code points take the
    slow path (ranges, Unicode classes)."""
    cdef Py_ssize_t i, start = 0
    cdef uint32_t c
    cdef uint8_t code
    cdef uint64_t key = 0
    cdef bint ascii = True, in_run = False
    for i in range(n):
        c = data[i]
        if c < 128:
            if c >= s.min_lo:  # only when a range reaches into ASCII (min_lo is past it when there are none)
                _count_ranges(s, c)
            code = _LETTER[c]
            if code:
                s.letters += 1
                if not in_run:
                    in_run = True
                    start = i
                    key = 0
                    ascii = True
                key = (key << 5) | code
                continue
        else:
            _count_ranges(s, c)
            if Py_UNICODE_ISALNUM(c) and not Py_UNICODE_ISDECIMAL(c):
                s.letters += 1
                if not in_run:
                    in_run = True
                    start = i
                    key = 0
                ascii = False
                continue
        if in_run:
            in_run = False
            if s.words < s.max_words:
                _end_run(s, data, start, i, key, ascii)
    if in_run and s.words < s.max_words:
        _end_run(s, data, start, n, key, ascii)
    return 0


def letter_runs(text, const long long[:, ::1] ranges, Py_ssize_t max_words, StringTable table not None,
                Py_ssize_t n_votes):
    """What a stopword vote needs of ``text``, in one pass: ``(in_range, letters, runs, votes, words, counts)``.

    A run is a maximal run of letters, as ``re.findall(r"[^\W\d_]+", text)`` finds them; ``letters`` is their
    total length, ``in_range[r]`` the number of code points of ``text`` in ``ranges[r] = (lo, hi)`` (inclusive),
    ``runs`` the number of runs read: the first ``max_words``. Of those, an all-ASCII run is lower-cased (which
    is its ``str.casefold``) and looked up in the ``string_table``: ``votes[x]`` counts the runs found with value x
    (its values must lie in [0, n_votes)). Every other run is
    returned as written (the caller casefolds it: full Unicode case folding is Python's): ``words`` are the
    distinct ones in order of first appearance, ``counts`` their occurrences. Why compiled: detection read every
    word of an 8,000-character sample with seven regex passes and was most of the scoring cost; here an English
    page makes no Python string.
    """
    if not isinstance(text, str):
        raise TypeError(f"letter_runs expects a str, got {type(text).__name__}")
    return sample_runs([text], (True,), 0, PyUnicode_GET_LENGTH(text), ranges, max_words, table, n_votes)


def sample_runs(texts, use, Py_ssize_t min_chars, Py_ssize_t max_chars, const long long[:, ::1] ranges,
                Py_ssize_t max_words, StringTable table not None, Py_ssize_t n_votes):
    """``letter_runs`` of a sample of ``texts``, without building it: the texts whose ``use`` flag is true, in
    order, up to and including the first that takes their total length past ``min_chars``, joined by single
    spaces, cut after ``max_chars`` code points.

    Why: the scorer guesses a page's language from its first few thousand characters of prose; joining them
    into one string cost a copy of the sample, and one non-Latin-1 character anywhere (a curly quote) made the
    whole copy four bytes a character.
    """
    return _sample(texts, use, min_chars, max_chars, ranges, max_words, table, n_votes, None)


def sample_votes(texts, use, Py_ssize_t min_chars, Py_ssize_t max_chars, const long long[:, ::1] ranges,
                 Py_ssize_t max_words, StringTable table not None, const long long[:, ::1] matrix not None):
    """``sample_runs`` with the votes tallied: ``(in_range, letters, runs, totals, words, counts)`` as Python
    ints and lists, ``totals = votes @ matrix`` (``matrix``: one row per table value, one column per candidate).

    Why: language detection turned ``sample_runs``'s arrays into lists and multiplied the votes by the class x
    candidate matrix in numpy, a dozen small calls per page that cost half as much as the scan of the sample.
    Every number here is an integer, so the sum is exact in any order: the caller may add the votes of the
    ``words`` it classifies itself as ``extra @ matrix``.
    """
    return _sample(texts, use, min_chars, max_chars, ranges, max_words, table, matrix.shape[0], matrix)


cdef tuple _sample(texts, use, Py_ssize_t min_chars, Py_ssize_t max_chars, const long long[:, ::1] ranges,
                   Py_ssize_t max_words, StringTable table, Py_ssize_t n_votes, const long long[:, ::1] matrix):
    """``sample_runs`` (``matrix`` None) or ``sample_votes``."""
    cdef list items = _texts(texts)
    cdef const unsigned char* flag_bytes = NULL
    cdef list flags = None
    if isinstance(use, bytes):
        flag_bytes = <const unsigned char*> (<bytes> use)
        if len(<bytes> use) != len(items):
            raise ValueError("use must have one flag per text")
    else:
        flags = [bool(x) for x in use]
        if len(flags) != len(items):
            raise ValueError("use must have one flag per text")
    if ranges.shape[1] != 2:
        raise ValueError("ranges must have shape (k, 2)")
    if max_words < 0 or min_chars < 0 or max_chars < 0:
        raise ValueError("max_words, min_chars and max_chars must be >= 0")
    if n_votes < table.limit:
        raise ValueError("the table's values must lie in [0, n_votes)")
    cdef Py_ssize_t k = ranges.shape[0], r, t, w, n, longest = 1, pos = 0, size = 0, n_parts = 0, c
    cdef Py_ssize_t n_cand = matrix.shape[1] if matrix is not None else 0
    cdef _Runs s
    cdef _Vocab v
    cdef _Out out
    cdef long long* tally = NULL
    cdef long long* votes = NULL
    cdef long long* sums = NULL
    cdef _Part* parts = NULL
    memset_vocab(&v)
    out = _no_out()
    s.lo = NULL
    s.hi = NULL
    s.buf = NULL
    s.in_range = NULL
    try:
        # The sample's parts: each chosen text's code points that fall before max_chars, and whether the space
        # before it (after the first) does.
        parts = <_Part*> malloc((len(items) + 1) * sizeof(_Part))
        if parts == NULL:
            raise MemoryError()
        for t in range(len(items)):
            if not (flag_bytes[t] if flag_bytes != NULL else flags[t]):
                continue
            if n_parts:
                pos += 1
            n = PyUnicode_GET_LENGTH(items[t])
            parts[n_parts].space = n_parts > 0 and pos - 1 < max_chars
            parts[n_parts].n = max(0, min(n, max_chars - pos))
            parts[n_parts].data = PyUnicode_DATA(items[t])
            parts[n_parts].kind = PyUnicode_KIND(items[t])
            longest = max(longest, parts[n_parts].n)
            n_parts += 1
            pos += n
            size += n
            if size > min_chars:
                break
        s.lo = <long long*> malloc((k + 1) * sizeof(long long))
        s.hi = <long long*> malloc((k + 1) * sizeof(long long))
        s.buf = <uint32_t*> malloc((longest + 1) * sizeof(uint32_t))
        s.in_range = <long long*> calloc(k + 1, sizeof(long long))
        votes = <long long*> calloc(n_votes + 1, sizeof(long long))
        if s.lo == NULL or s.hi == NULL or s.buf == NULL or s.in_range == NULL or votes == NULL:
            raise MemoryError()
        s.k = k
        s.min_lo = 0x110000
        for r in range(k):
            s.lo[r] = ranges[r, 0]
            s.hi[r] = ranges[r, 1]
            s.min_lo = min(s.min_lo, max(s.lo[r], 0))
        s.letters = 0
        s.words = 0
        s.max_words = max_words
        s.table = &table.table
        s.packed = table.rows
        s.packed_mask = table.rows_mask
        s.shift = table.shift
        s.votes = votes
        s.v = &v
        s.out = &out
        with nogil:
            for t in range(n_parts):
                if parts[t].space:  # a space ends any run and is counted like every code point
                    _count_ranges(&s, 32)
                if parts[t].kind == 1:
                    _runs(&s, <const uint8_t*> parts[t].data, parts[t].n)
                elif parts[t].kind == 2:
                    _runs(&s, <const uint16_t*> parts[t].data, parts[t].n)
                else:
                    _runs(&s, <const uint32_t*> parts[t].data, parts[t].n)
        tally = <long long*> calloc(v.n + 1, sizeof(long long))
        if tally == NULL:
            raise MemoryError()
        for w in range(out.n):
            tally[out.ids[w]] += 1
        words = [PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, v.chars + v.start[w], v.length[w])
                 for w in range(v.n)]
        if matrix is None:
            return (_copy_array(s.in_range, k, _I64), s.letters, s.words, _copy_array(votes, n_votes, _I64),
                    words, _copy_array(tally, v.n, _I64))
        # votes @ matrix by the rows that got votes (a page's words fall in a few of the classes), each row read
        # along its length; the column-by-column sum over every row was most of a short page's detection.
        sums = <long long*> calloc(n_cand + 1, sizeof(long long))
        if sums == NULL:
            raise MemoryError()
        for r in range(n_votes):
            if votes[r]:
                for c in range(n_cand):
                    sums[c] += votes[r] * matrix[r, c]
        totals = [sums[c] for c in range(n_cand)]
        return ([s.in_range[r] for r in range(k)], s.letters, s.words, totals, words,
                [tally[w] for w in range(v.n)])
    finally:
        free(s.lo); free(s.hi); free(s.buf); free(s.in_range); free(votes); free(tally); free(out.ids); free(parts)
        free(sums)
        _free_vocab(&v)
