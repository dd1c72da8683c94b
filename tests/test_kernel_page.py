"""``page_scores`` (a page's BM25 and bonuses in one kernel call) following the page's links
(``qatbe.score.links``): the compiled core and its twin agree, and both are the composition of the separate
kernels and array functions the scorer used before, to the last bit."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe import _core_py
from qatbe._kernel_types import PageScores, ScoringParams
from qatbe.score.bm25 import heading_ancestors
from qatbe.score.links import LEAD_IN_ENDS, page_links
from qatbe.types import Segment, SegmentKind

try:
    from qatbe import _core as _compiled
except ImportError:
    _compiled = None  # type: ignore[assignment]

KERNELS: list[ModuleType] = [_core_py] + ([_compiled] if _compiled is not None else [])

endings = st.sampled_from(["", ":", "：", ": ", ":\n\t", "x", "é", "数据：", "\u3000", " ：\u00a0", ".", "; "])
texts = st.text(max_size=6).flatmap(lambda t: endings.map(lambda e: t + e))


@st.composite
def pages(draw: st.DrawFn) -> dict[str, Any]:
    """A page: documents of term ids, a query over them, and what the bonuses read of each document."""
    n_terms = draw(st.integers(1, 8))
    docs = draw(st.lists(st.lists(st.integers(0, n_terms - 1), max_size=14), max_size=10))
    n = len(docs)
    query = draw(st.lists(st.integers(0, n_terms - 1), max_size=6))
    weights = draw(st.lists(st.sampled_from([1.0, 0.5, 0.4, 0.8]) | st.floats(0.0, 2.0), min_size=len(query),
                            max_size=len(query)))
    flags = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    heads = [i for i, f in enumerate(flags) if f]
    flat = np.asarray([t for d in docs for t in d], dtype=np.int32)
    offsets = np.zeros(n + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(d) for d in docs])
    prior_n = draw(st.sampled_from([0.0, 0.0, 3.0]))
    return {
        "doc_terms": flat, "doc_offsets": offsets, "n_terms": n_terms,
        "query_terms": np.asarray(query, dtype=np.int32), "query_weights": np.asarray(weights, dtype=np.float64),
        # raw-token lengths: at least the term count, as the index gives them, or anything >= 0
        "doc_lengths": np.asarray([len(d) + draw(st.integers(0, 3)) for d in docs], dtype=np.float64),
        "texts": draw(st.lists(texts, min_size=n, max_size=n)),
        "heads": heads,
        "levels": draw(st.lists(st.integers(0, 4), min_size=len(heads), max_size=len(heads))),
        "groups": draw(st.lists(st.integers(-1, 2), min_size=n, max_size=n)),
        "k1": draw(st.sampled_from([1.2, 0.0, 2.0])), "b": draw(st.sampled_from([0.75, 0.0, 1.0])),
        "variant": draw(st.integers(0, 3)), "delta": draw(st.sampled_from([0.5, 0.0, 1.0])),
        "prior_n": prior_n,
        "prior_df": (np.asarray(draw(st.lists(st.floats(0.0, prior_n), min_size=len(query), max_size=len(query))),
                                dtype=np.float64) if prior_n else None),
        "n_near": draw(st.integers(0, len(query))), "window": draw(st.integers(1, 9)),
        "proximity": draw(st.sampled_from([0.0, 0.25, 1.7])), "lead_in": draw(st.sampled_from([0.0, 1.0, 0.5])),
        "heading": draw(st.sampled_from([0.0, 0.3])), "sibling": draw(st.sampled_from([0.0, 0.15])),
        "floor": draw(st.sampled_from([0.0, 0.1, 1.0])),
        "inherit_words": draw(st.sampled_from([0.0, 4.0, 2.5, 1.0])),
        # which last characters make a lead-in (an argument of page_links)
        "lead_in_ends": draw(st.sampled_from([LEAD_IN_ENDS, ".", ";:", ""])),
    }


def _lead_in(texts: list[str], is_heading: list[bool], groups: list[int], raw: list[float],
             ends: str) -> list[float]:
    """The score of the text before, when that one ends with one of ``ends`` (a lead-in), this is not a heading
    and the two are not parts of one split unit."""
    return [raw[i - 1] if i and ends and texts[i - 1].rstrip().endswith(tuple(ends)) and not is_heading[i]
            and (groups[i] < 0 or groups[i] != groups[i - 1]) else 0.0 for i in range(len(raw))]


def _inherited(ancestors: list[tuple[int, ...]], raw: list[float]) -> list[float]:
    """The best score of the headings above each segment (0 with none)."""
    return [max(raw[j] for j in anc) if anc else 0.0 for anc in ancestors]


def _siblings(groups: list[int], raw: list[float]) -> list[float]:
    """The score of the previous part of the same unit, or of the next one when that is higher."""
    out = [0.0] * len(groups)
    for i, g in enumerate(groups):
        if g < 0:
            continue
        if i > 0 and groups[i - 1] == g:
            out[i] = raw[i - 1]
        if i + 1 < len(groups) and groups[i + 1] == g and raw[i + 1] > out[i]:
            out[i] = raw[i + 1]
    return out


def composed(kernel: ModuleType, p: dict[str, Any]) -> tuple[npt.NDArray[np.float64], ...]:
    """The scorer's steps one after the other: the BM25 and proximity kernels, then each bonus as a plain loop
    over the sum so far, added (scaled by its share) when it is non-zero somewhere."""
    csr = (p["doc_terms"], p["doc_offsets"], p["n_terms"])
    words = p.get("inherit_words", 0.0)
    keep = [1.0 if not words or x >= words else x / words for x in p["doc_lengths"].tolist()]
    base = kernel.bm25_scores(*csr, p["query_terms"], p["query_weights"], p["k1"], p["b"], p["variant"],
                              p["delta"], p["prior_n"], p["prior_df"], p["doc_lengths"])
    n = len(base)
    raw = base.tolist()
    parts = []

    def add(part: list[float], share: float, always: bool = False, inherited: bool = True) -> None:
        """An inherited part is scaled by the share a text keeps (its words / inherit_words, at most 1)."""
        if always or any(part):
            part = [share * x * (k if inherited else 1.0) for x, k in zip(part, keep)]
            raw[:] = [r + x for r, x in zip(raw, part)]
        else:
            part = [0.0] * n
        parts.append(np.asarray(part, dtype=np.float64))

    pairs = [0.0] * n
    if p["proximity"] > 0 and p["n_near"] >= 2:
        pairs = kernel.proximity_pairs(*csr, p["query_terms"][: p["n_near"]], p["window"]).tolist()
    add(pairs, p["proximity"], inherited=False)
    is_heading = [i in p["heads"] for i in range(n)]
    add(_lead_in(p["texts"], is_heading, p["groups"], raw, p["lead_in_ends"]) if p["lead_in"] > 0 else [0.0] * n,
        p["lead_in"])
    if p["heading"] > 0 and p["heads"]:
        level = dict(zip(p["heads"], p["levels"]))
        segments = [Segment(SegmentKind.HEADING if i in level else SegmentKind.PARAGRAPH, "", "", i, i,
                            level.get(i, 0)) for i in range(n)]
        add(_inherited(heading_ancestors(segments), raw), p["heading"], always=True)
    else:
        add([0.0] * n, 0.0)
    add(_siblings(p["groups"], raw) if p["sibling"] > 0 else [0.0] * n, p["sibling"])
    return (np.asarray(raw, dtype=np.float64), base, *parts)


_PARAMS = frozenset(ScoringParams._fields)
_LINKS = frozenset({"texts", "groups", "lead_in_ends"})  # what page_links reads


def _args(p: dict[str, Any]) -> dict[str, Any]:
    """The page's arrays as ``page_scores`` takes them: its texts, groups and lead-in characters become links."""
    links = page_links(p["texts"], p["heads"], p["groups"], p.get("lead_in_ends", LEAD_IN_ENDS))
    rest = {k: v for k, v in p.items() if k not in _PARAMS and k not in _LINKS}
    return {**rest, "lead_from": links.lead_from, "joined": links.joined}


def _scores(kernel: ModuleType, p: dict[str, Any]) -> PageScores:
    """``kernel.page_scores`` of a flat description of a page: the ``ScoringParams`` fields go into ``params``,
    the texts, groups and lead-in characters into links."""
    params = ScoringParams(**{k: v for k, v in p.items() if k in _PARAMS})
    return kernel.page_scores(**_args(p), params=params)  # type: ignore[no-any-return]


def _bits(a: npt.NDArray[Any]) -> list[str]:
    return [repr(float(x)) for x in a]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=300, deadline=None)
@given(pages())
def test_page_scores_are_the_separate_steps_composed(kernel: ModuleType, p: dict[str, Any]) -> None:
    raw, base, prox, lead, head, sib, relevant, best, df, up = _scores(kernel, p)
    for got, want in zip((raw, base, prox, lead, head, sib), composed(kernel, p)):
        if got is None:  # a part that is 0 everywhere
            assert not want.any()
        else:
            assert _bits(got) == _bits(want) and got.dtype == np.float64
    assert raw is not None and base is not None
    assert best == (float(raw.max()) if len(raw) else 0.0)
    assert relevant.dtype == np.bool_
    assert relevant.tolist() == ((raw > 0) & (raw >= p["floor"] * best)).tolist()
    # df: the documents holding each query slot (a repeated term id counts for its first slot only)
    query = p["query_terms"].tolist()
    docs = np.split(p["doc_terms"], p["doc_offsets"][1:-1]) if len(p["doc_offsets"]) > 1 else []
    assert df.tolist() == [0 if t in query[:q] else sum(1 for d in docs if t in d.tolist())
                           for q, t in enumerate(query)]
    # up: the first entry of heading_ancestors (the nearest heading above, for a heading the one enclosing it)
    level = dict(zip(p["heads"], p["levels"]))
    segments = [Segment(SegmentKind.HEADING if i in level else SegmentKind.PARAGRAPH, "", "", i, i, level.get(i, 0))
                for i in range(len(raw))]
    if p["heads"]:
        assert up is not None and up.tolist() == [chain[0] if chain else -1 for chain in heading_ancestors(segments)]
    else:
        assert up is None


@pytest.mark.skipif(_compiled is None, reason="the compiled core is not built")
@settings(max_examples=300, deadline=None)
@given(pages())
def test_compiled_and_python_page_scores_agree(p: dict[str, Any]) -> None:
    assert _compiled is not None
    a = _scores(_compiled, p)
    b = _scores(_core_py, p)
    assert type(a) is type(b) is PageScores
    pairs: list[tuple[Any, Any]] = list(zip(a, b))
    for x, y in pairs:
        if x is None or y is None:
            assert x is None and y is None
        elif isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.tolist() == y.tolist()
        else:
            assert x == y


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=300, deadline=None)
@given(pages(), st.data())
def test_a_page_without_the_terms_no_query_slot_holds_scores_the_same_at_their_positions(
        kernel: ModuleType, p: dict[str, Any], data: st.DataObject) -> None:
    """What ``TermMemo.index_sparse`` gives the scorer: the entries of some terms that are no query slot left
    out, each other entry at its place in the full page (``positions``), the lengths as they were. Every output
    is the full page's, to the last bit (and ``proximity_pairs`` too)."""
    query = set(p["query_terms"].tolist())
    blanks = data.draw(st.sets(st.sampled_from([t for t in range(p["n_terms"]) if t not in query] or [-1])))
    full = _scores(kernel, p)
    terms, offsets = p["doc_terms"], p["doc_offsets"]
    keep = ~np.isin(terms, sorted(blanks))
    counts = np.concatenate([[0], np.cumsum(keep)]).astype(np.int64)
    sparse = dict(p, doc_terms=terms[keep], doc_offsets=counts[offsets],
                  positions=np.flatnonzero(keep).astype(np.int64))
    got = _scores(kernel, sparse)
    pairs: list[tuple[Any, Any]] = list(zip(got, full))
    for x, y in pairs:
        if x is None or y is None:
            assert x is None and y is None
        elif isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and _bits(x.astype(np.float64)) == _bits(y.astype(np.float64))
        else:
            assert x == y
    args = (p["n_terms"], p["query_terms"], p["window"])
    assert (kernel.proximity_pairs(sparse["doc_terms"], sparse["doc_offsets"], *args, sparse["positions"]).tolist()
            == kernel.proximity_pairs(terms, offsets, *args).tolist())


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("positions", [[0, 1], [0, 0, 2], [1, 0, 5], [-1, 0, 0], [0, 1, -2]],
                         ids=["too few", "repeated", "falling", "negative", "negative in the second"])
def test_positions_that_are_not_increasing_places_are_refused(kernel: ModuleType, positions: list[int]) -> None:
    """One per entry, >= 0, increasing within a document (a new document may start lower)."""
    with pytest.raises(ValueError, match="positions"):
        _scores(kernel, _page(positions=np.asarray(positions, dtype=np.int64)))
    _scores(kernel, _page(positions=np.asarray([4, 9, 0], dtype=np.int64)))  # the second text starts anew


def _page(**changes: Any) -> dict[str, Any]:
    p: dict[str, Any] = {
        "doc_terms": np.asarray([0, 1, 1], dtype=np.int32), "doc_offsets": np.asarray([0, 2, 3], dtype=np.int64),
        "n_terms": 2, "query_terms": np.asarray([1], dtype=np.int32), "query_weights": np.ones(1),
        "doc_lengths": np.asarray([2.0, 1.0]), "texts": ["a:", "b"], "heads": [0], "levels": [1],
        "groups": [-1, -1],
    }
    p.update(changes)
    return p


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("changes", [
    {"heads": [0, 0], "levels": [1, 1]}, {"heads": [1, 0], "levels": [1, 1]},
    {"levels": []}, {"n_near": 2}, {"window": 0}, {"proximity": float("nan")},
    {"query_terms": np.asarray([5], dtype=np.int32)}, {"doc_lengths": np.ones(3)}, {"variant": 7},
    {"inherit_words": -1.0}, {"inherit_words": float("inf")}, {"lead_from": b"\x00"}, {"joined": b"\x00" * 3},
    {"lead_from": None},
])
def test_page_scores_reject_bad_input(kernel: ModuleType, changes: dict[str, Any]) -> None:
    params = ScoringParams(**{k: v for k, v in changes.items() if k in _PARAMS})
    args = {**_args(_page()), **{k: v for k, v in changes.items() if k not in _PARAMS}}
    with pytest.raises((ValueError, TypeError)):
        kernel.page_scores(**args, params=params)


@pytest.mark.parametrize("changes", [{"texts": ["a"]}, {"heads": [2]}, {"heads": [-1]}, {"groups": [0]}])
def test_page_links_reject_bad_input(changes: dict[str, Any]) -> None:
    p = _page(**changes)
    with pytest.raises(ValueError):
        page_links(p["texts"], p["heads"], p["groups"])


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_a_lead_in_passes_its_score_on_but_not_to_a_heading(kernel: ModuleType) -> None:
    p = _page(heads=[], levels=[], lead_in=1.0, heading=0.3)
    page = _scores(kernel, p)
    base, lead = page.bm25, page.lead_in
    assert base[0] > 0 and lead is not None and lead.tolist() == [0.0, base[0]] and page.heading is None
    assert _scores(kernel, _page(heads=[1], levels=[2], lead_in=1.0)).lead_in is None


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_no_lead_in_between_the_parts_of_one_split_unit(kernel: ModuleType) -> None:
    """A part of a split unit that ends with a colon is where the splitter cut ("def f(x):" in a long code
    block), not a lead-in: the next part of the same unit inherits nothing; the next unit does."""
    p = _page(heads=[], levels=[], lead_in=1.0, groups=[3, 3])
    assert _scores(kernel, p).lead_in is None
    for groups in ([3, 4], [-1, -1], [3, -1]):
        page = _scores(kernel, {**p, "groups": groups})
        assert page.lead_in is not None and page.lead_in.tolist() == [0.0, page.bm25[0]]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_a_short_text_inherits_less_and_an_empty_one_nothing(kernel: ModuleType) -> None:
    """Under a matching heading, texts of 0, 1, 2 and 8 words inherit 0, 1/4, 1/2 and all of the heading share
    (inherit_words=4); their own BM25 is untouched. Without doc_lengths the term count is the length."""
    p = _page(doc_terms=np.asarray([1, 0, 0, 0], dtype=np.int32),
              doc_offsets=np.asarray([0, 1, 1, 2, 3, 4], dtype=np.int64),
              doc_lengths=np.asarray([1.0, 0.0, 1.0, 2.0, 8.0]), texts=["h", "", "a", "a b", "a b c d e f g h"],
              heads=[0], levels=[1], groups=[-1] * 5, heading=0.3, inherit_words=4.0)
    page = _scores(kernel, p)
    raw, base, head = page.raw, page.bm25, page.heading
    assert head is not None
    full = 0.3 * base[0]
    assert head.tolist() == [0.0, 0.0, full * 0.25, full * 0.5, full]
    assert raw.tolist() == (base + head).tolist()
    off = _scores(kernel, {**p, "inherit_words": 0.0}).heading
    assert off is not None and off.tolist() == [0.0] + [full] * 4
    counted = _scores(kernel, {**p, "doc_lengths": None})
    full = 0.3 * counted.bm25[0]  # the heading's BM25 differs too: its length is its term count
    assert counted.heading is not None
    assert counted.heading.tolist() == [0.0, 0.0, full * 0.25, full * 0.25, full * 0.25]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_the_shares_come_as_one_record_by_name(kernel: ModuleType) -> None:
    """The kernel takes the policy as a ``ScoringParams`` (keyword-only) and answers with a ``PageScores``."""
    p = _page(lead_in=1.0)
    arrays = list(_args(p).values())
    with pytest.raises(TypeError):
        kernel.page_scores(*arrays, ScoringParams())
    page = _scores(kernel, p)
    assert isinstance(page, PageScores) and page.lead_in is not None and page.best == max(page.raw)
    with pytest.raises(AttributeError):
        ScoringParams().lead_in = 2.0  # type: ignore[misc]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(texts, st.integers(-1, 2), st.booleans()), max_size=12),
       st.sampled_from([LEAD_IN_ENDS, ".", ";:", ""]))
def test_page_links_are_the_rules_they_state(items: list[tuple[str, int, bool]], ends: str) -> None:
    """Joined: the same group >= 0 as the text before. Lead-in: the text before ends (whitespace aside) with one
    of ``ends``, and this one is neither a heading nor joined to it. One byte per text, 0 or 1."""
    page_texts = [t for t, _, _ in items]
    groups = [g for _, g, _ in items]
    heads = [i for i, (_, _, h) in enumerate(items) if h]
    links = page_links(page_texts, heads, groups, ends)
    n = len(items)
    joined = [i > 0 and groups[i] >= 0 and groups[i] == groups[i - 1] for i in range(n)]
    lead = [i > 0 and bool(ends) and page_texts[i - 1].rstrip().endswith(tuple(ends)) and i not in heads
            and not joined[i] for i in range(n)]
    assert isinstance(links.lead_from, bytes) and isinstance(links.joined, bytes)
    assert list(links.joined) == [int(x) for x in joined] and list(links.lead_from) == [int(x) for x in lead]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_the_lead_in_characters_are_data(kernel: ModuleType) -> None:
    p = _page(heads=[], levels=[], lead_in=1.0, texts=["a.", "b"])
    assert _scores(kernel, p).lead_in is None  # "." is no lead-in by default
    page = _scores(kernel, {**p, "lead_in_ends": "."})
    assert page.lead_in is not None and page.lead_in.tolist() == [0.0, page.bm25[0]]
