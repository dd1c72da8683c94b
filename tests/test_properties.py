"""Invariants of extract() on random documents, queries, budgets and estimators (hypothesis)."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import markdown_documents, queries

import qatbe

document = markdown_documents()
query = queries()

ESTIMATORS: dict[str, Callable[[str], int]] = {
    "chars_div4": lambda s: (len(s) + 3) // 4,
    "words": lambda s: len(s.split()),
    # Deliberately non-additive: a flat charge per call plus one per 3 characters.
    "lumpy": lambda s: (len(s) + 2) // 3 + (5 if s else 0),
    "bytes": lambda s: len(s.encode("utf-8")),
}
estimator_name = st.sampled_from(sorted(ESTIMATORS))
common = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _estimator(name: str) -> str | Callable[[str], int]:
    return name if name in ("chars_div4", "words") else ESTIMATORS[name]


@common
@given(document, query, st.integers(0, 3000), estimator_name, st.sampled_from(["markdown", "text"]))
def test_never_over_budget(doc: str, q: str | None, budget: int, est: str, render: str) -> None:
    r = qatbe.extract(doc, q, budget=budget, estimator=_estimator(est), render=render)
    measured = ESTIMATORS[est](r.text) if r.text else 0
    assert measured == r.total_tokens <= budget


@common
@given(document, query, st.sampled_from(sorted(qatbe.TIERS)))
def test_never_over_any_tier(doc: str, q: str | None, tier: str) -> None:
    r = qatbe.extract(doc, q, tier=tier)
    assert r.total_tokens <= qatbe.TIERS[tier]


@common
@given(document, query, st.integers(0, 800))
def test_same_input_same_output(doc: str, q: str | None, budget: int) -> None:
    a = qatbe.extract(doc, q, budget=budget)
    b = qatbe.extract(doc.encode("utf-8"), q, budget=budget)
    assert a.text == b.text and a.segments == b.segments


@common
@given(document, query, st.integers(0, 800))
def test_chosen_segments_in_document_order(doc: str, q: str | None, budget: int) -> None:
    r = qatbe.extract(doc, q, budget=budget)
    positions = [(s.index, s.position) for s in r.segments]
    assert positions == sorted(positions)
    assert [s.position for s in r.segments] == sorted(s.position for s in r.segments)


@common
@given(document, query)
def test_everything_kept_when_everything_fits(doc: str, q: str | None) -> None:
    every = qatbe.segment(doc, max_segment_tokens=160)
    budget = sum(s.tokens for s in every)
    r = qatbe.extract(doc, q, budget=budget, max_segment_tokens=160)
    assert [s.index for s in r.segments] == [s.index for s in every]
    assert r.dropped_count == 0


@common
@given(document, query, st.integers(0, 600))
def test_dropped_accounting(doc: str, q: str | None, budget: int) -> None:
    every = qatbe.segment(doc, budget=budget)
    r = qatbe.extract(doc, q, budget=budget)
    kept = {s.index for s in r.segments}
    assert r.dropped_count == sum(1 for s in every if s.index not in kept)
    assert r.dropped_tokens == sum(s.tokens for s in every if s.index not in kept)


@common
@given(document, query, st.integers(0, 1500))
def test_no_heading_without_its_content(doc: str, q: str | None, budget: int) -> None:
    """A heading costs tokens and answers nothing alone: it comes only with a segment it heads, unless the
    whole of the content is already in."""
    r = qatbe.extract(doc, q, budget=budget)
    content = [s for s in r.segments if s.kind is not qatbe.SegmentKind.HEADING]
    every_content = [s for s in qatbe.segment(doc, budget=budget) if s.kind is not qatbe.SegmentKind.HEADING]
    if len(content) == len(every_content):
        return
    for h in (s for s in r.segments if s.kind is qatbe.SegmentKind.HEADING):
        assert any(s.index > h.index and s.heading_path[-1:] == (h.text,) for s in content), h
