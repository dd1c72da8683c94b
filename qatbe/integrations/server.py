"""The scrape service: ``qatbe serve``, an ASGI app (Starlette, served by uvicorn) in front of ``extract`` and
``extract_many``. Needs the ``server`` extra (``pip install 'qatbe[server]'``).

Endpoints: ``POST /v1/extract`` (``url`` or ``source``, ``query``, ``tier`` or ``budget``, any option ``extract``
takes; answers ``Result.to_dict()``; or the page itself as the body, ``Content-Type: text/html``,
``text/markdown`` or ``text/plain``, with the query and options in the URL's query string),
``POST /v1/extract_many`` (``documents: [{url | source, title, id, metadata}]``, ``query``, ``budget``, options;
answers ``ManyResult.to_dict()``), ``GET /healthz``, ``GET /openapi.json`` and ``GET /docs``.

Design: the event loop only moves bytes (request bodies in, answers out) and fetches URLs (``qatbe.fetching``'s
guarded async client, one per app); reading the JSON body, the extract and writing the JSON answer run in a worker
thread, at most ``threads`` at once (1 by default: the work holds the GIL most of the time, so more threads in one
process would only take turns, and slow the event loop's turns too; ``--workers`` adds processes). The two ``/v1``
endpoints are plain ASGI (``ServiceApp``) in front of Starlette, which serves the rest. Limits: a request body over
``max_body_bytes`` is 413; a request that takes longer than ``request_timeout`` seconds, or whose fetch times
out, is 504; at most ``max_concurrency`` requests are worked on at once, the others wait their turn. Errors are
JSON ``{"error": "<qatbe's one-line message>"}``: 400 for a body that is not JSON or a refused URL, 422 for an
unknown or invalid option, 502 when the page cannot be fetched (HTTP error, not a page, too large), 500 (no
traceback, logged) for anything else.

Authentication: when the environment variable ``QATBE_API_KEY`` is set, every ``/v1`` request must carry it as
``Authorization: Bearer <key>`` or ``X-API-Key: <key>`` (401 otherwise); ``/healthz`` stays open.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import hmac
import logging
import math
import os
import queue
import sys
import threading
import time
import typing
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .._optional import require
from ..errors import BlockedAddressError, ConfigError, FetchError, FetchTimeoutError, InputError, QatbeError
from ..fetching import FetchOptions, afetch_with, async_client_for, is_url
from ..many import Document, extract_many
from ..pipeline import Extractor
from ..settings import Settings

require("starlette", "server", "the qatbe service")
require("uvicorn", "server", "the qatbe service")
# orjson reads a request body (a page's text as a JSON string, full of escapes) in half the standard library's
# time; at the median page that is still about a tenth of the extract's time.
require("orjson", "server", "the qatbe service")
import anyio  # after the checks above: anyio comes with starlette
import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from starlette.types import Lifespan, Receive, Scope, Send

log = logging.getLogger(__name__)

API_KEY_ENV = "QATBE_API_KEY"
_SETTINGS_FIELDS = tuple(f.name for f in dataclasses.fields(Settings))
_EXTRACT_KEYS = frozenset({"url", "source", "query"} | set(_SETTINGS_FIELDS))
_MANY_KEYS = frozenset({"documents", "query"} | set(_SETTINGS_FIELDS))
_DOCUMENT_KEYS = frozenset({"url", "source", "title", "id", "metadata"})


@dataclass(frozen=True)
class ServiceConfig:
    """The service's limits and fetch policy, validated once. ``threads``: extractions at once per process;
    ``max_concurrency``: requests worked on at once; ``fetch``: how URLs are fetched (``allow_private``,
    ``allowed_networks``, ``timeout``, ``max_bytes``)."""

    max_body_bytes: int = 10_000_000
    request_timeout: float = 30.0
    max_concurrency: int = 64
    threads: int = 1
    max_documents: int = 100
    fetch: FetchOptions = field(default_factory=FetchOptions)
    api_key: str | None = None

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_concurrency", "threads", "max_documents"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, not {value!r}")
        t = self.request_timeout
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t <= 0:
            raise ConfigError(f"request_timeout must be a positive number of seconds, not {t!r}")
        if not isinstance(self.fetch, FetchOptions):
            raise ConfigError("fetch must be a qatbe.FetchOptions")
        if self.api_key is not None and (not isinstance(self.api_key, str) or not self.api_key):
            raise ConfigError("api_key must be a non-empty string or None")


class _Reject(Exception):
    """An answer other than 200, with qatbe's one-line message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _status_of(exc: QatbeError) -> int:
    if isinstance(exc, FetchTimeoutError):
        return 504
    if isinstance(exc, BlockedAddressError):
        return 400
    if isinstance(exc, FetchError):
        return 502
    if isinstance(exc, (ConfigError, InputError)):
        return 422
    return 400


def _options(body: Mapping[str, Any], allowed: frozenset[str]) -> dict[str, Any]:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise _Reject(422, f"unknown option {unknown[0]!r}; known: {', '.join(sorted(allowed))}")
    return {k: v for k, v in body.items() if k in _SETTINGS_FIELDS}


# The page itself as the request body (``POST /v1/extract`` with one of these media types), the query and options
# in the URL's query string: no JSON to encode or parse around the page.
_RAW_FORMATS = {b"text/html": "html", b"application/xhtml+xml": "html", b"text/markdown": "markdown",
                b"text/x-markdown": "markdown", b"text/plain": "text"}
_QUERY_KEYS = frozenset({"query"} | set(_SETTINGS_FIELDS))
_TEXT_OPTIONS: frozenset[str] | None = None  # the options a query string gives as text (``_text_options``)


def _text_options() -> frozenset[str]:
    """The Settings fields whose value is text (str, a Literal of str, or either or None); the others come as JSON
    scalars (numbers, true/false, null) or, for a mapping or a callable, not in a query string at all."""
    global _TEXT_OPTIONS
    if _TEXT_OPTIONS is None:
        hints = typing.get_type_hints(Settings)
        text = {"query"}
        for name in _SETTINGS_FIELDS:
            kinds = typing.get_args(hints[name]) or (hints[name],)
            if typing.get_origin(hints[name]) is typing.Literal or str in kinds:
                text.add(name)
        _TEXT_OPTIONS = frozenset(text)
    return _TEXT_OPTIONS


def _query_options(query_string: bytes) -> dict[str, Any]:
    """The query and options of a raw-body request, from its URL's query string (``?query=...&tier=summary``)."""
    try:
        pairs = urllib.parse.parse_qsl(query_string.decode("utf-8"), keep_blank_values=True, strict_parsing=False,
                                       errors="strict")
    except UnicodeDecodeError:
        raise _Reject(400, "the query string is not UTF-8") from None
    options: dict[str, Any] = {}
    text = _text_options()
    for name, value in pairs:
        if name not in _QUERY_KEYS:
            known = ", ".join(sorted(_QUERY_KEYS))
            raise _Reject(422, f"unknown option {name!r} in the query string; known: {known}")
        if name in options:
            raise _Reject(422, f"option {name!r} is given twice in the query string")
        if name in text:
            options[name] = value
            continue
        try:
            parsed = orjson.loads(value)
        except orjson.JSONDecodeError:
            parsed = value  # Settings says what it expected
        if isinstance(parsed, (dict, list)):
            raise _Reject(422, f"option {name!r} cannot be given in a query string; post it in a JSON body")
        options[name] = parsed
    return options


def _media_type(content_type: bytes | None) -> tuple[bytes, str | None]:
    """The media type of a Content-Type header (lower case) and its charset parameter, if any."""
    if content_type is None:
        return b"", None
    media, _, params = content_type.partition(b";")
    charset = None
    for param in params.split(b";"):
        key, _, value = param.partition(b"=")
        if key.strip().lower() == b"charset":
            charset = value.strip().strip(b"\"'").decode("latin-1") or None
    return media.strip().lower(), charset


def _one_source(item: Mapping[str, Any], where: str) -> tuple[str | None, str | None]:
    url, source = item.get("url"), item.get("source")
    if source is not None and not isinstance(source, str):
        raise _Reject(422, f"{where}source must be a string (the page: HTML, markdown or text)")
    if url is not None and (not isinstance(url, str) or not is_url(url)):
        raise _Reject(422, f"{where}url must be one http(s) URL")
    return url, source


_T = TypeVar("_T")


class _Workers:
    """``threads`` worker threads that run the service's CPU work off the event loop, fed by one queue.

    Why not ``anyio.to_thread`` or ``loop.run_in_executor``: per call they cost 20-70 microseconds of CPU (context
    copies, run-vars, a capacity limiter and a shielded cancel scope; ``concurrent.futures``' locks and done
    callbacks), a few percent of the extract of a median page. A queue and ``call_soon_threadsafe`` are the whole
    mechanism. A request that times out cancels its future: its work is skipped if not started, and its result
    dropped if it was."""

    def __init__(self, loop: asyncio.AbstractEventLoop, threads: int) -> None:
        self.loop = loop
        self.queue: queue.SimpleQueue[tuple[asyncio.Future[Any], Callable[[], Any]] | None] = queue.SimpleQueue()
        self.threads = [threading.Thread(target=self._serve, name=f"qatbe-worker-{k}", daemon=True)
                        for k in range(threads)]
        for thread in self.threads:
            thread.start()

    async def run(self, work: Callable[[], _T]) -> _T:
        future: asyncio.Future[_T] = self.loop.create_future()
        self.queue.put((future, work))
        return await future

    def _serve(self) -> None:
        while (item := self.queue.get()) is not None:
            future, work = item
            if future.cancelled():
                continue
            try:
                answer: tuple[Any, BaseException | None] = (work(), None)
            except Exception as exc:  # noqa: BLE001 (handed to the request that waits for it)
                answer = (None, exc)
            try:
                self.loop.call_soon_threadsafe(_settle, future, *answer)
            except RuntimeError:  # the loop has closed: the server is gone, and the request with it
                return
            del item, future, work, answer

    def close(self) -> None:
        """Each thread ends after the work it has in hand."""
        for _ in self.threads:
            self.queue.put(None)


def _settle(future: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    if future.done():  # cancelled: the request timed out
        return
    if exc is None:
        future.set_result(result)
    else:
        future.set_exception(exc)


class Service:
    """The app's state: config, the guarded fetch client (opened with the app), the work limits."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self.client: Any = None
        self.workers: _Workers | None = None
        self.requests = asyncio.Semaphore(config.max_concurrency)

    async def run(self, work: Callable[[], _T]) -> _T:
        """``work`` in a worker thread (the event loop stays free)."""
        if self.workers is None:
            raise RuntimeError("the service's worker threads start with the app's lifespan")
        return await self.workers.run(work)

    async def fetch(self, url: str, deadline: float) -> Document:
        left = deadline - time.monotonic()
        options = self.config.fetch
        if left < options.timeout:
            options = dataclasses.replace(options, timeout=max(left, 0.001))
        return await afetch_with(self.client, url, options)

    async def extract(self, raw: bytes, deadline: float) -> bytes:
        """``POST /v1/extract``: the request body in, the JSON answer out. For a ``source``, reading the body,
        checking it and the extract are one turn of a worker thread; for a ``url``, the fetch happens on the
        event loop between two turns."""

        def read() -> bytes | tuple[Extractor, str, Any]:
            body = _parse(raw)
            options = _options(body, _EXTRACT_KEYS)
            url, source = _one_source(body, "")
            if (url is None) == (source is None):
                raise _Reject(422, "give exactly one of url (a page to fetch) or source (the page itself)")
            extractor = Extractor(None, **options)  # options are checked before anything is fetched
            if source is not None:
                return orjson.dumps(extractor.extract(source, body.get("query")).to_dict())
            assert url is not None
            return extractor, url, body.get("query")

        got = await self.run(read)
        if isinstance(got, bytes):
            return got
        extractor, url, query = got
        document = await self.fetch(url, deadline)
        return await self.run(lambda: orjson.dumps(extractor.extract(document, query).to_dict()))

    async def extract_raw(self, raw: bytes, fmt: str, charset: str | None, query_string: bytes) -> bytes:
        """``POST /v1/extract`` with the page as the body (``_RAW_FORMATS``): the body's bytes go to ``extract``
        as they are, decoded by its charset parameter when given (else found as for any bytes: BOM, ``<meta>``,
        UTF-8), the query and options come from the query string; one turn of a worker thread."""

        def work() -> bytes:
            options = _query_options(query_string)
            query = options.pop("query", None)
            options.setdefault("format", fmt)
            extractor = Extractor(None, **options)
            source: str | bytes = raw
            if charset is not None:
                try:
                    source = raw.decode(charset)
                except (LookupError, UnicodeDecodeError) as exc:
                    raise _Reject(400, f"the request body does not decode as {charset}: {exc}") from None
            return orjson.dumps(extractor.extract(source, query).to_dict())

        return await self.run(work)

    async def extract_many(self, raw: bytes, deadline: float) -> bytes:
        """``POST /v1/extract_many``: the body is read and checked in a worker thread, the URLs fetched on the
        event loop, the extract and the answer made in a worker thread."""
        body = await self.run(lambda: _parse(raw))
        options = _options(body, _MANY_KEYS)
        items = body.get("documents")
        if not isinstance(items, list) or not items:
            raise _Reject(422, "documents must be a non-empty list of {url | source, title, id, metadata}")
        if len(items) > self.config.max_documents:
            raise _Reject(422, f"at most {self.config.max_documents} documents per request, not {len(items)}")
        documents: list[Document] = []
        for k, item in enumerate(items):
            if not isinstance(item, dict):
                raise _Reject(422, f"documents[{k}] must be an object with url or source")
            unknown = sorted(set(item) - _DOCUMENT_KEYS)
            if unknown:
                raise _Reject(422, f"documents[{k}]: unknown field {unknown[0]!r}; known: "
                                   f"{', '.join(sorted(_DOCUMENT_KEYS))}")
            url, source = _one_source(item, f"documents[{k}].")
            if url is None and source is None:
                raise _Reject(422, f"documents[{k}] needs url or source")
            try:
                documents.append(Document(source, id=item.get("id"), url=url, title=item.get("title"),
                                          metadata=item.get("metadata")))
            except InputError as exc:
                raise _Reject(422, str(exc)) from None
        settings = Settings().with_(**options)  # checked before anything is fetched
        fetched, errors = await self._fetch_all(documents, deadline)
        query = body.get("query")

        def work() -> bytes:
            result = extract_many(fetched, query, settings=settings)
            if errors:
                result = dataclasses.replace(result, errors=tuple(sorted(errors + list(result.errors),
                                                                         key=lambda e: e.index)))
            return orjson.dumps(result.to_dict())

        return await self.run(work)

    async def _fetch_all(self, documents: list[Document], deadline: float) -> tuple[list[Document], list[Any]]:
        """URL documents fetched concurrently (at most ``fetch.concurrency`` at once); a failed one is an empty
        document and an ``ItemError``, as ``extract_many`` makes them (``qatbe.fetching.fetch_documents``)."""
        from ..types import ItemError

        out = list(documents)
        errors: list[ItemError] = []
        limit = anyio.Semaphore(self.config.fetch.concurrency)

        async def one(k: int, given: Document) -> None:
            assert given.url is not None
            async with limit:
                try:
                    got = await self.fetch(given.url, deadline)
                except FetchError as exc:
                    errors.append(ItemError.of(k, given.id or given.url, exc))
                    out[k] = Document("", id=given.id, url=given.url, title=given.title, metadata=given.metadata)
                    return
            metadata = dict(got.metadata or {})
            metadata.update(given.metadata or {})
            out[k] = Document(got.source, id=given.id, url=given.url, title=given.title, metadata=metadata)

        async with anyio.create_task_group() as group:
            for k, doc in enumerate(documents):
                if doc.source is None:
                    group.start_soon(one, k, doc)
        return out, errors


def _json(status: int, data: object) -> Response:
    return Response(orjson.dumps(data), status_code=status, media_type="application/json")


class _Gone(Exception):
    """The client went away before its request body arrived: nothing to answer."""


async def _read_body(declared: bytes | None, receive: Receive, limit: int) -> bytes:
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _Reject(413, f"the request body is {int(declared):,} bytes; the limit is {limit:,}")
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _Gone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _Reject(413, f"the request body is larger than the limit of {limit:,} bytes")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _parse(raw: bytes) -> dict[str, Any]:
    """A request body as a JSON object (in a worker thread: a large body takes milliseconds to parse)."""
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise _Reject(400, f"the request body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise _Reject(400, "the request body must be a JSON object")
    return body


def _authorized(given: bytes | None, authorization: bytes | None, key: bytes) -> bool:
    if given is None and authorization is not None and authorization[:7].lower() == b"bearer ":
        given = authorization[7:].strip()
    return given is not None and hmac.compare_digest(given, key)


if sys.version_info >= (3, 11):
    # Why asyncio's and not anyio.fail_after: anyio's cancel scope looks up the running library and task several
    # times on entry and exit, about a sixth of the event loop thread's CPU time a request here.
    _time_limit = asyncio.timeout
else:  # pragma: no cover (CI runs 3.11)

    @asynccontextmanager
    async def _time_limit(seconds: float) -> AsyncIterator[None]:
        with anyio.fail_after(seconds):
            yield


_Work = Callable[["Service", bytes, float], Awaitable[bytes]]
_JSON_HEADERS = ((b"content-type", b"application/json"),)


class ServiceApp:
    """The service's ASGI app: ``POST /v1/extract`` and ``POST /v1/extract_many`` are answered here, everything
    else (``/healthz``, ``/openapi.json``, ``/docs``, 404, 405, the lifespan that opens the fetch client) by the
    Starlette app ``starlette``.

    Why the two endpoints are plain ASGI and not Starlette routes: per request, Starlette's middleware stack,
    routing, ``Request``, body stream and ``Response`` cost several percent of the extract of a median page;
    reading the body, the limits and the answer take a few lines of ASGI here."""

    def __init__(self, service: Service, routes: Sequence[Route], lifespan: Lifespan[Starlette]) -> None:
        self.service = service
        self.endpoints: dict[str, _Work] = {"/v1/extract": Service.extract, "/v1/extract_many": Service.extract_many}
        key = service.config.api_key
        self._key = key.encode() if key is not None else None
        # The two endpoints are routes too, so that Starlette answers 405 to another method (and a POST that
        # reaches them through Starlette comes back here).
        own = [Route(path, self, methods=["POST"]) for path in self.endpoints]
        self.starlette = Starlette(routes=[*own, *routes], lifespan=lifespan)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            path, root = scope["path"], scope.get("root_path", "")
            work = self.endpoints.get(path[len(root):] if root and path.startswith(root) else path)
            if work is not None:
                status, data = await self._answer(work, scope, receive)
                if status:
                    await send({"type": "http.response.start", "status": status,
                                "headers": [*_JSON_HEADERS, (b"content-length", b"%d" % len(data))]})
                    await send({"type": "http.response.body", "body": data})
                return
        await self.starlette(scope, receive, send)

    async def _answer(self, work: _Work, scope: Scope, receive: Receive) -> tuple[int, bytes]:
        """The status and JSON body of the answer (status 0: the client is gone, no answer)."""
        service = self.service
        config = service.config
        declared = api_key = authorization = content_type = None
        for name, value in scope["headers"]:
            if name == b"content-length":
                declared = value
            elif name == b"x-api-key":
                api_key = value
            elif name == b"authorization":
                authorization = value
            elif name == b"content-type":
                content_type = value
        if self._key is not None and not _authorized(api_key, authorization, self._key):
            return 401, orjson.dumps({"error": f"missing or wrong API key (Authorization: Bearer ..., "
                                               f"{API_KEY_ENV})"})
        deadline = time.monotonic() + config.request_timeout
        media, charset = _media_type(content_type)
        raw_format = _RAW_FORMATS.get(media) if work is Service.extract else None
        try:
            async with _time_limit(config.request_timeout):  # a body sent slowly counts too
                body = await _read_body(declared, receive, config.max_body_bytes)
                async with service.requests:
                    if raw_format is not None:
                        return 200, await service.extract_raw(body, raw_format, charset, scope["query_string"])
                    return 200, await work(service, body, deadline)
        except _Gone:
            return 0, b""
        except _Reject as exc:
            status, message = exc.status, str(exc)
        except QatbeError as exc:
            status, message = _status_of(exc), str(exc)
        except TimeoutError:
            status, message = 504, f"the request took longer than request_timeout={config.request_timeout:g} s"
        except Exception:  # a bug: logged here, never sent to the client
            log.exception("qatbe service: POST %s failed", scope["path"])
            status, message = 500, "internal error"
        return status, orjson.dumps({"error": message})


async def _healthz(request: Request) -> Response:
    from .._backend import BACKEND
    from .._version import __version__

    return _json(200, {"status": "ok", "version": __version__, "backend": BACKEND})


def openapi() -> dict[str, Any]:
    """The service's OpenAPI 3.1 description (served at /openapi.json)."""
    from .._version import __version__

    option_props = {name: {"description": f"qatbe.Settings.{name}"} for name in _SETTINGS_FIELDS}
    error = {"description": "error", "content": {"application/json": {"schema": {
        "type": "object", "properties": {"error": {"type": "string"}}}}}}
    errors = {str(c): error for c in (400, 401, 413, 422, 502, 504)}
    document = {"type": "object", "additionalProperties": False, "properties": {
        "url": {"type": "string", "format": "uri"}, "source": {"type": "string"}, "title": {"type": "string"},
        "id": {"type": "string"}, "metadata": {"type": "object"}}}
    extract_body = {"type": "object", "additionalProperties": False, "properties": {
        "url": {"type": "string", "format": "uri", "description": "page to fetch (or give source)"},
        "source": {"type": "string", "description": "the page itself: HTML, markdown or text"},
        "query": {"type": ["string", "null"]}, **option_props}}
    many_body = {"type": "object", "additionalProperties": False, "required": ["documents"], "properties": {
        "documents": {"type": "array", "items": document}, "query": {"type": ["string", "null"]}, **option_props}}

    def post(summary: str, schema: dict[str, Any], answer: str, raw: bool = False) -> dict[str, Any]:
        content: dict[str, Any] = {"application/json": {"schema": schema}}
        operation: dict[str, Any] = {"summary": summary}
        if raw:  # the page itself as the body, the query and options in the query string
            page = {"schema": {"type": "string", "description": "the page itself (charset parameter honoured)"}}
            content.update({media.decode(): page for media in _RAW_FORMATS})
            operation["parameters"] = [
                {"name": name, "in": "query", "required": False, "schema": {"type": "string"},
                 "description": "with a page as the body: " + ("the query" if name == "query"
                                                               else f"qatbe.Settings.{name}")}
                for name in sorted(_QUERY_KEYS)]
        operation["requestBody"] = {"required": True, "content": content}
        operation["responses"] = {
            "200": {"description": answer, "content": {"application/json": {"schema": {"type": "object"}}}},
            **errors}
        return {"post": operation}

    return {
        "openapi": "3.1.0",
        "info": {"title": "qatbe", "version": __version__,
                 "description": "Query-aware, token-budgeted extraction of web pages and documents."},
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "paths": {
            "/v1/extract": post("One page cut to a token budget for a query", extract_body, "Result.to_dict()",
                                raw=True),
            "/v1/extract_many": post("One cited context from many pages", many_body, "ManyResult.to_dict()"),
            "/healthz": {"get": {"summary": "liveness", "responses": {"200": {"description": "ok"}}}},
        },
    }


_DOCS = """<!doctype html><html><head><title>qatbe API</title><meta charset="utf-8">
<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui.css"></head>
<body><div id="ui"></div><script src="https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({url: "/openapi.json", dom_id: "#ui"});</script>
<noscript>The API description is at <a href="/openapi.json">/openapi.json</a>.</noscript></body></html>"""


def create_app(config: ServiceConfig | None = None) -> ServiceApp:
    """The ASGI app. ``config`` defaults to ``ServiceConfig()`` with the API key from ``QATBE_API_KEY``."""
    if config is None:
        config = ServiceConfig(api_key=os.environ.get(API_KEY_ENV) or None)
    service = Service(config)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        async with async_client_for(config.fetch) as client:
            service.client = client
            service.workers = _Workers(asyncio.get_running_loop(), config.threads)
            try:
                yield
            finally:
                service.workers.close()

    spec = openapi()

    async def openapi_json(request: Request) -> Response:
        return _json(200, spec)

    async def docs(request: Request) -> Response:
        return HTMLResponse(_DOCS)

    routes = [
        Route("/healthz", _healthz, methods=["GET"]),
        Route("/openapi.json", openapi_json, methods=["GET"]),
        Route("/docs", docs, methods=["GET"]),
    ]
    return ServiceApp(service, routes, lifespan)


# -- qatbe serve ---------------------------------------------------------------------------------------------------

_ENV_ALLOW = "QATBE_SERVE_ALLOW_PRIVATE"  # how `qatbe serve` tells its worker processes (strictly "0" or "1")


def keep_freed_memory() -> bool:
    """Tell glibc's allocator to keep freed memory in the process (``mallopt``: blocks under 16 MiB come from the
    heap, and up to 64 MiB free at its top stay there) instead of giving it back to the kernel after each request.
    Returns whether it applied (glibc only; elsewhere a no-op).

    Why: every request allocates and frees buffers the size of its page (the body, its text, the parse). With
    glibc's default thresholds those are fresh pages each time, and the kernel's page faults and zeroing of them
    are about a third of what receiving a median page over HTTP costs the service. ``qatbe serve`` calls
    it in each worker process; the price is that a worker keeps the memory of its largest recent requests."""
    import ctypes
    import platform

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    libc = ctypes.CDLL(None)
    m_trim_threshold, m_mmap_threshold = -1, -3  # <malloc.h>
    return bool(libc.mallopt(m_mmap_threshold, 16 << 20)) and bool(libc.mallopt(m_trim_threshold, 64 << 20))


def app_from_env() -> ServiceApp:
    """The app ``qatbe serve`` runs in each worker process (uvicorn's factory)."""
    keep_freed_memory()
    flag = os.environ.get(_ENV_ALLOW, "0")
    if flag not in ("0", "1"):
        raise ConfigError(f"{_ENV_ALLOW} must be 0 or 1, not {flag!r}")
    return create_app(ServiceConfig(api_key=os.environ.get(API_KEY_ENV) or None,
                                    fetch=FetchOptions(allow_private=flag == "1")))


def main(argv: Sequence[str]) -> int:
    """``qatbe serve [--host 127.0.0.1] [--port 8000] [--workers N] [--allow-private-networks]``."""
    import uvicorn

    parser = argparse.ArgumentParser(prog="qatbe serve", description="Run the qatbe HTTP service (uvicorn).")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default: 1)")
    parser.add_argument("--allow-private-networks", action="store_true",
                        help="let the service fetch loopback and private addresses (intranets; off by default)")
    args = parser.parse_args(list(argv))
    if args.workers < 1:
        raise ConfigError(f"--workers must be at least 1, not {args.workers}")
    os.environ[_ENV_ALLOW] = "1" if args.allow_private_networks else "0"
    uvicorn.run("qatbe.integrations.server:app_from_env", factory=True, host=args.host, port=args.port,
                workers=args.workers, log_level="info", access_log=False)
    return 0
