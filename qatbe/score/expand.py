"""Query expansion: synonyms and acronyms from the shipped WordNet table, plus the caller's own synonyms.

Expanded terms get a lower weight than the words the user typed (``EXPANSION_WEIGHT`` x the source word's
weight): a synonym is evidence that a segment is about the same thing, not proof. The table
(``qatbe/data/synonyms-en.tsv.gz``, built by ``scripts/build_synonyms.py``) is English and loaded on first use.
"""

from __future__ import annotations

import gzip
from collections.abc import Mapping, Sequence
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
) -> list[tuple[str, str, float]]:
    """(index term, surface, weight) of every expansion of the query's words that is not already a query term.

    ``query_terms`` are the analyser's (index term, surface) pairs; ``user`` maps a word (matched case-folded)
    to its synonyms (words or phrases) and applies in any language; the built-in table only for English.
    """
    known = {t for t, _ in query_terms}
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
    (it is the same word, not a synonym); none for other languages or when the stem is already a query term."""
    if an.language != "en":
        return []
    known = {t for t, _ in query_terms}
    out: dict[str, tuple[str, float]] = {}
    for (_, surface), w in zip(query_terms, weights):
        if not surface.endswith(_SPELLING_ENDS):  # most words: spelling_variants' first test, without the call
            continue
        for s in spelling_variants(surface):
            t = an.term(s)
            if t is not None and t not in known and (t not in out or out[t][1] < w):
                out[t] = (s, w)
    return [(t, s, w) for t, (s, w) in out.items()]
