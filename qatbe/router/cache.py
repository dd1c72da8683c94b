"""The router's disk cache of source fetches: ``diskcache`` (SQLite underneath, safe across threads and processes).

An entry is one source's documents for one fetch. Its key is a hash of the source's name, its options as written
in the config (never their interpolated values, so no secret reaches the cache; editing a source's options
starts afresh), the query text when the source's answer depends on it, and the path rules hiding files from the
agent who asked: an agent never reads an entry fetched under rules other than its own, so a file hidden from one
agent cannot reach another through the cache (and hidden files are never read, so never stored). Entries expire
after ``ttl_seconds``; past ``max_entries`` the oldest are removed first. Each entry is tagged with its source's
name, which ``clear(source)`` removes.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._optional import require
from ..errors import ConfigError
from .config import CacheSpec
from .sources import SourceDocument

_FORMAT = 1  # bumped when what an entry holds changes shape


@dataclass(frozen=True)
class CacheStats:
    """What ``qatbe route cache stats`` prints: entries in all and per source, and bytes on disk."""

    directory: str
    entries: int
    per_source: dict[str, int]
    bytes: int
    max_entries: int
    ttl_seconds: float

    def to_dict(self) -> dict[str, object]:
        return {"directory": self.directory, "entries": self.entries, "per_source": dict(self.per_source),
                "bytes": self.bytes, "max_entries": self.max_entries, "ttl_seconds": self.ttl_seconds}


def cache_key(source: str, fingerprint: str, query: str | None, hidden: Sequence[str]) -> str:
    blob = json.dumps([_FORMAT, source, fingerprint, query, sorted(hidden)], ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()


class FetchCache:
    """A diskcache ``Cache`` with the router's TTL and entry cap."""

    def __init__(self, spec: CacheSpec) -> None:
        diskcache = require("diskcache", "router", "the router's cache")
        self.spec = spec
        try:
            spec.dir.mkdir(parents=True, exist_ok=True)
            # No size cap of diskcache's own: max_entries is the cap (enforced in ``put``).
            self._cache: Any = diskcache.Cache(str(spec.dir), size_limit=2**62, cull_limit=0,
                                               eviction_policy="least-recently-stored", tag_index=True)
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(f"cache.dir: cannot open a cache in {str(spec.dir)!r}: {exc}") from None

    def get(self, key: str) -> tuple[SourceDocument, ...] | None:
        value = self._cache.get(key, default=None, retry=True)
        if not isinstance(value, tuple):
            return None
        return tuple(SourceDocument(**d) for d in value)

    def put(self, key: str, source: str, documents: Sequence[SourceDocument]) -> None:
        value = tuple({"content": d.content, "path": d.path, "title": d.title, "url": d.url,
                       "metadata": dict(d.metadata)} for d in documents)
        cache = self._cache
        with cache.transact(retry=True):
            cache.set(key, value, expire=self.spec.ttl_seconds, tag=source, retry=True)
            excess = len(cache) - self.spec.max_entries
            if excess > 0:
                cache.expire(retry=True)
                excess = len(cache) - self.spec.max_entries
            while excess > 0:  # oldest stored first (diskcache iterates in storage order)
                oldest = next(iter(cache), None)
                if oldest is None:
                    break
                cache.delete(oldest, retry=True)
                excess -= 1

    def clear(self, source: str | None = None) -> int:
        """Remove every entry, or those of ``source``; returns how many were removed."""
        if source is None:
            return int(self._cache.clear(retry=True))
        return int(self._cache.evict(source, retry=True))

    def stats(self) -> CacheStats:
        self._cache.expire(retry=True)
        per: dict[str, int] = {}
        for key in list(self._cache.iterkeys()):
            _, tag = self._cache.get(key, default=None, tag=True, retry=True)
            if tag is not None:
                per[str(tag)] = per.get(str(tag), 0) + 1
        return CacheStats(str(self.spec.dir), len(self._cache), dict(sorted(per.items())),
                          int(self._cache.volume()), self.spec.max_entries, self.spec.ttl_seconds)

    def close(self) -> None:
        self._cache.close()
