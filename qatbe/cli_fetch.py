"""URLs on the command line: ``qatbe extract https://... -q ...`` fetches them (``qatbe.fetching``).

Several URLs are fetched at once, at most ``FetchOptions.concurrency`` at a time, before any is extracted; a URL
that fails is reported like a file that cannot be read (one error line, the others go on, exit code 1). The SSRF
guard is on unless ``--allow-private-networks``. What a fetch hands to the extraction is a ``Fetched`` record of
plain values, because the extraction may run in worker processes (``--jobs``) and a ``Document``'s metadata
(a mapping proxy) does not pickle.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from .errors import FetchError
from .fetching import FetchOptions, client_for, fetch_with, is_url
from .many import Document

__all__ = ["Fetched", "fetch_all", "fetch_one", "is_url", "options_for"]


@dataclass(frozen=True)
class Fetched:
    """One URL's outcome: the page and the URL it was read from (after redirects), or the error."""

    url: str
    source: str | bytes = b""
    error: str = ""

    def document(self) -> Document:
        return Document(self.source, url=self.url)


def options_for(allow_private: bool) -> FetchOptions:
    return FetchOptions(allow_private=allow_private)


def fetch_one(url: str, options: FetchOptions) -> Document:
    """One URL (``FetchError`` when it fails)."""
    with client_for(options) as client:
        return fetch_with(client, url, options)


def fetch_all(paths: Sequence[str], options: FetchOptions) -> dict[str, Fetched]:
    """Every URL among ``paths``, fetched concurrently with one client; files are left to the caller."""
    urls = list(dict.fromkeys(p for p in paths if is_url(p)))
    if not urls:
        return {}

    def one(url: str) -> Fetched:
        try:
            doc = fetch_with(client, url, options)
        except FetchError as exc:
            return Fetched(url, error=str(exc))
        assert doc.source is not None and doc.url is not None
        return Fetched(doc.url, doc.source)

    with client_for(options) as client, ThreadPoolExecutor(min(options.concurrency, len(urls))) as pool:
        return dict(zip(urls, pool.map(one, urls)))
