# ASCII case-blind byte comparisons, shared by the compiled walk (html_fastwalk) and the metadata search
# (lexbor_dom): attribute bytes against a lower-case literal, as HTML's "ASCII case-insensitive" match and a CSS
# selector's ``i`` flag compare. Inline functions in a .pxd: each module that cimports them compiles its own copy
# (no module of their own, no call through Python), so the two walks keep one definition.

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
