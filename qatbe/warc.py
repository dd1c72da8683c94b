"""WARC archives in: the HTML pages of a crawl (Common Crawl, Heritrix, wget, browsertrix) as ``Document`` objects.

``read_warc(path)`` returns a ``WarcReader``, an iterator of ``qatbe.Document``: one per HTML ``response``
record, with ``WARC-Target-URI`` as ``url``, ``WARC-Record-ID`` as ``id`` and ``WARC-Date`` as
``metadata["date"]``. The HTTP headers are parsed; a charset in ``Content-Type`` decodes the page (it beats the
page's own ``<meta>``, as in a browser), and chunked or compressed payloads are decoded. Every other record is
skipped and counted in ``reader.skipped`` by reason. Nothing in the file stops the run: a truncated record is an
``ItemError`` in ``reader.errors``, and unreadable bytes (a corrupt gzip member, garbage between records) are
one ``ItemError`` each, after which reading resumes at the next record that can be read.

Why FastWARC (resiliparse) and not warcio: on the same 3,000-page crawl it read twice as fast (it decompresses
and parses in C++), it reads gzip, zstd, lz4 and plain WARC alike, and it reports each record's offset in the
file, which is what resuming after a corrupt region needs. Neither library resumes by itself: both stop at the
first corrupt gzip member, so the resumption (look for the next gzip member or ``WARC/`` line after the failure
and start a new reader there) is written here.
"""

from __future__ import annotations

import os
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from ._optional import require
from .errors import InputError
from .many import Document
from .segmentation.decode import decode_bytes
from .settings import Settings
from .source import detect_format
from .types import ItemError

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_GZIP_MAGIC = b"\x1f\x8b\x08"
_WARC_LINE = b"WARC/1."
_SCAN_BLOCK = 1 << 20
# Skip reasons, the keys of ``WarcReader.skipped``.
NOT_RESPONSE = "not a response record"
NOT_HTTP = "not an HTTP response"
NOT_HTML = "not HTML"
HTTP_STATUS = "HTTP status not 2xx"
EMPTY = "empty payload"


def read_warc(path: str | os.PathLike[str], *, max_record_bytes: int | None = None) -> WarcReader:
    """The HTML pages of the WARC file at ``path`` (``.warc``, ``.warc.gz``; gzip, zstd, lz4 or plain), as
    ``Document`` objects; counts of what was skipped and the records that failed are on the reader."""
    return WarcReader(path, max_record_bytes=max_record_bytes)


@dataclass
class WarcReader:
    """An iterator of ``Document`` over one WARC file, read once, front to back, one record in memory at a time.

    ``records``: records seen (every type); ``documents``: pages yielded; ``skipped``: reason -> count
    (``NOT_RESPONSE``, ``NOT_HTTP``, ``NOT_HTML``, ``HTTP_STATUS``, ``EMPTY``); ``errors``: one ``ItemError``
    per truncated or oversized record (``index``: its position among the records, ``id``: its record id) and per
    unreadable region (``id``: ``path@offset``). ``max_record_bytes`` (default: ``Settings().max_input_bytes``)
    is the largest page payload read; a larger one is an error, not a page."""

    path: str | os.PathLike[str]
    max_record_bytes: int | None = None
    records: int = 0
    documents: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    errors: list[ItemError] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._limit = self.max_record_bytes or Settings().max_input_bytes
        self._pages = self._read()

    def __iter__(self) -> WarcReader:
        return self

    def __next__(self) -> Document:
        return next(self._pages)

    def _read(self) -> Iterator[Document]:
        warc = require("fastwarc.warc", "warc", "reading WARC files")
        name = os.fspath(self.path)
        try:
            stream = open(name, "rb")  # noqa: SIM115 (closed in the finally below, the reader being a generator)
        except OSError as exc:
            raise InputError(f"cannot read {name}: {exc.strerror or exc}") from None
        try:
            head = stream.read(len(_GZIP_MAGIC))
            marker = _GZIP_MAGIC if head == _GZIP_MAGIC else _WARC_LINE
            offset: int | None = 0
            in_bad_region = False
            while offset is not None:
                start: int = offset
                stream.seek(start)
                last: int | None = None
                try:
                    for record in warc.ArchiveIterator(stream, record_types=warc.WarcRecordType.any_type,
                                                       parse_http=True, auto_decode="all", fsspec_args=False):
                        last = record.stream_pos
                        in_bad_region = False
                        self.records += 1
                        try:
                            page = self._page(record, warc.WarcRecordType.response)
                        except (OSError, ValueError, EOFError):
                            raise  # the stream's: resumed below
                        except Exception as exc:  # noqa: BLE001 - one malformed record (FastWARC let it through) only
                            self._error(self.records - 1, record.headers.get("WARC-Record-ID"),
                                        f"malformed record: {type(exc).__name__}: {exc}")
                            continue
                        if page is not None:
                            self.documents += 1
                            yield page
                    offset = None
                except (OSError, ValueError, EOFError) as exc:  # FastWARC's read, inflate and parse errors
                    where = start if last is None else last
                    if not in_bad_region:
                        self.errors.append(ItemError(self.records, f"{name}@{where}", "InputError",
                                                     f"unreadable bytes after offset {where} ({exc}); reading "
                                                     "resumes at the next readable record"))
                    in_bad_region = True
                    offset = _next_start(stream, where + 1, marker)
        finally:
            stream.close()

    def _page(self, record: Any, response: Any) -> Document | None:
        """The record as a page, or None when it is skipped (counted) or fails (recorded)."""
        if record.record_type != response:
            self.skipped[NOT_RESPONSE] += 1
            return None
        record_id: str | None = record.headers.get("WARC-Record-ID")
        index = self.records - 1
        if record.headers.get("Content-Length") is None:
            self._error(index, record_id, "truncated record: its WARC headers end before Content-Length")
            return None
        http = record.http_headers
        if http is None:
            self.skipped[NOT_HTTP] += 1
            return None
        status = http.status_code
        if status is None:  # a status line that did not parse
            self.skipped[NOT_HTTP] += 1
            return None
        if not 200 <= status < 300:
            self.skipped[HTTP_STATUS] += 1
            return None
        content_type = record.http_content_type
        if content_type is not None and content_type.lower() not in _HTML_TYPES:
            self.skipped[NOT_HTML] += 1
            return None
        payload: bytes = record.reader.read(self._limit + 1)
        if len(payload) > self._limit:
            self._error(index, record_id, f"page of more than {self._limit:,} bytes (max_record_bytes)")
            return None
        encoded = http.get("Content-Encoding") or http.get("Transfer-Encoding")
        if not encoded and len(payload) < record.content_length:
            self._error(index, record_id, f"truncated record: {len(payload):,} of {record.content_length:,} "
                                          "payload bytes")
            return None
        if not payload.strip():
            self.skipped[EMPTY] += 1
            return None
        if content_type is None and detect_format(payload[:4096].decode("latin-1")) != "html":
            self.skipped[NOT_HTML] += 1
            return None
        charset = record.http_charset
        source: str | bytes = decode_bytes(payload, charset) if charset else payload
        date = record.headers.get("WARC-Date")
        return Document(source, id=record_id, url=record.headers.get("WARC-Target-URI"),
                        metadata={"date": date} if date else None)

    def _error(self, index: int, record_id: str | None, message: str) -> None:
        self.errors.append(ItemError(index, record_id, "InputError", message))


def _next_start(stream: BinaryIO, start: int, marker: bytes) -> int | None:
    """The offset of the next ``marker`` (a gzip member's first bytes, or a ``WARC/1.`` line) at or after
    ``start``, None at the end of the file. A false start inside compressed data fails at once and the search
    goes on past it."""
    stream.seek(start)
    carry = b""
    base = start
    while True:
        block = stream.read(_SCAN_BLOCK)
        if not block:
            return None
        data = carry + block
        found = data.find(marker)
        if found >= 0:
            return base + found
        keep = len(marker) - 1
        carry = data[-keep:]
        base += len(data) - len(carry)


def looks_like_warc(path: str) -> bool:
    """A WARC file, by name (``.warc``, ``.warc.gz``, ...) or, for any other name, by its first bytes."""
    if path.lower().endswith((".warc", ".warc.gz", ".warc.zst", ".warc.lz4")):
        return True
    if not os.path.isfile(path):  # a pipe or a device is read once, by whoever reads the page: never sniffed
        return False
    try:
        with open(path, "rb") as stream:
            head = stream.read(4096)
    except OSError:
        return False
    if head.startswith(_GZIP_MAGIC):
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, 16)
        except zlib.error:
            return False
    return head.startswith(_WARC_LINE)
