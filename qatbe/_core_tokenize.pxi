# ---------------------------------------------------------------------------------------------------------------
# Tokenizer, part 3: the Python entry points: ``tokenize``, ``Scan`` (a page's texts scanned once, read
# many times) and ``remap``.
# Included by _core.pyx (one module, one generated C file).


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
    the tokens (the pass over every code point) is most of each read. A Scan finds the tokens when it is made
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
            # Room for a token every four characters before the first, so that a typical page's occurrences
            # fit without being reallocated (growing by doubling from 64 would copy them several times).
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
    memcpy, and these copy one occurrence's terms, one term for nearly every token, where a library call
    costs more than the copy."""
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
