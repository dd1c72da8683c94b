# cython: language_level=3
"""Lexbor's tree, read in C: the functions selectolax's own extension calls, found in its loaded library.

Why: selectolax hands out one Python object per node visited (``first_child``, ``next``, ``tag``, ``attributes``
each build objects), and reading a typical page node by node that way cost twice the parse itself. The Lexbor
library inside selectolax exports its non-inline accessors (``lxb_dom_node_first_child_noi``, ...); called
through pointers, a whole page is read in about 3% of its parse. ``LexborNode.mem_id`` is the address of the
node, so no private layout of selectolax's Python objects is involved.

What this relies on, and how it is checked: the exported names (looked up with ctypes; a build that does not
export them, such as a Windows one, simply is not used), and one fact of layout, where a text node keeps its
``lexbor_str_t`` (right after the node header, whose size is computed from Lexbor's declaration). Before first
use a probe page is read both ways, through selectolax's Python API and through these pointers, node by node:
types, tag names, attributes and texts must agree. If anything is missing or disagrees, ``lexbor_api`` raises,
``reason()`` says why, and the segmenter uses its pure-Python walk instead (same output, slower).
"""

import ctypes
import os

from libc.stdint cimport uintptr_t
from libc.string cimport memcmp

_SYMBOLS = (
    ("first_child", "lxb_dom_node_first_child_noi"),
    ("next", "lxb_dom_node_next_noi"),
    ("parent", "lxb_dom_node_parent_noi"),
    ("tag_id", "lxb_dom_node_tag_id_noi"),
    ("node_type", "lxb_dom_node_type_noi"),
    ("element_name", "lxb_dom_element_qualified_name"),
    ("first_attr", "lxb_dom_element_first_attribute_noi"),
    ("next_attr", "lxb_dom_element_next_attribute_noi"),
    ("attr_name", "lxb_dom_attr_qualified_name"),
    ("attr_value", "lxb_dom_attr_value_noi"),
    ("str_data", "lexbor_str_data_noi"),
    ("str_length", "lexbor_str_length_noi"),
)

# A page with every kind of node the walk meets: nested elements, attributes with and without values, a comment,
# a custom element, non-ASCII text, an empty text node's neighbours.
_PROBE = (
    '<!DOCTYPE html><html lang="en"><head><title>t</title></head><body class="b">'
    '<div id="a" class="x y" hidden data-v="1">Text <b>bold</b><br>tail</div><!-- c -->'
    '<p>qatbe probe text \u00e9\u4e2d 12345</p><my-widget aria-hidden="true">w</my-widget>'
    '<table><tr><td colspan="2">c</td></tr></table><ul><li>i</li></ul><svg><g><text>s</text></g></svg>'
    '</body></html>'
)

cdef LexborApi _api
cdef int _state = 0  # 0: not tried, 1: ready, -1: unavailable
_reason = None


cdef Py_ssize_t _node_header_size():
    """sizeof(lxb_dom_node_t): an event-target pointer, three uintptr_t names, six node pointers and a user
    pointer, then the type enum, padded to pointer alignment (Lexbor 1.x to 3.x)."""
    cdef Py_ssize_t size = 11 * sizeof(void*) + sizeof(int)
    return (size + sizeof(void*) - 1) // sizeof(void*) * sizeof(void*)


cdef str _decode(const uchar* data, size_t length):
    if data == NULL:
        return None
    return (<const char*> data)[:length].decode("utf-8", "replace")


cdef str _element_name(void* node):
    cdef size_t length = 0
    cdef const uchar* name = _api.element_name(node, &length)
    return _decode(name, length)


cdef dict _attributes(void* node):
    cdef dict out = {}
    cdef size_t length = 0, value_length = 0
    cdef const uchar* name
    cdef const uchar* value
    cdef void* attr = _api.first_attr(node)
    while attr != NULL:
        name = _api.attr_name(attr, &length)
        key = _decode(name, length)
        value = _api.attr_value(attr, &value_length)
        out[key] = _decode(value, value_length) if value != NULL else None
        attr = _api.next_attr(attr)
    return out


cdef int _compare(object py_node, void* node, int depth) except -1:
    """Read ``node`` through the pointers and through selectolax's API; raise ValueError where they differ."""
    cdef size_t length = 0
    cdef const uchar* data
    cdef void* child
    if depth > 64:
        raise ValueError("probe page nests too deep")
    if <uintptr_t> py_node.mem_id != <uintptr_t> node:
        raise ValueError("node addresses differ")
    tag = py_node.tag
    kind = _api.node_type(node)
    if tag == "-text":
        if kind != NODE_TEXT:
            raise ValueError("a text node has another type")
        expected = py_node.text_content.encode("utf-8")
        data = text_data(&_api, node, &length)
        if length != <size_t> len(expected) or data == NULL or memcmp(data, <const char*> expected, length) != 0:
            raise ValueError("text node data is not where expected")
        return 0
    if kind == NODE_ELEMENT:
        if _element_name(node) != tag:
            raise ValueError(f"tag name {tag!r} reads differently")
        if _attributes(node) != py_node.attributes:
            raise ValueError(f"attributes of <{tag}> read differently")
        # A custom element's id is per document (the walks must not cache it across pages); the HTML tags of
        # the probe have Lexbor's fixed ids. (SVG's own tags may have either: the walks never look inside <svg>.)
        if "-" in tag and _api.tag_id(node) < STATIC_TAG_IDS or (
                tag in ("html", "body", "div", "p", "b", "table", "td", "ul", "li") and _api.tag_id(node) >= STATIC_TAG_IDS):
            raise ValueError(f"the tag id of <{tag}> is not in the expected range")
    child = _api.first_child(node)
    for py_child in py_node.iter(include_text=True):
        if child == NULL:
            raise ValueError("fewer children than selectolax reports")
        if _api.parent(child) != node:
            raise ValueError("parent pointer differs")
        _compare(py_child, child, depth + 1)
        child = _api.next(child)
    if child != NULL:
        raise ValueError("more children than selectolax reports")
    return 0


cdef int _load() except -1:
    global _state, _reason
    from selectolax import lexbor as selectolax_lexbor
    from selectolax.lexbor import LexborHTMLParser

    library = ctypes.CDLL(selectolax_lexbor.__file__)
    addresses = {}
    for field, symbol in _SYMBOLS:
        try:
            addresses[field] = ctypes.cast(getattr(library, symbol), ctypes.c_void_p).value
        except AttributeError:
            raise ValueError(f"selectolax's library does not export {symbol}") from None
    _api.first_child = <void* (*)(void*) noexcept nogil> <uintptr_t> addresses["first_child"]
    _api.next = <void* (*)(void*) noexcept nogil> <uintptr_t> addresses["next"]
    _api.parent = <void* (*)(void*) noexcept nogil> <uintptr_t> addresses["parent"]
    _api.tag_id = <uintptr_t (*)(void*) noexcept nogil> <uintptr_t> addresses["tag_id"]
    _api.node_type = <int (*)(void*) noexcept nogil> <uintptr_t> addresses["node_type"]
    _api.element_name = <const uchar* (*)(void*, size_t*) noexcept nogil> <uintptr_t> addresses["element_name"]
    _api.first_attr = <void* (*)(void*) noexcept nogil> <uintptr_t> addresses["first_attr"]
    _api.next_attr = <void* (*)(void*) noexcept nogil> <uintptr_t> addresses["next_attr"]
    _api.attr_name = <const uchar* (*)(void*, size_t*) noexcept nogil> <uintptr_t> addresses["attr_name"]
    _api.attr_value = <const uchar* (*)(void*, size_t*) noexcept nogil> <uintptr_t> addresses["attr_value"]
    _api.str_data = <const uchar* (*)(void*) noexcept nogil> <uintptr_t> addresses["str_data"]
    _api.str_length = <size_t (*)(void*) noexcept nogil> <uintptr_t> addresses["str_length"]
    _api.text_offset = _node_header_size()
    tree = LexborHTMLParser(_PROBE)
    root = tree.root
    _compare(root, <void*> <uintptr_t> root.mem_id, 0)
    _find_offsets(<void*> <uintptr_t> root.mem_id)
    return 0


cdef list _probe_nodes(void* root):
    """Every node of the probe document (the document node and its doctype included), by the exported calls."""
    cdef list out = []
    cdef void* node = _api.parent(root)  # the document
    cdef void* up
    while node != NULL:
        out.append(<uintptr_t> node)
        up = _api.first_child(node)
        if up == NULL:
            while node != NULL:
                up = _api.next(node)
                if up != NULL:
                    break
                node = _api.parent(node)
        node = up
    return out


cdef int _find_offsets(void* root) except -1:
    """Where the node header keeps first child, next sibling, parent, type and tag id: the one offset (inside the
    header, so readable on every node) whose value equals the exported function's answer on every probe node.
    Several offsets, or none, leave ``direct`` off: the walks then call the functions (slower, same answers)."""
    cdef list nodes = _probe_nodes(root)
    cdef Py_ssize_t header = _api.text_offset
    cdef Py_ssize_t off
    cdef char* p
    cdef list found
    _api.direct = False
    if not _direct_allowed():
        return 0
    fields = []
    for name, step in (("first_child", sizeof(void*)), ("next", sizeof(void*)), ("parent", sizeof(void*)),
                       ("type", sizeof(int)), ("tag", sizeof(uintptr_t))):
        found = []
        for off in range(0, header - step + 1, step):
            for address in nodes:
                p = <char*> <uintptr_t> address
                if name == "first_child":
                    same = (<void**> (p + off))[0] == _api.first_child(<void*> p)
                elif name == "next":
                    same = (<void**> (p + off))[0] == _api.next(<void*> p)
                elif name == "parent":
                    same = (<void**> (p + off))[0] == _api.parent(<void*> p)
                elif name == "type":
                    same = (<int*> (p + off))[0] == _api.node_type(<void*> p)
                else:
                    same = (<uintptr_t*> (p + off))[0] == _api.tag_id(<void*> p)
                if not same:
                    break
            else:
                found.append(off)
        if len(found) != 1:
            return 0
        fields.append(found[0])
    _api.off_first_child, _api.off_next, _api.off_parent, _api.off_type, _api.off_tag = fields
    # The namespace: no function tells it, so it is the one field on which every HTML element of the probe
    # agrees, every SVG element agrees on another value, and which is not the tag.
    html = [a for a in nodes if _api.node_type(<void*> <uintptr_t> a) == NODE_ELEMENT and not _in_svg(a)]
    svg = [a for a in nodes if _api.node_type(<void*> <uintptr_t> a) == NODE_ELEMENT and _in_svg(a)]
    found = []
    for off in range(0, header - sizeof(uintptr_t) + 1, sizeof(uintptr_t)):
        if off == _api.off_tag:
            continue
        values_html = {_word_at(a, off) for a in html}
        values_svg = {_word_at(a, off) for a in svg}
        if len(values_html) == 1 and len(values_svg) == 1 and values_html != values_svg:
            found.append(off)
    if len(found) != 1 or not svg or not html:
        return 0
    _api.off_ns = found[0]
    _api.html_ns = _word_at(html[0], found[0])
    _api.direct = True
    return 0


def _direct_allowed() -> bool:
    """``QATBE_LEXBOR_DIRECT=0`` makes the offset probe fail, as on a Lexbor whose layout it does not recognise
    (the walks then call the exported functions: tests check that path gives the same segments). Parsed strictly:
    anything but unset, "0" or "1" is refused (and the Python walk used, with ``reason()`` saying why)."""
    value = os.environ.get("QATBE_LEXBOR_DIRECT", "").strip()
    if value not in ("", "0", "1"):
        raise ValueError(f"QATBE_LEXBOR_DIRECT must be 0 or 1, not {value!r}")
    return value != "0"


cdef uintptr_t _word_at(uintptr_t address, Py_ssize_t offset):
    return (<uintptr_t*> (<char*> address + offset))[0]


cdef bint _in_svg(uintptr_t address):
    """``address`` is an <svg> element or lies inside one (by tag names, through the exported calls)."""
    cdef void* node = <void*> address
    while node != NULL:
        if _api.node_type(node) == NODE_ELEMENT and _element_name(node) == "svg":
            return True
        node = _api.parent(node)
    return False


def reads_directly() -> bool:
    """Whether the walks read the node header's fields in place (else through the exported calls)."""
    return available() and _api.direct


cdef const LexborApi* lexbor_api() except NULL:
    """The checked accessors; raises RuntimeError (with ``reason()``) when they cannot be used."""
    global _state, _reason
    if _state == 1:
        return &_api
    if _state == 0:
        if os.environ.get("QATBE_HTML_WALK", "").strip().lower() == "python":
            _reason = "QATBE_HTML_WALK=python"
            _state = -1
        else:
            try:
                _load()
                _state = 1
                return &_api
            except (OSError, ValueError, AttributeError, TypeError) as exc:
                _reason = f"Lexbor's tree cannot be read directly ({exc})"
                _state = -1
    raise RuntimeError(_reason)


def available() -> bool:
    """True when the compiled walk can read Lexbor's tree (checked once, on first call)."""
    try:
        lexbor_api()
    except RuntimeError:
        return False
    return True


def reason():
    """Why the compiled walk is not used (None when it is, or before ``available()`` was asked)."""
    return _reason
