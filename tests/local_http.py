"""A real HTTP server on 127.0.0.1 for the URL tests, and the tests' second safety net against leaving loopback.

``serve()`` starts a ``ThreadingHTTPServer`` on a free port in a thread and always shuts it down. Its routes are
fixture pages, redirects (chains, loops, to private, metadata and IPv6 addresses), a slow answer, a body that
streams forever, one that trickles, an oversized one, a PDF, error statuses and a gzip body.

The fixtures the URL, CLI and service tests share (a test module imports them by name): ``base``, the base URL of
one ``serve()`` for the module, and ``only_loopback`` (autouse), which applies ``loopback_only`` to every test.

``loopback_only(monkeypatch)`` makes every socket connect of the test process refuse any address but
127.0.0.0/8 and ::1: the SSRF guard refuses before connecting, and were it broken, this refuses instead of
sending a packet (the test then fails on the wrong error, without ever leaving the machine).
"""

from __future__ import annotations

import functools
import gzip
import ipaddress
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar, cast
from urllib.parse import parse_qs, urlsplit

import pytest


class QuietHTTPServer(ThreadingHTTPServer):
    """A ``ThreadingHTTPServer`` that says nothing when a client hangs up mid-answer: the tests that stop a
    stream or time out a request close their end on purpose, and the standard library would print the
    ``ConnectionResetError`` / ``BrokenPipeError`` traceback of the handler thread. Any other error is printed."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


PAGE = (
    "<!doctype html><html lang='en'><head><title>Passport renewal</title></head><body>"
    "<nav><a href='/'>Home</a> <a href='/a'>About</a></nav><main><h1>Renew your passport</h1>"
    "<p>You can renew your passport online. It costs 75 pounds and takes three weeks.</p>"
    "<p>You need a digital photo and your old passport number.</p>"
    "<h2>Other countries</h2><p>If you live abroad, the fee is 101 pounds and you apply to the embassy.</p>"
    "</main><footer>Crown copyright</footer></body></html>"
)
LAST_MODIFIED = "Wed, 21 Oct 2015 07:28:00 GMT"
FOREVER_CHUNK = b"<p>" + b"x" * 8189 + b"</p>"


@functools.lru_cache(maxsize=1)
def _bomb() -> bytes:
    return gzip.compress(b"<p>" + b"0" * 20_000_000, compresslevel=1)


def _ok(handler: BaseHTTPRequestHandler, body: bytes, ctype: str = "text/html; charset=utf-8",
        headers: dict[str, str] | None = None) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", ctype)
    handler.send_header("Content-Length", str(len(body)))
    for k, v in (headers or {}).items():
        handler.send_header(k, v)
    handler.end_headers()
    handler.wfile.write(body)


def _redirect(handler: BaseHTTPRequestHandler, location: str, status: int = 302) -> None:
    handler.send_response(status)
    handler.send_header("Location", location)
    handler.send_header("Content-Length", "0")
    handler.end_headers()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    stop: threading.Event
    pages: ClassVar[dict[str, bytes]] = {}

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    def _stream(self, chunk: bytes, pause: float) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            while not self.stop.is_set():
                self.wfile.write(chunk)
                self.wfile.flush()
                if pause:
                    time.sleep(pause)
        except OSError:  # the client went away: what these endpoints wait for
            pass
        self.close_connection = True

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        port = cast(ThreadingHTTPServer, self.server).server_port
        if path == "/page":
            _ok(self, PAGE.encode(), headers={"Last-Modified": LAST_MODIFIED})
        elif path.startswith("/corpus/"):
            _ok(self, self.pages[path[len("/corpus/"):]], "text/html")
        elif path == "/latin1":
            _ok(self, "<html><body><p>Caf\u00e9 cr\u00e8me costs 3 euros.</p></body></html>".encode("latin-1"),
                "text/html; charset=ISO-8859-1")
        elif path == "/meta-charset":
            _ok(self, "<html><head><meta charset='windows-1252'></head><body><p>Na\u00efve \u2013 caf\u00e9"
                      "</p></body></html>".encode("cp1252"), "text/html")
        elif path == "/markdown":
            _ok(self, b"# Fees\n\nThe renewal fee is 75 pounds.\n", "text/markdown; charset=utf-8")
        elif path == "/gzip":
            _ok(self, gzip.compress(PAGE.encode()), "text/html", {"Content-Encoding": "gzip"})
        elif path == "/bomb":  # 20 MB of zeros in a few kilobytes of gzip
            _ok(self, _bomb(), "text/html", {"Content-Encoding": "gzip"})
        elif path == "/redirect":
            _redirect(self, query["to"][0])
        elif path.startswith("/chain/"):
            n = int(path.rsplit("/", 1)[1])
            _redirect(self, f"/chain/{n - 1}" if n > 0 else "/page", 301 if n % 2 else 307)
        elif path == "/loop":
            _redirect(self, "/loop")
        elif path == "/to-private":
            _redirect(self, "http://10.0.0.1/admin")
        elif path == "/to-metadata":
            _redirect(self, "http://169.254.169.254/latest/meta-data/")
        elif path == "/to-link-local":
            _redirect(self, "http://169.254.1.1/")
        elif path == "/to-ipv6-loopback":
            _redirect(self, f"http://[::1]:{port}/page")
        elif path == "/to-mapped":
            _redirect(self, "http://[::ffff:192.168.0.1]/")
        elif path == "/to-file":
            _redirect(self, "file:///etc/passwd")
        elif path == "/slow":
            if not self.stop.wait(float(query.get("s", ["30"])[0])):
                try:
                    _ok(self, PAGE.encode())
                except OSError:  # the client gave up first: what this endpoint is for
                    pass
        elif path == "/forever":
            self._stream(FOREVER_CHUNK, 0.0)
        elif path == "/trickle":
            self._stream(b"x", 0.05)
        elif path == "/big":  # declares its size: refused before any of the body is read
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "30000000")
            self.end_headers()
        elif path == "/pdf":
            _ok(self, b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "application/pdf")
        elif path == "/image":
            _ok(self, b"\x89PNG\r\n\x1a\n", "image/png")
        elif path == "/missing":
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/broken":
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()


@contextmanager
def serve(pages: dict[str, bytes] | None = None) -> Iterator[str]:
    """The base URL (``http://127.0.0.1:PORT``) of a fresh server, shut down on exit."""
    stop = threading.Event()
    handler = type("BoundHandler", (Handler,), {"stop": stop, "pages": dict(pages or {})})
    server = QuietHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


def _loopback(address: object) -> bool:
    host = address[0] if isinstance(address, tuple) else None
    if not isinstance(host, str):
        return False
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return ip.is_loopback or (isinstance(ip, ipaddress.IPv6Address) and bool(ip.ipv4_mapped)
                              and ip.ipv4_mapped.is_loopback)  # type: ignore[union-attr]


def loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse, in this process, every socket connect to an address outside loopback (see the module doc)."""
    def guarded(original: Callable[..., Any]) -> Callable[..., Any]:
        def connect(self: socket.socket, address: Any) -> Any:
            if self.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address):
                raise ConnectionRefusedError(f"test safety net: refused to dial {address!r} (loopback only)")
            return original(self, address)
        return connect

    monkeypatch.setattr(socket.socket, "connect", guarded(socket.socket.connect))
    monkeypatch.setattr(socket.socket, "connect_ex", guarded(socket.socket.connect_ex))


@pytest.fixture(autouse=True)
def only_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test of a module that imports this: ``loopback_only``."""
    loopback_only(monkeypatch)


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    """The base URL of one local server (``serve()``) for the module."""
    with serve() as url:
        yield url


def corpus_pages(root: Path, name: str) -> dict[str, bytes]:
    """Every dev page of one corpus (``html/*.html.gz``), by file stem, decompressed."""
    return {p.name[: -len(".html.gz")]: gzip.decompress(p.read_bytes())
            for p in sorted((root / name / "html").glob("*.html.gz"))}


@contextmanager
def uvicorn_app(app: Any) -> Iterator[str]:
    """``app`` served by a real uvicorn on a free 127.0.0.1 port in a thread: the base URL, shut down on exit."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(500):
            if server.started:
                break
            time.sleep(0.01)
        if not server.started:
            raise RuntimeError("uvicorn did not start")
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
