# ---------------------------------------------------------------------------------------------------------------
# Multi-hop bridges' mechanics: where to look (``bridge_rows``), section sizes and bests, the relevance
# floor's cut, and which headings' new words the best segments share or mention (``bridge_shares``,
# ``bridge_best``, ``bridge_mentions``). The thresholds are the caller's (``qatbe.score.bm25``).
# Included by _core.pyx (one module, one generated C file).


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
    segment under every heading, nothing to tokenize). Why compiled, and one call: in Python this takes a list,
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
    ``up``), 0 for none (the scale: the bridges' share, applied here rather than by one more numpy
    multiplication): each heading's best over its chain, one step per heading (a heading comes after the
    headings above it), read off per segment through ``up``. A heading's own credit is not its own: it sits in
    its parent's section. Why compiled: the bridges need it on every page they credit, and in Python it is a
    dictionary walk and a numpy gather."""
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
    order of k, then t. Why compiled: it runs per heading and best segment, which with Python sets (and the ids
    numbered compactly in numpy) dominates the bridges on pages with many headings."""
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
    chain of ``up``: the heading above each segment, an earlier one, or -1 for none). Why compiled: it runs per segment and word, which
    with a Python set per segment dominates the bridges on pages with many headings."""
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
