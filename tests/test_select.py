"""The knapsack selector: budget, guard, heading context, fill, determinism."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qatbe
from qatbe import ConfigError, Settings
from qatbe.select import select
from qatbe.select.knapsack import priority_order


def _arrays(scores: list[float], costs: list[int], parents: list[int] | None = None):
    n = len(scores)
    s = np.array(scores, dtype=np.float64)
    return s, np.array(costs, dtype=np.int64), np.array(parents or [-1] * n, dtype=np.int64), s > 0


def test_best_single_guard_beats_density_greedy() -> None:
    # Greedy by density takes the small item first and then cannot fit the big one.
    s, c, p, m = _arrays([4.0, 10.0], [1, 10])
    assert priority_order(s, c, m) == [0, 1]
    chosen = select(s, c, p, m, 10, fill="none").chosen
    assert chosen == (1,)


def test_ties_break_by_position() -> None:
    s, c, p, m = _arrays([1.0, 1.0, 1.0], [5, 5, 5])
    assert select(s, c, p, m, 10, fill="none").chosen == (0, 1)


def test_heading_comes_along_and_is_charged() -> None:
    s, c, p, m = _arrays([0.0, 5.0, 0.0], [3, 5, 4], [-1, 0, 0])
    sel = select(s, c, p, m, 8, fill="none")
    assert sel.chosen == (0, 1) and sel.headings == frozenset({0}) and sel.spent == 8
    # Without room for the heading the segment still comes in alone.
    sel = select(s, c, p, m, 6, fill="none")
    assert sel.chosen == (1,) and not sel.headings


def test_heading_chosen_on_merit_is_not_lost() -> None:
    s, c, p, m = _arrays([2.0, 5.0], [3, 5], [-1, 0])
    sel = select(s, c, p, m, 100, fill="none")
    assert sel.chosen == (0, 1) and sel.matched == frozenset({0, 1})


def test_fill_prefers_neighbours_of_matches() -> None:
    s, c, p, m = _arrays([0, 0, 0, 0, 9.0, 0, 0], [2] * 7)
    sel = select(s, c, p, m, 6, fill="neighbors")
    assert sel.matched == frozenset({4}) and sel.filled == frozenset({3, 5})
    assert select(s, c, p, m, 6, fill="none").chosen == (4,)


def test_no_match_fills_in_reading_order() -> None:
    s, c, p, m = _arrays([0.0] * 5, [3] * 5)
    assert select(s, c, p, m, 9, fill="neighbors").chosen == (0, 1, 2)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 10, allow_nan=False), st.integers(1, 30)), min_size=1, max_size=9),
       st.integers(0, 80))
def test_within_budget_and_at_least_half_the_optimum(items: list[tuple[float, int]], budget: int) -> None:
    s, c, p, m = _arrays([x for x, _ in items], [y for _, y in items])
    sel = select(s, c, p, m, budget, fill="none")
    assert int(c[list(sel.chosen)].sum()) <= budget
    best = 0.0
    for r in range(len(items) + 1):
        for combo in itertools.combinations(range(len(items)), r):
            if c[list(combo)].sum() <= budget:
                best = max(best, float(s[list(combo)].sum()))
    assert float(s[list(sel.chosen)].sum()) >= best / 2 - 1e-9


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 5, allow_nan=False), st.integers(1, 20), st.integers(-1, 3)),
                min_size=1, max_size=30), st.integers(0, 200))
def test_fill_and_headings_never_exceed_budget(items: list[tuple[float, int, int]], budget: int) -> None:
    parents = [p if p < i else -1 for i, (_, _, p) in enumerate(items)]
    s, c, p, m = _arrays([x for x, _, _ in items], [y for _, y, _ in items], parents)
    sel = select(s, c, p, m, budget)
    assert int(c[list(sel.chosen)].sum()) == sel.spent <= budget
    assert list(sel.chosen) == sorted(set(sel.chosen))
    if int(c.sum()) <= budget:
        assert sel.chosen == tuple(range(len(items)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 5, allow_nan=False), st.integers(1, 20), st.integers(-1, 3)),
                min_size=1, max_size=12), st.sampled_from([10**6, 2**62, 2**63, 10**30]))
def test_a_budget_beyond_any_page_selects_as_one_that_fits_it_all(items: list[tuple[float, int, int]],
                                                                   budget: int) -> None:
    # Compiled, the selector sums costs in C integers and compares them with min(budget, 2**62): budgets past
    # the machine's integers must neither overflow nor choose otherwise than a budget that just fits the page.
    parents = [p if p < i else -1 for i, (_, _, p) in enumerate(items)]
    s, c, p, m = _arrays([x for x, _, _ in items], [y for _, y, _ in items], parents)
    assert select(s, c, p, m, budget) == select(s, c, p, m, int(c.sum()))
    assert select(s, c, p, m, budget, fill="none") == select(s, c, p, m, int(c.sum()), fill="none")
    assert len(qatbe.extract("<p>One sentence here.</p><p>And another one.</p>", "sentence", budget=budget).segments) == 2


def test_a_fragment_does_not_outrank_a_paragraph_scoring_far_more() -> None:
    """Scores are already length-normalised: a 10-token fragment at a third of the score of a 40-token paragraph
    comes after it (score per token would put it first), while of two equal scores the cheaper still leads."""
    s, c, _, m = _arrays([1.0, 3.0], [10, 40])
    assert priority_order(s, c, m) == [1, 0]
    s, c, _, m = _arrays([2.0, 2.0], [40, 10])
    assert priority_order(s, c, m) == [1, 0]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0.01, 100.0), st.integers(1, 500)), min_size=2, max_size=12))
def test_priority_prefers_more_score_at_equal_cost_and_less_cost_at_equal_score(
    items: list[tuple[float, int]]
) -> None:
    s, c, _, m = _arrays([x for x, _ in items], [y for _, y in items])
    rank = {slot: r for r, slot in enumerate(priority_order(s, c, m))}
    for i, j in itertools.combinations(range(len(items)), 2):
        if c[i] == c[j] and s[i] > s[j]:
            assert rank[i] < rank[j]
        if s[i] == s[j] and c[i] < c[j]:
            assert rank[i] < rank[j]


def test_cost_exponent_sets_how_much_cost_counts_against_score() -> None:
    # A two-word fragment (score 2, cost 2) against the paragraph that answers (score 9, cost 30).
    s, c, p, m = _arrays([2.0, 9.0], [2, 30])
    assert priority_order(s, c, m, 1.0) == [0, 1]  # per token: 1.0 vs 0.3
    assert priority_order(s, c, m, 0.5) == [1, 0]  # per square root: 1.41 vs 1.64
    assert priority_order(s, c, m, 0.0) == [1, 0]  # score alone
    assert select(s, c, p, m, 30, fill="none", cost_exponent=1.0).chosen == (1,)  # the guard still holds


@given(st.floats(-5, 5, allow_nan=False))
def test_cost_exponent_is_validated(value: float) -> None:
    if 0.0 <= value <= 1.0:
        assert Settings(cost_exponent=value).cost_exponent == value
    else:
        with pytest.raises(ConfigError, match="cost_exponent"):
            Settings(cost_exponent=value)


def test_a_wordless_segment_fills_only_once_all_else_is_in() -> None:
    """A segment without a letter or a digit ("* * *", a lone "►") may not stand alone: the fill spends the budget on
    the next words first, and takes it only when everything else is in."""
    doc = ("The fee is five crowns.\n\n* * *\n\nMaps of the town are sold here.\n\n"
           "More words about other things entirely, at length.")
    texts = [s.text for s in qatbe.extract(doc, "fee", budget=16, format="text").segments]
    assert texts == ["The fee is five crowns.", "Maps of the town are sold here."]
    every = qatbe.extract(doc, "fee", budget=100, format="text")
    assert [s.text for s in every.segments][1] == "* * *" and every.dropped_count == 0
