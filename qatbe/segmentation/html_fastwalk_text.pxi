# html_fastwalk, part 1: UTF-8 helpers, the byte buffer blocks are collected in, whitespace collapsing
# (its eight-bytes-a-step tests are in html_fastwalk_swar.h) and the set of node addresses. Included by
# html_fastwalk.pyx.

# -- UTF-8 helpers ------------------------------------------------------------------------------------------

cdef inline bint _is_space(uint32_t c) noexcept nogil:
    """``str.isspace`` for one code point (the 29 whitespace code points of Unicode as Python counts them)."""
    if c < 0x80:
        return c == 0x20 or 0x09 <= c <= 0x0d or 0x1c <= c <= 0x1f
    return (c == 0x85 or c == 0xa0 or c == 0x1680 or 0x2000 <= c <= 0x200a or c == 0x2028 or c == 0x2029
            or c == 0x202f or c == 0x205f or c == 0x3000)


cdef inline Py_ssize_t _decode_cp(const uchar* s, Py_ssize_t i, Py_ssize_t n, uint32_t* cp) noexcept nogil:
    """The code point starting at byte ``i`` and the index after it (valid UTF-8; a stray byte reads alone)."""
    cdef uint32_t c = s[i]
    if c < 0x80 or i + 1 >= n:
        cp[0] = c
        return i + 1
    if c < 0xe0:
        cp[0] = ((c & 0x1f) << 6) | (s[i + 1] & 0x3f)
        return i + 2
    if c < 0xf0 or i + 2 >= n:
        if i + 2 >= n:
            cp[0] = c
            return i + 1
        cp[0] = ((c & 0x0f) << 12) | ((s[i + 1] & 0x3f) << 6) | (s[i + 2] & 0x3f)
        return i + 3
    if i + 3 >= n:
        cp[0] = c
        return i + 1
    cp[0] = ((c & 0x07) << 18) | ((s[i + 1] & 0x3f) << 12) | ((s[i + 2] & 0x3f) << 6) | (s[i + 3] & 0x3f)
    return i + 4


cdef inline Py_ssize_t _code_points(const uchar* s, Py_ssize_t n) noexcept nogil:
    """``len(s.decode())`` for valid UTF-8: the bytes that start a code point."""
    cdef Py_ssize_t i, count = 0
    for i in range(n):
        if (s[i] & 0xc0) != 0x80:
            count += 1
    return count


cdef bint _all_space(const uchar* s, Py_ssize_t n) noexcept nogil:
    """``s.decode().isspace()`` for non-empty valid UTF-8."""
    cdef Py_ssize_t i = 0
    cdef uint32_t cp
    while i < n:
        i = _decode_cp(s, i, n, &cp)
        if not _is_space(cp):
            return False
    return True


cdef Py_ssize_t _stripped_length(const uchar* s, Py_ssize_t n) noexcept nogil:
    """``len(s.decode().strip())``."""
    cdef Py_ssize_t i = 0, nxt, first = -1, last = 0
    cdef uint32_t cp
    while i < n:
        nxt = _decode_cp(s, i, n, &cp)
        if not _is_space(cp):
            if first < 0:
                first = i
            last = nxt
        i = nxt
    if first < 0:
        return 0
    return _code_points(s + first, last - first)


# -- a growable byte buffer ---------------------------------------------------------------------------------

ctypedef struct Buffer:
    char* data
    Py_ssize_t length
    Py_ssize_t capacity
    bint unsafe  # after _collapse: holds a code point outside _nfc_safe


cdef int _reserve(Buffer* b, Py_ssize_t extra) except -1:
    """Room for ``extra`` more bytes."""
    cdef Py_ssize_t need = b.length + extra
    cdef Py_ssize_t cap
    cdef char* grown
    if need > b.capacity:
        cap = max(need, 2 * b.capacity, 256)
        grown = <char*> realloc(b.data, cap)
        if grown == NULL:
            raise MemoryError()
        b.data = grown
        b.capacity = cap
    return 0


cdef void* _doubled(void* items, Py_ssize_t* capacity, size_t item) except NULL:
    """``items`` (``*capacity`` of ``item`` bytes) moved to twice the room: the walker's stacks grow by this."""
    cdef void* grown = realloc(items, 2 * capacity[0] * item)
    if grown == NULL:
        raise MemoryError()
    capacity[0] *= 2
    return grown


cdef int _put(Buffer* b, const void* data, Py_ssize_t n) except -1:
    if b.length + n > b.capacity:
        _reserve(b, n)
    memcpy(b.data + b.length, data, n)
    b.length += n
    return 0


cdef int _line_break(Buffer* b, Py_ssize_t start) except -1:
    """A newline, unless the text since ``start`` is empty or already ends a line."""
    if b.length > start and b.data[b.length - 1] != 10:
        _put(b, b"\n", 1)
    return 0


cdef inline int _space(Buffer* b) except -1:
    return _put(b, b" ", 1)


cdef inline str _take(Buffer* b):
    """The buffer's text (decoded as selectolax decodes), and the buffer emptied."""
    cdef str text = PyUnicode_DecodeUTF8(b.data, b.length, "replace")
    b.length = 0
    return text


# -- text as a reader sees it ----------------------------------------------------------------------------

cdef int _ASCII_SPACE[128]
for _c in range(128):
    _ASCII_SPACE[_c] = chr(_c).isspace()


cdef inline bint _nfc_safe(uint32_t cp) noexcept nogil:
    """Code points no NFC changes, alone or next to each other (checked over every pair once): Latin-1 and the
    Latin Extended blocks below the combining marks, general punctuation (curly quotes, dashes, ellipsis) and the
    currency signs. A text made of them is NFC without asking ``unicodedata``."""
    return cp < 0x300 or 0x2002 <= cp < 0x2070 or 0x20a0 <= cp < 0x20d0


cdef extern from "html_fastwalk_swar.h":
    bint qatbe_plain8(const unsigned char* p) noexcept nogil
    bint qatbe_blank8(const unsigned char* p) noexcept nogil


cdef int _collapse(const char* raw, Py_ssize_t n, Buffer* out, bint* ascii) except -1:
    """``" ".join(raw.split())`` on UTF-8 bytes into ``out``; ``ascii`` says whether every byte was ASCII.
    The result is never longer than ``raw`` (a space is written only in place of whitespace), so ``out`` is sized
    once and written directly; ASCII bytes, nearly all of them, skip decoding."""
    cdef const uchar* s = <const uchar*> raw
    cdef char* d
    cdef Py_ssize_t i = 0, j = 0, nxt
    cdef uint32_t cp
    cdef uchar c
    cdef int sp, pending = 0
    ascii[0] = True
    out.length = 0
    out.unsafe = False
    _reserve(out, n + 1)  # the branch-free loop may write one byte past the result
    d = out.data
    while i < n:
        # After a non-space (j > 0, nothing pending), eight plain bytes are copied as they are (most of a text);
        # otherwise eight whitespace bytes are skipped at once (indentation between tags).
        if i + 8 <= n:
            if pending == 0 and j > 0:
                if qatbe_plain8(s + i):
                    memcpy(d + j, s + i, 8)
                    i += 8
                    j += 8
                    continue
            elif qatbe_blank8(s + i):  # eight whitespace bytes: one space owed once text has begun
                pending = j > 0
                i += 8
                continue
        c = s[i]
        if c < 0x80:
            # Branch-free on the byte's class: a space is written (and kept) only before a non-space byte.
            sp = _ASCII_SPACE[c]
            d[j] = b" "
            j += pending & (sp ^ 1)
            d[j] = <char> c
            j += sp ^ 1
            pending = sp & (j > 0)
            i += 1
            continue
        nxt = _decode_cp(s, i, n, &cp)
        if _is_space(cp):
            pending = j > 0
        else:
            if pending:
                d[j] = b" "
                j += 1
                pending = 0
            ascii[0] = False
            if not _nfc_safe(cp):
                out.unsafe = True
            while i < nxt:
                d[j] = <char> s[i]
                j += 1
                i += 1
        i = nxt
    out.length = j
    return 0


cdef str _visible(Buffer* raw, Buffer* out):
    """``html_tables.visible_text`` of the bytes in ``raw`` (which is emptied): whitespace collapsed, soft hyphens
    and zero-width spaces removed after collapsing, NFC. Collapsing in C spares a split and a join per block."""
    cdef bint ascii
    cdef Py_ssize_t i, j
    cdef char* d
    _collapse(raw.data, raw.length, out, &ascii)
    raw.length = 0
    if ascii:
        return PyUnicode_DecodeUTF8(out.data, out.length, "replace")
    d = out.data
    j = 0
    i = 0
    while i < out.length:  # U+00AD is C2 AD, U+200B is E2 80 8B
        if <uchar> d[i] == 0xc2 and i + 1 < out.length and <uchar> d[i + 1] == 0xad:
            i += 2
        elif (<uchar> d[i] == 0xe2 and i + 2 < out.length and <uchar> d[i + 1] == 0x80
              and <uchar> d[i + 2] == 0x8b):
            i += 3
        else:
            d[j] = d[i]
            j += 1
            i += 1
    out.length = j
    text = PyUnicode_DecodeUTF8(out.data, out.length, "replace")
    if not out.unsafe or is_normalized("NFC", text):
        return text
    return normalize("NFC", text)


cdef str _collapsed(Buffer* raw, Buffer* out):
    """``" ".join(text.split())`` of the bytes in ``raw`` (which is emptied)."""
    cdef bint ascii
    _collapse(raw.data, raw.length, out, &ascii)
    raw.length = 0
    return PyUnicode_DecodeUTF8(out.data, out.length, "replace")


# -- a set of node addresses ------------------------------------------------------------------------------

ctypedef struct PointerSet:
    uintptr_t* slots  # 0 marks an empty slot (no node lives at address 0)
    Py_ssize_t size   # a power of two
    Py_ssize_t used


cdef inline Py_ssize_t _slot(uintptr_t key, Py_ssize_t size) noexcept nogil:
    key ^= key >> 17
    key *= <uintptr_t> 0x9E3779B97F4A7C15
    return <Py_ssize_t> ((key >> 20) & <uintptr_t> (size - 1))


cdef bint _contains(PointerSet* ps, uintptr_t key) noexcept nogil:
    cdef Py_ssize_t j
    if ps.size == 0:
        return False
    j = _slot(key, ps.size)
    while ps.slots[j] != 0:
        if ps.slots[j] == key:
            return True
        j = (j + 1) & (ps.size - 1)
    return False


cdef int _add(PointerSet* ps, uintptr_t key) except -1:
    cdef Py_ssize_t j, k, old_size = ps.size
    cdef uintptr_t* old = ps.slots
    if 2 * (ps.used + 1) > ps.size:
        ps.size = max(256, 2 * old_size)
        ps.slots = <uintptr_t*> calloc(ps.size, sizeof(uintptr_t))
        if ps.slots == NULL:
            ps.slots = old
            ps.size = old_size
            raise MemoryError()
        ps.used = 0
        for k in range(old_size):
            if old[k] != 0:
                j = _slot(old[k], ps.size)
                while ps.slots[j] != 0:
                    j = (j + 1) & (ps.size - 1)
                ps.slots[j] = old[k]
                ps.used += 1
        free(old)
    j = _slot(key, ps.size)
    while ps.slots[j] != 0:
        if ps.slots[j] == key:
            return 0
        j = (j + 1) & (ps.size - 1)
    ps.slots[j] = key
    ps.used += 1
    return 0
