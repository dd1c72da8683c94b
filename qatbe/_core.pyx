# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled scoring kernels over flat arrays (CSR layout). The pure-Python twin is ``qatbe._core_py``.

``doc_terms[doc_offsets[d]:doc_offsets[d + 1]]`` are the term ids of segment ``d``. Only query terms are
counted, through a dense term-id -> query-slot map, so the cost is one pass over the tokens plus
O(segments x query terms). Inputs are checked once at the boundary (ValueError, never a crash); the loops then
run without the GIL.

BM25 variants (``variant``), N segments, df = segments containing the term, dl / avgdl = segment length / mean:
  0 lucene: idf = ln(1 + (N - df + 0.5) / (df + 0.5)), tf part = tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)).
            Never negative, which matters on a page of 20-500 segments where a term can be in most of them.
  1 okapi:  idf = ln((N - df + 0.5) / (df + 0.5)); values <= 0 replaced by eps * mean idf of the query terms
            (eps = ``delta``; the mean floored at 0.01 so a match never scores <= 0). rank-bm25's BM25Okapi
            takes the mean over its whole vocabulary and can return negative scores.
  2 plus:   BM25+ (Lv & Zhai 2011): idf = ln((N + 1) / df), tf part + delta, for terms present in the segment.
  3 l:      BM25L (Lv & Zhai 2011): c = tf / (1 - b + b dl / avgdl), idf = ln((N + 1) / (df + 0.5)),
            tf part = (k1 + 1)(c + delta) / (k1 + c + delta), for terms present in the segment.

Segment length dl is the number of its term ids, unless ``doc_lengths`` gives it (the scorer passes the number of
raw tokens, so that a token that yields several terms -- "e-mail" -> e, mail, email -- counts once).

Background prior: a page is a tiny collection, so its document frequencies are noisy. ``prior_n`` pseudo-segments
are added to the collection in which query term ``q`` occurs ``prior_df[q]`` times (0 <= prior_df[q] <= prior_n):
every formula above then uses N' = N + prior_n and df' = df + prior_df[q]. With prior_n = 0 it is textbook BM25.
"""

import numpy as np
from libc.math cimport log, isfinite, pow
from libc.string cimport memchr, memcmp, memcpy, memset
from libc.stdlib cimport qsort
# The core's scratch buffers come from a per-thread cache of freed blocks (_alloc.h says why): these names are
# its functions, so that every malloc below is one.
cdef extern from "_alloc.h" nogil:
    void* malloc "qatbe_malloc"(size_t n)
    void* calloc "qatbe_calloc"(size_t count, size_t item)
    void* realloc "qatbe_realloc"(void* p, size_t n)
    void free "qatbe_free"(void* p)
    size_t qatbe_kept_bytes(int all)
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int32_t, int64_t
from cpython.object cimport PyObject
from cpython.bytes cimport PyBytes_FromStringAndSize, PyBytes_AS_STRING
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_SIMPLE, PyBUF_WRITABLE


cdef extern from "Python.h":
    int PyUnicode_KIND(object o)
    bint PyUnicode_IS_ASCII(object o)
    void* PyUnicode_DATA(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    Py_UCS4 PyUnicode_READ_CHAR(object o, Py_ssize_t index)
    uint32_t PyUnicode_READ(int kind, void* data, Py_ssize_t index) nogil
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    bint Py_UNICODE_ISALNUM(uint32_t ch) nogil
    bint Py_UNICODE_ISDECIMAL(uint32_t ch) nogil
    bint Py_UNICODE_ISSPACE(uint32_t ch) nogil
    bint Py_UNICODE_ISUPPER(uint32_t ch) nogil
    int PyUnicode_4BYTE_KIND

LUCENE = 0
OKAPI = 1
# okapi: floor of the mean IDF used for the negative-IDF replacement, so that a matched term never scores <= 0
# even when every query term is in most segments (rank-bm25 then returns negative scores).
cdef double OKAPI_MIN_MEAN = 0.01
PLUS = 2
BM25L = 3


# numpy's constructors and the dtypes the kernel makes arrays of, looked up once. Why: ``np.empty(n,
# dtype=np.int64)`` in compiled code looks up two module attributes and parses a keyword on every call, and
# scoring a page makes a few dozen arrays; ``_EMPTY(n, _I64)`` is one call with positional arguments.
cdef object _EMPTY = np.empty
cdef object _ZEROS = np.zeros
cdef object _ARRAY = np.array
cdef object _I32 = np.dtype(np.int32)
cdef object _I64 = np.dtype(np.int64)
cdef object _F64 = np.dtype(np.float64)
cdef object _U8 = np.dtype(np.uint8)
cdef object _U32 = np.dtype(np.uint32)
cdef object _BOOL = np.dtype(np.bool_)


cdef object _zeros(Py_ssize_t n):
    """A zeroed float64 array, written through a typed memoryview (no numpy cimport: no numpy headers needed)."""
    return _ZEROS(n, _F64)


cdef int _check_offsets(const long long[::1] offsets, Py_ssize_t end, str name, str end_name) except -1:
    """CSR offsets (every array of "where item i starts"): at least one, from 0 to ``end``, never decreasing."""
    cdef Py_ssize_t n = offsets.shape[0] - 1, i
    if n < 0:
        raise ValueError(f"{name} must hold at least one offset")
    if offsets[0] != 0 or offsets[n] != end:
        raise ValueError(f"{name} must start at 0 and end at {end_name}")
    for i in range(n):
        if offsets[i + 1] < offsets[i]:
            raise ValueError(f"{name} must be non-decreasing")
    return 0


cdef int _check_up(const long long[::1] up) except -1:
    """Heading chains (``up``: per segment the heading above it, an earlier segment, or -1): a walk up them ends."""
    cdef Py_ssize_t i
    for i in range(up.shape[0]):
        if not -1 <= up[i] < i:
            raise ValueError(f"up[{i}] = {up[i]} is no segment before {i}")
    return 0


cdef int _check_csr(const int[::1] doc_terms, const long long[::1] doc_offsets, Py_ssize_t n_terms) except -1:
    cdef Py_ssize_t i
    cdef int t
    if n_terms < 0:
        raise ValueError("n_terms must be >= 0")
    _check_offsets(doc_offsets, doc_terms.shape[0], "doc_offsets", "len(doc_terms)")
    with nogil:
        for i in range(doc_terms.shape[0]):
            t = doc_terms[i]
            if t < 0 or t >= n_terms:
                with gil:
                    raise ValueError(f"document term id {t} out of range [0, {n_terms})")
    return 0


cdef int _check_query(const int[::1] query_terms, Py_ssize_t n_terms) except -1:
    cdef Py_ssize_t i
    for i in range(query_terms.shape[0]):
        if query_terms[i] < 0 or query_terms[i] >= n_terms:
            raise ValueError(f"query term id {query_terms[i]} out of range [0, {n_terms})")
    return 0


cdef inline void _fill_qmap(int* qmap, Py_ssize_t n_terms, const int* query_terms, Py_ssize_t n_q) noexcept nogil:
    """Dense term id -> first query slot map (-1: not a query term); both kernels count only query terms."""
    cdef Py_ssize_t i
    for i in range(n_terms):
        qmap[i] = -1
    for i in range(n_q):
        if qmap[query_terms[i]] < 0:
            qmap[query_terms[i]] = <int> i


cdef int _check_bm25(const int[::1] doc_terms, const long long[::1] doc_offsets, Py_ssize_t n_terms,
                     const int[::1] query_terms, const double[::1] query_weights, double k1, double b, int variant,
                     double delta, double prior_n, const double[::1] prior_df, const double[::1] doc_lengths
                     ) except -1:
    """The checks ``bm25_scores`` and ``page_scores`` share (ValueError on anything the loops cannot take)."""
    cdef Py_ssize_t n_docs = doc_offsets.shape[0] - 1, n_q = query_terms.shape[0], d, q
    _check_csr(doc_terms, doc_offsets, n_terms)
    if query_weights.shape[0] != n_q:
        raise ValueError("query_terms and query_weights must have the same length")
    if variant < 0 or variant > 3:
        raise ValueError(f"unknown BM25 variant {variant}")
    if not (isfinite(k1) and k1 >= 0.0 and isfinite(b) and 0.0 <= b <= 1.0 and isfinite(delta) and delta >= 0.0):
        raise ValueError("k1 and delta must be finite and >= 0, b in [0, 1]")
    if not (isfinite(prior_n) and prior_n >= 0.0):
        raise ValueError("prior_n must be finite and >= 0")
    if doc_lengths is not None:
        if doc_lengths.shape[0] != n_docs:
            raise ValueError("doc_lengths must have one entry per document")
        for d in range(n_docs):
            if not (isfinite(doc_lengths[d]) and doc_lengths[d] >= 0.0):
                raise ValueError("doc_lengths must be finite and >= 0")
    if prior_df is not None and prior_df.shape[0] != n_q:
        raise ValueError("prior_df must have one entry per query term")
    for q in range(n_q):
        if not (isfinite(query_weights[q]) and query_weights[q] >= 0.0):
            raise ValueError("query weights must be finite and >= 0")
        if prior_df is not None and not (isfinite(prior_df[q]) and 0.0 <= prior_df[q] <= prior_n):
            raise ValueError("prior_df values must lie in [0, prior_n]")
    _check_query(query_terms, n_terms)
    return 0


# Allocator and SIMD glue (_alloc.h, _simd.h).
cdef extern from "_simd.h":
    void qatbe_simd_init() nogil
    int qatbe_simd_use_avx2(int on) nogil


qatbe_simd_init()


def kept_bytes(bint all_threads=False):
    """For tests and diagnostics: how many bytes of freed scratch blocks the core keeps for reuse (``_alloc.h``),
    in this thread's cache or in every live thread's."""
    return qatbe_kept_bytes(all_threads)


def use_avx2(bint on):
    """For tests: the page-wide scans (``utf8_encode``, ``control_count``, ``any_control``, ``find_pair``,
    ``byte_count``, ``contains_ci``) with AVX2 (where the processor has it: the default) or without; returns
    whether AVX2 is now in use. Not thread-safe: only tests call it."""
    return bool(qatbe_simd_use_avx2(on))


# The kernels, by topic (each file's first lines say what it holds).
include "_core_bm25.pxi"
include "_core_page.pxi"
include "_core_vocab.pxi"
include "_core_scan.pxi"
include "_core_tokenize.pxi"
include "_core_bridges.pxi"
include "_core_text.pxi"
include "_core_pairs.pxi"
include "_core_memo.pxi"
include "_core_langid.pxi"
