# ---------------------------------------------------------------------------------------------------------------
# Tokenizer, part 2: finding a text's token occurrences (``_find_masked`` over the bitmaps of _scan.h,
# ``_find_tokens`` a code point at a time) and interning them (``_take``).
# Included by _core.pyx (one module, one generated C file).


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


cdef extern from "_scan.h":
    Py_ssize_t qatbe_word_run8(const uint8_t* s, Py_ssize_t i, Py_ssize_t n, uint8_t* late) nogil
    Py_ssize_t qatbe_word_run16(const uint16_t* s, Py_ssize_t i, Py_ssize_t n, uint8_t* late) nogil
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
    lower-case letter has, and without a branch: whether a word starts with a capital is not predictable,
    and a branch on it would mispredict often."""
    return <uint16_t> ((c0 | 0x20) * 129 + ((c1 | 0x20) + 1) * two)


cdef int _find_tokens(const _char_t* data, Py_ssize_t n, _Toks* toks, Py_ssize_t* longest) except -1 nogil:
    """One text's token occurrences, in one pass over its code points (what a token is: ``tokenize``); ``longest``
    raised to the longest word token's length (a CJK token, one or two characters, is in the Scan's floor of 2).
    The scan calls it for texts held four bytes a character, with CJK characters or mostly above 127;
    ``_find_masked``, which gives the same occurrences, does the others.

    The scan and the taking of tokens (``_take``) stay two loops: each is tighter than their fusion, which
    counts more instructions in all."""
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
    depends on the text is predicted only once the processor has seen the same text several times, which a
    page read once never is. Here a token is a run of set
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
    # ASCII no faster, while the masks would cost their building for little.
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
