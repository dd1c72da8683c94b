"""One page, many questions: what parsing once saves, on the dev documents that have five questions or more.

    PYTHONPATH=. python benchmarks/many_questions.py [--questions 5] [--budget 1000] [--repeat 3]

For every document of the four dev QA sets with at least ``--questions`` answerable questions, its first ones are
asked two ways: ``ex.extract(source, q)`` per question (the page parsed every time), and ``doc = ex.parse(source)``
once, then ``ex.extract(doc, q)`` per question. Printed: the total of each (the fastest of ``--repeat`` rounds,
after one round that fills the term memo) and their ratio; every result of the second way is checked to be the
first's (text and scores). Why: the README quotes this ratio, and the parsed document now also keeps what scoring
reads of the page for any question (``PageView``), so its second question skips the page's scan and language guess.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict

from retention_quick import CORPORA, load

import qatbe


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=int, default=5, help="questions per document (documents with fewer are left out)")
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    if not CORPORA.is_dir():
        print(f"no corpora at {CORPORA} (they live in ../shared/corpora)", file=sys.stderr)
        return 2
    if args.questions < 1 or args.repeat < 1:
        ap.error("--questions and --repeat must be at least 1")
    asked: dict[str, list[str]] = defaultdict(list)
    for name in ("squad", "cqa", "hotpot", "wtq"):
        for source, query, _, _ in load(name):
            asked[source].append(query)
    work = [(source, queries[:args.questions]) for source, queries in asked.items() if len(queries) >= args.questions]
    if not work:
        print(f"no document has {args.questions} questions", file=sys.stderr)
        return 1
    ex = qatbe.Extractor(budget=args.budget)

    def each_parsed() -> list[qatbe.Result]:
        return [ex.extract(source, q) for source, queries in work for q in queries]

    def parsed_once() -> list[qatbe.Result]:
        out = []
        for source, queries in work:
            doc = ex.parse(source)
            out += [ex.extract(doc, q) for q in queries]
        return out

    times: dict[str, float] = {}
    results = {}
    for label, run in (("each", each_parsed), ("once", parsed_once)):
        results[label] = run()  # fills the term memo: every round after it reads known words
        best = float("inf")
        for _ in range(args.repeat):
            started = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - started)
        times[label] = best
    same = all(a.text == b.text and [s.score for s in a.segments] == [s.score for s in b.segments]
               for a, b in zip(results["each"], results["once"]))
    print(f"{len(work)} documents x {args.questions} questions, budget {args.budget}: parsed for every question "
          f"{times['each']:.3f} s, parsed once {times['once']:.3f} s ({times['each'] / times['once']:.2f}x); "
          f"results {'the same' if same else 'DIFFER'}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
