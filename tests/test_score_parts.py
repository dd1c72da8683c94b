"""The scorer's per-segment structure helpers agree with the plain loops that define them (the bonuses built on
them are checked in tests/test_kernel_page.py)."""

from __future__ import annotations

from dataclasses import MISSING

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe.score.bm25 import _best_above, _chain, _section_sizes, _under, heading_ancestors
from qatbe.types import Segment, SegmentKind


def _segments(levels: list[int]) -> list[Segment]:
    """A heading of that level for each level > 0, a paragraph for each 0."""
    return [Segment(SegmentKind.HEADING if lv else SegmentKind.PARAGRAPH, "t", "t", i, i, level=lv)
            for i, lv in enumerate(levels)]


def _up(levels: list[int]) -> list[int]:
    """``page_scores``'s ``up``: the first of each segment's heading ancestors (-1: none)."""
    return [anc[0] if anc else -1 for anc in heading_ancestors(_segments(levels))]


@settings(max_examples=200, deadline=None)
@given(st.data(), st.lists(st.integers(0, 3), max_size=12))
def test_credits_as_a_list_give_the_best_credited_heading_above(data: st.DataObject, levels: list[int]) -> None:
    """The bridges pass heading credits as a plain list with 0 for uncredited segments: credits are never
    negative, so those zeros cannot beat a credited heading, and a section with no credited heading gets 0."""
    heads = [i for i, lv in enumerate(levels) if lv]
    credit = data.draw(st.dictionaries(st.sampled_from(heads), st.floats(0.0, 5.0))) if heads else {}
    ancestors = heading_ancestors(_segments(levels))
    want = [max((credit[h] for h in anc if h in credit), default=0.0) for anc in ancestors]
    values = [credit.get(i, 0.0) for i in range(len(levels))]
    assert _best_above(_up(levels), values) == want


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=12))
def test_heading_chains_say_which_sections_a_segment_sits_in(levels: list[int]) -> None:
    ancestors = heading_ancestors(_segments(levels))
    up = _up(levels)
    for i in range(len(levels)):
        assert [h for h in range(len(levels)) if _under(up, i, h)] == sorted(ancestors[i])
    is_heading = [lv > 0 for lv in levels]
    want = {h: sum(1 for i, anc in enumerate(ancestors) if h in anc and not is_heading[i])
            for h in range(len(levels)) if is_heading[h]}
    assert _section_sizes(up, is_heading) == {h: k for h, k in want.items() if k}


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
        assert _chain(up, i) == {h for h in range(len(levels)) if _under(up, i, h)}
