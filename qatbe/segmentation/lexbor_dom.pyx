# cython: language_level=3
"""The few elements ``html_metadata`` reads, found by C walks over Lexbor's nodes (``lexbor_nodes``).

Why: metadata is read from a handful of elements (``<meta>``, ``<title>``, JSON-LD scripts, microdata), but
finding them took selectolax's CSS engine three walks of the document and a Python object per match, about a
third of the parse on a typical page. Here each search is one C walk that compares tag ids and reads two or
three attributes; ``Element`` objects are made for the matches only. ``MetadataSource`` answers exactly what
``html_metadata.CssSource`` answers with selectolax's queries (the same elements, in document order; the tests
compare both on generated and real pages), so ``read_metadata`` runs the same code on either.
"""

from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport uintptr_t
from libc.string cimport memcmp

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

cdef const LexborApi* _api = lexbor_api()

# The tags searched for, by Lexbor's id (fixed in a Lexbor build; read from it rather than assumed).
_probe = LexborHTMLParser("<meta><title></title><link><script></script><a></a><time></time><h1></h1>")
cdef uintptr_t T_META, T_TITLE, T_LINK, T_SCRIPT, T_A, T_TIME, T_H1
T_META, T_TITLE, T_LINK, T_SCRIPT, T_A, T_TIME, T_H1 = [
    tag_id(_api, <void*> <uintptr_t> _probe.css_first(tag).mem_id)
    for tag in ("meta", "title", "link", "script", "a", "time", "h1")]
del _probe


cdef inline uchar _lower(uchar c) noexcept nogil:
    return c + 32 if 65 <= c <= 90 else c


cdef bint _equals_ci(const uchar* s, size_t n, const char* want, size_t m) noexcept nogil:
    """``s`` equals ``want`` (lower case) ignoring ASCII case, as a selector's ``i`` flag compares."""
    cdef size_t i
    if n != m:
        return False
    for i in range(n):
        if _lower(s[i]) != <uchar> want[i]:
            return False
    return True


cdef bint _contains_ci(const uchar* s, size_t n, const char* want, size_t m) noexcept nogil:
    cdef size_t i
    if n < m:
        return False
    for i in range(n - m + 1):
        if _equals_ci(s + i, m, want, m):
            return True
    return False


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
        return value != NULL and _contains_ci(value, n, want, m)
    return _equals_ci(value, n, want, m)


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


# Which element a search wants.
cdef enum:
    Q_HEAD = 0      # meta, title, link[rel*="canonical" i]
    Q_JSONLD = 1    # script[type="application/ld+json"] (type is compared ignoring ASCII case, as Lexbor does)
    Q_BODY = 2      # [itemprop], a[rel], time
    Q_H1 = 3        # h1
    Q_NAME = 4      # [itemprop="name" i]


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
    if query == Q_BODY:
        return _body_matches(node, tag) > 0
    if query == Q_H1:
        return tag == T_H1
    return _value_ci(node, b"itemprop", 8, b"name", 4, False)


cdef int _body_matches(void* node, uintptr_t tag) noexcept nogil:
    """How many of ``[itemprop]``, ``a[rel]`` and ``time`` an element matches: Lexbor's query lists an element
    once for each selector of a list it matches (a ``<time itemprop>`` twice), and the caller's cap counts them."""
    return ((_attr(node, b"itemprop", 8) != NULL) + (tag == T_A and _attr(node, b"rel", 3) != NULL)
            + (tag == T_TIME))


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


cdef object _first_value(void* node):
    """``attrs.get("property") or attrs.get("name") or attrs.get("itemprop") or attrs.get("http-equiv")``."""
    cdef size_t n = 0
    cdef const uchar* value
    cdef void* attr
    for name, length in ((b"property", 8), (b"name", 4), (b"itemprop", 8), (b"http-equiv", 10)):
        attr = _attr(node, name, length)
        if attr != NULL:
            value = _api.attr_value(attr, &n)
            if value != NULL and n:
                return PyUnicode_DecodeUTF8(<const char*> value, n, "replace")
    return None


cdef class MetadataSource:
    """What ``html_metadata.read_metadata`` reads of a parsed page (see ``html_metadata.CssSource``).

    One walk of the document finds everything on construction: the ``<head>`` elements, JSON-LD scripts, the
    first ``<h1>`` and the body's marked elements are kept as node addresses, and ``Element`` objects are made
    only for what is asked (most pages never ask for the body's marks)."""

    cdef object tree
    cdef list in_head  # node addresses, in document order
    cdef list scripts
    cdef list marks
    cdef uintptr_t h1

    def __init__(self, tree):
        self.tree = tree
        self.in_head = []
        self.scripts = []
        self.marks = []
        self.h1 = 0
        cdef void* document = _document(tree)
        cdef void* head_top
        cdef void* body_top
        cdef void* node
        cdef void* up
        cdef uintptr_t tag
        cdef Py_ssize_t in_head = 0, in_body = 0  # depth inside <head> / <body>, 0 outside
        if document == NULL:
            return
        head = tree.head
        body = tree.body
        head_top = _address(head) if head is not None else document
        body_top = _address(body) if body is not None else document
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
                if tag == T_SCRIPT and _wanted(node, Q_JSONLD):
                    self.scripts.append(<uintptr_t> node)
                if tag == T_H1 and self.h1 == 0:
                    self.h1 = <uintptr_t> node
                if in_body:
                    for _ in range(_body_matches(node, tag)):
                        self.marks.append(<uintptr_t> node)
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

    def head(self, wanted):
        """``html_metadata.CssSource.head``: the ``<meta>`` keys read in C, a content decoded only when its key
        is wanted."""
        cdef list metas = []
        cdef void* node
        cdef void* attr
        cdef size_t n = 0
        cdef const uchar* value
        cdef uintptr_t tag
        title_text = canonical = None
        title_seen = canonical_seen = False
        for address in self.in_head:
            node = <void*> <uintptr_t> address
            tag = tag_id(_api, node)
            if tag == T_META:
                key = _first_value(node)
                if key is not None:
                    key = key.strip().lower()
                    if key in wanted:
                        attr = _attr(node, b"content", 7)
                        value = _api.attr_value(attr, &n) if attr != NULL else NULL
                        metas.append((key, PyUnicode_DecodeUTF8(<const char*> value, n, "replace")
                                      if value != NULL else None))
            elif tag == T_TITLE:
                if not title_seen:
                    title_text = _element(node, self.tree).text()
                    title_seen = True
            elif not canonical_seen:
                attr = _attr(node, b"rel", 3)
                value = _api.attr_value(attr, &n) if attr != NULL else NULL
                rel = PyUnicode_DecodeUTF8(<const char*> value, n, "replace") if value != NULL else ""
                if rel.strip().lower() == "canonical":
                    canonical = _element(node, self.tree).attributes.get("href")
                    canonical_seen = True
        return metas, title_text, canonical

    def jsonld_texts(self):
        return [_element(<void*> <uintptr_t> a, self.tree).text() for a in self.scripts]

    def language(self):
        root = self.tree.root
        return root.attributes.get("lang") if root is not None else None

    def first_h1_text(self):
        return _element(<void*> self.h1, self.tree).text() if self.h1 else None

    def body_marks(self, Py_ssize_t limit):
        return [_element(<void*> <uintptr_t> a, self.tree) for a in self.marks[:limit]]

    def itemprop_name(self, Element node):
        found = _find(self.tree, node.node, Q_NAME, 1)
        return found[0] if found else None


cdef void* _document(object tree):
    """The document node (the root element's parent), or NULL for a document without elements."""
    root = tree.root
    return parent_of(_api, _address(root)) if root is not None else NULL
