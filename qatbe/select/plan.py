"""Budget semantics for one document: which slots go in, which get cut to fit, and what would come in next.

Two ways to fill a budget, both on top of the knapsack's priority order:

- default: the knapsack (greedy score/token with the best-single guard, heading context; the best match's split
  paragraph first when it fits its share of the budget: ``whole_paragraph_first``), then, with
  ``truncation`` other than ``"drop"``, the best matched segment left out is cut into the space left, then the
  neighbour fill spends the rest;
- ``nested=True``: admission thresholds over one priority order (``nested.thresholds``), so the selection at a
  smaller budget is always inside the selection at a larger one.

The plan also says which chosen slot to give up first if the rendered text measures over budget (a callable
estimator need not add up over segments), and the slots left out in the order a larger budget would admit them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from ..render.blocks import SEPARATOR, block
from ..score.links import ends_lead_in
from ..settings import Settings
from ..types import Segment, SegmentKind
from .knapsack import (
    Bools,
    Floats,
    Ints,
    as_list,
    densities,
    fill_slots,
    neighbor_order,
    pack,
    priority_slots,
    settle,
)
from .nested import thresholds
from .truncate import truncate


class Plan(NamedTuple):
    """What ``plan`` decided. A named tuple, not a frozen dataclass: one is made per extraction, and the
    dataclass's ``__init__`` (one ``object.__setattr__`` per field) cost more than the decisions it recorded."""

    chosen: tuple[int, ...]  # document order
    matched: frozenset[int]
    # The chosen slots, least valuable first, computed when asked: only a text over budget needs it, which the
    # built-in estimators never produce (their per-segment costs add up), so it is usually never asked for.
    drop_order: Callable[[], tuple[int, ...]]
    pending: tuple[int, ...]  # slots left out, next to come in first
    pending_at: tuple[int, ...] | None  # nested: the budget at which each pending slot comes in
    cut: dict[int, Segment]  # truncated copies replacing whole segments
    cut_costs: dict[int, int]


# Segments without a letter or a digit ("* * *", a lone "►") fill only once everything else is in (``plan``):
# they cost tokens and tell the reader nothing. Answer retention does not depend on it (retention_quick
# --const select.plan.WORDLESS_LAST=0 compares).
WORDLESS_LAST = True


_ALNUM = re.compile(r"[^\W_]")


def wordless(text: str) -> bool:
    """No letter and no digit: a rule, a bracket, a bullet left alone. (Most texts start with one: one test.)"""
    return not text[:1].isalnum() and _ALNUM.search(text) is None


# What a slot may not appear without (``needs_of``; ``knapsack.settle`` completes or gives up what the greedy took,
# the fill takes a slot only with what it needs): a lead-in ("You can renew online if all of the following
# apply:") with the block it leads into, and a later part of a split numbered list (the step "5. Post your old
# passport ...") with the list's first part. Either alone reads as a sentence cut off or a step out of context,
# so when what it needs does not fit, it is given up and its tokens go to the fill, which spends them nearest to
# what the greedy took (the given-up slots included: they matched the query). Only numbered lists: the items of a
# bulleted list stand alone. A lead-in is one sentence: a paragraph that says something before the sentence that
# leads into a list is content and kept on its own merit.
_ORDERED = re.compile(r"\s*\d+[.)]\s")
_SENTENCE_END = re.compile(r"[.!?\u3002](?:\s|$)(?!$)")


def lead_in(seg: Segment) -> bool:
    """A text that only leads into the block after it: not a heading, its last visible character a colon
    (``score.links.ends_lead_in``, as the scorer's lead-in share reads it), and one sentence."""
    return (seg.kind is not SegmentKind.HEADING and ends_lead_in(seg.text)
            and _SENTENCE_END.search(seg.text.rstrip()) is None)


def needs_of(segments: Sequence[Segment]) -> list[int] | None:
    """For each slot, the slot it may not appear without, -1 for none; None when no slot needs one (most pages).

    - a lead-in (``lead_in``) needs the next segment, when that one is not a heading, has a letter or a digit,
      and is not a part of the same split unit (there the colon is where the splitter cut);
    - a part after the first of a split numbered list needs the list's first part: a later step carries on from the first ones (table row groups repeat their header, and a
      paragraph's sentences stand alone better).
    """
    needs: list[int] | None = None
    first_part: dict[int, int] = {}
    last = len(segments) - 1
    list_kind = SegmentKind.LIST
    for i, seg in enumerate(segments):
        group = seg.group
        need = -1
        if group >= 0 and seg.part == 0:
            first_part[group] = i
        if seg.part > 0 and group >= 0 and seg.kind is list_kind and _ORDERED.match(seg.markdown) is not None:
            need = first_part.get(group, -1)
        elif i < last and lead_in(seg):
            nxt = segments[i + 1]
            if (nxt.kind is not SegmentKind.HEADING and (group < 0 or nxt.group != group)
                    and not wordless(nxt.text)):
                need = i + 1
        if need >= 0:
            if needs is None:
                needs = [-1] * len(segments)
            needs[i] = need
    return needs


# The best match comes with the rest of its paragraph when the splitter cut that paragraph into parts and the
# whole paragraph costs at most a share of the budget (``whole_paragraph_first``): its other sentences say who
# or what the matched sentence is about, and keep the fact a question needs in its context.
# - When another match outside that paragraph scores at least ``CLOSE_MATCH`` of the best, the question may need
#   both places (a multi-hop question names two things): the paragraph may take at most
#   ``WHOLE_PARAGRAPH_SHARE`` of the budget, and the rest still goes to the next matches.
# - When the best match stands alone (nothing else scores that close), the question is about that one place,
#   and its paragraph may take the whole budget.
WHOLE_PARAGRAPH_SHARE = 0.5
CLOSE_MATCH = 0.5


def paragraph_units(segments: Sequence[Segment]) -> list[int] | None:
    """For each slot, the first slot of the split paragraph it is a part of, -1 for any other slot; None when no
    paragraph of the page was split (most pages)."""
    units: list[int] | None = None
    first: dict[int, int] = {}
    paragraph = SegmentKind.PARAGRAPH
    for i, seg in enumerate(segments):
        if seg.kind is paragraph and seg.group >= 0:
            if seg.part == 0:
                first[seg.group] = i
            elif seg.group in first:
                if units is None:
                    units = [-1] * len(segments)
                units[i] = units[first[seg.group]] = first[seg.group]
    return units


def whole_paragraph_first(order: list[int], scores: Sequence[float], costs: Sequence[int],
                          units: Sequence[int] | None, room: int) -> list[int]:
    """``order`` with the paragraph of its best-scoring slot in front (that slot, then the paragraph's other parts
    in document order), when that slot is a part of a split paragraph (``paragraph_units``) and the whole
    paragraph fits its share of ``room``: all of it when no slot of ``order`` outside the paragraph scores
    ``CLOSE_MATCH`` of the best or more, ``WHOLE_PARAGRAPH_SHARE`` otherwise. Else ``order`` itself."""
    if units is None or not order:
        return order
    top = max(order, key=lambda i: (scores[i], -i))
    unit = units[top]
    if unit < 0:
        return order
    parts = [i for i in range(unit, len(units)) if units[i] == unit]
    close = CLOSE_MATCH * scores[top]
    share = 1.0
    for i in order:
        if scores[i] >= close and units[i] != unit:
            share = WHOLE_PARAGRAPH_SHARE
            break
    if sum(costs[i] for i in parts) > share * room:
        return order
    front = [top] + [i for i in parts if i != top]
    inside = set(front)
    return front + [i for i in order if i not in inside]


def split_context(taken: list[int], order: list[int], greedy_order: list[int]) -> tuple[list[int], set[int]]:
    """The slots the greedy took in ``greedy_order``, as (matches, context): the parts that came with the best
    match's paragraph (``whole_paragraph_first``) without being in ``order``, the matched slots, are context."""
    if greedy_order is order:
        return taken, set()
    eligible = set(order)
    return [i for i in taken if i in eligible], {i for i in taken if i not in eligible}


def _cost(seg: Segment, settings: Settings) -> int:
    return int(settings.estimate(block(seg, settings.render) + SEPARATOR))


def source_order(slots: Iterable[int], candidates: Sequence[Segment]) -> tuple[int, ...]:
    """``slots`` in the order their text stands in the source (``Segment.start``; by slot on a tie), which the
    output keeps. The slots' own order is the walk's, which emits some blocks after later ones: a list opened
    before a paragraph inside it ("<ul><b>Minimum:</b><ul><li>...") holds items that follow that paragraph."""
    return tuple(sorted(slots, key=lambda i: (candidates[i].start, i)))


def plan_nested(
    candidates: Sequence[Segment],
    order: list[int],
    costs: list[int],
    parents: list[int],
    budget: int,
    settings: Settings,
    lone: set[int],
    needs: list[int] | None = None,
) -> Plan:
    matched_all = set(order)
    if settings.fill == "neighbors":
        # Headings come with what they head; lone ones only after everything else (see knapsack.fill_neighbors).
        rest = neighbor_order(len(costs), matched_all, matched_all)
        order = order + [i for i in rest if i not in lone] + [i for i in rest if i in lone]
    th = thresholds(order, costs, parents, include_headings=settings.include_headings, needs=needs)
    chosen = th.chosen(budget)
    pending = th.pending(budget)
    matched = frozenset(i for i in chosen if i in matched_all and i not in th.heading_of)

    def drop_order() -> tuple[int, ...]:
        return tuple(sorted(chosen, key=lambda i: (-th.at[i], -i)))

    return Plan(source_order(chosen, candidates), matched, drop_order, tuple(pending),
                tuple(th.at[i] for i in pending), {}, {})


def plan_greedy(
    candidates: Sequence[Segment],
    weighted: list[float],
    costs: list[int],
    parents: list[int],
    order: list[int],
    budget: int,
    settings: Settings,
    lone: set[int],
    needs: list[int] | None = None,
    units: list[int] | None = None,
) -> Plan:
    anchors: set[int] = set()  # where the fill looks: what the greedy took, settle's give-ups included
    context: set[int] = set()  # parts of the best match's paragraph that did not match themselves
    if not costs or budget <= 0:
        taken: list[int] = []
        heads: set[int] = set()
        spent = 0
    else:
        greedy_order = whole_paragraph_first(order, weighted, costs, units, budget)
        taken, heads, spent, _ = pack(weighted, costs, parents, greedy_order, budget, settings.include_headings)
        anchors = set(taken)
        if needs is not None:
            taken, heads, spent = settle(taken, heads, spent, costs, parents if settings.include_headings else None,
                                         needs, budget)
        taken, context = split_context(taken, order, greedy_order)
    matched = set(taken)
    chosen = matched | heads | context
    cut: dict[int, Segment] = {}
    cut_costs: dict[int, int] = {}
    if settings.truncation != "drop" and budget > spent:
        # (a slot that needs one left out is not cut in alone)
        left_out = [i for i in order if i not in chosen and (needs is None or needs[i] < 0 or needs[i] in chosen)]
        if left_out:
            best = max(left_out, key=lambda i: (weighted[i], -i))
            short = truncate(candidates[best], budget - spent, settings.estimate, settings.truncation,
                             settings.render)
            if short is not None:
                cut[best] = short
                cut_costs[best] = _cost(short, settings)
                chosen.add(best)
                matched.add(best)
                spent += cut_costs[best]
    near: list[int] | None = None  # the slots not chosen, nearest to the matched ones first (made when needed)
    if settings.fill == "neighbors" and spent < budget:
        filled, spent, near = fill_slots(anchors | matched, costs, chosen, budget, spent,
                                         parents if settings.include_headings else None, lone, needs)
        chosen |= filled

    def drop_order() -> tuple[int, ...]:
        """Least valuable first: filler before matched, then by density, then the later slot first. The slots
        are put in descending position order, so a stable sort on the density alone keeps that last tie-break."""
        value = densities(weighted, costs, settings.cost_exponent)
        by_position = sorted(chosen, reverse=True)
        return tuple(sorted([i for i in by_position if i not in matched], key=value.__getitem__)
                     + sorted([i for i in by_position if i in matched], key=value.__getitem__))

    pending: list[int] = []
    if len(chosen) < len(costs):
        pending = [i for i in order if i not in chosen]
        pending_set = set(pending)
        if near is None:
            near = neighbor_order(len(costs), matched, chosen)
        pending += [i for i in near if i not in chosen and i not in pending_set]
    return Plan(source_order(chosen, candidates), frozenset(matched), drop_order, tuple(pending), None, cut,
                cut_costs)


class Prepared(NamedTuple):
    """What a plan needs that does not depend on the budget (``prepare``): planning the same document again for
    another budget (``pipeline.spend_savings``) starts from here instead of from the segments."""

    candidates: Sequence[Segment]
    weighted: list[float]
    costs: list[int]
    parents: list[int]
    order: list[int]  # the matched slots that may stand alone, in priority order
    lone: set[int]
    settings: Settings
    needs: list[int] | None  # ``needs_of`` the candidates
    units: list[int] | None  # ``paragraph_units`` of the candidates


def prepare(
    candidates: Sequence[Segment],
    weighted: Floats,
    costs: Ints,
    parents: Ints,
    matched_mask: Bools,
    settings: Settings,
) -> Prepared:
    """The budget-free part of ``plan``. The arrays may be numpy arrays or lists; the work is done on lists of
    Python scalars (see ``knapsack``: a page has tens of candidates, and numpy's per-call cost would be most
    of this stage). Lists are used as they are, not copied: they must not change while the plan is in use (its
    drop order is computed when asked, from ``weighted`` and ``costs``)."""
    # With headings brought along as context, a heading never competes on its own (see knapsack.fill_neighbors).
    # Nor does a segment without a letter or a digit ("___", ")", "* * *"): it fills only once all else is in.
    lone: set[int] = {i for i, s in enumerate(candidates) if wordless(s.text)} if WORDLESS_LAST else set()
    if settings.include_headings:
        heading = SegmentKind.HEADING
        lone |= {i for i, s in enumerate(candidates) if s.kind is heading}
    needs = needs_of(candidates)
    slots = [i for i, m in enumerate(as_list(matched_mask)) if m and i not in lone]
    weight_list: list[float] = as_list(weighted)
    cost_list: list[int] = as_list(costs)
    order = priority_slots(densities(weight_list, cost_list, settings.cost_exponent, slots), slots)
    return Prepared(candidates, weight_list, cost_list, as_list(parents), order, lone, settings, needs,
                    paragraph_units(candidates))


def plan_prepared(p: Prepared, budget: int) -> Plan:
    """The plan for ``budget`` tokens of a prepared document (nothing in ``p`` is changed)."""
    if p.settings.nested:
        return plan_nested(p.candidates, p.order, p.costs, p.parents, budget, p.settings, p.lone, p.needs)
    return plan_greedy(p.candidates, p.weighted, p.costs, p.parents, p.order, budget, p.settings, p.lone, p.needs,
                       p.units)


def plan(
    candidates: Sequence[Segment],
    weighted: Floats,
    costs: Ints,
    parents: Ints,
    matched_mask: Bools,
    budget: int,
    settings: Settings,
) -> Plan:
    """The plan for one document: ``prepare`` then ``plan_prepared``."""
    return plan_prepared(prepare(candidates, weighted, costs, parents, matched_mask, settings), budget)
