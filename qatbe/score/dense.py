"""Dense and hybrid ranking: the query's and each segment's embedding, compared by cosine, fused with BM25.

``ranking="embedding"`` scores each segment by the cosine similarity of its embedding to the query's (negative
similarities count as 0); ``ranking="hybrid"`` fuses that with the lexical score by a normalised sum,
``(1 - dense_weight) * bm25 / max(bm25) + dense_weight * cosine / max(cosine)``, so that neither scale dominates
whatever the page's length. Both then go through the same relevance floor, type weights and knapsack as BM25.

The embedder is any callable ``list[str] -> array`` of shape (texts, dimensions) (``Settings.embedder``);
``qatbe.score.embedders`` has adapters for a local sentence-transformers model and for an OpenAI-compatible
endpoint. Why a normalised sum rather than reciprocal rank fusion: a page has tens of segments, and rank fusion
gives the tenth best lexical match almost the weight of the first, where the scores say it is far weaker.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from ..errors import ConfigError

Embedder = Callable[[list[str]], object]
DENSE_RANKINGS = ("embedding", "hybrid")


def similarities(embedder: Embedder, query: str, texts: Sequence[str]) -> npt.NDArray[np.float64]:
    """Cosine similarity of each text's embedding to the query's, negative values as 0 (one embedder call)."""
    if not texts:
        return np.zeros(0, dtype=np.float64)
    try:
        vectors = np.asarray(embedder([query, *texts]), dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"the embedder must return a numeric array of shape (texts, dimensions): {exc}") from None
    if vectors.ndim != 2 or vectors.shape[0] != len(texts) + 1 or vectors.shape[1] == 0:
        raise ConfigError(f"the embedder returned an array of shape {vectors.shape} for {len(texts) + 1} texts; "
                          "it must return one row per text")
    if not np.isfinite(vectors).all():
        raise ConfigError("the embedder returned a non-finite value (NaN or infinity)")
    norms = np.linalg.norm(vectors, axis=1)
    norms[norms == 0.0] = 1.0  # an all-zero vector is similar to nothing
    unit = vectors / norms[:, None]
    sims: npt.NDArray[np.float64] = unit[1:] @ unit[0]
    return np.clip(sims, 0.0, None)


def fuse(ranking: str, lexical: npt.NDArray[np.float64], dense: npt.NDArray[np.float64],
         dense_weight: float) -> npt.NDArray[np.float64]:
    """The fused score of each segment for ``ranking`` ("embedding" or "hybrid")."""
    if ranking == "embedding":
        return dense.astype(np.float64, copy=True)
    top_lexical = float(lexical.max()) if lexical.size else 0.0
    top_dense = float(dense.max()) if dense.size else 0.0
    lex_part = lexical / top_lexical if top_lexical > 0 else np.zeros_like(lexical)
    dense_part = dense / top_dense if top_dense > 0 else np.zeros_like(dense)
    fused: npt.NDArray[np.float64] = (1.0 - dense_weight) * lex_part + dense_weight * dense_part
    return fused


def relevant_of(raw: npt.NDArray[np.float64], floor: float) -> npt.NDArray[np.bool_]:
    """The relative relevance floor, as for BM25: a match is relevant at ``floor`` x the best score or more."""
    best = float(raw.max()) if raw.size else 0.0
    out: npt.NDArray[np.bool_] = (raw > 0.0) & (raw >= floor * best)
    return out


def rerank(ranking: str, embedder: Embedder, dense_weight: float, floor: float, query: str,
           texts: Sequence[str], lexical: npt.NDArray[np.float64]
           ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """(scores, relevant) of the segments ``texts`` under a dense ranking, from their lexical scores."""
    raw = fuse(ranking, lexical, similarities(embedder, query, texts), dense_weight)
    return raw, relevant_of(raw, floor)
