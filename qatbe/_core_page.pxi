# ---------------------------------------------------------------------------------------------------------------
# A page's scores in one call (``page_scores``: BM25, proximity, lead-in, heading, sibling, relevance
# floor) and the fields of a page's segments the scorer reads (``page_fields``).
# Included by _core.pyx (one module, one generated C file).

from ._kernel_types import PageScores


cdef int _ints(obj, Py_ssize_t n, long long* out, str name) except -1:
    """A sequence of ``n`` ints into ``out`` (the page's small integer inputs come as lists: no array to build)."""
    cdef list items = list(obj)
    cdef Py_ssize_t i
    if len(items) != n:
        raise ValueError(f"{name} must have {n} entries, not {len(items)}")
    for i in range(n):
        out[i] = items[i]
    return 0


def page_scores(const int[::1] doc_terms, const long long[::1] doc_offsets, Py_ssize_t n_terms,
                const int[::1] query_terms, const double[::1] query_weights, const double[::1] doc_lengths,
                heads, levels, const unsigned char[::1] lead_from not None,
                const unsigned char[::1] joined not None, *, params, const double[::1] prior_df=None,
                Py_ssize_t n_near=0, const long long[::1] positions=None):
    """A page's scores in one call, as a ``PageScores`` record (``qatbe._kernel_types``), computed with the shares
    and BM25 parameters of ``params`` (a ``ScoringParams``, read once here).

    Why one call: around its two kernels the scorer needs some twenty small array operations per page, each
    mostly call overhead on a few hundred numbers; here they are loops over the segments.

    ``bm25`` is ``bm25_scores`` of the query terms (``params``' k1 ... prior_n, ``prior_df``, ``doc_lengths``);
    ``df`` the number of documents holding each query slot. Each further part is computed on ``raw`` so far (the
    sum of the parts before it) and added to it, in this order, when its share is > 0:

    - proximity: ``proximity`` x the close pairs among the first ``n_near`` query slots (``proximity_pairs``);
    - lead_in: ``lead_in`` x the score of the text before, where ``lead_from[i]`` is non-zero;
    - heading: ``heading`` x the best score of the headings above (the chain of ``up``);
    - sibling: ``sibling`` x the score of the text before when ``joined[i]``, or of the text after when
      ``joined[i + 1]`` and that one is higher.

    ``lead_from`` and ``joined`` (one byte per text) are the page's links, which the scorer decides
    (``qatbe.score.links``); here they are only followed.

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
    cdef double k1 = params.k1, b = params.b, delta = params.delta, prior_n = params.prior_n
    cdef int variant = params.variant
    cdef Py_ssize_t window = params.window
    cdef double proximity = params.proximity, lead_in = params.lead_in, heading = params.heading
    cdef double sibling = params.sibling, floor = params.floor, inherit_words = params.inherit_words
    _check_bm25(doc_terms, doc_offsets, n_terms, query_terms, query_weights, k1, b, variant, delta, prior_n,
                prior_df, doc_lengths)
    cdef _Csr c = _csr(doc_terms, doc_offsets, n_terms, query_terms)
    _use_positions(&c, positions)
    cdef Py_ssize_t n = c.n_docs, n_heads, j
    if lead_from.shape[0] != n or joined.shape[0] != n:
        raise ValueError("lead_from and joined must have one entry per document")
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
    cdef bint found[4]
    cdef double best = 0.0
    cdef long long* df_ptr
    # one block: the head indices and levels, the heading stack (longs); seven score rows (doubles); the relevance
    # flags (bytes)
    cdef char* block = <char*> calloc(1, (2 * n_heads + n + 1) * sizeof(long long) + 7 * n * sizeof(double)
                                      + n + 8)
    if block == NULL:
        raise MemoryError()
    cdef long long* longs = <long long*> block
    cdef double* rows = <double*> (block + (2 * n_heads + n + 1) * sizeof(long long))
    pt.head_idx = longs
    pt.head_level = longs + n_heads
    pt.stack = longs + 2 * n_heads
    pt.n_heads = n_heads
    pt.lead_from = &lead_from[0] if n else NULL
    pt.joined = &joined[0] if n else NULL
    pt.raw, pt.base, pt.prox, pt.lead = rows, rows + n, rows + 2 * n, rows + 3 * n
    pt.head, pt.sib, pt.inherited = rows + 4 * n, rows + 5 * n, rows + 6 * n
    pt.relevant = <uint8_t*> (rows + 7 * n)
    try:
        _ints(heads_list, n_heads, pt.head_idx, "heads")
        _ints(levels, n_heads, pt.head_level, "levels")
        for j in range(n_heads):
            if not 0 <= pt.head_idx[j] < n or (j and pt.head_idx[j] <= pt.head_idx[j - 1]):
                raise ValueError("heads must be increasing document indices")
        df_arr = _ZEROS(c.n_q, _I64)
        df_ptr = <long long*> _data(df_arr) if c.n_q else NULL
        with nogil:
            _page(&c, &query_weights[0] if c.n_q else NULL, k1, b, variant, delta, prior_n,
                  &prior_df[0] if prior_df is not None and c.n_q else NULL,
                  &doc_lengths[0] if n else NULL, n_near, window, proximity, lead_in, heading, sibling, floor,
                  inherit_words, &pt, found, &best, df_ptr)
        relevant_arr = _copy_array(pt.relevant, n, _BOOL)  # its bytes are 0 or 1
        return PageScores(_copy_array(pt.raw, n, _F64), _copy_array(pt.base, n, _F64),
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
    long long* stack
    Py_ssize_t n_heads
    double* raw
    double* base
    double* prox
    double* lead
    double* head
    double* sib
    double* inherited
    const unsigned char* lead_from
    const unsigned char* joined
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
        for i in range(1, n):
            if pt.lead_from[i]:
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
            if i > 0 and pt.joined[i]:
                value = raw[i - 1]
            if i + 1 < n and pt.joined[i + 1] and raw[i + 1] > value:
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
