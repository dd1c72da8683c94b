"""Where a router's documents come from: the source types, and the decorator that registers a new one.

A source is built once, when the router is built, from its options (every error names its key), and its
``fetch`` is called for each query that routes to it, with the query and the path rules that hide files from the
agent asking. ``fetch`` may be a coroutine (preferred: the router can cut it at its timeout) or a plain function
(run in a worker thread; the router stops waiting at the timeout, the thread finishes on its own).

File sources (``directory``, ``git_repo``) apply the path rules to a file's path before its content is read, so a
hidden file is never read, returned or cached. A ``directory`` source never reads outside its root: patterns may
not be absolute or hold ``..`` (refused at load), directories are walked without following links, and a file
reached through a link is read only when its real path is inside the root and is not hidden either.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import stat
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar
from urllib.parse import quote, urlsplit

from .._optional import require
from ..errors import ConfigError, FetchError, InputError
from ..query import Query
from .config import DEFAULT_TIMEOUT, Options, Redactor, SourceSpec, check_globs

FILE_TYPES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"html": (".html", ".htm"), "md": (".md", ".markdown"), "txt": (".txt",)})
DEFAULT_MAX_FILE_BYTES = 5_000_000


@dataclass(frozen=True)
class SourceDocument:
    """One document a source returns. ``path`` (relative, ``/``-separated) is what path rules match; documents
    without one (an API's results, inline text) are never hidden by path."""

    content: str | bytes
    path: str | None = None
    title: str | None = None
    url: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)


class PathRules:
    """``**`` globs (gitignore's syntax, matched by ``pathspec``) over a path relative to its source's root."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = tuple(sorted(set(patterns)))
        self._spec: Any = None
        if self.patterns:
            pathspec = require("pathspec", "router", "path rules")
            self._spec = pathspec.PathSpec.from_lines("gitignore", self.patterns)

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def matches(self, path: str) -> bool:
        return self._spec is not None and bool(self._spec.match_file(path))


@dataclass(frozen=True)
class FetchRequest:
    """What one fetch is for: the query, and the paths hidden from the agent asking (never read)."""

    query: Query
    hidden: PathRules


@dataclass(frozen=True)
class SourceContext:
    """What a source may need from its router: where relative paths start, and the redactor for secrets."""

    base_dir: Path
    redact: Redactor

    def path(self, value: str) -> Path:
        p = Path(value).expanduser()
        return p if p.is_absolute() else self.base_dir / p


class Source:
    """Base class of every source type. Subclasses read their options in ``__init__`` (``options.string("x")``
    and the like name the key at fault), and implement ``fetch``.

    ``query_dependent``: whether what ``fetch`` returns depends on the query text (the cache keys such a source by
    the query, any other by the source alone). ``cacheable``: whether the cache keeps it at all.
    """

    type_name: ClassVar[str] = ""
    query_dependent: ClassVar[bool] = False
    cacheable: ClassVar[bool] = True

    def __init__(self, name: str, options: Options, context: SourceContext) -> None:
        self.name = name
        self.context = context
        self.timeout = DEFAULT_TIMEOUT  # the source's ``timeout`` option, set once it is built

    def fetch(self, request: FetchRequest) -> Awaitable[Sequence[SourceDocument]] | Sequence[SourceDocument]:
        raise NotImplementedError


_S = TypeVar("_S", bound=type[Source])
_REGISTRY: dict[str, type[Source]] = {}


def register_source(type_name: str) -> Callable[[_S], _S]:
    """Class decorator: ``@register_source("tickets")`` makes ``type: tickets`` build that class."""
    if not isinstance(type_name, str) or not type_name:
        raise ConfigError("register_source needs a type name")

    def register(cls: _S) -> _S:
        if not (isinstance(cls, type) and issubclass(cls, Source)):
            raise ConfigError(f"register_source({type_name!r}) decorates a subclass of qatbe.router.Source")
        cls.type_name = type_name
        _REGISTRY[type_name] = cls
        return cls

    return register


def source_types() -> tuple[str, ...]:
    return tuple(sorted(_REGISTRY))


def build_source(spec: SourceSpec, context: SourceContext) -> Source:
    cls = _REGISTRY.get(spec.type)
    where = f"sources.{spec.name}"
    if cls is None:
        raise ConfigError(f"{where}.type: unknown source type {spec.type!r} (known: {', '.join(source_types())})")
    options = Options(where, spec.options)
    source = cls(spec.name, options, context)
    options.done()
    source.timeout = spec.timeout
    return source


# -- helpers for file sources -------------------------------------------------------------------------------------


class _Selector:
    """include / exclude patterns and file types of a file source, as read from its options."""

    def __init__(self, options: Options) -> None:
        self.include = PathRules(check_globs(options.key("include"), options.str_list("include", ["**/*"])))
        self.exclude = PathRules(check_globs(options.key("exclude"), options.str_list("exclude")))
        types = options.str_list("types", list(FILE_TYPES))
        for k, t in enumerate(types):
            if t not in FILE_TYPES:
                raise ConfigError(f"{options.key('types')}[{k}]: unknown file type {t!r} "
                                  f"(known: {', '.join(FILE_TYPES)})")
        self.suffixes = tuple(s for t in types for s in FILE_TYPES[t])
        self.max_bytes = options.integer("max_file_bytes", DEFAULT_MAX_FILE_BYTES, 1)

    def wants(self, path: str, hidden: PathRules) -> bool:
        """Whether the file at ``path`` (relative) is one to read: right type, included, not excluded or hidden."""
        return (path.lower().endswith(self.suffixes) and self.include.matches(path)
                and not self.exclude.matches(path) and not hidden.matches(path))


@register_source("inline")
class InlineSource(Source):
    """Text written in the config (instructions, rules): ``text``, and an optional ``title``."""

    cacheable = False

    def __init__(self, name: str, options: Options, context: SourceContext) -> None:
        super().__init__(name, options, context)
        self.text = options.string("text", required=True)
        self.title = options.opt_str("title")

    async def fetch(self, request: FetchRequest) -> Sequence[SourceDocument]:
        return [SourceDocument(self.text, title=self.title)]


@register_source("directory")
class DirectorySource(Source):
    """The files under ``root`` that match ``include`` (default ``**/*``) and not ``exclude``, of the given
    ``types`` (html, md, txt)."""

    def __init__(self, name: str, options: Options, context: SourceContext) -> None:
        super().__init__(name, options, context)
        root = context.path(options.string("root", required=True))
        if not root.is_dir():
            raise ConfigError(f"{options.key('root')}: {str(root)!r} is not a directory")
        self.root = os.path.realpath(root)
        self.select = _Selector(options)

    async def fetch(self, request: FetchRequest) -> Sequence[SourceDocument]:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, self.scan, request.hidden)

    def scan(self, hidden: PathRules) -> list[SourceDocument]:
        out: list[SourceDocument] = []
        root = self.root
        for folder, dirs, files in os.walk(root, followlinks=False):
            # A folder that is excluded or hidden is not walked (``.git/``, ``build/``; ``**/secrets/**``).
            dirs[:] = sorted(d for d in dirs if not self._skipped(os.path.join(folder, d), hidden))
            for file in sorted(files):
                full = os.path.join(folder, file)
                rel = PurePosixPath(Path(os.path.relpath(full, root))).as_posix()
                if not self.select.wants(rel, hidden):
                    continue
                doc = self._read(full, rel, hidden)
                if doc is not None:
                    out.append(doc)
        return out

    def _skipped(self, folder: str, hidden: PathRules) -> bool:
        rel = PurePosixPath(Path(os.path.relpath(folder, self.root))).as_posix() + "/"
        return self.select.exclude.matches(rel) or hidden.matches(rel)

    def _read(self, full: str, rel: str, hidden: PathRules) -> SourceDocument | None:
        real = os.path.realpath(full)
        if os.path.commonpath([real, self.root]) != self.root:
            return None  # a link that points out of the root
        real_rel = PurePosixPath(Path(os.path.relpath(real, self.root))).as_posix()
        if real_rel != rel and (hidden.matches(real_rel) or self.select.exclude.matches(real_rel)):
            return None  # a link to a hidden file
        try:
            fd = os.open(real, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > self.select.max_bytes:
                return None
            data = handle.read(self.select.max_bytes + 1)
        if len(data) > self.select.max_bytes:
            return None
        return SourceDocument(data, path=rel, metadata={"mtime": info.st_mtime})


@register_source("git_repo")
class GitSource(Source):
    """The files of a git repository at ``ref`` (default ``HEAD``), read with ``git ls-tree`` and ``git cat-file
    --batch``: no checkout is written. ``repo`` is the repository (a work tree or a bare one); ``include``,
    ``exclude`` and ``types`` as for ``directory``. Links and submodules in the tree are skipped."""

    def __init__(self, name: str, options: Options, context: SourceContext) -> None:
        super().__init__(name, options, context)
        self.repo = context.path(options.string("repo", required=True))
        if not self.repo.is_dir():
            raise ConfigError(f"{options.key('repo')}: {str(self.repo)!r} is not a directory")
        self.ref = options.string("ref", "HEAD")
        if not self.ref or self.ref.startswith("-"):
            raise ConfigError(f"{options.key('ref')}: {self.ref!r} is not a ref")
        self.select = _Selector(options)

    async def _git(self, *args: str, stdin: bytes | None = None) -> bytes:
        # The caller's GIT_DIR, GIT_INDEX_FILE and the like would point git at another repository: none is passed.
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
        proc = await asyncio.create_subprocess_exec(
            "git", "-C", str(self.repo), *args, env=env, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            out, err = await proc.communicate(stdin)
        except asyncio.CancelledError:  # cut at the source's timeout: no git process is left behind
            proc.kill()
            await proc.wait()
            raise
        if proc.returncode != 0:
            line = err.decode("utf-8", "replace").strip().splitlines()
            raise FetchError(f"git {args[0]} failed: {line[-1] if line else proc.returncode}")
        return out

    async def fetch(self, request: FetchRequest) -> Sequence[SourceDocument]:
        commit = (await self._git("rev-parse", "--verify", "--quiet", "--end-of-options",
                                  f"{self.ref}^{{commit}}")).decode().strip()
        listing = await self._git("ls-tree", "-r", "-z", "--full-tree", "-l", commit)
        wanted: list[tuple[str, str]] = []
        for entry in listing.split(b"\0"):
            if not entry:
                continue
            head, _, raw_path = entry.partition(b"\t")
            mode, kind, blob, length = head.split()
            path = raw_path.decode("utf-8", "surrogateescape")
            if kind != b"blob" or mode == b"120000":
                continue
            if int(length) > self.select.max_bytes or not self.select.wants(path, request.hidden):
                continue
            wanted.append((blob.decode(), path))
        if not wanted:
            return []
        batch = await self._git("cat-file", "--batch", stdin="".join(f"{sha}\n" for sha, _ in wanted).encode())
        out: list[SourceDocument] = []
        pos = 0
        for _, path in wanted:
            end = batch.index(b"\n", pos)
            header = batch[pos:end].split()
            size = int(header[2])
            content = batch[end + 1:end + 1 + size]
            pos = end + 1 + size + 1
            out.append(SourceDocument(content, path=path, metadata={"ref": self.ref, "commit": commit}))
        return out


def _networks(options: Options) -> tuple[str, ...]:
    nets = options.str_list("allowed_networks")
    for k, net in enumerate(nets):
        try:
            ipaddress.ip_network(net, strict=False)
        except ValueError:
            raise ConfigError(f"{options.key('allowed_networks')}[{k}]: {net!r} is not a network "
                              "(CIDR, e.g. 10.0.0.0/8)") from None
    return nets


def _check_url(key: str, url: str) -> None:
    parts = urlsplit(url.replace("{query}", "q"))
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{key}: {url!r} is not an http(s) URL")


def _fill(value: Any, text: str) -> Any:
    """A JSON body with ``{query}`` replaced by the query text in every string."""
    if isinstance(value, str):
        return value.replace("{query}", text)
    if isinstance(value, Mapping):
        return {k: _fill(v, text) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, text) for v in value]
    return value


@register_source("http_api")
class HttpApiSource(Source):
    """A JSON API asked with the query: ``url`` (``{query}`` is replaced by the URL-encoded query text),
    ``method`` (GET or POST), ``headers``, ``body`` (POST: JSON, ``{query}`` replaced in its strings),
    ``documents`` (a JSONPath to the documents, default ``$``) and, in each, ``text_field`` (default ``text``),
    ``title_field`` and ``url_field``. Requests go through the SSRF guard of ``qatbe.fetch`` (``qatbe.fetching.async_http_client``): private and loopback
    addresses are refused unless ``allow_private: true`` or listed in ``allowed_networks``."""

    def __init__(self, name: str, options: Options, context: SourceContext) -> None:
        super().__init__(name, options, context)
        self.url = options.string("url", required=True)
        _check_url(options.key("url"), self.url)
        self.method = options.choice("method", ("GET", "POST"), "GET")
        self.headers = options.str_map("headers")
        self.body = options.get("body")
        if self.body is not None and self.method != "POST":
            raise ConfigError(f"{options.key('body')}: a body is sent with method: POST only")
        path = options.string("documents", "$")
        jsonpath = require("jsonpath_ng", "router", "the http_api source")
        errors = require("jsonpath_ng.exceptions", "router", "the http_api source")
        try:
            self.documents = jsonpath.parse(path)
        except errors.JSONPathError as exc:
            raise ConfigError(f"{options.key('documents')}: {path!r} is not a JSONPath: {exc}") from None
        self.text_field = options.string("text_field", "text")
        self.title_field = options.opt_str("title_field") or "title"
        self.url_field = options.opt_str("url_field") or "url"
        self.allow_private = options.boolean("allow_private", False)
        self.allowed_networks = _networks(options)
        self.max_bytes = options.integer("max_bytes", DEFAULT_MAX_FILE_BYTES, 1)
        self.query_dependent = "{query}" in self.url or "{query}" in json.dumps(self.body)  # type: ignore[misc]

    async def fetch(self, request: FetchRequest) -> Sequence[SourceDocument]:
        from .. import fetching

        text = request.query.text
        url = self.url.replace("{query}", quote(text, safe=""))
        body = _fill(self.body, text) if self.body is not None else None
        client = fetching.async_http_client(timeout=self.timeout, allow_private=self.allow_private,
                                           allowed_networks=self.allowed_networks)
        # Redirects are followed (at most httpx's 20), each hop through the guard.
        async with client, client.stream(self.method, url, headers=dict(self.headers), json=body,
                                         follow_redirects=True) as response:
            if response.status_code >= 400:
                raise FetchError(f"HTTP {response.status_code} from the API")
            data = bytearray()
            async for chunk in response.aiter_bytes():
                data += chunk
                if len(data) > self.max_bytes:
                    raise FetchError(f"the API's answer is over max_bytes={self.max_bytes:,}")
        try:
            payload = json.loads(bytes(data))
        except ValueError:
            raise InputError("the API's answer is not JSON") from None
        out: list[SourceDocument] = []
        for match in self.documents.find(payload):
            item = match.value
            if isinstance(item, list):
                items = item
            else:
                items = [item]
            for entry in items:
                doc = self._document(entry)
                if doc is not None:
                    out.append(doc)
        return out

    def _document(self, entry: Any) -> SourceDocument | None:
        if isinstance(entry, str):
            return SourceDocument(entry)
        if not isinstance(entry, Mapping):
            return None
        text = entry.get(self.text_field)
        if not isinstance(text, str):
            return None
        title = entry.get(self.title_field)
        url = entry.get(self.url_field)
        return SourceDocument(text, title=title if isinstance(title, str) else None,
                              url=url if isinstance(url, str) else None)


@register_source("url")
class UrlSource(Source):
    """Web pages (``urls``: a list, or ``url``: one), fetched with ``qatbe.afetch`` and its SSRF guard
    (``allow_private``, ``allowed_networks`` as for ``http_api``; ``max_bytes`` per page)."""

    def __init__(self, name: str, options: Options, context: SourceContext) -> None:
        super().__init__(name, options, context)
        urls = list(options.str_list("urls"))
        if options.has("url"):
            urls.insert(0, options.string("url"))
        if not urls:
            raise ConfigError(f"{options.key('urls')}: a url source needs at least one URL")
        for k, url in enumerate(urls):
            _check_url(f"{options.key('urls')}[{k}]", url)
        self.urls = tuple(urls)
        self.allow_private = options.boolean("allow_private", False)
        self.allowed_networks = _networks(options)
        self.max_bytes = options.integer("max_bytes", 20_000_000, 1)

    async def fetch(self, request: FetchRequest) -> Sequence[SourceDocument]:
        from .. import fetching

        pages = await asyncio.gather(*(
            fetching.afetch(url, timeout=self.timeout, allow_private=self.allow_private,
                            allowed_networks=self.allowed_networks, max_bytes=self.max_bytes) for url in self.urls))
        return [SourceDocument(page.source or "", url=page.url or url, title=page.title,
                               metadata=dict(page.metadata or {}))
                for url, page in zip(self.urls, pages)]
