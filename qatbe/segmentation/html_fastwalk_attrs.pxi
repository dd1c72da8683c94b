# html_fastwalk, part 2: reading a node's attributes, the boilerplate evidence and hiding rules over them in C,
# and what makes an element a button. Included by html_fastwalk.pyx.

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
# about two thirds of the walk, 5-8 us per new element in Python. Here C reads the facts html_boilerplate names
# (the bits of a name's words and of a whole name or role, the strongest infix, the hiding attributes) from the
# attribute bytes, with its word lists, and looks the answer up in its rule tables (``RULE_TABLES``): the rules
# themselves are written only there. Values with any non-ASCII byte go to the Python function, where case
# folding and whitespace are Unicode's. tests/test_html_fastwalk.py compares the two on generated attributes.

cdef enum:
    EV_NONE = 0
    EV_WEAK = 1
    EV_STRONG = 2

# html_boilerplate's fact bits.
cdef enum:
    W_QUOTE = 1
    W_STRONG = 2
    W_WEAK = 4
    W_META = 8
    W_HIDDEN = 16      # a whole class name a stylesheet hides
    W_FOOTNOTE = 32    # a whole class name of a footnote marker
    W_NEG_ROLE = 64    # a whole role value
    W_POS_ROLE = 128
    W_SHOWN_ROLE = 256
    W_NAME_WORDS = 15  # the bits name_rule reads

_hb = html_boilerplate
if ((_hb.NONE, _hb.WEAK, _hb.STRONG) != (EV_NONE, EV_WEAK, EV_STRONG)
        or (_hb.QUOTE_WORD, _hb.STRONG_WORD, _hb.WEAK_WORD, _hb.META_WORD, _hb.HIDDEN_NAME, _hb.FOOTNOTE_NAME,
            _hb.NEG_ROLE, _hb.POS_ROLE, _hb.SHOWN_ROLE, _hb.NAME_WORD_BITS - 1)
        != (W_QUOTE, W_STRONG, W_WEAK, W_META, W_HIDDEN, W_FOOTNOTE, W_NEG_ROLE, W_POS_ROLE, W_SHOWN_ROLE,
            W_NAME_WORDS)):
    raise ImportError("html_boilerplate's evidence levels or fact bits changed; update html_fastwalk")

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
cdef bint _infix_start[256]  # the first letters of the infixes
_pos_itemprop = b""  # kept alive for the C pointer below
cdef const char* _pos_itemprop_ptr = NULL
cdef size_t _pos_itemprop_len = 0

# html_boilerplate.RULE_TABLES, indexed as ``_table`` lays them out. The name rule's answer is packed as
# level | quote << 2 | meta << 3; ``_infix_matters[words]``: whether it depends on the infix at all.
cdef unsigned char _name_rule[48]
cdef bint _infix_matters[16]
cdef unsigned char _neg_rule[36]
cdef unsigned char _pos_rule[8]
cdef unsigned char _hidden_rule[16]
cdef unsigned char _byline_rule[8]


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


cdef _add_words(dict bits):
    cdef bytes b
    cdef uint32_t j
    cdef Py_ssize_t n
    for word, flag in bits.items():
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


cdef _load_table(unsigned char* out, tuple values, Py_ssize_t size):
    cdef Py_ssize_t i
    if len(values) != size:
        raise ImportError("html_boilerplate's rule tables changed shape; update html_fastwalk")
    for i in range(size):
        out[i] = values[i]


def _load_rules():
    """html_boilerplate's word lists and rule tables into the C tables above."""
    global _n_infixes, _pos_itemprop, _pos_itemprop_ptr, _pos_itemprop_len
    cdef int words
    _add_words(_hb.WORD_BITS)
    _add_words(_hb.NAME_BITS)
    _add_words(_hb.ROLE_BITS)
    for infix, strong in [(f, True) for f in _hb._STRONG_INFIXES] + [(f, False) for f in _hb._WEAK_INFIXES]:
        b = infix.encode("ascii")
        _infixes.append(b)
        _infix_ptr[_n_infixes] = b
        _infix_len[_n_infixes] = len(b)
        _infix_strong[_n_infixes] = strong
        _infix_start[b[0]] = True
        _n_infixes += 1
    b = _hb.POS_ITEMPROP.encode("ascii")
    _pos_itemprop = b
    _pos_itemprop_ptr = b
    _pos_itemprop_len = len(b)
    tables = _hb.RULE_TABLES
    _load_table(_name_rule, tables["name"], 48)
    _load_table(_neg_rule, tables["neg"], 36)
    _load_table(_pos_rule, tables["pos"], 8)
    _load_table(_hidden_rule, tables["hidden"], 16)
    _load_table(_byline_rule, tables["byline"], 8)
    for words in range(16):
        _infix_matters[words] = not (_name_rule[3 * words] == _name_rule[3 * words + 1] == _name_rule[3 * words + 2])


_load_rules()


cdef int _infix_level(const uchar* s, Py_ssize_t n) noexcept nogil:
    """The strongest level among the infixes in ``s``: STRONG if a strong one occurs, else WEAK if a weak one
    does, else NONE."""
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
    bint footnote    # a name in FOOTNOTE_CLASSES
    bint unusual     # a name too long or in too many pieces for the C form: ask Python


cdef void _token_evidence(const uchar* t, Py_ssize_t n, NameEvidence* out) noexcept nogil:
    """html_boilerplate._token for one ASCII name, combined into ``out`` as _names combines them."""
    cdef uchar low[256]
    cdef uchar joined[WORD_MAX]
    cdef Py_ssize_t starts[64]
    cdef Py_ssize_t ends[64]
    cdef Py_ssize_t i, k, pieces = 0, start, end, a, b, c
    cdef int flags = 0, whole, infix = EV_NONE
    cdef unsigned char rule
    if n > 255:
        out.unusual = True
        return
    for i in range(n):
        low[i] = ascii_lower(t[i])
    whole = _word_flags(low, n)
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
    flags &= W_NAME_WORDS
    if _infix_matters[flags]:
        infix = _infix_level(low, n)
    rule = _name_rule[3 * flags + infix]
    if (rule & 3) > out.level:
        out.level = rule & 3
    out.quote = out.quote or (rule & 4) != 0
    out.meta = out.meta or (rule & 8) != 0
    out.hidden = out.hidden or (whole & W_HIDDEN) != 0
    out.footnote = out.footnote or (whole & W_FOOTNOTE) != 0


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
    unsigned char flags  # 1 quote, 2 hidden, 4 meta, 8 footnote, 16 unusual

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
    out.footnote = out.footnote or one.footnote
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
            out.footnote = out.footnote or (slot.flags & 8) != 0
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
    slot.flags = (one.quote * 1) | (one.hidden * 2) | (one.meta * 4) | (one.footnote * 8) | (one.unusual * 16)
    memcpy(_name_arena + _arena_used, t, n)
    _arena_used += n
    _name_used += 1


cdef void _cached_token_evidence(const uchar* t, Py_ssize_t n, NameEvidence* out) noexcept nogil:
    cdef uint32_t h = _word_hash(t, n) | 1
    cdef NameEvidence one
    if _known_name(t, n, h, out):
        return
    one.level = EV_NONE
    one.quote = one.hidden = one.meta = one.footnote = one.unusual = False
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
    whole.quote = whole.hidden = whole.meta = whole.footnote = whole.unusual = False
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


cdef int _role_flags(Attrs* a) noexcept nogil:
    """The fact bits of the role, ``role.strip().lower()`` looked up whole (0 without a role)."""
    cdef const uchar* role = NULL
    cdef size_t role_len = 0, i
    cdef uchar low[WORD_MAX]
    if a.value[A_ROLE] == NULL:
        return 0
    strip_ascii(a.value[A_ROLE], a.length[A_ROLE], &role, &role_len)
    if role_len == 0 or role_len >= WORD_MAX:
        return 0
    for i in range(role_len):
        low[i] = ascii_lower(role[i])
    return _word_flags(low, role_len)


cdef bint _hidden_by_attributes(Attrs* a) noexcept nogil:
    """html_boilerplate._hidden_by_attributes: ``hidden``, ``aria-hidden="true"`` or a hiding inline style."""
    cdef const uchar* v
    cdef size_t vn
    if a.present[A_HIDDEN]:
        return True
    if a.present[A_ARIA_HIDDEN] and a.value[A_ARIA_HIDDEN] != NULL:
        strip_ascii(a.value[A_ARIA_HIDDEN], a.length[A_ARIA_HIDDEN], &v, &vn)
        if equals_ci(v, vn, b"true", 4):
            return True
    return a.value[A_STYLE] != NULL and a.length[A_STYLE] and _hiding_style(a.value[A_STYLE], a.length[A_STYLE])


cdef inline bint _lookup_hidden(int base, Attrs* a) noexcept nogil:
    """``_hidden_rule`` at ``base`` (its first three arguments) and the hiding attributes, read only when the
    rule's answer depends on them."""
    if _hidden_rule[2 * base] == _hidden_rule[2 * base + 1]:
        return _hidden_rule[2 * base]
    return _hidden_rule[2 * base + _hidden_by_attributes(a)]


cdef inline bint _all_ascii(Attrs* a) noexcept nogil:
    cdef int slot
    for slot in range(A_COUNT):
        if a.present[slot] and a.value[slot] != NULL and not is_ascii(a.value[slot], a.length[slot]):
            return False
    return True


cdef int _evidence_c(Attrs* a, TagInfo* info, int* neg, bint* pos, bint* hidden, bint* byline) noexcept nogil:
    """html_boilerplate.evidence for attributes whose values are all ASCII; returns 0, or -1 to ask Python."""
    cdef NameEvidence names, prop
    cdef int roles
    cdef bint prop_meta = False, pos_prop
    if not _all_ascii(a):
        return -1
    names.level = EV_NONE
    names.quote = names.hidden = names.meta = names.footnote = names.unusual = False
    if a.value[A_CLASS] != NULL:
        _names_evidence(a.value[A_CLASS], a.length[A_CLASS], &names)
    if a.value[A_ID] != NULL:
        _names_evidence(a.value[A_ID], a.length[A_ID], &names)
    if names.unusual:
        return -1
    if a.value[A_ITEMPROP] != NULL and a.length[A_ITEMPROP] and not names.meta:
        prop.level = EV_NONE
        prop.quote = prop.hidden = prop.meta = prop.footnote = prop.unusual = False
        _names_evidence(a.value[A_ITEMPROP], a.length[A_ITEMPROP], &prop)
        if prop.unusual:
            return -1
        prop_meta = prop.meta
    roles = _role_flags(a)
    pos_prop = a.value[A_ITEMPROP] != NULL and contains_ci(a.value[A_ITEMPROP], a.length[A_ITEMPROP],
                                                           _pos_itemprop_ptr, _pos_itemprop_len)
    neg[0] = _neg_rule[(((info.facts & 3) * 3 + names.level) * 2 + names.quote) * 2 + ((roles & W_NEG_ROLE) != 0)]
    pos[0] = _pos_rule[(((info.facts >> 2) & 1) * 2 + ((roles & W_POS_ROLE) != 0)) * 2 + pos_prop]
    hidden[0] = _lookup_hidden(((roles & W_SHOWN_ROLE) != 0) * 4 + names.hidden * 2
                               + ((info.flags & F_FOOTNOTE) != 0 and names.footnote), a)
    byline[0] = _byline_rule[(names.meta * 2 + prop_meta) * 2 + ((info.facts >> 3) & 1)]
    return 0


cdef int _hidden_c(Attrs* a, bint by_class, bint footnote) noexcept nogil:
    """html_boilerplate.is_hidden (and, with ``by_class``, ``or hidden_by_names(footnote)``) for ASCII values:
    1 or 0, or -1 to ask Python."""
    cdef NameEvidence names
    if not _all_ascii(a):
        return -1
    names.level = EV_NONE
    names.quote = names.hidden = names.meta = names.footnote = names.unusual = False
    if a.value[A_CLASS] != NULL:
        _names_evidence(a.value[A_CLASS], a.length[A_CLASS], &names)
        if names.unusual:
            return -1
    if by_class and _hidden_rule[(names.hidden * 2 + (footnote and names.footnote)) * 2]:
        return 1
    return _lookup_hidden(((_role_flags(a) & W_SHOWN_ROLE) != 0) * 4 + names.hidden * 2, a)


# Process-wide memos of pure functions of (tag, attributes); bounded, cleared when full.
_MEMO_MAX = 1 << 16
cdef dict _evidence_memo = {}
cdef dict _hidden_memo = {}



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
