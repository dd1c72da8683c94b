"""``qatbe bench extraction``: main-content extraction scores next to trafilatura, in one run.

Datasets (dev halves under ``../shared/corpora``; each folder's README defines the metric used here):

* ``scrapinghub-aeb`` — 4-gram shingle precision/recall over ``re.findall(r"\\w+")`` tokens, shingle multisets
  normalised to sum 1, averaged over pages, F1 from the averages (the benchmark's evaluate.py).
* ``wcxb`` — word-bag F1 on ``\\w+`` of the lower-cased text against ``main_content`` (mean over pages), plus the
  share of ``with`` snippets found and of ``without`` snippets absent; overall and per page type.
* ``trafilatura-eval`` — snippet test: a ``with`` snippet found is a true positive, a ``without`` snippet found a
  false positive; precision, recall, F1 and accuracy over all snippets (whitespace-normalised substring test).
* ``readability-testpages`` — word-bag F1 as for wcxb, against the text of the article Mozilla's Readability is
  expected to return (``expected.html``): one extractor's reviewed output, not an independent annotation, so a
  secondary signal. Pages are typed ``real`` or ``fixture`` (the corpus flags hand-made unit pages).
* ``conditionalqa-dev`` and ``wikitablequestions`` — answer survival: with an unlimited budget, the share of
  gold answers present in the output (case- and whitespace-insensitive; all items of a multi-item answer must be
  present; yes/no answers of ConditionalQA are not text and are skipped).

Systems: ``qatbe`` is ``qatbe.extract(html, None, budget=20000).text`` (unlimited budget for the QA sets);
``trafilatura`` is ``trafilatura.extract(html, output_format="markdown")`` and ``trafilatura-fast`` the same with
``fast=True``. Trafilatura is slow, so its outputs can be cached in a JSON file (``--cache``) keyed by the page's
hash, the mode and trafilatura's version.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from .args import ArgumentParser, count, default_corpora, positive_int, subset_of
from .folds import halves, over_folds
from .loaders import jsonl_rows

DATASETS = ("scrapinghub-aeb", "wcxb", "trafilatura-eval", "readability-testpages", "conditionalqa-dev",
            "wikitablequestions")
SYSTEMS = ("qatbe", "trafilatura", "trafilatura-fast")
EXTRACTION_BUDGET = 20_000
UNLIMITED = 10**9

_WORD = re.compile(r"\w+")


# -- pages ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    """One page of one dataset and what its gold standard says about it."""

    dataset: str
    id: str
    html: bytes
    page_type: str = ""
    url: str = ""
    truth: str = ""
    with_: tuple[str, ...] = ()
    without: tuple[str, ...] = ()
    answers: tuple[tuple[str, ...], ...] = ()  # one tuple per question: every item must be present


def _read_gz(path: Path) -> bytes:
    with gzip.open(path, "rb") as handle:
        return handle.read()


def load_scrapinghub(root: Path) -> list[Page]:
    truth = json.loads((root / "ground-truth.json").read_text(encoding="utf-8"))
    pages = []
    for key in sorted(truth):
        path = root / "html" / f"{key}.html.gz"
        if path.exists():
            item = truth[key]
            pages.append(Page("scrapinghub-aeb", key, _read_gz(path), "article", item.get("url", ""),
                              item.get("articleBody", "")))
    return pages


def load_wcxb(root: Path) -> list[Page]:
    pages = []
    for row in jsonl_rows(root / "index.jsonl"):
        gt = json.loads((root / row["ground_truth"]).read_text(encoding="utf-8"))["ground_truth"]
        pages.append(Page("wcxb", row["id"], _read_gz(root / row["html"]), row.get("page_type", ""),
                          row.get("url", ""), gt.get("main_content") or "", tuple(gt.get("with") or ()),
                          tuple(gt.get("without") or ())))
    return pages


def load_trafilatura_eval(root: Path) -> list[Page]:
    data = json.loads((root / "evaldata.json").read_text(encoding="utf-8"))
    pages = []
    for url in sorted(data):
        item = data[url]
        path = root / item["local_file"]
        pages.append(Page("trafilatura-eval", Path(item["local_file"]).stem, path.read_bytes(), "", url, "",
                          tuple(item.get("with") or ()), tuple(item.get("without") or ())))
    return pages


def html_text(html: bytes) -> str:
    """The visible text of an HTML file, its text nodes joined by spaces (for word and shingle metrics only)."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    tree.strip_tags(["script", "style", "noscript", "template"])
    root = tree.body or tree.root
    return _norm(root.text(separator=" ")) if root is not None else ""


def load_readability(root: Path) -> list[Page]:
    pages = []
    for row in jsonl_rows(root / "index.jsonl"):
        kind = "fixture" if row.get("likely_synthetic_fixture") else "real"
        pages.append(Page("readability-testpages", row["id"], (root / row["source"]).read_bytes(), kind, "",
                          html_text((root / row["expected"]).read_bytes())))
    return pages


def _qa_pages(root: Path, name: str, keep: Callable[[dict[str, Any]], bool]) -> list[Page]:
    answers: dict[str, list[tuple[str, ...]]] = {}
    for row in jsonl_rows(root / "queries.jsonl"):
        if keep(row) and row.get("answers"):
            answers.setdefault(row["doc_id"], []).append(tuple(str(a) for a in row["answers"]))
    pages = []
    for row in jsonl_rows(root / "documents.jsonl"):
        if row["doc_id"] in answers and row.get("html"):
            pages.append(Page(name, row["doc_id"], row["html"].encode("utf-8"), "", row.get("url", ""),
                              answers=tuple(answers[row["doc_id"]])))
    return pages


def load_conditionalqa(root: Path) -> list[Page]:
    # Each span answer is one gold string; questions with several span answers contribute each separately.
    pages = _qa_pages(root, "conditionalqa-dev", lambda r: r.get("answer_type") == "span")
    return [
        Page(p.dataset, p.id, p.html, p.page_type, p.url, answers=tuple((a,) for group in p.answers for a in group))
        for p in pages
    ]


def load_wikitables(root: Path) -> list[Page]:
    return _qa_pages(root, "wikitablequestions", lambda r: True)


LOADERS: dict[str, Callable[[Path], list[Page]]] = {
    "scrapinghub-aeb": load_scrapinghub,
    "wcxb": load_wcxb,
    "trafilatura-eval": load_trafilatura_eval,
    "readability-testpages": load_readability,
    "conditionalqa-dev": load_conditionalqa,
    "wikitablequestions": load_wikitables,
}


# -- metrics ----------------------------------------------------------------------------------------------------


def shingles(text: str, n: int = 4) -> Counter[tuple[str, ...]]:
    tokens = _WORD.findall(text)
    return Counter(tuple(tokens[i : i + n]) for i in range(max(1, len(tokens) - n + 1)) if tokens[i : i + n])


def shingle_scores(truth: str, pred: str) -> tuple[float, float]:
    """(precision, recall) over 4-gram shingle multisets, as scrapinghub's evaluate.py computes them.

    That script normalises each page's (TP, FP, FN) to sum 1 so long pages do not weigh more; per-page precision
    and recall are ratios, so the normalisation does not change them.
    """
    t, p = shingles(truth), shingles(pred)
    tp = fp = fn = 0.0
    for key in set(t) | set(p):
        tc, pc = t.get(key, 0), p.get(key, 0)
        tp += min(tc, pc)
        fp += max(0.0, pc - tc)
        fn += max(0.0, tc - pc)
    precision = tp / (tp + fp) if tp + fp > 0 else 0.0
    recall = tp / (tp + fn) if tp + fn > 0 else 0.0
    return precision, recall


def word_f1(truth: str, pred: str) -> tuple[float, float, float]:
    t = Counter(_WORD.findall(truth.lower()))
    p = Counter(_WORD.findall(pred.lower()))
    overlap = sum((t & p).values())
    if not overlap:
        return 0.0, 0.0, 0.0
    precision = overlap / sum(p.values())
    recall = overlap / sum(t.values())
    return precision, recall, 2 * precision * recall / (precision + recall)


def _norm(text: str) -> str:
    return " ".join(text.split())


def _norm_lower(text: str) -> str:
    return " ".join(text.lower().split())


def f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


@dataclass
class PageScore:
    page: Page
    system: str
    seconds: float
    values: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)


def score_page(page: Page, system: str, text: str, seconds: float) -> PageScore:
    score = PageScore(page, system, seconds)
    if page.dataset == "scrapinghub-aeb":
        precision, recall = shingle_scores(page.truth, text)
        score.values.update(precision=precision, recall=recall, f1=f1(precision, recall))
    elif page.dataset in ("wcxb", "readability-testpages"):
        precision, recall, value = word_f1(page.truth, text)
        score.values.update(precision=precision, recall=recall, f1=value)
        if page.dataset == "wcxb":
            low = _norm_lower(text)
            found = sum(1 for s in page.with_ if _norm_lower(s) in low)
            leaked = sum(1 for s in page.without if _norm_lower(s) in low)
            score.counts.update(with_found=found, with_total=len(page.with_), without_found=leaked,
                                without_total=len(page.without))
    elif page.dataset == "trafilatura-eval":
        norm = _norm(text)
        tp = sum(1 for s in page.with_ if _norm(s) in norm)
        fp = sum(1 for s in page.without if _norm(s) in norm)
        score.counts.update(tp=tp, fn=len(page.with_) - tp, fp=fp, tn=len(page.without) - fp)
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / len(page.with_) if page.with_ else 0.0
        score.values.update(precision=precision, recall=recall, f1=f1(precision, recall))
    else:
        low = _norm_lower(text)
        kept = sum(1 for group in page.answers if all(_norm_lower(a) in low for a in group))
        score.counts.update(kept=kept, total=len(page.answers))
        score.values.update(f1=kept / len(page.answers) if page.answers else 1.0)
    return score


def summarize(scores: Sequence[PageScore]) -> dict[str, float]:
    """Dataset-level numbers for one system's page scores (the aggregation each benchmark prescribes)."""
    if not scores:
        return {}
    dataset = scores[0].page.dataset
    out: dict[str, float] = {"pages": len(scores), "median_ms": statistics.median(s.seconds for s in scores) * 1e3}
    if dataset == "scrapinghub-aeb":
        precision = statistics.fmean(s.values["precision"] for s in scores)
        recall = statistics.fmean(s.values["recall"] for s in scores)
        out.update(precision=precision, recall=recall, f1=f1(precision, recall))
    elif dataset in ("wcxb", "readability-testpages"):
        out.update(precision=statistics.fmean(s.values["precision"] for s in scores),
                   recall=statistics.fmean(s.values["recall"] for s in scores),
                   f1=statistics.fmean(s.values["f1"] for s in scores))
        if dataset == "wcxb":
            wt = sum(s.counts["with_total"] for s in scores)
            nt = sum(s.counts["without_total"] for s in scores)
            out["with"] = sum(s.counts["with_found"] for s in scores) / wt if wt else 0.0
            out["without_absent"] = 1 - sum(s.counts["without_found"] for s in scores) / nt if nt else 0.0
    elif dataset == "trafilatura-eval":
        tp, fn, fp, tn = (sum(s.counts[k] for s in scores) for k in ("tp", "fn", "fp", "tn"))
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        out.update(precision=precision, recall=recall, f1=f1(precision, recall),
                   accuracy=(tp + tn) / max(tp + fn + fp + tn, 1))
    else:
        kept = sum(s.counts["kept"] for s in scores)
        total = sum(s.counts["total"] for s in scores)
        out.update(answers=total, survival=kept / total if total else 0.0)
    return out


# -- systems ----------------------------------------------------------------------------------------------------


def _budget(page: Page) -> int:
    return UNLIMITED if page.answers else EXTRACTION_BUDGET


def run_qatbe(page: Page) -> tuple[str, float]:
    import qatbe

    start = time.perf_counter()
    text = qatbe.extract(page.html, None, budget=_budget(page), format="html").text
    return text, time.perf_counter() - start


def run_trafilatura(page: Page, fast: bool) -> tuple[str, float]:
    import trafilatura

    start = time.perf_counter()
    text = trafilatura.extract(page.html, output_format="markdown", fast=fast) or ""
    return text, time.perf_counter() - start


def _trafilatura_job(args: tuple[Page, bool]) -> tuple[str, float]:
    return run_trafilatura(*args)


class Cache:
    """Trafilatura outputs keyed by page hash, mode and version (so a new version is measured afresh)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.data: dict[str, list[Any]] = {}
        if path is not None and path.exists():
            self.data = json.loads(path.read_text(encoding="utf-8"))
        try:
            import trafilatura

            self.version = str(trafilatura.__version__)
        except ImportError:
            self.version = "missing"

    def key(self, page: Page, system: str) -> str:
        return f"{system}:{self.version}:{hashlib.sha1(page.html).hexdigest()}"

    def save(self) -> None:
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(self.data), encoding="utf-8")


def run_system(system: str, pages: Sequence[Page], cache: Cache, jobs: int) -> list[tuple[str, float]]:
    if system == "qatbe":
        run_qatbe(pages[0]) if pages else None  # warm-up: imports and first-call costs are not per-page costs
        return [run_qatbe(p) for p in pages]
    fast = system == "trafilatura-fast"
    results: list[tuple[str, float] | None] = [None] * len(pages)
    todo = []
    for i, page in enumerate(pages):
        hit = cache.data.get(cache.key(page, system))
        if hit is not None:
            results[i] = (hit[0], hit[1])
        else:
            todo.append(i)
    if todo:
        if jobs > 1:
            with ProcessPoolExecutor(jobs) as pool:
                outs = list(pool.map(_trafilatura_job, [(pages[i], fast) for i in todo], chunksize=4))
        else:
            outs = [run_trafilatura(pages[i], fast) for i in todo]
        for i, out in zip(todo, outs):
            results[i] = out
            cache.data[cache.key(pages[i], system)] = [out[0], out[1]]
    return [r if r is not None else ("", 0.0) for r in results]


# -- report -----------------------------------------------------------------------------------------------------

_COLUMNS: dict[str, tuple[str, ...]] = {
    "scrapinghub-aeb": ("f1", "precision", "recall", "median_ms"),
    "wcxb": ("f1", "precision", "recall", "with", "without_absent", "median_ms"),
    "trafilatura-eval": ("f1", "precision", "recall", "accuracy", "median_ms"),
    "readability-testpages": ("f1", "precision", "recall", "median_ms"),
    "conditionalqa-dev": ("survival", "answers", "median_ms"),
    "wikitablequestions": ("survival", "answers", "median_ms"),
}


def _fmt(value: float | None, column: str) -> str:
    if value is None:
        return "-"
    if column in ("answers", "pages"):
        return str(int(value))
    if column == "median_ms":
        return f"{value:.1f}"
    return f"{value:.3f}"


def table(title: str, columns: Sequence[str], rows: Iterable[tuple[str, dict[str, float]]]) -> str:
    head = ["system", "pages", *columns]
    lines = [f"### {title}", "", "| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for name, summary in rows:
        cells = [name, _fmt(summary.get("pages"), "pages")] + [_fmt(summary.get(c), c) for c in columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _worst(dataset: str, scores: dict[str, list[PageScore]], k: int) -> str:
    ours = scores.get("qatbe", [])
    theirs = {s.page.id: s for s in scores.get("trafilatura", [])}
    ranked = sorted(ours, key=lambda s: (s.values["f1"] - theirs[s.page.id].values["f1"]
                                         if s.page.id in theirs else s.values["f1"], s.page.id))
    lines = [f"worst {dataset} pages (qatbe f1 - trafilatura f1):"]
    for s in ranked[:k]:
        other = theirs.get(s.page.id)
        extra = " ".join(f"{k}={v}" for k, v in s.counts.items())
        lines.append(f"  {s.page.id} [{s.page.page_type}] qatbe={s.values['f1']:.3f} "
                     f"trafilatura={other.values['f1'] if other else float('nan'):.3f} {extra} {s.page.url}")
    return "\n".join(lines)


# Issue #4's bar, per dataset and page type: F1 (or answer survival), and on wcxb also its snippet checks.
HEADLINE_METRICS = ("f1", "survival", "with", "without_absent")


def trailing(report: dict[str, Any], ours: str = "qatbe", peer: str = "trafilatura") -> list[str]:
    """Where ``ours`` scores below ``peer`` on a headline metric (``HEADLINE_METRICS``), per dataset and per page type:
    issue #4 asks for none, so the report says so in one line instead of a table to scan."""
    out = []
    for name, entry in report.get("datasets", {}).items():
        groups = [(name, entry.get("summary", {}).get(ours), entry.get("summary", {}).get(peer))]
        by_type = entry.get("by_type", {})
        groups += [(f"{name}/{key[: -len(ours) - 1]}", value, by_type.get(key[: -len(ours)] + peer))
                   for key, value in by_type.items() if key.endswith("/" + ours)]
        for label, mine, theirs in groups:
            if not mine or not theirs:
                continue
            for metric in HEADLINE_METRICS:
                if metric in mine and metric in theirs and mine[metric] < theirs[metric]:
                    out.append(f"{label} {metric} {mine[metric]:.3f} < {theirs[metric]:.3f}")
    return out


def segment_speed(pages: Sequence[Page], repeats: int = 5) -> dict[str, float]:
    """Per-page time of ``segment_html`` and ``qatbe.extract(tier="summary")`` as ratios to
    ``LexborHTMLParser(html)`` on the same page (best of ``repeats`` each, so that machine noise inflates
    neither), time per kB on the smaller and larger half, and trafilatura (``fast=True``, one run) against extract.
    """
    from selectolax.lexbor import LexborHTMLParser

    import qatbe

    from ..segmentation.decode import decode_bytes
    from ..segmentation.html import segment_html
    from ..settings import Settings

    settings = Settings()
    try:
        import trafilatura

        peer: Any = trafilatura
    except ImportError:  # pragma: no cover - a bench extra
        peer = None

    def best(fn: Callable[[str], object], text: str, runs: int) -> float:
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            fn(text)
            times.append(time.perf_counter() - start)
        return min(times)

    rows = []
    for page in pages:
        html = decode_bytes(page.html)
        parse = best(LexborHTMLParser, html, repeats)
        segment = best(lambda t: segment_html(t, settings), html, repeats)
        extract = best(lambda t: qatbe.extract(t, None, tier="summary", format="html"), html, repeats)
        other = (best(lambda t: peer.extract(t, output_format="markdown", fast=True), html, 1)
                 if peer is not None else float("nan"))
        rows.append((len(html), parse, segment, extract, other))
    if not rows:
        return {"pages": 0}
    med = statistics.median
    ratios = sorted(r[2] / r[1] for r in rows)
    sizes = sorted(r[0] for r in rows)
    cut = sizes[len(sizes) // 2]
    per_kb_small = [r[2] / r[0] * 1e6 for r in rows if r[0] < cut] or [0.0]  # ms per kB = s/char * 1e6
    per_kb_large = [r[2] / r[0] * 1e6 for r in rows if r[0] >= cut]
    return {
        "pages": len(rows),
        "parse_ms_median": med(r[1] for r in rows) * 1e3,
        "segment_ms_median": med(r[2] for r in rows) * 1e3,
        "extract_ms_median": med(r[3] for r in rows) * 1e3,
        "trafilatura_fast_ms_median": med(r[4] for r in rows) * 1e3,
        "segment_over_parse_median": med(ratios),
        "segment_over_parse_p95": ratios[int(0.95 * (len(ratios) - 1))],
        "extract_over_parse_median": med(r[3] / r[1] for r in rows),
        "trafilatura_fast_over_extract_median": med(r[4] / r[3] for r in rows),
        "segment_ms_per_kb_smaller_half": med(per_kb_small),
        "segment_ms_per_kb_larger_half": med(per_kb_large),
    }


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="qatbe bench extraction", description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=subset_of(DATASETS, "dataset"), default=",".join(DATASETS),
                        help=f"comma-separated subset of {', '.join(DATASETS)}")
    parser.add_argument("--systems", type=subset_of(SYSTEMS, "system"), default=",".join(SYSTEMS),
                        help=f"comma-separated subset of {SYSTEMS}")
    parser.add_argument("--corpora", type=Path, default=None, help="folder holding the datasets")
    parser.add_argument("--limit", type=positive_int, default=None, help="first N pages of each dataset")
    parser.add_argument("--worst", type=count, default=10, help="list the K pages where qatbe trails most")
    parser.add_argument("--json", type=Path, default=None, help="write summaries and per-page scores here")
    parser.add_argument("--cache", type=Path, default=None, help="JSON file caching trafilatura outputs")
    parser.add_argument("--jobs", type=positive_int, default=1, help="processes for trafilatura")
    parser.add_argument("--segment-speed", action="store_true",
                        help="only time segment_html and extract against the Lexbor parse (and trafilatura)")
    parser.add_argument("--folds", type=positive_int, default=None,
                        help="also report the headline metrics over K random halves of each dataset's pages "
                             "(mean ± sd, worst fold)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the --folds draws (default: %(default)s)")
    parser.add_argument("--leave-one-corpus-out", action="store_true",
                        help="tune a grid of the main-content thresholds on all but one of the four main-content "
                             "corpora and score it on the one left out, for each (qatbe.bench.loco)")
    parser.add_argument("--ablate", action="store_true",
                        help="turn each rule of the main-content decision off alone and report the F1 change and the "
                             "pages made better and worse on each main-content corpus (qatbe.bench.loco)")
    return parser


def _metric_of(metric: str, members: Sequence[PageScore]) -> float | None:
    return summarize(members).get(metric)


def fold_table(name: str, scores: dict[str, list[PageScore]], folds: int, seed: int) -> tuple[str, dict[str, Any]]:
    """Each of the dataset's headline metrics (``HEADLINE_METRICS`` among its columns: F1, wcxb's snippet shares,
    or answer survival) per system over ``folds`` random halves of its pages: the markdown table and the numbers,
    ``{system: {metric: stats}}`` (``qatbe.bench.folds``; the same halves for every system and metric)."""
    metrics = [m for m in _COLUMNS[name] if m in HEADLINE_METRICS]
    draws = halves([s.page.id for s in next(iter(scores.values()))], folds, seed)
    lines = [f"### {name}: {', '.join(metrics)} over {folds} random halves of the pages (mean ± sd, worst fold)", "",
             "| system | " + " | ".join(metrics) + " |", "|---|" + "--:|" * len(metrics)]
    numbers: dict[str, Any] = {}
    for system, page_scores in scores.items():
        by_page = {s.page.id: [s] for s in page_scores}
        cells = []
        for metric in metrics:
            stats = over_folds(by_page, partial(_metric_of, metric), draws)
            cells.append(stats.cell(scale=1.0, digits=3) if stats is not None else "—")
            if stats is not None:
                numbers.setdefault(system, {})[metric] = {**stats.to_dict(), "seed": seed}
        lines.append(f"| {system} | " + " | ".join(cells) + " |")
    return "\n".join(lines), numbers


def tools() -> Any:
    """This module's pieces that ``qatbe.bench.loco`` runs (a ``loco.Tools``)."""
    from .loco import Tools

    return Tools(LOADERS, Cache, run_system, score_page, summarize)


def _across_corpora(parser: argparse.ArgumentParser, args: argparse.Namespace, corpora: Path) -> int:
    """``--leave-one-corpus-out`` or ``--ablate``: a run of its own over the main-content corpora."""
    from . import loco

    flag = "--ablate" if args.ablate else "--leave-one-corpus-out"
    chosen = [d for d in args.datasets if d in loco.CORPORA]
    if len(chosen) < 2:
        parser.error(f"{flag} needs two or more of {', '.join(loco.CORPORA)}")
    if args.ablate:
        report = loco.ablate(tools(), corpora, chosen, args.limit)
    else:
        report = loco.run(tools(), corpora, chosen, args.limit, args.cache, args.jobs)
    print(report["markdown"])
    if args.json is not None:
        args.json.write_text(json.dumps({k: v for k, v in report.items() if k != "markdown"}, indent=1),
                             encoding="utf-8")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    corpora = args.corpora or default_corpora()
    datasets, systems = args.datasets, args.systems
    if args.ablate and args.leave_one_corpus_out:
        parser.error("--ablate and --leave-one-corpus-out are runs of their own: give one")
    for flag, given in (("--leave-one-corpus-out", args.leave_one_corpus_out), ("--ablate", args.ablate)):
        if given and (args.segment_speed or args.folds):
            parser.error(f"{flag} is a run of its own: not with --segment-speed or --folds")
    if not corpora.is_dir():
        print(f"qatbe bench extraction: corpora folder not found: {corpora}", file=sys.stderr)
        return 2
    if args.leave_one_corpus_out or args.ablate:
        return _across_corpora(parser, args, corpora)
    cache = Cache(args.cache)
    report: dict[str, Any] = {"datasets": {}}
    for name in datasets:
        pages = LOADERS[name](corpora / name)
        if args.limit is not None:
            pages = pages[: args.limit]
        if args.segment_speed:
            speed = segment_speed(pages)
            print(f"{name}: " + ", ".join(f"{k}={v:.3g}" for k, v in speed.items()))
            report["datasets"][name] = {"segment_speed": speed}
            continue
        scores: dict[str, list[PageScore]] = {}
        for system in systems:
            outputs = run_system(system, pages, cache, args.jobs)
            scores[system] = [score_page(p, system, text, secs) for p, (text, secs) in zip(pages, outputs)]
        cache.save()
        columns = _COLUMNS[name]
        print(table(name, columns, ((s, summarize(scores[s])) for s in systems)))
        print()
        entry: dict[str, Any] = {"summary": {s: summarize(scores[s]) for s in systems}, "pages": {}}
        types = sorted({p.page_type for p in pages if p.page_type})
        if len(types) > 1:
            rows = []
            for page_type in types:
                for system in systems:
                    subset = [s for s in scores[system] if s.page.page_type == page_type]
                    rows.append((f"{page_type} · {system}", summarize(subset)))
            print(table(f"{name} by page type", columns, rows))
            print()
            entry["by_type"] = {f"{t}/{s}": summarize([x for x in scores[s] if x.page.page_type == t])
                                for t in types for s in systems}
        if args.folds:
            text, entry["folds"] = fold_table(name, scores, args.folds, args.seed)
            print(text)
            print()
        if args.worst and "qatbe" in scores:
            print(_worst(name, scores, args.worst))
            print()
        for system in systems:
            entry["pages"][system] = {s.page.id: {**s.values, **s.counts, "ms": s.seconds * 1e3}
                                      for s in scores[system]}
        report["datasets"][name] = entry
    if "qatbe" in systems and "trafilatura" in systems and not args.segment_speed:
        behind = trailing(report)
        print("qatbe trails trafilatura on: " + "; ".join(behind) if behind
              else "qatbe is at or above trafilatura on every dataset and page type measured")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
