# ASCII byte helpers shared by the compiled walk (html_fastwalk) and the metadata search (lexbor_dom): attribute
# bytes compared case-blind with a lower-case literal (as HTML's "ASCII case-insensitive" match and a CSS selector's
# ``i`` flag compare), and stripped as Python's ``str.strip`` would. Inline functions in a .pxd: each module that
# cimports them compiles its own copy (no module of their own, no call through Python), so the two walks keep one
# definition.

cdef inline unsigned char ascii_lower(unsigned char c) noexcept nogil:
    return c + 32 if 65 <= c <= 90 else c


cdef inline bint equals_ci(const unsigned char* s, size_t n, const char* want, size_t m) noexcept nogil:
    """``s[:n]`` equals ``want[:m]`` (lower case) ignoring ASCII case."""
    cdef size_t i
    if n != m:
        return False
    for i in range(n):
        if ascii_lower(s[i]) != <unsigned char> want[i]:
            return False
    return True


cdef inline bint contains_ci(const unsigned char* s, size_t n, const char* want, size_t m) noexcept nogil:
    """``want[:m]`` (lower case) occurs in ``s[:n]``, ignoring ASCII case."""
    cdef size_t i
    if n < m:
        return False
    for i in range(n - m + 1):
        if equals_ci(s + i, m, want, m):
            return True
    return False


cdef inline bint is_ascii(const unsigned char* s, size_t n) noexcept nogil:
    """Every byte of ``s[:n]`` is ASCII: only then do the byte forms of ``strip``/``lower`` agree with Python's."""
    cdef size_t i
    for i in range(n):
        if s[i] >= 128:
            return False
    return True


cdef inline bint py_space(unsigned char c) noexcept nogil:
    """``chr(c).isspace()`` for an ASCII byte: tab to carriage return, the four information separators, space.
    (HTML's own ASCII whitespace is narrower: no \\v, no separators.)"""
    return c == 32 or 9 <= c <= 13 or 28 <= c <= 31


cdef inline void strip_ascii(const unsigned char* s, size_t n, const unsigned char** out, size_t* length) noexcept nogil:
    """``s[:n].strip()`` for ASCII bytes, as a pointer and length into ``s``."""
    while n and py_space(s[0]):
        s += 1
        n -= 1
    while n and py_space(s[n - 1]):
        n -= 1
    out[0] = s
    length[0] = n
