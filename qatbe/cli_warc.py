"""``qatbe extract crawl.warc.gz``: every HTML page of one or more WARC files, one JSON line each.

A line holds the page's ``url``, its record ``id`` and WARC ``date``, then the extract: by default ``query``,
``text``, ``tokens`` (its cost), ``no_match`` and the page's ``metadata``; with ``--format json`` the whole result
(``Result.to_dict()``). ``--format text`` renders the text without markdown. A page that fails, a truncated record
or an unreadable region is a line with ``error_type`` and ``message`` in place of the extract; the run goes on, and
the exit code says that something failed. The counts (records, pages, skipped by reason, errors) end on
standard error.

The question of a page: its line in ``--queries FILE.jsonl`` (``{"id": ..., "query": ...}`` or
``{"url": ..., "query": ...}``; the record id wins over the url), else ``-q``, else none: the page's main
content, boilerplate out, under the budget (the pretraining-data use).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .batch import extract_batch
from .cli_batch import Options, note
from .errors import InputError
from .jsonl import iter_jsonl
from .many import Document
from .result import Result
from .types import ItemError
from .warc import WarcReader, read_warc


@dataclass(frozen=True)
class _Page:
    """What a line names, kept while its page is in flight."""

    url: str | None
    id: str | None
    date: str | None


def read_queries(path: str) -> dict[str, str]:
    """``--queries FILE.jsonl``: record id or url -> question. Checked whole before any page is read."""
    out: dict[str, str] = {}
    for n, row in iter_jsonl(Path(path), InputError):
        key = row.get("id", row.get("url"))
        if not isinstance(key, str) or not isinstance(row.get("query"), str):
            raise InputError(f'{path}:{n}: expected {{"id" or "url": "...", "query": "..."}}')
        out[key] = row["query"]
    return out


def run_warc(paths: Sequence[str], options: Options, queries: Mapping[str, str], jobs: int, bar: bool) -> int:
    """Extract every page of the WARC files ``paths``, print one JSON line each; the exit code (0 or 1)."""
    readers: list[WarcReader] = []
    pages: deque[_Page] = deque()

    def items() -> Iterator[tuple[Document, str | None]]:
        for path in paths:
            reader = read_warc(path, max_record_bytes=options.settings.max_input_bytes)
            readers.append(reader)
            for doc in reader:
                date = doc.metadata.get("date") if doc.metadata else None
                pages.append(_Page(doc.url, doc.id, date))
                query = queries.get(doc.id or "") or queries.get(doc.url or "") or options.query
                yield doc, query

    failed = 0
    for outcome in extract_batch(items(), workers=jobs, progress=bar, settings=options.settings):
        page = pages.popleft()
        if isinstance(outcome, ItemError):
            failed += 1
            print(_json({"url": page.url, "id": page.id, "date": page.date, "error_type": outcome.error_type,
                         "message": outcome.message}))
        else:
            print(_json(line(page, outcome.result, options.format)))
    for reader in readers:
        for error in reader.errors:
            failed += 1
            print(_json({"url": None, "id": error.id, "date": None, "error_type": error.error_type,
                         "message": error.message}))
        skipped = ", ".join(f"{n} {why}" for why, n in sorted(reader.skipped.items())) or "none"
        note(f"[qatbe: {reader.path}: {reader.records} records, {reader.documents} pages, skipped: {skipped}; "
             f"{len(reader.errors)} records unreadable or truncated]", bar)
    if failed:
        note(f"qatbe: {failed} pages or records failed", bar)
    return 1 if failed else 0


def line(page: _Page, result: Result, fmt: str) -> dict[str, object]:
    head: dict[str, object] = {"url": page.url, "id": page.id, "date": page.date}
    if fmt == "json":
        return {**head, **result.to_dict()}
    return {**head, "query": result.query, "text": result.text, "tokens": result.total_tokens,
            "no_match": result.no_match, "metadata": result.metadata.to_dict()}


def _json(data: dict[str, object]) -> str:
    return json.dumps(data, ensure_ascii=False)
