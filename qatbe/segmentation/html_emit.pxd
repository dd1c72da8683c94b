# Augmenting declarations: when setup.py compiles html_emit.py, Cython gives the locator and the emit loop these C
# types; the .py stays the pure-Python fallback, and tests/test_segment_speedpath.py checks that the two agree.
cimport cython

from qatbe.segmentation.builder cimport SegmentBuilder


cdef class _Locator:
    cdef public str html
    cdef public Py_ssize_t cursor
    cdef public Py_ssize_t budget

    @cython.locals(cursor=Py_ssize_t, budget=Py_ssize_t, end=Py_ssize_t, at=Py_ssize_t, needle=str)
    cpdef Py_ssize_t find(self, str text) except? -2


@cython.locals(locate=_Locator, kind=str, position=Py_ssize_t, base=Py_ssize_t, text=str)
cpdef _emit(SegmentBuilder builder, list blocks, str html)
