"""Renders benchmark rows for people: aligned text/markdown tables and a retention-vs-budget PNG.

Rows are plain dicts (the JSON rows), so a table or plot can be redrawn from a saved ``retention.jsonl``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path


def _pct(value: object) -> str:
    return "—" if not isinstance(value, (int, float)) else f"{100.0 * value:.1f}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str | None = None) -> str:
    """A pipe table whose columns are padded so it also reads well as plain text."""
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(str(h)) for i, h in enumerate(header)]
    align = align or "l" + "r" * (len(header) - 1)

    def line(cells: Sequence[str]) -> str:
        out = []
        for i, cell in enumerate(cells):
            out.append(str(cell).ljust(widths[i]) if align[i] == "l" else str(cell).rjust(widths[i]))
        return "| " + " | ".join(out) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if a == "r" else ("-" * (w + 2)) for w, a in zip(widths, align)) + "|"
    return "\n".join([line(header), rule, *(line(r) for r in rows)])


def pivot(
    rows: Sequence[Mapping[str, object]], metric: str, fmt: Callable[[object], str] = _pct
) -> str:
    """One line per dataset × system, one column per budget, cells = ``metric``."""
    budgets = sorted({int(r["budget"]) for r in rows})  # type: ignore[call-overload]
    keys: list[tuple[str, str]] = []
    cells: dict[tuple[str, str, int], object] = {}
    for r in rows:
        key = (str(r["dataset"]), str(r["system"]))
        if key not in keys:
            keys.append(key)
        cells[(*key, int(r["budget"]))] = r.get(metric)  # type: ignore[call-overload]
    header = ["dataset", "system", *(str(b) for b in budgets)]
    body = [[d, s, *(fmt(cells.get((d, s, b))) for b in budgets)] for d, s in keys]
    return markdown_table(header, body, "ll" + "r" * len(budgets))


def full_table(rows: Sequence[Mapping[str, object]]) -> str:
    header = [
        "dataset", "system", "budget", "answer %", "evidence recall %", "evidence kept %",
        "tokens (mean)", "over budget", "errors", "ms/call (median)", "answerable", "skipped",
    ]
    body = []
    for r in rows:
        skipped = r.get("skipped") or {}
        assert isinstance(skipped, Mapping)
        body.append([
            str(r["dataset"]), str(r["system"]), str(r["budget"]), _pct(r.get("answer_retention")),
            _pct(r.get("evidence_recall")), _pct(r.get("evidence_kept")), f"{float(r['tokens_mean']):.0f}",  # type: ignore[arg-type]
            str(r["over_budget"]), str(r["errors"]), f"{float(r['ms_median']):.2f}",  # type: ignore[arg-type]
            str(r["answerable"]), " ".join(f"{k}={v}" for k, v in skipped.items()) or "0",
        ])
    return markdown_table(header, body, "lll" + "r" * 8 + "l")


def plot_retention(rows: Sequence[Mapping[str, object]], path: Path) -> Path:
    """Answer retention (top) and evidence recall (bottom) against budget, one panel per dataset, one line per system.

    Uses matplotlib's Agg backend explicitly: benchmarks run on machines without a display.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = list(dict.fromkeys(str(r["dataset"]) for r in rows))
    systems = list(dict.fromkeys(str(r["system"]) for r in rows))
    budgets = sorted({int(r["budget"]) for r in rows})  # type: ignore[call-overload]
    metrics = [("answer_retention", "answer retention"), ("evidence_recall", "evidence recall")]
    fig, axes = plt.subplots(
        len(metrics), max(len(datasets), 1), figsize=(4.2 * max(len(datasets), 1), 7.0), squeeze=False
    )
    for col, dataset in enumerate(datasets):
        for row, (metric, label) in enumerate(metrics):
            ax = axes[row][col]
            for system in systems:
                points = sorted(
                    (int(r["budget"]), float(r[metric]))  # type: ignore[call-overload, arg-type]
                    for r in rows
                    if r["dataset"] == dataset and r["system"] == system and r.get(metric) is not None
                )
                if points:
                    ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=system)
            ax.set_xscale("log")
            ax.set_xticks(budgets, [f"{b:,}" for b in budgets])
            ax.minorticks_off()
            ax.set_ylim(0.0, 1.02)
            ax.grid(True, alpha=0.3)
            ax.set_xlabel("budget (tokens)")
            if col == 0:
                ax.set_ylabel(label)
            if row == 0:
                ax.set_title(dataset)
    handles, labels = axes[0][0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 6), frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
