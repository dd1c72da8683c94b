"""The scorer's per-segment structure helpers agree with the plain loops that define them (the bonuses built on
them are checked in tests/test_kernel_page.py)."""

from __future__ import annotations

import os
from dataclasses import MISSING

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe import _core_py
from qatbe._core_py_bridges import _chain_above
from qatbe.score.bm25 import heading_ancestors
from qatbe.settings import Scoring
from qatbe.types import Segment, SegmentKind

try:
    from qatbe import _core as _compiled
except ImportError:
    _compiled = None

KERNELS = [_core_py] + ([_compiled] if _compiled is not None else [])


def _segments(levels: list[int]) -> list[Segment]:
    """A heading of that level for each level > 0, a paragraph for each 0."""
    return [Segment(SegmentKind.HEADING if lv else SegmentKind.PARAGRAPH, "t", "t", i, i, level=lv)
            for i, lv in enumerate(levels)]


def _up(levels: list[int]) -> list[int]:
    """``page_scores``'s ``up``: the first of each segment's heading ancestors (-1: none)."""
    return [anc[0] if anc else -1 for anc in heading_ancestors(_segments(levels))]


def _under(up: list[int], i: int, h: int) -> bool:
    """Does segment ``i`` sit in the section of heading ``h``: is ``h`` on its walk up the chain of headings?"""
    k = up[i]
    while k >= 0:
        if k == h:
            return True
        k = up[k]
    return False


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=200, deadline=None)
@given(st.data(), st.lists(st.integers(0, 3), max_size=12))
def test_each_segment_gets_the_best_credit_of_the_headings_above_it(kernel: object, data: st.DataObject,
                                                                    levels: list[int]) -> None:
    """A segment's bridge credit is the best credit among its heading ancestors (0 with none credited): read per
    heading down the chains and then off ``up``, it must equal the definition over the ancestors."""
    heads = [i for i, lv in enumerate(levels) if lv]
    credit = data.draw(st.dictionaries(st.sampled_from(heads), st.floats(0.0, 5.0))) if heads else {}
    ancestors = heading_ancestors(_segments(levels))
    want = [max((credit[h] for h in anc if h in credit), default=0.0) for anc in ancestors]
    up = np.array(_up(levels), dtype=np.int64)
    values = np.array(list(credit.values()), dtype=np.float64)
    got = kernel.section_best(heads, up, list(credit), values)  # type: ignore[attr-defined]
    assert got.tolist() == want and got.dtype == np.float64
    # scaled (the bridges' share): the same floats as numpy's multiplication of the unscaled row
    scale = data.draw(st.sampled_from([0.3, 1.0, 0.0, 2.5]) | st.floats(0.0, 3.0))
    scaled = kernel.section_best(heads, up, list(credit), values, scale)  # type: ignore[attr-defined]
    assert scaled.tolist() == (scale * got).tolist()


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.0, 10.0) | st.sampled_from([0.0, 2.5]), max_size=12), st.sampled_from([0.0, 0.3, 1.0]))
def test_the_floor_is_cut_as_numpy_reads_it(kernel: object, scores: list[float], floor: float) -> None:
    """``floor_cut`` (the scorer's relevance floor after the bridges and the number cue): the best score and which
    scores are positive and at least ``floor`` times it, to the bit, ties with the best included."""
    raw = np.array(scores, dtype=np.float64)
    best = float(raw.max()) if scores else 0.0
    got_best, got = kernel.floor_cut(raw, floor)  # type: ignore[attr-defined]
    assert got_best == best
    assert got.tolist() == ((raw > 0) & (raw >= floor * best)).tolist() and got.dtype == np.bool_


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=12))
def test_heading_chains_say_which_sections_a_segment_sits_in(kernel: object, levels: list[int]) -> None:
    ancestors = heading_ancestors(_segments(levels))
    up = _up(levels)
    for i in range(len(levels)):
        assert [h for h in range(len(levels)) if _under(up, i, h)] == sorted(ancestors[i])
    is_heading = [lv > 0 for lv in levels]
    want = {h: sum(1 for i, anc in enumerate(ancestors) if h in anc and not is_heading[i])
            for h in range(len(levels)) if is_heading[h]}
    heads = [h for h in range(len(levels)) if is_heading[h]]
    got = kernel.section_sizes(heads, np.array(up, dtype=np.int64))  # type: ignore[attr-defined]
    assert got.tolist() == [want.get(i, 0) for i in range(len(levels))] and got.dtype == np.int64


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("call", [
    lambda k: k.section_sizes([1, 0], np.array([-1, 0], dtype=np.int64)),
    lambda k: k.section_sizes([2], np.array([-1, 0], dtype=np.int64)),
    lambda k: k.section_sizes([0], np.array([1, -1], dtype=np.int64)),
    lambda k: k.section_best([0], np.array([-1, 0], dtype=np.int64), [5], np.ones(1)),
    lambda k: k.section_best([0], np.array([-1, 0], dtype=np.int64), [0, 1], np.ones(1)),
    lambda k: k.section_best([0, 0], np.array([-1, 0], dtype=np.int64), [], np.ones(0)),
], ids=["heads out of order", "head not a segment", "up after the segment", "credited not a segment",
        "a credit per heading", "a heading twice"])
def test_section_kernels_refuse_what_they_cannot_read(kernel: object, call: object) -> None:
    with pytest.raises(ValueError):
        call(kernel)  # type: ignore[operator]


def _plain_ancestors(segments: list[Segment]) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    stack: list[tuple[int, int]] = []
    above: tuple[int, ...] = ()
    for i, seg in enumerate(segments):
        if seg.kind is SegmentKind.HEADING:
            while stack and stack[-1][0] >= seg.level:
                stack.pop()
            enclosing = tuple(j for _, j in reversed(stack))
            out.append(enclosing)
            stack.append((seg.level, i))
            above = (i, *enclosing)
        else:
            out.append(above)
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=16))
def test_heading_ancestors_follow_the_plain_loop_and_runs_share_one_tuple(levels: list[int]) -> None:
    segments = _segments(levels)
    got = heading_ancestors(segments)
    assert got == _plain_ancestors(segments)
    for i in range(1, len(levels)):
        if not levels[i] and not levels[i - 1]:
            assert got[i] is got[i - 1]  # one tuple per run of segments under one heading


def test_scores_made_in_one_dict_update_are_the_dataclass_instance() -> None:
    """``bm25._scores`` fills ``__dict__`` as ``Scores.__init__`` does: same fields, same order, same objects."""
    from dataclasses import fields

    from qatbe.score.bm25 import Scores, _scores

    values: list[object] = [np.zeros(3), ("a",), np.ones(3, dtype=bool), "en", (1.0,)]
    values += [np.full(3, float(k)) for k in range(7)] + [lambda: np.zeros((3, 1))]
    fast, slow = _scores(*values), Scores(*values)
    assert type(fast) is Scores and list(vars(fast)) == list(vars(slow)) == [f.name for f in fields(Scores)]
    assert all(a is b for a, b in zip(vars(fast).values(), vars(slow).values()))
    assert not hasattr(Scores, "__post_init__") and all(f.default_factory is MISSING for f in fields(Scores))
    assert fast.term_contributions.shape == (3, 1) and fast.any_match is False


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=12))
def test_a_segments_chain_holds_the_headings_it_sits_under(levels: list[int]) -> None:
    up = _up(levels)
    for i in range(len(levels)):
        assert _chain_above(list(up), i) == {h for h in range(len(levels)) if _under(up, i, h)}


def _near_words_brute(terms: list[str], n_typed: int, df: list[int], vocab: dict[str, int]) -> list[tuple[int, str]]:
    """prefix_matches written out: each missing typed word against every page term in vocab order."""
    prefix_min = Scoring().prefix_min
    known = set(terms)
    out = []
    for j, t in enumerate(terms[:n_typed]):
        if len(t) < prefix_min or df[j]:
            continue
        for page_term in vocab:
            if page_term in known or not page_term.startswith(t[:prefix_min]):
                continue
            common = len(os.path.commonprefix([t, page_term]))
            if common >= max(prefix_min, min(len(t), len(page_term)) - 2):
                out.append((j, page_term))
                known.add(page_term)
    return out


_STEMS = ["septic", "mongol", "passpo", "renewa", "abcdef"]
_near_term = st.builds(lambda s, tail: s + tail, st.sampled_from(_STEMS), st.text("aeimnrst", max_size=5))


@settings(max_examples=200, deadline=None)
@given(query=st.lists(st.one_of(_near_term, st.text("abc", min_size=1, max_size=7)), min_size=1, max_size=40,
                      unique=True),
       page=st.lists(st.one_of(_near_term, st.text("abcz", min_size=1, max_size=9)), max_size=60, unique=True),
       data=st.data())
def test_near_words_are_the_brute_force_ones_for_short_and_long_queries(query: list[str], page: list[str],
                                                                         data: st.DataObject) -> None:
    """Up to 16 missing words are searched in the joined pool, more through a table of heads: same pairs, same
    order, each page term given to the first word that claims it."""
    from qatbe.score.bm25 import prefix_matches

    n_typed = data.draw(st.integers(0, len(query)))
    df = data.draw(st.lists(st.integers(0, 2), min_size=len(query), max_size=len(query)))
    vocab = {t: i for i, t in enumerate(query + [""] + [p for p in page if p not in query])}
    got = prefix_matches(query, n_typed, np.asarray(df, dtype=np.int64), vocab, Scoring().prefix_min)
    assert got == _near_words_brute(query, n_typed, df, vocab)


@pytest.mark.parametrize("n_words", [3, 16, 17, 40])
def test_near_words_of_many_missing_words_keep_the_page_order(n_words: int) -> None:
    """Either side of the 16-word switch: every missing word shares its head with several page terms, so the
    pairs' order and which word claims a term depend on reading the pool in page order."""
    from qatbe.score.bm25 import prefix_matches

    query = [f"passpo{'r' * (i % 3)}t{'s' * (i // 3)}x{i}" for i in range(n_words)]
    page = ["passportz", "passporta", "passpoxx", "passporte", "mongolian", "passportsx"]
    vocab = {t: i for i, t in enumerate(query + [""] + page)}
    df = np.zeros(len(query), dtype=np.int64)
    got = prefix_matches(query, len(query), df, vocab, Scoring().prefix_min)
    assert got and got == _near_words_brute(query, len(query), df.tolist(), vocab)
