"""Per-language resources: Snowball stemmer, stopwords and background word frequencies, loaded lazily.

The lexicons (``qatbe/data/lexicon-<lang>.tsv.gz``) are built by ``scripts/build_lexicon.py`` from wordfreq
(frequencies) and stopwordsiso (stopwords). A language without a Snowball stemmer is analysed without stemming:
a wrong stemmer conflates unrelated words, no stemmer only misses some inflections.
"""

from __future__ import annotations

import gzip
import re
import threading
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib import resources

import Stemmer

# ISO 639-1 -> PyStemmer algorithm.
STEMMERS: dict[str, str] = {
    "ar": "arabic", "ca": "catalan", "cs": "czech", "da": "danish", "de": "german", "el": "greek",
    "en": "english", "es": "spanish", "fi": "finnish", "fr": "french", "hu": "hungarian", "id": "indonesian",
    "it": "italian", "lt": "lithuanian", "nb": "norwegian", "no": "norwegian", "nl": "dutch", "pl": "polish",
    "pt": "portuguese", "ro": "romanian", "ru": "russian", "sv": "swedish", "tr": "turkish", "hy": "armenian",
    "eu": "basque", "ga": "irish", "hi": "hindi", "ne": "nepali", "sr": "serbian", "ta": "tamil", "fa": "persian",
    "et": "estonian", "yi": "yiddish",
}
LEXICONS = frozenset(
    ["ar", "ca", "cs", "da", "de", "el", "en", "es", "fi", "fr", "hu", "id", "it", "ja", "ko", "lt", "nb", "nl",
     "pl", "pt", "ro", "ru", "sv", "tr", "uk", "zh"]
)
_ALIASES = {"no": "nb", "nn": "nb", "iw": "he", "in": "id"}
_CODE = re.compile(r"[a-z]{2,3}")

_lock = threading.Lock()


@dataclass(frozen=True)
class Lexicon:
    """Background zipf frequencies (log10 per billion words) and stopwords of one language."""

    zipf: dict[str, float]
    stopwords: frozenset[str]


EMPTY = Lexicon({}, frozenset())


def normalize_code(language: str | None) -> str | None:
    """'en-GB', 'EN_us', 'en' -> 'en'; anything unrecognisable -> None (no language-specific processing)."""
    if not language:
        return None
    head = re.split(r"[-_]", language.strip().lower(), maxsplit=1)[0]
    if not _CODE.fullmatch(head):
        return None
    return _ALIASES.get(head, head)


@cache
def lexicon(code: str | None) -> Lexicon:
    if code is None or code not in LEXICONS:
        return EMPTY
    raw = resources.files("qatbe.data").joinpath(f"lexicon-{code}.tsv.gz").read_bytes()
    zipf: dict[str, float] = {}
    stop: set[str] = set()
    for line in gzip.decompress(raw).decode("utf-8").splitlines():
        word, _, value = line.partition("\t")
        if value == "s":
            stop.add(word)
        elif value:
            zipf.setdefault(word, int(value) / 10.0)
    return Lexicon(zipf, frozenset(stop))


_STOP_LINE = re.compile(r"^([^\t\n]+)\ts$", re.MULTILINE)


@cache
def stopwords(code: str | None) -> frozenset[str]:
    """Only the stopwords of a lexicon: language detection votes over 19 languages and must not build 19
    frequency tables to do it (that cost ~1.5 s on the first call)."""
    if code is None or code not in LEXICONS:
        return frozenset()
    raw = resources.files("qatbe.data").joinpath(f"lexicon-{code}.tsv.gz").read_bytes()
    return frozenset(_STOP_LINE.findall(gzip.decompress(raw).decode("utf-8")))


@cache
def stemmer(code: str | None) -> Stemmer.Stemmer | None:
    """One stemmer per language; PyStemmer objects are not thread-safe, so callers hold ``stem_lock``."""
    name = STEMMERS.get(code or "")
    return Stemmer.Stemmer(name) if name else None


def stem_lock() -> threading.Lock:
    return _lock


_SCRIPTS = (
    ("zh", re.compile(r"[\u4e00-\u9fff]")),
    ("ja", re.compile(r"[\u3040-\u30ff]")),
    ("ko", re.compile(r"[\uac00-\ud7af]")),
    ("cyr", re.compile(r"[\u0400-\u04ff]")),
    ("el", re.compile(r"[\u0370-\u03ff]")),
    ("ar", re.compile(r"[\u0600-\u06ff]")),
)
_LATIN_CANDIDATES = ("en", "de", "fr", "es", "it", "pt", "nl", "sv", "da", "nb", "fi", "pl", "cs", "ro", "hu",
                     "tr", "ca", "id", "lt")
_WORD = re.compile(r"[^\W\d_]+")


def detect(sample: str) -> str | None:
    """A cheap language guess from a text sample: script first, then stopword hits for Latin/Cyrillic scripts.

    Returns None when unsure (fewer than 3 stopword hits or no clear winner): the caller then skips stemming.
    Why not a statistical detector: no well-kept one ships as a small wheel without model downloads, and the
    stopword vote is right on the prose that matters for ranking (it is only asked about pages without a
    declared language).
    """
    sample = sample[:20000]
    counts = {name: len(rx.findall(sample)) for name, rx in _SCRIPTS}
    found = _WORD.findall(sample)
    letters = max(1, sum(map(len, found)))
    if counts["ja"] > 0.05 * letters:
        return "ja"
    if counts["zh"] > 0.2 * letters:
        return "zh"
    if counts["ko"] > 0.2 * letters:
        return "ko"
    if counts["el"] > 0.3 * letters:
        return "el"
    if counts["ar"] > 0.3 * letters:
        return "ar"
    words = Counter(w.casefold() for w in found[:3000])
    if not words:
        return None
    candidates = ("ru", "uk") if counts["cyr"] > 0.3 * letters else _LATIN_CANDIDATES
    # Count each distinct word once, then look up only the words a stoplist has (a page repeats its words a lot).
    hits = sorted(((sum(words[w] for w in words.keys() & stopwords(c)), c) for c in candidates),
                  reverse=True)
    best, code = hits[0]
    runner_up = hits[1][0] if len(hits) > 1 else 0
    if best < 3 or best < 1.3 * runner_up:
        return None
    return code
