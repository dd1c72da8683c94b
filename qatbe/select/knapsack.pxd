# Augmenting declarations: Cython compiles knapsack.py with these C types for the loop indices and token sums; the
# .py stays the pure-Python fallback (tests/test_select.py runs the selector's properties on whichever is built).
# Why: the greedy, the neighbour order and the fill walk every candidate of a page once or twice per plan, and an
# extraction plans twice (pipeline.spend_savings); untyped, each step was a few boxed-int operations.
cimport cython


@cython.locals(i=Py_ssize_t, cost=Py_ssize_t, parent=Py_ssize_t, spent=Py_ssize_t, cap=Py_ssize_t,
               taken=list, heads=set, in_set=set)
cpdef tuple _greedy(order, costs, parents, budget, bint include_headings, seed=*)


@cython.locals(i=Py_ssize_t, best=Py_ssize_t, cap=Py_ssize_t, cost=Py_ssize_t)
cpdef tuple pack(scores, costs, parents, order, budget, bint include_headings)


@cython.locals(i=Py_ssize_t, n=Py_ssize_t, far=Py_ssize_t, last=Py_ssize_t, nxt=Py_ssize_t, distance=list,
               rest=list)
cpdef list neighbor_order(Py_ssize_t n, anchors, exclude)
