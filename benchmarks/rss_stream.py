"""Resident memory over a long crawl: does any cache grow with the pages a process has seen?

    PYTHONPATH=. python benchmarks/rss_stream.py [--pages 100000] [--every 1000] [--out benchmarks/results]

The stream cycles the dev pages of ``../shared/corpora/scrapinghub-aeb`` and ``wcxb`` (``$QATBE_CORPORA``) with
their words perturbed, so the vocabulary keeps growing as a crawl's does (names, numbers, typos): in every text
between two tags, every ``SHARE``-th word of four or more letters gets a suffix of letters spelled from the page's
number in the stream, so no two stream pages share their perturbed words. Each page gets one ``qatbe.extract`` call
with a rotating query (another page's title plus one perturbed word, so the query caches meet a new query on every
call too). The resident set size is read from ``/proc/self/statm`` every ``--every`` pages.

Report: RSS at page 10,000 and at the last page, the least and most RSS from page 10,000 on, and their spread
against the RSS at 10,000 (the bar: within ±10 %), with every cache's size at the end (``qatbe.caches``).
Written to ``rss_stream.json`` and ``rss_stream.md`` under ``--out``. Runs about 300 pages a second on one core.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import qatbe
from qatbe import caches
from qatbe.bench.args import default_corpora
from qatbe.bench.env import describe

PAGE_SETS = ("scrapinghub-aeb/html", "wcxb/html")
SHARE = 5  # every SHARE-th long word of a text is perturbed
WARM = 10_000  # the page from which RSS must be flat
_TEXT = re.compile(r">([^<]+)<")
_WORD = re.compile(r"[A-Za-z]{4,}")
_TITLE = re.compile(r"<title[^>]*>([^<]*)</title>", re.IGNORECASE)
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True, slots=True)
class Template:
    """A page cut right after the words to perturb: each piece but the last ends with one of them."""

    pieces: tuple[str, ...]
    title: str


def template(html: str) -> Template:
    pieces: list[str] = []
    at = 0
    n = 0
    for text in _TEXT.finditer(html):
        for word in _WORD.finditer(text.group(1)):
            n += 1
            if n % SHARE:
                continue
            start = text.start(1) + word.end()
            pieces.append(html[at:start])
            at = start
    pieces.append(html[at:])
    title = _TITLE.search(html)
    return Template(tuple(pieces), " ".join(title.group(1).split()) if title else "main content")


def suffix(number: int) -> str:
    """``number`` spelled in lowercase letters (base 26): a word's new ending, unique to its stream page."""
    out = []
    number += 26
    while number:
        number, digit = divmod(number, 26)
        out.append(chr(97 + digit))
    return "".join(out)


def render(page: Template, number: int) -> str:
    end = suffix(number)
    parts: list[str] = []
    for piece in page.pieces[:-1]:
        parts.append(piece)
        parts.append(end)
    parts.append(page.pieces[-1])
    return "".join(parts)


def read_templates(corpora: Path) -> list[Template]:
    out = []
    for sub in PAGE_SETS:
        folder = corpora / sub
        if not folder.is_dir():
            raise SystemExit(f"rss_stream.py: {folder} not found (set QATBE_CORPORA)")
        for path in sorted(folder.iterdir()):
            data = path.read_bytes()
            if path.name.endswith(".gz"):
                data = gzip.decompress(data)
            out.append(template(data.decode("utf-8", errors="replace")))
    return out


def rss_mb() -> float:
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * _PAGE_SIZE / 1e6


def run(templates: list[Template], pages: int, every: int) -> dict[str, object]:
    samples: list[dict[str, float]] = []
    start = time.perf_counter()
    n = len(templates)
    for number in range(pages):
        page = templates[number % n]
        other = templates[(number * 31 + 7) % n]
        query = f"{other.title} {other.title.split()[0] if other.title.split() else 'page'}{suffix(number)}"
        qatbe.extract(render(page, number), query)
        if (number + 1) % every == 0 or number + 1 == pages:
            samples.append({"page": number + 1, "rss_mb": rss_mb(), "seconds": time.perf_counter() - start})
            print(f"{number + 1:>7} pages  RSS {samples[-1]['rss_mb']:.1f} MB  {samples[-1]['seconds']:.0f} s",
                  file=sys.stderr, flush=True)
    after = [s for s in samples if s["page"] >= min(WARM, pages)]
    base = after[0]["rss_mb"]
    low, high = min(s["rss_mb"] for s in after), max(s["rss_mb"] for s in after)
    return {
        "pages": pages,
        "every": every,
        "templates": n,
        "share": SHARE,
        "pages_per_second": pages / samples[-1]["seconds"],
        "rss_at_warm_mb": base,
        "warm_page": after[0]["page"],
        "rss_last_mb": samples[-1]["rss_mb"],
        "rss_min_mb": low,
        "rss_max_mb": high,
        "rss_median_mb": statistics.median(s["rss_mb"] for s in after),
        "spread_pct": {"below": 100 * (low - base) / base, "above": 100 * (high - base) / base},
        "flat": low >= 0.9 * base and high <= 1.1 * base,
        "caches": [c._asdict() for c in caches.sizes()],
        "samples": samples,
    }


def table(result: dict[str, object]) -> str:
    spread = result["spread_pct"]
    assert isinstance(spread, dict)
    rows = [
        ("pages (templates cycled)", f"{result['pages']:,} ({result['templates']})"),
        ("pages a second", f"{result['pages_per_second']:.0f}"),
        (f"RSS at page {result['warm_page']:,}, MB", f"{result['rss_at_warm_mb']:.1f}"),
        (f"RSS at page {result['pages']:,}, MB", f"{result['rss_last_mb']:.1f}"),
        (f"least / most RSS from page {result['warm_page']:,}, MB",
         f"{result['rss_min_mb']:.1f} / {result['rss_max_mb']:.1f}"),
        ("spread against the RSS at the warm page", f"{spread['below']:+.1f} % / {spread['above']:+.1f} %"),
        ("flat within ±10 %", "yes" if result["flat"] else "no"),
    ]
    lines = ["| measure | value |", "|---|--:|", *(f"| {a} | {b} |" for a, b in rows)]
    lines += ["", "| cache | entries at the end | bound |", "|---|--:|--:|"]
    for c in result["caches"]:  # type: ignore[attr-defined]
        lines.append(f"| {c['name']} | {c['entries']:,} | {c['bound']:,} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=100_000, help="pages in the stream (default 100,000)")
    parser.add_argument("--every", type=int, default=1_000, help="read RSS every N pages (default 1,000)")
    parser.add_argument("--corpora", type=Path, default=None, help="default: $QATBE_CORPORA or ../shared/corpora")
    parser.add_argument("--out", type=Path, default=None, help="write rss_stream.json and rss_stream.md here")
    args = parser.parse_args(argv)
    if args.pages < 1 or args.every < 1:
        parser.error("--pages and --every must be >= 1")
    templates = read_templates(args.corpora or default_corpora())
    result = {"benchmark": "rss_stream", **describe(), **run(templates, args.pages, args.every)}
    text = table(result)
    print(text)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "rss_stream.json").write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", "utf-8")
        machine = f"qatbe {result['qatbe_version']} ({result['backend']}), Python {result['python']}, {result['date']}"
        (args.out / "rss_stream.md").write_text(f"{machine}\n\n`PYTHONPATH=. python benchmarks/rss_stream.py "
                                               f"--pages {args.pages}`\n\n{text}", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
