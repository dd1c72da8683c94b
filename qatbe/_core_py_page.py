"""A page's scores in one call and the fields the scorer reads of its segments (twin of ``_core_page.pxi``).

Part of the pure-Python twin of ``qatbe._core`` (``qatbe._core_py`` gathers the parts).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt

from ._core_py_bm25 import _positions, _slots, bm25_scores, proximity_pairs
from ._kernel_types import PageScores, ScoringParams


def page_scores(
    doc_terms: npt.NDArray[np.int32],
    doc_offsets: npt.NDArray[np.int64],
    n_terms: int,
    query_terms: npt.NDArray[np.int32],
    query_weights: npt.NDArray[np.float64],
    doc_lengths: npt.NDArray[np.float64],
    heads: Sequence[int],
    levels: Sequence[int],
    lead_from: bytes,
    joined: bytes,
    *,
    params: ScoringParams,
    prior_df: npt.NDArray[np.float64] | None = None,
    n_near: int = 0,
    positions: npt.NDArray[np.int64] | None = None,
) -> PageScores:
    """A page's scores in one call; see ``qatbe._core.page_scores`` for what each part is (None: 0 everywhere)."""
    k1, b, variant, delta, prior_n = params.k1, params.b, params.variant, params.delta, params.prior_n
    window, proximity, lead_in, heading = params.window, params.proximity, params.lead_in, params.heading
    sibling, floor, inherit_words = params.sibling, params.floor, params.inherit_words
    base = bm25_scores(doc_terms, doc_offsets, n_terms, query_terms, query_weights, k1, b, variant, delta, prior_n,
                       prior_df, doc_lengths)
    _positions(positions, [int(o) for o in doc_offsets])
    n = len(base)
    lead_link, join_link = bytes(lead_from), bytes(joined)
    if len(lead_link) != n or len(join_link) != n:
        raise ValueError("lead_from and joined must have one entry per document")
    if not 0 <= n_near <= len(query_terms):
        raise ValueError("n_near must lie in [0, len(query_terms)]")
    if window < 1:
        raise ValueError("window must be >= 1")
    if not all(math.isfinite(x) for x in (proximity, lead_in, heading, sibling, floor, inherit_words)):
        raise ValueError("the shares and the floor must be finite")
    if inherit_words < 0.0:
        raise ValueError("inherit_words must be >= 0")
    head_idx, head_level = [int(h) for h in heads], [int(v) for v in levels]
    if len(head_level) != len(head_idx):
        raise ValueError(f"levels must have {len(head_idx)} entries, not {len(head_level)}")
    if any(not 0 <= h < n for h in head_idx) or any(y <= x for x, y in pairwise(head_idx)):
        raise ValueError("heads must be increasing document indices")
    terms = [int(t) for t in doc_terms]
    offsets = [int(o) for o in doc_offsets]
    slot_of = _slots([int(t) for t in query_terms])
    df = np.asarray([sum(1 for d in range(n) if any(slot_of.get(t) == q for t in terms[offsets[d]:offsets[d + 1]]))
                     for q in range(len(query_terms))], dtype=np.int64)
    raw = [float(x) for x in base]
    zeros = [0.0] * n
    lengths = ([float(x) for x in doc_lengths] if doc_lengths is not None
               else [float(offsets[d + 1] - offsets[d]) for d in range(n)])
    keep = [1.0 if inherit_words <= 0.0 or x >= inherit_words else x / inherit_words for x in lengths]

    def added(part: list[float], share: float, inherited: bool = True) -> list[float]:
        """``share`` x ``part`` (x the share a text keeps of what it inherits) added to ``raw``; zeros when that
        is 0 everywhere."""
        scaled = [share * x * k for x, k in zip(part, keep)] if inherited else [share * x for x in part]
        if not any(x != 0.0 for x in scaled):
            return zeros
        raw[:] = [r + x for r, x in zip(raw, scaled)]
        return scaled

    prox = zeros
    if proximity > 0.0 and n_near >= 2:
        pairs = proximity_pairs(doc_terms, doc_offsets, n_terms, query_terms[:n_near], window, positions)
        prox = added([float(x) for x in pairs], proximity, inherited=False)
    is_head = set(head_idx)
    level_of = dict(zip(head_idx, head_level))
    up = [-1] * n
    stack: list[int] = []
    for i in range(n):
        if i in is_head:
            while stack and level_of[stack[-1]] >= level_of[i]:
                stack.pop()
        up[i] = stack[-1] if stack else -1
        if i in is_head:
            stack.append(i)
    lead = zeros
    if lead_in > 0.0 and n:
        lead = added([0.0] + [raw[i - 1] if lead_link[i] else 0.0 for i in range(1, n)], lead_in)
    head = zeros
    if heading > 0.0 and head_idx:
        chains = []
        for i in range(n):
            chain, k = [], up[i]
            while k >= 0:
                chain.append(raw[k])
                k = up[k]
            chains.append(max(chain) if chain else 0.0)
        head = added(chains, heading)
    sib = zeros
    if sibling > 0.0:
        parts = []
        for i in range(n):
            value = raw[i - 1] if i > 0 and join_link[i] else 0.0
            if i + 1 < n and join_link[i + 1] and raw[i + 1] > value:
                value = raw[i + 1]
            parts.append(value)
        sib = added(parts, sibling)
    best = max(raw, default=0.0)
    relevant = np.asarray([r > 0.0 and r >= floor * best for r in raw], dtype=np.bool_)

    def part(x: list[float]) -> npt.NDArray[np.float64] | None:
        return np.asarray(x, dtype=np.float64) if any(v != 0.0 for v in x) else None

    return PageScores(np.asarray(raw, dtype=np.float64), base, part(prox), part(lead), part(head), part(sib),
                      relevant, float(best), df, np.asarray(up, dtype=np.int64) if head_idx else None)


def page_fields(
    segments: Sequence[Any], heading: object, prose: Sequence[object]
) -> tuple[list[str], list[int], list[int], list[int], bytes]:
    """``(texts, heads, levels, groups, use)`` of a page's segments; see ``qatbe._core.page_fields``."""
    items = list(segments)
    kinds = [s.kind for s in items]
    heads = [i for i, kind in enumerate(kinds) if kind is heading]
    prose = tuple(prose)
    return ([s.text for s in items], heads, [items[i].level for i in heads], [s.group for s in items],
            bytes(kind in prose for kind in kinds))
