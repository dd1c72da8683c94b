# Augmenting declarations: when setup.py compiles html_emit.py, Cython gives the locator and the emit loop these C
# types; the .py stays the pure-Python fallback, and tests/test_segment_speedpath.py checks that the two agree.
cimport cython

from qatbe.segmentation.builder cimport SegmentBuilder
from qatbe.segmentation.html_walk cimport Block


cdef class _Locator:
    cdef public str html
    cdef public Py_ssize_t cursor
    cdef public Py_ssize_t budget
    cdef public Py_ssize_t window

    @cython.locals(cursor=Py_ssize_t, budget=Py_ssize_t, end=Py_ssize_t, at=Py_ssize_t, needle=str)
    cpdef Py_ssize_t find(self, str text) except? -2


@cython.locals(n=Py_ssize_t, run=Py_ssize_t, i=Py_ssize_t, c=Py_UCS4)
cpdef str _needle(str text)


@cython.locals(kind=str, position=Py_ssize_t, base=Py_ssize_t, text=str, block=Block, boiler=bint)
cpdef _emit(SegmentBuilder builder, list blocks, str html, locate=*)
