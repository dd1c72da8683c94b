"""The scrape service: ``qatbe serve``, an ASGI app (Starlette, served by uvicorn) in front of ``extract`` and
``extract_many``. Needs the ``server`` extra (``pip install 'qatbe[server]'``).

Endpoints: ``POST /v1/extract`` (``url`` or ``source``, ``query``, ``tier`` or ``budget``, any option ``extract``
takes; answers ``Result.to_dict()``), ``POST /v1/extract_many`` (``documents: [{url | source, title, id,
metadata}]``, ``query``, ``budget``, options; answers ``ManyResult.to_dict()``), ``GET /healthz``,
``GET /openapi.json`` and ``GET /docs``.

Design: the event loop only reads requests, fetches URLs (``qatbe.fetching``'s guarded async client, one per
app) and writes answers; parsing and selection run in a worker thread, at most ``threads`` at once (1 by default:
the work holds the GIL most of the time, so more threads in one process would only take turns, and slow the event
loop's turns too; ``--workers`` adds processes). Limits: a request body over
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
import dataclasses
import hmac
import logging
import math
import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from .._optional import require
from ..errors import BlockedAddressError, ConfigError, FetchError, FetchTimeoutError, InputError, QatbeError
from ..fetching import FetchOptions, afetch_with, async_http_client, is_url
from ..many import Document, extract_many
from ..pipeline import Extractor
from ..settings import Settings

require("starlette", "server", "the qatbe service")
require("uvicorn", "server", "the qatbe service")
# orjson reads and writes JSON in a third of the standard library's time: at the median page that is a tenth of the
# extract's time per request.
orjson = require("orjson", "server", "the qatbe service")
import anyio  # after the checks above: anyio comes with starlette
import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

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


def _one_source(item: Mapping[str, Any], where: str) -> tuple[str | None, str | None]:
    url, source = item.get("url"), item.get("source")
    if source is not None and not isinstance(source, str):
        raise _Reject(422, f"{where}source must be a string (the page: HTML, markdown or text)")
    if url is not None and (not isinstance(url, str) or not is_url(url)):
        raise _Reject(422, f"{where}url must be one http(s) URL")
    return url, source


class Service:
    """The app's state: config, the guarded fetch client (opened with the app), the work limits."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self.client: Any = None
        self.requests = anyio.Semaphore(config.max_concurrency)
        self.cpu = anyio.CapacityLimiter(config.threads)

    async def run(self, work: Callable[[], Any]) -> Any:
        """``work`` in a worker thread (the event loop stays free)."""
        return await anyio.to_thread.run_sync(work, limiter=self.cpu, abandon_on_cancel=True)

    async def fetch(self, url: str, deadline: float) -> Document:
        left = deadline - time.monotonic()
        options = self.config.fetch
        if left < options.timeout:
            options = dataclasses.replace(options, timeout=max(left, 0.001))
        return await afetch_with(self.client, url, options)

    async def extract(self, body: Mapping[str, Any], deadline: float) -> dict[str, Any]:
        options = _options(body, _EXTRACT_KEYS)
        url, source = _one_source(body, "")
        if (url is None) == (source is None):
            raise _Reject(422, "give exactly one of url (a page to fetch) or source (the page itself)")
        extractor = Extractor(None, **options)  # options are checked before anything is fetched
        document = await self.fetch(url, deadline) if url is not None else source
        query = body.get("query")
        result = await self.run(lambda: extractor.extract(document, query).to_dict())  # type: ignore[arg-type]
        return dict(result)

    async def extract_many(self, body: Mapping[str, Any], deadline: float) -> dict[str, Any]:
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
        result = await self.run(lambda: extract_many(fetched, query, settings=settings))
        if errors:
            result = dataclasses.replace(result, errors=tuple(sorted(errors + list(result.errors),
                                                                     key=lambda e: e.index)))
        return dict(result.to_dict())

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


async def _read_body(request: Request, limit: int) -> Any:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _Reject(413, f"the request body is {int(declared):,} bytes; the limit is {limit:,}")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise _Reject(413, f"the request body is larger than the limit of {limit:,} bytes")
    try:
        body = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise _Reject(400, f"the request body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise _Reject(400, "the request body must be a JSON object")
    return body


def _authorized(request: Request, key: str | None) -> bool:
    if key is None:
        return True
    given = request.headers.get("x-api-key")
    auth = request.headers.get("authorization", "")
    if given is None and auth.lower().startswith("bearer "):
        given = auth[7:].strip()
    return given is not None and hmac.compare_digest(given.encode(), key.encode())


def _endpoint(service: Service,
              work: Callable[[Service, Mapping[str, Any], float], Awaitable[dict[str, Any]]]
              ) -> Callable[[Request], Awaitable[Response]]:
    async def handle(request: Request) -> Response:
        config = service.config
        if not _authorized(request, config.api_key):
            return _json(401, {"error": f"missing or wrong API key (Authorization: Bearer ..., {API_KEY_ENV})"})
        deadline = time.monotonic() + config.request_timeout
        try:
            with anyio.fail_after(config.request_timeout):  # a body sent slowly counts too
                body = await _read_body(request, config.max_body_bytes)
                async with service.requests:
                    return _json(200, await work(service, body, deadline))
        except _Reject as exc:
            return _json(exc.status, {"error": str(exc)})
        except QatbeError as exc:
            return _json(_status_of(exc), {"error": str(exc)})
        except TimeoutError:
            return _json(504, {"error": f"the request took longer than request_timeout={config.request_timeout:g} s"})
        except Exception:  # a bug: logged here, never sent to the client
            log.exception("qatbe service: %s %s failed", request.method, request.url.path)
            return _json(500, {"error": "internal error"})

    return handle


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

    def post(summary: str, schema: dict[str, Any], answer: str) -> dict[str, Any]:
        return {"post": {"summary": summary, "requestBody": {"required": True, "content": {
            "application/json": {"schema": schema}}}, "responses": {
            "200": {"description": answer, "content": {"application/json": {"schema": {"type": "object"}}}},
            **errors}}}

    return {
        "openapi": "3.1.0",
        "info": {"title": "qatbe", "version": __version__,
                 "description": "Query-aware, token-budgeted extraction of web pages and documents."},
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "paths": {
            "/v1/extract": post("One page cut to a token budget for a query", extract_body, "Result.to_dict()"),
            "/v1/extract_many": post("One cited context from many pages", many_body, "ManyResult.to_dict()"),
            "/healthz": {"get": {"summary": "liveness", "responses": {"200": {"description": "ok"}}}},
        },
    }


_DOCS = """<!doctype html><html><head><title>qatbe API</title><meta charset="utf-8">
<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui.css"></head>
<body><div id="ui"></div><script src="https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({url: "/openapi.json", dom_id: "#ui"});</script>
<noscript>The API description is at <a href="/openapi.json">/openapi.json</a>.</noscript></body></html>"""


def create_app(config: ServiceConfig | None = None) -> Starlette:
    """The ASGI app. ``config`` defaults to ``ServiceConfig()`` with the API key from ``QATBE_API_KEY``."""
    if config is None:
        config = ServiceConfig(api_key=os.environ.get(API_KEY_ENV) or None)
    service = Service(config)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        fetch = config.fetch
        async with async_http_client(timeout=fetch.timeout, allow_private=fetch.allow_private,
                                     allowed_networks=fetch.allowed_networks) as client:
            client.max_redirects = fetch.max_redirects
            service.client = client
            yield

    spec = openapi()

    async def openapi_json(request: Request) -> Response:
        return _json(200, spec)

    async def docs(request: Request) -> Response:
        return HTMLResponse(_DOCS)

    routes = [
        Route("/v1/extract", _endpoint(service, Service.extract), methods=["POST"]),
        Route("/v1/extract_many", _endpoint(service, Service.extract_many), methods=["POST"]),
        Route("/healthz", _healthz, methods=["GET"]),
        Route("/openapi.json", openapi_json, methods=["GET"]),
        Route("/docs", docs, methods=["GET"]),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


# -- qatbe serve ---------------------------------------------------------------------------------------------------

_ENV_ALLOW = "QATBE_SERVE_ALLOW_PRIVATE"  # how `qatbe serve` tells its worker processes (strictly "0" or "1")


def app_from_env() -> Starlette:
    """The app ``qatbe serve`` runs in each worker process (uvicorn's factory)."""
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
