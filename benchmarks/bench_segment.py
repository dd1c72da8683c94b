"""Segmenter throughput (MB/s in ``extra_info``): HTML with Lexbor and markdown with markdown-it-py.

Run as a script for the HTML segmenter's time per stage against the Lexbor parse (the speed target is a ratio to
the parse, which also makes runs on a loaded machine comparable)::

    python benchmarks/bench_segment.py [GLOB] [--runs N]

Each stage of each page is timed N times in CPU time (``time.thread_time``) and the minimum is kept. The first run
is also reported on its own: it is the only one in which the walk meets each class name for the first time (the
boilerplate evidence caches them), as a real page does.
"""

from __future__ import annotations

import argparse
import gzip
import time
from pathlib import Path

import pytest
from conftest import html_inputs, markdown_inputs, mb_per_s
from selectolax.lexbor import LexborHTMLParser

import qatbe
from qatbe.segmentation import html
from qatbe.segmentation.builder import SegmentBuilder
from qatbe.segmentation.html import segment_html
from qatbe.segmentation.html_decide import decide
from qatbe.segmentation.html_emit import _emit
from qatbe.segmentation.html_guard import limit_nesting
from qatbe.segmentation.spans import aligner
from qatbe.settings import Settings

HTML = html_inputs()
MARKDOWN = markdown_inputs()


@pytest.mark.parametrize(("label", "html"), HTML, ids=[label for label, _ in HTML])
def test_parse_floor(benchmark: object, label: str, html: str) -> None:
    """The Lexbor parse alone: the floor the HTML segmenter is measured against."""
    benchmark(LexborHTMLParser, html)  # type: ignore[operator]
    mb_per_s(benchmark, len(html.encode("utf-8")))


@pytest.mark.parametrize(("label", "html"), HTML, ids=[label for label, _ in HTML])
def test_segment_html(benchmark: object, label: str, html: str) -> None:
    segments = benchmark(qatbe.segment, html, format="html")  # type: ignore[operator]
    assert segments
    mb_per_s(benchmark, len(html.encode("utf-8")))


@pytest.mark.parametrize(("label", "markdown"), MARKDOWN, ids=[label for label, _ in MARKDOWN])
def test_segment_markdown(benchmark: object, label: str, markdown: str) -> None:
    segments = benchmark(qatbe.segment, markdown, format="markdown")  # type: ignore[operator]
    assert segments
    mb_per_s(benchmark, len(markdown.encode("utf-8")))


_STAGES = ("guard", "parse", "metadata", "walk", "decide", "emit", "segment_html", "extract")


def stage_times(pages: list[str], runs: int) -> tuple[dict[str, float], dict[str, float]]:
    """Milliseconds per page for each stage of ``segment_html`` (and the whole of ``extract``): the minimum over
    ``runs``, and the first run alone."""
    settings = Settings()
    best = [[float("inf")] * len(_STAGES) for _ in pages]
    first: list[tuple[float, ...]] = []
    clock = time.thread_time
    for _ in range(runs):
        for i, page in enumerate(pages):
            t0 = clock()
            source = limit_nesting(page)
            t1 = clock()
            tree = LexborHTMLParser(source)
            t2 = clock()
            html.page_facts(tree)  # as segment_html reads it (the C search when the build has it); the rest waits
            t3 = clock()
            walker = html._walk(tree)  # the Python walk strips script-like elements first; the fast one skips them
            t4 = clock()
            decide(walker, False)
            t5 = clock()
            _emit(SegmentBuilder(settings, spans=aligner(page)), walker.blocks)  # with the source spans
            t6 = clock()
            segment_html(page, settings)
            t7 = clock()
            qatbe.extract(page, "what is the main topic")
            t8 = clock()
            times = (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6, t8 - t7)
            best[i] = [min(a, b) for a, b in zip(best[i], times)]
            if len(first) < len(pages):
                first.append(times)

    def per_page(rows: list[list[float]] | list[tuple[float, ...]]) -> dict[str, float]:
        return {name: sum(row[k] for row in rows) * 1000 / len(pages) for k, name in enumerate(_STAGES)}

    return per_page(best), per_page(first)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "scrapinghub-aeb" / "html"
    parser.add_argument("glob", nargs="?", default=str(default / "*.html.gz"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    files = sorted(Path("/").glob(args.glob.lstrip("/"))) if args.glob.startswith("/") else sorted(Path().glob(args.glob))
    if not files:
        print(f"no pages match {args.glob}")
        return 1
    pages = [(gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes()).decode("utf-8", "replace")
             for f in files]
    table, first = stage_times(pages, args.runs)
    walk = "compiled walk over Lexbor's nodes" if html.FAST_WALK else f"Python walk ({html.WHY_PYTHON_WALK})"
    print(f"{len(pages)} pages, CPU ms/page (min of {args.runs} runs | first run); {walk}")
    for name, ms in table.items():
        print(f"{name:13s} {ms:7.2f} {ms / table['parse']:5.2f} x parse | {first[name]:7.2f} {first[name] / first['parse']:5.2f} x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
