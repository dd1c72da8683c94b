# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The HTML walk of ``html_walk``, over Lexbor's nodes in C (``lexbor_nodes``): the same blocks, contexts and boxes.

Why a second walk: the pure-Python walk (``html_walk.Walker``, also compiled) reads the tree through
selectolax's Python objects, one or more per node, and that cost twice the parse on a typical page. Here a node
costs a few C calls; Python objects are made only for what the later stages read: blocks, evidence contexts and
container boxes. The rules are ``html_walk``'s, step for step (its docstrings say why each one exists); the tag
sets are imported from there, so the two cannot drift apart in what they mean, and the tests run both walks on
the same pages and compare every block. ``segment_html`` uses this walk whenever ``lexbor_nodes`` can read the
tree, and ``html_walk.Walker`` otherwise.

Differences in mechanics, not in output:

* Nothing is stripped from the tree first: script-like elements (``html_walk.SCRIPT_LIKE``) are skipped
  wherever the Python walk's ``strip_tags`` would have removed them (the walk, subtree texts, table reading and
  the searches for ``<table>``, ``<code>`` and main-like elements).
* Text is collected as UTF-8 bytes and decoded once per block. Lexbor holds valid UTF-8 (selectolax encodes
  ``str`` input with errors ignored), so this decodes to what joining per-node decodes gives.
* Evidence (``html_boilerplate.evidence``) and hiding (``is_hidden``, ``hidden_by_class``) depend only on the tag
  and a few attributes; their answers are memoised for the process, keyed by exactly those attribute values.
"""

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport uint32_t, uintptr_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset

cdef extern from "Python.h":
    int PyUnicode_KIND(object o)
    void* PyUnicode_DATA(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)

from qatbe.segmentation.ascii_bytes cimport ascii_lower, contains_ci, equals_ci, is_ascii, strip_ascii
from qatbe.segmentation.lexbor_nodes cimport (
    first_child,
    next_sibling,
    node_type,
    parent_of,
    tag_id,
    NODE_ELEMENT,
    NODE_TEXT,
    STATIC_TAG_IDS,
    LexborApi,
    lexbor_api,
    text_data,
    uchar,
)

from unicodedata import is_normalized, normalize

from .html_boilerplate import NONE, STRONG, WEAK, evidence, hidden_by_class, is_hidden
from .html_tables import (
    CHEAP_INLINE,
    SKIP_TAGS,
    SPACED,
    TableData,
    _LONG_CELL,
    _MAX_COLSPAN,
    _MAX_ROWSPAN,
    _STRUCTURE,
    _expand,
    _merge_header,
    int_value,
)
from qatbe.segmentation.html_walk cimport Block, Box, Ctx

from .html_emit import _SEARCH_WINDOW, _needle
from .html_walk import (
    _BLOCKS,
    _BOX_TAGS,
    _HEADINGS,
    _LISTS,
    _PLAIN,
    _WALK_SKIP,
    SCRIPT_LIKE,
    code_language,
    list_start,
)

# -- what a tag is to the walk ------------------------------------------------------------------------------

cdef Py_ssize_t SEARCH_WINDOW = _SEARCH_WINDOW

cdef enum:
    F_SCRIPT = 1 << 0     # removed before the Python walk (SCRIPT_LIKE): invisible everywhere
    F_WSKIP = 1 << 1      # the walk skips it (_WALK_SKIP)
    F_FSKIP = 1 << 2      # subtree text skips it (SKIP_TAGS)
    F_CHEAP = 1 << 3      # CHEAP_INLINE
    F_PLAIN = 1 << 4      # _PLAIN: evidence from the list or table
    F_BLOCK = 1 << 5      # _BLOCKS, or a custom element
    F_BOX = 1 << 6        # _BOX_TAGS
    F_LIST = 1 << 7       # _LISTS
    F_SPACED = 1 << 8     # SPACED
    F_STRUCTURE = 1 << 9  # _STRUCTURE
    F_MAINLIKE = 1 << 10  # html_walk._MAIN_LIKE's tag selectors

# Tags the walk names one by one.
cdef enum:
    T_OTHER = 0
    T_A
    T_BR
    T_HR
    T_LI
    T_DT
    T_DD
    T_OL
    T_TABLE
    T_PRE
    T_BLOCKQUOTE
    T_CAPTION      # figcaption or caption
    T_SUMMARY
    T_NOSCRIPT
    T_FORM
    T_HEADER
    T_MAIN
    T_TR
    T_TD
    T_TH
    T_THEAD        # thead
    T_TBODY        # tbody or tfoot
    T_CAPTION_EL   # caption (a table's own)
    T_CODE
    T_SUP

_CODES = {"a": T_A, "br": T_BR, "hr": T_HR, "li": T_LI, "dt": T_DT, "dd": T_DD, "ol": T_OL, "table": T_TABLE,
          "pre": T_PRE, "blockquote": T_BLOCKQUOTE, "figcaption": T_CAPTION, "caption": T_CAPTION_EL,
          "summary": T_SUMMARY, "noscript": T_NOSCRIPT, "form": T_FORM, "header": T_HEADER, "main": T_MAIN,
          "tr": T_TR, "td": T_TD, "th": T_TH, "thead": T_THEAD, "tbody": T_TBODY, "tfoot": T_TBODY,
          "code": T_CODE, "sup": T_SUP}
_MAIN_TAGS = frozenset({"main", "article", "p", "h1", "h2", "table", "pre", "blockquote"})

ctypedef struct TagInfo:
    unsigned int flags
    int code
    int level   # heading level, 0 for other tags
    bint known
    int neg     # evidence(tag, {}): what the tag alone says (for elements with none of the attributes it reads)
    bint pos
    bint hidden
    bint byline


cdef TagInfo _static[STATIC_TAG_IDS]
_static_names = [None] * STATIC_TAG_IDS


cdef TagInfo _classify(str name):
    cdef TagInfo info
    cdef unsigned int flags = 0
    if name in SCRIPT_LIKE:
        flags |= F_SCRIPT
    if name in _WALK_SKIP:
        flags |= F_WSKIP
    if name in SKIP_TAGS:
        flags |= F_FSKIP
    if name in CHEAP_INLINE:
        flags |= F_CHEAP
    if name in _PLAIN:
        flags |= F_PLAIN
    if name in _BLOCKS or "-" in name:
        flags |= F_BLOCK
    if name in _BOX_TAGS:
        flags |= F_BOX
    if name in _LISTS:
        flags |= F_LIST
    if name in SPACED:
        flags |= F_SPACED
    if name in _STRUCTURE:
        flags |= F_STRUCTURE
    if name in _MAIN_TAGS:
        flags |= F_MAINLIKE
    info.flags = flags
    info.code = _CODES.get(name, T_OTHER)
    info.level = _HEADINGS.get(name, 0)
    info.known = True
    info.neg, info.pos, info.hidden, info.byline = evidence(name, {})
    return info


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


cdef extern from *:
    """
    /* Bit 7 of each zero byte of y, the rest 0: exact, since no carry crosses a byte (the usual
       (y - 0x0101...) & ~y & H may also flag the byte after a zero one). */
    #include <stdint.h>
    #include <string.h>
    static inline uint64_t qatbe_zero_bytes(uint64_t y) {
        const uint64_t H = 0x8080808080808080ULL, L = 0x7F7F7F7F7F7F7F7FULL;
        return ~(((y & L) + L) | y) & H;
    }
    /* Eight bytes that whitespace collapsing leaves as they are, after a non-space: printable ASCII (0x20-0x7F),
       no two spaces side by side, and not ending in a space (whose fate depends on what follows). SWAR tests with
       no carry between bytes, so each is exact; the byte order matters (the last byte is the top one), so other
       machines take the byte loop. */
    static inline int qatbe_plain8(const unsigned char* p) {
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        const uint64_t H = 0x8080808080808080ULL;
        uint64_t x, spaces;
        memcpy(&x, p, 8);
        if (x & H) return 0;                                     /* a byte >= 0x80 */
        if (~(x + 0x6060606060606060ULL) & H) return 0;          /* a byte < 0x20 (tab, newline, controls) */
        spaces = qatbe_zero_bytes(x ^ 0x2020202020202020ULL);    /* bit 7 of each space byte */
        return !(spaces & (spaces << 8)) && !(spaces >> 63);
    #else
        (void) p;
        return 0;
    #endif
    }
    /* Eight bytes of layout whitespace (space, tab, newline, carriage return): the indentation between tags, which
       collapsing drops or turns into one space. Each byte compared exactly (a zero-byte test per value). */
    static inline int qatbe_blank8(const unsigned char* p) {
        uint64_t x;
        memcpy(&x, p, 8);
        return (qatbe_zero_bytes(x ^ 0x2020202020202020ULL) | qatbe_zero_bytes(x ^ 0x0A0A0A0A0A0A0A0AULL)
                | qatbe_zero_bytes(x ^ 0x0909090909090909ULL) | qatbe_zero_bytes(x ^ 0x0D0D0D0D0D0D0D0DULL))
               == 0x8080808080808080ULL;
    }
    """
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


# -- attributes ---------------------------------------------------------------------------------------------

# The attributes evidence and hiding read (html_boilerplate.evidence, is_hidden, hidden_by_class), in key order.
cdef enum:
    A_CLASS = 0
    A_ID
    A_ITEMPROP
    A_ROLE
    A_HIDDEN
    A_ARIA_HIDDEN
    A_STYLE
    A_COUNT

_ATTR_NAMES = ("class", "id", "itemprop", "role", "hidden", "aria-hidden", "style")

ctypedef struct Attrs:
    const uchar* value[A_COUNT]
    size_t length[A_COUNT]
    bint present[A_COUNT]


cdef inline bint _named(const uchar* name, size_t length, const char* want, size_t want_length) noexcept nogil:
    return length == want_length and memcmp(name, want, length) == 0


cdef void _read_attrs(const LexborApi* api, void* node, Attrs* out) noexcept nogil:
    cdef size_t length = 0, value_length = 0
    cdef const uchar* name
    cdef int slot
    cdef void* attr = api.first_attr(node)
    for slot in range(A_COUNT):
        out.present[slot] = False
        out.value[slot] = NULL
        out.length[slot] = 0
    while attr != NULL:
        name = api.attr_name(attr, &length)
        slot = -1
        if _named(name, length, b"class", 5):
            slot = A_CLASS
        elif _named(name, length, b"id", 2):
            slot = A_ID
        elif _named(name, length, b"itemprop", 8):
            slot = A_ITEMPROP
        elif _named(name, length, b"role", 4):
            slot = A_ROLE
        elif _named(name, length, b"hidden", 6):
            slot = A_HIDDEN
        elif _named(name, length, b"aria-hidden", 11):
            slot = A_ARIA_HIDDEN
        elif _named(name, length, b"style", 5):
            slot = A_STYLE
        if slot >= 0:
            out.present[slot] = True
            out.value[slot] = api.attr_value(attr, &value_length)
            out.length[slot] = value_length if out.value[slot] != NULL else 0
        attr = api.next_attr(attr)


cdef object _attr(const LexborApi* api, void* node, const char* want, size_t want_length, bint* present):
    """One attribute's value as selectolax gives it (None without a value); ``present`` says if it exists."""
    cdef size_t length = 0, value_length = 0
    cdef const uchar* name
    cdef const uchar* value
    cdef void* attr = api.first_attr(node)
    while attr != NULL:
        name = api.attr_name(attr, &length)
        if _named(name, length, want, want_length):
            present[0] = True
            value = api.attr_value(attr, &value_length)
            if value == NULL:
                return None
            return PyUnicode_DecodeUTF8(<const char*> value, value_length, "replace")
        attr = api.next_attr(attr)
    present[0] = False
    return None


cdef object _attr_or_none(const LexborApi* api, void* node, const char* want, size_t want_length):
    cdef bint present = False
    return _attr(api, node, want, want_length, &present)


cdef dict _attrs_dict(Attrs* a):
    """The read attributes as selectolax's ``attributes`` would hold them (only these keys)."""
    cdef dict out = {}
    cdef int slot
    for slot in range(A_COUNT):
        if a.present[slot]:
            out[_ATTR_NAMES[slot]] = (
                PyUnicode_DecodeUTF8(<const char*> a.value[slot], a.length[slot], "replace")
                if a.value[slot] != NULL else None)
    return out


cdef bytes _attrs_key(Attrs* a, uintptr_t prefix, Buffer* scratch):
    """Bytes that identify (prefix, the read attributes): a memo key."""
    cdef int slot
    cdef uintptr_t size
    scratch.length = 0
    _put(scratch, &prefix, sizeof(uintptr_t))
    for slot in range(A_COUNT):
        if a.present[slot]:
            size = a.length[slot] + 1 if a.value[slot] != NULL else 0  # 0: present without a value
            _put(scratch, &size, sizeof(uintptr_t))
            if a.value[slot] != NULL:
                _put(scratch, a.value[slot], a.length[slot])
        else:
            size = <uintptr_t> -1
            _put(scratch, &size, sizeof(uintptr_t))
    return PyBytes_FromStringAndSize(scratch.data, scratch.length)


# -- evidence in C (html_boilerplate.evidence for ASCII attribute values) ---------------------------------

# Why: on a page whose class names the process has not met (most pages of a crawl over many sites) evidence was
# about two thirds of the walk, 5-8 us per new element in Python. The rules are html_boilerplate's, over the same
# word lists (loaded from it below); values with any non-ASCII byte go to the Python function, where case folding
# and whitespace are Unicode's. tests/test_html_fastwalk.py compares the two on generated attributes.

# html_boilerplate's evidence levels (checked below).
cdef enum:
    EV_NONE = 0
    EV_WEAK = 1
    EV_STRONG = 2

if (NONE, WEAK, STRONG) != (EV_NONE, EV_WEAK, EV_STRONG):
    raise ImportError("html_boilerplate's evidence levels changed; update html_fastwalk")

cdef enum:
    W_QUOTE = 1
    W_STRONG = 2
    W_WEAK = 4
    W_META = 8
    W_HIDDEN = 16     # a whole class name a stylesheet hides
    W_NEG_ROLE = 32   # a whole role value

cdef enum:
    WORD_SLOTS = 1024   # a power of two, well above twice the number of words
    WORD_MAX = 32

ctypedef struct WordSlot:
    char word[WORD_MAX]
    int length
    int flags

cdef WordSlot _word_table[WORD_SLOTS]
_infixes = []  # (bytes, strong) kept alive for the C pointers below
cdef const char* _infix_ptr[32]
cdef int _infix_len[32]
cdef bint _infix_strong[32]
cdef int _n_infixes = 0


cdef inline uint32_t _word_hash(const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef uint32_t h = 2166136261u
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ s[i]) * 16777619u
    return h


cdef int _word_flags(const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef uint32_t j
    if n <= 0 or n >= WORD_MAX:
        return 0
    j = _word_hash(s, n) & (WORD_SLOTS - 1)
    while _word_table[j].length:
        if _word_table[j].length == n and memcmp(_word_table[j].word, s, n) == 0:
            return _word_table[j].flags
        j = (j + 1) & (WORD_SLOTS - 1)
    return 0


cdef _add_words(words, int flag):
    cdef bytes b
    cdef uint32_t j
    cdef Py_ssize_t n
    for word in words:
        b = word.encode("ascii")
        n = len(b)
        if n >= WORD_MAX:
            raise ValueError(f"evidence word too long for the C table: {word!r}")
        j = _word_hash(b, n) & (WORD_SLOTS - 1)
        while _word_table[j].length and not (_word_table[j].length == n and memcmp(_word_table[j].word, <const char*> b, n) == 0):
            j = (j + 1) & (WORD_SLOTS - 1)
        memcpy(_word_table[j].word, <const char*> b, n)
        _word_table[j].length = n
        _word_table[j].flags |= flag


def _load_words():
    global _n_infixes
    from . import html_boilerplate as hb
    _add_words(hb._QUOTE_WORDS, W_QUOTE)
    _add_words(hb._STRONG_WORDS, W_STRONG)
    _add_words(hb._WEAK_WORDS, W_WEAK)
    _add_words(hb._META_WORDS, W_META)
    _add_words(hb._HIDDEN_CLASSES, W_HIDDEN)
    _add_words(hb.NEG_ROLES, W_NEG_ROLE)
    for infix, strong in [(f, True) for f in hb._STRONG_INFIXES] + [(f, False) for f in hb._WEAK_INFIXES]:
        b = infix.encode("ascii")
        _infixes.append(b)
        _infix_ptr[_n_infixes] = b
        _infix_len[_n_infixes] = len(b)
        _infix_strong[_n_infixes] = strong
        _infix_start[b[0]] = True
        _n_infixes += 1


_load_words()


cdef bint _infix_start[256]  # the first letters of the infixes


cdef int _infix_level(const uchar* s, Py_ssize_t n) noexcept nogil:
    """STRONG if a strong infix occurs in ``s``, else WEAK if a weak one does, else NONE."""
    cdef Py_ssize_t i, k
    cdef bint weak = False
    for i in range(n):
        if not _infix_start[s[i]]:
            continue
        for k in range(_n_infixes):
            if (s[i] == <uchar> _infix_ptr[k][0] and i + _infix_len[k] <= n
                    and memcmp(s + i, _infix_ptr[k], _infix_len[k]) == 0):
                if _infix_strong[k]:
                    return EV_STRONG
                weak = True
    return EV_WEAK if weak else EV_NONE


ctypedef struct NameEvidence:
    int level
    bint quote
    bint hidden
    bint meta
    bint reference   # one of the names is "reference" (a footnote marker on <sup>)
    bint unusual     # a name too long or in too many pieces for the C form: ask Python


cdef void _token_evidence(const uchar* t, Py_ssize_t n, NameEvidence* out) noexcept nogil:
    """html_boilerplate._token for one ASCII name, combined into ``out`` as _names combines them."""
    cdef uchar low[256]
    cdef uchar joined[WORD_MAX]
    cdef Py_ssize_t starts[64]
    cdef Py_ssize_t ends[64]
    cdef Py_ssize_t i, k, pieces = 0, start, end, a, b, c
    cdef int flags = 0, level = 0
    cdef bint hidden
    if n > 255:
        out.unusual = True
        return
    for i in range(n):
        low[i] = ascii_lower(t[i])
    hidden = (_word_flags(low, n) & W_HIDDEN) != 0
    if n == 9 and memcmp(low, b"reference", 9) == 0:
        out.reference = True
    # re.split(r"[\s_-]+") inside a name: runs of "_" and "-" (with empty pieces at a leading or trailing run)
    start = 0
    i = 0
    while i <= n and pieces < 64:
        if i == n or low[i] == b"_" or low[i] == b"-":
            end = i
            while end > start and 48 <= low[end - 1] <= 57:  # rstrip("0123456789")
                end -= 1
            starts[pieces] = start
            ends[pieces] = end
            pieces += 1
            if i == n:
                break
            if pieces == 63:
                out.unusual = True
                return
            while i < n and (low[i] == b"_" or low[i] == b"-"):
                i += 1
            start = i
            if i == n:
                starts[pieces] = start
                ends[pieces] = start
                pieces += 1
                break
            continue
        i += 1
    for k in range(pieces):
        a = ends[k] - starts[k]
        flags |= _word_flags(low + starts[k], a)
        if k + 1 < pieces:
            b = ends[k + 1] - starts[k + 1]
            if a + b < WORD_MAX:
                memcpy(joined, low + starts[k], a)
                memcpy(joined + a, low + starts[k + 1], b)
                flags |= _word_flags(joined, a + b)
                if k + 2 < pieces:
                    c = ends[k + 2] - starts[k + 2]
                    if a + b + c < WORD_MAX:
                        memcpy(joined + a + b, low + starts[k + 2], c)
                        flags |= _word_flags(joined, a + b + c)
    out.hidden = out.hidden or hidden
    if flags & W_QUOTE:
        out.quote = True
        return
    if flags & W_STRONG:
        level = EV_STRONG
    else:
        level = _infix_level(low, n)
        if level == EV_NONE and flags & W_WEAK:
            level = EV_WEAK
    if level > out.level:
        out.level = level
    if flags & W_META:
        out.meta = True


# Names recur (a utility class such as "flex" on a hundred elements of a page, a site's names on all its pages):
# each name's evidence is kept in a table of the names seen, emptied when it is half full. Only under the GIL.
cdef enum:
    NAME_SLOTS = 1 << 16
    NAME_ARENA = 1 << 20

ctypedef struct NameSlot:
    uint32_t hash      # 0: empty
    uint32_t offset    # into _name_arena
    uint32_t length
    int level
    unsigned char flags  # 1 quote, 2 hidden, 4 meta, 8 reference, 16 unusual

cdef NameSlot* _name_slots = NULL
cdef char* _name_arena = NULL
cdef Py_ssize_t _name_used = 0, _arena_used = 0


cdef inline void _merge(NameEvidence* out, const NameEvidence* one) noexcept nogil:
    """``one`` combined into ``out`` as ``_names`` combines its names: the strongest level, any flag."""
    if one.level > out.level:
        out.level = one.level
    out.quote = out.quote or one.quote
    out.hidden = out.hidden or one.hidden
    out.meta = out.meta or one.meta
    out.reference = out.reference or one.reference
    out.unusual = out.unusual or one.unusual


cdef bint _known_name(const uchar* t, Py_ssize_t n, uint32_t h, NameEvidence* out) noexcept nogil:
    """Whether ``t`` is in the table of names seen (``_name_slots``), its evidence then combined into ``out``."""
    cdef Py_ssize_t j
    cdef NameSlot* slot
    if _name_slots == NULL:
        return False
    j = h & (NAME_SLOTS - 1)
    while _name_slots[j].hash:
        slot = &_name_slots[j]
        if slot.hash == h and slot.length == n and memcmp(_name_arena + slot.offset, t, n) == 0:
            if slot.level > out.level:
                out.level = slot.level
            out.quote = out.quote or (slot.flags & 1) != 0
            out.hidden = out.hidden or (slot.flags & 2) != 0
            out.meta = out.meta or (slot.flags & 4) != 0
            out.reference = out.reference or (slot.flags & 8) != 0
            out.unusual = out.unusual or (slot.flags & 16) != 0
            return True
        j = (j + 1) & (NAME_SLOTS - 1)
    return False


cdef void _remember_name(const uchar* t, Py_ssize_t n, uint32_t h, const NameEvidence* one) noexcept nogil:
    """``t``'s evidence into the table of names seen (emptied first when half full, or when its text arena is)."""
    global _name_slots, _name_arena, _name_used, _arena_used
    cdef Py_ssize_t j
    cdef NameSlot* slot
    if _name_slots == NULL:
        _name_slots = <NameSlot*> calloc(NAME_SLOTS, sizeof(NameSlot))
        _name_arena = <char*> malloc(NAME_ARENA)
        if _name_slots == NULL or _name_arena == NULL:
            free(_name_slots)
            free(_name_arena)
            _name_slots = NULL
            _name_arena = NULL
            return
    if n > NAME_ARENA:
        return
    if 2 * (_name_used + 1) > NAME_SLOTS or _arena_used + n > NAME_ARENA:
        memset(_name_slots, 0, NAME_SLOTS * sizeof(NameSlot))
        _name_used = 0
        _arena_used = 0
    j = h & (NAME_SLOTS - 1)
    while _name_slots[j].hash:
        j = (j + 1) & (NAME_SLOTS - 1)
    slot = &_name_slots[j]
    slot.hash = h
    slot.offset = <uint32_t> _arena_used
    slot.length = <uint32_t> n
    slot.level = one.level
    slot.flags = (one.quote * 1) | (one.hidden * 2) | (one.meta * 4) | (one.reference * 8) | (one.unusual * 16)
    memcpy(_name_arena + _arena_used, t, n)
    _arena_used += n
    _name_used += 1


cdef void _cached_token_evidence(const uchar* t, Py_ssize_t n, NameEvidence* out) noexcept nogil:
    cdef uint32_t h = _word_hash(t, n) | 1
    cdef NameEvidence one
    if _known_name(t, n, h, out):
        return
    one.level = EV_NONE
    one.quote = one.hidden = one.meta = one.reference = one.unusual = False
    _token_evidence(t, n, &one)
    _merge(out, &one)
    _remember_name(t, n, h, &one)


cdef void _names_evidence(const uchar* s, Py_ssize_t n, NameEvidence* out) noexcept nogil:
    """Every whitespace-separated name of ``s`` (ASCII) into ``out``.

    A page repeats whole attribute values ("nav-link active" on every item of a menu), so a value of several
    names is remembered whole too, in the same table as the names (a name has no whitespace, so the two kinds of
    key never meet): one lookup instead of a split and a lookup per name."""
    cdef Py_ssize_t i = 0, start, names = 0
    cdef uint32_t h = 0
    cdef NameEvidence whole
    cdef bint spaced = False
    for i in range(n):
        if _ASCII_SPACE[s[i]]:
            spaced = True
            break
    if not spaced:
        if n:
            _cached_token_evidence(s, n, out)
        return
    h = _word_hash(s, n) | 1
    if _known_name(s, n, h, out):
        return
    whole.level = EV_NONE
    whole.quote = whole.hidden = whole.meta = whole.reference = whole.unusual = False
    i = 0
    while i < n:
        while i < n and _ASCII_SPACE[s[i]]:
            i += 1
        start = i
        while i < n and not _ASCII_SPACE[s[i]]:
            i += 1
        if i > start:
            _cached_token_evidence(s + start, i - start, &whole)
    _merge(out, &whole)
    _remember_name(s, n, h, &whole)


cdef bint _hiding_style(const uchar* s, size_t n) noexcept nogil:
    """``("none" in low or "hidden" in low) and re.search(r"display\s*:\s*none|visibility\s*:\s*hidden", low)``
    for ASCII ``s`` lower-cased; the first test only skips the regex, so the regex alone decides."""
    cdef size_t i, j
    cdef const char* key
    cdef const char* value
    cdef size_t key_len, value_len
    cdef int which
    for i in range(n):
        for which in range(2):
            key = b"display" if which == 0 else b"visibility"
            key_len = 7 if which == 0 else 10
            value = b"none" if which == 0 else b"hidden"
            value_len = 4 if which == 0 else 6
            if i + key_len > n or not equals_ci(s + i, key_len, key, key_len):
                continue
            j = i + key_len
            while j < n and _ASCII_SPACE[s[j]]:
                j += 1
            if j >= n or s[j] != b":":
                continue
            j += 1
            while j < n and _ASCII_SPACE[s[j]]:
                j += 1
            if j + value_len <= n and equals_ci(s + j, value_len, value, value_len):
                return True
    return False


cdef int _evidence_c(Attrs* a, TagInfo* info, int* neg, bint* pos, bint* hidden, bint* byline) noexcept nogil:
    """html_boilerplate.evidence for attributes whose values are all ASCII; returns 0, or -1 to ask Python."""
    cdef int slot
    cdef NameEvidence names, prop
    cdef const uchar* role = NULL
    cdef size_t role_len = 0
    cdef const uchar* v
    cdef size_t vn
    cdef bint tabpanel, neg_role, main_role
    for slot in range(A_COUNT):
        if a.present[slot] and a.value[slot] != NULL and not is_ascii(a.value[slot], a.length[slot]):
            return -1
    names.level = EV_NONE
    names.quote = names.hidden = names.meta = names.reference = names.unusual = False
    if a.value[A_CLASS] != NULL:
        _names_evidence(a.value[A_CLASS], a.length[A_CLASS], &names)
    if a.value[A_ID] != NULL:
        _names_evidence(a.value[A_ID], a.length[A_ID], &names)
    if names.unusual:
        return -1
    byline[0] = names.meta
    if a.value[A_ITEMPROP] != NULL and a.length[A_ITEMPROP] and not byline[0]:
        prop.level = EV_NONE
        prop.quote = prop.hidden = prop.meta = prop.reference = prop.unusual = False
        _names_evidence(a.value[A_ITEMPROP], a.length[A_ITEMPROP], &prop)
        if prop.unusual:
            return -1
        byline[0] = prop.meta
    if a.value[A_ROLE] != NULL:
        strip_ascii(a.value[A_ROLE], a.length[A_ROLE], &role, &role_len)
    tabpanel = equals_ci(role, role_len, b"tabpanel", 8)
    main_role = equals_ci(role, role_len, b"main", 4)
    neg_role = False
    if role_len and role_len < WORD_MAX:
        # role.strip().lower() in NEG_ROLES
        vn = role_len
        neg_role = _neg_role(role, vn)
    hidden[0] = False
    if not tabpanel:
        if names.hidden or (info.code == T_SUP and names.reference) or a.present[A_HIDDEN]:
            hidden[0] = True
        elif a.present[A_ARIA_HIDDEN] and a.value[A_ARIA_HIDDEN] != NULL:
            strip_ascii(a.value[A_ARIA_HIDDEN], a.length[A_ARIA_HIDDEN], &v, &vn)
            hidden[0] = equals_ci(v, vn, b"true", 4)
        if not hidden[0] and a.value[A_STYLE] != NULL and a.length[A_STYLE]:
            hidden[0] = _hiding_style(a.value[A_STYLE], a.length[A_STYLE])
    if neg_role:
        neg[0] = EV_STRONG
    elif names.quote:
        neg[0] = EV_NONE
    else:
        neg[0] = info.neg if info.neg > names.level else names.level
    pos[0] = info.pos or main_role or (a.value[A_ITEMPROP] != NULL
                                       and contains_ci(a.value[A_ITEMPROP], a.length[A_ITEMPROP],
                                                       b"articlebody", 11))
    byline[0] = byline[0] or info.byline
    return 0


cdef int _hidden_c(Attrs* a, bint by_class, bint sup) noexcept nogil:
    """html_boilerplate.is_hidden (and, with ``by_class``, ``or hidden_by_class``) for ASCII values: 1 or 0, or
    -1 to ask Python."""
    cdef int slot
    cdef NameEvidence names
    cdef const uchar* v = NULL
    cdef size_t vn = 0
    cdef bint hidden = False
    for slot in range(A_COUNT):
        if a.present[slot] and a.value[slot] != NULL and not is_ascii(a.value[slot], a.length[slot]):
            return -1
    names.level = EV_NONE
    names.quote = names.hidden = names.meta = names.reference = names.unusual = False
    if a.value[A_CLASS] != NULL:
        _names_evidence(a.value[A_CLASS], a.length[A_CLASS], &names)
        if names.unusual:
            return -1
    if by_class and (names.hidden or (sup and names.reference)):
        return 1  # hidden_by_class: whatever the role says
    if a.value[A_ROLE] != NULL:
        strip_ascii(a.value[A_ROLE], a.length[A_ROLE], &v, &vn)
        if equals_ci(v, vn, b"tabpanel", 8):
            return 0
    if a.present[A_HIDDEN]:
        return 1
    if a.present[A_ARIA_HIDDEN] and a.value[A_ARIA_HIDDEN] != NULL:
        strip_ascii(a.value[A_ARIA_HIDDEN], a.length[A_ARIA_HIDDEN], &v, &vn)
        if equals_ci(v, vn, b"true", 4):
            return 1
    if a.value[A_STYLE] != NULL and a.length[A_STYLE]:
        hidden = _hiding_style(a.value[A_STYLE], a.length[A_STYLE])
    return 1 if hidden or names.hidden else 0


cdef bint _neg_role(const uchar* s, size_t n) noexcept nogil:
    cdef uchar low[WORD_MAX]
    cdef size_t i
    for i in range(n):
        low[i] = ascii_lower(s[i])
    return (_word_flags(low, n) & W_NEG_ROLE) != 0


# Process-wide memos of pure functions of (tag, attributes); bounded, cleared when full.
_MEMO_MAX = 1 << 16
cdef dict _evidence_memo = {}
cdef dict _hidden_memo = {}


def memo_sizes():
    """The entries each process-wide memo holds now (``qatbe.caches.sizes`` reports them)."""
    return {"evidence": len(_evidence_memo), "hidden": len(_hidden_memo)}


# -- the walk -----------------------------------------------------------------------------------------------

# Frame kinds and modes: html_walk's values.
cdef enum:
    K_INLINE = 0
    K_LINK = 1
    K_BLOCK = 2
    K_SPACE = 3
    K_HEADING = 4
    K_LIST = 5
    K_ITEM = 6
    K_QUOTE = 7
    K_CAPTION = 8
    K_SUMMARY = 9
    K_BUTTON = 10

cdef enum:
    M_PARA = 0
    M_HEADING = 1
    M_ITEM = 2
    M_QUOTE = 3
    M_CAPTION = 4
    M_SUMMARY = 5

_KINDS = ("p", "h", "p", "quote", "caption", "summary")

ctypedef struct Frame:
    void* next
    int kind
    bint outer   # a context to restore (on ctx_stack)
    bint box     # a box to restore (on box_stack)

ctypedef struct Mode:
    int mode
    int level

ctypedef struct ListState:
    bint ordered
    long long counter


cdef inline bint _ascii_blank(uchar c) noexcept nogil:
    """HTML's ASCII whitespace (``html_walk.is_button`` strips a role of these only; ``strip_ascii`` strips what
    Python's ``str.strip`` does, \\v and the separators too)."""
    return c == 32 or c == 9 or c == 10 or c == 13 or c == 12


cdef inline bint _ascii_letter(uchar c) noexcept nogil:
    return (c | 0x20) >= b"a" and (c | 0x20) <= b"z"


cdef bint _button_class(const uchar* s, size_t n) noexcept nogil:
    """``html_walk._BUTTON_CLASS`` searched in ``s``: "btn" or "button" anywhere, "cta" between non-letters."""
    cdef size_t i
    if contains_ci(s, n, b"btn", 3) or contains_ci(s, n, b"button", 6):
        return True
    for i in range(n - 2 if n >= 3 else 0):
        if (equals_ci(s + i, 3, b"cta", 3) and (i == 0 or not _ascii_letter(s[i - 1]))
                and (i + 3 == n or not _ascii_letter(s[i + 3]))):
            return True
    return False


cdef bint _is_button(const LexborApi* api, void* node) noexcept nogil:
    """``html_walk.is_button``: role="button", or a class or slot named like a button."""
    cdef size_t length = 0, value_length = 0, start, end
    cdef const uchar* name
    cdef const uchar* value
    cdef void* attr = api.first_attr(node)
    while attr != NULL:
        name = api.attr_name(attr, &length)
        if _named(name, length, b"role", 4):
            value = api.attr_value(attr, &value_length)
            if value != NULL:
                start = 0
                end = value_length
                while start < end and _ascii_blank(value[start]):
                    start += 1
                while end > start and _ascii_blank(value[end - 1]):
                    end -= 1
                if equals_ci(value + start, end - start, b"button", 6):
                    return True
        elif _named(name, length, b"class", 5) or _named(name, length, b"slot", 4):
            value = api.attr_value(attr, &value_length)
            if value != NULL and _button_class(value, value_length):
                return True
        attr = api.next_attr(attr)
    return False


cdef inline bint _leaf(int mode) noexcept nogil:
    return mode == M_HEADING or mode == M_ITEM or mode == M_CAPTION or mode == M_SUMMARY


cdef class FastWalker:
    """``html_walk.Walker``'s state and output (``blocks``, ``ctxs``, ``root``, ``boxes``), filled from C."""

    cdef public Ctx root
    cdef public list ctxs
    cdef public Ctx ctx
    cdef public list blocks
    cdef public Box box
    cdef public list boxes
    cdef public Py_ssize_t page_chars
    cdef Block list_block
    cdef Py_ssize_t link
    cdef Py_ssize_t in_link
    cdef Py_ssize_t br_mark  # html_walk.Walker.br_mark: the buffer's length after the last <br>, or -1
    cdef Py_ssize_t in_article
    cdef const LexborApi* api
    cdef void* body
    cdef PointerSet holders
    cdef dict dynamic  # tag id -> (TagInfo as a tuple, name) for tags Lexbor does not know
    cdef Buffer buf      # the current block's text
    cdef Buffer scratch  # a subtree's or a cell's text
    cdef Buffer keys     # memo keys
    cdef Frame* frames
    cdef Py_ssize_t n_frames, cap_frames
    cdef Mode* modes
    cdef Py_ssize_t n_modes, cap_modes
    cdef ListState* lists
    cdef Py_ssize_t n_lists, cap_lists

    def __cinit__(self):
        self.api = lexbor_api()
        self.root = Ctx(None, "body", NONE, False, False, False, 0)
        self.ctxs = [self.root]
        self.ctx = self.root
        self.blocks = []
        self.box = Box(None)
        self.boxes = [self.box]
        self.page_chars = 1
        self.list_block = None
        self.br_mark = -1
        self.dynamic = {}
        self.modes = <Mode*> malloc(16 * sizeof(Mode))
        self.lists = <ListState*> malloc(16 * sizeof(ListState))
        self.frames = <Frame*> malloc(64 * sizeof(Frame))
        if self.modes == NULL or self.lists == NULL or self.frames == NULL:
            raise MemoryError()
        self.cap_modes = 16
        self.cap_lists = 16
        self.cap_frames = 64
        self.modes[0].mode = M_PARA
        self.modes[0].level = 0
        self.n_modes = 1

    def __dealloc__(self):
        free(self.buf.data)
        free(self.scratch.data)
        free(self.keys.data)
        free(self.holders.slots)
        free(self.frames)
        free(self.modes)
        free(self.lists)

    # -- tags -----------------------------------------------------------------------------------------------

    cdef TagInfo info(self, void* node) except *:
        cdef uintptr_t tag = tag_id(self.api, node)
        cdef TagInfo found
        if tag < STATIC_TAG_IDS:
            if not _static[tag].known:
                name = self._read_name(node)
                _static[tag] = _classify(name)
                _static_names[tag] = name
            return _static[tag]
        entry = self.dynamic.get(tag)
        if entry is None:
            name = self._read_name(node)
            found = _classify(name)
            self.dynamic[tag] = (found.flags, found.code, found.level, found.neg, found.pos, found.hidden,
                                 found.byline, name)
            return found
        found.flags, found.code, found.level, found.neg, found.pos, found.hidden, found.byline, _ = entry
        found.known = True
        return found

    cdef str _read_name(self, void* node):
        cdef size_t length = 0
        cdef const uchar* name = self.api.element_name(node, &length)
        return PyUnicode_DecodeUTF8(<const char*> name, length, "replace") if name != NULL else ""

    cdef str name(self, void* node):
        cdef uintptr_t tag = tag_id(self.api, node)
        if tag < STATIC_TAG_IDS:
            return _static_names[tag]
        return self.dynamic[tag][7]

    # -- stacks ---------------------------------------------------------------------------------------------

    cdef int push_mode(self, int mode, int level) except -1:
        if self.n_modes == self.cap_modes:
            self.modes = <Mode*> _doubled(self.modes, &self.cap_modes, sizeof(Mode))
        self.modes[self.n_modes].mode = mode
        self.modes[self.n_modes].level = level
        self.n_modes += 1
        return 0

    cdef int push_list(self, bint ordered, long long counter) except -1:
        if self.n_lists == self.cap_lists:
            self.lists = <ListState*> _doubled(self.lists, &self.cap_lists, sizeof(ListState))
        self.lists[self.n_lists].ordered = ordered
        self.lists[self.n_lists].counter = counter
        self.n_lists += 1
        return 0

    cdef int push_frame(self, void* next, int kind, bint outer, bint box) except -1:
        if self.n_frames == self.cap_frames:
            self.frames = <Frame*> _doubled(self.frames, &self.cap_frames, sizeof(Frame))
        self.frames[self.n_frames].next = next
        self.frames[self.n_frames].kind = kind
        self.frames[self.n_frames].outer = outer
        self.frames[self.n_frames].box = box
        self.n_frames += 1
        return 0

    # -- emitting (html_walk.Walker.flush and friends) -------------------------------------------------------

    cdef int flush(self) except -1:
        cdef Py_ssize_t link, depth
        cdef int mode, level
        cdef Block block
        cdef Ctx ctx
        self.br_mark = -1
        if self.buf.length == 0:
            return 0
        text = _visible(&self.buf, &self.keys)
        link = self.link
        self.link = 0
        if not text:
            return 0
        mode = self.modes[self.n_modes - 1].mode
        level = self.modes[self.n_modes - 1].level
        ctx = self.ctx
        if mode == M_ITEM:
            block = self.list_block
            if block is None:
                block = self.open_list_block()
            if self.n_lists:
                ordered = self.lists[self.n_lists - 1].ordered
                counter = self.lists[self.n_lists - 1].counter
            else:
                ordered = False
                counter = 1
            depth = max(self.n_lists - 1, 0) + level
            block.items.append((text, depth, ordered, counter, ctx))
            block.chars += len(text)
            block.link += link
            return 0
        block = Block(_KINDS[mode], text, ctx, len(text), link, level)
        block.box = self.box
        self.blocks.append(block)
        return 0

    cdef Block open_list_block(self):
        cdef Block block = Block("list", "", self.ctx, 0, 0)
        block.box = self.box
        self.blocks.append(block)
        self.list_block = block
        return block

    cdef inline void break_list(self):
        if self.n_lists:
            self.list_block = None

    # -- subtree readers -------------------------------------------------------------------------------------

    cdef int subtree_text(self, void* node, Buffer* out) except -1:
        """The text of every text node under ``node`` (script-like subtrees left out, as stripped), in
        document order, a space after each fragment: ``node.text(deep=True, separator=" ")``, for texts that
        are then collapsed."""
        cdef const LexborApi* api = self.api
        cdef void* child = first_child(api, node)
        cdef void* up
        cdef size_t length = 0
        cdef const uchar* data
        cdef int kind
        while child != NULL:
            kind = node_type(api, child)
            if kind == NODE_TEXT:
                data = text_data(api, child, &length)
                if data != NULL and length:
                    _put(out, data, length)
                    _space(out)
            elif kind == NODE_ELEMENT and not (self.info(child).flags & F_SCRIPT):
                up = first_child(api, child)
                if up != NULL:
                    child = up
                    continue
            child = self.after(child, node, NULL)
        return 0

    cdef int pre_text(self, void* node, Buffer* out) except -1:
        """The text of a ``<pre>`` as a browser lays it out: ``html_walk.pre_text`` (which says why).

        ``pending``: a block-level element started or ended since the last content, so the next content starts
        a line of its own."""
        cdef const LexborApi* api = self.api
        cdef void* child = first_child(api, node)
        cdef void* up
        cdef size_t length = 0
        cdef const uchar* data
        cdef int kind
        cdef Py_ssize_t start = out.length
        cdef bint pending = False
        cdef TagInfo info
        while child != NULL:
            kind = node_type(api, child)
            if kind == NODE_TEXT:
                data = text_data(api, child, &length)
                if data != NULL and length:
                    if pending and data[0] != 10:
                        _line_break(out, start)
                    pending = False
                    _put(out, data, length)
            elif kind == NODE_ELEMENT:
                info = self.info(child)
                if not (info.flags & F_SCRIPT):
                    if info.code == T_BR:
                        if pending:
                            _line_break(out, start)
                            pending = False
                        _put(out, b"\n", 1)
                    elif info.flags & F_BLOCK:
                        pending = True
                    up = first_child(api, child)
                    if up != NULL:
                        child = up
                        continue
            child = self.after(child, node, &pending)  # a block element left ends the line
        return 0

    cdef void* after(self, void* child, void* node, bint* left_block) except? NULL:
        """The node after ``child``'s subtree in document order, not leaving ``node`` (NULL when there is none):
        ``child`` is left, and so is each ancestor whose last child it was. With ``left_block``, set it when one
        of the elements left is block-level (``pre_text``'s line breaks)."""
        cdef const LexborApi* api = self.api
        cdef void* up
        while child != NULL:
            if left_block != NULL and node_type(api, child) == NODE_ELEMENT and (self.info(child).flags & F_BLOCK):
                left_block[0] = True
            up = next_sibling(api, child)
            if up != NULL:
                return up
            child = parent_of(api, child)
            if child == node:
                return NULL
        return NULL

    cdef void* find(self, void* node, int code, bint self_too) except? NULL:
        """The first element under ``node`` (``self_too``: or ``node`` itself) with tag ``code``: selectolax's
        ``css_first(tag)``, script-like subtrees left out."""
        cdef const LexborApi* api = self.api
        cdef void* child
        cdef void* up
        cdef TagInfo info
        if self_too and self.info(node).code == code:
            return node
        child = first_child(api, node)
        while child != NULL:
            if node_type(api, child) == NODE_ELEMENT:
                info = self.info(child)
                if not (info.flags & F_SCRIPT):
                    if info.code == code:
                        return child
                    up = first_child(api, child)
                    if up != NULL:
                        child = up
                        continue
            child = self.after(child, node, NULL)
        return NULL

    cdef bint main_like(self, void* node, TagInfo* info) except -1:
        """``node`` matches html_walk._MAIN_LIKE: a main-like tag, or role exactly "main"."""
        cdef bint present = False
        cdef size_t length = 0
        cdef const uchar* value
        cdef const uchar* name
        cdef void* attr
        if info.flags & F_MAINLIKE:
            return True
        attr = self.api.first_attr(node)
        while attr != NULL:
            name = self.api.attr_name(attr, &length)
            if _named(name, length, b"role", 4):
                value = self.api.attr_value(attr, &length)
                return value != NULL and _named(value, length, b"main", 4)
            attr = self.api.next_attr(attr)
        return False

    cdef int prepass(self, void* body) except -1:
        """One pass over the body before the walk: ``page_chars`` (``len(body.text(deep=True))``) and the
        elements that are or contain a main-like element (``html_walk.Walker._holds_main``'s set, the CSS query
        matches and their ancestors), which the furniture test asks about."""
        cdef const LexborApi* api = self.api
        cdef void* node = body
        cdef void* up
        cdef void* match
        cdef TagInfo info
        cdef size_t length = 0
        cdef const uchar* data
        cdef int kind
        cdef Py_ssize_t total = 0
        while node != NULL:
            kind = node_type(api, node)
            if kind == NODE_TEXT:
                data = text_data(api, node, &length)
                if data != NULL:
                    total += _code_points(data, length)
            elif kind == NODE_ELEMENT:
                info = self.info(node)
                if not (info.flags & F_SCRIPT):
                    if self.main_like(node, &info):
                        match = node
                        while match != NULL and not _contains(&self.holders, <uintptr_t> match):
                            _add(&self.holders, <uintptr_t> match)
                            match = parent_of(api, match)
                    up = first_child(api, node)
                    if up != NULL:
                        node = up
                        continue
            if node == body:
                break
            while node != NULL:  # the next node in document order, not leaving the body
                up = next_sibling(api, node)
                if up != NULL:
                    node = up
                    break
                node = parent_of(api, node)
                if node == body:
                    node = NULL
        self.page_chars = max(total, 1)
        return 0

    # -- evidence and hiding ---------------------------------------------------------------------------------

    cdef int evidence(self, void* node, TagInfo* info, str name, int* neg, bint* pos, bint* hidden,
                      bint* byline) except -1:
        """``html_boilerplate.evidence(tag, node.attributes)`` into the four outputs: in C for ASCII values,
        else by the Python rules, memoised by the attributes they read."""
        global _evidence_memo
        cdef Attrs attrs
        cdef int slot
        cdef uintptr_t tag
        _read_attrs(self.api, node, &attrs)
        for slot in range(A_COUNT):
            if attrs.present[slot]:
                break
        else:  # none of the attributes evidence reads: what the tag alone says
            neg[0] = info.neg
            pos[0] = info.pos
            hidden[0] = info.hidden
            byline[0] = info.byline
            return 0
        if _evidence_c(&attrs, info, neg, pos, hidden, byline) == 0:
            return 0
        # Tags Lexbor does not know are never one of the tags evidence names: one key prefix for all of them.
        tag = tag_id(self.api, node)
        key = _attrs_key(&attrs, tag if tag < STATIC_TAG_IDS else STATIC_TAG_IDS, &self.keys)
        found = _evidence_memo.get(key)
        if found is None:
            if len(_evidence_memo) >= _MEMO_MAX:
                _evidence_memo = {}
            found = _evidence_memo[key] = evidence(name, _attrs_dict(&attrs))
        neg[0] = found[0]
        pos[0] = found[1]
        hidden[0] = found[2]
        byline[0] = found[3]
        return 0

    cdef bint hidden(self, void* node, int code, bint by_class) except -1:
        """``is_hidden(node.attributes)`` (a table cell) or, with ``by_class``, also ``hidden_by_class``
        (subtree text), memoised by the attributes they read."""
        global _hidden_memo
        cdef Attrs attrs
        cdef int answer
        _read_attrs(self.api, node, &attrs)
        answer = _hidden_c(&attrs, by_class, code == T_SUP)
        if answer >= 0:
            return answer == 1
        key = _attrs_key(&attrs, (2 + (code == T_SUP)) if by_class else 1, &self.keys)
        found = _hidden_memo.get(key)
        if found is None:
            if len(_hidden_memo) >= _MEMO_MAX:
                _hidden_memo = {}
            values = _attrs_dict(&attrs)
            found = is_hidden(values) or (by_class and hidden_by_class("sup" if code == T_SUP else "", values))
            _hidden_memo[key] = found
        return found

    # -- the walk (html_walk.Walker.walk) --------------------------------------------------------------------

    def walk(self, uintptr_t body_id):
        """Walk the body whose node address (``LexborNode.mem_id``) is ``body_id``."""
        cdef const LexborApi* api = self.api
        cdef void* body = <void*> body_id
        cdef void* node
        cdef Frame frame
        cdef TagInfo info
        cdef size_t length = 0
        cdef const uchar* data
        cdef int kind, neg, ntype, mode
        cdef Py_ssize_t count
        cdef bint pos, hidden, byline, has_outer, has_box
        cdef Ctx ctx, saved
        cdef list ctx_stack = []
        cdef list box_stack = []
        self.body = body
        self.prepass(body)
        node = first_child(api, body)
        while True:
            if node == NULL:
                if self.n_frames == 0:
                    break
                self.n_frames -= 1
                frame = self.frames[self.n_frames]
                node = frame.next
                if frame.kind == K_LINK:
                    self.in_link -= 1
                elif frame.kind == K_BUTTON:
                    self.in_link -= 1
                    count = len(self.blocks)
                    self.flush()
                    if len(self.blocks) > count:
                        (<Block> self.blocks[count]).button = True
                elif frame.kind != K_INLINE:
                    self.leave(frame.kind)
                if frame.outer:
                    if self.ctx.pos:
                        self.in_article -= 1
                    self.ctx = ctx_stack.pop()
                if frame.box:
                    self.box = box_stack.pop()
                continue
            ntype = node_type(api, node)
            if ntype == NODE_TEXT:
                data = text_data(api, node, &length)
                if data != NULL and length and (self.buf.length or not _all_space(data, length)):
                    _put(&self.buf, data, length)
                    if self.in_link:
                        self.link += _stripped_length(data, length)
                node = next_sibling(api, node)
                continue
            if ntype != NODE_ELEMENT:
                node = next_sibling(api, node)
                continue
            info = self.info(node)
            if info.flags & (F_SCRIPT | F_WSKIP):
                node = next_sibling(api, node)
                continue
            if info.code == T_BR:
                # html_walk: <br><br> with only blanks between ends a paragraph or quote block.
                mode = self.modes[self.n_modes - 1].mode
                if (self.br_mark >= 0 and (mode == M_PARA or mode == M_QUOTE)
                        and _all_space(<const uchar*> self.buf.data + self.br_mark, self.buf.length - self.br_mark)):
                    self.flush()
                else:
                    _space(&self.buf)
                    self.br_mark = self.buf.length
                node = next_sibling(api, node)
                continue
            if info.flags & F_CHEAP:
                if info.code == T_A and self.modes[self.n_modes - 1].mode == M_HEADING and self.same_page(node):
                    self.push_frame(next_sibling(api, node), K_INLINE, False, False)
                elif info.code == T_A:
                    self.in_link += 1
                    if self.modes[self.n_modes - 1].mode == M_PARA and _is_button(api, node):
                        self.flush()
                        self.push_frame(next_sibling(api, node), K_BUTTON, False, False)
                    else:
                        self.push_frame(next_sibling(api, node), K_LINK, False, False)
                else:
                    self.push_frame(next_sibling(api, node), K_INLINE, False, False)
                node = first_child(api, node)
                continue
            if info.code == T_HR:
                self.flush()
                node = next_sibling(api, node)
                continue
            name = self.name(node)
            if info.flags & F_PLAIN:
                neg = info.neg
                pos = info.pos
                hidden = info.hidden
                byline = info.byline
            else:
                self.evidence(node, &info, name, &neg, &pos, &hidden, &byline)
            if info.code == T_NOSCRIPT:
                hidden = True
            elif hidden and not (info.flags & F_BLOCK):
                node = next_sibling(api, node)
                continue
            if info.code == T_FORM and neg < WEAK:
                neg = WEAK
            if neg and info.code == T_HEADER and self.in_article:
                neg = NONE
            if pos and neg and (info.code == T_MAIN or neg == WEAK):
                neg = NONE
            if byline and info.level:
                byline = False
            has_outer = False
            if neg or pos or hidden or byline:
                saved = self.ctx
                ctx = self.ctx = Ctx(saved, name, neg, pos, hidden, byline, len(self.ctxs))
                ident = _attr_or_none(api, node, b"id", 2)
                cls = _attr_or_none(api, node, b"class", 5)
                ctx.name = f"{ident or ''}.{cls or ''}"[:80]
                self.ctxs.append(ctx)
                if pos:
                    self.in_article += 1
                elif (neg == STRONG or hidden) and self.furniture(node, saved):
                    self.ctx = saved
                    node = next_sibling(api, node)
                    continue
                has_outer = True
            kind = self.enter(node, &info)
            if kind < 0:  # consumed whole (table, pre)
                if has_outer:
                    if self.ctx.pos:
                        self.in_article -= 1
                    self.ctx = saved
                node = next_sibling(api, node)
                continue
            has_box = kind == K_BLOCK and (info.flags & F_BOX)
            if has_box:
                box_stack.append(self.box)
                self.box = Box(self.box)
                self.boxes.append(self.box)
            if has_outer:
                ctx_stack.append(saved)
            self.push_frame(next_sibling(api, node), kind, has_outer, has_box)
            node = first_child(api, node)
        self.flush()

    cdef bint same_page(self, void* node) except -1:
        """``href`` starts with "#": a heading's permalink."""
        cdef size_t length = 0
        cdef const uchar* name
        cdef const uchar* value
        cdef void* attr = self.api.first_attr(node)
        while attr != NULL:
            name = self.api.attr_name(attr, &length)
            if _named(name, length, b"href", 4):
                value = self.api.attr_value(attr, &length)
                return value != NULL and length > 0 and value[0] == b"#"
            attr = self.api.next_attr(attr)
        return False

    cdef bint furniture(self, void* node, Ctx outer) except -1:
        """``html_walk.Walker._furniture``."""
        cdef Ctx furniture_ctx
        cdef Block block
        # Holding a main-like element is a set lookup; asked first, it spares collecting the text of the wrappers
        # around the whole page (the Python walk asks the two in the other order; either rules it out).
        if _contains(&self.holders, <uintptr_t> node):
            return False
        self.scratch.length = 0
        self.subtree_text(node, &self.scratch)
        text = _collapsed(&self.scratch, &self.keys)
        if len(text) * 5 >= self.page_chars:
            return False
        furniture_ctx = self.ctx
        self.ctx = outer
        self.flush()
        self.ctx = furniture_ctx
        if not text:
            return True
        self.break_list()
        block = Block("p", text, self.ctx, len(text), len(text))
        block.box = self.box
        block.furniture = True
        self.blocks.append(block)
        return True

    cdef int enter(self, void* node, TagInfo* info) except -9:
        """``html_walk.Walker._enter``."""
        cdef int mode = self.modes[self.n_modes - 1].mode
        cdef int code = info.code
        cdef bint present = False
        if info.level:
            self.flush()
            self.break_list()
            self.push_mode(M_HEADING, info.level)
            return K_HEADING
        if info.flags & F_LIST:
            self.flush()
            if self.list_block is None:
                self.open_list_block()
            first = list_start(_attr(self.api, node, b"start", 5, &present))
            self.push_list(code == T_OL, first - 1)
            self.push_mode(M_PARA, 0)
            return K_LIST
        if code == T_LI or code == T_DT or code == T_DD:
            self.flush()
            if self.list_block is None:
                self.open_list_block()
            if self.n_lists and code == T_LI:
                self.lists[self.n_lists - 1].counter += 1
            self.push_mode(M_ITEM, 1 if code == T_DD else 0)
            return K_ITEM
        if code == T_TABLE:
            self.flush()
            self.break_list()
            data = self.read_table(node)
            if data is None:
                return K_SPACE if _leaf(mode) else K_BLOCK
            block = Block("table", "", self.ctx, data.chars, data.link_chars)
            block.box = self.box
            block.table = data
            self.blocks.append(block)
            return -1
        if code == T_PRE:
            self.flush()
            self.break_list()
            self.scratch.length = 0
            self.pre_text(node, &self.scratch)
            text = _take(&self.scratch)
            block = Block("code", text, self.ctx, len(text), 0)
            block.box = self.box
            block.lang = self.pre_language(node)
            self.blocks.append(block)
            return -1
        if code == T_BLOCKQUOTE and not _leaf(mode):
            self.flush()
            self.push_mode(M_QUOTE, 0)
            return K_QUOTE
        if code == T_CAPTION or code == T_CAPTION_EL:
            self.flush()
            self.push_mode(M_CAPTION, 0)
            return K_CAPTION
        if code == T_SUMMARY and not _leaf(mode):
            self.flush()
            self.push_mode(M_SUMMARY, 0)
            return K_SUMMARY
        if info.flags & F_BLOCK:
            if _leaf(mode):
                _space(&self.buf)
                return K_SPACE
            self.flush()
            return K_BLOCK
        return K_INLINE

    cdef int leave(self, int kind) except -1:
        """``html_walk.Walker._leave``."""
        if kind == K_SPACE:
            _space(&self.buf)
            return 0
        self.flush()
        if kind == K_BLOCK:
            return 0
        self.n_modes -= 1
        if kind == K_LIST:
            self.n_lists -= 1
            if not self.n_lists:
                self.list_block = None
        return 0

    cdef object pre_language(self, void* node):
        """``html_walk.code_language`` for a ``<pre>``: its class/data-lang/data-language, else its first
        ``<code>``'s class."""
        cdef const LexborApi* api = self.api
        cdef bint present = False
        attrs = {}
        for key, want, size in (("class", b"class", 5), ("data-lang", b"data-lang", 9),
                                ("data-language", b"data-language", 13)):
            value = _attr(api, node, want, size, &present)
            if present:
                attrs[key] = value
        cdef void* child = self.find(node, T_CODE, False)
        child_class = _attr_or_none(api, child, b"class", 5) if child != NULL else None
        return code_language(attrs, child_class)

    # -- tables (html_tables.read_table) ---------------------------------------------------------------------

    cdef object read_table(self, void* table):
        """``html_tables.read_table`` over Lexbor's nodes: a data table's grid, or None for a layout table."""
        cdef const LexborApi* api = self.api
        cdef void* child
        cdef void* row
        cdef void* cell
        cdef void* caption = NULL
        cdef TagInfo info
        cdef list rows = []  # (row address, in <thead>)
        cdef bint any_head = False, own_th = False, has_th, is_th, nested
        cdef Py_ssize_t structure = 0, long_cells = 0, chars = 0, link = 0
        role = _attr_or_none(api, table, b"role", 4)
        if (role or "").strip().lower() in ("presentation", "none"):
            return None
        child = first_child(api, table)
        while child != NULL:
            if node_type(api, child) == NODE_ELEMENT:
                info = self.info(child)
                if info.flags & F_SCRIPT:
                    pass
                elif info.code == T_TR:
                    rows.append((<uintptr_t> child, False))
                elif info.code == T_THEAD or info.code == T_TBODY:
                    row = first_child(api, child)
                    while row != NULL:
                        if node_type(api, row) == NODE_ELEMENT and self.info(row).code == T_TR:
                            rows.append((<uintptr_t> row, info.code == T_THEAD))
                            any_head = any_head or info.code == T_THEAD
                        row = next_sibling(api, row)
                elif info.code == T_CAPTION_EL and caption == NULL:
                    caption = child
            child = next_sibling(api, child)
        if caption == NULL and not any_head:
            for address, _ in rows:
                cell = first_child(api, <void*> <uintptr_t> address)
                while cell != NULL and not own_th:
                    own_th = node_type(api, cell) == NODE_ELEMENT and self.info(cell).code == T_TH
                    cell = next_sibling(api, cell)
                if own_th:
                    break
            if not own_th:
                nested = False
                child = first_child(api, table)
                while child != NULL and not nested:
                    if node_type(api, child) == NODE_ELEMENT and not (self.info(child).flags & F_SCRIPT):
                        nested = self.find(child, T_TABLE, True) != NULL
                    child = next_sibling(api, child)
                if nested:
                    return None
        raw_rows = []
        has_th = caption != NULL
        for address, in_head in rows:
            cells = []
            cell = first_child(api, <void*> <uintptr_t> address)
            while cell != NULL:
                if node_type(api, cell) == NODE_ELEMENT:
                    info = self.info(cell)
                    if (info.code == T_TD or info.code == T_TH) and not self.hidden(cell, info.code, False):
                        text, cell_link, cell_structure = self.flat_text(cell)
                        structure += cell_structure
                        chars += len(text)
                        link += cell_link
                        if len(text) > _LONG_CELL:
                            long_cells += 1
                        is_th = info.code == T_TH
                        has_th = has_th or is_th or in_head
                        cells.append((text, is_th,
                                      int_value(_attr_or_none(api, cell, b"colspan", 7), _MAX_COLSPAN),
                                      int_value(_attr_or_none(api, cell, b"rowspan", 7), _MAX_ROWSPAN)))
                cell = next_sibling(api, cell)
            raw_rows.append((cells, in_head))
        width = max((sum(c[2] for c in cells) for cells, _ in raw_rows), default=0)
        if not has_th and (structure or long_cells or width <= 1):
            return None
        if has_th and width <= 1 and (structure or long_cells):
            return None
        grid = _expand(raw_rows)
        header = None
        body_start = 0
        head_rows = []
        for (cells, in_head), grid_row in zip(raw_rows, grid):
            if cells and (in_head or all(c[1] for c in cells)):
                head_rows.append(grid_row)
                body_start += 1
            else:
                break
        if head_rows:
            header = tuple(_merge_header(col) for col in zip(*head_rows))
        caption_text = self.flat_text(caption)[0] if caption != NULL else None
        return TableData(header, tuple(grid[body_start:]), caption_text, chars, link)

    cdef tuple flat_text(self, void* node):
        """``html_tables.flat_text``: (text, link chars, structure count) of a cell or caption."""
        cdef const LexborApi* api = self.api
        cdef void* child = first_child(api, node)
        cdef void* up
        cdef size_t length = 0
        cdef const uchar* data
        cdef TagInfo info
        cdef int kind
        cdef Py_ssize_t in_link = 0, link = 0, structure = 0
        cdef Buffer* out = &self.scratch
        out.length = 0
        while child != NULL:
            kind = node_type(api, child)
            if kind == NODE_TEXT:
                data = text_data(api, child, &length)
                if data != NULL and length:
                    _put(out, data, length)
                    if in_link:
                        link += _stripped_length(data, length)
            elif kind == NODE_ELEMENT:
                info = self.info(child)
                if info.flags & (F_SCRIPT | F_FSKIP):
                    pass
                elif info.code == T_BR or info.code == T_HR:
                    _space(out)
                elif (info.flags & F_CHEAP) or not self.hidden(child, info.code, True):
                    if info.flags & F_STRUCTURE:
                        structure += 1
                    if info.flags & F_SPACED:
                        _space(out)
                    if info.code == T_A:
                        in_link += 1
                    up = first_child(api, child)
                    if up != NULL:
                        child = up
                        continue
                    # an empty element is entered and left at once
                    if info.code == T_A:
                        in_link -= 1
                    elif info.flags & F_SPACED:
                        _space(out)
            # next in document order; leaving an element closes it
            while child != NULL:
                up = next_sibling(api, child)
                if up != NULL:
                    child = up
                    break
                child = parent_of(api, child)
                if child == node:
                    child = NULL
                    break
                info = self.info(child)
                if info.code == T_A:
                    in_link -= 1
                elif info.flags & F_SPACED:
                    _space(out)
        return _visible(out, &self.keys), link, structure


def hidden_in_c(dict attrs, bint by_class, bint sup):
    """For tests: the walk's C hiding test (``is_hidden``, with ``by_class`` also ``hidden_by_class`` of a
    ``<sup>`` when ``sup``), or None where it asks Python."""
    cdef Attrs a
    keep = _fill(&a, attrs)
    answer = _hidden_c(&a, by_class, sup)
    return None if answer < 0 else answer == 1


cdef list _fill(Attrs* a, dict attrs):
    cdef int slot
    keep = []
    for slot in range(A_COUNT):
        value = attrs.get(_ATTR_NAMES[slot], _MISSING)
        a.present[slot] = value is not _MISSING
        a.value[slot] = NULL
        a.length[slot] = 0
        if a.present[slot] and value is not None:
            data = value.encode("utf-8")
            keep.append(data)
            a.value[slot] = <const uchar*> (<const char*> data)
            a.length[slot] = len(data)
    return keep


# -- source positions over UTF-8 bytes --------------------------------------------------------------------

cdef extern from *:
    """
    /* The first occurrence of needle in s: candidates where the needle's first and last bytes both match,
       thirty-two start positions at a time (AVX2, where the processor has it) or sixteen (SSE2), each checked
       byte by byte; memmem on other machines. Why by hand: memmem and str.find run at about 0.6 ns a byte on
       these pages (their skip tables do little for a 4-8 byte word), and the locator scans most of the page.
       The candidates are checked by an inline loop, not memcmp: with a call in the loop the compiler kept the
       two comparison vectors on the stack (every vector register is caller-saved) and reloaded them each step. */
    #include <string.h>
    #include "../_simd.h"

    static inline int qatbe_same(const char* a, const char* b, size_t n) {
        size_t k;
        for (k = 0; k < n; k++) if (a[k] != b[k]) return 0;
        return 1;
    }

    static const char* qatbe_find_tail(const char* s, size_t n, const char* needle, size_t m, size_t i) {
        for (; i + m <= n; i++) if (s[i] == needle[0] && qatbe_same(s + i + 1, needle + 1, m - 1)) return s + i;
        return NULL;
    }

    #if defined(__SSE2__)
    static const char* qatbe_find_sse2(const char* s, size_t n, const char* needle, size_t m, size_t i) {
        const __m128i first = _mm_set1_epi8(needle[0]);
        const __m128i last = _mm_set1_epi8(needle[m - 1]);
        for (; i + m - 1 + 16 <= n; i += 16) {
            __m128i a = _mm_loadu_si128((const __m128i*) (s + i));
            __m128i b = _mm_loadu_si128((const __m128i*) (s + i + m - 1));
            unsigned mask = (unsigned) _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first),
                                                                      _mm_cmpeq_epi8(b, last)));
            while (mask) {
                unsigned bit = (unsigned) __builtin_ctz(mask);
                if (qatbe_same(s + i + bit + 1, needle + 1, m - 2)) return s + i + bit;
                mask &= mask - 1;
            }
        }
        return qatbe_find_tail(s, n, needle, m, i);
    }
    #endif

    #if defined(QATBE_AVX2)
    QATBE_TARGET_AVX2 static const char* qatbe_find_avx2(const char* s, size_t n, const char* needle, size_t m) {
        size_t i = 0;
        const __m256i first = _mm256_set1_epi8(needle[0]);
        const __m256i last = _mm256_set1_epi8(needle[m - 1]);
        for (; i + m - 1 + 32 <= n; i += 32) {
            __m256i a = _mm256_loadu_si256((const __m256i*) (s + i));
            __m256i b = _mm256_loadu_si256((const __m256i*) (s + i + m - 1));
            unsigned mask = (unsigned) _mm256_movemask_epi8(_mm256_and_si256(_mm256_cmpeq_epi8(a, first),
                                                                            _mm256_cmpeq_epi8(b, last)));
            while (mask) {
                unsigned bit = (unsigned) __builtin_ctz(mask);
                if (qatbe_same(s + i + bit + 1, needle + 1, m - 2)) return s + i + bit;
                mask &= mask - 1;
            }
        }
        return qatbe_find_sse2(s, n, needle, m, i);
    }
    #endif

    static const char* qatbe_find(const char* s, size_t n, const char* needle, size_t m) {
        if (m < 2 || n < m) return (const char*) memmem(s, n, needle, m);
    #if defined(QATBE_AVX2)
        if (qatbe_avx2) return qatbe_find_avx2(s, n, needle, m);
    #endif
    #if defined(__SSE2__)
        return qatbe_find_sse2(s, n, needle, m, 0);
    #else
        return (const char*) memmem(s, n, needle, m);
    #endif
    }
    """
    const char* qatbe_find(const char* s, size_t n, const char* needle, size_t m) nogil


cdef extern from "../_simd.h":
    void qatbe_simd_init() nogil
    int qatbe_simd_use_avx2(int on) nogil


qatbe_simd_init()  # which scan the processor can run, read once at import (_simd.h)


def use_avx2(bint on):
    """For tests: the locator's scans with AVX2 (where the processor has it: the default) or without (SSE2, or
    plain C off x86-64); returns whether AVX2 is now in use. Not thread-safe: only tests call it."""
    return bool(qatbe_simd_use_avx2(on))


cdef extern from *:
    """
    /* Code points in n bytes of valid UTF-8: every byte but the continuation bytes (10xxxxxx, below -64 as a
       signed byte). Sixteen bytes a step (SSE2; thirty-two with AVX2, read as qatbe_find reads it), each lane's
       continuation bytes counted in a byte for at most 255 steps, then summed by psadbw; the eight-bytes-a-step
       arithmetic it replaces was a tenth of locating the segments. */
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    static Py_ssize_t qatbe_code_points_sse2(const char* s, Py_ssize_t n, Py_ssize_t i) {
        Py_ssize_t continuation = 0;
    #if defined(__SSE2__)
        const __m128i limit = _mm_set1_epi8(-64), zero = _mm_setzero_si128();
        while (i + 16 <= n) {
            __m128i lanes = zero;
            for (int step = 0; step < 255 && i + 16 <= n; step++, i += 16)
                lanes = _mm_sub_epi8(lanes, _mm_cmpgt_epi8(limit, _mm_loadu_si128((const __m128i*) (s + i))));
            __m128i sums = _mm_sad_epu8(lanes, zero);
            continuation += _mm_cvtsi128_si32(sums) + _mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
        }
    #endif
        for (; i < n; i++) continuation += ((unsigned char) s[i] & 0xC0) == 0x80;
        return continuation;
    }
    #if defined(QATBE_AVX2)
    QATBE_TARGET_AVX2 static Py_ssize_t qatbe_code_points_avx2(const char* s, Py_ssize_t n) {
        Py_ssize_t i = 0, continuation = 0;
        const __m256i limit = _mm256_set1_epi8(-64), zero = _mm256_setzero_si256();
        while (i + 32 <= n) {
            __m256i lanes = zero;
            for (int step = 0; step < 255 && i + 32 <= n; step++, i += 32)
                lanes = _mm256_sub_epi8(lanes, _mm256_cmpgt_epi8(limit,
                                                                 _mm256_loadu_si256((const __m256i*) (s + i))));
            __m256i sums = _mm256_sad_epu8(lanes, zero);
            continuation += _mm256_extract_epi64(sums, 0) + _mm256_extract_epi64(sums, 1)
                + _mm256_extract_epi64(sums, 2) + _mm256_extract_epi64(sums, 3);
        }
        return continuation + qatbe_code_points_sse2(s, n, i);
    }
    #endif
    static Py_ssize_t qatbe_code_points(const char* s, Py_ssize_t n) {
    #if defined(QATBE_AVX2)
        if (qatbe_avx2) return n - qatbe_code_points_avx2(s, n);
    #endif
        return n - qatbe_code_points_sse2(s, n, 0);
    }
    """
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


def collapse_in_c(bytes raw):
    """For tests: ``_collapse`` of UTF-8 bytes, as ``(collapsed bytes, all ASCII)``."""
    cdef Buffer out
    cdef bint ascii
    out.data = NULL
    out.length = 0
    out.capacity = 0
    try:
        _collapse(raw, len(raw), &out, &ascii)
        return out.data[:out.length], ascii
    finally:
        free(out.data)


def evidence_in_c(str tag, dict attrs):
    """For tests: what the walk's C evidence says of ``tag`` with these attributes (names as in
    ``_ATTR_NAMES``), or None where it asks ``html_boilerplate.evidence`` instead."""
    cdef Attrs a
    cdef TagInfo info = _classify(tag)
    cdef int neg
    cdef bint pos, hidden, byline
    keep = _fill(&a, attrs)
    if _evidence_c(&a, &info, &neg, &pos, &hidden, &byline) != 0:
        return None
    return (neg, pos, hidden, byline)


_MISSING = object()


def fast_walk(body_id):
    """A ``FastWalker`` that has walked the body at ``body_id`` (``LexborNode.mem_id``)."""
    walker = FastWalker()
    walker.walk(body_id)
    return walker
