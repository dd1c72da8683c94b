"""Fixture pages for the framework integration tests (LangChain, LlamaIndex, Scrapy), and a small HTTP server on
127.0.0.1 that serves them to a real crawl.

The server is the standard library's ``ThreadingHTTPServer`` rather than a framework: it only has to answer GET
with fixed bytes, and the crawl under test is Scrapy's, not the server's. It binds 127.0.0.1 on a free port and
is always shut down by its context manager.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import NamedTuple

from local_http import QuietHTTPServer

_NAV = """<nav><ul><li><a href="/">Home</a></li><li><a href="/visit">Visit</a></li><li><a href="/shop">Shop</a></li>
<li><a href="/contact">Contact</a></li></ul></nav>"""
_FOOT = """<footer><p>Copyright 2026 Northland Services. All rights reserved.</p>
<p><a href="/privacy">Privacy</a> | <a href="/cookies">Cookies</a></p></footer>"""


def _page(title: str, body: str) -> str:
    return (f"<!doctype html><html lang=\"en\"><head><title>{title}</title></head><body>{_NAV}"
            f"<main><article><h1>{title}</h1>{body}</article></main>{_FOOT}</body></html>")


class Page(NamedTuple):
    name: str
    html: str


PAGES: tuple[Page, ...] = (
    Page("museum", _page("Visiting the Harbour Museum", """
<h2>Opening hours</h2>
<p>The Harbour Museum opens at 10am on Sundays and closes at 4pm. On weekdays it is open from 9am to 6pm.</p>
<h2>Tickets</h2>
<p>Adult tickets cost 12 euros; children under twelve enter free. Tickets are sold at the door and online.</p>
<h2>Getting there</h2>
<p>Tram line 4 stops at Harbour Square, two minutes from the entrance. There is no parking at the museum.</p>
<h2>Collections</h2>
<p>The permanent collection covers three centuries of shipbuilding, with models, maps and tools from the old
yards along the river. Temporary exhibitions change every spring and autumn.</p>""")),
    Page("bakery", _page("Riverside Bakery", """
<p>Riverside Bakery bakes sourdough, rye and spelt loaves every morning from flour milled in the valley.</p>
<h2>Our bread</h2>
<p>The sourdough rises for thirty hours before it is baked in a stone oven. Rye loaves keep for a week.</p>
<h2>Orders</h2>
<p>Large orders for weddings and parties need three days' notice; call the shop or write to us.</p>""")),
    Page("trains", _page("Coastal line timetable", """
<p>Trains on the coastal line run every thirty minutes between the harbour and the airport.</p>
<table><tr><th>Day</th><th>First train</th><th>Last train</th></tr>
<tr><td>Weekdays</td><td>5:10</td><td>23:40</td></tr>
<tr><td>Saturdays</td><td>6:00</td><td>23:40</td></tr>
<tr><td>Sundays</td><td>7:30</td><td>22:10</td></tr></table>
<p>On Sundays the first train to the Harbour Museum stop leaves the airport at 7:30.</p>""")),
    Page("garden", _page("Botanic garden guide", """
<p>The botanic garden is open every day from sunrise to sunset, and entry is free.</p>
<h2>Glasshouses</h2>
<p>The palm house and the cactus house close at 4pm on Sundays for watering. Guided tours start at the
main gate at 11am on Saturdays.</p>
<h2>Cafe</h2>
<p>The garden cafe serves lunch from noon and cakes from the Riverside Bakery all afternoon.</p>""")),
)

QUERY = "when does the museum open on sundays"


class Served(NamedTuple):
    base: str  # http://127.0.0.1:PORT
    requests: list[str]  # paths asked for, in order


@contextmanager
def serve(routes: dict[str, tuple[str, bytes]]) -> Iterator[Served]:
    """Serve ``routes`` (path -> (content type, body)) on 127.0.0.1 at a free port until the block ends."""
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            found = routes.get(self.path)
            if found is None:
                self.send_error(404)
                return
            kind, body = found
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # the test's output stays clean
            pass

    server = QuietHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield Served(f"http://127.0.0.1:{server.server_address[1]}", asked)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
