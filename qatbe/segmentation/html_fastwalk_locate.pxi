# html_fastwalk, part 4: source positions over the page's UTF-8 bytes (ByteLocator; the searches and counts
# in C are in html_fastwalk_find.h). Included by html_fastwalk.pyx.

# -- source positions over UTF-8 bytes --------------------------------------------------------------------

cdef extern from "html_fastwalk_find.h":
    const char* qatbe_find(const char* s, size_t n, const char* needle, size_t m) nogil


cdef extern from "../_simd.h":
    void qatbe_simd_init() nogil
    int qatbe_simd_use_avx2(int on) nogil


qatbe_simd_init()  # which scan the processor can run, read once at import (_simd.h)


def use_avx2(bint on):
    """For tests: the locator's scans with AVX2 (where the processor has it: the default) or without (SSE2, or
    plain C off x86-64); returns whether AVX2 is now in use. Not thread-safe: only tests call it."""
    return bool(qatbe_simd_use_avx2(on))


cdef extern from "html_fastwalk_find.h":
    Py_ssize_t qatbe_code_points(const char* s, Py_ssize_t n) nogil


cdef inline bint _alnum(Py_UCS4 c) noexcept:
    return (97 <= c <= 122) or (65 <= c <= 90) or (48 <= c <= 57)


cdef Py_ssize_t _ascii_run(str text, char* out) noexcept:
    """``_needle(text)`` when it is the first run of four or more ASCII letters and digits in the first 400
    characters, copied into ``out`` (room for 400); its length, or 0 when ``_needle`` falls back to the text's
    first eight characters."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i, k, run = 0
    cdef Py_UCS4 c
    if n > 400:
        n = 400
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if _alnum(c):
            run += 1
        elif run >= 4:
            break
        else:
            run = 0
    else:
        i = n
    if run < 4:
        return 0
    for k in range(run):
        out[k] = <char> PyUnicode_READ(kind, data, i - run + k)
    return run


cdef class ByteLocator:
    """``html_emit._Locator`` over the page's UTF-8 bytes: the same positions (character offsets in ``html``).

    Why: the locator's ``str.find`` over a page held two bytes a character (most pages: a curly quote is enough)
    was a tenth of ``extract``. The page is encoded once anyway, for the parser (selectolax would encode a
    ``str`` itself, with the same errors="ignore"); here ``qatbe_find`` searches those bytes and a byte offset
    becomes a character offset by counting the code points the cursor passes. The first match in bytes is the
    first in characters, so the search need only reach the bytes that end inside the window (``_search``).
    """

    cdef bytes data
    cdef Py_ssize_t cursor_b, cursor_c, budget, window

    def __init__(self, str html, bytes data, Py_ssize_t window=SEARCH_WINDOW):
        cdef const char* p = data
        cdef const char* at = qatbe_find(p, len(data), b"<body", 5)
        if window < 1:
            raise ValueError("window must be at least 1 character")
        self.data = data
        self.window = window
        self.cursor_b = (at - p) if at != NULL else 0
        self.cursor_c = qatbe_code_points(p, self.cursor_b)
        self.budget = 4 * len(html) + window

    cpdef Py_ssize_t find(self, str text) except? -2:
        cdef Py_ssize_t cursor = self.cursor_c, budget = self.budget, end, found_c, length, n_bytes
        cdef const char* p = self.data
        cdef const char* want
        cdef const char* at
        cdef bytes needle_b
        cdef char run[400]
        if budget <= 0:
            return cursor
        # The needle is nearly always a run of ASCII letters and digits (``_needle``): read here into a C buffer,
        # its UTF-8 bytes are its characters. Why: the str and bytes objects ``_needle`` and ``encode`` made
        # cost more than most searches, a couple of hundred of them a page.
        length = _ascii_run(text, run)
        if length:
            want = run
            n_bytes = length
        else:
            needle = _needle(text)
            if not needle:
                return cursor
            needle_b = needle.encode("utf-8", "surrogatepass")
            want = needle_b
            length = len(needle)
            n_bytes = len(needle_b)
        end = cursor + min(budget, self.window)
        at = self._search(want, n_bytes, end - cursor)
        if at != NULL:
            found_c = cursor + qatbe_code_points(p + self.cursor_b, at - (p + self.cursor_b))
            if found_c + length <= end:
                self.cursor_b = (at - p) + n_bytes
                self.cursor_c = found_c + length
                self.budget = budget - (self.cursor_c - cursor)
                return found_c
        self.budget = budget - (end - cursor)
        return cursor

    cdef const char* _search(self, const char* want, Py_ssize_t m, Py_ssize_t chars) noexcept:
        """The first occurrence of ``want[:m]`` after the cursor that ends within its next ``chars`` characters,
        or NULL.

        Why in steps: a miss (a word split by a tag, a block out of page order: four a page on wcxb) searches the
        whole window, and the window's characters take from one to four bytes each. Searching four bytes a
        character for a page that is mostly one byte a character scanned up to four times the window, and misses
        were three quarters of the locator's time. Each step searches only bytes that are certainly inside the
        window (as many as the characters still left in it, to the end of the character the last one is in),
        then counts the characters they held."""
        cdef const char* base = (<const char*> self.data) + self.cursor_b
        cdef Py_ssize_t avail = len(self.data) - self.cursor_b, done = 0, seen = 0, step, low
        cdef const char* at
        while seen < chars and done < avail:
            step = min(chars - seen, avail - done)
            # To the end of the step's last character: its other bytes are inside the window too.
            while done + step < avail and (<unsigned char> base[done + step]) & 0xC0 == 0x80:
                step += 1
            low = done - (m - 1) if done >= m - 1 else 0  # a match may start in the previous step's tail
            at = qatbe_find(base + low, done + step - low, want, m)
            if at != NULL or done + step == avail:  # found, or nothing left to search
                return at
            seen += qatbe_code_points(base + done, step)
            done += step
        return NULL
