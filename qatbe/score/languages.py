"""Per-language resources: Snowball stemmer, stopwords and background word frequencies, loaded lazily.

The lexicons (``qatbe/data/lexicon-<lang>.tsv.gz``) are built by ``scripts/build_lexicon.py`` from wordfreq
(frequencies) and stopwordsiso (stopwords). A language without a Snowball stemmer is analysed without stemming:
a wrong stemmer conflates unrelated words, no stemmer only misses some inflections.
"""

from __future__ import annotations

import gzip
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from itertools import compress, repeat
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import Stemmer

from .._backend import kernel
from .._sample import joined_sample

if TYPE_CHECKING:
    from .._core import StringTable

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
    ["ar", "bg", "ca", "cs", "da", "de", "el", "en", "es", "fa", "fi", "fr", "hi", "hu", "id", "it", "ja", "ko", "lt",
     "nb", "nl", "pl", "pt", "ro", "ru", "sv", "tr", "uk", "zh"]
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


@lru_cache(maxsize=256)
def normalize_code(language: str | None) -> str | None:
    """'en-GB', 'EN_us', 'en' -> 'en'; anything unrecognisable -> None (no language-specific processing).
    Memoised: the scorer asks it of every page's declared language, and pages declare few distinct ones."""
    if not language:
        return None
    head = re.split(r"[-_]", language.strip().lower(), maxsplit=1)[0]
    if not _CODE.fullmatch(head):
        return None
    return _ALIASES.get(head, head)


# A lexicon's zipf values as written (tenths) -> the value.
_TENTHS = {str(k): k / 10.0 for k in range(100)}
_VALUES = frozenset([*_TENTHS, "s"])


def lexicon(code: str | None) -> Lexicon:
    """The lexicon of a language code (``EMPTY`` for a code without one)."""
    if code is None or code not in LEXICONS:
        return EMPTY
    return _lexicon(code)


@cache  # one entry per code of LEXICONS at most: any other code never reaches it
def _lexicon(code: str) -> Lexicon:
    raw = resources.files("qatbe.data").joinpath(f"lexicon-{code}.tsv.gz").read_bytes()
    return parse_lexicon(gzip.decompress(raw).decode("utf-8"))


def parse_lexicon(text: str) -> Lexicon:
    """A lexicon file's ``word<TAB>zipf x 10`` and ``word<TAB>s`` (a stopword) lines; the first value of a word
    written twice counts, a line without a value is skipped.

    Why not a loop over the lines: a process loads each language's lexicon when it first scores a page in it
    (a crawl meets several languages), and ten thousand ``partition`` and ``int`` calls make that load slower
    than splitting the text into alternating words and values, which is done when there are as many tabs as
    lines and every value is a plain number below 100 or "s"; a file written otherwise is read line by
    line."""
    cells = text.replace("\t", "\n").split("\n")
    if text.endswith("\n"):
        cells.pop()  # the "" after the last newline
    values = cells[1::2]
    zipf: dict[str, float] = {}
    stop: set[str] = set()
    # As many tabs as lines, and every value a number or "s": one tab a line.
    if text.count("\t") * 2 == len(cells) and _VALUES.issuperset(values):
        pairs = zip(reversed(cells[0::2]), reversed(values))  # the last write of a word is its first line
    else:
        pairs = reversed([line.partition("\t")[::2] for line in text.splitlines()])  # type: ignore[assignment]
    for word, value in pairs:
        if value == "s":
            stop.add(word)
        elif value:
            zipf[word] = _TENTHS[value] if value in _TENTHS else int(value) / 10.0
    return Lexicon(zipf, frozenset(stop))


def stopwords(code: str | None) -> frozenset[str]:
    """Only the stopwords of a lexicon: language detection votes over 19 languages and must not build 19
    frequency tables to do it (building them all takes over a second)."""
    if code is None or code not in LEXICONS:
        return frozenset()
    return _stopwords(code)


@cache  # one entry per code of LEXICONS at most
def _stopwords(code: str) -> frozenset[str]:
    raw = resources.files("qatbe.data").joinpath(f"lexicon-{code}.tsv.gz").read_bytes()
    return stop_lines(gzip.decompress(raw))


def stop_lines(data: bytes) -> frozenset[str]:
    """The words of the lines ``word<TAB>s`` of a lexicon file (``word`` non-empty, without a tab; lines end at
    "\n"), wherever they are in it.

    Why not a regex over the whole text: a file lists its 10,000 frequent words first and its stopwords last
    (scripts/build_lexicon.py), and reading every line of every candidate's file would make a process's first
    language guess slow. No line before the first "\ts\n" can be a stopword line, so only the rest is
    decoded and read; the result is the same for any file (tests/test_languages.py)."""
    first = (data + b"\n").find(b"\ts\n")
    if first < 0:
        return frozenset()
    tail = data[data.rfind(b"\n", 0, first) + 1:].decode("utf-8")
    return frozenset(line[:-2] for line in tail.split("\n")
                     if line.endswith("\ts") and len(line) > 2 and "\t" not in line[:-2])


def stemmer(code: str | None) -> Stemmer.Stemmer | None:
    """One stemmer per language; PyStemmer objects are not thread-safe, so callers hold ``stem_lock``.

    Made without PyStemmer's own cache (size 0): the analyser memoises every word it stems and never asks the
    stemmer for a word twice until its memo starts afresh, the case PyStemmer's documentation says the cache
    "can severely damage" (it costs each new word a cache entry and, once full, a purge): with it a new word
    costs about three times as much to stem in a ``stemWords`` call (benchmarks/NOTES.md)."""
    name = STEMMERS.get(code or "")
    return _stemmer(name) if name else None


@cache  # one entry per algorithm of STEMMERS at most
def _stemmer(name: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(name, 0)


def stem_lock() -> threading.Lock:
    return _lock


# Script ranges, checked in this order by ``detect`` (code points of the sample in each range).
_SCRIPTS = ("zh", "ja", "ko", "cyr", "el", "ar")
_SCRIPT_RANGES = np.array([[0x4E00, 0x9FFF], [0x3040, 0x30FF], [0xAC00, 0xD7AF], [0x0400, 0x04FF],
                           [0x0370, 0x03FF], [0x0600, 0x06FF]], dtype=np.int64)
_LATIN_CANDIDATES = ("en", "de", "fr", "es", "it", "pt", "nl", "sv", "da", "nb", "fi", "pl", "cs", "ro", "hu",
                     "tr", "ca", "id", "lt")
# Bulgarian has no stemmer here, but its stopwords keep its pages from being voted Russian (and given the
# Russian stemmer).
_CYRILLIC_CANDIDATES = ("ru", "uk", "bg")
SAMPLE_CHARS = 20000
SAMPLE_WORDS = 3000


_CANDIDATES = _LATIN_CANDIDATES + _CYRILLIC_CANDIDATES
_LATIN = slice(0, len(_LATIN_CANDIDATES))
_CYRILLIC = slice(len(_LATIN_CANDIDATES), len(_CANDIDATES))



@cache
def _stop_classes() -> tuple[dict[str, int], npt.NDArray[np.float64], StringTable]:
    """The candidates' stopwords grouped by which candidates list them: word -> class (1..C); a (C + 1) x
    candidates 0/1 matrix (row 0: not a stopword); and the all-ASCII stopwords as a compiled string table, so
    that the kernel counts the classes of a sample's ASCII words itself. One lookup per word of the sample then
    votes for every candidate at once (19 set intersections per page cost more than the rest of the scoring)."""
    masks: dict[str, int] = {}
    for i, code in enumerate(_CANDIDATES):
        for word in sorted(stopwords(code)):
            masks[word] = masks.get(word, 0) | (1 << i)
    classes = {m: c for c, m in enumerate(sorted(set(masks.values())), start=1)}
    matrix = np.zeros((len(classes) + 1, len(_CANDIDATES)), dtype=np.float64)
    for m, c in classes.items():
        matrix[c] = [(m >> i) & 1 for i in range(len(_CANDIDATES))]
    index = {w: classes[m] for w, m in masks.items()}
    ascii_words = [w for w in index if w.isascii()]
    table = kernel.string_table(ascii_words, [index[w] for w in ascii_words])
    return index, matrix, table


@cache
def _vote_matrix() -> npt.NDArray[np.int64]:
    """The class x candidate matrix of ``_stop_classes`` as int64 (the kernel tallies the votes in integers)."""
    return np.ascontiguousarray(_stop_classes()[1].astype(np.int64))


def detect(sample: str) -> str | None:
    """A cheap language guess from a text sample: script first, then stopword hits for Latin/Cyrillic scripts.

    Reads the first ``SAMPLE_CHARS`` code points; the stopword vote counts the first ``SAMPLE_WORDS`` letter runs,
    case-folded. Returns None when unsure (fewer than 3 stopword hits or no clear winner): the caller then skips
    stemming. Why not a statistical detector: no well-kept one ships as a small wheel without model downloads, and
    the stopword vote is right on the prose that matters for ranking (it is only asked about pages without a
    declared language). The one pass over the text is compiled (``sample_runs``).
    """
    return detect_texts((sample,), (True,), 0)


# The sample is read in two steps: its first EARLY_SAMPLE characters, then the whole sample only when those
# leave the vote open. A page whose first characters hold no other script and give one language
# EARLY_MIN_VOTES stopword hits and EARLY_LEAD x the runner-up's is that language: the rest of the sample
# would have to be another language to overturn such a lead. EARLY_LEAD is high enough that the early guess
# agrees with the whole sample's on every dev document: at 2x it would not (an English Wikipedia page whose
# table of Italian names makes the whole sample a near-tie, en 92 and it 74, so no guess, has a 3.5x lead in
# its first 2,000 characters). At 4x most dev pages still settle early.
EARLY_SAMPLE = 2000
EARLY_MIN_VOTES = 10
EARLY_LEAD = 4.0

# The kernel's tally of a sample: code points per script range, letters, letter runs, the votes of its all-ASCII
# runs per candidate, and its other runs (distinct, as written) with their counts.
_Tally = tuple[list[int], int, int, list[int], list[str], list[int]]


def detect_texts(texts: Sequence[str], use: Sequence[object], min_chars: int) -> str | None:
    """``detect`` of the sample the page's texts make: the ``use``d ones, in order, up to and including the first
    that takes their total length past ``min_chars``, joined by spaces -- read in place, never joined; its first
    ``EARLY_SAMPLE`` characters first, which settle most pages (see ``EARLY_SAMPLE``). A sample in Arabic script
    is then told Arabic, Persian or Urdu by its letters (``arabic_script``)."""
    code = _detect_texts(texts, use, min_chars)
    if code == "ar":
        return arabic_script(_sample_text(texts, use, min_chars))
    if code in _CYRILLIC_CANDIDATES and other_cyrillic(_sample_text(texts, use, min_chars)):
        return None
    return code


# Cyrillic letters that Russian, Ukrainian and Bulgarian do not write: Serbian's and Macedonian's je, lje, nje, dzhe,
# tshe, dje, gje, kje, dze, and Belarusian's short u. Why: Serbian and Macedonian pages share enough stopwords with
# Russian to be voted Russian, which would give them the Russian stemmer; with these letters they get none.
OTHER_CYRILLIC_LETTERS = "\u0458\u0459\u045a\u045f\u045b\u0452\u0453\u045c\u0455\u045e" \
    "\u0408\u0409\u040a\u040f\u040b\u0402\u0403\u040c\u0405\u040e"


_OTHER_CYRILLIC = re.compile(f"[{OTHER_CYRILLIC_LETTERS}]")


def other_cyrillic(sample: str) -> bool:
    """Whether a Cyrillic sample is in a language the vote has no candidate for: at least 3 of
    ``OTHER_CYRILLIC_LETTERS``, and at least a twentieth as many as it has of о and а (in Serbian they are about a
    tenth; a Russian page that names one Serbian town has one or two). Why one regex pass: every Cyrillic page
    without a declared language asks, and one pass over its 8,000-character sample is cheaper than a
    ``str.count`` pass per letter."""
    other = len(_OTHER_CYRILLIC.findall(sample))
    return other >= 3 and other * 20 >= sum(map(sample.count, "\u043e\u0430\u041e\u0410"))


# Letters that tell apart the languages written in Arabic script. Persian and Urdu write keheh and Farsi yeh where
# Arabic writes kaf and yeh, and have letters Arabic lacks (pe, che, zhe, gaf); Arabic alone has teh marbuta
# in common use; Urdu alone has tteh, ddal, rreh, noon ghunna, heh goal and yeh barree; Kurdish, Pashto,
# Sindhi and Uyghur have letters of their own that neither Persian nor Urdu uses (ae, oe, rreh with v, veh,
# tteh with ring, zhe with ring, sheen with dot, gaf with ring, e, yeh with tail, u, yu, ve...). Why: without
# them every page in Arabic script would be Arabic, and the Arabic stemmer would cut Persian and Urdu words --
# the wrong stemmer, where no stemmer is the rule.
ARABIC_LETTERS = "\u064a\u0643\u0629"
PERSIAN_URDU_LETTERS = "\u067e\u0686\u0698\u06af\u06a9\u06cc"
URDU_LETTERS = "\u0679\u0688\u0691\u06ba\u06c1\u06d2"
OTHER_LETTERS = ("\u06d5\u06c6\u06ce\u06b5\u0695\u06a4\u067c\u0689\u0693\u0696\u069a\u06ab\u0681\u0685"
                 "\u06d0\u06cd\u06c7\u06c8\u06cb")


def arabic_script(sample: str) -> str | None:
    """"ar", "fa", "ur" or None for a sample in Arabic script: Arabic unless the letters of Persian and Urdu (and of
    the script's other languages) outnumber Arabic's own; then None when the other languages' letters are a tenth
    of them or more (no stemmer of ours fits), Urdu when its own are, else Persian. ("ur" has no stemmer and no
    lexicon: its words are only folded.)"""
    arabic = sum(map(sample.count, ARABIC_LETTERS))
    shared = sum(map(sample.count, PERSIAN_URDU_LETTERS))
    urdu = sum(map(sample.count, URDU_LETTERS))
    other = sum(map(sample.count, OTHER_LETTERS))
    if shared + urdu + other <= arabic:
        return "ar"
    if other * 10 >= shared + urdu + other:
        return None
    return "ur" if urdu * 10 >= shared + urdu else "fa"


def _sample_text(texts: Sequence[str], use: Sequence[object], min_chars: int) -> str:
    """The sample ``detect_texts`` reads, joined: only for a page voted Arabic or Cyrillic, whose letters are then
    counted (``arabic_script``, ``other_cyrillic``)."""
    return joined_sample(texts, use, min_chars, SAMPLE_CHARS)


def _detect_texts(texts: Sequence[str], use: Sequence[object], min_chars: int) -> str | None:
    if min_chars > EARLY_SAMPLE:
        early = _tally(texts, use, EARLY_SAMPLE)
        totals = _settled(early)
        if totals is not None:
            return _decide(early, totals)
        # A page whose used texts hold no more than EARLY_SAMPLE characters in all gave the early sample every
        # one of them: the whole sample is the same texts, and reading them again would give the same tally.
        if sum(map(len, compress(texts, use))) <= EARLY_SAMPLE:
            return _decide(early)
    return _decide(_tally(texts, use, min_chars))


def _tally(texts: Sequence[str], use: Sequence[object], min_chars: int) -> _Tally:
    table = _stop_classes()[2]
    return kernel.sample_votes(  # type: ignore[no-any-return]
        texts, use, min_chars, SAMPLE_CHARS, _SCRIPT_RANGES, SAMPLE_WORDS, table, _vote_matrix())


def _totals(tally: _Tally) -> list[int]:
    """The stopword votes per candidate of all runs: the kernel's, plus those of the runs with non-ASCII letters
    (Python's full case folding, then the same classes; integer votes). Only asked once no script has decided:
    a Chinese page's runs are all non-ASCII."""
    totals, words, counts = tally[3], tally[4], tally[5]
    if not words:
        return totals
    classes = list(map(_stop_classes()[0].get, map(str.casefold, words), repeat(0)))
    if not any(classes):  # most such runs are names ("Zoë", "Müller"), not stopwords
        return totals
    # Only the stopword runs vote, each for the candidates of its class: a few additions, cheaper than numpy's
    # fromiter, bincount and matrix product for the few such runs a page has.
    out = list(totals)
    voters = _class_voters()
    for cls, count in compress(zip(classes, counts), classes):
        for c in voters[cls]:
            out[c] += count
    return out


def guesser_tables() -> None:
    """Build the language guesser's tables now (``analyze.preload``): otherwise the first page without a declared
    language builds them."""
    _vote_matrix()
    _class_voters()


@cache
def _class_voters() -> tuple[tuple[int, ...], ...]:
    """Per stopword class (``_stop_classes``), the candidates it votes for: the 1s of its matrix row."""
    return tuple(tuple(c for c, x in enumerate(row) if x) for row in _vote_matrix().tolist())


# Candidates whose stopword lists are nearly one list: Danish and Norwegian Bokmål share most function words
# ("og", "i", "det", "er", "ikke"), so a page's votes barely separate them. Each is judged against the other
# languages, and between the two the higher count wins (a tie decides nothing). Why: with both judged like any
# other pair, a Norwegian page is a near-tie with Danish under the 1.3x lead rule and gets no stemming at all
# (as the Norwegian paragraph of tests/test_languages.py would).
_SIBLINGS = {"da": "nb", "nb": "da"}


def _lead(totals: list[int], candidates: Sequence[str]) -> tuple[int, int, int]:
    """(index of the best total, the best total, the runner-up's: the best of the others, the best's sibling
    counting only when it ties the best)."""
    best = max(totals)
    at = totals.index(best)
    sibling = _SIBLINGS.get(candidates[at])
    return at, best, max((t for i, t in enumerate(totals) if i != at and (t == best or candidates[i] != sibling)),
                         default=0)


def _settled(tally: _Tally) -> list[int] | None:
    """The vote totals of an early sample that decides the page (no other script in it, a clear lead among the
    Latin candidates), or None. The totals go on to ``_decide``, so that the votes of the sample's non-ASCII runs
    are folded once, not twice."""
    in_range, runs = tally[0], tally[2]
    if not runs or any(in_range):
        return None
    totals = _totals(tally)
    _, best, runner_up = _lead(totals[_LATIN], _LATIN_CANDIDATES)
    return totals if best >= EARLY_MIN_VOTES and best >= EARLY_LEAD * runner_up else None


def _decide(tally: _Tally, totals: list[int] | None = None) -> str | None:
    """The page's language from a tally (``totals``: its ``_totals`` when already summed)."""
    in_range, letters, runs = tally[0], tally[1], tally[2]
    zh, ja, ko, cyr, el, ar = in_range  # the order of _SCRIPTS
    letters = max(1, letters)
    if ja > 0.05 * letters:
        return "ja"
    if zh > 0.2 * letters:
        return "zh"
    if ko > 0.2 * letters:
        return "ko"
    if el > 0.3 * letters:
        return "el"
    if ar > 0.3 * letters:
        return "ar"
    if not runs:
        return None
    # A page mostly in Cyrillic letters is voted among the Cyrillic candidates, one mostly in others among the
    # Latin ones, and one in between among all of them: an English page whose reference titles are Bulgarian (30 %
    # of its letters) is English, its English stopwords outvoting theirs two to one.
    part = _CYRILLIC if cyr > 0.5 * letters else _LATIN if cyr <= 0.3 * letters else slice(None)
    candidates = _CANDIDATES[part]
    # The best total wins when it is at least 3 and 1.3 x the runner-up's (a tie for the best never wins).
    at, best, runner_up = _lead((_totals(tally) if totals is None else totals)[part], candidates)
    if best < 3 or best < 1.3 * runner_up:
        return None
    return candidates[at]
