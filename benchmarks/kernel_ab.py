"""Two builds of the compiled kernel, timed in turn in one process: is a change to ``qatbe/_core.pyx`` faster?

    python benchmarks/kernel_ab.py OLD.so NEW.so [--corpus DIR] [--limit N] [--repeat 11]

``OLD.so`` and ``NEW.so`` are copies of ``qatbe/_core.*.so`` built from the two trees (copy the old one aside
before rebuilding). For every page of the corpus (scrapinghub-aeb and wcxb by default), its segments' texts are
tokenized (``tokenize``, with a query's prefixes) and indexed (``TermMemo.index``, each build with its own warm
memo), old and new called alternately, fastest of ``--repeat`` each; the outputs must be equal. Printed: the per-page
ratio new / old at the median and the ratio of the totals.

Why in one process: on a shared 2-core guest, runs minutes apart differ by a third and even page-by-page
alternation between two processes drifts by several per cent; calls microseconds apart see the same machine. Why
not instruction counts: a loop whose exit mispredicts costs more than its instructions say (the SIMD token scan
runs 4% more instructions in 5-8% less time). Needs ``../shared/corpora``.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import statistics
import sys
import time
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"


def load_build(path: Path) -> ModuleType:
    """``qatbe._core`` from this file: a second build loads beside the first (extension modules are keyed by
    their file)."""
    spec = importlib.util.spec_from_file_location("qatbe._core", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"not an extension module: {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def in_turn(old: Any, new: Any, repeat: int) -> tuple[float, float, Any, Any]:
    """Fastest of ``repeat`` calls of each, the two called alternately; and their last outputs."""
    best_old = best_new = float("inf")
    out_old = out_new = None
    for _ in range(repeat):
        start = time.perf_counter()
        out_old = old()
        best_old = min(best_old, time.perf_counter() - start)
        start = time.perf_counter()
        out_new = new()
        best_new = min(best_new, time.perf_counter() - start)
    return best_old, best_new, out_old, out_new


def same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(a, b))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--corpus", type=Path, action="append",
                        help="folder of pages (default: scrapinghub-aeb and wcxb under ../shared/corpora)")
    parser.add_argument("--limit", type=int, default=None, help="first N pages")
    parser.add_argument("--repeat", type=int, default=11)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from qatbe.bench.speed import read_pages, segment_texts
    from qatbe.score.analyze import analyzer

    folders = args.corpus or [CORPORA / "scrapinghub-aeb" / "html", CORPORA / "wcxb" / "html"]
    pages = read_pages(folders, limit=args.limit)
    old, new = load_build(args.old), load_build(args.new)
    analyse = analyzer("en")._analysers[False]
    memos = {old: old.TermMemo(1_000_000), new: new.TermMemo(1_000_000)}
    work = []
    for page in pages:
        texts = segment_texts(page)
        if texts:
            prefixes = {w[:2] for w in re.findall(r"\w+", page.query.lower()) if len(w) >= 2}
            work.append((texts, prefixes))
            for memo in memos.values():  # warm: a pipeline's memo knows most tokens of a page
                memo.index(texts, prefixes, {"": 0}, analyse)
    times: dict[str, dict[ModuleType, list[float]]] = {"tokenize": {old: [], new: []}, "index": {old: [], new: []}}
    for texts, prefixes in work:
        calls = {
            "tokenize": (partial(old.tokenize, texts, prefixes), partial(new.tokenize, texts, prefixes)),
            "index": (partial(memos[old].index, texts, prefixes, {"": 0}, analyse),
                      partial(memos[new].index, texts, prefixes, {"": 0}, analyse)),
        }
        for name, (call_old, call_new) in calls.items():
            a, b, out_a, out_b = in_turn(call_old, call_new, args.repeat)
            if not same(out_a, out_b):
                raise SystemExit(f"{name}: the two builds disagree on a page")
            times[name][old].append(a)
            times[name][new].append(b)
    print(f"{len(work)} pages, fastest of {args.repeat}")
    for name, by in times.items():
        ratios = [b / a for a, b in zip(by[old], by[new])]
        print(f"{name:9s} median old {1e6 * statistics.median(by[old]):.1f} us, new {1e6 * statistics.median(by[new]):.1f}"
              f" us; new / old per page at the median {statistics.median(ratios):.3f}, in total "
              f"{sum(by[new]) / sum(by[old]):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
