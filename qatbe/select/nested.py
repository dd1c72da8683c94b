"""Nested selection: one priority order, one admission threshold per segment, any budget is a prefix.

With ``nested=True`` the ``key_facts`` selection must sit inside ``summary``'s, which sits inside ``detailed``'s.
Greedy packing per budget does not give that: a large segment admitted at a larger budget can push out small ones
that a smaller budget kept. So each segment gets a *threshold*, the smallest budget from which it is in, chosen
in priority order such that for every budget ``B`` the segments with threshold ≤ ``B`` cost at most ``B``.
Selections are then ``{i : t_i <= B}``, nested by construction for every pair of budgets, not only the tiers.

A segment of cost ``c`` gets the smallest ``t`` such that the slack ``B - F(B)`` stays ≥ ``c`` for every
``B ≥ t`` (``F(B)``: the cost of the segments already given thresholds ≤ ``B``). The slack only drops at earlier
thresholds and grows between them, so ``t = F(s_K) + c`` where ``s_K`` is the last threshold whose slack is below
``c`` (0 when there is none). A segment brings along, at the same threshold and charged with it, the slots it needs
(``knapsack.bundle``) and its context (its heading, as the greedy selector does, and a lead-in into it). The price
of nesting: a small segment that a larger budget would displace is not shown at a smaller one either. Nesting is exact for estimators that add up over rendered blocks (all the built-in ones); with
another callable, the final measurement of the text may give up a segment, which keeps the budget but can break
nesting for that budget.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from .knapsack import bundle, context_of


@dataclass(frozen=True)
class Thresholds:
    """``at[i]``: the smallest budget whose selection holds slot ``i``; ``heading_of``: slots that came as context
    (a heading, a lead-in), each with the slot it came with."""

    at: dict[int, int]
    heading_of: dict[int, int]

    def chosen(self, budget: int) -> list[int]:
        return sorted(i for i, t in self.at.items() if t <= budget)

    def pending(self, budget: int) -> list[int]:
        """Slots not in the selection at ``budget``, in the order a growing budget would bring them in."""
        return sorted((i for i, t in self.at.items() if t > budget), key=lambda i: (self.at[i], i))


def thresholds(
    order: Sequence[int],
    costs: Sequence[int],
    parents: Sequence[int],
    *,
    include_headings: bool = True,
    needs: Sequence[int] | None = None,
) -> Thresholds:
    """Admission thresholds for the slots in ``order`` (highest priority first).

    Plain lists and integers: a page has tens of slots, and the numpy version (a cumulative sum, a search and two
    inserts per slot) spent its time in numpy's per-call cost."""
    steps: list[int] = []  # sorted thresholds given so far
    weights: list[int] = []  # cost admitted at each step
    at: dict[int, int] = {}
    heading_of: dict[int, int] = {}
    for i in order:
        if i in at:
            continue
        content = bundle(i, needs, at)
        unit = content + context_of(content, parents if include_headings else None, at, needs)
        cost = sum(int(costs[j]) for j in unit)
        t = cost
        if steps:
            cumulative = list(accumulate(weights))
            for k in range(len(steps) - 1, -1, -1):  # the last threshold whose slack is below the cost
                if steps[k] - cumulative[k] < cost:
                    t = cumulative[k] + cost
                    break
        slot = bisect_right(steps, t)
        steps.insert(slot, t)
        weights.insert(slot, cost)
        for j in unit:
            at[j] = t
        for j in unit[len(content):]:
            heading_of[j] = i
    return Thresholds(at, heading_of)
