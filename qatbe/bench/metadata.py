"""``qatbe bench metadata``: title, author and publish date on wcxb, next to trafilatura's ``extract_metadata``.

wcxb's ground truth names ``title``, ``author`` and ``publish_date`` per page (each may be empty). Per field, two
numbers per system: **accuracy** on the pages whose gold has the field (a missing value counts as wrong), and
**given without gold**: how many pages with no gold value still get one (a guess the gold does not back; not
necessarily wrong — the gold is sparse — but worth watching).

Matching rules (``matches``), after ``norm`` (lower case, every run of non-word characters to one space):

* **date** — the same calendar day: both values must start with an ISO ``YYYY-MM-DD`` and those ten characters must
  be equal (a time of day or a zone after them is ignored; a value that is not ISO, such as "Jun 24, 2024", is a
  miss: ``Metadata.date`` promises ISO 8601).
* **author** — name containment: the shorter of the two normalised names occurs in the longer as whole words and has
  at least 3 characters ("Jane Doe" matches "By Jane Doe, Staff Writer" and the gold "Jane Doe, John Roe").
* **title** — normalised equality, or the gold title occurs in ours and makes up more than 60% of it (a site name
  appended to the ``<title>``: "How to X | Example Blog" for the gold "How to X").

Systems: ``qatbe`` is ``qatbe.extract(html, None, budget=200, format="html").metadata`` (the budget does not affect
metadata); ``trafilatura`` is ``trafilatura.extract_metadata(html)`` (skipped with a note if not installed). Its
values can be cached in a JSON file (``--cache``), keyed by the page's hash and trafilatura's version.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .args import ArgumentParser, count, default_corpora, positive_int, subset_of
from .loaders import jsonl_rows
from .report import markdown_table

FIELDS = ("title", "author", "date")
SYSTEMS = ("qatbe", "trafilatura")
_GOLD_KEYS = {"title": "title", "author": "author", "date": "publish_date"}
_NON_WORD = re.compile(r"[\W_]+")
_ISO_DAY = re.compile(r"\s*(\d{4}-\d{2}-\d{2})")
_TITLE_SHARE = 0.6
_MIN_NAME = 3

Values = dict[str, str | None]


# -- matching ---------------------------------------------------------------------------------------------------


def norm(text: str | None) -> str:
    return _NON_WORD.sub(" ", (text or "").lower()).strip()


def iso_day(value: str | None) -> str | None:
    match = _ISO_DAY.match(value or "")
    return match[1] if match else None


def matches(name: str, gold: str, predicted: str | None) -> bool:
    """Whether ``predicted`` counts as the gold value of field ``name`` (rules in the module docstring)."""
    if not predicted:
        return False
    if name == "date":
        day = iso_day(gold)
        return day is not None and iso_day(predicted) == day
    g, p = norm(gold), norm(predicted)
    if not g or not p:
        return False
    if name == "author":
        short, long = sorted((g, p), key=len)
        return len(short) >= _MIN_NAME and f" {short} " in f" {long} "
    if name == "title":
        return g == p or (f" {g} " in f" {p} " and len(g) > _TITLE_SHARE * len(p))
    raise ValueError(f"unknown field {name!r}")


# -- pages ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    """One wcxb page and its gold metadata (``None`` where the gold has no value)."""

    id: str
    html: bytes
    page_type: str = ""
    url: str = ""
    gold: Values = field(default_factory=dict)


def load_wcxb(root: Path) -> list[Page]:
    pages = []
    for row in jsonl_rows(root / "index.jsonl"):
        gt = json.loads((root / row["ground_truth"]).read_text(encoding="utf-8"))["ground_truth"]
        gold: Values = {f: (str(gt[k]).strip() or None) if gt.get(k) else None for f, k in _GOLD_KEYS.items()}
        with gzip.open(root / row["html"], "rb") as handle:
            html = handle.read()
        pages.append(Page(row["id"], html, row.get("page_type", ""), row.get("url", ""), gold))
    return pages


# -- systems ----------------------------------------------------------------------------------------------------


def run_qatbe(page: Page) -> tuple[Values, float]:
    import qatbe

    start = time.perf_counter()
    meta = qatbe.extract(page.html, None, budget=200, format="html").metadata
    seconds = time.perf_counter() - start
    return {"title": meta.title, "author": meta.author, "date": meta.date}, seconds


def trafilatura_missing() -> str | None:
    try:
        import trafilatura  # noqa: F401
    except ImportError:
        return "trafilatura is not installed (pip install trafilatura); its column is left out"
    return None


def run_trafilatura(page: Page) -> tuple[Values, float]:
    from trafilatura import extract_metadata

    start = time.perf_counter()
    doc = extract_metadata(page.html)
    seconds = time.perf_counter() - start
    if doc is None:
        return {f: None for f in FIELDS}, seconds
    return {"title": doc.title, "author": doc.author, "date": doc.date}, seconds


class Cache:
    """trafilatura's metadata keyed by page hash and version: it is slow and does not change between our runs."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.data: dict[str, Any] = {}
        if path is not None and path.exists():
            self.data = json.loads(path.read_text(encoding="utf-8"))
        try:
            import trafilatura

            self.version = str(trafilatura.__version__)
        except ImportError:
            self.version = "missing"

    def key(self, page: Page) -> str:
        return f"metadata:{self.version}:{hashlib.sha1(page.html).hexdigest()}"

    def run(self, page: Page, runner: Callable[[Page], tuple[Values, float]]) -> tuple[Values, float]:
        hit = self.data.get(self.key(page))
        if hit is not None:
            return dict(hit[0]), float(hit[1])
        values, seconds = runner(page)
        self.data[self.key(page)] = [values, seconds]
        return values, seconds

    def save(self) -> None:
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(self.data), encoding="utf-8")


# -- scoring ----------------------------------------------------------------------------------------------------


def score(pages: Sequence[Page], outputs: Sequence[Values]) -> dict[str, dict[str, float]]:
    """Per field: pages with gold, correct, accuracy, pages without gold, values given there."""
    out: dict[str, dict[str, float]] = {}
    for name in FIELDS:
        gold_n = correct = bare_n = given = 0
        for page, values in zip(pages, outputs):
            gold = page.gold.get(name)
            if gold:
                gold_n += 1
                correct += matches(name, gold, values.get(name))
            else:
                bare_n += 1
                given += bool(values.get(name))
        out[name] = {"gold": gold_n, "correct": correct, "accuracy": correct / gold_n if gold_n else 0.0,
                     "no_gold": bare_n, "given_without_gold": given}
    return out


def summary_table(summaries: dict[str, dict[str, dict[str, float]]]) -> str:
    systems = list(summaries)
    header = ["field", "gold pages", *(f"{s} accuracy" for s in systems),
              *(f"{s} given w/o gold" for s in systems)]
    rows = []
    for name in FIELDS:
        first = summaries[systems[0]][name]
        rows.append([name, str(int(first["gold"])),
                     *(f"{summaries[s][name]['accuracy']:.3f}" for s in systems),
                     *(f"{int(summaries[s][name]['given_without_gold'])}/{int(first['no_gold'])}" for s in systems)])
    return markdown_table(header, rows)


def misses(pages: Sequence[Page], outputs: dict[str, list[Values]], name: str, k: int) -> list[str]:
    """qatbe's misses on field ``name`` (first ``k`` in page order), with the gold and trafilatura's value."""
    lines = []
    peer = outputs.get("trafilatura")
    for i, page in enumerate(pages):
        gold = page.gold.get(name)
        ours = outputs["qatbe"][i].get(name)
        if gold and not matches(name, gold, ours):
            theirs = f" trafilatura={peer[i].get(name)!r}" if peer is not None else ""
            lines.append(f"  {page.id} [{page.page_type}] gold={gold!r} qatbe={ours!r}{theirs}")
            if len(lines) >= k:
                break
    return lines


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="qatbe bench metadata", description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=None, help="folder holding wcxb/ (default ../shared/corpora)")
    parser.add_argument("--systems", type=subset_of(SYSTEMS, "system"), default=",".join(SYSTEMS),
                        help=f"comma-separated subset of {SYSTEMS}")
    parser.add_argument("--limit", type=positive_int, default=None, help="first N pages")
    parser.add_argument("--worst", type=count, default=10, help="list up to K qatbe misses per field (0: none)")
    parser.add_argument("--fields", type=subset_of(FIELDS, "field"), default=",".join(FIELDS),
                        help="fields whose misses are listed")
    parser.add_argument("--json", type=Path, default=None, help="write summaries and per-page values here")
    parser.add_argument("--cache", type=Path, default=None, help="JSON file caching trafilatura's metadata")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    root = (args.corpora or default_corpora()) / "wcxb"
    systems, fields = args.systems, args.fields
    if not (root / "index.jsonl").is_file():
        print(f"qatbe bench metadata: wcxb not found: {root}", file=sys.stderr)
        return 2
    if "trafilatura" in systems and (note := trafilatura_missing()):
        print(f"note: {note}")
        systems.remove("trafilatura")
    if not systems:
        print("qatbe bench metadata: no system to measure", file=sys.stderr)
        return 2
    pages = load_wcxb(root)[: args.limit]
    cache = Cache(args.cache)
    outputs: dict[str, list[Values]] = {}
    seconds: dict[str, list[float]] = {}
    for system in systems:
        runs = [run_qatbe(p) if system == "qatbe" else cache.run(p, run_trafilatura) for p in pages]
        outputs[system] = [r[0] for r in runs]
        seconds[system] = [r[1] for r in runs]
    cache.save()
    summaries = {s: score(pages, outputs[s]) for s in systems}
    print(f"### wcxb metadata ({len(pages)} pages)\n")
    print(summary_table(summaries))
    if args.worst > 0 and "qatbe" in outputs:
        for name in fields:
            lines = misses(pages, outputs, name, args.worst)
            print(f"\nqatbe {name} misses (first {args.worst}):" if lines else f"\nqatbe {name}: no misses")
            print("\n".join(lines)) if lines else None
    if args.json is not None:
        report = {"pages": len(pages), "summary": summaries,
                  "values": {s: {p.id: {**outputs[s][i], "ms": seconds[s][i] * 1e3} for i, p in enumerate(pages)}
                             for s in systems},
                  "gold": {p.id: p.gold for p in pages}}
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
