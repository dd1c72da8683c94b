# ---------------------------------------------------------------------------------------------------------------
# Whole-text scans: decimal digits, capitalised names, control characters, untidy spaces, ASCII needles,
# UTF-8 encoding, byte counts and a case-blind search. The C loops are in _text.h and _utf8.h.
# Included by _core.pyx (one module, one generated C file).


def has_decimal(texts):
    """Per text, 1 if it holds a decimal digit (what ``re``'s ``\\d`` matches: Unicode category Nd), else 0, as a
    uint8 array. Why compiled: the scorer asks it of every segment of a page for a "how many"/"when" question,
    and a regex search there cost more than the BM25 kernel."""
    cdef list items = _texts(texts)
    cdef Py_ssize_t t, i, n
    cdef int kind
    cdef void* data
    cdef uint32_t c
    out_arr = _ZEROS(len(items), _U8)
    cdef unsigned char[::1] out = out_arr
    for t in range(len(items)):
        text = items[t]
        kind = PyUnicode_KIND(text)
        data = PyUnicode_DATA(text)
        n = PyUnicode_GET_LENGTH(text)
        with nogil:
            for i in range(n):
                c = PyUnicode_READ(kind, data, i)
                if (48 <= c <= 57) or (c >= 128 and Py_UNICODE_ISDECIMAL(c)):
                    out[t] = 1
                    break
    return out_arr


cdef inline bint _is_re_word(uint32_t c) noexcept nogil:
    """``re``'s ``\\w`` on a str: alphanumeric (``str.isalnum``) or ``_``."""
    if c < 128:
        return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122) or c == 95
    return Py_UNICODE_ISALNUM(c)


cdef inline bint _in_name_run(uint32_t c) noexcept nogil:
    """``[\\w'’&.-]``: what a capitalised word (``capitalised_words``) may hold after its first letter."""
    return _is_re_word(c) or c == 39 or c == 0x2019 or c == 38 or c == 46 or c == 45


cdef enum:
    # What a code point is to ``capitalised_words`` (``_name_class``)
    _NAME_RUN = 1    # in a word: [\w'’&.-]
    _NAME_WORD = 2   # \w
    _NAME_FIRST = 4  # may start a word: \w but not \d or _
    _NAME_UPPER = 8  # upper case


cdef uint8_t _name_class_of(uint32_t c) noexcept nogil:
    cdef bint digit = (48 <= c <= 57) or (c >= 128 and Py_UNICODE_ISDECIMAL(c))
    return ((_NAME_RUN if _in_name_run(c) else 0) | (_NAME_WORD if _is_re_word(c) else 0)
            | (_NAME_FIRST if _is_re_word(c) and c != 95 and not digit else 0)
            | (_NAME_UPPER if Py_UNICODE_ISUPPER(c) else 0))


# ``_name_class_of`` of the first 256 code points: most text the names are read from is Latin-1, and a
# table read is cheaper than the Unicode database's calls
cdef uint8_t _NAME_CLASS[256]
for _c in range(256):
    _NAME_CLASS[_c] = _name_class_of(_c)


cdef inline uint8_t _name_class(uint32_t c) noexcept nogil:
    return _NAME_CLASS[c] if c < 256 else _name_class_of(c)


cdef Py_ssize_t _name_spans(int kind, const void* data, Py_ssize_t n, Py_ssize_t** spans, Py_ssize_t* cap
                            ) except -1:
    """Where ``capitalised_words``' words lie in a text (``kind`` and ``data`` as ``PyUnicode_KIND`` and
    ``PyUnicode_DATA`` give them, ``n`` code points): word w at ``[spans[0][2 * w], spans[0][2 * w + 1])``, in
    order; returns how many. ``spans``, room for ``cap`` entries, is grown as needed (the caller frees it)."""
    if kind == 1:
        return _spans_of(<const uint8_t*> data, n, spans, cap)
    if kind == 2:
        return _spans_of(<const uint16_t*> data, n, spans, cap)
    return _spans_of(<const uint32_t*> data, n, spans, cap)


cdef Py_ssize_t _spans_of(const _char_t* data, Py_ssize_t n, Py_ssize_t** spans, Py_ssize_t* cap) except -1:
    cdef Py_ssize_t i = 0, e, p, m = 0
    cdef uint8_t c
    while i < n:
        if not _name_class(data[i]) & _NAME_RUN:
            i += 1
            continue
        e = i + 1
        while e < n and _name_class(data[e]) & _NAME_RUN:
            e += 1
        for p in range(i, e):
            c = _name_class(data[p])
            if c & _NAME_FIRST and (p == i or not _name_class(data[p - 1]) & _NAME_WORD):
                if c & _NAME_UPPER:
                    _grow(<void**> spans, cap, 2 * m + 2, sizeof(Py_ssize_t))
                    spans[0][2 * m] = p
                    spans[0][2 * m + 1] = e
                    m += 1
                break
        i = e
    return m


def capitalised_words(str text):
    """The words of ``text`` that start with an upper-case letter, joined by single spaces: what
    ``" ".join(w for w in re.findall(r"\\b[^\\W\\d_][\\w'’&.-]*", text) if w[0].isupper())`` returns.

    How: every match lies in a maximal run of ``[\\w'’&.-]`` and runs to its end (the class is greedy), and a run
    holds at most one match, starting at the run's first letter (``\\w`` but not ``\\d`` or ``_``) that follows a
    non-word character or starts the run. Why compiled: the scorer's second-hop bridges ask it of the best
    segments with their neighbours (a few thousand characters), and a regex reads those
    a character at a time through its matching machinery."""
    cdef Py_ssize_t* spans = NULL
    cdef Py_ssize_t cap = 0, m, w
    try:
        m = _name_spans(PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text), &spans, &cap)
        return " ".join([text[spans[2 * w]:spans[2 * w + 1]] for w in range(m)])
    finally:
        free(spans)


def control_count(str text, Py_ssize_t limit):
    """How many of the first ``limit`` characters are control characters or U+FFFD (the
    ``[\x00-\x08\x0e-\x1f\ufffd]`` of ``source._CONTROL``): the binary check every input gets. Why compiled:
    on a page held two bytes a character, a regex count of the sample took longer than reading the page's
    metadata."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t i, head = min(max(limit, 0), PyUnicode_GET_LENGTH(text)), controls = 0
    cdef const uint32_t* four
    with nogil:
        if kind == 1:
            controls = qatbe_controls8(<const unsigned char*> data, head)
        elif kind == 2:
            controls = qatbe_controls16(<const uint16_t*> data, head)
        else:
            four = <const uint32_t*> data
            for i in range(head):
                controls += qatbe_is_control(four[i])
    return controls


def any_control(str text):
    """``source._ANY_CONTROL.search(text) is not None``: whether the text holds a character ``strip_controls``
    removes or replaces (C0 controls but tab, line feed and carriage return; U+007F-U+009F) or a lone surrogate.
    Why compiled: every input is checked whole, and the regex read a page at a quarter of its parse's speed."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text)
    cdef int found
    with nogil:
        found = qatbe_any_control(data, n, kind)
    return found != 0


def find_pair(str text, str pair, Py_ssize_t start=0):
    """``text.find(pair, start)`` for a ``pair`` of two characters (a negative ``start`` counts as 0).
    Why compiled: ``source`` looks for every "&#" of every page, and str.find steps through a two-character
    needle one character at a time."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), found
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef uint32_t a, b
    if PyUnicode_GET_LENGTH(pair) != 2:
        raise ValueError(f"find_pair needs two characters, got {len(pair)}")
    a = PyUnicode_READ_CHAR(pair, 0)
    b = PyUnicode_READ_CHAR(pair, 1)
    with nogil:
        found = qatbe_find_pair(data, n, kind, a, b, start)
    return found


cdef extern from "_text.h":
    Py_ssize_t qatbe_find_pair(const void* data, Py_ssize_t n, int kind, uint32_t a, uint32_t b,
                               Py_ssize_t start) nogil
    int qatbe_any_control(const void* data, Py_ssize_t n, int kind) nogil
    Py_ssize_t qatbe_is_control(uint32_t c) nogil
    Py_ssize_t qatbe_controls8(const uint8_t* s, Py_ssize_t n) nogil
    Py_ssize_t qatbe_controls16(const uint16_t* s, Py_ssize_t n) nogil
    Py_ssize_t qatbe_byte_count(const uint8_t* s, Py_ssize_t n, uint8_t value) nogil
    int qatbe_contains_ci(const uint8_t* s, size_t n, const uint8_t* needle, size_t m) nogil


cdef extern from "_utf8.h":
    object qatbe_utf8_encode(int kind, const void* data, Py_ssize_t n)


def untidy(str text):
    """``"  " in text or text[:1] == " " or text[-1:] == " "``: whether a text the HTML walk collapsed still needs
    its spaces collapsed (the walk deletes soft hyphens and zero-width spaces after collapsing).

    Why compiled: the builder asks it of every text of every page, and ``str.__contains__`` looks for two spaces
    one candidate at a time (each single space is one); ``qatbe_find_pair`` tests 16 or 32 positions at once."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text)
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    if n == 0:
        return False
    if PyUnicode_READ(kind, data, 0) == 32 or PyUnicode_READ(kind, data, n - 1) == 32:
        return True
    return qatbe_find_pair(data, n, kind, 32, 32, 0) >= 0


cdef inline bint _needle_at(int kind, const void* data, Py_ssize_t i, const unsigned char* needle,
                            Py_ssize_t m) noexcept nogil:
    cdef Py_ssize_t j
    for j in range(m):
        if PyUnicode_READ(kind, data, i + j) != needle[j]:
            return False
    return True


cdef bint _holds8(const uint8_t* data, Py_ssize_t n, const unsigned char* needle, Py_ssize_t m,
                  Py_ssize_t pivot) noexcept nogil:
    """Is ``needle`` in the one-byte text? memchr finds the candidates by the needle's ``pivot`` character."""
    cdef const uint8_t* p = data + pivot
    cdef const uint8_t* end = data + n - (m - pivot) + 1  # past the last place the pivot can stand
    while p < end:
        p = <const uint8_t*> memchr(p, needle[pivot], end - p)
        if p == NULL:
            return False
        if memcmp(p - pivot, needle, m) == 0:
            return True
        p += 1
    return False


def holds_either(str text, bytes first, bytes second):
    """``first in text or second in text`` for two ASCII needles of one length (a word in lower case and in
    capitals), without making a string.

    Why compiled: the decision step asks it of every short paragraph ("ookie" or "OOKIE"), and CPython widens an
    ASCII needle into a new string before searching a text stored two bytes a character.
    Candidates are found by the needle's middle character (memchr in one-byte texts)."""
    cdef Py_ssize_t m = len(first), n = PyUnicode_GET_LENGTH(text), i, pivot
    cdef int kind = PyUnicode_KIND(text)
    cdef const void* data = PyUnicode_DATA(text)
    cdef const unsigned char* a = <const unsigned char*> PyBytes_AS_STRING(first)
    cdef const unsigned char* b = <const unsigned char*> PyBytes_AS_STRING(second)
    cdef Py_UCS4 c
    if len(second) != m or m == 0:
        raise ValueError("the two needles must be non-empty and of one length")
    for i in range(m):
        if a[i] >= 128 or b[i] >= 128:
            raise ValueError("the needles must be ASCII")
    if n < m:
        return False
    pivot = m // 2
    if kind == 1:
        return _holds8(<const uint8_t*> data, n, a, m, pivot) or _holds8(<const uint8_t*> data, n, b, m, pivot)
    for i in range(pivot, n - (m - pivot) + 1):
        c = PyUnicode_READ(kind, data, i)
        if (c == a[pivot] and _needle_at(kind, data, i - pivot, a, m)) or (
                c == b[pivot] and _needle_at(kind, data, i - pivot, b, m)):
            return True
    return False


def utf8_encode(str text):
    """``text.encode("utf-8", "ignore")``, what selectolax does to a str before Lexbor parses it.

    Why by hand: a page with one character outside Latin-1 (a curly quote, a dash: all of scrapinghub-aeb) is
    stored two bytes a character, one with an emoji four, and CPython encodes those one character at a time.
    Here the mostly-ASCII markup goes eight or more characters a step. So does a page stored one byte a character
    with a character outside ASCII (a no-break space, an accented letter), which CPython also encodes one
    character at a time; only an all-ASCII str is left to CPython (a copy)."""
    cdef int kind = PyUnicode_KIND(text)
    if PyUnicode_IS_ASCII(text):
        return text.encode("utf-8", "ignore")  # a copy of the str's own bytes
    return qatbe_utf8_encode(kind, PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text))


def byte_count(const unsigned char[::1] data, unsigned char value):
    """``data.count(bytes([value]))`` (the nesting guard counts the "<" of every HTML page; CPython's single-byte
    count goes a byte at a time, this sixteen or thirty-two bytes a step)."""
    cdef Py_ssize_t n = data.shape[0], count
    cdef const unsigned char* p = &data[0] if n else NULL
    with nogil:
        count = qatbe_byte_count(p, n, value) if n else 0
    return count


def contains_ci(const unsigned char[::1] data, bytes needle):
    """Whether ``data`` holds ``needle`` with its ASCII letters in either case: ``needle.lower() in data.lower()``
    for an ASCII ``needle``, without the copies. Why compiled: every HTML page is asked whether it holds
    ``<math`` before the formulas are looked for, and ``bytes.find`` would need a lower-cased copy or a search per
    case; this runs sixteen bytes a step over the page as it is."""
    cdef Py_ssize_t n = data.shape[0], m = len(needle)
    cdef bytes low = needle.lower()
    cdef const unsigned char* want = low
    cdef int found
    if m == 0:
        return True
    if not needle.isascii():
        raise ValueError("needle must be ASCII")
    if n < m:
        return False
    with nogil:
        found = qatbe_contains_ci(&data[0], n, want, m)
    return found != 0
