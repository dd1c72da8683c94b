"""Cross-validation folds: how much does a dev-set figure depend on which documents happened to be in the dev half?

The held-out halves that judge qatbe were split from the same corpora by a hash rule, so a figure measured on one
dev half is one draw of many. ``folds`` redraws that split K times: each fold is a random half of the dev documents
(questions stay with their document, as in the real split), and a metric is reported as its mean, spread and
worst value over the folds. A change is worth keeping when it helps the mean without hurting the worst fold, on
every dataset; a change that helps one half and hurts another is fitted to the pages, not to the task.

Drawing is seeded (``seed``) so that two runs, or two systems in one run, see the same folds.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class FoldStats:
    """One metric over K folds: mean, sample standard deviation, worst and best fold."""

    folds: int
    mean: float
    sd: float
    low: float
    high: float

    def to_dict(self) -> dict[str, float]:
        return {"folds": self.folds, "mean": self.mean, "sd": self.sd, "low": self.low, "high": self.high}

    def cell(self, scale: float = 100.0, digits: int = 1) -> str:
        """``mean ± sd (low)`` for a table, scaled (percentages by default)."""
        return f"{self.mean * scale:.{digits}f} ± {self.sd * scale:.{digits}f} ({self.low * scale:.{digits}f})"


def halves(keys: Sequence[K], k: int, seed: int = 0) -> list[frozenset[K]]:
    """K random halves of ``keys`` (each ⌈n/2⌉ keys; fold ``i`` drawn from ``Random(seed * 1_000_003 + i)``).

    The keys are sorted first, so the folds do not depend on the order they were read in."""
    if k < 1:
        raise ValueError(f"folds must be at least 1, not {k}")
    ordered = sorted(set(keys), key=repr)
    size = math.ceil(len(ordered) / 2)
    return [frozenset(random.Random(seed * 1_000_003 + i).sample(ordered, size)) for i in range(k)]


def over_folds(
    groups: Mapping[K, Sequence[T]],
    metric: Callable[[list[T]], float | None],
    folds: Sequence[frozenset[K]],
) -> FoldStats | None:
    """``metric`` of the members of the groups in each fold; None when no fold gives a value.

    ``groups`` maps a document to its members (its questions' scores, or its one page score)."""
    values: list[float] = []
    for fold in folds:
        members = [m for key in sorted(fold, key=repr) if key in groups for m in groups[key]]
        value = metric(members) if members else None
        if value is not None:
            values.append(value)
    if not values:
        return None
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return FoldStats(len(values), statistics.fmean(values), sd, min(values), max(values))
