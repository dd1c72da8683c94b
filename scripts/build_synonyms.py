"""Build ``qatbe/data/synonyms-en.tsv.gz`` from WordNet 3.0 plus a short list of technical acronyms. Deterministic.

    apt-get install wordnet-base            # WordNet 3.0 database files in /usr/share/wordnet
    python scripts/build_synonyms.py         # writes the file
    python scripts/build_synonyms.py --check # exit 1 if the shipped file differs from a fresh build

Kept from WordNet, to stay compact and avoid rare senses: for every single-word lemma among the English
lexicon's frequent words (``qatbe/data/lexicon-en.tsv.gz``), the other single-word lemmas of its *most frequent*
sense in each part of speech (WordNet orders senses by tagged frequency, and we require that sense to be tagged
at least once), that are also frequent words; at most ``MAX_SYNONYMS`` per word. Acronyms: a lemma of 2-6 letters
(most frequent sense, tagged or not) whose synset holds a multi-word lemma with matching initials ("nato" ->
"north atlantic treaty organization"). Synonyms of one or two letters and stopwords are left out.
Output lines are ``word<TAB>synonym|synonym``, sorted; gzip with mtime=0, so the bytes depend on the inputs only.

WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. Used under the WordNet 3.0 licence
(permission to use, copy, modify and distribute for any purpose, with this notice); see qatbe/data/SYNONYMS.md.
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

from reproducible import gzip_lines

WORDNET = Path("/usr/share/wordnet")
ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "qatbe" / "data" / "synonyms-en.tsv.gz"
MAX_SYNONYMS = 4
FREQUENT = 10_000  # the whole English lexicon (its 10,000 most frequent words)
POS = ("noun", "verb", "adj", "adv")

# Written for qatbe (not from WordNet): acronyms a technical query uses either way.
TECH_ACRONYMS = {
    "ai": "artificial intelligence", "api": "application programming interface", "cpu": "central processing unit",
    "css": "cascading style sheets", "db": "database", "dns": "domain name system", "faq": "frequently asked questions",
    "gpu": "graphics processing unit", "gui": "graphical user interface", "html": "hypertext markup language",
    "http": "hypertext transfer protocol", "id": "identifier", "ide": "integrated development environment",
    "ip": "internet protocol", "json": "javascript object notation", "llm": "large language model",
    "ml": "machine learning", "os": "operating system", "pdf": "portable document format", "ram": "random access memory",
    "sdk": "software development kit", "sql": "structured query language", "ssd": "solid state drive",
    "tcp": "transmission control protocol", "tls": "transport layer security", "ui": "user interface",
    "url": "uniform resource locator", "usb": "universal serial bus", "ux": "user experience",
    "vm": "virtual machine", "vpn": "virtual private network", "xml": "extensible markup language",
}


def _frequent() -> tuple[set[str], set[str]]:
    """The English lexicon's frequent words, and its stopwords (never useful as synonyms)."""
    raw = gzip.decompress((ROOT / "qatbe" / "data" / "lexicon-en.tsv.gz").read_bytes()).decode("utf-8")
    words = [line.split("\t")[0] for line in raw.splitlines() if not line.endswith("\ts")]
    stop = {line.split("\t")[0] for line in raw.splitlines() if line.endswith("\ts")}
    return set(words[:FREQUENT]), stop


def _synsets(pos: str) -> dict[str, list[str]]:
    """synset offset -> its lemmas (lower case, '_' -> ' '), in WordNet's order."""
    out: dict[str, list[str]] = {}
    with (WORDNET / f"data.{pos}").open(encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue  # licence header
            parts = line.split()
            n = int(parts[3], 16)
            out[parts[0]] = [parts[4 + 2 * i].lower().replace("_", " ") for i in range(n)]
    return out


def _first_senses(pos: str) -> dict[str, tuple[str, bool]]:
    """lemma -> (offset of its most frequent sense, whether that sense is tagged in the corpus at least once)."""
    out: dict[str, tuple[str, bool]] = {}
    with (WORDNET / f"index.{pos}").open(encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            parts = line.split()
            lemma, synset_cnt, p_cnt = parts[0], int(parts[2]), int(parts[3])
            tagsense_cnt = int(parts[5 + p_cnt])
            offsets = parts[6 + p_cnt : 6 + p_cnt + synset_cnt]
            if offsets:
                out[lemma.replace("_", " ")] = (offsets[0], tagsense_cnt > 0)
    return out


def _initials(phrase: str) -> str:
    return "".join(w[0] for w in phrase.split() if w)


def build() -> bytes:
    frequent, stop = _frequent()
    table: dict[str, list[str]] = {}

    def add(word: str, syn: str) -> None:
        syns = table.setdefault(word, [])
        if syn != word and syn not in syns and len(syns) < MAX_SYNONYMS:
            syns.append(syn)

    for pos in POS:
        synsets = _synsets(pos)
        for lemma, (offset, tagged) in sorted(_first_senses(pos).items()):
            if " " in lemma:
                continue
            for other in synsets.get(offset, []):
                if other == lemma:
                    continue
                if (" " not in other and tagged and lemma in frequent and other in frequent and other.isalpha()
                        and len(other) > 2 and other not in stop) or " " in other and 2 <= len(lemma) <= 6 and lemma.isalpha() and _initials(other) == lemma:
                    add(lemma, other)
    for acronym, phrase in TECH_ACRONYMS.items():
        add(acronym, phrase)
    lines = [f"{w}\t{'|'.join(s)}" for w, s in sorted(table.items()) if s]
    return gzip_lines(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    data = build()
    if args.check:
        if not OUT.exists() or OUT.read_bytes() != data:
            print(f"stale: {OUT.name}", file=sys.stderr)
            return 1
        return 0
    OUT.write_bytes(data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
