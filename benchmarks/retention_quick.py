"""Quick answer-retention check on the four dev QA sets, for tuning the scoring stage.

    python benchmarks/retention_quick.py [--sets squad,cqa,hotpot,wtq] [--budgets 200,1000,5000] [--limit N]
        [--baseline] [--option name=value ...] [--misses FILE]

Retention = share of questions whose output contains any gold answer, matched as the harness matches
(``qatbe.bench.metrics.contains``: NFKC, case-folded, punctuation to spaces, on word boundaries); yes/no and
not-answerable questions are skipped. ``--misses FILE`` writes every question missed at the smallest budget
(query, answers, the output) as JSONL, to read what was kept instead of the answer. ``--baseline`` also runs "paragraphs ranked by rank-bm25"
(trafilatura text for HTML, blank-line blocks for markdown; packed best-first to the budget; document order).
The full harness lives in ``qatbe.bench``; this script exists so that every scoring change can be measured in a
minute. ``--option`` passes Settings fields (``--option bm25=okapi``), parsed as JSON when they parse.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import qatbe
from qatbe.bench.metrics import contains, normalize

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
_WS = re.compile(r"\s+")
_WORD = re.compile(r"\w+")


def norm(text: str) -> str:
    return _WS.sub(" ", text.casefold()).strip()


def _jsonl(path: Path) -> Iterator[dict[str, object]]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def load(name: str) -> list[tuple[str, str, list[str], str]]:
    """(source, query, answers, format) per usable question."""
    folder = {"squad": "squad11-dev", "cqa": "conditionalqa-dev", "hotpot": "hotpotqa-distractor",
              "wtq": "wikitablequestions"}[name]
    docs = {d["doc_id"]: d for d in _jsonl(CORPORA / folder / "documents.jsonl")}
    out = []
    for q in _jsonl(CORPORA / folder / "queries.jsonl"):
        if q.get("answer_type") in ("yes_no", "none") or q.get("not_answerable"):
            continue
        answers = [str(a) for a in q["answers"] if str(a).strip()]  # type: ignore[attr-defined]
        if not answers or all(norm(a) in ("yes", "no") for a in answers):
            continue
        doc = docs[q["doc_id"]]
        query = str(q["query_with_scenario"] if name == "cqa" else q["query"])
        fmt = "html" if name in ("cqa", "wtq") else "markdown"
        out.append((str(doc[fmt]), query, answers, fmt))
    return out


def baseline(source: str, fmt: str, query: str, budget: int, cache: dict[str, list[str]]) -> str:
    from rank_bm25 import BM25Okapi

    paras = cache.get(source)
    if paras is None:
        if fmt == "html":
            import trafilatura

            text = trafilatura.extract(source) or ""
            paras = [p.strip() for p in text.split("\n") if p.strip()]
        else:
            paras = [p.strip() for p in re.split(r"\n\s*\n", source) if p.strip()]
        cache[source] = paras
    if not paras:
        return ""
    toks = [_WORD.findall(p.lower()) or [""] for p in paras]
    scores = BM25Okapi(toks).get_scores(_WORD.findall(query.lower()))
    order = sorted(range(len(paras)), key=lambda i: (-scores[i], i))
    used, keep = 0, []
    for i in order:
        cost = (len(paras[i]) + 3) // 4 + 1
        if used + cost <= budget:
            keep.append(i)
            used += cost
    return "\n\n".join(paras[i] for i in sorted(keep))


def set_constant(name: str, value: float) -> object:
    """Set the module constant ``MODULE.NAME`` (MODULE under qatbe), of its own type, to ``value``; returns the old
    value. For tuning runs only: the stages read their module constants at call time."""
    import importlib

    module_name, _, key = name.rpartition(".")
    if not module_name:
        raise SystemExit(f"--const {name}: name the module (MODULE.NAME); the scorer's constants are "
                         "--option scoring={...}")
    module = importlib.import_module(f"qatbe.{module_name}")
    old = getattr(module, key)
    setattr(module, key, type(old)(value))
    return old


def measure(
    name: str, extractors: dict[int, qatbe.Extractor], limit: int = 0, misses: TextIO | None = None,
    with_baseline: bool = False,
) -> tuple[int, dict[int, int], dict[int, int]]:
    """(questions, qatbe's hits per budget, the baseline's hits per budget) on one set; ``extractors`` are keyed by
    budget. ``misses`` gets the questions missed at the smallest budget (JSONL)."""
    items = load(name)
    if limit:
        items = items[:limit]
    hits = {b: 0 for b in extractors}
    base = {b: 0 for b in extractors}
    cache: dict[str, list[str]] = {}
    for source, query, answers, fmt in items:
        for b, extractor in extractors.items():
            out = extractor.extract(source, query).text
            hit = any(contains(normalize(out), a) for a in answers)
            hits[b] += hit
            if misses is not None and not hit and b == min(extractors):
                row = {"set": name, "budget": b, "query": query, "answers": answers, "output": out}
                misses.write(json.dumps(row, ensure_ascii=False) + "\n")
            if with_baseline:
                btext = normalize(baseline(source, fmt, query, b, cache))
                base[b] += any(contains(btext, a) for a in answers)
    return len(items), hits, base


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="squad,cqa,hotpot,wtq")
    ap.add_argument("--budgets", default="200,1000,5000")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--baseline", action="store_true")
    ap.add_argument("--option", action="append", default=[])
    ap.add_argument("--const", action="append", default=[],
                    help="tuning: a module constant MODULE.NAME=VALUE (MODULE under qatbe, e.g. "
                         "segmentation.html_decide._BOX_SHARE); the scorer's constants are --option scoring={...}")
    ap.add_argument("--misses", type=Path, default=None, help="write the questions missed at the smallest budget")
    args = ap.parse_args(argv)
    if not CORPORA.is_dir():
        print(f"no corpora at {CORPORA}", file=sys.stderr)
        return 2
    options: dict[str, Any] = {}
    for opt in args.option:
        key, _, value = opt.partition("=")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    for c in args.const:
        key, _, value = c.partition("=")
        set_constant(key, float(value))
    budgets = [int(b) for b in args.budgets.split(",")]
    extractors = {b: qatbe.Extractor(budget=b, **options) for b in budgets}
    print(f"backend={qatbe.BACKEND} options={options} const={args.const}")
    misses = args.misses.open("w", encoding="utf-8") if args.misses else None
    for name in args.sets.split(","):
        started = time.perf_counter()
        n, hits, base = measure(name, extractors, args.limit, misses, args.baseline)
        row = "  ".join(f"@{b}: {hits[b] / n:.3f}" for b in budgets)
        if args.baseline:
            row += "   baseline " + "  ".join(f"@{b}: {base[b] / n:.3f}" for b in budgets)
        print(f"{name:7s} n={n:4d}  {row}   ({time.perf_counter() - started:.1f}s)", flush=True)
    if misses is not None:
        misses.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
