"""Pages for the batch, WARC and Spark tests: WARC files written with warcio (an independent writer), and the
wcxb dev pages with their extracts from a plain ``qatbe.extract`` loop, made once per test session."""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import qatbe

WCXB_QUERY = "price and delivery"


@dataclass(frozen=True)
class Page:
    url: str
    body: bytes
    content_type: str = "text/html"
    status: str = "200 OK"
    headers: tuple[tuple[str, str], ...] = ()


def plain(result: qatbe.Result) -> str:
    """A result as compared across paths: its ``to_dict()`` without the time it took, as JSON."""
    data = result.to_dict()
    del data["evaluation_time_ms"]
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def warc_bytes(pages: Sequence[Page], *, compress: bool = True) -> list[bytes]:
    """Each page as one WARC ``response`` record (a gzip member each when ``compress``), in order."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    out = []
    for page in pages:
        buffer = io.BytesIO()
        writer = WARCWriter(buffer, gzip=compress)
        http = StatusAndHeaders(page.status, [("Content-Type", page.content_type), *page.headers],
                                protocol="HTTP/1.1")
        writer.write_record(writer.create_warc_record(page.url, "response", payload=io.BytesIO(page.body),
                                                      length=len(page.body), http_headers=http))
        out.append(buffer.getvalue())
    return out


def write_warc(path: Path, pages: Sequence[Page]) -> Path:
    path.write_bytes(b"".join(warc_bytes(pages)))
    return path


@lru_cache(maxsize=1)
def wcxb_pages(corpora: Path) -> tuple[Page, ...]:
    """Every wcxb dev page, with its url from the corpus index."""
    rows = [json.loads(line) for line in (corpora / "wcxb" / "index.jsonl").read_text().splitlines()]
    return tuple(Page(row["url"], gzip.decompress((corpora / "wcxb" / row["html"]).read_bytes())) for row in rows)


@lru_cache(maxsize=1)
def wcxb_loop(corpora: Path) -> tuple[str, ...]:
    """``qatbe.extract(page, WCXB_QUERY)`` of every wcxb page, as ``plain`` JSON: the reference of every path."""
    return tuple(plain(qatbe.extract(page.body, WCXB_QUERY)) for page in wcxb_pages(corpora))


@lru_cache(maxsize=1)
def wcxb_warc(corpora: Path, folder: Path) -> Path:
    """The wcxb pages packed into one WARC (written once per session, into ``folder``)."""
    return write_warc(folder / "wcxb.warc.gz", wcxb_pages(corpora))
