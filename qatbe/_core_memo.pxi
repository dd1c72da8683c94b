# ---------------------------------------------------------------------------------------------------------------
# Term memo, part 2: ``TermMemo``, raw tokens -> index term ids, kept across pages.
# Included by _core.pyx (one module, one generated C file).


cdef class TermMemo:
    """What each raw token a page used means as index terms, remembered across pages, and the page index built
    from it: ``index(texts, prefixes, vocab, analyse)``.

    Why compiled: a page repeats its words and a site repeats its pages, so after the first pages almost every
    token is known; looking tokens up by their characters here, and writing the term ids of every occurrence here,
    leaves Python only the tokens it has never seen (``analyse``) and the page's new terms. Without it the
    scorer would make a Python object, a dictionary lookup and a list entry per distinct token, three times a
    page.

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

        Why one call: as nine calls, the arrays, lists and typed memoryviews passed between them would cost about
        as much as the work itself; one call passes nothing between the steps. Each step's core stays behind its checked entry
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
        position would be a large part of the index's work, and the page scores' loops would read them all
        again."""
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
