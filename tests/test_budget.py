"""Budget semantics of extract (seed 000): reserve, truncation, nested tiers, more(); the estimator guarantee."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import markdown_documents

import qatbe
from qatbe import ConfigError
from qatbe.select.truncate import MARK_END, MARK_MIDDLE

WORDS = ["passport", "fee", "renew", "photo", "post", "online", "apply", "travel", "weeks", "form", "the", "of",
         "is", "ü", "数据", "3.11", "x_y"]
word = st.sampled_from(WORDS)
document = markdown_documents(WORDS, max_blocks=14, max_heading_level=3, max_sentences=12, max_rows=14)
query = st.one_of(st.none(), st.lists(word, min_size=0, max_size=4).map(" ".join),
                  st.lists(word, min_size=1, max_size=4).map(lambda ws: qatbe.Query(" ".join(ws), agent="t")))

ESTIMATORS: dict[str, Callable[[str], int]] = {
    "chars_div4": lambda s: (len(s) + 3) // 4,
    "words": lambda s: len(s.split()),
    "whitespace": lambda s: len(s.split()),
    # Deliberately not additive over pieces: a flat charge per call, and newlines are dear.
    "lumpy": lambda s: (len(s) + 2) // 3 + (7 if s else 0) + s.count("\n"),
}
estimator = st.sampled_from(sorted(ESTIMATORS))
common = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def spec(name: str) -> str | Callable[[str], int]:
    return name if name in ("chars_div4", "words", "whitespace") else ESTIMATORS[name]


def measured(name: str, text: str) -> int:
    return ESTIMATORS[name](text) if text else 0


@common
@given(document, query, st.integers(0, 2500), st.integers(0, 600), estimator,
       st.sampled_from(["drop", "truncate_end", "truncate_middle"]), st.sampled_from(["markdown", "text"]),
       st.sampled_from(["neighbors", "none"]))
def test_output_never_exceeds_budget_less_reserve(doc: str, q: object, budget: int, reserve: int, est: str,
                                                  truncation: str, render: str, fill: str) -> None:
    if reserve and reserve >= budget:  # nothing left for the text: refused, not an empty result
        with pytest.raises(ConfigError, match="reserve_tokens"):
            qatbe.extract(doc, q, budget=budget, reserve_tokens=reserve)
        return
    r = qatbe.extract(doc, q, budget=budget, reserve_tokens=reserve, estimator=spec(est), truncation=truncation,
                      render=render, fill=fill)
    assert measured(est, r.text) == r.total_tokens <= max(budget - reserve, 0)
    again = qatbe.extract(doc, q, budget=budget, reserve_tokens=reserve, estimator=spec(est),
                          truncation=truncation, render=render, fill=fill)
    assert again.text == r.text and again.segments == r.segments


@common
@given(document, query, st.integers(0, 1500), estimator, st.booleans())
def test_dropped_count_and_tokens_are_exact(doc: str, q: object, budget: int, est: str, nested: bool) -> None:
    r = qatbe.extract(doc, q, budget=budget, estimator=spec(est), nested=nested)
    every = [s for s in qatbe.segment(doc, estimator=spec(est), budget=budget, nested=nested) if s.kind is not qatbe.SegmentKind.NAVIGATION]
    kept = {s.index for s in r.segments}
    assert r.dropped_count == sum(1 for s in every if s.index not in kept)
    assert r.dropped_tokens == sum(s.tokens for s in every if s.index not in kept)
    assert r.was_truncated == (r.dropped_count > 0)


# Estimators that add up over the rendered blocks; one that does not ("lumpy") may force a give-up after
# selection, which keeps the budget but not nesting (documented in qatbe/select/nested.py).
additive = st.sampled_from(["chars_div4", "words", "whitespace"])


@common
@given(document, query, st.lists(st.integers(0, 3000), min_size=2, max_size=4), additive)
def test_nested_selections_are_nested_for_any_budgets(doc: str, q: object, budgets: list[int], est: str) -> None:
    budgets.sort()
    picks = [{s.index for s in qatbe.extract(doc, q, budget=b, nested=True, estimator=spec(est)).segments}
             for b in budgets]
    for small, large in itertools.pairwise(picks):
        assert small <= large


@common
@given(document, query)
def test_nested_tiers_key_facts_in_summary_in_detailed(doc: str, q: object) -> None:
    key, summary, detailed = (
        {s.index for s in qatbe.extract(doc, q, tier=t, nested=True).segments}
        for t in ("key_facts", "summary", "detailed")
    )
    assert key <= summary <= detailed


@common
@given(document, query, st.integers(0, 1200), st.integers(0, 1200))
def test_nested_more_is_exactly_what_a_larger_budget_adds(doc: str, q: object, budget: int, extra: int) -> None:
    r = qatbe.extract(doc, q, budget=budget, nested=True)
    larger = qatbe.extract(doc, q, budget=budget + extra, nested=True)
    added = {s.index for s in larger.segments} - {s.index for s in r.segments}
    assert {s.index for s in r.more(extra)} == added


@common
@given(document, query, st.integers(0, 1200), st.integers(0, 400))
def test_more_offers_only_segments_left_out_and_fits_the_extra_room(doc: str, q: object, budget: int,
                                                                    extra: int) -> None:
    r = qatbe.extract(doc, q, budget=budget)
    nxt = r.more(extra)
    assert not {s.index for s in nxt} & {s.index for s in r.segments}
    assert sum(s.tokens for s in nxt) <= budget - r.total_tokens + extra
    assert len({s.index for s in nxt}) == len(nxt)


DOC = """# Passport renewal

Renewing a passport online costs 75 pounds and takes three weeks. """ + " ".join(
    f"Sentence {i} explains one more detail of the renewal process for adults abroad." for i in range(12)) + """

## Photos

Your photo must be recent.

## Unrelated

The agency was founded long ago and moved offices twice.
"""


def test_reserve_tokens_is_subtracted_from_the_budget() -> None:
    full = qatbe.extract(DOC, "renewal", budget=300)
    reserved = qatbe.extract(DOC, "renewal", budget=300, reserve_tokens=150)
    assert reserved.total_tokens <= 150 < full.total_tokens
    assert reserved.budget == 300 and reserved.reserve_tokens == 150
    with pytest.raises(ConfigError, match="reserve_tokens=500 leaves nothing"):
        qatbe.extract(DOC, "renewal", budget=300, reserve_tokens=500)


def test_reserve_and_options_are_validated() -> None:
    for bad in ({"reserve_tokens": -1}, {"truncation": "cut"}, {"ranking": "random"}, {"nested": "yes"},
                {"citation_buffer": -5}, {"nested": True, "truncation": "truncate_end"}):
        with pytest.raises(ConfigError):
            qatbe.extract(DOC, "x", **bad)
    with pytest.raises(ConfigError):
        qatbe.extract(DOC, "x").more(-1)


@pytest.mark.parametrize("strategy,marker", [("truncate_end", MARK_END), ("truncate_middle", MARK_MIDDLE)])
def test_truncation_fills_the_space_a_drop_would_leave(strategy: str, marker: str) -> None:
    long_one = "# Section seven\n\n" + " ".join(f"Renewal step {i} has a fee." for i in range(20))
    # One paragraph larger than the budget (pinned unit size: by default it would be split for a small budget).
    dropped = qatbe.extract(long_one, "renewal fee", budget=100, fill="none", max_segment_tokens=160)
    cut = qatbe.extract(long_one, "renewal fee", budget=100, fill="none", truncation=strategy,
                        max_segment_tokens=160)
    assert dropped.text == "" and marker in cut.text
    assert cut.total_tokens <= 100 and cut.text.startswith("Renewal step 0 has a fee.")
    assert cut.truncated_count == 1 and cut.was_truncated


def test_query_object_is_accepted_like_its_text() -> None:
    q = qatbe.Query("photo", agent="helper", tags=("travel",))
    assert qatbe.extract(DOC, q, budget=60).text == qatbe.extract(DOC, "photo", budget=60).text


def test_nested_key_facts_is_a_prefix_of_summary_on_a_real_page() -> None:
    a = qatbe.extract(DOC, "renewal photo", budget=40, nested=True)
    b = qatbe.extract(DOC, "renewal photo", budget=200, nested=True)
    assert a.segments and {s.index for s in a.segments} < {s.index for s in b.segments}
    assert a.more(160) and {s.index for s in a.more(160)} == {s.index for s in b.segments} - {
        s.index for s in a.segments}
