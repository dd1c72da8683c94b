# Augmenting declarations: when setup.py compiles builder.py, Cython gives it these C types; the .py stays the
# pure-Python fallback, and tests/test_segment_speedpath.py checks that the two agree.
# The builder is called for every unit of every document (HTML, markdown, text): typing its own fields and its
# per-segment helpers is what pays; everything else keeps Python semantics.
cimport cython


cdef class ListItem:
    cdef readonly str text
    cdef readonly Py_ssize_t depth
    cdef readonly bint ordered
    cdef readonly object number
    cdef readonly Py_ssize_t position


cdef class SegmentBuilder:
    cdef object _estimate
    cdef Py_ssize_t _max
    cdef Py_ssize_t _sentence_max
    cdef list _segments
    cdef list _headings
    cdef tuple _path
    cdef Py_ssize_t _group
    cdef bint _navigation
    cdef bint _clean
    cdef object _spans
    cdef bint _anchored
    cdef Py_ssize_t _held_start
    cdef Py_ssize_t _held_end
    cdef Py_ssize_t _count

    cdef Py_ssize_t _next_group(self)

    cpdef add_heading(self, str text, Py_ssize_t level, Py_ssize_t position, bint boilerplate)
    cpdef add_paragraph(self, str text, Py_ssize_t position, kind, bint boilerplate)
    cpdef add_list(self, items, Py_ssize_t position, bint boilerplate)

    @cython.locals(path=tuple, index=Py_ssize_t, start=Py_ssize_t, end=Py_ssize_t)
    cpdef _add(self, kind, str text, str markdown, Py_ssize_t position, Py_ssize_t group, Py_ssize_t part=*,
               Py_ssize_t level=*, language=*, header=*, key=*, bint whole=*)


cpdef str clean_inline(str text)

cpdef str _tidy(str text)

cpdef bint _shows_nothing(str text) except -1


@cython.locals(n=Py_ssize_t, i=Py_ssize_t, j=Py_ssize_t, c=Py_UCS4)
cpdef list sentence_ends(str text)
