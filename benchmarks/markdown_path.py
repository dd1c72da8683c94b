"""Where the markdown path's time goes: the block parse alone, segmentation and ``extract``, with each parser.

    QATBE_CORPORA=../shared/corpora PYTHONPATH=. python benchmarks/markdown_path.py [--runs 5]

Inputs: every markdown document of the squad11, conditionalqa and hotpotqa dev sets. Each row is MB/s of the
documents' UTF-8 bytes over the process's CPU time (best of ``--runs`` passes; CPU time leaves out waits for a
core on a shared machine). Rows: each parser's block parse alone (markdown-it-py's tokens, markdown-it-pyrs's
tree); ``qatbe.segment`` and ``qatbe.extract`` (one question) with each parser, chosen by
``QATBE_MARKDOWN_PARSER``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable

import qatbe
from qatbe._backend import MARKDOWN_PARSER_ENV
from qatbe.bench.args import default_corpora
from qatbe.segmentation import markdown

SETS = ("squad11-dev", "conditionalqa-dev", "hotpotqa-distractor")
QUERY = "when did the crisis begin"


def documents() -> list[str]:
    out = []
    for name in SETS:
        path = default_corpora() / name / "documents.jsonl"
        if not path.exists():
            raise SystemExit(f"markdown_path.py: {path} not found (set QATBE_CORPORA)")
        for line in path.read_text("utf-8").splitlines():
            text = json.loads(line).get("markdown")
            if text:
                out.append(text)
    return out


def rate(docs: list[str], size: int, call: Callable[[str], object], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        for doc in docs:
            call(doc)
        best = min(best, time.process_time() - start)
    return size / 1e6 / best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    docs = documents()
    size = sum(len(d.encode("utf-8")) for d in docs)
    print(f"{len(docs)} documents, {size / 1e6:.2f} MB, load average {os.getloadavg()[0]:.2f}")
    pure = markdown._parser()
    rows: list[tuple[str, str, Callable[[str], object]]] = [
        ("block parse", "markdown-it-py", pure.parse),
        ("block parse", "markdown-it-pyrs", lambda d: markdown._pyrs().tree(d)),
    ]
    for parser_name in ("markdown-it-py", "markdown-it-pyrs"):
        rows.append(("segment", parser_name, lambda d: qatbe.segment(d, format="markdown")))
        rows.append(("extract", parser_name, lambda d: qatbe.extract(d, QUERY, format="markdown")))
    for step, parser_name, call in rows:
        if parser_name == "markdown-it-pyrs" and markdown._pyrs() is None:
            print(f"{step:16} {parser_name:18} not installed (pip install 'qatbe[fast-markdown]')")
            continue
        os.environ[MARKDOWN_PARSER_ENV] = parser_name
        print(f"{step:16} {parser_name:18} {rate(docs, size, call, args.runs):6.1f} MB/s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
