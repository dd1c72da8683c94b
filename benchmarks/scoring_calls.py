"""What one scoring call of a page costs, call by call: why the speed bench's BM25 row depends on ``--repeat``.

    python benchmarks/scoring_calls.py [--calls 8] [--limit N] [pages ...]

Each page (default: the speed bench's, scrapinghub-aeb and wcxb under ``../shared/corpora``) is segmented once,
then scored ``--calls`` times in a row by ``qatbe bench speed``'s own ``bm25:qatbe`` call (its ``<title>`` as the
query, in the language the page declares). Printed: over the pages with 20 or more segments, the median ms per
1,000 segments of the k-th call, and what the bench's row would read as the fastest of the first 3 and of all
``--calls`` calls (the bench makes one untimed call first, so its row reads the fastest of calls 2 to 4).

Why: the first call of a page analyses the tokens no page before it had; the next ones get faster for several
calls more, every step alike (the code and the branch predictors learn the page). The row's number is the
fastest of three, so it sits on that curve: this script shows where (``benchmarks/README.md``, "Repeated calls").
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from qatbe.bench.speed import MIN_SEGMENTS, read_pages, scored_pages, script_paths, systems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", type=Path, help="HTML files or folders (default: the speed bench's)")
    parser.add_argument("--calls", type=int, default=8, help="consecutive calls per page (default 8)")
    parser.add_argument("--limit", type=int, default=None, help="at most N pages")
    args = parser.parse_args(argv)
    if args.calls < 1:
        parser.error("--calls must be at least 1")
    paths = script_paths(args.pages)
    if paths is None:
        return 2
    row = systems()["bm25:qatbe"][0]  # the bench's own call: the page's segments, in the language it declares
    per_call: list[list[float]] = [[] for _ in range(args.calls)]
    for page, n in scored_pages(read_pages(paths, limit=args.limit)):
        call = row(page)
        for k in range(args.calls):
            start = time.perf_counter()
            call()
            per_call[k].append((time.perf_counter() - start) * 1e6 / n)
    if not per_call[0]:
        print(f"no page with {MIN_SEGMENTS} or more segments", file=sys.stderr)
        return 1
    print(f"{len(per_call[0])} pages with {MIN_SEGMENTS}+ segments; median ms per 1,000 segments of the k-th call:")
    print("  " + "  ".join(f"{k + 1}: {statistics.median(c):.2f}" for k, c in enumerate(per_call)))
    for first in sorted({min(3, args.calls), args.calls}):
        best = [min(times) for times in zip(*per_call[:first])]
        print(f"fastest of the first {first} calls: {statistics.median(best):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
