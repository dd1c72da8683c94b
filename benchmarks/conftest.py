"""pytest-benchmark setup: collects ``bench_*.py`` here and provides real inputs.

Run with ``pytest benchmarks/ --benchmark-only`` (the test suite's ``testpaths`` is ``tests``, so these never run
with it). Inputs are pages from ``../shared/corpora`` when that folder exists (a median-sized and the biggest page
of scrapinghub-aeb and wcxb; the biggest SQuAD article and a HotpotQA context as markdown), else the page bundled
with the package and the project's own sample corpus, so that a user's clone can run them too.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    # A file named on the command line is collected by pytest itself; collecting it here too would run it twice.
    if file_path.suffix == ".py" and file_path.name.startswith("bench_") and not parent.session.isinitpath(file_path):
        return pytest.Module.from_parent(parent, path=file_path)
    return None


def _gz_pages(folder: Path) -> list[tuple[str, str]]:
    pages = []
    for path in sorted(folder.glob("*.html.gz")):
        label = f"{folder.parent.name}/{path.name.split('.')[0][:12]}"
        pages.append((label, gzip.decompress(path.read_bytes()).decode("utf-8", "replace")))
    return pages


def html_inputs() -> list[tuple[str, str]]:
    """(label, html): a median-sized and the biggest page of each page set, or the bundled demo page."""
    chosen: list[tuple[str, str]] = []
    for sub in ("scrapinghub-aeb/html", "wcxb/html"):
        folder = CORPORA / sub
        if folder.is_dir():
            pages = sorted(_gz_pages(folder), key=lambda p: len(p[1]))
            if pages:
                chosen += [pages[len(pages) // 2], pages[-1]]
    if not chosen:
        chosen.append(("qatbe/data/demo.html", (ROOT / "qatbe" / "data" / "demo.html").read_text(encoding="utf-8")))
    return chosen


def markdown_inputs() -> list[tuple[str, str]]:
    """(label, markdown): the biggest SQuAD article and the first HotpotQA context, or the sample document."""
    chosen: list[tuple[str, str]] = []
    for name in ("squad11-dev", "hotpotqa-distractor"):
        path = CORPORA / name / "documents.jsonl"
        if path.is_file():
            docs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
            doc = max(docs, key=lambda d: len(d["markdown"])) if name == "squad11-dev" else docs[0]
            chosen.append((f"{name}/{doc['doc_id']}", doc["markdown"]))
    if not chosen:
        rows = (ROOT / "corpora" / "sample" / "documents.jsonl").read_text(encoding="utf-8").splitlines()
        doc = next(json.loads(r) for r in rows if '"markdown"' in r)
        chosen.append(("corpora/sample/" + doc["doc_id"], doc["markdown"]))
    return chosen


def mb_per_s(benchmark: object, size: int) -> None:
    """Stores throughput from the median time in the benchmark's extra info (shown with --benchmark-json)."""
    stats = benchmark.stats.stats  # type: ignore[attr-defined]
    benchmark.extra_info["bytes"] = size  # type: ignore[attr-defined]
    benchmark.extra_info["MB/s"] = round(size / 1e6 / stats.median, 2) if stats.median else None  # type: ignore[attr-defined]
