# cython: language_level=3
"""The few elements ``html_metadata`` reads, found by C walks over Lexbor's nodes (``lexbor_nodes``).

Why: metadata is read from a handful of elements (``<meta>``, ``<title>``, JSON-LD scripts, microdata), but
finding them took selectolax's CSS engine three walks of the document and a Python object per match, about a
third of the parse on a typical page. Here one C walk compares tag ids and reads two or three attributes; the
``<meta>`` keys, the ``rel`` of links and the body's microdata are read and compared in C as well (on ASCII bytes;
other values go to the same ``str`` methods ``html_metadata`` uses), so only the values ``read_from`` can use become
Python strings, and ``Element`` objects are made for the few elements it reads further. ``MetadataSource`` answers
exactly what ``html_metadata.CssSource`` answers with selectolax's queries (the tests compare both on generated and
real pages), so ``read_from`` runs the same code on either.
"""

from cpython.unicode cimport PyUnicode_DecodeASCII, PyUnicode_DecodeUTF8
from cpython.pyport cimport PY_SSIZE_T_MAX
from libc.stdint cimport uintptr_t
from libc.string cimport memcmp

from qatbe.segmentation.ascii_bytes cimport (
    ascii_lower, contains_ci, equals_ci, is_ascii, py_space, strip_ascii,
)
from qatbe.segmentation.lexbor_nodes cimport (
    NODE_ELEMENT,
    NODE_TEXT,
    LexborApi,
    first_child,
    is_html,
    lexbor_api,
    next_sibling,
    node_type,
    parent_of,
    tag_id,
    text_data,
    uchar,
)

from selectolax.lexbor import LexborHTMLParser

from qatbe.segmentation.html_metadata import _MAX_BODY_NODES, _filled

cdef const LexborApi* _api = lexbor_api()

# The tags searched for, by Lexbor's id (fixed in a Lexbor build; read from it rather than assumed).
_probe = LexborHTMLParser("<meta><title></title><link><script></script><a></a><time></time><h1></h1>"
                          "<article></article><main></main><svg></svg><math></math>")
cdef uintptr_t T_META, T_TITLE, T_LINK, T_SCRIPT, T_A, T_TIME, T_H1, T_ARTICLE, T_MAIN, T_SVG, T_MATH
T_META, T_TITLE, T_LINK, T_SCRIPT, T_A, T_TIME, T_H1, T_ARTICLE, T_MAIN, T_SVG, T_MATH = [
    tag_id(_api, <void*> <uintptr_t> _probe.css_first(tag).mem_id)
    for tag in ("meta", "title", "link", "script", "a", "time", "h1", "article", "main", "svg", "math")]
del _probe


cdef void* _attr(void* node, const char* name, size_t length) noexcept nogil:
    """The attribute named ``name`` (as written, lower case for HTML), or NULL."""
    cdef size_t n = 0
    cdef const uchar* attr_name
    cdef void* attr = _api.first_attr(node)
    while attr != NULL:
        attr_name = _api.attr_name(attr, &n)
        if n == length and memcmp(attr_name, name, n) == 0:
            return attr
        attr = _api.next_attr(attr)
    return NULL


cdef bint _value_ci(void* node, const char* name, size_t length, const char* want, size_t m, bint substring
                    ) noexcept nogil:
    """``[name="want" i]`` (or ``*=`` with ``substring``) for one element."""
    cdef size_t n = 0
    cdef const uchar* value
    cdef void* attr = _attr(node, name, length)
    if attr == NULL:
        return False
    value = _api.attr_value(attr, &n)
    if value == NULL:
        n = 0
    if substring:
        return value != NULL and contains_ci(value, n, want, m)
    return equals_ci(value, n, want, m)


cdef bint _value_exact(void* node, const char* name, size_t length) noexcept nogil:
    """``[type="application/ld+json"]`` compared byte for byte."""
    cdef size_t n = 0
    cdef const uchar* value
    cdef void* attr = _attr(node, name, length)
    if attr == NULL:
        return False
    value = _api.attr_value(attr, &n)
    return value != NULL and n == 19 and memcmp(value, b"application/ld+json", 19) == 0


cdef inline void* _next(void* node, void* top) noexcept nogil:
    """The node after ``node`` in document order, not leaving ``top``'s subtree (children first)."""
    cdef void* up = first_child(_api, node)
    if up != NULL:
        return up
    while node != NULL and node != top:
        up = next_sibling(_api, node)
        if up != NULL:
            return up
        node = parent_of(_api, node)
    return NULL


cdef inline void* _skip(void* node, void* top) noexcept nogil:
    """The node after ``node``'s subtree in document order, within ``top``."""
    cdef void* up
    while node != NULL and node != top:
        up = next_sibling(_api, node)
        if up != NULL:
            return up
        node = parent_of(_api, node)
    return NULL


cdef bint _under(void* node, uintptr_t first, uintptr_t second, Py_ssize_t limit) noexcept nogil:
    """Whether an element among ``node``'s first ``limit`` ancestors has the tag ``first`` or ``second``."""
    cdef void* up = parent_of(_api, node)
    cdef uintptr_t tag
    cdef Py_ssize_t i = 0
    while up != NULL and i < limit:
        if node_type(_api, up) == NODE_ELEMENT:
            tag = tag_id(_api, up)
            if tag == first or tag == second:
                return True
        up = parent_of(_api, up)
        i += 1
    return False


cdef inline bint _in_foreign(void* node) noexcept nogil:
    """Whether ``node`` sits inside an ``<svg>`` or ``<math>`` (``html_metadata._in_foreign``): an icon's ``<title>``
    is not the page's."""
    return _under(node, T_SVG, T_MATH, PY_SSIZE_T_MAX)


# Which element a search wants.
cdef enum:
    Q_HEAD = 0      # meta, title, link[rel*="canonical" i]
    Q_JSONLD = 1    # script[type="application/ld+json"] (type is compared ignoring ASCII case, as Lexbor does)
    Q_NAME = 2      # [itemprop="name" i]


cdef bint _wanted(void* node, int query) noexcept nogil:
    cdef uintptr_t tag = tag_id(_api, node)
    if query == Q_HEAD:
        return tag == T_META or tag == T_TITLE or (
            tag == T_LINK and _value_ci(node, b"rel", 3, b"canonical", 9, True))
    if query == Q_JSONLD:
        # Lexbor compares ``type`` ignoring ASCII case on HTML elements (HTML's list of such attributes), exactly
        # on others (a <script> inside <svg>).
        return tag == T_SCRIPT and (_value_ci(node, b"type", 4, b"application/ld+json", 19, False)
                                    if is_html(_api, node) else _value_exact(node, b"type", 4))
    return _value_ci(node, b"itemprop", 8, b"name", 4, False)


cdef list _find(object owner, void* top, int query, Py_ssize_t limit):
    """Elements of ``top``'s subtree (``top`` included, as Lexbor's queries include it) that a query wants, in
    document order, at most ``limit``."""
    cdef list out = []
    cdef void* node = top
    while node != NULL and len(out) < limit:
        if node_type(_api, node) == NODE_ELEMENT and _wanted(node, query):
            out.append(_element(node, owner))
        node = _next(node, top)
    return out


cdef Element _element(void* node, object owner):
    cdef Element e = Element.__new__(Element)
    e.node = node
    e.owner = owner
    return e


cdef class Element:
    """One element, read as selectolax's ``LexborNode`` reads it (the subset ``html_metadata`` uses)."""

    cdef void* node
    cdef object owner  # the parser: keeps the document alive

    @property
    def tag_id(self):
        return tag_id(_api, self.node)

    @property
    def tag(self):
        cdef size_t n = 0
        cdef const uchar* name
        if node_type(_api, self.node) != NODE_ELEMENT:
            return None
        name = _api.element_name(self.node, &n)
        return PyUnicode_DecodeUTF8(<const char*> name, n, "replace") if name != NULL else None

    @property
    def attributes(self):
        cdef dict out = {}
        cdef size_t n = 0, value_n = 0
        cdef const uchar* name
        cdef const uchar* value
        cdef void* attr
        if node_type(_api, self.node) != NODE_ELEMENT:
            return out
        attr = _api.first_attr(self.node)
        while attr != NULL:
            name = _api.attr_name(attr, &n)
            key = PyUnicode_DecodeUTF8(<const char*> name, n, "replace")
            value = _api.attr_value(attr, &value_n)
            out[key] = PyUnicode_DecodeUTF8(<const char*> value, value_n, "replace") if value != NULL else None
            attr = _api.next_attr(attr)
        return out

    @property
    def parent(self):
        cdef void* up = parent_of(_api, self.node)
        return _element(up, self.owner) if up != NULL else None

    def text(self, bint deep=True):
        """Every text node under the element, joined (``LexborNode.text(deep=True)``)."""
        cdef void* top = self.node
        cdef void* node = first_child(_api, top)
        cdef size_t n = 0
        cdef const uchar* data
        cdef bytearray joined = bytearray()
        while node != NULL:
            if node_type(_api, node) == NODE_TEXT:
                data = text_data(_api, node, &n)
                if data != NULL and n:
                    joined += (<const char*> data)[:n]
                node = _skip(node, top) if deep else next_sibling(_api, node)
            elif deep:
                node = _next(node, top)
            else:
                node = next_sibling(_api, node)
        return joined.decode("utf-8", "replace")


cdef void* _address(object node):
    return <void*> <uintptr_t> node.mem_id if node is not None else NULL


# -- values compared as Python compares them ------------------------------------------------------------------------
# html_metadata reads attribute values with str.strip() and str.lower(), which know Unicode. On ASCII bytes the same
# is done here in C; a value with any other byte is decoded and handed to the str methods, so the answers are the
# same for every value (tests/test_lexbor_dom.py compares them on generated pages).


cdef inline str _decode(const uchar* value, size_t n):
    return PyUnicode_DecodeUTF8(<const char*> value, n, "replace")


cdef const uchar* _value(void* node, const char* name, size_t length, size_t* n) noexcept nogil:
    """The value of the attribute ``name``: NULL when it is missing or has no value (selectolax's None)."""
    cdef void* attr = _attr(node, name, length)
    n[0] = 0
    if attr == NULL:
        return NULL
    return _api.attr_value(attr, n)


cdef str _key(const uchar* value, size_t n):
    """``value.strip().lower()`` of a non-empty attribute value."""
    cdef char buffer[64]
    cdef const uchar* key
    cdef size_t length, i
    if not is_ascii(value, n):
        return _decode(value, n).strip().lower()
    strip_ascii(value, n, &key, &length)
    if length > sizeof(buffer):
        return _decode(value, n).strip().lower()
    for i in range(length):
        buffer[i] = <char> ascii_lower(key[i])
    return PyUnicode_DecodeASCII(buffer, length, NULL)


# The attributes of a <meta> that head() reads, in one pass over its attribute list (a <meta> has two or three).
cdef enum:
    M_PROPERTY = 0
    M_NAME = 1
    M_ITEMPROP = 2
    M_HTTP_EQUIV = 3
    M_CONTENT = 4
    M_COUNT = 5


cdef void _meta_attrs(void* node, const uchar** values, size_t* lengths) noexcept nogil:
    """The value and length of each of a ``<meta>``'s ``property``, ``name``, ``itemprop``, ``http-equiv`` and
    ``content`` (NULL when missing or without a value, as ``_value`` reads one)."""
    cdef size_t n = 0
    cdef const uchar* name
    cdef int slot
    cdef void* attr = _api.first_attr(node)
    for slot in range(M_COUNT):
        values[slot] = NULL
        lengths[slot] = 0
    while attr != NULL:
        name = _api.attr_name(attr, &n)
        slot = -1
        if n == 8:
            if memcmp(name, b"property", 8) == 0:
                slot = M_PROPERTY
            elif memcmp(name, b"itemprop", 8) == 0:
                slot = M_ITEMPROP
        elif n == 4:
            if memcmp(name, b"name", 4) == 0:
                slot = M_NAME
        elif n == 10:
            if memcmp(name, b"http-equiv", 10) == 0:
                slot = M_HTTP_EQUIV
        elif n == 7:
            if memcmp(name, b"content", 7) == 0:
                slot = M_CONTENT
        if slot >= 0 and values[slot] == NULL and lengths[slot] == 0:
            values[slot] = _api.attr_value(attr, &lengths[slot])
            if values[slot] == NULL:
                lengths[slot] = 1  # seen, without a value: a later attribute of the name is not read (as _attr)
        attr = _api.next_attr(attr)
    for slot in range(M_COUNT):
        if values[slot] == NULL:
            lengths[slot] = 0


cdef str _meta_key(const uchar** values, size_t* lengths):
    """``(attrs.get("property") or attrs.get("name") or attrs.get("itemprop") or attrs.get("http-equiv"))``
    stripped and lower-cased; None when none of them has a value."""
    cdef int slot
    for slot in range(M_CONTENT):
        if values[slot] != NULL and lengths[slot]:
            return _key(values[slot], lengths[slot])
    return None


cdef object _filled_content(const uchar* value, size_t n):
    """A ``<meta>``'s ``content`` when ``content and html_metadata._filled(content)``, else None: decided on the
    bytes when they are ASCII without "&" (then only an all-whitespace value is blank)."""
    cdef size_t i
    if value == NULL or n == 0:
        return None
    for i in range(n):
        if value[i] >= 128 or value[i] == 38:  # not ASCII, or "&": ask html_metadata._filled
            text = _decode(value, n)
            return text if _filled(text) else None
    for i in range(n):
        if not py_space(value[i]):
            return PyUnicode_DecodeASCII(<const char*> value, n, NULL)
    return None


cdef bint _rel_is_canonical(void* node) except -1:
    """``(attrs.get("rel") or "").strip().lower() == "canonical"``."""
    cdef size_t n = 0, length
    cdef const uchar* key
    cdef const uchar* value = _value(node, b"rel", 3, &n)
    if value == NULL:
        return False
    if not is_ascii(value, n):
        return _decode(value, n).strip().lower() == "canonical"
    strip_ascii(value, n, &key, &length)
    return equals_ci(key, length, b"canonical", 9)


cdef object _text_of(void* node, const char* name, size_t length):
    """``attrs.get(name)``: the decoded value, or None when it is missing or has no value."""
    cdef size_t n = 0
    cdef const uchar* value = _value(node, name, length, &n)
    return _decode(value, n) if value != NULL else None


# -- the body's marks ----------------------------------------------------------------------------------------------

cdef enum:
    ITEMPROP_OTHER = 0
    ITEMPROP_AUTHOR = 1
    ITEMPROP_PUBLISHED = 2


cdef int _itemprop_kind(const uchar* value, size_t n) except -1:
    """What ``itemprop.strip().lower()`` names: "author", "datepublished"/"datecreated", or something else."""
    cdef const uchar* key
    cdef size_t length
    if value == NULL or n == 0:
        return ITEMPROP_OTHER
    if not is_ascii(value, n):
        word = _decode(value, n).strip().lower()
        return (ITEMPROP_AUTHOR if word == "author" else
                ITEMPROP_PUBLISHED if word in ("datepublished", "datecreated") else ITEMPROP_OTHER)
    strip_ascii(value, n, &key, &length)
    if equals_ci(key, length, b"author", 6):
        return ITEMPROP_AUTHOR
    if equals_ci(key, length, b"datepublished", 13) or equals_ci(key, length, b"datecreated", 11):
        return ITEMPROP_PUBLISHED
    return ITEMPROP_OTHER


cdef bint _rel_author(const uchar* value, size_t n) except -1:
    """``"author" in rel.lower().split()``."""
    cdef size_t i = 0, start
    if value == NULL or n == 0:
        return False
    if not is_ascii(value, n):
        return "author" in _decode(value, n).lower().split()
    while i < n:
        while i < n and py_space(value[i]):
            i += 1
        start = i
        while i < n and not py_space(value[i]):
            i += 1
        if equals_ci(value + start, i - start, b"author", 6):
            return True
    return False


cdef bint _published_class(const uchar* value, size_t n) except -1:
    """``any(c in classes.lower() for c in ("publish", "post-date", "entry-date"))``."""
    if value == NULL or n == 0:
        return False
    if not is_ascii(value, n):
        classes = _decode(value, n).lower()
        return "publish" in classes or "post-date" in classes or "entry-date" in classes
    return (contains_ci(value, n, b"publish", 7) or contains_ci(value, n, b"post-date", 9)
            or contains_ci(value, n, b"entry-date", 10))


cdef inline bint _in_main(void* node) noexcept nogil:
    """``html_metadata._in_main``: an ``<article>`` or ``<main>`` among the first 64 ancestors."""
    return _under(node, T_ARTICLE, T_MAIN, 64)


cdef object _maybe(void* node, object owner):
    return _element(node, owner) if node != NULL else None


cdef class MetadataSource:
    """What ``html_metadata.read_from`` reads of a parsed page (see ``html_metadata.CssSource``).

    One walk of the document on construction finds everything: the ``<head>`` elements, JSON-LD scripts and the
    first ``<h1>`` are kept as node addresses, and the body's marked elements are sorted on the way into the four
    that ``html_metadata`` can use (``body_picks``), so a page's many ``itemprop`` elements never become Python
    objects. ``Element`` objects are made only for what is asked."""

    cdef object tree
    cdef list in_head  # node addresses, in document order
    cdef list in_body_head  # <meta>, <title> and canonical <link> (HTML ones) in the body, in document order
    cdef bint head_titled  # the head holds a <title>
    cdef list scripts
    cdef void* root
    cdef void* body
    cdef void* h1
    # The body's marks: how many were met (an element once per selector it matches, as Lexbor's query lists it)
    # and the picks; only marks among the first ``limit`` count.
    cdef Py_ssize_t marks
    cdef Py_ssize_t limit
    cdef void* published
    cdef void* author
    cdef void* first_time
    cdef void* main_time

    def __init__(self, tree):
        self.tree = tree
        self.in_head = []
        self.in_body_head = []
        self.scripts = []
        self.limit = _MAX_BODY_NODES
        cdef void* document
        cdef void* head_top
        cdef void* body_top
        cdef void* node
        cdef void* up
        cdef uintptr_t tag
        cdef Py_ssize_t in_head = 0, in_body = 0  # depth inside <head> / <body>, 0 outside
        root = tree.root
        if root is None:
            return
        self.root = _address(root)
        document = parent_of(_api, self.root)
        head = tree.head
        body = tree.body
        head_top = _address(head) if head is not None else document
        body_top = _address(body) if body is not None else document
        self.body = _address(body) if body is not None else NULL
        # Document order with enter/leave tracking, so that each element is tested once for every query.
        node = document
        while node != NULL:
            if node == head_top:
                in_head += 1
            if node == body_top:
                in_body += 1
            if node_type(_api, node) == NODE_ELEMENT:
                tag = tag_id(_api, node)
                if in_head and _wanted(node, Q_HEAD):
                    self.in_head.append(<uintptr_t> node)
                    self.head_titled = self.head_titled or tag == T_TITLE
                elif in_body and not self.head_titled and _wanted(node, Q_HEAD) and not _in_foreign(node):
                    # Only read when the head has no <title>, which is known by now: the head comes first.
                    self.in_body_head.append(<uintptr_t> node)
                if tag == T_SCRIPT and _wanted(node, Q_JSONLD):
                    self.scripts.append(<uintptr_t> node)
                if tag == T_H1 and self.h1 == NULL:
                    self.h1 = node
                if in_body and self.marks < self.limit:
                    self._mark(node, tag)
            up = first_child(_api, node)
            if up != NULL:
                node = up
                continue
            while node != NULL:  # leave it (and ancestors whose last child it was)
                if node == head_top:
                    in_head -= 1
                if node == body_top:
                    in_body -= 1
                up = next_sibling(_api, node)
                if up != NULL:
                    node = up
                    break
                node = parent_of(_api, node)

    cdef int _mark(self, void* node, uintptr_t tag) except -1:
        """``html_metadata.CssSource.body_picks``'s loop, for one element of the body."""
        cdef size_t n = 0, rel_n = 0
        cdef void* itemprop = _attr(node, b"itemprop", 8)
        cdef void* rel = _attr(node, b"rel", 3) if tag == T_A else NULL
        cdef const uchar* value
        cdef int kind
        if itemprop == NULL and rel == NULL and tag != T_TIME:
            return 0
        self.marks += (itemprop != NULL) + (rel != NULL) + (tag == T_TIME)
        kind = ITEMPROP_OTHER
        if itemprop != NULL:
            value = _api.attr_value(itemprop, &n)
            kind = _itemprop_kind(value, n)
        if self.author == NULL:
            if kind == ITEMPROP_AUTHOR:
                self.author = node
            elif rel != NULL:
                value = _api.attr_value(rel, &rel_n)
                if _rel_author(value, rel_n):
                    self.author = node
        if self.published == NULL:
            if kind == ITEMPROP_PUBLISHED:
                self.published = node
            elif tag == T_TIME:
                value = _value(node, b"class", 5, &n)
                if _attr(node, b"pubdate", 7) != NULL or _published_class(value, n):
                    self.published = node
                elif _value(node, b"datetime", 8, &n) != NULL:
                    if self.first_time == NULL:
                        self.first_time = node
                    if self.main_time == NULL and _in_main(node):
                        self.main_time = node
        return 0

    def head(self, wanted):
        """``html_metadata.CssSource.head``: the ``<meta>`` keys read in C, a content decoded only when its key is
        wanted and not yet filled."""
        cdef dict metas = {}
        cdef const uchar* values[M_COUNT]
        cdef size_t lengths[M_COUNT]
        cdef void* node
        cdef uintptr_t tag
        cdef bint title_seen = False, canonical_seen = False
        title_text = canonical = None
        # A head without a <title> was most likely cut short (see ``html_metadata.CssSource.head``).
        for address in (self.in_head if self.head_titled else self.in_head + self.in_body_head):
            node = <void*> <uintptr_t> address
            tag = tag_id(_api, node)
            if tag == T_META:
                _meta_attrs(node, values, lengths)
                key = _meta_key(values, lengths)
                if key is not None and key in wanted and key not in metas:
                    content = _filled_content(values[M_CONTENT], lengths[M_CONTENT])
                    if content is not None:
                        metas[key] = content
            elif tag == T_TITLE:
                if not title_seen:
                    title_text = _element(node, self.tree).text()
                    title_seen = True
            elif not canonical_seen and _rel_is_canonical(node):
                canonical = _text_of(node, b"href", 4)
                canonical_seen = True
        return metas, title_text, canonical

    def jsonld_texts(self):
        return [_element(<void*> <uintptr_t> a, self.tree).text() for a in self.scripts]

    def language(self):
        return _text_of(self.root, b"lang", 4) if self.root != NULL else None

    def page_types(self):
        """``html_metadata.CssSource.page_types``."""
        cdef list out = []
        root = _text_of(self.root, b"itemtype", 8) if self.root != NULL else None
        body = _text_of(self.body, b"itemtype", 8) if self.body != NULL else None
        if root:
            out.append(root)
        if body:
            out.append(body)
        return out

    def first_h1_text(self):
        return _element(self.h1, self.tree).text() if self.h1 != NULL else None

    def body_picks(self, Py_ssize_t limit):
        """``html_metadata.CssSource.body_picks``, sorted out during the walk (for ``limit`` = ``_MAX_BODY_NODES``;
        another limit walks again)."""
        cdef MetadataSource other
        if limit != self.limit:
            other = MetadataSource.__new__(MetadataSource)
            other.limit = limit
            other._walk_marks(self)
            return other.body_picks(limit)
        return (_maybe(self.published, self.tree), _maybe(self.main_time, self.tree),
                _maybe(self.first_time, self.tree), _maybe(self.author, self.tree))

    cdef int _walk_marks(self, MetadataSource source) except -1:
        """The marks of ``source``'s page again, under this source's limit."""
        cdef void* document
        cdef void* top
        cdef void* node
        self.tree = source.tree
        if source.root == NULL:
            return 0
        document = parent_of(_api, source.root)
        body = source.tree.body
        top = _address(body) if body is not None else document
        node = top
        while node != NULL and self.marks < self.limit:
            if node_type(_api, node) == NODE_ELEMENT:
                self._mark(node, tag_id(_api, node))
            node = _next(node, top)
        return 0

    def itemprop_name(self, Element node):
        found = _find(self.tree, node.node, Q_NAME, 1)
        return found[0] if found else None
