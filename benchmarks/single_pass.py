"""Each page once, as a pipeline meets it: what ``qatbe bench speed``'s repeated calls leave out.

    PYTHONPATH=. python benchmarks/single_pass.py [--systems parse,qatbe:summary,trafilatura-fast,bm25:qatbe]
        [--warm 40] [--limit N] [pages ...]

The speed bench times a page's calls after one untimed call of the same page, so a timed call finds that page's
words analysed, its element names judged and its data in the caches. A scrape or search pipeline extracts a page
once. Here every system runs in a process of its own (so that no system learns from another's pass), first over
the last ``--warm`` pages of the list (untimed: imports, the common words), then over the others in order, one
timed call each ("single pass"); then over them again in order, three rounds, each page's fastest ("round robin":
every word known, as in a pipeline that has met the site's words, but another page's call between two of the same
page's); last as the speed bench times them ("repeated": one untimed call, then the fastest of three in a row).
Printed per protocol: each system's median ms, the issue #2 ratios (qatbe:summary / parse, trafilatura-fast /
qatbe:summary) per corpus as medians of per-page ratios, and the BM25 row's ms per 1,000 segments (pages with 20 or
more segments).

Why the round robin: a call right after the same page's finds that page's data in the processor's caches, and
its branches learnt; the bench's figures are such calls. The round robin keeps what a pipeline keeps (the words
analysed) and loses what it loses (the page's data in the caches, its branches learnt: qatbe's scorer took about
twice as long at the median page as in a row, 2.59-2.68 against 1.34-1.37 ms per 1,000 segments).

Why processes: qatbe's tiers and scorer share the analysers' memos; a tier run after another would find every
page's words known. Needs ``../shared/corpora`` unless pages are given.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import qatbe
from qatbe.bench.speed import MIN_SEGMENTS, Page, best_of, page_segments, read_pages, script_paths, systems

DEFAULT_SYSTEMS = "parse,qatbe:summary,trafilatura-fast,bm25:qatbe"


PROTOCOLS = ("single pass", "round robin", "repeated")
ROUNDS = 3


def one_system(name: str, pages: list[Page], warm: int) -> dict[str, list[float]]:
    """``name`` over the pages under each of ``PROTOCOLS`` in turn, after the warm-up: seconds per page."""
    make = systems()[name][0]
    measured, warmup = pages[: len(pages) - warm], pages[len(pages) - warm:]
    for page in warmup:
        make(page)()
    calls = [make(page) for page in measured]  # untimed: a BM25 row segments the page here, the others do nothing
    first = [best_of(call, 1) for call in calls]
    robin = [float("inf")] * len(calls)
    for _ in range(ROUNDS):
        robin = [min(fastest, best_of(call, 1)) for fastest, call in zip(robin, calls)]
    repeated = []
    for call in calls:
        call()
        repeated.append(best_of(call, 3))
    return {"single pass": first, "round robin": robin, "repeated": repeated}


def median_ratio(num: list[float], den: list[float]) -> float:
    return statistics.median(a / b for a, b in zip(num, den))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", type=Path, help="HTML files or folders (default: the speed bench's)")
    parser.add_argument("--systems", default=DEFAULT_SYSTEMS, help=f"comma-separated (default {DEFAULT_SYSTEMS})")
    parser.add_argument("--warm", type=int, default=40, help="pages at the end of the list run untimed first")
    parser.add_argument("--limit", type=int, default=None, help="at most N pages")
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)  # a child process: this system only
    args = parser.parse_args(argv)
    paths = script_paths(args.pages)
    if paths is None:
        return 2
    names = [n for n in args.systems.split(",") if n]
    unknown = [n for n in names if n not in systems()]
    if unknown:
        parser.error(f"unknown systems: {', '.join(unknown)} (choose from {', '.join(systems())})")
    pages = read_pages(paths, limit=args.limit)
    if not 0 <= args.warm < len(pages):
        parser.error(f"--warm must leave pages to time (0 <= warm < {len(pages)})")
    if args.one:
        json.dump(one_system(args.one, pages, args.warm), sys.stdout)
        return 0
    forward = [str(p) for p in args.pages] + [f"--warm={args.warm}"] + ([f"--limit={args.limit}"] if args.limit else [])
    # The children import the qatbe this process imported (the same build), wherever it was found.
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(qatbe.__file__).resolve().parents[1]), *filter(None, [os.environ.get("PYTHONPATH")])])
    times: dict[str, dict[str, list[float]]] = {}
    for name in names:
        done = subprocess.run([sys.executable, __file__, *forward, f"--one={name}"], capture_output=True, text=True,
                              check=False, env=env)
        if done.returncode:
            print(f"{name}: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else 'failed'}",
                  file=sys.stderr)
            return 1
        times[name] = json.loads(done.stdout)
    measured = pages[: len(pages) - args.warm]
    corpus_of = [p.name.split("/")[0] if "/" in p.name else "given pages" for p in measured]
    corpora = sorted(set(corpus_of))
    sizes = [len(page_segments(p)) for p in measured] if any(n.startswith("bm25:") for n in names) else []
    print(f"{len(measured)} pages timed once each after {args.warm} untimed, then in {ROUNDS} rounds, then as the speed"
          " bench times them")
    for protocol in PROTOCOLS:
        cells = [f"{name} {statistics.median(times[name][protocol]) * 1e3:.3f} ms" for name in names]
        print(f"{protocol:12} " + ", ".join(cells))
        for corpus in corpora:
            at = [k for k, c in enumerate(corpus_of) if c == corpus]

            def pick(name: str, at: list[int] = at, protocol: str = protocol) -> list[float]:
                return [times[name][protocol][k] for k in at]

            ratios = []
            if {"qatbe:summary", "parse"} <= set(names):
                ratios.append(f"qatbe:summary / parse {median_ratio(pick('qatbe:summary'), pick('parse')):.2f}")
            if {"qatbe:summary", "trafilatura-fast"} <= set(names):
                ratios.append("trafilatura-fast / qatbe:summary "
                              f"{median_ratio(pick('trafilatura-fast'), pick('qatbe:summary')):.2f}")
            if ratios:
                print(f"{'':12} {corpus} ({len(at)} pages): " + ", ".join(ratios))
        for name in (n for n in names if n.startswith("bm25:")):
            per = [t / n * 1e6 for t, n in zip(times[name][protocol], sizes) if n >= MIN_SEGMENTS]
            if per:
                print(f"{'':12} {name}: {statistics.median(per):.3f} ms per 1,000 segments ({len(per)} pages)")
            else:
                print(f"{'':12} {name}: no page with {MIN_SEGMENTS}+ segments")
    return 0


if __name__ == "__main__":
    sys.exit(main())
