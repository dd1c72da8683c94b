"""Where the speed bench's BM25 row spends its time, step by step: a fixed cost a page plus a cost per segment.

    PYTHONPATH=. python benchmarks/scoring_steps.py [--guess] [--option NAME=VALUE ...] [--limit N] [pages ...]

Each page (default: the speed bench's, scrapinghub-aeb and wcxb under ``../shared/corpora``) is scored by the
bench's own ``bm25:qatbe`` call (``--guess``: ``bm25:qatbe-guess``; ``--option``: with that ``Settings`` field set,
the value read as JSON when it is JSON, e.g. ``--option bridge=0`` for what scoring costs without the second-hop
bridges, every other step included), once untimed and then three times, as the bench does; each step of
``score_segments`` is timed by a wrapper around the function that does it, and a page's time for a step is its
fastest of the three. Printed per step, over the pages with 20 or more segments: a least-squares line through
(segments, µs) -- its intercept is what the step costs a page whatever its size, its slope what each segment adds --
and the median; first, the whole call's median ms per 1,000 segments, the bench's figure (read with the wrappers
on). ``the scorer's own code`` is the whole call less the steps.

Why a fit and not a profile: the bench's figure is a median of time per segment, so a step's fixed cost and its
cost per segment weigh differently on it, and a profiler's per-call overhead is larger than most of these steps.
The wrappers add about 0.3 µs a step to what they time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from qatbe._backend import kernel
from qatbe.bench.speed import MIN_SEGMENTS, bm25_qatbe, read_pages, scored_pages, script_paths
from qatbe.errors import ConfigError
from qatbe.score import analyze, bm25, languages
from qatbe.settings import Settings

# (module or class, function name, step name): the functions score_segments calls for each step.
STEPS: tuple[tuple[Any, str, str], ...] = (
    (kernel, "page_fields", "the page fields"),
    (languages, "detect_texts", "the language guess"),
    (kernel, "scan", "the scan"),
    (bm25, "read_question", "the question"),
    (analyze.Analyzer, "index_sparse", "the index"),
    (kernel, "page_scores", "the page scores"),
    (bm25, "prefix_matches", "the near words"),
    (bm25, "bridge_credits", "the bridges"),
    (bm25, "number_cue", "the number cue"),
)


def wrap(spent: Counter[str]) -> Callable[[], None]:
    """Put a timer around every step's function; returns what takes them off again."""
    clock = time.perf_counter
    undo = []
    for owner, name, step in STEPS:
        real = getattr(owner, name)

        def timed(*args: Any, _real: Any = real, _step: str = step, **kwargs: Any) -> Any:
            start = clock()
            try:
                return _real(*args, **kwargs)
            finally:
                spent[_step] += clock() - start

        setattr(owner, name, timed)
        undo.append((owner, name, real))

    def restore() -> None:
        for owner, name, real in undo:
            setattr(owner, name, real)

    return restore


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", type=Path, help="HTML files or folders (default: the speed bench's)")
    parser.add_argument("--guess", action="store_true", help="the bm25:qatbe-guess row (language always guessed)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a Settings field for every call (repeatable), e.g. bridge=0")
    parser.add_argument("--limit", type=int, default=None, help="at most N pages")
    args = parser.parse_args(argv)
    options: dict[str, object] = {}
    for option in args.option:
        name, sep, value = option.partition("=")
        if not sep or not name:
            parser.error(f"--option takes NAME=VALUE, not {option!r}")
        try:
            options[name] = json.loads(value)
        except json.JSONDecodeError:
            options[name] = value
    try:
        Settings(**options)  # a wrong name or value stops here, in one line, not at the first page
    except (TypeError, ConfigError) as exc:
        parser.error(str(exc))
    paths = script_paths(args.pages)
    if paths is None:
        return 2
    row = bm25_qatbe(False, guess=args.guess, options=options)
    steps = [step for _, _, step in STEPS]
    sizes: list[int] = []
    times: dict[str, list[float]] = {step: [] for step in ["the whole call", *steps, "the scorer's own code"]}
    spent: Counter[str] = Counter()
    restore = wrap(spent)
    try:
        for page, n in scored_pages(read_pages(paths, limit=args.limit)):
            call = row(page)
            call()
            best: dict[str, float] = {}
            for _ in range(3):
                spent.clear()
                start = time.perf_counter()
                call()
                spent["the whole call"] = time.perf_counter() - start
                spent["the scorer's own code"] = spent["the whole call"] - sum(spent[s] for s in steps)
                for step in times:
                    best[step] = min(best.get(step, float("inf")), spent[step])
            sizes.append(n)
            for step, seconds in best.items():
                times[step].append(seconds * 1e6)
    finally:
        restore()
    if len(sizes) < 2:
        print(f"fewer than two pages with {MIN_SEGMENTS} or more segments", file=sys.stderr)
        return 1
    per_1000 = statistics.median(t / n * 1000 for t, n in zip(times["the whole call"], sizes)) / 1000
    print(f"{len(sizes)} pages with {MIN_SEGMENTS}+ segments (median {statistics.median(sizes):g}); µs, fastest of 3;"
          f" the whole call {per_1000:.3f} ms per 1,000 segments at the median (with the wrappers)")
    print(f"{'step':24} {'a page':>8} {'a segment':>10} {'median':>8}")
    for step, values in times.items():
        slope, intercept = statistics.linear_regression(sizes, values)
        print(f"{step:24} {intercept:8.1f} {slope:10.3f} {statistics.median(values):8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
