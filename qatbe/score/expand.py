"""Query expansion: synonyms and acronyms from the shipped WordNet table, plus the caller's own synonyms, and
acronyms both ways, from the shipped list and from the page's own definitions.

Expanded terms get a lower weight than the words the user typed (``EXPANSION_WEIGHT`` x the source word's
weight): a synonym is evidence that a segment is about the same thing, not proof. The table
(``qatbe/data/synonyms-en.tsv.gz``, built by ``scripts/build_synonyms.py``) is English and loaded on first use.

Acronyms go both ways (``acronym_expansions``), with ``expand_query``: "API" also searches "application
programming interface", and a question holding every word of a long form also searches its acronym. The pairs
come from ``qatbe/data/acronyms-en.tsv`` (``scripts/build_acronyms.py``: WordNet plus a short written list;
English, like the synonyms) and from the page itself (``definitions``: "Long Form (LF)" and "LF (Long Form)", any
language). A page's own definitions are not searched by default either: searched for every query, they lost answers
at small budgets on the dev QA sets.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import NamedTuple

from .analyze import Analyzer, analyzer, raw_terms

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
    page: Iterable[str] = (),
) -> list[tuple[str, str, float]]:
    """(index term, surface, weight) of every expansion of the query's words that is not already a query term.

    ``query_terms`` are the analyser's (index term, surface) pairs; ``user`` maps a word (matched case-folded)
    to its synonyms (words or phrases) and applies in any language; the built-in tables (synonyms, and the
    acronyms both ways: ``acronym_expansions``) only for English.
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
    if builtin:
        found = acronym_expansions(an, query_terms, weights, _shipped_index(an.language), known) if lookup else []
        learned = definitions(page)
        if learned:
            found += acronym_expansions(an, query_terms, weights, acronym_index(an, learned), known)
        for t, s, weight in found:
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


@lru_cache(maxsize=1)
def acronym_table() -> tuple[tuple[str, str], ...]:
    """The shipped (acronym, long form) pairs, lower case (``qatbe/data/acronyms-en.tsv``)."""
    raw = resources.files("qatbe.data").joinpath("acronyms-en.tsv").read_text(encoding="utf-8")
    out: list[tuple[str, str]] = []
    for line in raw.splitlines():
        short, _, longs = line.partition("\t")
        out += [(short, phrase) for phrase in longs.split("|") if phrase]
    return tuple(out)


# A definition on the page (``definitions``): the short form is 2-10 characters without a space, opens with a
# letter or digit and holds an upper-case letter ("API", "eID", "COVID-19"); the parenthesis holds it alone, or
# holds the long form (then the short form is the word before it).
_PAREN = re.compile(r"\(([^()\n]{2,120})\)")
_SHORT = re.compile(r"[^\W_][\w&./-]{1,9}")
_WORD_BEFORE = re.compile(r"([^\W_][\w&./-]{1,9})\s*$")


def _has_upper(text: str) -> bool:
    """At least two upper-case letters: "NASA", "eID" no, "COVID-19"; a capitalised word ("Verdi (Verdi
    Theatre)", "George (George Alan O'Dowd)") is a name, not an acronym."""
    return sum(1 for c in text if c.isupper()) >= 2


def long_form(short: str, candidate: str) -> str | None:
    """The shortest end of ``candidate`` that ``short`` abbreviates, or None.

    The matching of Schwartz and Hearst ("A simple algorithm for identifying abbreviation definitions in
    biomedical text", PSB 2003): each letter or digit of the short form, right to left, is found in the
    candidate right to left, and its first character must open a word. Written here, not taken from a package:
    the algorithm is these ten lines, and the packages that implement it are unmaintained or pull in a parser.
    """
    s, c = short.casefold(), candidate.casefold()
    i, j = len(s) - 1, len(c) - 1
    while i >= 0:
        ch = s[i]
        if not ch.isalnum():
            i -= 1
            continue
        while j >= 0 and (c[j] != ch or (i == 0 and j > 0 and c[j - 1].isalnum())):
            j -= 1
        if j < 0:
            return None
        i -= 1
        j -= 1
    start = c.rfind(" ", 0, j + 1) + 1
    found = candidate[start:].strip()
    return found if len(found.split()) >= 2 else None


def definitions(texts: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """The (acronym, long form) pairs a page defines, as "Long Form (LF)" or "LF (Long Form)", in page order,
    each once; the acronym case-folded. The long form before a parenthesis is looked for among the last
    min(len + 5, 2 x len) words (Schwartz and Hearst's window)."""
    out: dict[tuple[str, str], None] = {}
    for text in texts:
        if "(" not in text:
            continue
        for m in _PAREN.finditer(text):
            inside = m.group(1).strip()
            before = text[: m.start()]
            if _SHORT.fullmatch(inside) and _has_upper(inside):
                words = before.split()
                window = words[-min(len(inside) + 5, 2 * len(inside)):]
                found = long_form(inside, " ".join(window))
                if found is not None:
                    out[(inside.casefold(), found)] = None
            elif " " in inside:
                w = _WORD_BEFORE.search(before)
                if w is not None and _has_upper(w.group(1)) and len(inside.split()) <= 2 * len(w.group(1)):
                    found = long_form(w.group(1), inside)
                    if found is not None:
                        out[(w.group(1).casefold(), found)] = None
    return tuple(out)


class AcronymIndex(NamedTuple):
    """(acronym, long form) pairs as ``acronym_expansions`` looks them up: ``forward`` maps an acronym (lower case)
    to the surface terms of its long forms; ``reverse`` maps a long form's first index term to (acronym, the long
    form's index terms), for long forms of two index terms or more."""

    forward: Mapping[str, tuple[str, ...]]
    reverse: Mapping[str, tuple[tuple[str, frozenset[str]], ...]]


def acronym_index(an: Analyzer, pairs: Iterable[tuple[str, str]]) -> AcronymIndex:
    """``pairs`` indexed for ``an``'s language (``AcronymIndex``); the order of ``pairs`` is kept."""
    forward: dict[str, list[str]] = {}
    reverse: dict[str, list[tuple[str, frozenset[str]]]] = {}
    for short, phrase in pairs:
        surfaces = raw_terms(phrase)
        forward.setdefault(short, []).extend(s for s in surfaces if s not in forward.get(short, ()))
        terms = [t for t in (an.term(s) for s in surfaces) if t is not None]
        if len(set(terms)) >= 2:
            reverse.setdefault(terms[0], []).append((short, frozenset(terms)))
    return AcronymIndex({k: tuple(v) for k, v in forward.items()}, {k: tuple(v) for k, v in reverse.items()})


@lru_cache(maxsize=8)
def _shipped_index(language: str | None) -> AcronymIndex:
    """The shipped table's index, once per language (it is English; the analyser decides the index terms)."""
    return acronym_index(analyzer(language), acronym_table())


def acronym_expansions(
    an: Analyzer,
    query_terms: Sequence[tuple[str, str]],
    weights: Sequence[float],
    index: AcronymIndex,
    searched: Iterable[str] = (),
) -> list[tuple[str, str, float]]:
    """(index term, surface, weight) of both directions of the pairs in ``index``, at ``EXPANSION_WEIGHT`` x the
    query word's weight: a query word that is an acronym adds its long forms' words, as a synonym does; the
    words of the question sentences (weight 1; not the context's, which match the page everywhere) holding every
    word of a long form (stopwords aside; as index terms, so "interfaces" counts) add its acronym. Terms in
    ``query_terms`` or ``searched`` are left out."""
    known = {t for t, _ in query_terms} | set(searched)
    weight_of: dict[str, float] = {}
    out: dict[str, tuple[str, float]] = {}

    def add(surface: str, weight: float) -> None:
        t = an.term(surface)
        if t is not None and t not in known and (t not in out or out[t][1] < weight):
            out[t] = (surface, weight)

    for (t, surface), w in zip(query_terms, weights):
        weight_of[t] = max(w, weight_of.get(t, 0.0))
        for s in index.forward.get(surface, ()):
            add(s, EXPANSION_WEIGHT * w)
    asked = {t for t, w in weight_of.items() if w >= 1.0}
    for t in sorted(asked):
        for short, terms in index.reverse.get(t, ()):
            if terms <= asked:
                add(short, EXPANSION_WEIGHT)
    return [(t, s, w) for t, (s, w) in out.items()]
