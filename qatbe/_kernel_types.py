"""The records that cross the kernel's boundary (``qatbe._core`` and its twin ``qatbe._core_py`` both use them).

A leaf module: it imports nothing of qatbe, so the compiled kernel can import it while the package is loading.
The kernel holds no policy: every share, threshold and window arrives in a ``ScoringParams`` that the scorer
(``qatbe.score.bm25``) fills from ``Settings`` and its own constants; a field left at its default turns its part
off.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt


class ScoringParams(NamedTuple):
    """What ``page_scores`` computes with, besides the page's arrays. A named tuple, not a frozen dataclass: the
    scorer makes one per kernel call (the proximity scale depends on the page), and a frozen dataclass's
    ``__init__`` (one ``object.__setattr__`` per field) cost several times the tuple's construction.

    ``k1``, ``b``, ``variant`` (0 lucene, 1 okapi, 2 plus, 3 l), ``delta`` (plus and l) and ``prior_n`` (documents
    of the prior collection) parametrise BM25. The parts added to each raw score, each a share (0: off):
    ``proximity`` per close pair of query words within ``window`` terms; ``lead_in`` of the score of a text that
    introduces this one; ``heading`` of the best heading above; ``sibling`` of the adjacent part of the same split
    unit (which texts lead in and which are parts of one unit: ``qatbe.score.links``). ``inherit_words``: what a
    text inherits is scaled by its words over this (up to 1; 0: not scaled). ``floor``: a text is relevant when
    its raw score is > 0 and at least ``floor`` x the best.
    """

    k1: float = 1.2
    b: float = 0.75
    variant: int = 0
    delta: float = 0.5
    prior_n: float = 0.0
    window: int = 8
    proximity: float = 0.0
    lead_in: float = 0.0
    heading: float = 0.0
    sibling: float = 0.0
    floor: float = 0.0
    inherit_words: float = 0.0


Part = npt.NDArray[np.float64] | None


class PageScores(NamedTuple):
    """What ``page_scores`` returns. ``raw`` is ``bm25`` plus the parts; a part that is 0 everywhere is None.
    ``relevant``: raw > 0 and >= floor x ``best`` (the largest raw score, 0 for none). ``df``: documents holding
    each query slot. ``up``: for each text the heading above it (-1: none; None without headings)."""

    raw: npt.NDArray[np.float64]
    bm25: npt.NDArray[np.float64]
    proximity: Part
    lead_in: Part
    heading: Part
    sibling: Part
    relevant: npt.NDArray[np.bool_]
    best: float
    df: npt.NDArray[np.int64]
    up: npt.NDArray[np.int64] | None
