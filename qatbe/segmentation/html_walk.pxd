# Augmenting declarations: Cython compiles html_walk.py with these types; the .py stays the pure-Python fallback.
# Ctx, Box and Block stay plain classes with __slots__: html_decide (pure Python) reads their fields many times, and
# slot access is faster from Python than the properties of a compiled class (measured: decide 40% slower).
cimport cython


cdef class Walker:
    cdef public object root
    cdef public list ctxs
    cdef public object ctx
    cdef public list blocks
    cdef public list buf
    cdef public Py_ssize_t link
    cdef public Py_ssize_t in_link
    cdef public list modes
    cdef public list lists
    cdef public object list_block
    cdef public Py_ssize_t in_article
    cdef public object box
    cdef public list boxes
    cdef public Py_ssize_t page_chars
    cdef public object body
    cdef public set main_holders
    cdef public dict evidence_memo

    cpdef flush(self)
    cdef _open_list_block(self)
    cdef _break_list(self)

    @cython.locals(stack=list, buf=list, memo=dict, found=tuple, tag=str, s=str, kind=int,  attrs=dict)
    cpdef walk(self, body)

    @cython.locals(text=str)
    cdef bint _furniture(self, node, object outer) except -1

    @cython.locals(mode=int, level=object)
    cdef int _enter(self, node, str tag, dict attrs) except -9

    cdef _leave(self, int kind)

    @cython.locals(holders=set)
    cdef bint _holds_main(self, node) except -1
