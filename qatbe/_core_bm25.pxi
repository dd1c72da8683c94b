# ---------------------------------------------------------------------------------------------------------------
# BM25 over a CSR collection (the formulas: the module docstring) and the proximity of query-term pairs:
# ``bm25_scores``, ``proximity_pairs``.
# Included by _core.pyx (one module, one generated C file).


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
