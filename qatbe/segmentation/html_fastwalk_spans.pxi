# html_fastwalk, part 4: exact source spans (SpanAligner), the compiled form of qatbe/segmentation/spans.py's
# ``PySpanAligner``: the same stream, the same searches, the same spans (tests/test_spans.py compares them).
# Included by html_fastwalk.pyx. The byte search and code-point count are in html_fastwalk_find.h.

cdef extern from "html_fastwalk_find.h":
    const char* qatbe_find(const char* s, size_t n, const char* needle, size_t m) nogil
    Py_ssize_t qatbe_code_points(const char* s, Py_ssize_t n) nogil
    Py_ssize_t qatbe_find_any3(const uchar* s, Py_ssize_t i, Py_ssize_t n, uchar a, uchar b, uchar c) nogil


cdef extern from "../_simd.h":
    void qatbe_simd_init() nogil
    int qatbe_simd_use_avx2(int on) nogil


qatbe_simd_init()  # which scan the processor can run, read once at import (_simd.h)


def use_avx2(bint on):
    """For tests: the spans' scans with AVX2 (where the processor has it: the default) or without (SSE2, or
    plain C off x86-64); returns whether AVX2 is now in use. Not thread-safe: only tests call it."""
    return bool(qatbe_simd_use_avx2(on))


cdef extern from "Python.h":
    bint Py_UNICODE_ISALNUM(Py_UCS4 ch)

from .spans import BUDGET_PER_CHAR, ENTITY_ALNUM as _ENTITY_ALNUM, NUMERIC_C1, fold as _fold, fold_table
from .spans import breaks_out as _breaks_out, RAW_TEXT as _RAW_TEXT_NAMES, RCDATA as _RCDATA_NAMES, WINDOW as _WINDOW
from .spans import FAR as _FAR, NEAR as _NEAR, REST as _REST, SHORT as _SHORT, WORD_WINDOW as _WORD_WINDOW

cdef Py_ssize_t _SPAN_WINDOW = _WINDOW
cdef Py_ssize_t _SPAN_WORD_WINDOW = _WORD_WINDOW
cdef Py_ssize_t _SPAN_NEAR = _NEAR
cdef Py_ssize_t _SPAN_FAR = _FAR
cdef Py_ssize_t _BUDGET_PER_CHAR = BUDGET_PER_CHAR
cdef Py_ssize_t _SPAN_SHORT = _SHORT
cdef Py_ssize_t _SPAN_REST = _REST


cdef inline bint _letter(uchar c) noexcept nogil:
    return (97 <= c <= 122) or (65 <= c <= 90)


cdef inline bint _alnum_byte(uchar c) noexcept nogil:
    return (97 <= c <= 122) or (65 <= c <= 90) or (48 <= c <= 57)


cdef inline uint32_t _fold_cp(uint32_t c) noexcept:
    """``spans.fold`` of one code point: the code point compared, 0 for one that is not a letter or digit."""
    if c < 0x10000:
        return _FOLD_BMP[c]
    return c if Py_UNICODE_ISALNUM(<Py_UCS4> c) else 0


cdef inline bint _entity_stop(uchar c) noexcept nogil:
    """Where a named reference's name ends (``html.unescape``'s ``[^\\t\\n\\f <&#;]``); the spans also end it at
    a byte outside ASCII (entity names are ASCII)."""
    return c == 9 or c == 10 or c == 12 or c == 32 or c == 60 or c == 38 or c == 35 or c == 59 or c >= 128


# ``spans.fold`` of each code point of the Basic Multilingual Plane (0: not a letter or digit), filled on first
# use: one lookup, where Py_UNICODE_ISALNUM's several were much of reading a page in another script.
cdef uint16_t _FOLD_BMP[65536]
cdef bint _fold_ready = False


cdef int _fill_fold() except -1:
    global _fold_ready
    cdef uint32_t c
    for c in range(0x10000):
        _FOLD_BMP[c] = <uint16_t> c if Py_UNICODE_ISALNUM(<Py_UCS4> c) else 0
    for ch, folded in fold_table().items():
        _FOLD_BMP[ord(ch)] = <uint16_t> ord(folded) if folded else 0
    _fold_ready = True
    return 0


# One set of stream arrays kept from an aligner for the next (taken and given back under the GIL): a page's
# arrays are large enough that the allocator would otherwise map fresh pages, zeroed by the kernel, for each.
cdef uint32_t* _spare_cp = NULL
cdef uint32_t* _spare_lo = NULL
cdef uint32_t* _spare_hi = NULL
cdef Py_ssize_t _spare_capacity = 0
cdef Py_ssize_t _SPARE_MAX = 1 << 22


cdef inline Py_ssize_t _chars_to(const uchar* s, Py_ssize_t* mark_b, Py_ssize_t* mark_c, Py_ssize_t i) noexcept nogil:
    """The character offset of byte ``i``, counted on from the last one asked (``mark_b``, ``mark_c``)."""
    cdef Py_ssize_t b = mark_b[0], c = mark_c[0]
    if i - b < 32:  # a short stretch (the next letter of a word): counted here rather than by a call
        while b < i:
            c += (s[b] & 0xC0) != 0x80
            b += 1
    else:
        c += qatbe_code_points(<const char*> (s + b), i - b)
    mark_b[0] = i
    mark_c[0] = c
    return c


@cython.final  # its per-character methods are called directly and inlined, not through the method table
cdef class SpanAligner:
    """Source spans of a page's segments: the page's readable letters and digits (``spans.py`` says which) with
    the character range each came from, and a cursor. ``span(text)`` places a segment's letters and digits as
    ``spans.PySpanAligner.span`` does (the module docstring of ``spans.py`` gives the rules) and returns the
    character offsets of the first and past the last placed one.

    Why over UTF-8 bytes: the page is encoded for the parser anyway; a tag is crossed from quote to quote
    (``qatbe_find_any3``), a raw-text element and a comment with ``memchr``/``qatbe_find``, and character offsets
    are counted (``qatbe_code_points``) only where a letter or digit is stored, so the markup between is read
    once."""

    cdef uint32_t* cp
    cdef uint32_t* lo  # offsets below 2**32: aligner() takes PySpanAligner for a longer source
    cdef uint32_t* hi
    cdef Py_ssize_t n, capacity, cursor, last_end, budget
    cdef TagList tags  # the start tags outside <template> content, in order (html_fastwalk_anchors.pxi)
    cdef public Py_ssize_t near  # spans.PySpanAligner.near

    def __cinit__(self):
        self.cp = NULL
        self.lo = NULL
        self.hi = NULL
        self.tags.name = NULL
        self.tags.lo = NULL
        self.tags.n = self.tags.cap = 0

    def __dealloc__(self):
        global _spare_cp, _spare_lo, _spare_hi, _spare_capacity
        free(self.tags.name)
        free(self.tags.lo)
        if self.capacity > _spare_capacity and self.capacity <= _SPARE_MAX:  # kept for the next aligner
            free(_spare_cp)
            free(_spare_lo)
            free(_spare_hi)
            _spare_cp, _spare_lo, _spare_hi, _spare_capacity = self.cp, self.lo, self.hi, self.capacity
        else:
            free(self.cp)
            free(self.lo)
            free(self.hi)

    def __init__(self, str source, bytes data=None, bint markup=True):
        global _spare_cp, _spare_lo, _spare_hi, _spare_capacity
        if len(source) >= 0xFFFFFFFF:
            raise ValueError("SpanAligner holds offsets below 2**32")
        if not _fold_ready:
            _fill_fold()
        if data is None or qatbe_code_points(data, len(data)) != len(source):
            data = source.encode("utf-8", "surrogatepass")  # every character one code point in the bytes
        if self.cp == NULL and _spare_cp != NULL:
            self.cp, self.lo, self.hi, self.capacity = _spare_cp, _spare_lo, _spare_hi, _spare_capacity
            _spare_cp = _spare_lo = _spare_hi = NULL
            _spare_capacity = 0
        self.n = 0
        self.cursor = 0
        self.last_end = 0
        self.near = _SPAN_NEAR
        self._build(data, markup, len(data) == len(source))
        self.budget = _BUDGET_PER_CHAR * self.n + _SPAN_WINDOW

    cdef int _grow(self) except -1:
        cdef Py_ssize_t capacity = 2 * self.capacity + 4096
        cdef void* a = realloc(self.cp, capacity * sizeof(uint32_t))
        if a == NULL:
            raise MemoryError()
        self.cp = <uint32_t*> a
        a = realloc(self.lo, capacity * sizeof(uint32_t))
        if a == NULL:
            raise MemoryError()
        self.lo = <uint32_t*> a
        a = realloc(self.hi, capacity * sizeof(uint32_t))
        if a == NULL:
            raise MemoryError()
        self.hi = <uint32_t*> a
        self.capacity = capacity
        return 0

    cdef inline int _emit(self, uint32_t c, Py_ssize_t lo, Py_ssize_t hi) except -1:
        if self.n == self.capacity:
            self._grow()
        self.cp[self.n] = c
        self.lo[self.n] = lo
        self.hi[self.n] = hi
        self.n += 1
        return 0

    cdef int _emit_value(self, str value, Py_ssize_t lo, Py_ssize_t hi) except -1:
        cdef Py_UCS4 c
        for c in value:
            self._emit(c, lo, hi)
        return 0

    cdef int _build(self, bytes data, bint markup, bint ascii) except -1:
        """The stream of ``data`` (``ascii``: one byte a character, so a byte offset is a character offset)."""
        cdef const uchar* s = <const uchar*> (<const char*> data)
        # Character offsets are counted only where a stream character is emitted, from the last such place
        # (mark_b, mark_c): the markup between is skipped without reading it again.
        cdef Py_ssize_t n = len(data), i = 0, j, k, q, x, next_i, at, mark_b = 0, mark_c = 0, template = 0
        cdef Py_ssize_t foreign = 0  # open <svg> and <math>: their content has no raw text
        cdef Py_ssize_t text_until = -1  # the end of an RCDATA element's content: no markup before it
        cdef const char* rcdata
        cdef uint32_t tag
        cdef uchar b
        cdef uint32_t c, num, digit
        cdef bint hexa, semi
        cdef str name, value
        while i < n:
            b = s[i]
            if b < 128:
                if _alnum_byte(b):  # a run of ASCII letters and digits, one character a byte, stored at once
                    at = i if ascii else _chars_to(s, &mark_b, &mark_c, i)
                    j = i + 1
                    while j < n and _alnum_byte(s[j]):
                        j += 1
                    while self.n + (j - i) > self.capacity:
                        self._grow()
                    for k in range(j - i):
                        self.cp[self.n + k] = s[i + k]
                        self.lo[self.n + k] = <uint32_t> (at + k)
                        self.hi[self.n + k] = <uint32_t> (at + k + 1)
                    self.n += j - i
                    i = j
                    continue
                elif b == 32 or b == 10 or b == 9 or b == 13:  # layout whitespace: skipped eight bytes a step
                    i += 1
                    while i + 8 <= n and qatbe_blank8(s + i):
                        i += 8
                    continue
                elif b == 38 and markup:  # '&'
                    j = i + 1
                    if j < n and s[j] == 35:  # '#': a numeric reference
                        j += 1
                        hexa = j < n and (s[j] == 120 or s[j] == 88)
                        if hexa:
                            j += 1
                        k = j
                        num = 0
                        while k < n:
                            b = s[k]
                            if 48 <= b <= 57:
                                digit = b - 48
                            elif hexa and 97 <= (b | 32) <= 102:
                                digit = (b | 32) - 87
                            else:
                                break
                            if num <= 0x10FFFF:
                                num = num * (16 if hexa else 10) + digit
                            k += 1
                        if k > j:
                            k += k < n and s[k] == 59
                            c = _numeric_alnum(num)
                            if c:
                                at = i if ascii else _chars_to(s, &mark_b, &mark_c, i)
                                self._emit(c, at, at + (k - i))
                            i = k
                            continue
                    else:
                        k = j
                        while k < n and k - j < 32 and not _entity_stop(s[k]):
                            k += 1
                        if k > j:
                            semi = k < n and s[k] == 59
                            if semi and _plain_entity(s + j, k - j):
                                i = k + 1
                                continue
                            name = data[j:k + semi].decode("ascii")
                            value = _ENTITY_ALNUM.get(name)
                            x = k + semi
                            if value is None:
                                x = -1
                                for q in range(len(name) - 1, 1, -1):
                                    value = _ENTITY_ALNUM.get(name[:q])
                                    if value is not None:
                                        x = j + q
                                        break
                            if x >= 0:
                                at = i if ascii else _chars_to(s, &mark_b, &mark_c, i)
                                self._emit_value(value, at, at + (x - i))
                                i = x
                                continue
                elif b == 60 and markup and i >= text_until:  # '<'
                    j = self._markup(s, n, i, foreign > 0)
                    if j > i:
                        b = s[i + 1]
                        if _letter(b) or (b == 47 and j > i + 2 and _letter(s[i + 2])):  # a start or end tag
                            k = i + 1 + (b == 47)
                            while k < j and not (s[k] == 32 or s[k] == 9 or s[k] == 10 or s[k] == 12 or s[k] == 13
                                                 or s[k] == 47 or s[k] == 62):
                                k += 1
                            tag = _name_hash(s + i + 1 + (b == 47), k - i - 1 - (b == 47))
                            if b == 47:
                                template -= tag == _TEMPLATE and template > 0 and not foreign
                                foreign -= (tag == _SVG or tag == _MATH) and foreign > 0
                            else:
                                if foreign and _breaks_out(data[i + 1:k].lower().decode("latin-1"),
                                                           data[i:j].decode("latin-1")):
                                    foreign = 0
                                if not template:
                                    _tag_add(&self.tags, tag, i if ascii else _chars_to(s, &mark_b, &mark_c, i))
                                template += tag == _TEMPLATE and not foreign  # an SVG <template> holds children
                                foreign += (tag == _SVG or tag == _MATH) and s[j - 2] != 47  # not <svg/>
                                if not foreign and k - i - 1 <= 8:
                                    rcdata = _rcdata(s + i + 1, k - i - 1)
                                    if rcdata != NULL:
                                        text_until = _raw_end(s, n, j, rcdata, k - i - 1)
                        i = j
                        continue
                i += 1
            else:
                next_i = _decode_cp(s, i, n, &c)
                c = _fold_cp(c)
                if c:
                    at = _chars_to(s, &mark_b, &mark_c, i)
                    self._emit(c, at, at + 1)
                i = next_i
        return 0

    cdef Py_ssize_t _markup(self, const uchar* s, Py_ssize_t n, Py_ssize_t i, bint foreign) except -2:
        """Where the markup starting with the ``<`` at ``i`` ends: a comment, a declaration or processing
        instruction, an end tag, or a start tag with its attributes (and, for the raw-text elements outside
        ``foreign`` content, their content up to the end tag); ``i`` when this ``<`` is text."""
        cdef Py_ssize_t j = i + 1, k, q, name_start, name_len
        cdef const uchar* hit
        cdef const char* raw
        cdef uchar quote
        if j >= n:
            return i
        if s[j] == 33 and j + 2 < n and s[j + 1] == 45 and s[j + 2] == 45:  # "<!--"
            hit = <const uchar*> qatbe_find(<const char*> (s + j + 3), n - j - 3, b"-->", 3)
            return (hit - s) + 3 if hit != NULL else n
        if s[j] == 33 or s[j] == 63 or (s[j] == 47 and j + 1 < n and _letter(s[j + 1])):  # "<!", "<?", "</x"
            hit = <const uchar*> memchr(s + j, 62, n - j)
            return (hit - s) + 1 if hit != NULL else n
        if not _letter(s[j]):
            return i
        name_start = j
        k = j
        while k < n and not (s[k] == 32 or s[k] == 9 or s[k] == 10 or s[k] == 12 or s[k] == 13 or s[k] == 47
                             or s[k] == 62):
            k += 1
        name_len = k - name_start
        # Attributes: a quote opens a value only after "=" (spaces between allowed); a ">" inside one is text.
        while True:
            q = qatbe_find_any3(s, k, n, 62, 34, 39)  # ">", '"', "'"
            if q >= n:
                return n
            if s[q] == 62:
                k = q + 1
                break
            quote = s[q]
            j = q - 1
            while j > i and (s[j] == 32 or s[j] == 9 or s[j] == 10 or s[j] == 12 or s[j] == 13):
                j -= 1
            if s[j] == 61:  # '='
                hit = <const uchar*> memchr(s + q + 1, quote, n - q - 1)
                if hit == NULL:
                    return n
                k = (hit - s) + 1
            else:
                k = q + 1
        if name_len <= 9 and not foreign:
            raw = _raw_text(s + name_start, name_len)
            if raw != NULL:
                return _raw_end(s, n, k, raw, name_len)
        return k

    cpdef tuple span(self, str text):
        """``(start, end)``: the character range in the source of ``text``'s letters and digits (see the class
        docstring); an empty range at the end of the previous span when none of them is found."""
        cdef Py_ssize_t length = len(text), nk = 0, p, first = -1, last = -1, at, w, line, m, ks, ke
        cdef Py_ssize_t n_words = 0, n_lines = 0, end = 0
        # key: the letters and digits; words: where each word starts and ends in key, in pairs; lines: the first
        # word of each line that has one, then n_words.
        cdef uint32_t* key = <uint32_t*> malloc((length + 1) * sizeof(uint32_t))
        cdef Py_ssize_t* words = <Py_ssize_t*> malloc((length + 2) * sizeof(Py_ssize_t))
        cdef Py_ssize_t* lines = <Py_ssize_t*> malloc((length + 2) * sizeof(Py_ssize_t))
        cdef Py_UCS4 c
        cdef uint32_t folded
        cdef bint inside = False, new_line = True
        if key == NULL or words == NULL or lines == NULL:
            free(key)
            free(words)
            free(lines)
            raise MemoryError()
        try:
            for c in text:
                folded = _fold_cp(c)
                if folded:
                    if not inside:
                        if new_line:
                            lines[n_lines] = n_words
                            n_lines += 1
                            new_line = False
                        words[2 * n_words] = nk
                        inside = True
                    key[nk] = folded
                    nk += 1
                    continue
                if inside:
                    words[2 * n_words + 1] = nk
                    n_words += 1
                    inside = False
                if c == 10:
                    new_line = True
            if inside:
                words[2 * n_words + 1] = nk
                n_words += 1
            if nk == 0:
                return (self.last_end, self.last_end)
            lines[n_lines] = n_words
            p = self._find(key, nk, self.cursor, _SPAN_WINDOW if self.budget > 0 else _SPAN_WORD_WINDOW)
            if p > self.cursor + _SPAN_FAR and nk < _SPAN_SHORT and self.budget > 0 and nk <= self.cursor:
                at = self._behind(key, nk)  # a short text far ahead: a copy behind is likelier its own place
                if at >= 0:
                    return (self.lo[at], self.hi[at + nk - 1])
            if p >= 0:
                first = p
                last = p + nk - 1
                self.cursor = p + nk
            elif self.budget > 0 and nk <= self.cursor and self._behind(key, nk) >= 0:
                p = self._behind(key, nk)
                return (self.lo[p], self.hi[p + nk - 1])
            else:
                at = self.cursor
                for line in range(n_lines):
                    if n_lines > 1:  # the whole line first (a table row, a list item)
                        ks = words[2 * lines[line]]
                        ke = words[2 * lines[line + 1] - 1]
                        p = self._find(key + ks, ke - ks, at,
                                       _SPAN_WORD_WINDOW if first < 0 else 4 * self.near + ke - ks)
                        if p >= 0:
                            if first < 0:
                                first = p
                            at = p + ke - ks
                            last = at - 1
                            continue
                    for w in range(lines[line], lines[line + 1]):
                        m = words[2 * w + 1] - words[2 * w]
                        if first >= 0:  # near the previous word, or left out
                            p = self._find(key + words[2 * w], m, at, self.near + m)
                            ks = words[2 * w]
                            ke = words[2 * lines[line + 1] - 1]
                            if p < 0 and self.near > _SPAN_NEAR and ke - ks >= _SPAN_REST:  # the rest, further on
                                p = self._find(key + ks, ke - ks, at, _SPAN_WINDOW)
                                if p >= 0:
                                    at = p + ke - ks
                                    last = at - 1
                                    break
                            if p < 0:  # in two pieces, text the walk leaves out or moves between them
                                p = self._pieces(key + ks, m, at, &end)
                                if p >= 0:
                                    at = end
                                    last = at - 1
                                    continue
                        else:
                            p = self._find(key + words[2 * w], m, at, _SPAN_WORD_WINDOW)
                            if p > at + _SPAN_NEAR and w + 1 < n_words and self._find(
                                    key + words[2 * w + 2], words[2 * w + 3] - words[2 * w + 2], p + m,
                                    _SPAN_NEAR) < 0:
                                p = -1  # far, and the next word is not right after it: another copy of the word
                            if p < 0:  # in two pieces
                                p = self._pieces(key + words[2 * w], m, at, &end)
                                if p >= 0:
                                    first = p
                                    at = end
                                    last = at - 1
                                    continue
                        if p >= 0:
                            if first < 0:
                                first = p
                            at = p + m
                            last = at - 1
                if first < 0:
                    return (self.last_end, self.last_end)
                self.cursor = at
            self.last_end = self.hi[last]
            return (self.lo[first], self.hi[last])
        finally:
            free(key)
            free(words)
            free(lines)

    cdef Py_ssize_t _pieces(self, const uint32_t* word, Py_ssize_t m, Py_ssize_t at, Py_ssize_t* end) noexcept:
        """``spans.PySpanAligner._pieces``: the start, and the end in ``end``."""
        cdef Py_ssize_t k, p, q
        for k in range(m - 1, 0, -1):
            p = self._find(word, k, at, self.near + k)
            if p >= 0:
                q = self._find(word + k, m - k, p + k, self.near + m - k)
                if q >= 0:
                    end[0] = q + m - k
                    return p
        return -1

    cdef Py_ssize_t _behind(self, const uint32_t* key, Py_ssize_t m) noexcept:
        """The last place of ``key[:m]`` that ends before the cursor and starts in the ``WINDOW`` stream
        characters before it, or -1."""
        cdef Py_ssize_t low = self.cursor - _SPAN_WINDOW, i = self.cursor - m, k
        cdef const uint32_t* cp = self.cp
        if low < 0:
            low = 0
        while i >= low:
            if cp[i] == key[0] and cp[i + m - 1] == key[m - 1]:
                k = 1
                while k < m - 1 and cp[i + k] == key[k]:
                    k += 1
                if k >= m - 1:
                    self.budget -= self.cursor - i
                    return i
            i -= 1
        self.budget -= self.cursor - low
        return -1

    cdef Py_ssize_t _find(self, const uint32_t* key, Py_ssize_t m, Py_ssize_t start, Py_ssize_t window) noexcept:
        """The first ``i >= start`` where the stream holds ``key[:m]``, with ``i - start < window``; -1 if none.
        Every search is charged to the budget (``spans.py`` says why)."""
        cdef Py_ssize_t i, end = start + window, k
        cdef uint32_t head = key[0], tail = key[m - 1]
        cdef const uint32_t* cp = self.cp
        if end > self.n - m + 1:
            end = self.n - m + 1
        i = start
        while i < end:
            if cp[i] == head and cp[i + m - 1] == tail:
                k = 1
                while k < m - 1 and cp[i + k] == key[k]:
                    k += 1
                if k >= m - 1:
                    self.budget -= i - start + m
                    return i
            i += 1
        self.budget -= i - start
        return -1

    def skip_to(self, Py_ssize_t offset):
        """Start the cursor at the first stream character at or after source offset ``offset``."""
        cdef Py_ssize_t low = 0, high = self.n, mid
        while low < high:
            mid = (low + high) // 2
            if self.lo[mid] < offset:
                low = mid + 1
            else:
                high = mid
        self.cursor = low

    def stream(self):
        """For tests: the stream as ``(text, starts, ends)``."""
        return ("".join([chr(self.cp[i]) for i in range(self.n)]), [self.lo[i] for i in range(self.n)],
                [self.hi[i] for i in range(self.n)])


cdef uint32_t _CP1252[32]
for _k, _ch in enumerate(NUMERIC_C1):
    _CP1252[_k] = ord(_fold(_ch)) if _fold(_ch) else 0


cdef inline uint32_t _numeric_alnum(uint32_t num) noexcept:
    """The character ``html.unescape`` makes of ``&#num;`` when it is a letter or digit, else 0
    (``spans.numeric_alnum``): 0x80-0x9F read as windows-1252, surrogates and numbers past Unicode make U+FFFD,
    every other invalid number a control or nothing (none of them alphanumeric)."""
    if 0x80 <= num <= 0x9F:
        return _CP1252[num - 0x80]
    if 0xD800 <= num <= 0xDFFF or num > 0x10FFFF:
        return 0
    return _fold_cp(num)


cdef inline bint _plain_entity(const uchar* name, Py_ssize_t n) noexcept nogil:
    """``nbsp``, ``amp``, ``quot``, ``lt``, ``gt``: the common references, which make no letter or digit."""
    if n == 4:
        return memcmp(name, b"nbsp", 4) == 0 or memcmp(name, b"quot", 4) == 0
    if n == 3:
        return memcmp(name, b"amp", 3) == 0
    return n == 2 and (memcmp(name, b"lt", 2) == 0 or memcmp(name, b"gt", 2) == 0)


cdef list _RAW_TEXT_BYTES = [name.encode("ascii") for name in _RAW_TEXT_NAMES]
cdef list _RCDATA_BYTES = [name.encode("ascii") for name in _RCDATA_NAMES]


cdef const char* _rcdata(const uchar* name, Py_ssize_t n) noexcept:
    """The lower-case name of an RCDATA element (``spans.RCDATA``) when the tag name is one, ignoring ASCII case;
    NULL otherwise."""
    cdef bytes want
    for want in _RCDATA_BYTES:
        if len(want) == n and equals_ci(name, n, want, n):
            return want
    return NULL


cdef const char* _raw_text(const uchar* name, Py_ssize_t n) noexcept:
    """The lower-case name of a raw-text element (``spans.RAW_TEXT``) when the tag name is one, ignoring ASCII
    case; NULL otherwise."""
    cdef bytes want
    for want in _RAW_TEXT_BYTES:
        if len(want) == n and equals_ci(name, n, want, n):
            return want
    return NULL


cdef Py_ssize_t _raw_end(const uchar* s, Py_ssize_t n, Py_ssize_t k, const char* name, Py_ssize_t m) noexcept:
    """Where the raw text from ``k`` ends: at the ``</name`` (any case) followed by a space, ``/`` or ``>``; ``n``
    when there is none."""
    cdef const uchar* hit
    cdef Py_ssize_t q
    while k < n:
        hit = <const uchar*> memchr(s + k, 60, n - k)
        if hit == NULL:
            return n
        q = hit - s
        if q + 2 + m <= n and s[q + 1] == 47 and equals_ci(s + q + 2, m, name, m):
            if q + 2 + m == n or s[q + 2 + m] in (32, 9, 10, 12, 13, 47, 62):
                return q
        k = q + 1
    return n
