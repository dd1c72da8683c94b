"""``extract_batch``: ``extract`` over a stream of pages, in worker processes, results streamed back.

Each item is extracted on its own, exactly as ``qatbe.extract(source, query, **options)`` would (the output is
byte for byte the same for any number of workers). Items are read from the iterable as results are taken, so at
most ``workers x _CHUNKS_PER_WORKER`` chunks of ``chunksize`` items are in flight: memory does not grow with the
number of items, and a generator over a crawl of any size can be passed.

Options are validated once, in the calling process, before any item is read; the workers receive the validated
settings as plain field values (a ``Settings`` holds mapping proxies, which do not pickle) and each builds one
``Extractor`` in its initializer. Why a ``ProcessPoolExecutor`` and not threads: extraction is CPU-bound Python
and holds the GIL for most of its time.
"""

from __future__ import annotations

import dataclasses
import operator
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from functools import partial
from types import MappingProxyType
from typing import Any

from ._optional import require
from .errors import ConfigError, InputError
from .many import Document
from .pipeline import Extractor, _check_query
from .records import new_segment
from .result import Result
from .settings import Settings
from .types import ItemError, Segment, SegmentKind

# Chunks submitted ahead per worker: two keep a worker busy while its last chunk's results travel back.
_CHUNKS_PER_WORKER = 2
DEFAULT_CHUNKSIZE = 4


@dataclass(frozen=True)
class BatchResult:
    """One item's extract: ``index`` is the item's position in the input, ``id`` its ``Document.id`` (else its
    ``Document.url``, else None). With ``ordered=False`` results come as they are done; ``index`` says whose."""

    index: int
    id: str | None
    result: Result

    def to_dict(self) -> dict[str, object]:
        return {"index": self.index, "id": self.id, **self.result.to_dict()}


@dataclass(frozen=True)
class _Task:
    """One item as it travels to a worker: plain data, checked in the calling process."""

    index: int
    id: str | None
    source: str | bytes
    query: str | None


def settings_fields(settings: Settings) -> dict[str, Any]:
    """The fields of a validated ``Settings`` as plain, picklable values (``Settings(**fields)`` rebuilds it)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(settings):
        value = getattr(settings, f.name)
        out[f.name] = dict(value) if isinstance(value, MappingProxyType) else value
    return out


_EXTRACTORS: dict[str, Extractor] = {}
_EXTRACTORS_KEPT = 8


def extractor_from(fields: Mapping[str, Any]) -> Extractor:
    """One ``Extractor`` per distinct settings and process (the workers' and Spark's executors' cache)."""
    key = repr(sorted(fields.items()))
    found = _EXTRACTORS.get(key)
    if found is None:
        found = Extractor(Settings(**fields))
        if len(_EXTRACTORS) >= _EXTRACTORS_KEPT:
            _EXTRACTORS.pop(next(iter(_EXTRACTORS)))
        _EXTRACTORS[key] = found
    return found


_worker: Extractor | None = None


def _init_worker(fields: dict[str, Any]) -> None:
    global _worker
    _worker = extractor_from(fields)


# A result crosses from a worker as plain tuples (``_pack``), not as pickled records: a page's result holds some
# sixty ``Segment`` records (chosen and pending), and pickling them as objects cost as much as a fifth of the
# extraction, in the worker and again in this process, which is the batch's one serial part.
_SEGMENT_FIELDS = tuple(f.name for f in dataclasses.fields(Segment))
_segment_values = operator.attrgetter(*_SEGMENT_FIELDS[1:])
_RESULT_FIELDS = tuple(f.name for f in dataclasses.fields(Result) if f.name not in ("segments", "pending", "_explain"))
_result_values = operator.attrgetter(*_RESULT_FIELDS)
_KINDS = {kind.value: kind for kind in SegmentKind}
_Packed = tuple[tuple[Any, ...], tuple[tuple[Any, ...], ...], tuple[tuple[Any, ...], ...]]


def _pack_segments(segments: tuple[Segment, ...]) -> tuple[tuple[Any, ...], ...]:
    return tuple((s.kind.value, *_segment_values(s)) for s in segments)


def _pack(result: Result) -> _Packed:
    """``result`` as tuples of plain values (its explanation closure, which does not pickle, left out)."""
    return _result_values(result), _pack_segments(result.segments), _pack_segments(result.pending)


def _unpack(packed: _Packed, explain: Callable[[], list[Any]]) -> Result:
    values, chosen, pending = packed
    return Result(**dict(zip(_RESULT_FIELDS, values)),
                  segments=tuple(new_segment(_KINDS[s[0]], *s[1:]) for s in chosen),
                  pending=tuple(new_segment(_KINDS[s[0]], *s[1:]) for s in pending), _explain=explain)


def _run_chunk(chunk: list[_Task], strict: bool) -> list[_Packed | ItemError]:
    """A worker's share: each result packed (the caller's process attaches an explanation that extracts again)."""
    assert _worker is not None, "the pool initializer builds the worker's extractor"
    out: list[_Packed | ItemError] = []
    for task in chunk:
        outcome = _one(_worker, task, strict)
        out.append(_pack(outcome.result) if isinstance(outcome, BatchResult) else outcome)
    return out


def _one(extractor: Extractor, task: _Task, strict: bool) -> BatchResult | ItemError:
    try:
        return BatchResult(task.index, task.id, extractor.extract(task.source, task.query))
    except Exception as exc:  # one bad page (or a bug it triggers) must not stop a crawl; strict re-raises
        if strict:
            raise
        return ItemError.of(task.index, task.id, exc)


def _explain_again(extractor: Extractor, source: str | bytes, query: str | None) -> list[Any]:
    return extractor.extract(source, query).explain()


def _task(index: int, item: object, query: str | None) -> _Task:
    """``item`` (a source, a ``Document`` or a ``(source, query)`` pair) as a task; a bad one is an InputError."""
    item_query = query
    if isinstance(item, tuple):
        pair: tuple[Any, ...] = item
        if len(pair) != 2:
            raise InputError(f"a tuple item must be a (source, query) pair, not {len(pair)} values")
        item, item_query = pair[0], _check_query(pair[1])
    doc_id: str | None = None
    if isinstance(item, Document):
        doc_id = item.id or item.url
        item = item.source
    if isinstance(item, bytearray):
        item = bytes(item)
    if not isinstance(item, (str, bytes)):
        raise InputError(f"an item must be str, bytes, a qatbe.Document or a (source, query) pair, "
                         f"not {type(item).__name__}")
    return _Task(index, doc_id, item, item_query)


def _check_flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be True or False, not {value!r}")
    return value


def _check_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{name} must be a whole number of at least 1, not {value!r}")
    return value


def extract_batch(
    items: Iterable[Any],
    query: object = None,
    *,
    workers: int | None = None,
    ordered: bool = True,
    progress: bool = False,
    strict: bool = False,
    chunksize: int = DEFAULT_CHUNKSIZE,
    **options: Any,
) -> Iterator[BatchResult | ItemError]:
    """Extract every item on its own (as ``qatbe.extract`` would), ``workers`` processes at a time.

    ``items``: sources (HTML, markdown or text; str or bytes), ``qatbe.Document`` objects (``id``, else ``url``,
    names the result) or ``(source, query)`` pairs; ``query`` is the question for items that bring none.
    ``workers``: processes (None: one per CPU; 1: in this process). Yields a ``BatchResult`` per item, in input
    order (``ordered=False``: as done; ``index`` tells whose). A bad item yields a ``qatbe.ItemError`` (its index,
    id, error type and message) and the others go on; ``strict=True`` raises its error instead. ``progress=True``
    shows a tqdm bar with pages/s on standard error (``pip install 'qatbe[batch]'``). Every other keyword is an
    option of ``qatbe.Settings`` (``tier=``, ``budget=``, ``settings=``...), validated here, before any item is read.
    """
    settings = options.pop("settings", None)
    extractor = Extractor(settings, **options)
    default_query = _check_query(query)
    n_workers = _check_count("workers", (os.cpu_count() or 1) if workers is None else workers)
    size = _check_count("chunksize", chunksize)
    bar = _bar(items) if _check_flag("progress", progress) else None
    run = _run(extractor, items, default_query, n_workers, _check_flag("ordered", ordered),
               _check_flag("strict", strict), size)
    return run if bar is None else _counted(run, bar)


def _bar(items: Iterable[Any]) -> Any:
    tqdm = require("tqdm", "batch", "extract_batch(progress=True)")
    total = len(items) if isinstance(items, (list, tuple)) else None
    return tqdm.tqdm(total=total, unit=" pages", file=sys.stderr, dynamic_ncols=True)


def _counted(run: Iterator[BatchResult | ItemError], bar: Any) -> Iterator[BatchResult | ItemError]:
    try:
        for outcome in run:
            bar.update(1)
            yield outcome
    finally:
        bar.close()


def _tasks(items: Iterable[Any], query: str | None, strict: bool) -> Iterator[_Task | ItemError]:
    for index, item in enumerate(items):
        try:
            yield _task(index, item, query)
        except InputError as exc:
            if strict:
                raise
            yield ItemError.of(index, None, exc)


def _run(extractor: Extractor, items: Iterable[Any], query: str | None, workers: int, ordered: bool,
         strict: bool, chunksize: int) -> Iterator[BatchResult | ItemError]:
    tasks = _tasks(items, query, strict)
    if workers == 1:
        for task in tasks:
            yield task if isinstance(task, ItemError) else _one(extractor, task, strict)
        return
    yield from _pooled(extractor, tasks, workers, ordered, strict, chunksize)


def _chunks(tasks: Iterator[_Task | ItemError], size: int) -> Iterator[list[_Task | ItemError]]:
    chunk: list[_Task | ItemError] = []
    for task in tasks:
        chunk.append(task)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class _Pending:
    """One submitted chunk: its tasks (kept to attach explanations) and the future of their results, or the item
    errors found before submission (they need no worker)."""

    def __init__(self, chunk: list[_Task | ItemError], future: Future[list[_Packed | ItemError]] | None):
        self.chunk = chunk
        self.future = future

    def outcomes(self, extractor: Extractor) -> list[BatchResult | ItemError]:
        done = iter(self.future.result() if self.future is not None else ())
        out: list[BatchResult | ItemError] = []
        for task in self.chunk:
            if isinstance(task, ItemError):
                out.append(task)
                continue
            outcome = next(done)
            if isinstance(outcome, ItemError):
                out.append(outcome)
            else:
                again = partial(_explain_again, extractor, task.source, task.query)
                out.append(BatchResult(task.index, task.id, _unpack(outcome, again)))
        return out


def _pooled(extractor: Extractor, tasks: Iterator[_Task | ItemError], workers: int, ordered: bool,
            strict: bool, chunksize: int) -> Iterator[BatchResult | ItemError]:
    limit = workers * _CHUNKS_PER_WORKER
    chunks = _chunks(tasks, chunksize)
    pool = ProcessPoolExecutor(workers, initializer=_init_worker,
                               initargs=(settings_fields(extractor.settings),))
    pending: deque[_Pending] = deque()
    try:
        exhausted = False
        while True:
            while not exhausted and len(pending) < limit:
                chunk = next(chunks, None)
                if chunk is None:
                    exhausted = True
                    break
                work = [t for t in chunk if isinstance(t, _Task)]
                future = pool.submit(_run_chunk, work, strict) if work else None
                pending.append(_Pending(chunk, future))
            if not pending:
                return
            if ordered:
                yield from pending.popleft().outcomes(extractor)
                continue
            futures = [p.future for p in pending if p.future is not None]
            ready = [p for p in pending if p.future is None or p.future.done()]
            if not ready:
                wait(futures, return_when=FIRST_COMPLETED)
                ready = [p for p in pending if p.future is None or p.future.done()]
            for p in ready:
                pending.remove(p)
                yield from p.outcomes(extractor)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
