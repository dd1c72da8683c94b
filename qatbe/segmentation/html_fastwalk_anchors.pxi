# html_fastwalk, part 5: anchors, where in the source each walked block's element starts. Included by
# html_fastwalk.pyx before html_fastwalk_spans.pxi, whose SpanAligner records the source's start tags.
#
# Lexbor keeps no source positions on its nodes, so they are found by matching two lists of tag names in document
# order: the tree's elements (a pre-order walk) and the source's start tags (the aligner's scan of the markup,
# which skips comments, raw text and <template> content, as the tree does). They are the same list but for what
# the parser adds (an implied <tbody>, a formatting element it reopens) or drops (a second <body>, a stray end
# tag's element); ``_match`` steps over those by finding the nearest place where both lists agree again. A block's
# anchor is then the start tag of the last element at or before its node in document order, formatting elements
# left out (the parser reopens those: a clone of <a> or <b> has no start tag of its own and may be matched with a
# later one): its text comes after that tag in the source. The aligner starts its search there (SegmentBuilder), so a text the page repeats is
# found at its own place, not at an earlier or later copy.

# How far ``_match`` looks for the next place where the lists agree: within ``_NEAR_SKIP`` elements on both
# sides, else up to ``_FAR_SKIP`` start tags ahead in the source (a formula html_math replaced by its TeX, whose
# elements are gone from the tree), with ``_CONFIRM`` names in a row agreeing; and for how many elements after
# stepping over start tags an unmatched element may be one of those (``_MOVED``).
cdef enum:
    _NEAR_SKIP = 16
    _FAR_SKIP = 4096
    _CONFIRM = 3
    _MOVED = 64


ctypedef struct TagList:
    uint32_t* name  # FNV-1a of the tag's name, lower-cased (ASCII)
    uint32_t* lo    # the character offset of its "<"
    Py_ssize_t n
    Py_ssize_t cap


cdef inline uint32_t _name_hash(const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef uint32_t h = 2166136261u
    cdef uchar c
    cdef Py_ssize_t k
    for k in range(n):
        c = s[k]
        if 65 <= c <= 90:
            c |= 32
        h = (h ^ c) * 16777619u
    return h


cdef uint32_t _TEMPLATE = _name_hash(<const uchar*> b"template", 8)
cdef uint32_t _SVG = _name_hash(<const uchar*> b"svg", 3)
cdef uint32_t _MATH = _name_hash(<const uchar*> b"math", 4)

# The name hash of each of Lexbor's own tag ids, learnt from the first element with it; _ID_KNOWN is 0 until
# then, 2 for a formatting element, else 1.
cdef uint32_t _ID_HASH[STATIC_TAG_IDS]
cdef unsigned char _ID_KNOWN[STATIC_TAG_IDS]
memset(_ID_KNOWN, 0, sizeof(_ID_KNOWN))

# The formatting elements the parser reopens (the HTML standard's list of them).
cdef uint32_t _FORMATTING[14]
cdef bytes _name
for _k, _name in enumerate((b"a", b"b", b"big", b"code", b"em", b"font", b"i", b"nobr", b"s", b"small", b"strike",
                            b"strong", b"tt", b"u")):
    _FORMATTING[_k] = _name_hash(<const uchar*> (<const char*> _name), len(_name))


cdef inline bint _formatting(uint32_t name) noexcept nogil:
    cdef int k
    for k in range(14):
        if _FORMATTING[k] == name:
            return True
    return False


cdef int _tag_add(TagList* tags, uint32_t name, Py_ssize_t lo) except -1:
    cdef Py_ssize_t cap
    cdef void* a
    if tags.n == tags.cap:
        cap = 2 * tags.cap + 256
        a = realloc(tags.name, cap * sizeof(uint32_t))
        if a == NULL:
            raise MemoryError()
        tags.name = <uint32_t*> a
        a = realloc(tags.lo, cap * sizeof(uint32_t))
        if a == NULL:
            raise MemoryError()
        tags.lo = <uint32_t*> a
        tags.cap = cap
    tags.name[tags.n] = name
    tags.lo[tags.n] = <uint32_t> lo
    tags.n += 1
    return 0


cdef inline bint _agree(const uint32_t* a, Py_ssize_t na, Py_ssize_t i, const uint32_t* b, Py_ssize_t nb,
                        Py_ssize_t j) noexcept nogil:
    """Whether the lists agree for ``_CONFIRM`` names from ``a[i]`` and ``b[j]`` (or up to the end of one)."""
    cdef Py_ssize_t k
    for k in range(_CONFIRM):
        if i + k >= na or j + k >= nb:
            return k > 0
        if a[i + k] != b[j + k]:
            return False
    return True


cdef void _match(const uint32_t* dom, Py_ssize_t m, const uint32_t* src, Py_ssize_t n, Py_ssize_t* out) noexcept nogil:
    """``out[i]``: the source start tag of tree element ``i``, or for an element not matched, a tag at or before
    its own (-1: before the first). That is the last matched tag before it, or, within ``_MOVED`` elements after
    start tags were stepped over, the tag before the first of those: the parser moves elements (a table's stray
    content goes before the table), so an unmatched element may be one of the tags stepped over."""
    cdef Py_ssize_t i = 0, j = 0, last = -1, total, d, s, low, high, skipped = -1, until = -1
    cdef bint found
    while i < m:
        if j < n and dom[i] == src[j]:
            last = j
            out[i] = j
            i += 1
            j += 1
            continue
        found = False
        for total in range(1, 2 * _NEAR_SKIP + 1):  # the nearest place where both agree again
            low = total - _NEAR_SKIP if total > _NEAR_SKIP else 0
            high = total if total < _NEAR_SKIP else _NEAR_SKIP
            for d in range(low, high + 1):
                s = total - d
                if i + d < m and j + s < n and _agree(dom, m, i + d, src, n, j + s):
                    found = True
                    break
            if found:
                break
        if not found:  # elements the tree lost: further ahead in the source only
            d = 0
            for s in range(_NEAR_SKIP + 1, _FAR_SKIP):
                if j + s >= n:
                    break
                if _agree(dom, m, i, src, n, j + s):
                    found = True
                    break
        if not found:
            out[i] = last if i > until or skipped - 1 >= last else skipped - 1
            i += 1
            continue
        while d > 0:  # elements the source does not hold (implied, reopened, moved)
            out[i] = last if i > until or skipped - 1 >= last else skipped - 1
            i += 1
            d -= 1
        if s > 0 and i > until:
            skipped = j
            until = i + _MOVED
        j += s


def anchor_offsets(SpanAligner spans, size_t root, list nodes):
    """The character offset in ``spans``' source of each node's anchor (see above), -1 when not known: ``root``
    is the document's root element (``tree.root.mem_id``), ``nodes`` node addresses under it (``Block.node``; 0
    or a node elsewhere gives -1)."""
    cdef const LexborApi* api = lexbor_api()
    cdef PointerSet wanted
    cdef size_t address
    cdef void* node = <void*> root
    cdef void* up
    cdef uint32_t* names = NULL
    cdef Py_ssize_t* at = NULL
    cdef Py_ssize_t m = 0, cap = 0, i, anchor = -1
    cdef uintptr_t tag
    cdef size_t length
    cdef const uchar* name
    cdef void* grown
    cdef dict element_of = {}
    wanted.slots = NULL
    wanted.size = 0
    wanted.used = 0
    try:
        for address in nodes:
            if address:
                _add(&wanted, address)
        while node != NULL:  # pre-order, elements counted, wanted nodes given the last anchor element's index
            if node_type(api, node) == NODE_ELEMENT:
                if m == cap:
                    cap = 2 * cap + 1024
                    grown = realloc(names, cap * sizeof(uint32_t))
                    if grown == NULL:
                        raise MemoryError()
                    names = <uint32_t*> grown
                tag = tag_id(api, node)
                if tag < STATIC_TAG_IDS and _ID_KNOWN[tag]:
                    names[m] = _ID_HASH[tag]
                    if _ID_KNOWN[tag] == 1:
                        anchor = m
                else:
                    name = api.element_name(node, &length)
                    names[m] = _name_hash(name, length) if name != NULL else 0
                    if tag < STATIC_TAG_IDS:  # Lexbor's own tags: one name (lower-cased) per id
                        _ID_HASH[tag] = names[m]
                        _ID_KNOWN[tag] = 2 if _formatting(names[m]) else 1
                    if not _formatting(names[m]):
                        anchor = m
                m += 1
            if wanted.used and _contains(&wanted, <uintptr_t> node):
                element_of[<size_t> node] = anchor
            up = first_child(api, node)
            if up != NULL:
                node = up
                continue
            while node != NULL and node != <void*> root and next_sibling(api, node) == NULL:
                node = parent_of(api, node)
            if node == NULL or node == <void*> root:
                break
            node = next_sibling(api, node)
        at = <Py_ssize_t*> malloc((m + 1) * sizeof(Py_ssize_t))
        if at == NULL:
            raise MemoryError()
        _match(names, m, spans.tags.name, spans.tags.n, at)
        out = []
        for address in nodes:
            i = element_of.get(address, -2)
            if i == -2:  # not a node of this tree
                out.append(-1)
                continue
            i = at[i] if i >= 0 else -1
            out.append(spans.tags.lo[i] if i >= 0 else 0)
        return out
    finally:
        free(names)
        free(at)
        free(wanted.slots)
