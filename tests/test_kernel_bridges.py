"""The bridges' kernels (``bridge_rows``: the best segments, the headings one of them is outside of, and the
texts to read for them; ``bridge_shares``: which best segments name which
headings; ``bridge_best``: each named heading's credit; ``bridge_mentions``: how many segments outside a
heading's section mention it): the compiled core and its twin agree, both give what the
definition with Python sets gives (the loops ``bridge_credits`` ran before they were compiled), and both refuse
input that would send them out of bounds or round a cycle."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_kernel import _csr
from test_kernel_memo import fake_analyse

from qatbe import _core_py
from qatbe._core_py_bridges import _chain_above
from qatbe.pipeline import parent_slots
from qatbe.types import Segment, SegmentKind

try:
    from qatbe import _core as _compiled
except ImportError:
    _compiled = None

KERNELS: list[ModuleType] = [_core_py] + ([_compiled] if _compiled is not None else [])


@st.composite
def outlines(draw: st.DrawFn, max_n: int = 12) -> tuple[list[int], list[int]]:
    """A page's headings and ``up`` (for each segment the heading above it, or -1), as the scorer reads them from
    heading levels (``parent_slots``, which tests/test_pipeline_parts.py checks against the heading ancestors)."""
    levels = draw(st.lists(st.integers(0, 3), min_size=1, max_size=max_n))  # 0: not a heading
    segments = [Segment(SegmentKind.HEADING if lv else SegmentKind.PARAGRAPH, "t", "t", i, i, level=lv)
                for i, lv in enumerate(levels)]
    return [i for i, lv in enumerate(levels) if lv], parent_slots(segments)


@st.composite
def share_cases(draw: st.DrawFn) -> dict[str, Any]:
    heads, up = draw(outlines())
    n = len(up)
    body = [i for i in range(n) if i not in heads]
    if not heads or not body:
        heads, up, body = [0], [-1, 0], [1]
        n = 2
    cand = draw(st.lists(st.sampled_from(heads), min_size=1, max_size=len(heads), unique=True))
    top = draw(st.lists(st.sampled_from(body), min_size=1, max_size=3, unique=True))
    words = st.integers(0, 9) | st.sampled_from([10 ** 6, 2 ** 31 - 1])  # memo ids: small and far apart
    head_rows = [draw(st.lists(words, max_size=5)) for _ in cand]
    part_rows = [draw(st.lists(st.lists(words, max_size=6), min_size=1, max_size=3)) for _ in top]
    rows = head_rows + [r for parts in part_rows for r in parts]
    top_rows, at = [], len(head_rows)
    for parts in part_rows:
        top_rows.append(list(range(at, at + len(parts))))
        at += len(parts)
    bad = draw(st.lists(words | st.just(-1), max_size=4))
    return {"rows": rows, "n_heads": len(cand), "bad": bad, "top_rows": top_rows, "head_at": cand, "top_at": top,
            "up": up, "min_share": draw(st.sampled_from([0.5, 0.0, 1.0, 0.34]))}


def _share_args(c: dict[str, Any]) -> tuple[Any, ...]:
    flat, offsets = _csr(c["rows"])
    t_flat, t_offsets = _csr(c["top_rows"])
    return (flat, offsets, c["n_heads"], np.asarray(c["bad"], dtype=np.int32), t_flat.astype(np.int64), t_offsets,
            np.asarray(c["head_at"], dtype=np.int64), np.asarray(c["top_at"], dtype=np.int64),
            np.asarray(c["up"], dtype=np.int64), c["min_share"])


def _shares_by_definition(c: dict[str, Any]) -> tuple[list[int], list[int], list[float], list[int]]:
    excluded = set(c["bad"])
    tops = [set().union(*(c["rows"][r] for r in rows)) for rows in c["top_rows"]]
    sections = [_chain_above(c["up"], i) for i in c["top_at"]]
    out_k, out_t, out_s, n_new = [], [], [], []
    for k in range(c["n_heads"]):
        new = set(c["rows"][k]) - excluded
        n_new.append(len(new))
        for t in range(len(tops)):
            if new and c["head_at"][k] not in sections[t]:
                share = len(tops[t] & new) / len(new)
                if share >= c["min_share"]:
                    out_k.append(k)
                    out_t.append(t)
                    out_s.append(share)
    return out_k, out_t, out_s, n_new


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=400, deadline=None)
@given(share_cases())
def test_shares_are_the_set_definition(kernel: ModuleType, case: dict[str, Any]) -> None:
    rows_k, rows_t, shares, n_new = kernel.bridge_shares(*_share_args(case))
    want = _shares_by_definition(case)
    assert (rows_k.tolist(), rows_t.tolist(), shares.tolist(), n_new.tolist()) == want
    assert rows_k.dtype == rows_t.dtype == n_new.dtype == np.int64 and shares.dtype == np.float64


@st.composite
def top_cases(draw: st.DrawFn) -> dict[str, Any]:
    heads, up = draw(outlines())
    # Scores with ties, zeros and a negative (none of those can be a best segment), and a NaN now and then.
    scores = st.sampled_from([0.0, -1.0, 0.5, 1.0, 2.0, 3.0, float("nan")]) | st.floats(0.0, 5.0)
    return {"raw": draw(st.lists(scores, min_size=len(up), max_size=len(up))), "heads": heads, "up": up,
            "top_n": draw(st.sampled_from([0, 1, 2, 3, 64]))}


def _top_by_definition(c: dict[str, Any]) -> tuple[list[int], list[int]]:
    """The best segments (a stable sort of the non-headings scoring > 0) and the headings one of them is outside
    of, as bridge_credits picked them before they were compiled."""
    raw, heads = c["raw"], set(c["heads"])
    order = sorted((i for i, v in enumerate(raw) if v > 0 and i not in heads), key=lambda i: (-raw[i], i))
    top = order[:c["top_n"]]
    sections = [_chain_above(c["up"], i) for i in top]
    return top, [h for h in c["heads"] if any(h not in s for s in sections)]


def _parts_by_definition(groups: list[int] | None, i: int) -> list[int]:
    """Segment i with its neighbours of the same split unit (``groups[i] >= 0``), in page order: what
    bridge_credits read through ``_parts`` before ``bridge_rows``."""
    if groups is None or groups[i] < 0:
        return [i]
    out = [i]
    if i > 0 and groups[i - 1] == groups[i]:
        out.insert(0, i - 1)
    if i + 1 < len(groups) and groups[i + 1] == groups[i]:
        out.append(i + 1)
    return out


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=400, deadline=None)
@given(top_cases(), st.data())
def test_the_rows_read_are_the_definition(kernel: ModuleType, case: dict[str, Any], data: st.DataObject) -> None:
    n = len(case["up"])
    groups = data.draw(st.none() | st.lists(st.integers(-1, 2), min_size=n, max_size=n))
    top, candidates, which, rows, offsets = kernel.bridge_rows(
        np.asarray(case["raw"], dtype=np.float64), case["heads"], np.asarray(case["up"], dtype=np.int64), groups,
        case["top_n"])
    want_top, want_candidates = _top_by_definition(case)
    assert (top.tolist(), candidates.tolist()) == (want_top, want_candidates)
    if not want_candidates:
        assert which is None and rows is None and offsets is None
        return
    assert which is not None and rows is not None and offsets is not None
    parts = [_parts_by_definition(groups, i) for i in want_top]
    taken = sorted({j for unit in parts for j in unit})
    assert which.tolist() == want_candidates + taken
    read = which.tolist()
    assert [[read[r] for r in rows[offsets[t]:offsets[t + 1]].tolist()] for t in range(len(want_top))] == parts
    assert which.dtype == rows.dtype == offsets.dtype == np.int64


@st.composite
def best_cases(draw: st.DrawFn) -> dict[str, Any]:
    """Pairs as ``bridge_shares`` gives them, with the best segments' scores, their named words and the sizes of
    the headings' sections."""
    case = draw(share_cases())
    rows_k, rows_t, shares, _ = _shares_by_definition(case)
    n_top = len(case["top_at"])
    words = st.integers(0, 9) | st.sampled_from([10 ** 6, 2 ** 31 - 1])
    named = draw(st.none() | st.lists(st.lists(words, max_size=6), min_size=1, max_size=n_top))
    named_of = None
    if named is not None:
        named_of = [draw(st.integers(-1, len(named) - 1)) for _ in range(n_top)]
    return {**case, "rows_k": rows_k, "rows_t": rows_t, "shares": shares,
            "values": draw(st.lists(st.floats(0.01, 50.0), min_size=n_top, max_size=n_top)),
            "named": named, "named_of": named_of,
            "sizes": draw(st.lists(st.integers(0, 40), min_size=len(case["up"]), max_size=len(case["up"]))),
            "name_bridge": draw(st.sampled_from([2.0, 1.0, 3.5])), "name_section": draw(st.sampled_from([4.0, 1.0]))}


def _best_args(c: dict[str, Any]) -> tuple[Any, ...]:
    flat, offsets = _csr(c["rows"])
    named: tuple[Any, ...] = (None, None, None, None)
    if c["named"] is not None:
        n_flat, n_offsets = _csr(c["named"])
        named = (n_flat, n_offsets, np.asarray(c["named_of"], dtype=np.int64),
                 np.asarray(c["sizes"], dtype=np.int64))
    return (flat, offsets, np.asarray(c["bad"], dtype=np.int32), np.asarray(c["rows_k"], dtype=np.int64),
            np.asarray(c["rows_t"], dtype=np.int64), np.asarray(c["shares"], dtype=np.float64),
            np.asarray(c["values"], dtype=np.float64), *named, np.asarray(c["head_at"], dtype=np.int64),
            c["name_bridge"], c["name_section"], c["min_share"])


def _best_by_definition(c: dict[str, Any]) -> tuple[list[int], list[float]]:
    """The pair loop of bridge_credits before ``bridge_best``, over term ids instead of term strings."""
    best: dict[int, float] = {}
    for k, t, share in zip(c["rows_k"], c["rows_t"], c["shares"]):
        named = False
        if c["named"] is not None and c["named_of"][t] >= 0:
            new = set(c["rows"][k]) - set(c["bad"])
            named = sum(x in set(c["named"][c["named_of"][t]]) for x in new) >= c["min_share"] * len(new)
        factor = 1.0
        if named:
            factor += (c["name_bridge"] - 1.0) / max(1.0, c["sizes"][c["head_at"][k]] / c["name_section"]) ** 0.5
        best[k] = max(best.get(k, 0.0), share * c["values"][t] * factor)
    kept = [k for k, v in best.items() if v > 0]
    return kept, [best[k] for k in kept]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=400, deadline=None)
@given(best_cases())
def test_credits_are_the_pair_loop(kernel: ModuleType, case: dict[str, Any]) -> None:
    """Equal to the last bit: a credit goes on into the page's scores."""
    ks, credits = kernel.bridge_best(*_best_args(case))
    assert (ks.tolist(), credits.tolist()) == _best_by_definition(case)
    assert ks.dtype == np.int64 and credits.dtype == np.float64


@st.composite
def mention_cases(draw: st.DrawFn) -> dict[str, Any]:
    heads, up = draw(outlines())
    n = len(up)
    n_words = draw(st.integers(1, 6))
    docs = [draw(st.lists(st.integers(0, n_words + 2), max_size=8)) for _ in range(n)]  # ids >= n_words: other terms
    cand = draw(st.lists(st.sampled_from(heads), max_size=len(heads), unique=True)) if heads else []
    words = [draw(st.lists(st.integers(0, n_words - 1), min_size=1, max_size=n_words, unique=True)) for _ in cand]
    need = [draw(st.sampled_from([0.5, 1.0, 1.5, 2.0, 0.0])) * len(w) for w in words]
    skip = [1 if i in heads else 0 for i in range(n)]
    return {"docs": docs, "n_words": n_words, "words": words, "need": need, "head_at": cand, "up": up, "skip": skip}


def _mention_args(c: dict[str, Any]) -> tuple[Any, ...]:
    flat, offsets = _csr(c["docs"])
    w_flat, w_offsets = _csr(c["words"])
    return (flat, offsets, c["n_words"], w_flat, w_offsets, np.asarray(c["need"], dtype=np.float64),
            np.asarray(c["head_at"], dtype=np.int64), np.asarray(c["up"], dtype=np.int64),
            np.asarray(c["skip"], dtype=np.uint8))


def _mentions_by_definition(c: dict[str, Any]) -> list[int]:
    out = [0] * len(c["head_at"])
    for i, doc in enumerate(c["docs"]):
        if c["skip"][i]:
            continue
        held = set(doc)
        chain = _chain_above(c["up"], i)
        for h, (at, words) in enumerate(zip(c["head_at"], c["words"])):
            count = len(held & set(words))
            if count and count >= c["need"][h] and at not in chain:
                out[h] += 1
    return out


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=400, deadline=None)
@given(mention_cases())
def test_mentions_are_the_set_definition(kernel: ModuleType, case: dict[str, Any]) -> None:
    got = kernel.bridge_mentions(*_mention_args(case))
    assert got.tolist() == _mentions_by_definition(case) and got.dtype == np.int64


def _mentions(**change: Any) -> tuple[Any, ...]:
    c = {"docs": [[0], [0, 1]], "n_words": 2, "words": [[0, 1]], "need": [1.0], "head_at": [0], "up": [-1, 0],
         "skip": [1, 0]}
    c.update(change)
    return _mention_args(c)


def _shares(**change: Any) -> tuple[Any, ...]:
    c = {"rows": [[1, 2], [2]], "n_heads": 1, "bad": [], "top_rows": [[1]], "head_at": [0], "top_at": [1],
         "up": [-1, -1], "min_share": 0.5}
    c.update(change)
    return _share_args(c)


def _best(**change: Any) -> tuple[Any, ...]:
    c = {"rows": [[1, 2], [2]], "bad": [], "rows_k": [0], "rows_t": [0], "shares": [0.5], "values": [1.0],
         "named": None, "named_of": None, "sizes": [0, 0], "head_at": [0], "name_bridge": 2.0,
         "name_section": 4.0, "min_share": 0.5}
    c.update(change)
    return _best_args(c)


BAD: list[tuple[str, str, tuple[Any, ...]]] = [
    ("mentions: up after the segment (a cycle)", "bridge_mentions", _mentions(up=[1, 0])),
    ("mentions: up out of range", "bridge_mentions", _mentions(up=[-1, 5])),
    ("mentions: head word out of range", "bridge_mentions", _mentions(words=[[0, 2]])),
    ("mentions: need per heading", "bridge_mentions", _mentions(need=[1.0, 1.0])),
    ("mentions: skip per segment", "bridge_mentions", _mentions(skip=[1])),
    ("mentions: negative word count", "bridge_mentions", _mentions(n_words=-1, words=[])),
    ("shares: up after the segment (a cycle)", "bridge_shares", _shares(up=[1, 0])),
    ("shares: top row out of range", "bridge_shares", _shares(top_rows=[[2]])),
    ("shares: more headings than rows", "bridge_shares", _shares(n_heads=3, head_at=[0, 0, 0])),
    ("shares: head_at per heading", "bridge_shares", _shares(head_at=[0, 1])),
    ("shares: top not a segment", "bridge_shares", _shares(top_at=[2])),
    ("shares: negative term id", "bridge_shares", _shares(rows=[[-2], [2]])),
    ("rows: up per segment", "bridge_rows", (np.ones(3), [0], np.asarray([-1, 0], dtype=np.int64), None, 3)),
    ("rows: up after the segment (a cycle)", "bridge_rows",
     (np.ones(2), [0], np.asarray([1, 0], dtype=np.int64), None, 3)),
    ("rows: heads out of order", "bridge_rows", (np.ones(3), [2, 0], np.asarray([-1, 0, -1], dtype=np.int64), None, 3)),
    ("rows: head not a segment", "bridge_rows", (np.ones(2), [0, 2], np.asarray([-1, 0], dtype=np.int64), None, 3)),
    ("rows: more than 64 best segments", "bridge_rows",
     (np.ones(2), [0], np.asarray([-1, 0], dtype=np.int64), None, 65)),
    ("rows: groups per segment", "bridge_rows", (np.ones(2), [0], np.asarray([-1, 0], dtype=np.int64), [0], 3)),
    ("best: a pair per share", "bridge_best", _best(shares=[0.5, 0.5])),
    ("best: heading rows out of order", "bridge_best", _best(rows_k=[1, 0], rows_t=[0, 0], shares=[1.0, 1.0])),
    ("best: heading row out of range", "bridge_best", _best(rows_k=[1])),
    ("best: best segment without a value", "bridge_best", _best(rows_t=[1])),
    ("best: named row out of range", "bridge_best", _best(named=[[1]], named_of=[1])),
    ("best: named_of per best segment", "bridge_best", _best(named=[[1]], named_of=[0, 0])),
    ("best: heading without a size", "bridge_best", _best(named=[[1]], named_of=[0], head_at=[5])),
    ("best: named rows without their ids", "bridge_best", _best(named=[[1]], named_of=[0])[:7] + (None, None)
     + _best(named=[[1]], named_of=[0])[9:]),
]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("case", BAD, ids=lambda c: c[0])
def test_bridge_kernels_refuse_what_they_cannot_read(kernel: ModuleType, case: tuple[str, str, tuple[Any, ...]]
                                                     ) -> None:
    with pytest.raises(ValueError):
        getattr(kernel, case[1])(*case[2])


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_bridge_kernels_on_a_small_page(kernel: ModuleType) -> None:
    """Heading 0 ("Texas A&M", words 1 and 2) is named in full by best segment 3, which sits under heading 2,
    and half by segment 4 outside its section: a share of 1.0 from segment 3, two mentions."""
    up = np.asarray([-1, 0, -1, 2, 2], dtype=np.int64)
    rows = [[1, 2], [1, 2, 7], [2, 9]]  # heading 0; then best segments 3 and 1
    flat, offsets = _csr(rows)
    rows_k, rows_t, shares, n_new = kernel.bridge_shares(
        flat, offsets, 1, np.asarray([9], dtype=np.int32), np.asarray([1, 2], dtype=np.int64),
        np.asarray([0, 1, 2], dtype=np.int64), np.asarray([0], dtype=np.int64), np.asarray([3, 1], dtype=np.int64),
        up, 0.5)
    # segment 1 sits in heading 0's own section: only segment 3 (t = 0) counts
    assert (rows_k.tolist(), rows_t.tolist(), shares.tolist(), n_new.tolist()) == ([0], [0], [1.0], [2])
    docs = [[0, 1], [0, 1], [], [0, 1, 2], [1]]  # word ids 0, 1 are the heading's words; segment 1 is inside
    d_flat, d_offsets = _csr(docs)
    w_flat, w_offsets = _csr([[0, 1]])
    got = kernel.bridge_mentions(d_flat, d_offsets, 2, w_flat, w_offsets, np.asarray([1.0]), np.asarray([0]),
                                 up, np.asarray([1, 0, 1, 0, 0], dtype=np.uint8))
    assert got.tolist() == [2]


@st.composite
def credit_cases(draw: st.DrawFn) -> dict[str, Any]:
    """A page for ``TermMemo.bridge_credits``: ``top_cases``' scores and outline, a text per segment from a few
    words (so that headings, best segments and the rest share some), split units, the question's terms."""
    case = draw(top_cases())
    n = len(case["up"])
    # and words whose tokens cross a capitalised word's edge ("3-Corp" is the word "Corp"; "Smith,Jones" two
    # words, one token; "Zu\u0301rich" a mark, in a token, that no word holds), which the names read as strings
    words = st.sampled_from(["texas", "Texas", "coach", "aggies", "the", "A&M", "houston", "x", "bo", "2011",
                             "3-Corp", "Smith,Jones", "Zu\u0301rich", "Tokyo東京", "O'Neil", "U.S."])
    case["texts"] = [" ".join(draw(st.lists(words, max_size=5))) for _ in range(n)]
    case["groups"] = draw(st.none() | st.lists(st.integers(-1, 2), min_size=n, max_size=n))
    case["asked"] = set(draw(st.lists(st.sampled_from(["exas", "coach", "oach", "houston", "zz"]))))
    case["min_share"] = draw(st.sampled_from([0.5, 0.0, 1.0, 0.34]))
    case["name_bridge"] = draw(st.sampled_from([2.0, 1.0]))
    case["filtered"] = draw(st.booleans())
    return case


def _credits(kernel: ModuleType, case: dict[str, Any], as_scan: bool, memo_size: int = 1000) -> dict[int, float]:
    def filter_of(words: list[str]) -> tuple[set[str] | None, None]:
        return ({w[:2] for w in words} if case["filtered"] else None), None

    texts = kernel.scan(case["texts"]) if as_scan else case["texts"]
    return kernel.TermMemo(memo_size).bridge_credits(  # type: ignore[no-any-return]
        texts, fake_analyse, np.asarray(case["raw"], dtype=np.float64), case["heads"],
        np.asarray(case["up"], dtype=np.int64), case["groups"], case["asked"], case["top_n"], case["min_share"],
        case["name_bridge"], 4.0, filter_of)


@pytest.mark.skipif(_compiled is None, reason="the compiled core is not built")
@settings(max_examples=400, deadline=None)
@given(credit_cases(), st.booleans())
def test_compiled_credits_are_the_calls_they_stand_for(case: dict[str, Any], as_scan: bool) -> None:
    """The compiled one call gives the credits its twin gets from ``bridge_rows``, ``terms``, ``bridge_shares``,
    ``capitalised_words``, ``section_sizes``, ``bridge_best``, ``holds`` and ``bridge_mentions`` in turn (each
    checked against its definition above and in tests/test_kernel_memo.py), to the last bit."""
    assert _compiled is not None
    assert _credits(_compiled, case, as_scan) == _credits(_core_py, case, False)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=200, deadline=None)
@given(credit_cases())
def test_credits_survive_the_memo_starting_afresh(kernel: ModuleType, case: dict[str, Any]) -> None:
    """A memo of one entry starts afresh before each of the call's later reads (the names, the mentions): their
    term ids are another numbering than the pairs' then, and the credits must not change."""
    assert _credits(kernel, case, False, memo_size=1) == _credits(kernel, case, False)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_credits_on_a_small_page(kernel: ModuleType) -> None:
    """Heading 0 ("Texas", its section segment 1) is named by the best segment 3 (under heading 2) and
    mentioned by segment 4 too: the share 1.0 times segment 3's score, over two mentions outside its section;
    a question that asks "texas" itself bridges nothing."""
    texts = ["Texas", "aggies texas", "Houston", "he coaches at texas", "texas again"]
    raw = np.asarray([0.0, 0.5, 0.0, 3.0, 0.2], dtype=np.float64)
    up = np.asarray([-1, 0, -1, 2, 2], dtype=np.int64)

    def credits(asked: set[str]) -> dict[int, float]:
        return kernel.TermMemo(100).bridge_credits(  # type: ignore[no-any-return]
            texts, lambda tokens, simple: [((t.lower(),), (None,)) for t in tokens], raw, [0, 2], up, None,
            asked, 3, 0.5, 1.0, 4.0, lambda words: (None, None))

    assert credits({"coaches"}) == {0: 3.0 / 2}
    assert credits({"texas"}) == {}


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_credits_refuse_a_page_they_cannot_read(kernel: ModuleType) -> None:
    raw = np.asarray([0.0, 2.0, 1.0], dtype=np.float64)
    up = np.asarray([-1, 0, -1], dtype=np.int64)
    memo = kernel.TermMemo(100)
    args = (fake_analyse, raw, [0], up)
    rest = (set(), 3, 0.5, 1.0, 4.0, lambda words: (None, None))
    with pytest.raises(ValueError, match="one entry per segment"):
        memo.bridge_credits(["texas", "texas coach"], *args, None, *rest)
    with pytest.raises(ValueError, match="groups"):
        memo.bridge_credits(["texas", "texas coach", "x"], *args, [0], *rest)
