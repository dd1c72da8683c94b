"""One selection across documents vs an equal per-document split of the same budget (issue 6).

    python benchmarks/many_split.py [--budgets 200,500,1000] [--limit N] [--json out.json]

Data: ``../shared/corpora/hotpotqa-distractor`` (dev half). Each question comes with 10 Wikipedia lead paragraphs
(2 gold, 8 distractors); every ``## Title`` paragraph becomes its own ``qatbe.Document`` (source ``## Title`` +
the paragraph, title = the title), in the corpus's order.

Systems, all at the same total budget B (chars/4 tokens):
- ``many``: ``extract_many(docs, q, budget=B, citations=False)`` — one selection, no citation envelope;
- ``many+cite``: the same with citations on (``[n]`` headers, sources list, 64-token buffer), as shipped;
- ``split``: ``extract(doc, q, budget=B // 10)`` per document, outputs joined;
- ``split+cut``: the split with ``truncation="truncate_end"`` so each share is filled as far as it goes.

Metrics per question (text compared after NFKC/casefold/punctuation→space normalisation):
``gold`` = every supporting sentence of both gold paragraphs kept whole (HotpotQA's "all evidence" rate);
``sent`` = share of supporting sentences kept whole; ``ans`` = span answer present (yes/no questions skipped).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import qatbe
from qatbe.bench.env import describe
from qatbe.bench.metrics import normalize

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "hotpotqa-distractor"


def _jsonl(path: Path) -> Iterator[dict[str, object]]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def load(limit: int | None) -> list[tuple[dict[str, object], list[qatbe.Document]]]:
    docs = {d["doc_id"]: d for d in _jsonl(CORPUS / "documents.jsonl")}
    items = []
    for q in _jsonl(CORPUS / "queries.jsonl"):
        context = docs[q["doc_id"]]["context"]
        paragraphs = [qatbe.Document(f"## {title}\n\n{''.join(sents).strip()}", title=title, id=title)
                      for title, sents in context]  # type: ignore[union-attr]
        items.append((q, paragraphs))
        if limit and len(items) >= limit:
            break
    return items


def systems(budget: int) -> dict[str, Callable[[list[qatbe.Document], str], str]]:
    share = budget // 10

    def split(docs: list[qatbe.Document], q: str, **opts: object) -> str:
        parts = [qatbe.extract(d.source, q, budget=share, **opts).text for d in docs]  # type: ignore[arg-type]
        return "\n\n".join(p for p in parts if p)

    return {
        "many": lambda docs, q: qatbe.extract_many(docs, q, budget=budget, citations=False).text,
        "many+cite": lambda docs, q: qatbe.extract_many(docs, q, budget=budget).text,
        "split": lambda docs, q: split(docs, q),
        "split+cut": lambda docs, q: split(docs, q, truncation="truncate_end"),
    }


def score(q: dict[str, object], text: str) -> tuple[bool, float, bool | None]:
    out = f" {normalize(text)} "
    evidence = [normalize(e) for e in q["evidence"]]  # type: ignore[union-attr]
    kept = [bool(e) and f" {e} " in out for e in evidence]
    answer = None
    if q["answer_type"] == "span":
        answer = any(f" {normalize(a)} " in out for a in q["answers"])  # type: ignore[union-attr]
    return all(kept), sum(kept) / max(len(kept), 1), answer


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budgets", default="200,500,1000")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}", file=sys.stderr)
        return 2
    items = load(args.limit)
    budgets = [int(b) for b in args.budgets.split(",")]
    rows = []
    for budget in budgets:
        for name, run in systems(budget).items():
            gold = sent = 0.0
            answers: list[bool] = []
            over = 0
            started = time.perf_counter()
            for q, docs in items:
                text = run(docs, str(q["query"]))
                over += qatbe.tokens.chars_div4(text) > budget
                g, s, a = score(q, text)
                gold += g
                sent += s
                if a is not None:
                    answers.append(a)
            rows.append({
                "budget": budget, "system": name, "questions": len(items),
                "gold": gold / len(items), "sent": sent / len(items),
                "ans": sum(answers) / max(len(answers), 1), "over_budget": over,
                "ms_per_question": (time.perf_counter() - started) * 1000 / len(items),
            })
    print(f"hotpotqa-distractor dev, {len(items)} questions, 10 documents each; qatbe {qatbe.__version__} "
          f"({qatbe.BACKEND})")
    print(f"{'budget':>6}  {'system':<10} {'gold':>6} {'sent':>6} {'ans':>6} {'over':>5} {'ms/q':>7}")
    for r in rows:
        print(f"{r['budget']:>6}  {r['system']:<10} {r['gold']:>6.3f} {r['sent']:>6.3f} {r['ans']:>6.3f} "
              f"{r['over_budget']:>5} {r['ms_per_question']:>7.1f}")
    if args.json:
        args.json.write_text(json.dumps({"env": describe(), "rows": rows}, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
