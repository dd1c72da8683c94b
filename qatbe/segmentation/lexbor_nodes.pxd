# Lexbor's tree, read in C through the functions selectolax's extension exports (see lexbor_nodes.pyx for why
# and how the access is checked before it is used).
from libc.stdint cimport uintptr_t

ctypedef unsigned char uchar

ctypedef struct LexborApi:
    void* (*first_child)(void* node) noexcept nogil
    void* (*next)(void* node) noexcept nogil
    void* (*parent)(void* node) noexcept nogil
    uintptr_t (*tag_id)(void* node) noexcept nogil
    int (*node_type)(void* node) noexcept nogil
    const uchar* (*element_name)(void* element, size_t* length) noexcept nogil
    void* (*first_attr)(void* element) noexcept nogil
    void* (*next_attr)(void* attr) noexcept nogil
    const uchar* (*attr_name)(void* attr, size_t* length) noexcept nogil
    const uchar* (*attr_value)(void* attr, size_t* length) noexcept nogil
    const uchar* (*str_data)(void* string) noexcept nogil
    size_t (*str_length)(void* string) noexcept nogil
    Py_ssize_t text_offset
    # Where the node header keeps the fields read on every step of a walk, found on the probe page (see
    # lexbor_nodes.pyx); with ``direct`` false the accessors below call the exported functions instead.
    bint direct
    Py_ssize_t off_first_child
    Py_ssize_t off_next
    Py_ssize_t off_parent
    Py_ssize_t off_type
    Py_ssize_t off_tag
    Py_ssize_t off_ns      # the namespace id: HTML elements hold html_ns there
    uintptr_t html_ns

cdef enum:
    NODE_ELEMENT = 1
    NODE_TEXT = 3
    # Lexbor's own tags have small fixed ids (below 0x100 in Lexbor 3); a tag it does not know (a custom element)
    # gets the address of a per-document entry, far above this. Checked by the probe.
    STATIC_TAG_IDS = 4096

cdef const LexborApi* lexbor_api() except NULL


cdef inline const uchar* text_data(const LexborApi* api, void* node, size_t* length) noexcept nogil:
    """The UTF-8 bytes of a text node (not a copy: valid while the tree lives)."""
    cdef void* string = <char*> node + api.text_offset
    length[0] = api.str_length(string)
    return api.str_data(string)


cdef inline void* first_child(const LexborApi* api, void* node) noexcept nogil:
    if api.direct:
        return (<void**> (<char*> node + api.off_first_child))[0]
    return api.first_child(node)


cdef inline void* next_sibling(const LexborApi* api, void* node) noexcept nogil:
    if api.direct:
        return (<void**> (<char*> node + api.off_next))[0]
    return api.next(node)


cdef inline void* parent_of(const LexborApi* api, void* node) noexcept nogil:
    if api.direct:
        return (<void**> (<char*> node + api.off_parent))[0]
    return api.parent(node)


cdef inline int node_type(const LexborApi* api, void* node) noexcept nogil:
    if api.direct:
        return (<int*> (<char*> node + api.off_type))[0]
    return api.node_type(node)


cdef inline uintptr_t tag_id(const LexborApi* api, void* node) noexcept nogil:
    if api.direct:
        return (<uintptr_t*> (<char*> node + api.off_tag))[0]
    return api.tag_id(node)


cdef inline bint is_html(const LexborApi* api, void* node) noexcept nogil:
    """An element of the HTML namespace (not inside <svg> or <math>); only known with ``direct``."""
    return (<uintptr_t*> (<char*> node + api.off_ns))[0] == api.html_ns
