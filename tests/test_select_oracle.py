"""The selector against short, obviously correct oracles on tiny inputs (brute force where it is cheap).

``select.knapsack`` serves ``extract`` (one document, a plain budget) and ``extract_many`` (a ``Ledger`` that adds
each document's citation envelope and a per-document cap). The oracles here are written from the definitions,
not from the code: the textbook greedy with the best-single guard, every subset for the optimum, the
ledger's charge summed over the documents a subset touches.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe.select import knapsack

_SCORES = st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, 7.25]) | st.floats(0.01, 20.0)
_COSTS = st.sampled_from([1, 2, 3, 5, 8, 13, 40]) | st.integers(1, 60)


def _textbook(scores: list[float], costs: list[int], budget: int, exponent: float) -> set[int]:
    """Greedy by score / cost**exponent (ties: lower index), each item that still fits; then the same greedy
    started from the best single item that fits (ties: lower index); the pass with the higher total score wins
    (the first on a tie)."""
    order = sorted(range(len(scores)), key=lambda i: (-(scores[i] / costs[i] ** exponent), i))

    def greedy(start: list[int]) -> list[int]:
        taken: list[int] = []
        spent = 0
        for i in start + order:
            if i not in taken and spent + costs[i] <= budget:
                taken.append(i)
                spent += costs[i]
        return taken

    first = greedy([])
    fits = [i for i in range(len(scores)) if costs[i] <= budget]
    if not fits:
        return set(first)
    best = min(fits, key=lambda i: (-scores[i], i))
    if best in first:
        return set(first)
    second = greedy([best])
    return set(second) if math.fsum(scores[i] for i in second) > math.fsum(scores[i] for i in first) else set(first)


def _optimum(scores: list[float], costs: list[int], budget: int) -> float:
    best = 0.0
    for r in range(len(scores) + 1):
        for subset in itertools.combinations(range(len(scores)), r):
            if sum(costs[i] for i in subset) <= budget:
                best = max(best, math.fsum(scores[i] for i in subset))
    return best


@st.composite
def items(draw: st.DrawFn) -> tuple[list[float], list[int]]:
    n = draw(st.integers(0, 8))
    return (draw(st.lists(_SCORES, min_size=n, max_size=n)), draw(st.lists(_COSTS, min_size=n, max_size=n)))


@settings(max_examples=300, deadline=None)
@given(items(), st.integers(0, 120))
def test_pack_without_headings_is_the_textbook_greedy_and_at_least_half_the_optimum(
        page: tuple[list[float], list[int]], budget: int) -> None:
    scores, costs = page
    order = knapsack.priority_slots(knapsack.densities(scores, costs, 1.0), list(range(len(scores))))
    got = knapsack.pack(scores, costs, [-1] * len(scores), order, budget, False)
    assert set(got.taken) == _textbook(scores, costs, budget, 1.0)
    assert got.heads == set() and got.spent == sum(costs[i] for i in got.taken) <= budget
    # The guard's promise for the 0/1 knapsack (density = score per token): never below half the optimum.
    assert 2 * math.fsum(scores[i] for i in got.taken) >= _optimum(scores, costs, budget) - 1e-9


@st.composite
def documents(draw: st.DrawFn) -> tuple[list[float], list[int], list[int], list[int], list[int]]:
    """Up to 7 slots over up to 3 documents: scores, costs, document of each slot, heading of each slot (an
    earlier slot of the same document, or -1), envelope of each document."""
    n_docs = draw(st.integers(1, 3))
    n = draw(st.integers(0, 7))
    doc_of = sorted(draw(st.lists(st.integers(0, n_docs - 1), min_size=n, max_size=n)))
    parents = []
    for i in range(n):
        same = [j for j in range(i) if doc_of[j] == doc_of[i]]
        parents.append(draw(st.sampled_from([-1, *same])))
    return (draw(st.lists(_SCORES, min_size=n, max_size=n)), draw(st.lists(_COSTS, min_size=n, max_size=n)),
            doc_of, parents, draw(st.lists(st.integers(0, 12), min_size=n_docs, max_size=n_docs)))


def _charge(slots: set[int], costs: list[int], doc_of: list[int], entry: list[int], fixed: int) -> int:
    """What a set of slots costs under citations: the slots, each document touched once, the sources list once."""
    touched = {doc_of[i] for i in slots}
    return sum(costs[i] for i in slots) + sum(entry[d] for d in touched) + (fixed if slots else 0)


@settings(max_examples=300, deadline=None)
@given(documents(), st.integers(0, 150), st.integers(0, 10), st.sampled_from([None, 10, 40]), st.booleans(),
       st.booleans())
def test_the_ledger_never_overspends_and_keeps_the_cap(
        page: tuple[list[float], list[int], list[int], list[int], list[int]], budget: int, fixed: int,
        cap: int | None, headings: bool, guard: bool) -> None:
    scores, costs, doc_of, parents, entry = page
    order = knapsack.priority_slots(knapsack.densities(scores, costs), list(range(len(scores))))
    got = knapsack.pack(scores, costs, parents, order, budget, headings, guard=guard,
                        ledger=lambda: knapsack.Ledger(costs, doc_of, entry, budget, fixed, cap))
    assert got.ledger is not None
    chosen = set(got.taken) | got.heads
    assert got.spent == _charge(chosen, costs, doc_of, entry, fixed) <= budget
    assert sorted(got.ledger.order) == sorted(chosen)  # each slot admitted once, headings included
    for d in set(doc_of):
        own = sum(costs[i] for i in chosen if doc_of[i] == d)
        assert cap is None or own <= cap
        assert got.ledger.doc_tokens[d] == own
    assert not got.heads & set(got.taken)
    assert got.heads <= set(parents)  # a slot comes in as a heading only as some slot's heading
    if cap is None and _charge(set(range(len(costs))), costs, doc_of, entry, fixed) <= budget:
        assert chosen == set(range(len(costs)))  # everything fits: everything is taken


@settings(max_examples=300, deadline=None)
@given(documents(), st.integers(0, 150), st.booleans())
def test_a_ledger_that_charges_nothing_extra_selects_as_the_plain_budget(
        page: tuple[list[float], list[int], list[int], list[int], list[int]], budget: int, headings: bool) -> None:
    """extract and extract_many run the same greedy: without envelopes and cap, the two accounts agree."""
    scores, costs, doc_of, parents, entry = page
    order = knapsack.priority_slots(knapsack.densities(scores, costs), list(range(len(scores))))
    plain = knapsack.pack(scores, costs, parents, order, budget, headings)
    free = knapsack.pack(scores, costs, parents, order, budget, headings,
                         ledger=lambda: knapsack.Ledger(costs, doc_of, [0] * len(entry), budget, 0, None))
    assert (plain.taken, plain.heads, plain.spent) == (free.taken, free.heads, free.spent)


@settings(max_examples=300, deadline=None)
@given(st.lists(_SCORES | st.just(0.0), max_size=30), st.lists(_COSTS | st.integers(-3, 10**5), max_size=30),
       st.sampled_from([0.5, 1.0, 0.0, 0.3, 0.75, 1, 0]))
def test_densities_are_the_formula_bit_for_bit(scores: list[float], costs: list[int], exponent: float) -> None:
    """density = score / max(cost, 1) ** exponent for a positive cost, 0 otherwise (numpy's arithmetic)."""
    n = min(len(scores), len(costs))
    s, c = np.array(scores[:n], dtype=np.float64), np.array(costs[:n], dtype=np.int64)
    want = np.where(c > 0, s / np.maximum(c, 1) ** exponent, 0.0).tolist()
    for got in (knapsack.densities(s, c, exponent), knapsack.densities(scores[:n], costs[:n], exponent)):
        assert [x.hex() for x in got] == [x.hex() for x in want]
        assert all(type(x) is float for x in got)


def test_the_default_exponent_takes_the_python_path_here() -> None:
    """numpy >= 2 computes a scalar power of 0.5 as a square root, so densities can compute in Python; where it
    does not, densities keeps numpy's arithmetic (same bits, slower): a skip, not a failure."""
    assert not knapsack._exact(0.3)  # only exponents numpy turns into sqrt, a copy or ones are checked
    if not knapsack._exact(0.5):
        pytest.skip(f"numpy {np.__version__} computes x ** 0.5 with pow: densities uses numpy's arithmetic")
    assert knapsack._exact(1.0) and knapsack._exact(0.0)
