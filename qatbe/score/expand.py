"""Query expansion: synonyms and acronyms from the shipped WordNet table, plus the caller's own synonyms.

Expanded terms get a lower weight than the words the user typed (``EXPANSION_WEIGHT`` x the source word's
weight): a synonym is evidence that a segment is about the same thing, not proof. The table
(``qatbe/data/synonyms-en.tsv.gz``, built by ``scripts/build_synonyms.py``) is English and loaded on first use.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from importlib import resources

from .analyze import Analyzer, raw_terms

EXPANSION_WEIGHT = 0.4

# British and American spellings of one word (suffix rewrites, both directions). Written out here rather than
# taken from a word list: the rules are few, and a variant that no segment contains costs one unused slot.
_SPELLING = (("our", "or"), ("or", "our"), ("ise", "ize"), ("ize", "ise"), ("ised", "ized"), ("ized", "ised"),
             ("ising", "izing"), ("izing", "ising"), ("isation", "ization"), ("ization", "isation"),
             ("yse", "yze"), ("yze", "yse"), ("ence", "ense"), ("ense", "ence"), ("tre", "ter"), ("ter", "tre"),
             ("ours", "ors"), ("ors", "ours"), ("oured", "ored"), ("ored", "oured"), ("ogue", "og"),
             ("lled", "led"), ("lling", "ling"))
_SPELLING_MIN = 5
_SPELLING_ENDS = tuple(dict.fromkeys(old for old, _ in _SPELLING))  # one endswith call rejects most words


def spelling_variants(surface: str) -> list[str]:
    """The other English spellings of a word ("honored" -> "honoured", "licence" -> "license").

    Why: GOV.UK pages say "honours" and "licence", people ask about "honors" and "license"; the stemmer keeps
    the two spellings apart. Only words of at least ``_SPELLING_MIN`` letters are rewritten.
    """
    if (len(surface) < _SPELLING_MIN or not surface.endswith(_SPELLING_ENDS) or not surface.isalpha()
            or not surface.isascii()):
        return []
    out = []
    for old, new in _SPELLING:
        if surface.endswith(old) and len(surface) - len(old) >= 3:
            variant = surface[: len(surface) - len(old)] + new
            if variant not in out:
                out.append(variant)
    return out


# Numbers written in words and in digits ("round eight" / "round 8", "eighth" / "8th"): the same word, spelt
# two ways, like "licence" and "license". Only up to twenty and the tens, the numbers people write out in
# words; the tokenizer keeps "8th" whole. The other writing weighs NUMBER_WEIGHT x the word's weight: unlike a
# spelling, a number word is also an ordinary word ("four books" on a page about season 4), and at full weight
# such matches push answers out of a small budget; at half weight "round 8" still finds the heading "Round
# eight".
NUMBER_WEIGHT = 0.5
_CARDINALS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
              "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
_ORDINALS = ("zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
             "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
             "eighteenth", "nineteenth", "twentieth")
_TENS = ((30, "thirty", "thirtieth"), (40, "forty", "fortieth"), (50, "fifty", "fiftieth"), (60, "sixty", "sixtieth"),
         (70, "seventy", "seventieth"), (80, "eighty", "eightieth"), (90, "ninety", "ninetieth"))


def _suffix(n: int) -> str:
    return "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _number_table() -> dict[str, str]:
    pairs = [(n, c, o) for n, (c, o) in enumerate(zip(_CARDINALS, _ORDINALS))] + list(_TENS)
    out: dict[str, str] = {}
    for n, cardinal, ordinal in pairs:
        digits, nth = str(n), f"{n}{_suffix(n)}"
        out[cardinal], out[digits] = digits, cardinal
        out[ordinal], out[nth] = nth, ordinal
    return out


_NUMBERS = _number_table()


def number_variant(surface: str) -> str | None:
    """The same number in the other writing: "eight" -> "8", "8" -> "eight", "eighth" -> "8th"; else None."""
    return _NUMBERS.get(surface)


@lru_cache(maxsize=1)
def table() -> Mapping[str, tuple[str, ...]]:
    raw = resources.files("qatbe.data").joinpath("synonyms-en.tsv.gz").read_bytes()
    out: dict[str, tuple[str, ...]] = {}
    for line in gzip.decompress(raw).decode("utf-8").splitlines():
        word, _, syns = line.partition("\t")
        if syns:
            out[word] = tuple(syns.split("|"))
    return out


def expansions(
    an: Analyzer,
    query_terms: Sequence[tuple[str, str]],
    weights: Sequence[float],
    user: Mapping[str, Sequence[str]] | None = None,
    builtin: bool = True,
    searched: Iterable[str] = (),
) -> list[tuple[str, str, float]]:
    """(index term, surface, weight) of every expansion of the query's words that is not already a query term.

    ``query_terms`` are the analyser's (index term, surface) pairs; ``user`` maps a word (matched case-folded)
    to its synonyms (words or phrases) and applies in any language; the built-in table only for English.
    ``searched`` are index terms the query already searches for besides ``query_terms`` (the other spelling of
    a word, a number in its other writing): a synonym that is one of them is not searched twice ("3" has the
    synonym "three", which the number's other writing already is; the index refuses a term given twice).
    """
    known = {t for t, _ in query_terms} | set(searched)
    out: dict[str, tuple[str, float]] = {}
    lookup = table() if builtin and an.language == "en" else {}
    mine = {k.casefold(): tuple(v) for k, v in (user or {}).items()}
    for (_, surface), w in zip(query_terms, weights):
        for phrase in mine.get(surface, ()) + lookup.get(surface, ()):
            for s in raw_terms(phrase):
                t = an.term(s)
                if t is None or t in known:
                    continue
                weight = EXPANSION_WEIGHT * w
                if t not in out or out[t][1] < weight:
                    out[t] = (s, weight)
    return [(t, s, w) for t, (s, w) in out.items()]


def spellings(
    an: Analyzer, query_terms: Sequence[tuple[str, str]], weights: Sequence[float]
) -> list[tuple[str, str, float]]:
    """(index term, surface, weight) of the other spelling of each English query word, at the word's own weight
    (it is the same word, not a synonym), and of each number in the other writing (``number_variant``, at
    ``NUMBER_WEIGHT`` of it); none for other languages or when the stem is already a query term."""
    if an.language != "en":
        return []
    known = {t for t, _ in query_terms}
    out: dict[str, tuple[str, float]] = {}
    for (_, surface), w in zip(query_terms, weights):
        number = number_variant(surface)
        variants = [(number, NUMBER_WEIGHT * w)] if number is not None else []
        if surface.endswith(_SPELLING_ENDS):  # most words fail spelling_variants' first test: no call for them
            variants += [(x, w) for x in spelling_variants(surface)]
        for s, weight in variants:
            t = an.term(s)
            if t is not None and t not in known and (t not in out or out[t][1] < weight):
                out[t] = (s, weight)
    return [(t, s, w) for t, (s, w) in out.items()]
