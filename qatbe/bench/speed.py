"""``qatbe bench speed``: page-by-page time on real HTML, qatbe next to the parse floor and the peers, one run.

Two protocols, in one process, page after page:

* **single pass** (the headline): each page is met once, as a scrape or search pipeline meets it. The Lexbor
  parse, qatbe ``summary`` and trafilatura ``fast=True`` are each timed once on the page, before anything else
  reads it, the page starting them at the next one in turn (``SINGLE_PASS``). What a process builds once comes
  first, untimed and reported as ``process_setup_s``: every system's call on the bundled demo page (imports), and
  qatbe's analysers of every shipped language and its language guesser's tables (``score.analyze.preload``),
  which a long-running pipeline builds on its first page in each language. No dev page is read before its turn,
  so qatbe's memos know only the pages before it.
* **repeated**: every system, the fastest of ``--repeat`` calls after one untimed call of the same page (the usual
  way to take scheduler noise out, and what a call on a page already analysed costs; it flatters qatbe, whose
  memos and the processor's caches then hold the page). Each page starts the systems at the next one in turn, so
  that none always follows the same one.

The systems:

* ``parse``: ``LexborHTMLParser(html)``, the floor any selectolax-based extractor pays;
* ``qatbe:<tier>``: ``qatbe.extract(html, query, tier=...)`` end to end, for each tier;
* ``trafilatura`` and ``trafilatura-fast``: ``trafilatura.extract(html, output_format="markdown", fast=...)``;
* ``resiliparse``: ``extract_plain_text(html, main_content=True)``;
* ``bm25:qatbe``: qatbe's scorer on qatbe's segmentation of the page as it is (kinds, heading levels, split
  parts, so the heading, lead-in and bridge parts do their work), tokenization included, in the language the page
  declares as ``extract`` does (guessed when it declares none); ``bm25:qatbe-guess``: the same with the language
  always guessed from the page (what markdown, text and pages without ``<html lang>`` cost);
* ``bm25:qatbe-text``, ``bm25:rank-bm25``, ``bm25:bm25s``: scoring the *same* segment texts, each as a plain
  paragraph, for the query, tokenization and index building included: the like-for-like comparison.

The query of a page is its ``<title>``: a realistic "what is this page about" question that every page has.
Pages are decoded to ``str`` once, outside the timings, so every system gets the same input.

Report: the single pass's median and p95 per system and per-page ratios, overall and per corpus; then, for the
repeated calls, median and p95 per system, per-page ratios (qatbe ÷ parse, peer ÷ qatbe), BM25 time per 1,000
segments, the log-log slope of time against page size (1.0 = linear), and the biggest pages, where cost growth
shows. The load average at the start and at the end goes with the machine's description (the host is shared).
"""

from __future__ import annotations

import gc
import gzip
import hashlib
import importlib.util
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, DataError
from .args import ArgumentParser, can_plot, default_corpora, positive_int
from .env import describe
from .report import markdown_table

if TYPE_CHECKING:
    from ..types import Segment

TIERS: tuple[str, ...] = ("key_facts", "summary", "detailed", "complete")
# The systems of the single pass, and the protocols ``--protocol`` chooses from.
SINGLE_PASS: tuple[str, ...] = ("parse", "qatbe:summary", "trafilatura-fast")
PROTOCOLS: tuple[str, ...] = ("both", "single", "repeated")
PAGE_SETS: tuple[str, ...] = ("scrapinghub-aeb/html", "wcxb/html")
# The per-1,000-segment BM25 figures read only pages of at least this many segments: on a smaller page the fixed
# cost a page is most of the time, and a figure per segment would say little.
MIN_SEGMENTS = 20


@dataclass(frozen=True, slots=True)
class Page:
    name: str
    html: str
    size: int  # bytes of the decoded page as UTF-8
    query: str


def _title(html: str) -> str:
    from selectolax.lexbor import LexborHTMLParser

    node = LexborHTMLParser(html).css_first("title")
    text = " ".join((node.text() if node is not None else "").split())
    return text or "main content"


def read_pages(paths: Sequence[Path], *, limit: int | None = None, biggest: int = 5) -> list[Page]:
    """Pages from ``*.html`` / ``*.html.gz`` files or folders of them, sorted by name.

    With ``limit``, a deterministic spread (every page's sha1 of its name, lowest first) plus the ``biggest``
    largest files, so that a short run still shows how cost grows with size.
    """
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.iterdir() if p.name.endswith((".html", ".html.gz", ".htm"))))
        elif path.is_file():
            files.append(path)
        else:
            raise DataError(f"{path}: no such page or folder")
    if not files:
        raise DataError("no pages found (*.html or *.html.gz)")
    pages = []
    for file in files:
        data = file.read_bytes()
        if file.name.endswith(".gz"):
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError) as exc:
                raise DataError(f"{file}: not gzip ({exc})") from None
        html = data.decode("utf-8", errors="replace")
        name = f"{file.parent.parent.name}/{file.name}" if file.parent.name == "html" else file.name
        pages.append(Page(name, html, len(html.encode("utf-8")), ""))
    if limit is not None and limit < len(pages):
        by_size = sorted(pages, key=lambda p: (-p.size, p.name))[:biggest]
        spread = sorted(pages, key=lambda p: hashlib.sha1(p.name.encode()).hexdigest())
        keep = {p.name for p in list(dict.fromkeys([*by_size, *spread]))[: max(limit, len(by_size))]}
        pages = [p for p in pages if p.name in keep]
    return [Page(p.name, p.html, p.size, _title(p.html)) for p in pages]


# -- the timed functions -------------------------------------------------------------------------------------

Timed = Callable[[Page], Callable[[], object]]


def _parse(page: Page) -> Callable[[], object]:
    from selectolax.lexbor import LexborHTMLParser

    return lambda: LexborHTMLParser(page.html)


def _qatbe(tier: str) -> Timed:
    def make(page: Page) -> Callable[[], object]:
        import qatbe

        return lambda: qatbe.extract(page.html, page.query, tier=tier)

    return make


def _trafilatura(fast: bool) -> Timed:
    def make(page: Page) -> Callable[[], object]:
        import trafilatura

        return lambda: trafilatura.extract(page.html, output_format="markdown", fast=fast)

    return make


def _resiliparse(page: Page) -> Callable[[], object]:
    from resiliparse.extract.html2text import extract_plain_text

    return lambda: extract_plain_text(page.html, main_content=True)


_segments_cache: dict[str, tuple[list[Segment], str | None]] = {}


def _page_parsed(page: Page) -> tuple[list[Segment], str | None]:
    """qatbe's segments of the page and the language it declares (``<html lang>``), made once, untimed."""
    if page.name not in _segments_cache:
        import qatbe

        extractor = qatbe.Extractor()
        doc = extractor.parse(page.html)  # what Extractor.segment returns, read with the page's metadata
        _segments_cache[page.name] = (extractor._measured(doc.segments), doc.metadata.language)
    return _segments_cache[page.name]


def page_segments(page: Page) -> list[Segment]:
    """qatbe's segments of the page (computed once, untimed): the common input of the BM25 comparisons."""
    return _page_parsed(page)[0]


def scored_pages(pages: Sequence[Page]) -> Iterator[tuple[Page, int]]:
    """The pages the per-1,000-segment figures read (``MIN_SEGMENTS`` or more segments), with their segments'
    number: for the scripts that take the BM25 row apart (benchmarks/scoring_calls.py, scoring_steps.py)."""
    for page in pages:
        n = len(page_segments(page))
        if n >= MIN_SEGMENTS:
            yield page, n


def script_paths(given: Sequence[Path]) -> list[Path] | None:
    """For the scripts that take the bench apart (benchmarks/scoring_calls.py, scoring_steps.py, single_pass.py):
    the pages ``given``, else the bench's page sets under the corpora; None, after naming the missing ones on
    standard error, when any is missing."""
    paths = list(given) or [default_corpora() / name for name in PAGE_SETS]
    missing = [p for p in paths if not p.exists()]
    if missing:
        print(f"not found: {', '.join(map(str, missing))} (the corpora live in ../shared/corpora)", file=sys.stderr)
        return None
    return paths


def segment_texts(page: Page) -> list[str]:
    """The texts of ``page_segments``: what the peers' scorers (and benchmarks/kernel_ab.py) are given."""
    return [s.text for s in page_segments(page)]


def bm25_qatbe(as_text: bool, guess: bool = False, options: Mapping[str, Any] | None = None) -> Timed:
    """qatbe's scorer on the page's segments; ``as_text``: their texts only, each a paragraph (what the peers get).

    Why both: the scorer reads a segment's kind (headings lend their words to the segments under them, a best
    segment that names another section's heading credits it), so plain paragraphs cost it less than the page as
    segmented. The texts-only row compares like with like; the other is what scoring costs in qatbe.

    The language is the one the page declares, as ``Extractor.extract`` scores it; a page that declares none, and
    every page of the ``guess`` row, has it guessed from its prose. Why a row for the guess: ``extract`` guesses
    only for pages without ``<html lang>`` (27 of the 394 aeb and wcxb pages) and for markdown and text, and the
    guess adds about a tenth to scoring a page. ``options``: ``Settings`` fields set for every page, for the
    scripts that ask what a part of the scorer costs (benchmarks/scoring_steps.py ``--option bridge=0``)."""
    fields = dict(options or {})

    def make(page: Page) -> Callable[[], object]:
        from ..score.bm25 import score_segments
        from ..settings import Settings
        from ..types import Segment, SegmentKind

        segments, declared = _page_parsed(page)
        if as_text:
            segments = [Segment(SegmentKind.PARAGRAPH, s.text, s.text, i, i) for i, s in enumerate(segments)]
        settings = Settings(**fields) if guess or not declared else Settings(**{"language": declared, **fields})
        return lambda: score_segments(segments, page.query, settings)

    return make


def _bm25_rank(page: Page) -> Callable[[], object]:
    import re

    from rank_bm25 import BM25Okapi

    texts = segment_texts(page)
    word = re.compile(r"\w+")

    def run() -> object:
        corpus = [word.findall(t.lower()) for t in texts]
        if not any(corpus):
            return None
        return BM25Okapi(corpus).get_scores(word.findall(page.query.lower()))

    return run


def _bm25s(page: Page) -> Callable[[], object]:
    import bm25s

    texts = segment_texts(page)

    def run() -> object:
        tokens = bm25s.tokenize(texts, stopwords="en", show_progress=False)
        retriever = bm25s.BM25()
        retriever.index(tokens, show_progress=False)
        query = bm25s.tokenize([page.query], stopwords="en", show_progress=False, return_ids=False)[0]
        return retriever.get_scores(query)

    return run


def systems() -> dict[str, tuple[Timed, tuple[str, ...]]]:
    """Name → (factory of a zero-argument timed call for a page, modules it needs)."""
    table: dict[str, tuple[Timed, tuple[str, ...]]] = {"parse": (_parse, ("selectolax",))}
    for tier in TIERS:
        table[f"qatbe:{tier}"] = (_qatbe(tier), ())
    table["trafilatura"] = (_trafilatura(False), ("trafilatura",))
    table["trafilatura-fast"] = (_trafilatura(True), ("trafilatura",))
    table["resiliparse"] = (_resiliparse, ("resiliparse",))
    table["bm25:qatbe"] = (bm25_qatbe(False), ())
    table["bm25:qatbe-guess"] = (bm25_qatbe(False, guess=True), ())
    table["bm25:qatbe-text"] = (bm25_qatbe(True), ())
    table["bm25:rank-bm25"] = (_bm25_rank, ("rank_bm25",))
    table["bm25:bm25s"] = (_bm25s, ("bm25s",))
    return table


# The clocks ``--clock`` chooses from: wall time, or the CPU time of the calling thread, which leaves out the time
# the thread waits while the scheduler runs other work (every system timed here computes in the calling thread).
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "thread": time.thread_time}


def best_of(call: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """Fastest of ``repeat`` runs, in seconds of ``clock``."""
    best = math.inf
    for _ in range(repeat):
        start = clock()
        call()
        best = min(best, clock() - start)
    return best


# -- statistics ----------------------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (an observed value)."""
    ordered = sorted(values)
    rank = min(len(ordered), max(1, math.ceil(q * len(ordered) - 1e-9)))
    return ordered[rank - 1]


def loglog_slope(sizes: Sequence[float], seconds: Sequence[float]) -> float | None:
    """Least-squares slope of log(time) on log(size): ~1 for linear cost, ~2 for quadratic."""
    pairs = [(math.log(s), math.log(t)) for s, t in zip(sizes, seconds) if s > 0 and t > 0]
    if len(pairs) < 3:
        return None
    mx = sum(p[0] for p in pairs) / len(pairs)
    my = sum(p[1] for p in pairs) / len(pairs)
    var = sum((p[0] - mx) ** 2 for p in pairs)
    if var == 0:
        return None
    return sum((p[0] - mx) * (p[1] - my) for p in pairs) / var


def fixed_and_marginal(pages: Sequence[dict[str, Any]], name: str) -> dict[str, float]:
    """A page's time as a fixed part plus a part per segment (least squares over the pages): ``fixed_ms`` and
    ``marginal_ms_per_1000``. Why: the per-page figure divides everything by the page's segments, so on a page of
    90 segments a fixed cost of 0.05 ms alone reads as 0.55 ms per 1,000; the two parts say which one to work on.
    Empty when the pages do not differ in size."""
    sizes = [float(p["segments"]) for p in pages]
    if len(set(sizes)) < 2:
        return {}
    slope, intercept = statistics.linear_regression(sizes, [1000 * p["seconds"][name] for p in pages])
    return {"fixed_ms": intercept, "marginal_ms_per_1000": 1000 * slope}


# Issue #2's targets: qatbe summary within 3x the Lexbor parse, and trafilatura (fast) 10x slower than qatbe.
TARGET_RATIOS = (("qatbe:summary", "parse"), ("trafilatura-fast", "qatbe:summary"))


def _ratios(pages: Sequence[dict[str, Any]], num: str, den: str, key: str = "seconds") -> dict[str, float] | None:
    """Median and p95 of the per-page ratio ``num`` ÷ ``den`` of the times under ``key`` ("seconds": the repeated
    calls, "single": the single pass)."""
    values = [p[key][num] / p[key][den] for p in pages
              if num in p.get(key, {}) and den in p[key] and p[key][den] > 0]
    return {"median": statistics.median(values), "p95": percentile(values, 0.95)} if values else None


def _corpus_of(page: dict[str, Any]) -> str:
    return str(page["name"]).split("/")[0] if "/" in page["name"] else "given pages"


@dataclass
class SpeedReport:
    env: dict[str, object]
    pages: list[dict[str, Any]]  # one row per page: name, bytes, segments, seconds per system, single, errors
    skipped: dict[str, str]

    def system_names(self) -> list[str]:
        return list(dict.fromkeys(k for p in self.pages for k in p["seconds"]))

    def single_pass(self) -> dict[str, Any]:
        """The single pass: median and p95 ms per system, and the target ratios overall and per corpus."""
        names = list(dict.fromkeys(k for p in self.pages for k in p.get("single", {})))
        out: dict[str, Any] = {"systems": {}, "ratios": {}, "by_corpus": {}}
        for name in names:
            times = [p["single"][name] for p in self.pages if name in p.get("single", {})]
            out["systems"][name] = {"pages": len(times), "median_ms": 1000 * statistics.median(times),
                                    "p95_ms": 1000 * percentile(times, 0.95)}
        for num, den in TARGET_RATIOS:
            if overall := _ratios(self.pages, num, den, "single"):
                out["ratios"][f"{num} / {den}"] = overall
        for corpus in sorted({_corpus_of(p) for p in self.pages}):
            pages = [p for p in self.pages if _corpus_of(p) == corpus]
            found: dict[str, Any] = {
                f"{num} / {den}": r for num, den in TARGET_RATIOS if (r := _ratios(pages, num, den, "single"))}
            if found:
                out["by_corpus"][corpus] = {"pages": len(pages), **found}
        return out

    def summary(self) -> dict[str, Any]:
        names = self.system_names()
        out: dict[str, Any] = {"single_pass": self.single_pass(), "systems": {}, "ratios": {},
                               "per_1000_segments_ms": {}}
        for name in names:
            times = [p["seconds"][name] for p in self.pages if name in p["seconds"]]
            if not times:
                continue
            sizes = [p["bytes"] for p in self.pages if name in p["seconds"]]
            out["systems"][name] = {
                "pages": len(times),
                "median_ms": 1000 * statistics.median(times),
                "p95_ms": 1000 * percentile(times, 0.95),
                "total_s": sum(times),
                "mb_per_s": sum(sizes) / 1e6 / sum(times) if sum(times) > 0 else None,
                "loglog_slope": loglog_slope(sizes, times),
                "errors": sum(1 for p in self.pages if name in p["errors"]),
            }
            if name.startswith("bm25:"):
                scored = [p for p in self.pages if name in p["seconds"] and p["segments"] >= MIN_SEGMENTS]
                per = [1000 * 1000 * p["seconds"][name] / p["segments"] for p in scored]
                if per:
                    out["per_1000_segments_ms"][name] = {"median": statistics.median(per), "p95": percentile(per, 0.95),
                                                         **fixed_and_marginal(scored, name)}

        def ratio(num: str, den: str) -> None:
            found = _ratios(self.pages, num, den)
            if found:
                out["ratios"][f"{num} / {den}"] = found

        for tier in TIERS:
            ratio(f"qatbe:{tier}", "parse")
        for peer in ("trafilatura", "trafilatura-fast", "resiliparse"):
            ratio(peer, "qatbe:summary")
        ratio("bm25:rank-bm25", "bm25:qatbe-text")
        ratio("bm25:bm25s", "bm25:qatbe-text")
        # The engine issue states its targets on one corpus (scrapinghub-aeb): the two target ratios per corpus.
        out["by_corpus"] = {}
        for corpus in sorted({p["name"].split("/")[0] for p in self.pages if "/" in p["name"]}):
            pages = [p for p in self.pages if p["name"].startswith(corpus + "/")]
            found = {f"{num} / {den}": r for num, den in TARGET_RATIOS if (r := _ratios(pages, num, den))}
            if found:
                out["by_corpus"][corpus] = {"pages": len(pages), **found}
        return out

    def single_table(self) -> str:
        """The headline: the single pass's times and target ratios (empty when it did not run)."""
        single = self.single_pass()
        if not single["systems"]:
            return ""
        labels = [f"{num} / {den}" for num, den in TARGET_RATIOS]
        parts = ["single pass: each page once, systems interleaved, one process\n",
                 markdown_table(["system", "pages", "median ms", "p95 ms"], [
                     [name, str(v["pages"]), f"{v['median_ms']:.2f}", f"{v['p95_ms']:.2f}"]
                     for name, v in single["systems"].items()]),
                 "\n\nsingle pass, per-page ratios (median / p95)\n",
                 markdown_table(["pages", "count", *labels], [
                     [corpus, str(v["pages"]), *(f"{v[k]['median']:.2f} / {v[k]['p95']:.2f}" if k in v else "—"
                                               for k in labels)]
                     for corpus, v in [("all", {"pages": len(self.pages), **single["ratios"]}),
                                       *single["by_corpus"].items()]])]
        return "".join(parts)

    def table(self, biggest: int = 5) -> str:
        summary = self.summary()
        head = self.single_table()
        if not summary["systems"]:
            return head
        rows = [[name, str(s["pages"]), f"{s['median_ms']:.2f}", f"{s['p95_ms']:.2f}",
                 "—" if s["mb_per_s"] is None else f"{s['mb_per_s']:.2f}",
                 "—" if s["loglog_slope"] is None else f"{s['loglog_slope']:.2f}", str(s["errors"])]
                for name, s in summary["systems"].items()]
        parts = [head + "\n\n" if head else "",
                 (f"repeated calls: {len(self.pages)} pages, time per page (fastest of the repeats after one "
                  "untimed call)\n"),
                 markdown_table(["system", "pages", "median ms", "p95 ms", "MB/s", "size slope", "errors"], rows)]
        if summary["ratios"]:
            parts.append("\n\nrepeated calls, per-page ratios\n")
            parts.append(markdown_table(["ratio", "median", "p95"], [
                [k, f"{v['median']:.2f}", f"{v['p95']:.2f}"] for k, v in summary["ratios"].items()]))
        if summary["by_corpus"]:
            parts.append("\n\nrepeated calls, the target ratios per corpus (median / p95)\n")
            labels = [f"{num} / {den}" for num, den in TARGET_RATIOS]
            parts.append(markdown_table(["corpus", "pages", *labels], [
                [corpus, str(v["pages"]), *(f"{v[k]['median']:.2f} / {v[k]['p95']:.2f}" if k in v else "—"
                                          for k in labels)]
                for corpus, v in summary["by_corpus"].items()]))
        if summary["per_1000_segments_ms"]:
            parts.append("\n\nBM25 ms per 1,000 segments, tokenization included "
                         f"(pages with ≥ {MIN_SEGMENTS} segments)\n")
            parts.append(markdown_table(["scorer", "median", "p95", "fixed ms a page", "ms per 1,000 beyond it"], [
                [k, f"{v['median']:.3f}", f"{v['p95']:.3f}",
                 f"{v['fixed_ms']:.3f}" if "fixed_ms" in v else "—",
                 f"{v['marginal_ms_per_1000']:.3f}" if "marginal_ms_per_1000" in v else "—"]
                for k, v in summary["per_1000_segments_ms"].items()]))
        big = sorted(self.pages, key=lambda p: -p["bytes"])[:biggest]
        if big:
            names = [n for n in self.system_names() if not n.startswith("bm25:")]
            parts.append(f"\n\nthe {len(big)} biggest pages, ms\n")
            parts.append(markdown_table(["page", "KB", "segments", *names], [
                [p["name"], f"{p['bytes'] / 1000:.0f}", str(p["segments"]),
                 *(f"{1000 * p['seconds'][n]:.1f}" if n in p["seconds"] else "err" for n in names)]
                for p in big]))
        for name, reason in self.skipped.items():
            parts.append(f"\nskipped {name}: {reason}")
        return "".join(parts)

    def write(self, out: Path, *, plot: bool = True) -> dict[str, Path]:
        out.mkdir(parents=True, exist_ok=True)
        written = {"json": out / "speed.json", "table": out / "speed.md"}
        written["json"].write_text(json.dumps(
            {"benchmark": "speed", **self.env, "summary": self.summary(), "skipped": self.skipped,
             "pages": self.pages}, indent=1, sort_keys=True), encoding="utf-8")
        machine = f"qatbe {self.env['qatbe_version']} ({self.env['backend']}), Python {self.env['python']}, " \
                  f"{self.env['cpu']} × {self.env['cpu_count']}, {self.env['date']}"
        if "clock" in self.env:
            machine += f", clock {self.env['clock']}"
        load = self.env.get("load_average")
        if isinstance(load, dict):
            machine += f", load average {load['start'][0]:.2f} at the start, {load['end'][0]:.2f} at the end"
        written["table"].write_text(f"{machine}\n\n{self.table()}\n", encoding="utf-8")
        if plot and self.pages:
            written["plot"] = self.plot(out / "speed.png")
        return written

    def plot(self, path: Path) -> Path:
        """Time against page size, log-log, one colour per system: where a line bends up, cost grows faster."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(8, 5.5))
        for name in self.system_names():
            if name.startswith("bm25:") or name in ("qatbe:detailed", "qatbe:complete"):
                continue
            pts = [(p["bytes"] / 1000, 1000 * p["seconds"][name]) for p in self.pages if name in p["seconds"]]
            ax.scatter([x for x, _ in pts], [y for _, y in pts], s=8, alpha=0.6, label=name)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("page size (KB)")
        ax.set_ylabel("time per page (ms)")
        ax.grid(True, alpha=0.3)
        ax.legend(markerscale=2, fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path


def _progress(pages: Sequence[Page], enabled: bool) -> Iterator[Page]:
    if enabled and importlib.util.find_spec("tqdm") is not None:
        from tqdm import tqdm

        yield from tqdm(pages, unit="page", file=sys.stderr, dynamic_ncols=True)
    else:
        yield from pages


def _demo_page() -> Page:
    from importlib import resources

    html = resources.files("qatbe.data").joinpath("demo.html").read_text("utf-8")
    return Page("demo.html", html, len(html.encode("utf-8")), _title(html))


def _single(order: Sequence[tuple[str, Timed]], page: Page, k: int, row: dict[str, Any],
            clock: Callable[[], float]) -> None:
    """The single pass on one page: each system timed once, the page starting them at the ``k``-th in turn."""
    start = k % len(order)
    for name, make in [*order[start:], *order[:start]]:
        try:
            row["single"][name] = best_of(make(page), 1, clock)
        except Exception as exc:  # noqa: BLE001 - recorded per page and system
            row["errors"][name] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]


def run_speed(
    pages: Sequence[Page], *, names: Sequence[str] | None = None, repeat: int = 3, progress: bool = False,
    protocol: str = "both", clock: str = "wall",
) -> SpeedReport:
    """Times every available system on every page; a system whose peer is missing is skipped and reported.

    ``protocol``: "single" (the single pass only), "repeated" (the repeated calls only) or "both" (per page, the
    single pass first, then the repeated calls). ``clock``: "wall" or
    "thread" (``CLOCKS``)."""
    if clock not in CLOCKS:
        raise ConfigError(f"unknown clock {clock!r}; choose from {', '.join(CLOCKS)}")
    timer = CLOCKS[clock]
    if protocol not in PROTOCOLS:
        raise ConfigError(f"unknown protocol {protocol!r}; choose from {', '.join(PROTOCOLS)}")
    table = systems()
    chosen = list(names) if names else list(table)
    skipped: dict[str, str] = {}
    runnable: dict[str, Timed] = {}
    for name in chosen:
        make, modules = table[name]
        absent = [m for m in modules if importlib.util.find_spec(m) is None]
        if absent:
            skipped[name] = f"{', '.join(absent)} not installed (pip install 'qatbe[bench]')"
        else:
            runnable[name] = make
    single = [(n, runnable[n]) for n in SINGLE_PASS if n in runnable] if protocol != "repeated" else []
    repeated = [(n, runnable[n]) for n in chosen if n in runnable] if protocol != "single" else []
    load_start = os.getloadavg()
    demo = _demo_page()
    setup = time.perf_counter()
    if single:
        from ..score.analyze import preload

        preload()  # what a process builds once: every language's analyser, the language guesser's tables
    for _, make in single:
        make(demo)()  # imports, on a page that is not measured
    setup = time.perf_counter() - setup
    rows: list[dict[str, Any]] = []
    order = repeated
    for k, page in enumerate(_progress(pages, progress)):
        row: dict[str, Any] = {"name": page.name, "bytes": page.size, "segments": -1, "query": page.query,
                               "seconds": {}, "single": {}, "errors": {}}
        if single:
            gc.collect()
            # Before anything else reads the page: qatbe's segmentation for the BM25 rows would teach the walk
            # its class names and the processor its branches.
            _single(single, page, k, row, timer)
        rows.append(row)
        if not order:
            continue
        seg_error = ""
        try:
            n_segments = len(page_segments(page))
        except Exception as exc:  # noqa: BLE001 - a page qatbe cannot segment is reported, BM25 rows skipped
            n_segments = -1
            seg_error = f"{type(exc).__name__}: {exc}"
        row["segments"] = n_segments
        gc.collect()
        # Each page starts the systems at the next one, and each system's timed calls follow one untimed call. Why:
        # a call finds the caches as the call before it left them. In a fixed order a system that always followed
        # another reading the same page (the summary tier after key_facts, one qatbe scorer after the other: 13-15 %
        # faster than in first place) gained on one that followed a stranger (the parse, first after the
        # collection), whatever its own cost; one call of its own first puts every system on the page alike.
        start = k % len(order) if order else 0
        for name, make in order[start:] + order[:start]:
            if name.startswith("bm25:") and n_segments < 0:
                row["errors"][name] = seg_error
                continue
            try:
                call = make(page)
                call()  # untimed: the first call pays imports, and every system meets the page's data once
                row["seconds"][name] = best_of(call, repeat, timer)
            except Exception as exc:  # noqa: BLE001 - recorded per page and system
                row["errors"][name] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        row["seconds"] = {name: row["seconds"][name] for name in runnable if name in row["seconds"]}
        _segments_cache.pop(page.name, None)
    env = describe()
    env["load_average"] = {"start": list(load_start), "end": list(os.getloadavg())}
    env["protocol"] = protocol
    env["clock"] = clock
    env["process_setup_s"] = setup  # the single pass's untimed setup: imports, analysers, demo-page calls
    return SpeedReport(env, rows, skipped)


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog="qatbe bench speed",
                            description="Per-page time on real HTML: parse floor, qatbe tiers, peers, BM25 scorers.")
    parser.add_argument("pages", nargs="*", type=Path,
                        help="HTML files or folders (default: scrapinghub-aeb and wcxb pages under --corpora)")
    parser.add_argument("--corpora", type=Path, default=None)
    parser.add_argument("--limit", type=positive_int, default=None,
                        help="at most N pages (a fixed spread plus the 5 biggest)")
    parser.add_argument("--repeat", type=positive_int, default=3,
                        help="repeated calls: timed runs per page and system, after one untimed run (the fastest "
                             "counts)")
    parser.add_argument("--protocol", choices=PROTOCOLS, default="both",
                        help="single: each page once (parse, qatbe summary, trafilatura fast); repeated: every "
                             "system's fastest of --repeat; both (default): the single pass, then the repeats")
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="wall",
                        help="wall time, or the calling thread's CPU time (leaves out waits for a shared core)")
    parser.add_argument("--systems", default=None,
                        help="comma-separated subset of: " + ", ".join(systems()))
    parser.add_argument("--out", type=Path, default=None, help="write speed.json/.md/.png here")
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument("--no-progress", action="store_true")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    names = None
    if args.systems:
        names = [n.strip() for n in args.systems.split(",") if n.strip()]
        unknown = [n for n in names if n not in systems()]
        if unknown:
            raise ConfigError(f"unknown speed system {unknown[0]!r}; choose from {', '.join(systems())}")
    paths = list(args.pages)
    if not paths:
        corpora = args.corpora or default_corpora()
        paths = [corpora / sub for sub in PAGE_SETS if (corpora / sub).is_dir()]
        if not paths:
            raise DataError(f"no pages given and none found under {corpora} ({', '.join(PAGE_SETS)})")
    pages = read_pages(paths, limit=args.limit)
    report = run_speed(pages, names=names, repeat=args.repeat, progress=not args.no_progress,
                       protocol=args.protocol, clock=args.clock)
    print(report.table())
    if args.out is not None:
        for kind, path in report.write(args.out, plot=not args.no_plot and can_plot("qatbe bench speed")).items():
            print(f"{kind}: {path}")
    return 0
