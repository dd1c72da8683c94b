"""``qatbe extract`` on one file or many: what is printed for a result, and how many files are run.

Several files are extracted each on its own by ``extract_batch``, in the order given, optionally in worker
processes (``--jobs``); the output is the same whatever the number of workers (each file's result is made in
full by one call and printed in input order). A file that cannot be read or extracted is reported on standard
error and the others go on; the exit code says that something failed. ``--many`` makes one cited context of all
of them instead (``extract_many``).
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .batch import extract_batch
from .cli_fetch import Fetched, is_url
from .cli_input import STDIN, read_source
from .errors import InputError, QatbeError
from .fetching import FetchOptions
from .many import Document, ManyResult, extract_many
from .pipeline import Extractor
from .result import Result
from .settings import Settings
from .types import ItemError


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


def run_each(paths: Sequence[str], options: Options, jobs: int = 1, *, fetched: Mapping[str, Fetched] | None = None,
             progress: bool = False) -> Iterator[Done]:
    """Every file on its own (``extract_batch``), outcomes in the order of ``paths``; standard input ('-') is read
    here, once; URLs come ``fetched`` (``cli_fetch.fetch_all``). Files are read here as the batch asks for them;
    one that cannot be read (or a URL that could not be fetched) is reported in its place."""
    limit = options.settings.max_input_bytes
    stdin = read_source(STDIN, limit) if STDIN in paths else None
    got = fetched or {}
    unreadable: dict[int, str] = {}
    fed: deque[int] = deque()  # positions in ``paths`` of the files handed to the batch and not yet done

    def documents() -> Iterator[Document]:
        for i, path in enumerate(paths):
            page = got.get(path)
            if page is not None:  # a URL, fetched already
                if page.error:
                    unreadable[i] = page.error
                    continue
                fed.append(i)
                yield Document(page.source, id=path, url=page.url)
                continue
            try:
                data = stdin if path == STDIN and stdin is not None else read_source(path, limit)
            except QatbeError as exc:
                unreadable[i] = str(exc)
                continue
            except OSError as exc:
                unreadable[i] = exc.strerror or str(exc)
                continue
            fed.append(i)
            yield Document(data, id=path)

    done = 0
    for outcome in extract_batch(documents(), options.query, workers=max(1, min(jobs, len(paths))),
                                 progress=progress, settings=options.settings):
        i = fed.popleft()
        for j in range(done, i):
            yield Done(paths[j], error=unreadable.pop(j))
        done = i + 1
        if isinstance(outcome, ItemError):
            yield Done(paths[i], error=outcome.message)
        else:
            yield Done(paths[i], show(outcome.result, options, paths[i]), status_line(outcome.result))
    for j in range(done, len(paths)):
        yield Done(paths[j], error=unreadable.pop(j))


def bar_available() -> bool:
    """Whether a progress bar can be shown (tqdm, from ``qatbe[batch]``, is installed)."""
    return importlib.util.find_spec("tqdm") is not None


def note(line: str, bar: bool) -> None:
    """A line on standard error; with a progress bar on screen, written above it (tqdm redraws the bar)."""
    if bar:
        import tqdm

        tqdm.tqdm.write(line, file=sys.stderr)
    else:
        print(line, file=sys.stderr)


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
