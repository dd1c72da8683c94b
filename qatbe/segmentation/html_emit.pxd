# Augmenting declarations: when setup.py compiles html_emit.py, Cython gives the emit loop these C types; the .py
# stays the pure-Python fallback, and tests/test_segment_speedpath.py checks that the two agree.
cimport cython

from qatbe.segmentation.builder cimport SegmentBuilder
from qatbe.segmentation.html_walk cimport Block


@cython.locals(kind=str, position=Py_ssize_t, at=Py_ssize_t, base=Py_ssize_t, text=str, block=Block, boiler=bint)
cpdef _emit(SegmentBuilder builder, list blocks, list anchors=*)
