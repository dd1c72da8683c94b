"""Selection stage: which segments fit the budget.

Greedy by weighted score per square root of the token cost (``density``: the classic score-per-token heuristic for
the 0/1 knapsack, softened because BM25 scores are already length-normalised), guarded by the best single segment
that fits: the better of "greedy" and "best single item, then greedy" is kept, so one segment that outscores
everything the greedy packed is never lost. Ties break by document position everywhere, so the result is
deterministic.

A chosen segment brings its nearest heading along when that fits (charged to the budget): a paragraph under
"## Fees" reads wrongly without it. Budget left after every matching segment is packed is spent, when
``fill="neighbors"``, on the non-boilerplate segments nearest to the matched ones (context the reader will want),
then on the rest in reading order; with no match at all that is simply the main content in reading order.
Headings never enter on their own (the caller leaves them out of the matched mask and marks them not
``standalone``): a heading with nothing under it costs tokens and answers nothing.

Some slots may not appear without another (``needs``, made by ``select.plan.needs_of``): a lead-in ending in ":"
without the block it leads into, a later step of a split numbered list without the first. The greedy ranks slots
alone; ``settle`` then completes each such slot it took when the rest fits, else gives it up, and the fill takes a
slot only with what it needs (its ``bundle``), and a block with the lead-in into it when that fits.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

# Small pages are the common case (a median page has 15-30 candidates) and a numpy call has a fixed cost
# whatever its size (more inside extract, where scoring has just evicted numpy's code and data from the
# caches), so the selector works on plain lists of Python scalars; the public functions still take numpy
# arrays and convert once.
Floats = Sequence[float] | npt.NDArray[np.float64]
Ints = Sequence[int] | npt.NDArray[np.int64]
Bools = Sequence[bool] | npt.NDArray[np.bool_]


def as_list(values: Any) -> list[Any]:
    """``values`` as a list of Python scalars (``ndarray.tolist`` is one C pass; ``list(arr)`` would box numpy
    scalars, whose arithmetic and comparisons are several times slower). A list is returned as it is: the
    selector never changes its inputs."""
    if type(values) is list:
        return values
    return values.tolist() if isinstance(values, np.ndarray) else list(values)


def lone_slots(standalone: Bools | None) -> set[int]:
    """The slots that may not stand alone (``standalone`` False: headings, when they come as context)."""
    return set() if standalone is None else {i for i, alone in enumerate(as_list(standalone)) if not alone}


# The greedy's key is score / cost ** exponent (see ``density``); Settings.cost_exponent, this by default.
COST_EXPONENT = 0.5


def density(scores: npt.NDArray[np.float64], costs: npt.NDArray[np.int64],
            exponent: float = COST_EXPONENT) -> npt.NDArray[np.float64]:
    """The greedy's sort key: score per token cost raised to ``exponent`` (default: per square root of the cost;
    ``exponent=1`` is the textbook score-per-token density of the knapsack greedy, ``0`` ranks by score alone).

    Why not score per token: BM25 already divides term frequency by the segment's length (``b``), so a short
    segment with one query word scores nearly as high as a long one with the same word, and dividing that
    again by the full cost ranks every two-line fragment ("Fee", "£335") above the paragraph that answers. The
    square root still prefers the cheaper of two equal scores. At 200 tokens it keeps more answers than score
    per token on all four dev QA sets, and 0.75 lies in between (benchmarks/retention_quick.py --option
    cost_exponent=1).
    """
    return np.where(costs > 0, scores / powers(costs, exponent), 0.0)


def powers(costs: npt.NDArray[np.int64], exponent: float) -> npt.NDArray[np.float64]:
    """``density``'s divisor: each cost (at least 1) raised to ``exponent``."""
    return np.maximum(costs, 1) ** exponent


# Costs up to this many tokens are checked once per exponent (``_exact``); a page with a larger one uses numpy.
CHECKED_COSTS = 1 << 12


@functools.lru_cache(maxsize=16)  # one entry per exponent a caller uses; a sweep over many only checks again
def _exact(exponent: float) -> bool:
    """Does ``powers`` give, for every cost from 0 to ``CHECKED_COSTS``, exactly what ``densities`` computes in
    Python for this exponent (``math.sqrt`` for 0.5, the cost itself for 1, 1 for 0)?

    numpy's power loop turns a scalar exponent of 0.5, 1 or 0 into sqrt, a copy or ones (numpy >= 2), and IEEE
    square root, like division and multiplication, is correctly rounded, so Python computes the same bits. An
    older numpy computes ``pow(c, 0.5)``, which differs from the square root in the last bit for about one cost
    in a thousand: then this is False and ``densities`` keeps numpy's arithmetic. Checked once per process (a
    cheap probe); the elements are independent, so what holds in the probe holds in any array."""
    costs = np.arange(CHECKED_COSTS + 1, dtype=np.int64)
    got = powers(costs, exponent)
    base = np.maximum(costs, 1).astype(np.float64)
    if exponent == 0.5:
        want = np.sqrt(base)
    elif exponent == 1.0:
        want = base
    elif exponent == 0.0:
        want = np.ones_like(base)
    else:
        return False
    return bool(got.dtype == np.float64 and np.array_equal(got, want))


def densities(scores: Floats, costs: Ints, exponent: float = COST_EXPONENT,
              slots: Sequence[int] | None = None) -> list[float]:
    """``density`` as a list of Python floats, the same bits as ``density`` gives; with ``slots``, only those
    entries are computed (the others are 0.0: the greedy ranks the matched slots only).

    In Python when ``_exact(exponent)`` holds for these costs (the default exponent on numpy >= 2), else by
    ``density`` itself. Why: inside extract, numpy's five calls on a page's tens of segments cost several
    times what the list comprehension does."""
    score_list: list[float] = as_list(scores)
    cost_list: list[int] = as_list(costs)
    if not (exponent in (0.5, 1.0, 0.0) and min(cost_list, default=0) >= 0
            and max(cost_list, default=0) <= CHECKED_COSTS and _exact(exponent)):
        every: list[float] = density(np.asarray(score_list, dtype=np.float64), np.asarray(cost_list, dtype=np.int64),
                                     exponent).tolist()
        if slots is None:
            return every
        out = [0.0] * len(every)
        for i in slots:
            out[i] = every[i]
        return out
    root = math.sqrt if exponent == 0.5 else (float if exponent == 1.0 else _one)
    if slots is None:
        return [s / root(c) if c > 0 else 0.0 for s, c in zip(score_list, cost_list)]
    out = [0.0] * len(score_list)
    for i in slots:
        c = cost_list[i]
        out[i] = score_list[i] / root(c) if c > 0 else 0.0
    return out


def _one(cost: int) -> float:
    """``cost ** 0``: numpy's power gives 1.0 for a zero exponent."""
    return 1.0


@dataclass(frozen=True)
class Selection:
    """Chosen candidate slots in document order, and how each got in."""

    chosen: tuple[int, ...]
    matched: frozenset[int]
    headings: frozenset[int]
    filled: frozenset[int]
    spent: int
    order: tuple[int, ...] = ()  # the matched slots in the greedy's priority order (``priority_order``)


# Budgets are compared as ``min(budget, SUM_CAP)``, so that the sums stay within 64-bit integers whatever budget
# is given. Any sum of a page's costs lies far below it (2**62 tokens), so a budget above it admits exactly what
# the budget itself would.
SUM_CAP = 1 << 62


class Ledger:
    """The account of a selection over several documents (``extract_many``): the slots' own costs against one
    budget, plus each document's entry charge (its citation envelope) with its first admitted slot, a fixed
    charge with the very first admission (the sources list), and an optional cap on what one document's slots
    may take (entries not counted). ``order`` is the admission order, headings brought along included."""

    def __init__(self, costs: Sequence[int], doc_of: Sequence[int], entry: Sequence[int], budget: int, fixed: int,
                 cap: int | None) -> None:
        self.costs, self.doc_of, self.entry = costs, doc_of, entry
        self.budget, self.fixed, self.cap = budget, fixed, cap
        self.order: list[int] = []
        self.doc_tokens = [0] * len(entry)
        self.cited: set[int] = set()
        self.spent = 0

    def entry_charge(self, doc: int) -> int:
        """What admitting a first slot of ``doc`` costs on top of the slot itself."""
        return 0 if doc in self.cited else self.entry[doc] + (0 if self.cited else self.fixed)

    def price(self, slots: Sequence[int], own_cost: int | None = None) -> tuple[int, int] | None:
        """(total charge, charge against the document's cap) of admitting ``slots`` (one document), or None if
        they do not fit; ``own_cost`` stands in for the slots' costs (a truncated copy)."""
        d = self.doc_of[slots[0]]
        seg_cost = sum([self.costs[i] for i in slots]) if own_cost is None else own_cost
        extra = self.entry_charge(d)
        if self.spent + seg_cost + extra > self.budget:
            return None
        if self.cap is not None and self.doc_tokens[d] + seg_cost > self.cap:
            return None
        return seg_cost + extra, seg_cost

    def take(self, slots: Sequence[int], charge: tuple[int, int]) -> None:
        d = self.doc_of[slots[0]]
        self.spent += charge[0]
        self.doc_tokens[d] += charge[1]
        self.cited.add(d)
        self.order.extend(slots)

    def give_back(self, slot: int) -> None:
        """Undo the admission of ``slot`` (``settle``): its cost, and its document's entry charge when it was the
        document's last slot (the fixed charge too when it was the last slot of all)."""
        d = self.doc_of[slot]
        self.order.remove(slot)
        self.spent -= self.costs[slot]
        self.doc_tokens[d] -= self.costs[slot]
        if all(self.doc_of[j] != d for j in self.order):
            self.cited.discard(d)
            self.spent -= self.entry[d] + (0 if self.cited else self.fixed)

    def fill(self, slots: Sequence[int], chosen: set[int], needs: Sequence[int] | None = None) -> None:
        """Each of ``slots`` that still fits, with what it ``needs`` (``bundle``) and in order, added to ``chosen``
        (fill is context: no heading is brought along, only the lead-in into a slot when it fits; ``context_of``)."""
        for i in slots:
            if i in chosen:  # (came in with a slot that needed it)
                continue
            unit = bundle(i, needs, chosen)
            charge = self.price(unit)
            if charge is None:
                continue
            extra: list[int] = []
            for k in context_of(unit, None, chosen, needs) if needs is not None else ():
                more = self.price(extra + [k] + unit)
                if more is not None:
                    extra.append(k)
                    charge = more
            self.take(extra + unit, charge)
            chosen.update(unit)
            chosen.update(extra)


LedgerFactory = Callable[[], Ledger]


def bundle(i: int, needs: Sequence[int] | None, taken: Collection[int]) -> list[int]:
    """``i`` with the slots it may not appear without (``needs[i]``, then what that one needs, ...: see
    ``select.plan.needs_of``) that are not in ``taken`` yet, in document order. ``needs`` None: ``[i]``."""
    if needs is None:
        return [i]
    unit = [i]
    j = needs[i]
    while j >= 0 and j not in taken and j not in unit:
        unit.append(j)
        j = needs[j]
    return sorted(unit) if len(unit) > 1 else unit


def context_of(unit: Sequence[int], parents: Sequence[int] | None, taken: Collection[int],
               needs: Sequence[int] | None = None) -> list[int]:
    """What comes along with ``unit`` as context when it fits, in document order, leaving out what is in
    ``taken`` or ``unit``: the headings of its slots (``parents``; None: no headings) and the lead-in of each
    slot (the slot before it, when that one needs it: a lead-in, ``select.plan.needs_of``)."""
    if len(unit) == 1 and needs is None:  # the common case
        parent = -1 if parents is None else parents[unit[0]]
        return [parent] if parent >= 0 and parent not in taken else []
    out: set[int] = set()
    for j in unit:
        parent = -1 if parents is None else parents[j]
        if parent >= 0:
            out.add(parent)
        if needs is not None and j > 0 and needs[j - 1] == j:
            out.add(j - 1)
    return sorted(k for k in out if k not in taken and k not in unit)


def _greedy(
    order: Sequence[int],
    costs: Sequence[int],
    parents: Sequence[int],
    budget: int,
    include_headings: bool,
    seed: int | None = None,
    ledger: Ledger | None = None,
) -> tuple[list[int], set[int], int]:
    """One greedy pass in ``order`` (after ``seed``, if given); returns (taken, headings brought along, spent).

    A slot comes in with its heading when both fit, else alone when it fits. What "fits" means is the budget
    alone, or, with a ``ledger``, the ledger's account (envelopes, per-document cap)."""
    taken: list[int] = []
    heads: set[int] = set()
    in_set: set[int] = set()
    spent = 0
    cap = min(budget, SUM_CAP)
    for i in order if seed is None else [seed, *order]:
        if i in heads:  # already in as a heading; now it counts as chosen on its own merit
            heads.discard(i)
            taken.append(i)
            continue
        if i in in_set:
            continue
        parent = parents[i] if include_headings else -1
        if ledger is not None:
            charge = ledger.price((i, parent)) if parent >= 0 and parent not in in_set else None
            if charge is not None:
                ledger.take((parent, i), charge)
                in_set.add(parent)
                heads.add(parent)
            else:
                charge = ledger.price((i,))
                if charge is None:
                    continue
                ledger.take((i,), charge)
            in_set.add(i)
            taken.append(i)
            continue
        cost = costs[i]
        if parent >= 0 and parent not in in_set and spent + cost + costs[parent] <= cap:
            in_set.add(i)
            in_set.add(parent)
            taken.append(i)
            heads.add(parent)
            spent += cost + costs[parent]
        elif spent + cost <= cap:
            in_set.add(i)
            taken.append(i)
            spent += cost
    return taken, heads, spent if ledger is None else ledger.spent


class Settled(NamedTuple):
    """What ``settle`` left: the taken slots (admission order), the headings brought along, the tokens spent."""

    taken: list[int]
    heads: set[int]
    spent: int


def settle(taken: Sequence[int], heads: set[int], spent: int, costs: Sequence[int], parents: Sequence[int] | None,
           needs: Sequence[int], budget: int, ledger: Ledger | None = None) -> Settled:
    """What ``pack`` took, each taken slot that lacks a slot it needs (``bundle``) completed or given up.

    Every such slot is first given back; then, in the greedy's order, each comes in again with the rest of its
    bundle when that fits in what is left of ``budget`` (or of the ``ledger``'s account); the others stay out
    and their tokens go to the fill. A heading left with nothing under it
    goes too. Giving them all back first lets the best of them be completed with the room the others held.

    Why after the greedy, not inside it: a slot brought along at the rank of the slot that needs it (a long list
    behind a cheap lead-in that scored well) pushes out better matches (on conditionalqa-dev at 200 tokens it
    lost answers); here it only takes budget that nothing ranked higher wanted."""
    chosen = set(taken) | heads
    lacking = [i for i in taken if len(bundle(i, needs, chosen)) > 1]
    if not lacking:
        return Settled(list(taken), heads, spent)
    for i in lacking:
        chosen.discard(i)
        if ledger is not None:
            ledger.give_back(i)
        else:
            spent -= costs[i]
    cap = min(budget, SUM_CAP)
    back: list[int] = []
    for i in lacking:
        if i in chosen:  # (came back in the bundle of another)
            continue
        unit = bundle(i, needs, chosen)
        if ledger is not None:
            charge = ledger.price(unit)
            if charge is None:
                continue
            ledger.take(unit, charge)
        else:
            cost = sum([costs[j] for j in unit])
            if spent + cost > cap:
                continue
            spent += cost
        chosen.update(unit)
        back.extend(unit)
    kept = set(taken) - set(lacking) | set(back)
    left_heads = set(heads)
    if parents is not None:
        headed = {parents[j] for j in kept}
        for h in heads:
            if h not in headed:
                left_heads.discard(h)
                if ledger is not None:
                    ledger.give_back(h)
                else:
                    spent -= costs[h]
    order = [i for i in taken if i in kept] + [j for j in back if j not in set(taken)]
    return Settled(order, left_heads, spent if ledger is None else ledger.spent)


def _total(scores: Sequence[float], slots: Sequence[int]) -> float:
    """The sum of ``scores`` over ``slots`` as numpy adds it (pairwise), so the guard's comparison is the one the
    numpy selector made; Python's left-to-right sum can differ in the last bit."""
    return float(np.add.reduce(np.array([scores[i] for i in slots], dtype=np.float64)))


class Packed(NamedTuple):
    """What ``pack`` admitted: the matched slots in admission order, the headings brought along, the tokens
    spent, and the ledger of the pass kept (None without one)."""

    taken: list[int]
    heads: set[int]
    spent: int
    ledger: Ledger | None


def pack(
    scores: Sequence[float],
    costs: Sequence[int],
    parents: Sequence[int],
    order: Sequence[int],
    budget: int,
    include_headings: bool,
    *,
    ledger: LedgerFactory | None = None,
    guard: bool = True,
) -> Packed:
    """The greedy in ``order`` with the best-single guard. ``ledger`` makes a fresh account per pass (``extract_many``); ``guard=False`` keeps
    the first pass (an order that must be kept, such as documents by date)."""
    first = ledger() if ledger is not None else None
    taken, heads, spent = _greedy(order, costs, parents, budget, include_headings, ledger=first)
    if not guard:
        return Packed(taken, heads, spent, first)
    best = -1
    cap = min(budget, SUM_CAP)
    for i in order:  # the best single slot that fits: highest score, then first in the document
        if costs[i] <= cap and (best < 0 or scores[i] > scores[best] or (scores[i] == scores[best] and i < best)):
            best = i
    if best >= 0 and best not in taken and best not in heads:  # (in as a heading: it is in)
        alt = ledger() if ledger is not None else None
        alt_taken, alt_heads, alt_spent = _greedy(order, costs, parents, budget, include_headings, seed=best,
                                                  ledger=alt)
        if _total(scores, alt_taken) > _total(scores, taken):
            return Packed(alt_taken, alt_heads, alt_spent, alt)
    return Packed(taken, heads, spent, first)


def select_slots(
    scores: Sequence[float],
    costs: Sequence[int],
    parents: Sequence[int],
    order: Sequence[int],
    budget: int,
    *,
    include_headings: bool = True,
    fill: str = "neighbors",
    lone: set[int] | None = None,
    needs: Sequence[int] | None = None,
) -> Selection:
    """``select`` on plain lists, with the priority order already made (``priority_slots``); ``lone``: the
    slots that may not stand alone (``lone_slots``); ``needs``: what each slot may not appear without
    (``bundle``)."""
    if not scores:
        return Selection((), frozenset(), frozenset(), frozenset(), 0)
    if budget <= 0:
        return Selection((), frozenset(), frozenset(), frozenset(), 0, tuple(order))
    taken, heads, spent, _ = pack(scores, costs, parents, order, budget, include_headings)
    if needs is not None:
        taken, heads, spent = settle(taken, heads, spent, costs, parents if include_headings else None, needs, budget)
    matched = set(taken)
    chosen = matched | heads
    filled: set[int] = set()
    if fill == "neighbors" and spent < budget:
        filled, spent, _ = fill_slots(matched, costs, chosen, budget, spent, parents if include_headings else None,
                                      lone, needs)
        chosen |= filled
    return Selection(tuple(sorted(chosen)), frozenset(matched), frozenset(heads), frozenset(filled), spent,
                     tuple(order))


def select(
    scores: Floats,
    costs: Ints,
    parents: Ints,
    matched_mask: Bools,
    budget: int,
    *,
    include_headings: bool = True,
    fill: str = "neighbors",
    standalone: Bools | None = None,
    cost_exponent: float = COST_EXPONENT,
    needs: Ints | None = None,
) -> Selection:
    """Choose slots (indices into the candidate arrays, which are in document order) within ``budget``;
    ``needs[i]``: a slot ``i`` may not appear without (-1: none; ``bundle``)."""
    slots = [i for i, m in enumerate(as_list(matched_mask)) if m]
    need_list = None if needs is None else as_list(needs)
    order = priority_slots(densities(scores, costs, cost_exponent, slots), slots)
    return select_slots(as_list(scores), as_list(costs), as_list(parents), order, budget,
                        include_headings=include_headings, fill=fill, lone=lone_slots(standalone),
                        needs=need_list)


def priority_slots(value: Sequence[float], slots: Sequence[int]) -> list[int]:
    """The matched ``slots`` (in position order) by ``value``, their density, descending; ties by position.

    A stable sort on the value alone: ``reverse`` keeps equal values in their original order, so ties stay by
    position without a tuple key per slot."""
    return sorted(slots, key=value.__getitem__, reverse=True)


def priority_order(
    scores: Floats, costs: Ints, matched_mask: Bools, cost_exponent: float = COST_EXPONENT,
) -> list[int]:
    """Matched slots by ``density``, descending; ties by position (the greedy's order)."""
    slots = [i for i, m in enumerate(as_list(matched_mask)) if m]
    return priority_slots(densities(scores, costs, cost_exponent, slots), slots)


def neighbor_order(n: int, anchors: Collection[int], exclude: Collection[int]) -> list[int]:
    """Slots not in ``exclude``, nearest to an anchor first (ties by position); reading order without anchors.

    The distance to the nearest anchor comes from one sweep each way (the last anchor before, the next after);
    the slots, already in position order, are then stably sorted on it."""
    rest = [i for i in range(n) if i not in exclude]
    if not anchors or not rest:
        return rest
    marks = anchors if isinstance(anchors, (set, frozenset)) else set(anchors)
    far = 2 * n + 2  # beyond any distance between two slots
    distance: list[int] = []
    last = -far
    for i in range(n):
        if i in marks:
            last = i
        distance.append(i - last)
    nxt = n + far
    for i in range(n - 1, -1, -1):
        if i in marks:
            nxt = i
        elif nxt - i < distance[i]:
            distance[i] = nxt - i
    rest.sort(key=distance.__getitem__)
    return rest


def fill_slots(
    anchors: Collection[int],
    costs: Sequence[int],
    chosen: set[int],
    budget: int,
    spent: int,
    parents: Sequence[int] | None = None,
    lone: set[int] | None = None,
    needs: Sequence[int] | None = None,
) -> tuple[set[int], int, list[int] | None]:
    """``fill_neighbors`` on lists, with the slots that may not stand alone as a set; returns (filled, spent, the
    neighbour order it used, or None when it needed none).

    When everything left fits (strictly under the budget, so the loop never stops early), the fill takes every
    slot not chosen whatever the order (the lone ones in the last pass, or with a slot they head): that is
    returned without making the order, which is common: many pages fit the summary tier whole. A slot comes in
    only with what it ``needs`` (its ``bundle``, charged with it), then each piece of its context that fits
    (``context_of``: its heading, the lead-in into it)."""
    filled: set[int] = set()
    taken = set(chosen)
    lone = lone or set()
    left = sum(costs) - sum([costs[i] for i in taken])
    if spent + left < budget and min(costs, default=0) >= 0:  # (a negative cost could let a sum fit, not a prefix)
        return set(range(len(costs))) - taken, spent + left, None
    near = neighbor_order(len(costs), anchors, chosen)
    for i in near:
        if spent >= budget:
            break
        if i in taken or i in lone:
            continue
        unit = bundle(i, needs, taken)
        cost = sum([costs[j] for j in unit]) if len(unit) > 1 else costs[i]
        if spent + cost > budget:
            continue
        spent += cost
        filled.update(unit)
        taken.update(unit)
        for k in context_of(unit, parents, taken, needs):
            if spent + costs[k] <= budget:
                filled.add(k)
                taken.add(k)
                spent += costs[k]
    # Once every slot that may stand alone is in, the lone ones left come too, in reading order (then they are
    # the only slots not taken).
    if len(taken) - len(taken & lone) == len(costs) - len(lone):
        for i in sorted(lone - taken):
            if spent + costs[i] <= budget:
                filled.add(i)
                taken.add(i)
                spent += costs[i]
    return filled, spent, near


def fill_neighbors(
    costs: Ints,
    chosen: set[int],
    anchors: set[int],
    budget: int,
    spent: int,
    parents: Ints | None = None,
    standalone: Bools | None = None,
    needs: Ints | None = None,
) -> tuple[set[int], int]:
    """Spend what is left on the segments nearest to ``anchors`` (see the module docstring); returns (filled, spent).

    Slots that may not stand alone (headings: a heading with nothing under it is wasted budget) come in only with
    a filled segment they head, charged with it; once every other slot is in, the rest of them come too, so a
    budget that fits the whole document keeps the whole document.
    """
    filled, spent, _ = fill_slots(anchors, as_list(costs), chosen, budget, spent,
                                  None if parents is None else as_list(parents), lone_slots(standalone),
                                  None if needs is None else as_list(needs))
    return filled, spent
