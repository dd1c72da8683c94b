"""The numpy selector and the extract body as they were before the list-based rewrite (qatbe/select/knapsack.py,
nested.py, plan.py and Extractor.extract in qatbe/pipeline.py at c974838), kept verbatim (but for the imports and
names) as the reference the rewrite must equal (tests/test_select_reference.py)."""

# ruff: noqa
# mypy: ignore-errors
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

import time

from qatbe._backend import BACKEND
from qatbe.errors import ConfigError
from qatbe.explain import explain
from qatbe.pipeline import Extractor, _check_query, spend_savings
from qatbe.records import with_outcome
from qatbe.render import render
from qatbe.render.blocks import SEPARATOR, block
from qatbe.result import Result
from qatbe.score import score_segments
from qatbe.score.bm25 import heading_ancestors
from qatbe.select.truncate import truncate
from qatbe.settings import Settings
from qatbe.types import Segment, SegmentKind

# The greedy's key is score / cost ** exponent (see ``density``); Settings.cost_exponent, this by default.
COST_EXPONENT = 0.5


def density(scores: npt.NDArray[np.float64], costs: npt.NDArray[np.int64],
            exponent: float = COST_EXPONENT) -> npt.NDArray[np.float64]:
    """The greedy's sort key: score per token cost raised to ``exponent`` (default: per square root of the cost;
    ``exponent=1`` is the textbook score-per-token density of the knapsack greedy, ``0`` ranks by score alone).

    Why not score per token: BM25 already divides term frequency by the segment's length (``b``), so a short
    segment with one query word scores nearly as high as a long one with the same word, and dividing that again
    by the full cost ranks every two-line fragment ("Fee", "£335") above the paragraph that answers. The square
    root still prefers the cheaper of two equal scores. Measured at 200 tokens on the dev QA sets
    (benchmarks/retention_quick.py): conditionalqa 0.732 -> 0.761, wikitable 0.585 -> 0.596, hotpot 0.725 ->
    0.741, squad 0.897 -> 0.905; exponent 0.75 lay in between.
    """
    return np.where(costs > 0, scores / np.maximum(costs, 1) ** exponent, 0.0)


@dataclass(frozen=True)
class Selection:
    """Chosen candidate slots in document order, and how each got in."""

    chosen: tuple[int, ...]
    matched: frozenset[int]
    headings: frozenset[int]
    filled: frozenset[int]
    spent: int
    order: tuple[int, ...] = ()  # the matched slots in the greedy's priority order (``priority_order``)


def _greedy(
    order: Sequence[int],
    costs: npt.NDArray[np.int64],
    parents: npt.NDArray[np.int64],
    budget: int,
    include_headings: bool,
    seed: int | None = None,
) -> tuple[list[int], set[int], int]:
    taken: list[int] = []
    heads: set[int] = set()
    in_set: set[int] = set()
    spent = 0

    def admit(i: int) -> bool:
        nonlocal spent
        if i in in_set:
            return False
        cost = int(costs[i])
        parent = int(parents[i]) if include_headings else -1
        if parent >= 0 and parent not in in_set and spent + cost + int(costs[parent]) <= budget:
            in_set.update((i, parent))
            taken.append(i)
            heads.add(parent)
            spent += cost + int(costs[parent])
            return True
        if spent + cost <= budget:
            in_set.add(i)
            taken.append(i)
            spent += cost
            return True
        return False

    if seed is not None:
        admit(seed)
    for i in order:
        if i in heads:  # already in as a heading; now it counts as chosen on its own merit
            heads.discard(i)
            taken.append(i)
            continue
        admit(i)
    return taken, heads, spent


def select(
    scores: npt.NDArray[np.float64],
    costs: npt.NDArray[np.int64],
    parents: npt.NDArray[np.int64],
    matched_mask: npt.NDArray[np.bool_],
    budget: int,
    *,
    include_headings: bool = True,
    fill: str = "neighbors",
    standalone: npt.NDArray[np.bool_] | None = None,
    cost_exponent: float = COST_EXPONENT,
) -> Selection:
    """Choose slots (indices into the candidate arrays, which are in document order) within ``budget``."""
    if len(scores) == 0:
        return Selection((), frozenset(), frozenset(), frozenset(), 0)
    order = priority_order(scores, costs, matched_mask, cost_exponent)
    if budget <= 0:
        return Selection((), frozenset(), frozenset(), frozenset(), 0, tuple(order))

    taken, heads, spent = _greedy(order, costs, parents, budget, include_headings)
    fits = [i for i in order if costs[i] <= budget]
    if fits:
        best = max(fits, key=lambda i: (scores[i], -i))
        if best not in taken:
            alt_taken, alt_heads, alt_spent = _greedy(order, costs, parents, budget, include_headings, seed=best)
            if float(scores[alt_taken].sum()) > float(scores[taken].sum()):
                taken, heads, spent = alt_taken, alt_heads, alt_spent

    matched = set(taken)
    chosen = matched | heads
    filled: set[int] = set()
    if fill == "neighbors" and spent < budget:
        filled, spent = fill_neighbors(costs, chosen, matched, budget, spent,
                                       parents if include_headings else None, standalone)
    chosen |= filled
    return Selection(tuple(sorted(chosen)), frozenset(matched), frozenset(heads), frozenset(filled), spent,
                     tuple(order))


def priority_order(
    scores: npt.NDArray[np.float64], costs: npt.NDArray[np.int64], matched_mask: npt.NDArray[np.bool_],
    cost_exponent: float = COST_EXPONENT,
) -> list[int]:
    """Matched slots by ``density``, descending; ties by position (the greedy's order)."""
    positions = np.arange(len(scores))
    value = density(scores, costs, cost_exponent)
    match_idx = np.flatnonzero(matched_mask)
    # Sort by density descending, then by position ascending (lexsort sorts by the last key first).
    return match_idx[np.lexsort((positions[match_idx], -value[match_idx]))].tolist()  # type: ignore[no-any-return]


def neighbor_order(n: int, anchors: Sequence[int], exclude: set[int] | frozenset[int]) -> list[int]:
    """Slots not in ``exclude``, nearest to an anchor first (ties by position); reading order without anchors."""
    anchor_arr = np.array(sorted(anchors), dtype=np.int64)
    rest = np.array([i for i in range(n) if i not in exclude], dtype=np.int64)
    if not rest.size:
        return []
    if anchor_arr.size:
        slot = np.searchsorted(anchor_arr, rest)
        left = np.abs(rest - anchor_arr[np.clip(slot - 1, 0, anchor_arr.size - 1)])
        right = np.abs(anchor_arr[np.clip(slot, 0, anchor_arr.size - 1)] - rest)
        distance = np.minimum(left, right)
    else:
        distance = np.zeros(rest.size, dtype=np.int64)
    return rest[np.lexsort((rest, distance))].tolist()  # type: ignore[no-any-return]


def fill_neighbors(
    costs: npt.NDArray[np.int64],
    chosen: set[int],
    anchors: set[int],
    budget: int,
    spent: int,
    parents: npt.NDArray[np.int64] | None = None,
    standalone: npt.NDArray[np.bool_] | None = None,
) -> tuple[set[int], int]:
    """Spend what is left on the segments nearest to ``anchors`` (see the module docstring); returns (filled, spent).

    Slots that may not stand alone (headings: a heading with nothing under it is wasted budget) come in only with
    a filled segment they head, charged with it; once every other slot is in, the rest of them come too, so a
    budget that fits the whole document keeps the whole document.
    """
    filled: set[int] = set()
    taken = set(chosen)
    for i in neighbor_order(len(costs), sorted(anchors), chosen):
        if spent >= budget:
            break
        if i in taken or (standalone is not None and not standalone[i]):
            continue
        cost = int(costs[i])
        parent = int(parents[i]) if parents is not None else -1
        if parent >= 0 and parent not in taken and spent + cost + int(costs[parent]) <= budget:
            filled.update((i, parent))
            taken.update((i, parent))
            spent += cost + int(costs[parent])
        elif spent + cost <= budget:
            filled.add(i)
            taken.add(i)
            spent += cost
    if standalone is not None and all(standalone[i] <= (i in taken) for i in range(len(costs))):
        for i in range(len(costs)):
            if i not in taken and spent + int(costs[i]) <= budget:
                filled.add(i)
                taken.add(i)
                spent += int(costs[i])
    return filled, spent


@dataclass(frozen=True)
class Thresholds:
    """``at[i]``: the smallest budget whose selection holds slot ``i``; ``heading_of``: slots that came as a heading."""

    at: dict[int, int]
    heading_of: dict[int, int]

    def chosen(self, budget: int) -> list[int]:
        return sorted(i for i, t in self.at.items() if t <= budget)

    def pending(self, budget: int) -> list[int]:
        """Slots not in the selection at ``budget``, in the order a growing budget would bring them in."""
        return sorted((i for i, t in self.at.items() if t > budget), key=lambda i: (self.at[i], i))


def thresholds(
    order: Sequence[int],
    costs: npt.NDArray[np.int64],
    parents: npt.NDArray[np.int64],
    *,
    include_headings: bool = True,
) -> Thresholds:
    """Admission thresholds for the slots in ``order`` (highest priority first)."""
    steps = np.zeros(0, dtype=np.int64)  # sorted thresholds given so far
    weights = np.zeros(0, dtype=np.int64)  # cost admitted at each step
    at: dict[int, int] = {}
    heading_of: dict[int, int] = {}
    for i in order:
        if i in at:
            continue
        unit = [i]
        parent = int(parents[i]) if include_headings else -1
        if parent >= 0 and parent not in at:
            unit.append(parent)
        cost = int(sum(int(costs[j]) for j in unit))
        if steps.size:
            cumulative = np.cumsum(weights)
            below = np.flatnonzero(steps - cumulative < cost)
            t = int(cumulative[below[-1]]) + cost if below.size else cost
        else:
            t = cost
        slot = int(np.searchsorted(steps, t, side="right"))
        steps = np.insert(steps, slot, t)
        weights = np.insert(weights, slot, cost)
        for j in unit:
            at[j] = t
        if len(unit) == 2:
            heading_of[parent] = i
    return Thresholds(at, heading_of)


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


def measure(segments: Sequence[Segment], settings: Settings) -> npt.NDArray[np.int64]:
    """Cost of each segment as it will appear in the output, its share of the separator included."""
    estimate = settings.estimate
    fmt = settings.render
    costs = np.empty(len(segments), dtype=np.int64)
    for i, seg in enumerate(segments):
        value = estimate(block(seg, fmt) + SEPARATOR)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ConfigError(f"the estimator must return a non-negative int, it returned {value!r}")
        costs[i] = value
    return costs


def heading_parents(segments: Sequence[Segment]) -> npt.NDArray[np.int64]:
    return np.array([chain[0] if chain else -1 for chain in heading_ancestors(segments)], dtype=np.int64)


def extract(self: Extractor, source: str | bytes, query: object = None) -> Result:
    """``Extractor.extract`` at c974838, run with ``self``'s settings."""
    started = time.perf_counter()
    settings = self.settings
    query_text = _check_query(query)
    budget = settings.effective_budget
    doc = self.parse(source)

    candidates = [
        s for s in doc.segments if settings.include_navigation or s.kind is not SegmentKind.NAVIGATION
    ]
    costs = measure(candidates, settings)
    # The page's declared language (<html lang>) beats detection; an explicit option beats both.
    score_settings = settings
    if settings.language is None and doc.metadata.language:
        score_settings = self._with_language(doc.metadata.language)
    scores = score_segments(candidates, query_text, score_settings)
    weights = np.array([settings.weights[s.kind] for s in candidates], dtype=np.float64)
    weighted = scores.raw * weights if candidates else np.zeros(0)
    # Only segments above the relative floor compete as matches; the rest may still fill leftover budget.
    matched_mask = weighted > 0.0
    if scores.relevant is not None:
        matched_mask &= scores.relevant
    chosen_plan = plan(candidates, weighted, costs, heading_parents(candidates), matched_mask, budget, settings)
    for i, short in chosen_plan.cut.items():  # truncated copies stand in for the whole segments
        candidates[i] = short
        costs[i] = chosen_plan.cut_costs[i]

    chosen = list(chosen_plan.chosen)
    estimate = settings.estimate
    text = render([candidates[i] for i in chosen], settings.render)
    # Added after c974838: the tokens the text costs less than its segments are planned again (pipeline.spend_savings,
    # here over this module's plan).
    if not settings.nested and not chosen_plan.cut:
        parents = heading_parents(candidates)
        chosen_plan, chosen, text = spend_savings(
            lambda b: plan(candidates, weighted, costs, parents, matched_mask, b, settings), chosen_plan, chosen,
            text, candidates, costs, budget, settings)
    # The per-segment costs bound the total for the built-in estimators; a custom estimator may not add up,
    # so the rendered text is measured and the least valuable segment dropped until it fits.
    given_up: list[int] = []
    drop_order = list(chosen_plan.drop_order)
    while chosen and estimate(text) > budget:
        worst = drop_order.pop(0)
        chosen.remove(worst)
        given_up.append(worst)
        text = render([candidates[i] for i in chosen], settings.render)

    chosen_set = set(chosen)

    def record(i: int) -> Segment:
        return with_outcome(candidates[i], int(costs[i]), float(weighted[i]), i in chosen_plan.matched)

    out = tuple(record(i) for i in chosen)
    dropped = [i for i in range(len(candidates)) if i not in chosen_set]
    pending = [i for i in given_up[::-1] if i not in chosen_plan.cut] + list(chosen_plan.pending)
    pending_at = None
    if chosen_plan.pending_at is not None:
        pending_at = (budget + 1,) * len(given_up) + chosen_plan.pending_at
    return Result(
        text=text,
        total_tokens=estimate(text) if text else 0,
        segments=out,
        budget=settings.token_budget,
        tier=settings.tier if settings.budget is None else None,
        query=query_text,
        format=doc.format,
        dropped_count=len(dropped),
        dropped_tokens=int(costs[dropped].sum()) if dropped else 0,
        reserve_tokens=settings.reserve_tokens,
        truncated_count=sum(1 for i in chosen_plan.cut if i in chosen_set),
        pending=tuple(record(i) for i in pending),
        pending_at=pending_at,
        no_match=bool(scores.query_terms) and not bool(matched_mask.any()),
        evaluation_time_ms=(time.perf_counter() - started) * 1000.0,
        metadata=doc.metadata,
        backend=BACKEND,
        _explain=lambda: explain(self._measured(doc.segments), candidates, scores, weights, costs, chosen_set,
                                 chosen_plan.matched, bool(scores.query_terms), self.settings.cost_exponent),
    )
