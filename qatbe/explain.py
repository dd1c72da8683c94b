"""Why each segment is in the output or not: matched terms and their BM25 contributions, bonuses, type weight,
the selector's density (weighted score / cost ** ``cost_exponent``), and the reason a segment was left out (boilerplate, no query term, over budget, ...).

Built lazily from what ``extract`` already computed, so asking costs nothing unless ``explain()`` is called.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .score import Scores
from .select.knapsack import COST_EXPONENT, density
from .types import Segment, SegmentKind


@dataclass(frozen=True)
class SegmentReport:
    index: int
    kind: str
    text: str
    status: str  # "matched", "heading", "filler", or "dropped: <reason>"
    terms: tuple[tuple[str, float], ...]
    bonuses: dict[str, float]
    raw_score: float
    type_weight: float
    weighted_score: float
    tokens: int
    density: float

    def to_dict(self) -> dict[str, object]:
        return {
            "index": self.index, "kind": self.kind, "text": self.text, "status": self.status,
            "terms": dict(self.terms), "bonuses": self.bonuses, "raw_score": self.raw_score,
            "type_weight": self.type_weight, "weighted_score": self.weighted_score, "tokens": self.tokens,
            "density": self.density,
        }


def explain(
    every: Sequence[Segment],
    candidates: Sequence[Segment],
    scores: Scores,
    weights: npt.NDArray[np.float64],
    costs: npt.NDArray[np.int64],
    chosen: set[int],
    matched: frozenset[int],
    query_given: bool,
    cost_exponent: float = COST_EXPONENT,
) -> list[SegmentReport]:
    slot_of = {seg.index: i for i, seg in enumerate(candidates)}
    # The selector's own key, so that what is shown is what it sorted by.
    value = density(scores.raw * weights, costs, cost_exponent)
    reports: list[SegmentReport] = []
    for seg in every:
        flat = seg.text.replace("\n", " / ")
        preview = flat if len(flat) <= 80 else flat[:77] + "..."
        i = slot_of.get(seg.index)
        if i is None:
            reports.append(SegmentReport(seg.index, seg.kind.value, preview, "dropped: boilerplate", (), {}, 0.0,
                                         0.0, 0.0, seg.tokens, 0.0))
            continue
        why = scores.explain(i) if scores.query_terms else None
        raw = float(scores.raw[i])
        weighted = raw * float(weights[i])
        cost = int(costs[i])
        if i in chosen:
            status = "matched" if i in matched else ("heading" if seg.kind is SegmentKind.HEADING else "filler")
        elif not query_given or raw <= 0.0:
            status = "dropped: no query term" if query_given else "dropped: over budget"
        elif scores.relevant is not None and not bool(scores.relevant[i]):
            status = "dropped: below relevance floor"
        else:
            status = "dropped: over budget"
        bonuses = {} if why is None else {
            "proximity": why.proximity, "lead_in": why.lead_in, "heading": why.heading, "bridge": why.bridge,
            "sibling": why.sibling, "answer_type": why.answer_type,
        }
        reports.append(SegmentReport(
            seg.index, seg.kind.value, preview, status, why.terms if why else (), bonuses, raw,
            float(weights[i]), weighted, cost, float(value[i]),
        ))
    return reports


def format_reports(reports: Sequence[SegmentReport]) -> str:
    lines = [f"{'#':>4} {'status':<31} {'kind':<10} {'tok':>5} {'score':>7} {'w':>4} {'dens':>7}  terms / text"]
    for r in reports:
        terms = ", ".join(f"{t}={c:.2f}" for t, c in r.terms)
        lines.append(f"{r.index:>4} {r.status:<31} {r.kind:<10} {r.tokens:>5} {r.weighted_score:>7.2f} "
                     f"{r.type_weight:>4.1f} {r.density:>7.3f}  {terms + ' | ' if terms else ''}{r.text}")
    return "\n".join(lines)
