"""``qatbe extract`` on one file or many: what is printed for a result, and how many files are run.

Several files are extracted each on its own, in the order given, optionally in worker processes (``--jobs``);
the output is the same whatever the number of workers (each file's output is made in full by one call and
printed in input order). A file that cannot be read or extracted is reported on standard error and the others
go on; the exit code says that something failed. ``--many`` makes one cited context of all of them instead
(``extract_many``). Why workers return text and not ``Result`` objects: a result holds its explanation as a
closure, which does not pickle, and the text is what is printed anyway.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import lru_cache

from .cli_fetch import Fetched, is_url
from .cli_input import STDIN, read_source
from .errors import InputError, QatbeError
from .fetching import FetchOptions
from .many import Document, ManyResult, extract_many
from .pipeline import Extractor
from .result import Result
from .settings import Settings


@dataclass(frozen=True)
class Options:
    """What every file of one command is run with. ``extractor``: the ``Extractor``'s keyword options, plain
    values (they travel to the worker processes; a ``Settings`` holds mapping proxies, which do not pickle).
    ``lines``: one JSON object per line, each naming its file (``source``), as a pipeline reading the output of
    many files wants it."""

    query: str | None
    extractor: tuple[tuple[str, str | int | None], ...]
    format: str  # "markdown", "text" or "json"
    explain: bool = False
    lines: bool = False

    @property
    def settings(self) -> Settings:
        return extractor_for(self.extractor).settings


@dataclass(frozen=True)
class Done:
    """One file's outcome: what goes to standard output and the status line for standard error, or the error."""

    path: str
    out: str = ""
    status: str = ""
    error: str = ""


def status_line(result: Result) -> str:
    note = "; no segment matched the query; main content shown" if result.no_match else ""
    kept = len(result.segments)
    return (f"{result.total_tokens}/{result.budget} tokens, {kept} segment{'' if kept == 1 else 's'} kept, "
            f"{result.dropped_count} dropped{note}")


def show(result: Result, options: Options, path: str | None = None) -> str:
    """The text printed for ``result``: the extract, its JSON, or its explanation (``--explain``)."""
    if options.explain:
        reports = result.explain()
        if options.format != "json":
            from .explain import format_reports

            return format_reports(reports)
        data: object = [r.to_dict() for r in reports]
        if options.lines:
            data = {"source": path, "segments": data}
    elif options.format == "json":
        data = result.to_dict()
        if options.lines:
            data = {"source": path, **data}
    else:
        return result.text
    return json.dumps(data, ensure_ascii=False, indent=None if options.lines else 2)


@lru_cache(maxsize=4)
def extractor_for(options: tuple[tuple[str, str | int | None], ...]) -> Extractor:
    """One extractor per set of options and process (it keeps a settings object per declared language)."""
    return Extractor(None, **dict(options))


def _run_file(task: tuple[str, bytes | Fetched | None, Options]) -> Done:
    path, data, options = task
    try:
        if isinstance(data, Fetched):  # a URL, fetched already (cli_fetch)
            if data.error:
                return Done(path, error=data.error)
            source: bytes | Document = data.document()
        else:
            source = read_source(path, options.settings.max_input_bytes) if data is None else data
        result = extractor_for(options.extractor).extract(source, options.query)
        return Done(path, show(result, options, path), status_line(result))
    except QatbeError as exc:
        return Done(path, error=str(exc))
    except OSError as exc:
        return Done(path, error=exc.strerror or str(exc))


def run_each(paths: Sequence[str], options: Options, jobs: int = 1,
             fetched: Mapping[str, Fetched] | None = None) -> Iterator[Done]:
    """Every file on its own, outcomes in the order of ``paths``; standard input ('-') is read here, once;
    URLs come ``fetched`` (``cli_fetch.fetch_all``)."""
    stdin = read_source(STDIN, options.settings.max_input_bytes) if STDIN in paths else None
    got = fetched or {}
    tasks = [(p, stdin if p == STDIN else got.get(p), options) for p in paths]
    if jobs <= 1 or len(tasks) < 2:
        yield from map(_run_file, tasks)
        return
    with ProcessPoolExecutor(min(jobs, len(tasks))) as pool:
        # map keeps the input order; chunks of a few files spare a round trip per file
        yield from pool.map(_run_file, tasks, chunksize=max(1, min(16, len(tasks) // (4 * jobs))))


_DOCUMENT_ERROR = re.compile(r"documents\[(\d+)\]: ")


def run_many(paths: Sequence[str], options: Options, fetch: FetchOptions | None = None) -> ManyResult:
    """One cited context from all ``paths`` (``extract_many``); a document is cited by its title, else its path.
    URLs are fetched by ``extract_many`` with ``fetch``; one that fails is in the result's ``errors``."""
    limit = options.settings.max_input_bytes
    stdin = read_source(STDIN, limit) if STDIN in paths else None
    docs = [Document(url=p, id=p) if is_url(p) else
            Document(stdin if p == STDIN and stdin is not None else read_source(p, limit), id=p) for p in paths]
    try:
        return extract_many(docs, options.query, settings=options.settings, fetch_options=fetch)
    except InputError as exc:  # "documents[3]: binary input" names the file instead
        found = _DOCUMENT_ERROR.match(str(exc))
        if found is None:
            raise
        raise InputError(f"{paths[int(found.group(1))]}: {str(exc)[found.end():]}") from None


def show_many(result: ManyResult, options: Options) -> str:
    return result.to_json() if options.format == "json" else result.text


def many_status(result: ManyResult) -> str:
    cited = sum(1 for s in result.sources if s.citation)
    return (f"{result.total_tokens}/{result.budget} tokens from {cited} of {len(result.sources)} documents, "
            f"{result.dropped_count} segments dropped, {result.duplicate_count} near-duplicates")
