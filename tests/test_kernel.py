"""The BM25 kernels: compiled and Python twins agree, and both match textbook formulas and peer libraries."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from qatbe import _core_py

try:
    from qatbe import _core as _compiled
except ImportError:  # the twin alone is still tested; test_backend.py makes CI fail when this is missing
    _compiled = None

KERNELS: list[ModuleType] = [_core_py] + ([_compiled] if _compiled is not None else [])
VARIANTS = {"lucene": 0, "okapi": 1, "plus": 2, "l": 3}


def _csr(docs: list[list[int]]) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    flat = np.asarray([t for d in docs for t in d], dtype=np.int32)
    offsets = np.zeros(len(docs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(d) for d in docs])
    return flat, offsets


@st.composite
def collections(draw: st.DrawFn, min_docs: int = 0) -> tuple[list[list[int]], int, list[int]]:
    n_terms = draw(st.integers(1, 12))
    docs = draw(st.lists(st.lists(st.integers(0, n_terms - 1), max_size=20), min_size=min_docs, max_size=15))
    query = draw(st.lists(st.integers(0, n_terms - 1), unique=True, max_size=6))
    return docs, n_terms, query


def textbook(
    docs: list[list[int]], query: list[int], weights: list[float], variant: str, k1: float, b: float,
    delta: float, prior_n: float = 0.0, prior_df: list[float] | None = None, lengths: list[float] | None = None,
) -> list[float]:
    """BM25 as the papers write it, one term at a time, with the named IDF of each variant.

    lucene: Lucene's IDF ln(1 + (N - df + .5)/(df + .5)) (Robertson-Sparck Jones, shifted so it stays positive);
    okapi: the classic RSJ IDF ln((N - df + .5)/(df + .5)), values <= 0 floored at delta * mean query IDF (that
    mean itself floored at 0.01);
    plus (BM25+): ln((N + 1)/df) and a +delta lower bound on the tf part of present terms;
    l (BM25L): ln((N + 1)/(df + .5)) and the length-normalised tf c shifted by delta.
    """
    n = len(docs) + prior_n
    dls = lengths if lengths is not None else [float(len(d)) for d in docs]
    avgdl = sum(dls) / len(docs) or 1.0
    counts = [Counter(d) for d in docs]
    idf = {}
    for i, q in enumerate(query):
        df = sum(1 for c in counts if c[q]) + (prior_df[i] if prior_df else 0.0)
        idf[q] = {
            "lucene": math.log(1 + (n - df + 0.5) / (df + 0.5)),
            "okapi": math.log((n - df + 0.5) / (df + 0.5)),
            "plus": math.log((n + 1) / df) if df else 0.0,
            "l": math.log((n + 1) / (df + 0.5)),
        }[variant]
    if variant == "okapi":
        mean = sum(idf.values()) / len(query)
        mean = mean if mean > 0 else 0.01
        idf = {q: (delta * mean if v <= 0 else v) for q, v in idf.items()}
    out = []
    for dl, c in zip(dls, counts):
        k = k1 * (1 - b + b * dl / avgdl)
        s = 0.0
        for q, w in zip(query, weights):
            tf = c[q]
            if not tf:
                continue
            if variant in ("lucene", "okapi"):
                s += w * idf[q] * tf * (k1 + 1) / (tf + k)
            elif variant == "plus":
                s += w * idf[q] * (tf * (k1 + 1) / (tf + k) + delta)
            else:
                norm = 1 - b + b * dl / avgdl
                if norm > 0:
                    ctd = tf / norm
                    s += w * idf[q] * (k1 + 1) * (ctd + delta) / (k1 + ctd + delta)
                else:  # the limit as the normalised length goes to 0 (c -> infinity)
                    s += w * idf[q] * (k1 + 1)
        out.append(s)
    return out


params = st.tuples(
    st.sampled_from(sorted(VARIANTS)),
    st.floats(0.0, 3.0),
    st.floats(0.0, 1.0),
    st.floats(0.0, 2.0),
)


@settings(max_examples=400, deadline=None)
@given(collections(), params, st.data())
def test_kernels_agree_with_each_other_and_the_textbook(
    coll: tuple[list[list[int]], int, list[int]], p: tuple[str, float, float, float], data: st.DataObject
) -> None:
    docs, n_terms, query = coll
    variant, k1, b, delta = p
    weights = data.draw(st.lists(st.floats(0.0, 3.0), min_size=len(query), max_size=len(query)))
    prior_n = data.draw(st.sampled_from([0.0, 0.0, 5.0, 40.0]))
    prior_df = data.draw(st.lists(st.floats(0.0, prior_n), min_size=len(query), max_size=len(query)))
    lengths = data.draw(st.one_of(st.none(), st.lists(st.floats(0.0, 50.0), min_size=len(docs), max_size=len(docs))))
    flat, offsets = _csr(docs)
    args = (flat, offsets, n_terms, np.asarray(query, dtype=np.int32), np.asarray(weights, dtype=np.float64))
    results = [
        k.bm25_scores(*args, k1, b, VARIANTS[variant], delta, prior_n, np.asarray(prior_df, dtype=np.float64),
                      None if lengths is None else np.asarray(lengths, dtype=np.float64))
        for k in KERNELS
    ]
    for r in results:
        assert r.dtype == np.float64 and r.shape == (len(docs),)
        np.testing.assert_allclose(r, results[0], rtol=1e-12, atol=1e-12)
    if docs and query:
        expected = textbook(docs, query, weights, variant, k1, b, delta, prior_n, prior_df, lengths)
        np.testing.assert_allclose(results[0], expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=200, deadline=None)
@given(coll=collections(min_docs=1))
def test_lucene_idf_never_negative_on_small_collections(
    kernel: ModuleType, coll: tuple[list[list[int]], int, list[int]]
) -> None:
    """Every matching segment scores > 0 and nothing scores < 0, even for terms present in every segment."""
    docs, n_terms, query = coll
    flat, offsets = _csr(docs)
    scores = kernel.bm25_scores(flat, offsets, n_terms, np.asarray(query, dtype=np.int32), np.ones(len(query)))
    for d, s in zip(docs, scores):
        assert s >= 0.0
        assert (s > 0.0) == any(t in query for t in d)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_term_in_every_segment_still_counts_with_lucene(kernel: ModuleType) -> None:
    flat, offsets = _csr([[0, 1], [0, 2], [0]])
    scores = kernel.bm25_scores(flat, offsets, 3, np.asarray([0], dtype=np.int32), np.ones(1))
    assert (scores > 0).all()


@st.composite
def peer_collections(draw: st.DrawFn) -> tuple[list[list[int]], int, list[int]]:
    """Non-empty segments (rank-bm25 computes 0/0 for an empty one when b = 1) over a larger vocabulary."""
    n_terms = draw(st.integers(2, 30))
    docs = draw(st.lists(st.lists(st.integers(0, n_terms - 1), min_size=1, max_size=12), min_size=1, max_size=15))
    query = draw(st.lists(st.integers(0, n_terms - 1), unique=True, min_size=1, max_size=6))
    return docs, n_terms, query


def _as_strings(docs: list[list[int]], query: list[int]) -> tuple[list[list[str]], list[str]]:
    return [[str(t) for t in d] for d in docs], [str(q) for q in query]


def _one(kernel: ModuleType, docs: list[list[int]], n_terms: int, query: list[int], *args: float) -> Any:
    flat, offsets = _csr(docs)
    return kernel.bm25_scores(flat, offsets, n_terms, np.asarray(query, dtype=np.int32), np.ones(len(query)), *args)


@settings(max_examples=200, deadline=None)
@given(coll=peer_collections(), k1=st.floats(0.1, 3.0), b=st.floats(0.0, 1.0))
def test_okapi_matches_rank_bm25_where_no_idf_is_floored(
    coll: tuple[list[list[int]], int, list[int]], k1: float, b: float
) -> None:
    """rank-bm25's BM25Okapi floors negative IDFs at eps x the mean IDF of its whole vocabulary, ours at the mean
    of the query terms; the two agree exactly for query terms in at most (N - 1) / 2 segments (IDF > 0)."""
    from rank_bm25 import BM25Okapi

    docs, n_terms, query = coll
    query = [q for q in query if sum(1 for d in docs if q in d) <= (len(docs) - 1) / 2]
    assume(query)
    sdocs, squery = _as_strings(docs, query)
    expected = BM25Okapi(sdocs, k1=k1, b=b).get_scores(squery)
    for kernel in KERNELS:
        np.testing.assert_allclose(_one(kernel, docs, n_terms, query, k1, b, 1, 0.25), expected, rtol=1e-9, atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(coll=peer_collections(), k1=st.floats(0.1, 3.0), b=st.floats(0.0, 1.0), delta=st.floats(0.0, 2.0))
def test_plus_matches_rank_bm25_minus_its_absent_term_bonus(
    coll: tuple[list[list[int]], int, list[int]], k1: float, b: float, delta: float
) -> None:
    """rank-bm25's BM25Plus adds idf x delta for every query term, even in segments where tf = 0 (and for terms
    of its vocabulary only). Lv & Zhai sum over the terms present in the document, as we do; subtract it."""
    from rank_bm25 import BM25Plus

    docs, n_terms, query = coll
    sdocs, squery = _as_strings(docs, query)
    peer = BM25Plus(sdocs, k1=k1, b=b, delta=delta)
    theirs = peer.get_scores(squery)
    for i, d in enumerate(sdocs):
        theirs[i] -= sum((peer.idf.get(t) or 0.0) * delta for t in squery if t not in d)
    for kernel in KERNELS:
        np.testing.assert_allclose(_one(kernel, docs, n_terms, query, k1, b, 2, delta), theirs, rtol=1e-9, atol=1e-9)


@settings(max_examples=200, deadline=None)
@given(coll=peer_collections(), k1=st.floats(0.1, 3.0), b=st.floats(0.0, 1.0), delta=st.floats(0.0, 2.0))
def test_l_matches_rank_bm25_divided_by_its_extra_tf_factor(
    coll: tuple[list[list[int]], int, list[int]], k1: float, b: float, delta: float
) -> None:
    """rank-bm25's BM25L multiplies each term's BM25L weight by the raw tf once more (so tf = 0 scores 0, unlike
    Lv & Zhai's paper formula, which we implement). Compare one query term at a time, dividing that factor out."""
    from rank_bm25 import BM25L

    docs, n_terms, query = coll
    sdocs, squery = _as_strings(docs, query)
    peer = BM25L(sdocs, k1=k1, b=b, delta=delta)
    for q, sq in zip(query, squery):
        tf = np.asarray([d.count(q) for d in docs], dtype=np.float64)
        theirs = np.divide(peer.get_scores([sq]), tf, out=np.zeros(len(docs)), where=tf > 0)
        for kernel in KERNELS:
            np.testing.assert_allclose(_one(kernel, docs, n_terms, [q], k1, b, 3, delta), theirs, rtol=1e-9, atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(coll=peer_collections(), k1=st.floats(0.1, 3.0), b=st.floats(0.0, 1.0))
def test_lucene_matches_bm25s_up_to_its_dropped_k1_plus_1(
    coll: tuple[list[list[int]], int, list[int]], k1: float, b: float
) -> None:
    """bm25s method="lucene" uses Lucene 8+'s tf / (tf + k), without the constant (k1 + 1) factor."""
    bm25s = pytest.importorskip("bm25s")
    docs, n_terms, query = coll
    sdocs, squery = _as_strings(docs, query)
    retriever = bm25s.BM25(method="lucene", k1=k1, b=b)
    retriever.index(sdocs, show_progress=False)
    known = [t for t in squery if any(t in d for d in sdocs)]
    theirs = retriever.get_scores(known) if known else np.zeros(len(sdocs))
    for kernel in KERNELS:
        got = _one(kernel, docs, n_terms, query, k1, b, 0)
        np.testing.assert_allclose(got / (k1 + 1), theirs, rtol=1e-5, atol=1e-6)


def _pairs_brute(docs: list[list[int]], query: list[int], window: int) -> list[float]:
    wanted = set(query)
    out = []
    for d in docs:
        pairs = set()
        for i, a in enumerate(d):
            for j in range(i + 1, min(len(d), i + window + 1)):
                c = d[j]
                if a != c and a in wanted and c in wanted:
                    pairs.add(frozenset((a, c)))
        out.append(float(len(pairs)))
    return out


@settings(max_examples=300, deadline=None)
@given(coll=collections(), window=st.integers(1, 10))
def test_proximity_pairs_agree_with_brute_force(coll: tuple[list[list[int]], int, list[int]], window: int) -> None:
    docs, n_terms, query = coll
    flat, offsets = _csr(docs)
    expected = _pairs_brute(docs, query, window) if len(query) >= 2 else [0.0] * len(docs)
    for kernel in KERNELS:
        got = kernel.proximity_pairs(flat, offsets, n_terms, np.asarray(query, dtype=np.int32), window)
        np.testing.assert_array_equal(got, expected)


@settings(max_examples=150, deadline=None)
@given(docs=st.lists(st.lists(st.integers(0, 79), max_size=60), min_size=1, max_size=6),
       n_query=st.integers(2, 80), window=st.integers(1, 12))
def test_proximity_pairs_in_dense_text_agree_with_brute_force(docs: list[list[int]], n_query: int,
                                                              window: int) -> None:
    """Most tokens are query words, often more distinct ones within a window than the window is long, and the
    same word repeats: every close pair is found once, however crowded the window, with up to 64 query words (a
    bit table) and more (sorted keys)."""
    query = list(range(n_query))
    flat, offsets = _csr(docs)
    expected = _pairs_brute(docs, query, window)
    for kernel in KERNELS:
        got = kernel.proximity_pairs(flat, offsets, 80, np.asarray(query, dtype=np.int32), window)
        np.testing.assert_array_equal(got, expected)


def test_proximity_pairs_of_a_query_of_thousands_of_words() -> None:
    """A pasted document as the query: the pairs are the brute force's, on segments as long as pages."""
    rng = np.random.default_rng(7)
    docs = [rng.integers(0, 6000, size=int(n)).tolist() for n in rng.integers(0, 3000, size=8)]
    query = list(range(0, 6000, 2))  # 3,000 query words
    flat, offsets = _csr(docs)
    got = KERNELS[-1].proximity_pairs(flat, offsets, 6000, np.asarray(query, dtype=np.int32), 8)  # compiled if built
    np.testing.assert_array_equal(got, _pairs_brute(docs, query, 8))


I32 = np.int32
I64 = np.int64
BAD_CASES: list[tuple[str, Callable[[ModuleType], object]]] = [
    ("no offsets", lambda k: k.bm25_scores(np.zeros(0, I32), np.zeros(0, I64), 1, np.zeros(0, I32), np.ones(0))),
    ("offsets do not end at len", lambda k: k.bm25_scores(
        np.zeros(3, I32), np.asarray([0, 2], I64), 1, np.zeros(1, I32), np.ones(1))),
    ("offsets start above 0", lambda k: k.bm25_scores(
        np.zeros(3, I32), np.asarray([1, 3], I64), 1, np.zeros(1, I32), np.ones(1))),
    ("offsets decrease", lambda k: k.bm25_scores(
        np.zeros(3, I32), np.asarray([0, 5, 3], I64), 1, np.zeros(1, I32), np.ones(1))),
    ("negative doc term", lambda k: k.bm25_scores(
        np.asarray([0, -1], I32), np.asarray([0, 2], I64), 2, np.zeros(1, I32), np.ones(1))),
    ("doc term too big", lambda k: k.bm25_scores(
        np.asarray([0, 2], I32), np.asarray([0, 2], I64), 2, np.zeros(1, I32), np.ones(1))),
    ("query term too big", lambda k: k.bm25_scores(
        np.asarray([0, 1], I32), np.asarray([0, 2], I64), 2, np.asarray([7], I32), np.ones(1))),
    ("weights length", lambda k: k.bm25_scores(
        np.asarray([0, 1], I32), np.asarray([0, 2], I64), 2, np.asarray([1], I32), np.ones(2))),
    ("unknown variant", lambda k: k.bm25_scores(
        np.asarray([0, 1], I32), np.asarray([0, 2], I64), 2, np.asarray([1], I32), np.ones(1), 1.2, 0.75, 9)),
    ("b above 1", lambda k: k.bm25_scores(
        np.asarray([0, 1], I32), np.asarray([0, 2], I64), 2, np.asarray([1], I32), np.ones(1), 1.2, 1.5)),
    ("nan weight", lambda k: k.bm25_scores(
        np.asarray([0, 1], I32), np.asarray([0, 2], I64), 2, np.asarray([1], I32), np.asarray([math.nan]))),
    ("prior_df above prior_n", lambda k: k.bm25_scores(
        np.asarray([0, 1], I32), np.asarray([0, 2], I64), 2, np.asarray([1], I32), np.ones(1), 1.2, 0.75, 0, 0.5,
        1.0, np.asarray([2.0]))),
    ("prior_df length", lambda k: k.bm25_scores(
        np.asarray([0, 1], I32), np.asarray([0, 2], I64), 2, np.asarray([1], I32), np.ones(1), 1.2, 0.75, 0, 0.5,
        1.0, np.asarray([0.5, 0.5]))),
    ("doc_lengths length", lambda k: k.bm25_scores(
        np.asarray([0, 1], I32), np.asarray([0, 2], I64), 2, np.asarray([1], I32), np.ones(1), 1.2, 0.75, 0, 0.5,
        0.0, None, np.asarray([1.0, 2.0]))),
    ("negative doc length", lambda k: k.bm25_scores(
        np.asarray([0, 1], I32), np.asarray([0, 2], I64), 2, np.asarray([1], I32), np.ones(1), 1.2, 0.75, 0, 0.5,
        0.0, None, np.asarray([-1.0]))),
    ("negative n_terms", lambda k: k.bm25_scores(np.zeros(0, I32), np.zeros(1, I64), -1, np.zeros(0, I32), np.ones(0))),
    ("proximity window 0", lambda k: k.proximity_pairs(
        np.asarray([0, 1], I32), np.asarray([0, 2], I64), 2, np.asarray([0, 1], I32), 0)),
    ("proximity term out of range", lambda k: k.proximity_pairs(
        np.asarray([0, 5], I32), np.asarray([0, 2], I64), 2, np.asarray([0, 1], I32), 3)),
]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("case", BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_bad_inputs_raise_value_error(kernel: ModuleType, case: tuple[str, Callable[[ModuleType], object]]) -> None:
    with pytest.raises(ValueError):
        case[1](kernel)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_empty_collections_and_queries_score_zero(kernel: ModuleType) -> None:
    assert kernel.bm25_scores(np.zeros(0, I32), np.zeros(1, I64), 0, np.zeros(0, I32), np.ones(0)).shape == (0,)
    flat, offsets = _csr([[0, 1], []])
    np.testing.assert_array_equal(kernel.bm25_scores(flat, offsets, 2, np.zeros(0, I32), np.ones(0)), [0.0, 0.0])


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_bm25l_with_a_zero_normalised_length_is_finite(kernel: ModuleType) -> None:
    """b = 1 and a caller's document length of 0 make BM25L's c = f / norm infinite: the score is its limit,
    idf * (k1 + 1), not a division error (pure Python) or NaN (the compiled kernel divides in C)."""
    flat, offsets = _csr([[0]])
    got = kernel.bm25_scores(flat, offsets, 1, np.array([0], dtype=np.int32), np.array([1.0]), 1.2, 1.0,
                             VARIANTS["l"], 0.5, 0.0, None, np.array([0.0]))
    assert got[0] == pytest.approx(math.log(2 / 1.5) * 2.2)
