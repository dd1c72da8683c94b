# Augmenting declarations: when setup.py compiles html_decide.py, Cython gives the decision step these C types, so
# the walk's records (html_walk.pxd) are read and written as C members; the .py stays the pure-Python fallback,
# and tests/test_segment_speedpath.py checks that the two agree.
cimport cython

from qatbe.segmentation.html_walk cimport Block, Box, Ctx


cdef Py_ssize_t _good(Block block)

cdef Py_ssize_t _prose(Block block)

# The regex prefilters: cpdef so that tests/test_html_decide_prefilters.py compares the compiled ones with the regexes.
@cython.locals(n=Py_ssize_t, start=Py_ssize_t, end=Py_ssize_t, ch=Py_UCS4)
cpdef str _head(str text)

@cython.locals(ch=Py_UCS4)
cpdef bint _plain_case(str text) except -1

cpdef bint _furniture_words(str text, str head) except -1

cpdef bint _post_meta(str text, str head) except -1

cpdef bint _page_notice(str text, str head) except -1

@cython.locals(n=Py_ssize_t, k=Py_ssize_t)
cpdef bint _copyright(str text, str head) except -1

cpdef bint _credit_label(str text, str head) except -1

@cython.locals(low=str, word=str)
cpdef bint _credit(str text) except -1


@cython.locals(blocks=list, ctxs=list, block=Block, ctx=Ctx, parent=Ctx, root=Ctx, main=Ctx, node=Ctx,
               page_prose=Py_ssize_t, page_chars=Py_ssize_t, reference=Py_ssize_t, share=double, held=Py_ssize_t,
               wrapper=bint, group=Py_ssize_t, boxes=list, box=Box, main_box=Box, need=double, pruning_box=bint,
               title_seen=bint, label_before=bint, boiler=bint, density=double, inside=bint, i=Py_ssize_t,
               article_prose=list, head=str, visible=Py_ssize_t)
cpdef decide(walker, bint discussion=*)

cdef tuple _sibling_key(Ctx ctx)

cdef bint _sentence_items(Block block) except -1

@cython.locals(block=Block)
cdef _teasers(list blocks)

cdef tuple _shape(list section)

@cython.locals(block=Block, text=str, core=str)
cdef _repeats(list blocks)

cdef str _block_text(Block block)

cdef bint _is_label(Block block) except -1

@cython.locals(block=Block)
cdef _trailing_labels(list blocks)

cdef bint _stands_alone(Block block, double density)

cdef bint _near_prose(Block block, double density)

cdef bint _menu_table(table, double density) except -1

@cython.locals(other=Block, j=Py_ssize_t)
cdef bint _linky_neighbour(list blocks, Py_ssize_t i) except -1

@cython.locals(block=Block, level=Py_ssize_t, lv=Py_ssize_t)
cdef _orphan_headings(list blocks)

@cython.locals(block=Block)
cpdef rescue(list blocks)
