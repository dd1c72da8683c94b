"""How much of a small budget goes to fragments: chosen segments of fewer than 4 words that are not headings
("[CTA_MODULE]", "$7,000", a lone zero-width joiner), on real pages with their title as the query.

    PYTHONPATH=. python benchmarks/fragments.py [--budget 200] [--inherit-words 0,4]

Why: answer retention does not see them (a fragment costs a few tokens and rarely pushes an answer out), but a
reader does. The pages are ``qatbe bench speed``'s (scrapinghub-aeb and wcxb under ../shared/corpora) and so is
the query; ``--inherit-words`` compares values of ``Scoring.inherit_words`` in one run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import qatbe
from qatbe.bench import speed

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=200)
    parser.add_argument("--inherit-words", default=str(qatbe.Scoring().inherit_words))
    args = parser.parse_args()
    folders = [CORPORA / sub for sub in speed.PAGE_SETS if (CORPORA / sub).is_dir()]
    if not folders:
        raise SystemExit(f"no pages under {CORPORA}")
    pages = speed.read_pages(folders)
    for words in (float(x) for x in args.inherit_words.split(",")):
        chosen = fragments = fragment_tokens = tokens = pages_with = 0
        for page in pages:
            result = qatbe.extract(page.html, page.query, budget=args.budget, scoring={"inherit_words": words})
            short = [s for s in result.segments if len(s.text.split()) < 4 and s.kind is not qatbe.SegmentKind.HEADING]
            chosen += len(result.segments)
            fragments += len(short)
            fragment_tokens += sum(s.tokens for s in short)
            tokens += result.total_tokens
            pages_with += bool(short)
        print(f"inherit_words={words:g}: fragments {fragments} of {chosen} chosen segments "
              f"({fragments / max(1, chosen):.1%}), {fragment_tokens} of {tokens} tokens; "
              f"pages with any {pages_with} of {len(pages)}")


if __name__ == "__main__":
    main()
