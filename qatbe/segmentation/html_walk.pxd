# Augmenting declarations: Cython compiles html_walk.py with these types; the .py stays the pure-Python fallback.
cimport cython


# The walk's records are extension types when compiled: the compiled walks create them and the compiled decision
# step (html_decide.pxd) reads and writes their fields as C members; the .py classes (with __slots__) are the
# pure-Python fallback.
cdef class Ctx:
    cdef public Ctx parent
    cdef public str tag
    cdef public int neg
    cdef public bint pos
    cdef public bint hidden
    cdef public bint byline
    cdef public Py_ssize_t chars
    cdef public Py_ssize_t good
    cdef public Py_ssize_t total
    cdef public Py_ssize_t total_good
    cdef public bint boiler
    cdef public bint main
    cdef public Py_ssize_t order
    cdef public str name
    cdef public Py_ssize_t prose
    cdef public Py_ssize_t pos_prose
    cdef public bint flagged
    cdef public bint cleared


cdef class Box:
    cdef public Box parent
    cdef public Py_ssize_t prose
    cdef public bint inside


cdef class Block:
    cdef public str kind
    cdef public str text
    cdef public Ctx ctx
    cdef public Py_ssize_t chars
    cdef public Py_ssize_t link
    cdef public Py_ssize_t level
    cdef public list items
    cdef public object table
    cdef public object lang
    cdef public bint boiler
    cdef public bint meta
    cdef public Box box
    cdef public bint furniture
    cdef public bint button
    cdef public size_t node


cdef class Walker:
    cdef public object root
    cdef public list ctxs
    cdef public object ctx
    cdef public list blocks
    cdef public list buf
    cdef public Py_ssize_t link
    cdef public Py_ssize_t in_link
    cdef public Py_ssize_t br_mark
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
