"""Where ``Extractor.extract`` spends its time besides segmentation and scoring, step by step, per page.

    PYTHONPATH=. python benchmarks/pipeline_steps.py [--folder scrapinghub-aeb/html] [--tier summary] [--runs 3]

Each step of ``extract`` is run on its own, on the inputs ``extract`` gives it (query: the page's title, as in
``qatbe bench speed``), and timed in CPU time (``time.thread_time``), the fastest of ``--runs``; the machine is
shared, so wall-clock time would measure the neighbours. The Lexbor parse of the same page is timed in the same
run, and the whole ``extract`` with it, so the ratio ``extract / parse`` (issue #2's target: at most 3x at the
median) is read off one consistent measurement. ``rest`` is ``extract`` less segmentation and scoring: what the
pipeline around them costs. The steps mirror ``qatbe/pipeline.py``; keep them in step with it.

Why a script and not a profiler: cProfile's per-call overhead is larger than most of these steps.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

import qatbe
from qatbe import pipeline
from qatbe.render import render
from qatbe.result import Result
from qatbe.score import Scores, score_segments
from qatbe.score.bm25 import PageView
from qatbe.settings import Settings
from qatbe.types import ParsedDocument, Segment, SegmentKind

CORPORA = Path(os.environ.get("QATBE_CORPORA", Path(__file__).resolve().parents[2] / "shared" / "corpora"))


def best(call: Callable[[], object], runs: int) -> float:
    """Fastest of ``runs`` calls, in milliseconds (after one call to warm up)."""
    call()
    out = float("inf")
    for _ in range(runs):
        start = time.thread_time()
        call()
        out = min(out, time.thread_time() - start)
    return out * 1000.0


def title(html: str) -> str:
    node = LexborHTMLParser(html).css_first("title")
    return " ".join((node.text() if node is not None else "").split()) or "main content"


def replay(html: str, query: str, ex: qatbe.Extractor) -> dict[str, float]:
    """One ``ex.extract(html, query)``, step by step as qatbe/pipeline.py runs it, with the CPU time of each step
    (milliseconds). Timed in sequence, not each step alone in a loop: a step run on its own finds its data in the
    cache, and measured 30-70% faster than inside extract."""
    clock = time.thread_time
    marks = [("", clock())]

    def mark(name: str) -> None:
        marks.append((name, clock()))

    settings = ex.settings
    doc = ex.parse(html, settings.include_navigation)
    mark("segment")
    nav = SegmentKind.NAVIGATION
    candidates = list(doc.segments) if settings.include_navigation else [
        s for s in doc.segments if s.kind is not nav]
    mark("candidates")
    costs = pipeline.costs_of(candidates, settings)
    mark("measure")
    score_settings = settings
    if settings.language is None and doc.metadata.language:
        score_settings = ex._with_language(doc.metadata.language)
    scores = score_segments(candidates, query, score_settings, pipeline._page_view(doc, candidates, settings))
    mark("score")
    kind_weight = settings.weights
    weighted = [r * kind_weight[s.kind] for r, s in zip(scores.raw.tolist(), candidates)]
    if scores.relevant is not None:
        matched_mask = [w > 0.0 and r for w, r in zip(weighted, scores.relevant.tolist())]
    else:
        matched_mask = [w > 0.0 for w in weighted]
    mark("weights")
    parents = pipeline.parent_slots(candidates)
    mark("heading_parents")
    budget = settings.effective_budget
    prepared = pipeline.prepare(candidates, weighted, costs, parents, matched_mask, settings)
    chosen_plan = pipeline.plan_prepared(prepared, budget)
    if chosen_plan.cut:
        costs = list(costs)
        for i, short in chosen_plan.cut.items():
            candidates[i] = short
            costs[i] = chosen_plan.cut_costs[i]
    mark("plan")
    chosen = list(chosen_plan.chosen)
    text = render([candidates[i] for i in chosen], settings.render)
    mark("render")
    if not settings.nested and not chosen_plan.cut:
        chosen_plan, chosen, text = pipeline.spend_savings(
            lambda b: pipeline.plan_prepared(prepared, b), chosen_plan, chosen, text, candidates, costs, budget,
            settings)
    mark("savings")
    estimate = settings.estimate
    while chosen and estimate(text) > budget:  # never taken with the built-in estimators
        raise AssertionError("custom estimators are not timed here")
    mark("budget check")
    chosen_set = set(chosen)
    matched = chosen_plan.matched
    out = pipeline.outcomes(candidates, chosen, costs, weighted, matched)
    pending = pipeline.outcomes(candidates, chosen_plan.pending, costs, weighted, matched)
    mark("records")
    Result(text=text, total_tokens=estimate(text) if text else 0, segments=out, budget=settings.token_budget,
           tier=settings.tier, query=query, format=doc.format, dropped_count=len(candidates) - len(chosen_set),
           dropped_tokens=sum(costs) - sum([costs[i] for i in chosen_set]), reserve_tokens=settings.reserve_tokens,
           truncated_count=sum(1 for i in chosen_plan.cut if i in chosen_set), pending=pending, pending_at=None,
           no_match=bool(scores.query_terms) and not any(matched_mask), evaluation_time_ms=0.0,
           metadata=doc.metadata, backend="", _explain=list)
    mark("result")
    return {name: (t - marks[k][1]) * 1000.0 for k, (name, t) in enumerate(marks[1:])} | {
        "n_segments": len(doc.segments), "n_candidates": len(candidates)}


def around(html: str, query: str, ex: qatbe.Extractor, runs: int) -> float:
    """``extract`` less segmentation and scoring, measured in one run (milliseconds, fastest of ``runs``).

    ``extract`` runs for real; its calls to ``parse`` and ``score_segments`` are timed from inside and taken
    off its total. The difference ``extract - segment - score`` of three separately timed numbers is noisy by
    more than the pipeline's own cost; this one is not, and the caches are in the state a real extract leaves
    them in. It counts the two clock reads around each of the two calls (about 1.5 us each) as pipeline time."""
    real_parse, real_score = ex.parse, pipeline.score_segments
    inner = [0.0]
    clock = time.thread_time

    def parse(source: str | bytes, navigation: bool = True) -> ParsedDocument:
        start = clock()
        out = real_parse(source, navigation)
        inner[0] += clock() - start
        return out

    def scored(candidates: Sequence[Segment], q: str | None, config: Settings, view: PageView | None = None
               ) -> Scores:
        start = clock()
        out = real_score(candidates, q, config, view)
        inner[0] += clock() - start
        return out

    best_rest = float("inf")
    ex.parse = parse  # type: ignore[method-assign]
    pipeline.score_segments = scored
    try:
        for _ in range(runs + 1):
            inner[0] = 0.0
            start = clock()
            ex.extract(html, query)
            best_rest = min(best_rest, clock() - start - inner[0])
    finally:
        del ex.parse  # the instance attribute goes; the method is back
        pipeline.score_segments = real_score
    return best_rest * 1000.0


def steps(html: str, query: str, ex: qatbe.Extractor, runs: int) -> dict[str, float]:
    """Per step, the fastest of ``runs`` replays; with the Lexbor parse and the whole extract, timed alike."""
    t = {"lexbor": best(lambda: LexborHTMLParser(html), runs), "extract": best(lambda: ex.extract(html, query), runs)}
    replay(html, query, ex)
    replays = [replay(html, query, ex) for _ in range(runs)]
    for key in replays[0]:
        t[key] = min(r[key] for r in replays)
    t["rest (extract - segment - score)"] = t["extract"] - t["segment"] - t["score"]
    t["rest, measured directly"] = around(html, query, ex, runs)
    t["sum of the other steps"] = sum(t[k] for k in replays[0] if k not in ("segment", "score", "n_segments",
                                                                           "n_candidates"))
    return t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--folder", default="scrapinghub-aeb/html")
    ap.add_argument("--tier", default="summary")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--limit", type=int, default=None)
    args = ap.parse_args(argv)
    folder = CORPORA / args.folder
    if not folder.is_dir():
        print(f"no corpus at {folder}", file=sys.stderr)
        return 2
    pages = []
    for path in sorted(folder.glob("*.html.gz"))[: args.limit]:
        html = gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
        pages.append((path.name.split(".")[0][:12], html, title(html)))
    ex = qatbe.Extractor(tier=args.tier)
    rows = [steps(html, query, ex, args.runs) for _, html, query in pages]
    median_page = sorted(range(len(pages)), key=lambda k: len(pages[k][1]))[len(pages) // 2]
    print(f"{qatbe.__file__} backend={qatbe.BACKEND} pages={len(pages)} tier={args.tier} runs={args.runs}")
    print(f"{'step':34} {'median ms':>10} {'median page':>12}")
    for key in rows[0]:
        values = [r[key] for r in rows]
        unit = "" if key.startswith("n_") else " ms"
        print(f"{key:34} {statistics.median(values):10.4f} {rows[median_page][key]:12.4f}{unit}")
    ratios = [r["extract"] / r["lexbor"] for r in rows]
    print(f"extract / lexbor: median of ratios {statistics.median(ratios):.2f}; median / median "
          f"{statistics.median(r['extract'] for r in rows) / statistics.median(r['lexbor'] for r in rows):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
