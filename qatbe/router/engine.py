"""``Router``: routes, permissions, path rules and a cache in front of ``extract_many``.

A query goes through, in order:

1. ``route``: every route whose condition holds contributes its sources (merged, first mention first);
2. ``permit``: the agent's rules (its own and ``*``) are merged: allow lists and deny lists are unioned, deny
   wins, and the most restrictive default of those rules wins (``default_access`` when no rule names the agent);
3. ``gather``: the allowed sources are fetched concurrently (asyncio), each cut at its timeout, from the cache
   when it holds them; a source that fails or times out is recorded in ``source_errors`` and the others go on;
4. the path rules (``deny_paths``, and the agent's own) hide files before their content is read, and are
   applied once more to what any source returned;
5. ``extract_many`` over everything fetched, with the router's budget options (scoring, ranking, trimming and
   assembly are qatbe's).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import inspect
import json
import logging
import os
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError, InputError
from ..many import Document, ManyResult, extract_many
from ..query import Query
from ..types import Segment
from .cache import CacheStats, FetchCache, cache_key
from .config import Redactor, RouterConfig, load_yaml, parse_config
from .expressions import Condition, activation, check_variables, compile_condition
from .sources import FetchRequest, PathRules, Source, SourceContext, SourceDocument, build_source

log = logging.getLogger(__name__)
_AGENTS_KEPT = 1024


@dataclass(frozen=True)
class SourceError:
    """A source that could not be fetched for this query: its name, the error's type and its message."""

    source: str
    error_type: str
    message: str

    def to_dict(self) -> dict[str, object]:
        return {"source": self.source, "error_type": self.error_type, "message": self.message}


@dataclass(frozen=True)
class Chunk:
    """One passage of the context, with where it came from: the source's name, the document's path (file
    sources), title and URL, and the segment's score and cost."""

    source: str
    path: str | None
    title: str
    url: str | None
    citation: int
    score: float
    tokens: int
    matched: bool
    segment: Segment

    @property
    def text(self) -> str:
        return self.segment.text

    def to_dict(self) -> dict[str, object]:
        return {"source": self.source, "path": self.path, "title": self.title, "url": self.url,
                "citation": self.citation, "score": self.score, "tokens": self.tokens, "matched": self.matched,
                "text": self.segment.text}


@dataclass(frozen=True)
class RouteDecision:
    """Stages 1 and 2 for one query: the routes that matched, the sources they name (in order), and of those
    the ones the agent may read and the ones it may not."""

    matched_routes: tuple[str, ...]
    sources: tuple[str, ...]
    allowed: tuple[str, ...]
    denied: tuple[str, ...]


@dataclass(frozen=True)
class RouterResult(ManyResult):
    """A ``ManyResult`` plus the router's account. ``query`` is the full ``Query``; ``chunks`` are the passages
    with their source; ``evaluation_time_ms`` covers the whole query (routing and fetching included)."""

    matched_routes: tuple[str, ...] = ()
    denied_sources: tuple[str, ...] = ()
    source_errors: tuple[SourceError, ...] = ()
    cache_hits: tuple[str, ...] = ()
    chunks: tuple[Chunk, ...] = ()

    def to_dict(self) -> dict[str, object]:
        out = super().to_dict()
        out.update(matched_routes=list(self.matched_routes), denied_sources=list(self.denied_sources),
                   source_errors=[e.to_dict() for e in self.source_errors], cache_hits=list(self.cache_hits),
                   chunks=[c.to_dict() for c in self.chunks])
        return out

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)


@dataclass(frozen=True)
class _Fetched:
    name: str
    documents: tuple[SourceDocument, ...] = ()
    error: SourceError | None = None
    cached: bool = False


@dataclass
class _Access:
    allow: set[str] = field(default_factory=set)
    deny: set[str] = field(default_factory=set)
    default: str | None = None
    hidden: list[str] = field(default_factory=list)


class Router:
    """Built from a config mapping (``Router(config)``) or a YAML file (``Router.from_yaml(path)``); everything is
    validated and every condition compiled here, so that a bad config fails at load, naming the key at fault.

    ``base_dir`` is where relative paths start (the YAML file's folder; the working directory for a mapping);
    ``environ`` replaces ``os.environ`` for ``${VAR}``.
    """

    def __init__(self, config: Mapping[str, Any], *, base_dir: str | os.PathLike[str] | None = None,
                 environ: Mapping[str, str] | None = None) -> None:
        if not isinstance(config, Mapping):
            raise ConfigError(f"a router config is a mapping, not {type(config).__name__}")
        self.config: RouterConfig = parse_config(config, Path(base_dir or os.getcwd()).resolve(), environ)
        redact = self.config.redact
        try:
            check_variables(self.config.variables)
            self._conditions: tuple[Condition, ...] = tuple(
                compile_condition(r.name, f"routes[{k}].when", r.when)
                for k, r in enumerate(self.config.routes))
            context = SourceContext(self.config.base_dir, redact)
            self._sources: dict[str, Source] = {
                name: build_source(spec, context) for name, spec in self.config.sources.items()}
            self._cache: FetchCache | None = FetchCache(self.config.cache) if self.config.cache else None
        except ConfigError as exc:
            raise ConfigError(redact(str(exc))) from None
        self._access: dict[str, tuple[frozenset[str], frozenset[str], PathRules]] = {}
        self._access_lock = threading.Lock()
        # Plain (not coroutine) fetch functions of custom sources run here; the router never waits for this pool.
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="qatbe-router")

    @classmethod
    def from_yaml(cls, path: str | os.PathLike[str], *, environ: Mapping[str, str] | None = None) -> Router:
        """The router of a YAML config file; relative paths in it start at the file's folder."""
        file = Path(path)
        return cls(load_yaml(file), base_dir=file.resolve().parent, environ=environ)

    # -- stages 1 and 2 -------------------------------------------------------------------------------------------

    def route(self, query: str | Query) -> RouteDecision:
        """Which routes match ``query``, and which of their sources its agent may read."""
        q = _as_query(query)
        names = activation(q, self.config.variables)
        matched: list[str] = []
        sources: dict[str, None] = {}
        for route, condition in zip(self.config.routes, self._conditions):
            if condition.matches(names):
                matched.append(route.name)
                for s in route.sources:
                    sources[s] = None
        allowed, _, _ = self._agent(q.agent)
        wanted = tuple(sources)
        return RouteDecision(tuple(matched), wanted, tuple(s for s in wanted if s in allowed),
                             tuple(s for s in wanted if s not in allowed))

    def _agent(self, agent: str) -> tuple[frozenset[str], frozenset[str], PathRules]:
        """The sources ``agent`` may read, those it may not, and the paths hidden from it (kept per agent)."""
        found = self._access.get(agent)
        if found is not None:
            return found
        access = _Access()
        rules = [r for r in self.config.permissions if r.agent in (agent, "*")]
        for rule in rules:
            access.allow.update(rule.allow)
            access.deny.update(rule.deny)
            if rule.default == "deny" or (rule.default == "allow" and access.default is None):
                access.default = rule.default
            access.hidden.extend(rule.deny_paths)
        default = access.default or self.config.default_access
        every = set(self.config.sources)
        allowed = frozenset(s for s in every if s not in access.deny and (s in access.allow or default == "allow"))
        hidden = PathRules([*self.config.deny_paths, *access.hidden])
        found = (allowed, frozenset(every - allowed), hidden)
        with self._access_lock:
            if len(self._access) >= _AGENTS_KEPT:  # agent names come from callers: keep the memo bounded
                self._access.clear()
            self._access[agent] = found
        return found

    # -- stages 3 to 5 --------------------------------------------------------------------------------------------

    def query(self, query: str | Query) -> RouterResult:
        """The context for ``query`` (a string, or a ``Query`` with its agent, tags and metadata)."""
        q = _as_query(query)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.aquery(q))
        # Called from async code: run in a thread of its own rather than nest event loops (use ``aquery`` there).
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as one:
            return one.submit(asyncio.run, self.aquery(q)).result()

    async def aquery(self, query: str | Query) -> RouterResult:
        """``query``, awaitable: the sources are fetched concurrently on the running event loop."""
        started = time.perf_counter()
        q = _as_query(query)
        decision = self.route(q)
        _, _, hidden = self._agent(q.agent)
        fetched = await asyncio.gather(*(self._fetch(name, q, hidden) for name in decision.allowed))
        documents: list[Document] = []
        origins: list[tuple[str, SourceDocument]] = []
        redact = self.config.redact
        for item in fetched:
            for doc in item.documents:
                label = f"{item.name}:{doc.path}" if doc.path else item.name
                meta = {"source": item.name, "path": doc.path, **dict(doc.metadata)}
                documents.append(Document(doc.content, id=redact(label), url=redact(doc.url) if doc.url else None,
                                          title=redact(doc.title) if doc.title else None, metadata=meta))
                origins.append((item.name, doc))
        loop = asyncio.get_running_loop()
        many = await loop.run_in_executor(
            self._pool, lambda: extract_many(documents, q, settings=self.config.settings))
        chunks = tuple(
            Chunk(origins[p.document][0], origins[p.document][1].path, many.sources[p.document].label,
                  many.sources[p.document].url, p.citation, p.segment.score, p.segment.tokens, p.segment.matched,
                  p.segment)
            for p in many.passages)
        base = {f.name: getattr(many, f.name) for f in dataclasses.fields(ManyResult)}
        base.update(query=q, evaluation_time_ms=(time.perf_counter() - started) * 1000.0)
        return RouterResult(
            **base,
            matched_routes=decision.matched_routes,
            denied_sources=decision.denied,
            source_errors=tuple(item.error for item in fetched if item.error is not None),
            cache_hits=tuple(item.name for item in fetched if item.cached),
            chunks=chunks,
        )

    async def _fetch(self, name: str, query: Query, hidden: PathRules) -> _Fetched:
        source = self._sources[name]
        spec = self.config.sources[name]
        cache = self._cache if spec.cache and source.cacheable else None
        key = ""
        if cache is not None:
            key = cache_key(name, spec.fingerprint, query.text if source.query_dependent else None,
                            hidden.patterns)
            stored = cache.get(key)
            if stored is not None:
                return _Fetched(name, _visible(stored, hidden), cached=True)
        try:
            docs = await asyncio.wait_for(self._call(source, FetchRequest(query, hidden)), spec.timeout)
            if not isinstance(docs, Sequence) or not all(isinstance(d, SourceDocument) for d in docs):
                raise InputError(f"fetch returned {type(docs).__name__}, not a list of SourceDocument")
        except asyncio.TimeoutError:
            error = SourceError(name, "TimeoutError", f"no answer within its timeout of {spec.timeout:g} s")
            log.warning("source %r: %s", name, error.message)
            return _Fetched(name, error=error)
        except Exception as exc:  # noqa: BLE001 - any failure of one source is recorded, the others go on
            message = self.config.redact(str(exc) or type(exc).__name__)
            log.warning("source %r failed: %s: %s", name, type(exc).__name__, message)
            return _Fetched(name, error=SourceError(name, type(exc).__name__, message))
        visible = _visible(tuple(docs), hidden)
        if self.config.redact:
            visible = tuple(_redacted(d, self.config.redact) for d in visible)
        if cache is not None:
            cache.put(key, name, visible)
        return _Fetched(name, visible)

    async def _call(self, source: Source, request: FetchRequest) -> Sequence[SourceDocument]:
        if inspect.iscoroutinefunction(source.fetch):
            return await source.fetch(request)  # type: ignore[no-any-return]
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(self._pool, source.fetch, request)
        if inspect.isawaitable(result):
            return await result
        return result

    # -- cache ----------------------------------------------------------------------------------------------------

    def cache_stats(self) -> CacheStats:
        return self._require_cache().stats()

    def clear_cache(self, source: str | None = None) -> int:
        if source is not None and source not in self.config.sources:
            raise ConfigError(f"no source named {source!r} (known: {', '.join(self.config.sources)})")
        return self._require_cache().clear(source)

    def _require_cache(self) -> FetchCache:
        if self._cache is None:
            raise ConfigError("this router has no cache (add a cache: section to its config)")
        return self._cache

    def close(self) -> None:
        """Release the cache's files and the worker threads (idle ones at once; a running fetch finishes)."""
        if self._cache is not None:
            self._cache.close()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def __enter__(self) -> Router:  # noqa: PYI034 - Router is not meant to be subclassed
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _redacted(doc: SourceDocument, redact: Redactor) -> SourceDocument:
    """``doc`` with every secret written back as its placeholder: before it is cached or shown."""
    return SourceDocument(redact.content(doc.content), path=redact(doc.path) if doc.path else doc.path,
                          title=redact(doc.title) if doc.title else doc.title,
                          url=redact(doc.url) if doc.url else doc.url, metadata=redact.deep(dict(doc.metadata)))


def _visible(documents: tuple[SourceDocument, ...], hidden: PathRules) -> tuple[SourceDocument, ...]:
    """The documents no path rule hides (a custom source may not apply them itself)."""
    if not hidden:
        return documents
    return tuple(d for d in documents if d.path is None or not hidden.matches(d.path))


def _as_query(query: object) -> Query:
    if isinstance(query, Query):
        return query
    if isinstance(query, str):
        return Query(query)
    raise InputError(f"a router query is a string or a qatbe.Query, not {type(query).__name__}")
