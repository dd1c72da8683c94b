"""The result of one extraction: the text, what is in it, and an honest account of what was left out."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import ConfigError
from .query import Query, query_fields
from .types import Metadata, Segment


@dataclass(frozen=True)
class Result:
    """What ``extract`` returns.

    ``total_tokens`` is the estimator applied to exactly ``text``, so it is never above ``budget``.
    ``segments`` are the chosen segments in document order, with ``tokens`` (their own cost), ``score`` (weighted
    relevance) and ``matched`` (chosen for matching the query, as opposed to a heading brought along or filler).
    ``dropped_count``/``dropped_tokens`` count the main-content segments (boilerplate excluded) that are not in the
    output and what they would have cost. ``no_match`` is True when a query was given and nothing matched it; the
    output then holds the main content in reading order (or nothing, with ``fill="none"``).
    """

    text: str
    total_tokens: int
    segments: tuple[Segment, ...]
    budget: int
    tier: str | None
    query: Query | str | None  # a Query given is kept whole
    format: str
    dropped_count: int
    dropped_tokens: int
    no_match: bool
    evaluation_time_ms: float
    metadata: Metadata = field(default_factory=Metadata)
    backend: str = ""
    reserve_tokens: int = 0
    truncated_count: int = 0
    # Segments left out, in the order a larger budget would bring them in (``more``); with ``nested=True`` also the
    # budget at which each comes in.
    pending: tuple[Segment, ...] = field(default=(), repr=False, compare=False)
    pending_at: tuple[int, ...] | None = field(default=None, repr=False, compare=False)
    _explain: Callable[[], list[Any]] | None = field(default=None, repr=False, compare=False)

    def explain(self) -> list[Any]:
        """One ``qatbe.explain.SegmentReport`` per segment of the document: matched terms and their
        contributions, type weight, score per token, and why it is in or out."""
        return self._explain() if self._explain is not None else []

    @property
    def was_truncated(self) -> bool:
        return self.dropped_count > 0 or self.truncated_count > 0

    def more(self, tokens: int) -> tuple[Segment, ...]:
        """The segments that would come in next if the budget grew by ``tokens``, in the order they would come.

        With ``nested=True`` this is exact (every segment whose admission threshold is within the larger budget).
        Otherwise it continues the greedy pass over the segments left out, in priority order (matched by score
        per token, then filler nearest to the chosen text), with ``tokens`` plus the unspent budget as room;
        headings that would come along are not included.
        """
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
            raise ConfigError(f"tokens must be a non-negative integer, not {tokens!r}")
        limit = self.budget - self.reserve_tokens + tokens
        if self.pending_at is not None:
            return tuple(s for s, t in zip(self.pending, self.pending_at) if t <= limit)
        room = limit - self.total_tokens
        out: list[Segment] = []
        for seg in self.pending:
            if seg.tokens <= room:
                out.append(seg)
                room -= seg.tokens
        return tuple(out)

    @property
    def matched_segments(self) -> tuple[Segment, ...]:
        return tuple(s for s in self.segments if s.matched)

    @property
    def filler_segments(self) -> tuple[Segment, ...]:
        return tuple(s for s in self.segments if not s.matched)

    def to_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "total_tokens": self.total_tokens,
            "budget": self.budget,
            "tier": self.tier,
            **query_fields(self.query),
            "format": self.format,
            "dropped_count": self.dropped_count,
            "dropped_tokens": self.dropped_tokens,
            "reserve_tokens": self.reserve_tokens,
            "truncated_count": self.truncated_count,
            "was_truncated": self.was_truncated,
            "no_match": self.no_match,
            "evaluation_time_ms": self.evaluation_time_ms,
            "backend": self.backend,
            "metadata": self.metadata.to_dict(),
            "segments": [s.to_dict() for s in self.segments],
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def __str__(self) -> str:
        return self.text
