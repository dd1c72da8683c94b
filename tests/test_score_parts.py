"""The array forms of the scorer's per-segment bonuses agree with the plain loops that define them."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe.score.bm25 import (
    _sibling_scores,
    heading_ancestors,
    inherited_scores,
    lead_in_scores,
)
from qatbe.types import Segment, SegmentKind

scores = st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25]) | st.floats(0.0, 10.0), max_size=12)


def _plain_siblings(groups: list[int], raw: list[float]) -> list[float]:
    out = [0.0] * len(groups)
    for i, g in enumerate(groups):
        if g < 0:
            continue
        if i > 0 and groups[i - 1] == g:
            out[i] = raw[i - 1]
        if i + 1 < len(groups) and groups[i + 1] == g and raw[i + 1] > out[i]:
            out[i] = raw[i + 1]
    return out


@settings(max_examples=300, deadline=None)
@given(st.data(), scores)
def test_sibling_scores_follow_the_plain_loop(data: st.DataObject, raw: list[float]) -> None:
    groups = data.draw(st.lists(st.integers(-1, 2), min_size=len(raw), max_size=len(raw)))
    got = _sibling_scores(np.array(groups, dtype=np.int64), np.array(raw, dtype=np.float64))
    assert got.tolist() == _plain_siblings(groups, raw)


@settings(max_examples=200, deadline=None)
@given(st.data(), scores)
def test_lead_in_scores_follow_the_plain_loop(data: st.DataObject, raw: list[float]) -> None:
    n = len(raw)
    texts = data.draw(st.lists(st.sampled_from(["Fees:", "You can:  ", "text", "a：", "", ": no"]), min_size=n,
                               max_size=n))
    heads = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    want = [raw[i - 1] if i and texts[i - 1].rstrip().endswith((":", "：")) and not heads[i] else 0.0
            for i in range(n)]
    assert lead_in_scores(texts, heads, np.array(raw, dtype=np.float64)).tolist() == want


@settings(max_examples=200, deadline=None)
@given(st.data(), scores)
def test_inherited_scores_are_the_best_heading_above(data: st.DataObject, raw: list[float]) -> None:
    n = len(raw)
    levels = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))  # 0: not a heading
    segments = [Segment(SegmentKind.HEADING if lv else SegmentKind.PARAGRAPH, "t", "t", i, i, level=lv)
                for i, lv in enumerate(levels)]
    ancestors = heading_ancestors(segments)
    want = [max(raw[j] for j in anc) if anc else 0.0 for anc in ancestors]
    assert inherited_scores(ancestors, np.array(raw, dtype=np.float64)).tolist() == want


@settings(max_examples=200, deadline=None)
@given(st.data(), st.lists(st.integers(0, 3), max_size=12))
def test_credits_as_a_list_give_the_best_credited_heading_above(data: st.DataObject, levels: list[int]) -> None:
    """bridge_scores passes heading credits as a plain list with 0 for uncredited segments: credits are never
    negative, so those zeros cannot beat a credited heading, and a section with no credited heading gets 0."""
    segments = [Segment(SegmentKind.HEADING if lv else SegmentKind.PARAGRAPH, "t", "t", i, i, level=lv)
                for i, lv in enumerate(levels)]
    heads = [i for i, lv in enumerate(levels) if lv]
    credit = data.draw(st.dictionaries(st.sampled_from(heads), st.floats(0.0, 5.0))) if heads else {}
    ancestors = heading_ancestors(segments)
    want = [max((credit[h] for h in anc if h in credit), default=0.0) for anc in ancestors]
    values = [credit.get(i, 0.0) for i in range(len(levels))]
    assert inherited_scores(ancestors, values).tolist() == want


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
    segments = [Segment(SegmentKind.HEADING if lv else SegmentKind.PARAGRAPH, "t", "t", i, i, level=lv)
                for i, lv in enumerate(levels)]
    got = heading_ancestors(segments)
    assert got == _plain_ancestors(segments)
    for i in range(1, len(levels)):
        if not levels[i] and not levels[i - 1]:
            assert got[i] is got[i - 1]  # inherited_scores takes one maximum per run
