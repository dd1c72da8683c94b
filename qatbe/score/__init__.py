"""Scoring stage: relevance of every segment to the query (BM25 in the compiled kernel)."""

from __future__ import annotations

from .bm25 import Scores, score_segments

__all__ = ["Scores", "score_segments"]
