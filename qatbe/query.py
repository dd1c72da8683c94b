"""The query record (seed 002): who is asking and what for, accepted wherever a query string is.

Only ``text`` drives relevance; ``agent``, ``tags`` and ``metadata`` travel with the query so that a caller's
routing or logging code can read them back from the result without a parallel structure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .errors import InputError


@dataclass(frozen=True)
class Query:
    """A query with its context. ``Query("renew passport")`` behaves like the string ``"renew passport"``."""

    text: str
    agent: str = "default"
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise InputError(f"Query.text must be a string, not {type(self.text).__name__}")
        if not isinstance(self.agent, str):
            raise InputError(f"Query.agent must be a string, not {type(self.agent).__name__}")
        tags: Iterable[object] = (self.tags,) if isinstance(self.tags, str) else self.tags
        try:
            tag_tuple = tuple(tags)
        except TypeError:
            raise InputError(f"Query.tags must be a sequence of strings, not {type(self.tags).__name__}") from None
        if not all(isinstance(t, str) for t in tag_tuple):
            raise InputError("Query.tags must be strings")
        if not isinstance(self.metadata, Mapping):
            raise InputError(f"Query.metadata must be a mapping, not {type(self.metadata).__name__}")
        # Frozen all the way down: a query can be shared between threads and used as a cache key part.
        object.__setattr__(self, "tags", tag_tuple)
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, object]:
        return {"text": self.text, "agent": self.agent, "tags": list(self.tags), "metadata": dict(self.metadata)}


def query_text(query: object) -> str | None:
    """The text of a query given as ``None``, a string, or a ``Query`` (or any object with a ``.text`` string)."""
    if query is None or isinstance(query, str):
        return query
    text = getattr(query, "text", None)
    if isinstance(text, str):
        return text
    raise InputError(f"query must be a string, a qatbe.Query or None, not {type(query).__name__}")


def kept_query(query: object, text: str | None) -> Query | str | None:
    """What a result keeps as its ``query``: a ``Query`` itself, otherwise its text."""
    return query if isinstance(query, Query) else text


def query_fields(query: Query | str | None) -> dict[str, object]:
    """A result's ``to_dict`` entries for its query: ``query`` (the text), and ``query_context`` (agent, tags,
    metadata) when it was a ``Query``."""
    if isinstance(query, Query):
        return {"query": query.text,
                "query_context": {"agent": query.agent, "tags": list(query.tags), "metadata": dict(query.metadata)}}
    return {"query": query}
