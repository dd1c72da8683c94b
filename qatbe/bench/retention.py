"""The retention benchmark: does the budgeted output still contain what the question needs?

Every system runs in this process on the same loaded documents and questions, at every budget. Python API::

    from qatbe.bench.retention import run_retention
    from qatbe.bench.loaders import load
    from qatbe.bench.systems import make_system

    report = run_retention([load("../shared/corpora/squad11-dev")], [make_system("qatbe"), make_system("lead")],
                           budgets=[200, 1000])
    print(report.table())

Command line: ``qatbe bench retention DATASET... [--budgets 200,1000,5000,20000] [--systems ...] [--out DIR]
[--limit N]``. A DATASET is a folder (``documents.jsonl`` + ``queries.jsonl``), a SQuAD ``.json``, a plain
``.jsonl``, or the name of a folder under the corpora root (``squad11-dev``).
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from .args import ArgumentParser, can_plot, default_corpora, parse_budgets, positive_int
from .env import describe
from .folds import FoldStats, halves, over_folds
from .loaders import Dataset, load, resolve_dataset
from .metrics import ItemScore, score_item, summarize
from .report import full_table, pivot, plot_retention
from .systems import DEFAULT_SYSTEMS, System, make_system, split_specs

DEFAULT_BUDGETS: tuple[int, ...] = (200, 1000, 5000, 20000)


@dataclass
class RetentionReport:
    """Self-describing rows (one per dataset × system × budget), skipped systems, and optional per-item scores."""

    rows: list[dict[str, Any]]
    skipped_systems: dict[str, str]
    env: dict[str, object]
    items: list[dict[str, Any]] = field(default_factory=list)
    # One row per dataset × system × budget × metric when folds were asked for (``fold_rows``).
    fold_rows: list[dict[str, Any]] = field(default_factory=list)

    def table(self) -> str:
        parts = []
        if self.rows:
            parts.append("answer retention, % of answerable questions (any gold answer in the output)\n")
            parts.append(pivot(self.rows, "answer_retention"))
            parts.append("\n\nevidence recall, % (share of each gold evidence unit's words in the output)\n")
            parts.append(pivot(self.rows, "evidence_recall"))
            parts.append("\n\nmedian ms per call (preparation charged to every call)\n")
            parts.append(pivot(self.rows, "ms_median", lambda v: f"{float(v):.2f}"))  # type: ignore[arg-type]
        if self.fold_rows:
            k = self.fold_rows[0]["folds"]
            for metric, title in (("answer_retention", "answer retention"), ("evidence_recall", "evidence recall")):
                rows = [r for r in self.fold_rows if r["metric"] == metric]
                if rows:
                    parts.append(f"\n\n{title}, % over {k} random halves of the dev documents: "
                                 "mean ± sd (worst fold)\n")
                    parts.append(pivot(rows, "cell", str))
        for name, reason in self.skipped_systems.items():
            parts.append(f"\nskipped system {name}: {reason}")
        return "".join(parts)

    def write(self, out: Path, *, plot: bool = True) -> dict[str, Path]:
        """Writes ``retention.jsonl`` (rows), ``retention.md`` (tables), ``retention.png`` (plot), items if kept."""
        out.mkdir(parents=True, exist_ok=True)
        written = {"rows": out / "retention.jsonl", "table": out / "retention.md"}
        with written["rows"].open("w", encoding="utf-8") as fh:
            for row in self.rows:
                fh.write(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n")
        machine = f"qatbe {self.env['qatbe_version']} ({self.env['backend']}), Python {self.env['python']}, " \
                  f"{self.env['cpu']} × {self.env['cpu_count']}, {self.env['date']}"
        written["table"].write_text(
            f"{machine}\n\n{self.table()}\n\n## All measurements\n\n{full_table(self.rows)}\n", encoding="utf-8"
        )
        if self.fold_rows:
            written["folds"] = out / "retention-folds.jsonl"
            with written["folds"].open("w", encoding="utf-8") as fh:
                for row in self.fold_rows:
                    fh.write(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n")
        if self.items:
            written["items"] = out / "retention-items.jsonl"
            with written["items"].open("w", encoding="utf-8") as fh:
                for item in self.items:
                    fh.write(json.dumps(item, sort_keys=True, ensure_ascii=False) + "\n")
        if plot and self.rows:
            written["plot"] = plot_retention(self.rows, out / "retention.png")
        return written


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def set_description(self, text: str) -> None:
        pass


@contextmanager
def _progress(total: int, enabled: bool) -> Iterator[Any]:
    """A tqdm bar on stderr when asked for and tqdm is installed; a no-op otherwise."""
    if not enabled:
        yield _NoBar()
        return
    try:
        from tqdm import tqdm
    except ImportError:
        yield _NoBar()
        return
    with tqdm(total=total, unit="call", file=sys.stderr, dynamic_ncols=True) as bar:
        yield bar


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".splitlines()[0][:300]


def _warm_up(dataset: Dataset, system: System, budgets: Sequence[int]) -> None:
    """One untimed call first, so that lazy imports and first-use caches are not charged to the first document."""
    if not dataset.items or not budgets:
        return
    item = dataset.items[0]
    # A warm-up: a failure here is recorded by the timed run that follows, so it is ignored on purpose.
    with contextlib.suppress(Exception):
        system.select(system.prepare(dataset.documents[item.document_id]), item.query, min(budgets))


def run_dataset(
    dataset: Dataset, system: System, budgets: Sequence[int], bar: Any
) -> dict[int, list[ItemScore]]:
    """Scores of one system on one dataset, per budget. Failures are recorded, never raised: a benchmark that
    stops at the first crash hides how often a system crashes."""
    scores: dict[int, list[ItemScore]] = {b: [] for b in budgets}
    prepared: dict[str, tuple[Any, float, str | None]] = {}
    _warm_up(dataset, system, budgets)
    for item in dataset.items:
        if item.document_id not in prepared:
            start = time.perf_counter()
            try:
                state, error = system.prepare(dataset.documents[item.document_id]), None
            except Exception as exc:  # noqa: BLE001 - recorded as the system's error
                state, error = None, _error_text(exc)
            prepared[item.document_id] = (state, time.perf_counter() - start, error)
        state, prep_seconds, prep_error = prepared[item.document_id]
        for budget in budgets:
            output: str | None = None
            error = prep_error
            start = time.perf_counter()
            if error is None:
                try:
                    output = system.select(state, item.query, budget)
                except Exception as exc:  # noqa: BLE001 - recorded as the system's error
                    error = _error_text(exc)
            seconds = prep_seconds + time.perf_counter() - start
            scores[budget].append(score_item(item, output, budget, seconds, error))
            bar.update(1)
    return scores


def run_retention(
    datasets: Sequence[Dataset],
    systems: Sequence[System],
    budgets: Sequence[int] = DEFAULT_BUDGETS,
    *,
    progress: bool = False,
    keep_items: bool = False,
    folds: int = 0,
    seed: int = 0,
) -> RetentionReport:
    """Runs every available system on every dataset at every budget; systems with a missing peer are skipped.

    ``folds=K`` also reports each metric over K random halves of each dataset's documents (``qatbe.bench.folds``;
    the same halves for every system and budget)."""
    env = describe()
    skipped: dict[str, str] = {}
    runnable: list[System] = []
    for system in systems:
        reason = system.missing()
        if reason:
            skipped[system.name] = reason
        else:
            runnable.append(system)
    rows: list[dict[str, Any]] = []
    items: list[dict[str, Any]] = []
    fold_rows: list[dict[str, Any]] = []
    total = sum(len(d.items) for d in datasets) * len(runnable) * len(budgets)
    with _progress(total, progress) as bar:
        for dataset in datasets:
            dataset_folds = halves([item.document_id for item in dataset.items], folds, seed) if folds else []
            for system in runnable:
                bar.set_description(f"{dataset.name} · {system.name}")
                per_budget = run_dataset(dataset, system, budgets, bar)
                for budget, scores in per_budget.items():
                    for metric, stats in _fold_metrics(dataset, scores, dataset_folds).items():
                        fold_rows.append({"dataset": dataset.name, "system": system.name, "budget": budget,
                                          "metric": metric, "cell": stats.cell(), **stats.to_dict(),
                                          "seed": seed})
                    summary = summarize(scores)
                    rows.append({
                        "benchmark": "retention",
                        "dataset": dataset.name,
                        "dataset_sha256": dataset.sha256,
                        "dataset_files": [p.name for p in dataset.files],
                        "documents": len(dataset.documents),
                        "system": system.name,
                        "budget": budget,
                        "token_estimator": "chars_div4",
                        **summary.to_dict(),
                        **env,
                    })
                    if keep_items:
                        items.extend(
                            {"dataset": dataset.name, "system": system.name, "budget": budget,
                             **{k: getattr(s, k) for k in s.__slots__}}
                            for s in scores
                        )
    return RetentionReport(rows, skipped, env, items, fold_rows)


def _fold_metrics(dataset: Dataset, scores: Sequence[ItemScore],
                  folds: Sequence[frozenset[str]]) -> dict[str, FoldStats]:
    """Answer retention and evidence recall of ``scores`` (in ``dataset.items`` order) over ``folds``."""
    if not folds:
        return {}
    by_doc: dict[str, list[ItemScore]] = {}
    for item, score in zip(dataset.items, scores):
        by_doc.setdefault(item.document_id, []).append(score)
    out: dict[str, FoldStats] = {}
    for metric in ("answer_retention", "evidence_recall"):
        stats = over_folds(by_doc, partial(_summary_value, metric), folds)
        if stats is not None:
            out[metric] = stats
    return out


def _summary_value(metric: str, scores: list[ItemScore]) -> float | None:
    value: float | None = getattr(summarize(scores), metric)
    return value


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="qatbe bench retention",
        description="Answer retention and evidence recall at token budgets, qatbe next to baselines.",
    )
    parser.add_argument("datasets", nargs="+", metavar="DATASET",
                        help="dataset folder, SQuAD .json, plain .jsonl, or a folder name under --corpora")
    parser.add_argument("--budgets", default=",".join(map(str, DEFAULT_BUDGETS)),
                        help="comma-separated token budgets (default: %(default)s)")
    parser.add_argument("--systems", default=",".join(DEFAULT_SYSTEMS),
                        help="systems separated by commas or ';' (qatbe:key=value,... for qatbe options; "
                             "default: %(default)s)")
    parser.add_argument("--out", type=Path, default=None, help="write retention.jsonl/.md/.png here")
    parser.add_argument("--limit", type=positive_int, default=None,
                        help="at most N questions per dataset (round-robin over documents)")
    parser.add_argument("--corpora", type=Path, default=None, help="where dataset names are looked up "
                        "(default: $QATBE_CORPORA or ../shared/corpora)")
    parser.add_argument("--prefer", choices=("html", "markdown"), default="html",
                        help="document field to use when a dataset has both (default: %(default)s)")
    parser.add_argument("--items", action="store_true", help="also write per-question scores")
    parser.add_argument("--folds", type=positive_int, default=None,
                        help="also report each metric over K random halves of the documents (mean ± sd, worst)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the --folds draws (default: %(default)s)")
    parser.add_argument("--no-plot", action="store_true", help="do not draw the PNG")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    budgets = parse_budgets(args.budgets)
    systems = [make_system(spec) for spec in split_specs(args.systems)]
    corpora = args.corpora or default_corpora()
    datasets = [load(resolve_dataset(spec, corpora), limit=args.limit, prefer=args.prefer) for spec in args.datasets]
    report = run_retention(datasets, systems, budgets, progress=not args.no_progress, keep_items=args.items,
                           folds=args.folds or 0, seed=args.seed)
    print(report.table())
    if args.out is not None:
        plot = not args.no_plot and can_plot("qatbe bench retention")
        written = report.write(args.out, plot=plot)
        for kind, path in written.items():
            print(f"{kind}: {path}")
    return 0
