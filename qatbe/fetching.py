"""The load stage for URLs: ``fetch``/``afetch`` a page into a ``qatbe.Document``, behind an SSRF guard.

The guard sits where the socket is opened, not only where the URL is read: the clients built here
(``http_client``, ``async_http_client``) carry a network backend that resolves every host once, refuses the
connection when any of its addresses is loopback, private, link-local, reserved, multicast, unspecified or a
cloud-metadata address (IPv4, IPv6 and IPv4 embedded in IPv6), connects to the address it checked (so a DNS
answer that changes between the check and the connect, "DNS rebinding", cannot reach an internal host) and then
checks the peer address of the socket once more. Every request, redirect hop and new connection goes through it.
``allow_private=True`` turns the guard off; ``allowed_networks`` opens only the networks named.

Why a network backend and not a check of the URL alone: a URL's host can resolve to one address when checked and
to another when the client connects, and a redirect can point anywhere; only the connecting code sees the address
actually used. httpcore (httpx's transport layer) takes the backend as a documented parameter.

``timeout`` is a total deadline for one fetch (redirects, connects, every read): the backend's streams read the
deadline of the fetch under way (a context variable, so concurrent fetches on one client each keep their own) and
never wait past it, so a server that trickles a byte at a time cannot hold a fetch open. The body is streamed and
refused past ``max_bytes``.

httpx is imported only when a client is built or a URL fetched, never by ``import qatbe``.
"""

from __future__ import annotations

import contextlib
import contextvars
import email.utils
import functools
import ipaddress
import math
import re
import socket
import ssl
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .document import Document
from .errors import BlockedAddressError, ConfigError, FetchError, FetchTimeoutError, InputError
from .types import ItemError

if TYPE_CHECKING:
    import httpx

__all__ = [
    "FetchOptions",
    "afetch",
    "afetch_with",
    "async_client_for",
    "async_http_client",
    "client_for",
    "fetch",
    "fetch_documents",
    "fetch_with",
    "guard_url",
    "http_client",
    "is_url",
]

_IP = ipaddress.IPv4Address | ipaddress.IPv6Address
_NET = ipaddress.IPv4Network | ipaddress.IPv6Network

# Cloud metadata services that sit outside the ranges ``is_global`` already refuses (169.254.169.254 and
# fd00:ec2::254 are link-local and unique-local): Alibaba's 100.100.100.200 is in the shared (CGNAT) range, refused
# as not global too; they are named here so that an allow-list of a wider network never opens them.
_METADATA = frozenset(ipaddress.ip_address(a) for a in (
    "169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254", "168.63.129.16",
))
_NAT64 = ipaddress.ip_network("64:ff9b::/96")

# Content types read as a page; anything else (PDF, images, archives, JSON) is refused with its type named.
_TEXT_TYPES = frozenset({
    "text/html", "application/xhtml+xml", "text/markdown", "text/x-markdown", "text/plain",
})
_URL = re.compile(r"https?://[^\s<>\"']+", re.IGNORECASE)
_CHUNK = 65_536
_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("qatbe_fetch_deadline", default=None)
_USER_AGENT = "qatbe-fetch/1 (+https://pypi.org/project/qatbe/)"
# The body is bounded as it arrives (raw bytes), then decoded here with the same bound: only codings decoded here
# are asked for.
_ACCEPT = {"Accept-Encoding": "gzip, deflate", "Accept": "text/html, application/xhtml+xml, text/markdown, "
           "text/plain;q=0.9, */*;q=0.1"}
_TimeoutErrors = (TimeoutError, socket.timeout)


# -- options -----------------------------------------------------------------------------------------------------


def _networks(value: object) -> tuple[_NET, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ConfigError(f"allowed_networks must be a list of networks such as '10.1.0.0/16', not {value!r}")
    out: list[_NET] = []
    for item in value:
        try:
            out.append(ipaddress.ip_network(item, strict=False))
        except (TypeError, ValueError):
            raise ConfigError(f"allowed_networks: {item!r} is not a network such as '10.1.0.0/16'") from None
    return tuple(out)


@dataclass(frozen=True)
class FetchOptions:
    """How URLs are fetched, validated once: by ``fetch``, ``extract_many(fetch_options=...)``, the CLI and the
    service. ``timeout`` (seconds) is the total time of one fetch; ``concurrency`` the most fetches at once when
    many URLs are fetched together."""

    timeout: float = 10.0
    max_bytes: int = 20_000_000
    allow_private: bool = False
    allowed_networks: tuple[str, ...] = ()
    max_redirects: int = 10
    concurrency: int = 8

    def __post_init__(self) -> None:
        t = self.timeout
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t <= 0:
            raise ConfigError(f"timeout must be a positive number of seconds, not {t!r}")
        for name, low in (("max_bytes", 1), ("max_redirects", 0), ("concurrency", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(f"{name} must be an integer >= {low}, not {value!r}")
        if not isinstance(self.allow_private, bool):
            raise ConfigError(f"allow_private must be True or False, not {self.allow_private!r}")
        object.__setattr__(self, "allowed_networks", tuple(str(n) for n in _networks(self.allowed_networks)))


# -- the guard ---------------------------------------------------------------------------------------------------


def _literal(host: str) -> _IP | None:
    """The address a host names without DNS: an IP literal, or a legacy IPv4 form the C resolver also accepts
    (``2130706433``, ``0x7f.1``, ``0177.0.0.1``, ``127.1``), which would otherwise slip past a text check."""
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        pass
    if re.fullmatch(r"[0-9a-fA-FxX.]+", host) and re.search(r"\d", host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def _embedded(ip: _IP) -> _IP | None:
    """The IPv4 address inside an IPv6 one (mapped, 6to4, Teredo, NAT64), whose own class decides."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip.sixtofour is not None:
            return ip.sixtofour
        if ip.teredo is not None:
            return ip.teredo[1]
        if ip in _NAT64:
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def _refusal(ip: _IP, allowed: Sequence[_NET]) -> str | None:
    """Why ``ip`` may not be connected to, or None when it may."""
    if ip in _METADATA:
        return "a cloud metadata address"
    inner = _embedded(ip)
    if inner is not None:
        why = _refusal(inner, allowed)
        return None if why is None else f"{why} (inside {ip})"
    if any(ip.version == net.version and ip in net for net in allowed):
        return None
    for test, why in (("is_loopback", "a loopback address"), ("is_unspecified", "an unspecified address"),
                      ("is_link_local", "a link-local address"), ("is_multicast", "a multicast address"),
                      ("is_reserved", "a reserved address"), ("is_private", "a private address")):
        if getattr(ip, test):
            return why
    if not ip.is_global:
        return "a non-public address"
    return None


class _Guard:
    """The guard's policy for one client: what it refuses, and the resolution of a host to checked addresses."""

    def __init__(self, allow_private: bool, allowed_networks: object) -> None:
        if not isinstance(allow_private, bool):
            raise ConfigError(f"allow_private must be True or False, not {allow_private!r}")
        self.off = allow_private
        self.allowed = _networks(allowed_networks)

    def check(self, host: str, ips: Sequence[_IP]) -> None:
        if self.off:
            return
        for ip in ips:
            why = _refusal(ip, self.allowed)
            if why is not None:
                shown = host if host == str(ip) else f"{host} ({ip})"
                raise BlockedAddressError(
                    f"refused to connect to {shown}: {why}; pass allow_private=True or allowed_networks=[...] "
                    "to reach it (--allow-private-networks on the command line)")

    def resolve(self, host: str, port: int) -> list[_IP]:
        """Every address ``host`` resolves to, checked; refused when any of them is refused."""
        literal = _literal(host)
        if literal is not None:
            ips: list[_IP] = [literal]
        else:
            try:
                infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except (OSError, UnicodeError) as exc:
                raise FetchError(f"cannot resolve {host}: {exc}") from None
            ips = list(dict.fromkeys(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos))
        self.check(host, ips)
        return ips

    def peer(self, host: str, stream: Any) -> None:
        """Check the address the socket is connected to (a second look, after the connect)."""
        sock = stream.get_extra_info("socket")
        if sock is None or self.off:
            return
        try:
            address = sock.getpeername()[0]
        except (OSError, IndexError, TypeError):
            return
        self.check(host, [ipaddress.ip_address(str(address).split("%", 1)[0])])


def guard_url(url: str, *, allow_private: bool = False, allowed_networks: Iterable[str] = ()) -> None:
    """Refuse ``url`` (``BlockedAddressError``) when its host resolves to an address the guard refuses, and any
    URL that is not http(s) (``FetchError``). The clients below check again at connect time; this is the early
    check for code that wants to refuse before building a request."""
    guard = _Guard(allow_private, allowed_networks)
    host, port = _host_port(url)
    if not guard.off:
        guard.resolve(host, port)


def _host_port(url: str) -> tuple[str, int]:
    if not isinstance(url, str):
        raise InputError(f"url must be a string, not {type(url).__name__}")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise FetchError(f"not a valid URL: {url!r} ({exc})") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise FetchError(f"only http and https URLs can be fetched, not {url!r}")
    if not parts.hostname:
        raise FetchError(f"the URL has no host: {url!r}")
    return parts.hostname, port or (443 if parts.scheme.lower() == "https" else 80)


def _remaining(timeout: float | None) -> float | None:
    """``timeout`` cut to what is left of the current fetch's deadline; a ReadTimeout when nothing is."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        import httpcore

        raise httpcore.ReadTimeout("the fetch's total time ran out")
    return left if timeout is None else min(timeout, left)


def _backends(guard: _Guard) -> tuple[Any, Any]:
    """The sync and async httpcore network backends that enforce ``guard`` (built on first use: httpcore is
    imported only when a client is made)."""
    import httpcore

    class Stream(httpcore.NetworkStream):
        def __init__(self, inner: httpcore.NetworkStream) -> None:
            self.inner = inner

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            return self.inner.read(max_bytes, _remaining(timeout))

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            self.inner.write(buffer, _remaining(timeout))

        def close(self) -> None:
            self.inner.close()

        def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                      timeout: float | None = None) -> httpcore.NetworkStream:
            return Stream(self.inner.start_tls(ssl_context, server_hostname, _remaining(timeout)))

        def get_extra_info(self, info: str) -> Any:
            return self.inner.get_extra_info(info)

    class Backend(httpcore.NetworkBackend):
        def __init__(self) -> None:
            self.inner = httpcore.SyncBackend()

        def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                        local_address: str | None = None, socket_options: Any = None) -> httpcore.NetworkStream:
            # Refused here, before any packet is sent; then connected to the very addresses checked.
            targets = [host] if guard.off else [str(ip) for ip in guard.resolve(host, port)]
            last: Exception | None = None
            for target in targets:
                try:
                    stream = self.inner.connect_tcp(target, port, _remaining(timeout), local_address,
                                                    socket_options)
                except httpcore.ConnectError as exc:
                    last = exc
                    continue
                try:
                    guard.peer(host, stream)
                except BaseException:
                    stream.close()
                    raise
                return Stream(stream)
            raise last or httpcore.ConnectError(f"no address to connect to for {host}")

        def connect_unix_socket(self, path: str, timeout: float | None = None,
                                socket_options: Any = None) -> httpcore.NetworkStream:
            raise BlockedAddressError("the fetch clients connect over TCP only")

        def sleep(self, seconds: float) -> None:
            self.inner.sleep(seconds)

    class AsyncStream(httpcore.AsyncNetworkStream):
        def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
            self.inner = inner

        async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            return await self.inner.read(max_bytes, _remaining(timeout))

        async def write(self, buffer: bytes, timeout: float | None = None) -> None:
            await self.inner.write(buffer, _remaining(timeout))

        async def aclose(self) -> None:
            await self.inner.aclose()

        async def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                            timeout: float | None = None) -> httpcore.AsyncNetworkStream:
            return AsyncStream(await self.inner.start_tls(ssl_context, server_hostname, _remaining(timeout)))

        def get_extra_info(self, info: str) -> Any:
            return self.inner.get_extra_info(info)

    class AsyncBackend(httpcore.AsyncNetworkBackend):
        def __init__(self) -> None:
            self.inner = httpcore.AnyIOBackend()

        async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                              local_address: str | None = None,
                              socket_options: Any = None) -> httpcore.AsyncNetworkStream:
            import anyio.to_thread

            if guard.off:
                targets = [host]
            elif _literal(host) is not None:
                targets = [str(ip) for ip in guard.resolve(host, port)]
            else:  # DNS blocks: off the event loop
                targets = [str(ip) for ip in await anyio.to_thread.run_sync(guard.resolve, host, port)]
            last: Exception | None = None
            for target in targets:
                try:
                    stream = await self.inner.connect_tcp(target, port, _remaining(timeout), local_address,
                                                          socket_options)
                except httpcore.ConnectError as exc:
                    last = exc
                    continue
                try:
                    guard.peer(host, stream)
                except BaseException:
                    await stream.aclose()
                    raise
                return AsyncStream(stream)
            raise last or httpcore.ConnectError(f"no address to connect to for {host}")

        async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                      socket_options: Any = None) -> httpcore.AsyncNetworkStream:
            raise BlockedAddressError("the fetch clients connect over TCP only")

        async def sleep(self, seconds: float) -> None:
            await self.inner.sleep(seconds)

    return Backend(), AsyncBackend()


def _check_scheme(request: Any) -> None:
    if request.url.scheme not in ("http", "https"):
        raise FetchError(f"only http and https URLs can be fetched, not {str(request.url)!r}")


async def _acheck_scheme(request: Any) -> None:
    _check_scheme(request)


@functools.lru_cache(maxsize=1)
def _ssl_context() -> ssl.SSLContext:
    """httpx's default context (certificates verified, certifi's roots), made once: loading the roots takes tens
    of milliseconds, and a context is safe to share between clients."""
    import httpx

    return httpx.create_ssl_context()


def _client_options(timeout: float) -> dict[str, Any]:
    """What the sync and async clients share. Environment proxies are not used (``trust_env=False``): the guard
    checks the address connected to, and a proxy would be that address."""
    return {"timeout": timeout, "trust_env": False, "headers": {"User-Agent": _USER_AGENT}}


def http_client(*, timeout: float, allow_private: bool = False,
                allowed_networks: Iterable[str] = ()) -> httpx.Client:
    """An ``httpx.Client`` whose every connection (first request, each redirect, each new connection of the pool)
    passes the SSRF guard. Redirects are not followed unless a request asks for them."""
    import httpcore
    import httpx

    backend, _ = _backends(_Guard(allow_private, allowed_networks))
    transport = httpx.HTTPTransport()
    # httpx's transport maps requests, responses and errors; its pool is replaced by one with the guarded network
    # backend (httpx does not take a network backend itself; httpcore documents the parameter).
    transport._pool = httpcore.ConnectionPool(ssl_context=_ssl_context(), network_backend=backend)
    return httpx.Client(transport=transport, event_hooks={"request": [_check_scheme]}, **_client_options(timeout))


def async_http_client(*, timeout: float, allow_private: bool = False,
                      allowed_networks: Iterable[str] = ()) -> httpx.AsyncClient:
    """``http_client``'s async twin (an ``httpx.AsyncClient``)."""
    import httpcore
    import httpx

    _, backend = _backends(_Guard(allow_private, allowed_networks))
    transport = httpx.AsyncHTTPTransport()
    transport._pool = httpcore.AsyncConnectionPool(ssl_context=_ssl_context(), network_backend=backend)
    return httpx.AsyncClient(transport=transport, event_hooks={"request": [_acheck_scheme]},
                             **_client_options(timeout))


# -- fetching ----------------------------------------------------------------------------------------------------


def _options(timeout: float, max_bytes: int, allow_private: bool, max_redirects: int,
             allowed_networks: Iterable[str]) -> FetchOptions:
    return FetchOptions(timeout=timeout, max_bytes=max_bytes, allow_private=allow_private,
                        allowed_networks=tuple(str(n) for n in _networks(allowed_networks)),
                        max_redirects=max_redirects)


def _content_type(response: httpx.Response) -> tuple[str, str | None]:
    header = response.headers.get("content-type", "")
    kind = header.split(";", 1)[0].strip().lower()
    found = re.search(r"charset\s*=\s*\"?([\w.:-]+)", header, re.IGNORECASE)
    return kind, (found.group(1) if found else None)


def _check_response(url: str, response: httpx.Response, options: FetchOptions) -> None:
    if response.is_redirect:  # a redirect left over: more than max_redirects
        raise FetchError(f"{url}: more than max_redirects={options.max_redirects} redirects")
    if response.status_code >= 400:
        raise FetchError(f"{url}: HTTP {response.status_code} {response.reason_phrase}".rstrip())
    kind, _ = _content_type(response)
    if kind and kind not in _TEXT_TYPES:
        raise FetchError(f"{url}: content type {kind} is not HTML, markdown or text")
    length = response.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > options.max_bytes:
        raise FetchError(f"{url}: the body is {int(length):,} bytes; the limit is max_bytes={options.max_bytes:,}")


def _too_large(url: str, options: FetchOptions) -> FetchError:
    return FetchError(f"{url}: the body is larger than max_bytes={options.max_bytes:,}; the rest was not read")


def _document(url: str, response: httpx.Response, body: bytes) -> Document:
    """The fetched page as a Document: the header's charset decodes it unless a BOM says otherwise (then, and
    without a declared charset, qatbe's decoder reads the BOM, the page's own declaration, or guesses)."""
    kind, charset = _content_type(response)
    source: str | bytes = body
    if charset and not body.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        from .segmentation.decode import _codec

        codec = _codec(charset)
        if codec is not None:
            source = body.decode(codec, errors="replace")
    metadata: dict[str, object] = {"status": response.status_code, "fetched_url": str(response.url)}
    if kind:
        metadata["content_type"] = kind
    for header in ("last-modified", "date"):
        value = response.headers.get(header)
        if value:
            try:
                moment = email.utils.parsedate_to_datetime(value)
            except (TypeError, ValueError):
                continue
            metadata["date"] = moment.isoformat()
            metadata["date_source"] = header
            break
    return Document(source, url=str(response.url), metadata=metadata)


def _translate(url: str, exc: Exception, options: FetchOptions) -> FetchError:
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return FetchTimeoutError(f"{url}: no complete answer within timeout={options.timeout:g} s")
    if isinstance(exc, httpx.TooManyRedirects):
        return FetchError(f"{url}: more than max_redirects={options.max_redirects} redirects")
    if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol):
        return FetchError(f"{url}: {exc}")
    return FetchError(f"{url}: {type(exc).__name__}: {exc}")


@contextlib.contextmanager
def _deadline(options: FetchOptions) -> Iterator[None]:
    token = _DEADLINE.set(time.monotonic() + options.timeout)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def fetch_with(client: httpx.Client, url: str, options: FetchOptions) -> Document:
    """``fetch`` on a client made by ``client_for(options)`` (one client for many URLs, from many threads)."""
    import httpx

    _host_port(url)
    with _deadline(options):
        try:
            with client.stream("GET", url, follow_redirects=True, headers=_ACCEPT,
                               extensions={"timeout": _timeouts(options)}) as response:
                _check_response(url, response, options)
                body = _Body(url, options)
                for chunk in response.iter_raw(_CHUNK):
                    body.add(chunk)
                return _document(url, response, _decoded(response, body.bytes(), url, options))
        except FetchError:
            raise
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise _translate(url, exc, options) from None
        except _TimeoutErrors as exc:
            raise _translate(url, httpx.TimeoutException(str(exc)), options) from None


class _Body:
    """A response body read chunk by chunk (by ``fetch_with`` and its async twin): refused past ``max_bytes`` and
    past the deadline, as it arrives, so that a server that streams forever is cut off."""

    def __init__(self, url: str, options: FetchOptions) -> None:
        self._url, self._options, self._data = url, options, bytearray()

    def add(self, chunk: bytes) -> None:
        self._data += chunk
        if len(self._data) > self._options.max_bytes:
            raise _too_large(self._url, self._options)
        _check_deadline(self._url, self._options)

    def bytes(self) -> bytes:
        return bytes(self._data)


def _check_deadline(url: str, options: FetchOptions) -> None:
    deadline = _DEADLINE.get()
    if deadline is not None and time.monotonic() >= deadline:
        raise FetchTimeoutError(f"{url}: no complete answer within timeout={options.timeout:g} s")


def _timeouts(options: FetchOptions) -> dict[str, float]:
    return {"connect": options.timeout, "read": options.timeout, "write": options.timeout, "pool": options.timeout}


def _decoded(response: httpx.Response, raw: bytes, url: str, options: FetchOptions) -> bytes:
    """The body with its content coding (gzip, br, deflate) undone, refused when it expands past ``max_bytes``:
    the raw stream is what was bounded while reading, and a few kilobytes of gzip can expand to gigabytes."""
    coding = response.headers.get("content-encoding", "").strip().lower()
    if coding in ("", "identity"):
        return raw
    import zlib

    if coding in ("gzip", "x-gzip", "deflate"):
        wbits = 31 if "gzip" in coding else zlib.MAX_WBITS
        try:
            inflater = zlib.decompressobj(wbits)
            out = inflater.decompress(raw, options.max_bytes + 1)
        except zlib.error:
            if coding != "deflate":
                raise FetchError(f"{url}: the {coding} body is corrupt") from None
            try:  # raw deflate, without the zlib header (some servers send it)
                out = zlib.decompressobj(-zlib.MAX_WBITS).decompress(raw, options.max_bytes + 1)
            except zlib.error:
                raise FetchError(f"{url}: the deflate body is corrupt") from None
        if len(out) > options.max_bytes:
            raise FetchError(f"{url}: the body decompresses to more than max_bytes={options.max_bytes:,}")
        return out
    raise FetchError(f"{url}: content encoding {coding!r} is not supported")



def fetch(url: str, *, timeout: float = 10.0, max_bytes: int = 20_000_000, allow_private: bool = False,
          max_redirects: int = 10, allowed_networks: Iterable[str] = ()) -> Document:
    """Fetch ``url`` into a ``Document`` (its ``source`` the page, its ``url`` the URL after redirects, its
    ``metadata["date"]`` the server's ``Last-Modified``, else ``Date``, in ISO 8601).

    Raises ``BlockedAddressError`` for an address the SSRF guard refuses (see the module's docstring),
    ``FetchTimeoutError`` when the whole fetch takes longer than ``timeout`` seconds, and ``FetchError`` for an HTTP
    error status, a body over ``max_bytes``, more than ``max_redirects`` redirects, or a content type that is not
    HTML, markdown or text (named in the message).
    """
    options = _options(timeout, max_bytes, allow_private, max_redirects, allowed_networks)
    with client_for(options) as client:
        return fetch_with(client, url, options)


def client_for(options: FetchOptions) -> httpx.Client:
    """The guarded client ``fetch`` uses for ``options`` (``max_redirects`` included)."""
    client = http_client(timeout=options.timeout, allow_private=options.allow_private,
                         allowed_networks=options.allowed_networks)
    client.max_redirects = options.max_redirects
    return client


def async_client_for(options: FetchOptions) -> httpx.AsyncClient:
    """``client_for``'s async twin (the service keeps one for all its requests)."""
    client = async_http_client(timeout=options.timeout, allow_private=options.allow_private,
                               allowed_networks=options.allowed_networks)
    client.max_redirects = options.max_redirects
    return client


async def afetch_with(client: httpx.AsyncClient, url: str, options: FetchOptions) -> Document:
    """``afetch`` on a client made by ``async_http_client`` (a service keeps one for all its requests); the
    client's ``max_redirects`` is the cap."""
    import httpx

    _host_port(url)
    with _deadline(options):
        try:
            async with client.stream("GET", url, follow_redirects=True, headers=_ACCEPT,
                                     extensions={"timeout": _timeouts(options)}) as response:
                _check_response(url, response, options)
                body = _Body(url, options)
                async for chunk in response.aiter_raw(_CHUNK):
                    body.add(chunk)
                return _document(url, response, _decoded(response, body.bytes(), url, options))
        except FetchError:
            raise
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise _translate(url, exc, options) from None
        except _TimeoutErrors as exc:
            raise _translate(url, httpx.TimeoutException(str(exc)), options) from None


async def afetch(url: str, *, timeout: float = 10.0, max_bytes: int = 20_000_000, allow_private: bool = False,
                 max_redirects: int = 10, allowed_networks: Iterable[str] = ()) -> Document:
    """``fetch``'s async twin."""
    options = _options(timeout, max_bytes, allow_private, max_redirects, allowed_networks)
    async with async_client_for(options) as client:
        return await afetch_with(client, url, options)


# -- many URLs ---------------------------------------------------------------------------------------------------


def is_url(value: object) -> bool:
    """True for a string that is exactly one http(s) URL (surrounding whitespace aside) and nothing else."""
    return isinstance(value, str) and len(value) <= 8192 and _URL.fullmatch(value.strip()) is not None


def _url_of(document: Document) -> str | None:
    if document.source is None:
        return document.url
    if isinstance(document.source, str) and is_url(document.source):
        return document.source.strip()
    return None


def fetch_documents(documents: list[Document], options: FetchOptions | None = None
                    ) -> tuple[list[Document], tuple[ItemError, ...]]:
    """``documents`` with every URL fetched (a Document without ``source``, or whose ``source`` is exactly one
    http(s) URL), at most ``options.concurrency`` at once. A fetched Document keeps the caller's ``id``,
    ``title``, ``url`` and ``metadata`` (the fetch's ``date`` fills in only when the caller gave none). A URL that
    fails becomes an empty document (so positions hold) and an ``ItemError``; the others go on."""
    if options is not None and not isinstance(options, FetchOptions):
        raise ConfigError(f"fetch_options must be a qatbe.FetchOptions, not {type(options).__name__}")
    wanted = [(k, url) for k, doc in enumerate(documents) if (url := _url_of(doc)) is not None]
    if not wanted:
        return documents, ()
    options = options or FetchOptions()
    out = list(documents)
    errors: list[ItemError] = []
    with client_for(options) as client, ThreadPoolExecutor(min(options.concurrency, len(wanted))) as pool:
        # copy_context: each fetch keeps its own deadline in its own context
        futures = [(k, url, pool.submit(contextvars.copy_context().run, fetch_with, client, url, options))
                   for k, url in wanted]
        for k, url, future in futures:
            given = documents[k]
            try:
                got = future.result()
            except FetchError as exc:
                errors.append(ItemError.of(k, given.id or url, exc))
                out[k] = Document("", id=given.id, url=given.url or url, title=given.title,
                                  metadata=given.metadata)
                continue
            metadata = dict(got.metadata or {})
            metadata.update(given.metadata or {})
            out[k] = Document(got.source, id=given.id, url=given.url or got.url, title=given.title,
                              metadata=metadata)
    return out, tuple(errors)
