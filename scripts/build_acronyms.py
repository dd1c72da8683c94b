"""Build ``qatbe/data/acronyms-en.tsv`` from WordNet 3.0 plus a short list written for qatbe. Deterministic.

    apt-get install wordnet-base            # WordNet 3.0 database files in /usr/share/wordnet
    python scripts/build_acronyms.py         # writes the file
    python scripts/build_acronyms.py --check # exit 1 if the shipped file differs from a fresh build

From WordNet: a noun lemma of ``MIN_LETTERS``-6 letters whose synset also holds a multi-word lemma with matching
initials (the words' first letters, "and", "of", "the", ... skipped or not: "nasa" -> "national aeronautics and
space administration"), kept only when *every* sense of the short form is such an acronym ("pet", "ram" and
"doe" are ordinary words too) and it is no English stopword. Then ``WRITTEN``: acronyms of software and of
public services that WordNet lacks or spells otherwise. Lines are ``acronym<TAB>long form|long form``, sorted,
lower case.

WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. Used under the WordNet 3.0 licence
(permission to use, copy, modify and distribute for any purpose, with this notice); see qatbe/data/SYNONYMS.md.
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

WORDNET = Path("/usr/share/wordnet")
ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "qatbe" / "data" / "acronyms-en.tsv"
MIN_LETTERS = 3  # two-letter short forms from WordNet are mostly other words too ("ha", "ma", "nd")
FUNCTION_WORDS = frozenset({"a", "an", "and", "at", "by", "for", "in", "of", "on", "the", "to"})

# Written for qatbe (not from WordNet): acronyms a technical or public-service query uses either way.
WRITTEN = {
    "ai": "artificial intelligence", "api": "application programming interface", "cpu": "central processing unit",
    "css": "cascading style sheets", "dns": "domain name system", "faq": "frequently asked questions",
    "gpu": "graphics processing unit", "gui": "graphical user interface", "html": "hypertext markup language",
    "http": "hypertext transfer protocol", "ide": "integrated development environment", "ip": "internet protocol",
    "json": "javascript object notation", "llm": "large language model", "ml": "machine learning",
    "os": "operating system", "pdf": "portable document format", "ram": "random access memory",
    "sdk": "software development kit", "sql": "structured query language", "ssd": "solid state drive",
    "tcp": "transmission control protocol", "tls": "transport layer security", "ui": "user interface",
    "url": "uniform resource locator", "usb": "universal serial bus", "ux": "user experience",
    "vm": "virtual machine", "vpn": "virtual private network", "xml": "extensible markup language",
    "cli": "command line interface", "ci": "continuous integration", "nlp": "natural language processing",
    "rag": "retrieval augmented generation", "ssh": "secure shell", "ssl": "secure sockets layer",
    "eu": "european union", "uk": "united kingdom", "un": "united nations", "nhs": "national health service",
    "hmrc": "her majesty's revenue and customs", "dvla": "driver and vehicle licensing agency",
    "dwp": "department for work and pensions", "vat": "value added tax", "gdp": "gross domestic product",
    "ceo": "chief executive officer", "pin": "personal identification number", "gps": "global positioning system",
}


def _function_words() -> set[str]:
    raw = gzip.decompress((ROOT / "qatbe" / "data" / "lexicon-en.tsv.gz").read_bytes()).decode("utf-8")
    return {line.split("\t")[0] for line in raw.splitlines() if line.endswith("\ts")}


def _initials(words: list[str], skip: bool) -> str:
    return "".join(w[0] for w in words if w and not (skip and w in FUNCTION_WORDS))


def _matches(short: str, phrase: str) -> bool:
    words = phrase.replace("-", " ").split()
    return len(words) >= 2 and "." not in phrase and short in (_initials(words, False), _initials(words, True))


def build() -> str:
    stop = _function_words()
    synsets: dict[str, list[str]] = {}  # pos + offset -> lemmas (lower case, spaces)
    senses: dict[str, list[str]] = {}  # lemma -> its synsets, every part of speech
    for pos in ("noun", "verb", "adj", "adv"):
        with (WORDNET / f"data.{pos}").open(encoding="latin-1") as f:
            for line in f:
                if line.startswith("  "):
                    continue  # licence header
                parts = line.split()
                lemmas = [parts[4 + 2 * i].lower().replace("_", " ") for i in range(int(parts[3], 16))]
                key = pos + parts[0]
                synsets[key] = lemmas
                for lemma in dict.fromkeys(lemmas):
                    senses.setdefault(lemma, []).append(key)
    table: dict[str, list[str]] = {}
    for lemma, keys in senses.items():
        if not (MIN_LETTERS <= len(lemma) <= 6 and lemma.isalpha() and lemma.isascii()) or lemma in stop:
            continue
        longs = [[o for o in synsets[k] if _matches(lemma, o)] for k in keys]
        if all(longs) and all(k.startswith("noun") for k in keys):
            table[lemma] = list(dict.fromkeys(o for found in longs for o in found))
    for short, phrase in WRITTEN.items():
        table[short] = list(dict.fromkeys([phrase, *table.get(short, [])]))
    return "".join(f"{short}\t{'|'.join(longs)}\n" for short, longs in sorted(table.items()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    data = build()
    if args.check:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != data:
            print(f"stale: {OUT.name}", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(data, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
