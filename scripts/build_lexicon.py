"""Build the per-language lexicons shipped in ``qatbe/data/lexicon-<lang>.tsv.gz``. Deterministic.

    pip install wordfreq==3.1.1 stopwordsiso==0.7.1
    python scripts/build_lexicon.py            # writes the files
    python scripts/build_lexicon.py --check    # exit 1 if the shipped files differ from a fresh build
    python scripts/build_lexicon.py --check --only en,de

Each file lists the language's ``TOP_N`` most frequent words (wordfreq's "best" list) as ``word<TAB>zipf*10``,
most frequent first, and then the stopwords as ``word<TAB>s`` lines. The frequencies are the background prior of
the scorer (a page is too small a collection for reliable document frequencies). The stopwords are stopwordsiso's
list for the language cut to the words that are also among its ``STOP_TOP`` most frequent ones: the full lists
also hold content words ("first", "computer", "area") whose loss would hurt question answering, while the
frequent core is function words.

Licences: wordfreq's data is CC BY-SA 4.0 (code Apache-2.0), stopwordsiso is MIT; see qatbe/data/LEXICON.md.
The gzip header carries no timestamp or name (mtime=0), so the bytes depend on the inputs only.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from reproducible import gzip_lines

LANGUAGES = (
    "ar", "bg", "ca", "cs", "da", "de", "el", "en", "es", "fa", "fi", "fr", "hi", "hu", "id", "it", "ja", "ko", "lt",
    "nb", "nl", "pl", "pt", "ro", "ru", "sv", "tr", "uk", "zh",
)
TOP_N = 10_000
STOP_TOP = 120
# stopwordsiso lists Norwegian Bokmål under the macrolanguage's code; without this the nb lexicon had no
# stopwords, so language detection could never pick Norwegian and its pages' stopwords were scored as terms.
STOPWORD_CODES = {"nb": "no"}
OUT = Path(__file__).resolve().parents[1] / "qatbe" / "data"


def build(lang: str) -> bytes:
    import stopwordsiso
    import wordfreq

    freqs = wordfreq.get_frequency_dict(lang, wordlist="best")
    ranked = sorted(((f, w) for w, f in freqs.items() if "\t" not in w and "\n" not in w), key=lambda x: (-x[0], x[1]))
    words = [w for _, w in ranked[:TOP_N]]
    # zipf = log10(frequency per billion words); one decimal is all the prior needs.
    lines = [f"{w}\t{round((math.log10(f) + 9) * 10)}" for f, w in ranked[:TOP_N]]
    frequent = set(words[:STOP_TOP])
    iso_lang = STOPWORD_CODES.get(lang, lang)
    iso = stopwordsiso.stopwords(iso_lang) if stopwordsiso.has_lang(iso_lang) else set()
    for w in sorted(iso & frequent):
        lines.append(f"{w}\ts")
    return gzip_lines(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--only", default="", help="comma-separated language codes (default: all)")
    args = ap.parse_args(argv)
    stale = []
    for lang in args.only.split(",") if args.only else LANGUAGES:
        data = build(lang)
        path = OUT / f"lexicon-{lang}.tsv.gz"
        if args.check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(path.name)
        else:
            path.write_bytes(data)
    if stale:
        print("stale lexicons: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
