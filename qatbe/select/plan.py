"""Budget semantics for one document: which slots go in, which get cut to fit, and what would come in next.

Three ways to fill a budget, all on top of the knapsack's priority order:

- default: the knapsack (greedy score/token with the best-single guard, heading context), then, with
  ``truncation`` other than ``"drop"``, the best matched segment left out is cut into the space left, then the
  neighbour fill spends the rest;
- ``nested=True``: admission thresholds over one priority order (``nested.thresholds``), so the selection at a
  smaller budget is always inside the selection at a larger one.

The plan also says which chosen slot to give up first if the rendered text measures over budget (a callable
estimator need not add up over segments), and the slots left out in the order a larger budget would admit them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..render.blocks import SEPARATOR, block
from ..settings import Settings
from ..types import Segment, SegmentKind
from .knapsack import density, fill_neighbors, neighbor_order, priority_order, select
from .nested import thresholds
from .truncate import truncate


@dataclass(frozen=True)
class Plan:
    chosen: tuple[int, ...]  # document order
    matched: frozenset[int]
    drop_order: tuple[int, ...]  # chosen slots, least valuable first
    pending: tuple[int, ...]  # slots left out, next to come in first
    pending_at: tuple[int, ...] | None = None  # nested: the budget at which each pending slot comes in
    cut: dict[int, Segment] = field(default_factory=dict)  # truncated copies replacing whole segments
    cut_costs: dict[int, int] = field(default_factory=dict)


def _cost(seg: Segment, settings: Settings) -> int:
    return int(settings.estimate(block(seg, settings.render) + SEPARATOR))


def plan_nested(
    weighted: npt.NDArray[np.float64],
    costs: npt.NDArray[np.int64],
    parents: npt.NDArray[np.int64],
    matched_mask: npt.NDArray[np.bool_],
    budget: int,
    settings: Settings,
    standalone: npt.NDArray[np.bool_],
) -> Plan:
    order = priority_order(weighted, costs, matched_mask, settings.cost_exponent)
    matched_all = set(order)
    if settings.fill == "neighbors":
        # Headings come with what they head; lone ones only after everything else (see knapsack.fill_neighbors).
        rest = neighbor_order(len(costs), sorted(matched_all), matched_all)
        order = order + [i for i in rest if standalone[i]] + [i for i in rest if not standalone[i]]
    th = thresholds(order, costs, parents, include_headings=settings.include_headings)
    chosen = th.chosen(budget)
    pending = th.pending(budget)
    matched = frozenset(i for i in chosen if i in matched_all and i not in th.heading_of)
    drop_order = tuple(sorted(chosen, key=lambda i: (-th.at[i], -i)))
    return Plan(tuple(chosen), matched, drop_order, tuple(pending), tuple(th.at[i] for i in pending))


def plan_greedy(
    candidates: Sequence[Segment],
    weighted: npt.NDArray[np.float64],
    costs: npt.NDArray[np.int64],
    parents: npt.NDArray[np.int64],
    matched_mask: npt.NDArray[np.bool_],
    budget: int,
    settings: Settings,
    standalone: npt.NDArray[np.bool_],
) -> Plan:
    cutting = settings.truncation != "drop"
    selection = select(weighted, costs, parents, matched_mask, budget, include_headings=settings.include_headings,
                       fill="none" if cutting else settings.fill, standalone=standalone,
                       cost_exponent=settings.cost_exponent)
    chosen = set(selection.chosen)
    matched = set(selection.matched)
    spent = selection.spent
    cut: dict[int, Segment] = {}
    cut_costs: dict[int, int] = {}
    order = selection.order
    if cutting and budget > spent:
        left_out = [i for i in order if i not in chosen]
        if left_out:
            best = max(left_out, key=lambda i: (float(weighted[i]), -i))
            short = truncate(candidates[best], budget - spent, settings.estimate, settings.truncation,
                             settings.render)
            if short is not None:
                cut[best] = short
                cut_costs[best] = _cost(short, settings)
                chosen.add(best)
                matched.add(best)
                spent += cut_costs[best]
        if settings.fill == "neighbors" and spent < budget:
            filled, spent = fill_neighbors(costs, chosen, matched, budget, spent,
                                           parents if settings.include_headings else None, standalone)
            chosen |= filled
    value = density(weighted, costs, settings.cost_exponent)
    drop_order = tuple(sorted(chosen, key=lambda i: (i in matched, float(value[i]), -i)))
    pending = [i for i in order if i not in chosen]
    pending += neighbor_order(len(costs), sorted(matched), chosen | set(pending))
    return Plan(tuple(sorted(chosen)), frozenset(matched), drop_order, tuple(pending), None, cut, cut_costs)


def plan(
    candidates: Sequence[Segment],
    weighted: npt.NDArray[np.float64],
    costs: npt.NDArray[np.int64],
    parents: npt.NDArray[np.int64],
    matched_mask: npt.NDArray[np.bool_],
    budget: int,
    settings: Settings,
) -> Plan:
    # With headings brought along as context, a heading never competes on its own (see knapsack.fill_neighbors).
    standalone = np.array([not (settings.include_headings and s.kind is SegmentKind.HEADING) for s in candidates],
                          dtype=bool)
    matched_mask = matched_mask & standalone
    if settings.nested:
        return plan_nested(weighted, costs, parents, matched_mask, budget, settings, standalone)
    return plan_greedy(candidates, weighted, costs, parents, matched_mask, budget, settings, standalone)
