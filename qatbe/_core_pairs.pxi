# ---------------------------------------------------------------------------------------------------------------
# Term memo, part 1: the page read's output arrays and the name pairs the second-hop bridges compare.
# Included by _core.pyx (one module, one generated C file).


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
