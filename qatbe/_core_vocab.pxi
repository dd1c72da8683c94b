# ---------------------------------------------------------------------------------------------------------------
# Tokenizer, part 1: character classes, the page-wide vocabulary (an open-addressing hash table of code
# point keys), the output buffer and the query's prefix filter.
# Included by _core.pyx (one module, one generated C file).


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
