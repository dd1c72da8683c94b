"""What a query asks: its index terms, the weight of each (question or context), and whether it asks for a number.

One reading of the query for the scorer: the sentences are split once and tokenized in one call, and the
question sentences serve both the weights and the number cue: splitting and tokenizing the query for each of
them would cost more per page than scoring a short page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .analyze import Analyzer, analyzer, raw_terms_each
from .expand import spellings

_SENTENCE = re.compile(r"(?<=[.!?。？！])\s+")
_NUMERIC_QUESTION = re.compile(
    r"\b(?:how (?:many|much|long|old|far|tall|large|big|often|soon|fast|high|heavy|deep|wide)|when|"
    r"what (?:year|date|percentage|age|time|price|cost|amount|size|rate|temperature)|"
    r"what(?:'s|’s| is| are) the (?:deadline|time limit|price|cost|fee)s?|which year|in what year)\b", re.IGNORECASE)


# English question words: a heading that opens with the one a question uses ("How to renew online" for "how do
# I renew ...?") is where a page answers that kind of question (``Question.wh``).
_WH = re.compile(r"\b(how|who|what|when|where|why|which)\b", re.IGNORECASE)
# An English question for a kind of thing names its frame noun ("what type of organism are cyanobacteria?"); the
# answer names the thing ("they are prokaryotes"), so the frame noun is weighted by ``Scoring.frame_weight``.
_FRAME = re.compile(r"\b(?:what|which)\s+(type|kind|sort|form)s?\s+of\b", re.IGNORECASE)


def _asks_for_number(sentence: str) -> bool:
    """``_NUMERIC_QUESTION.search``, with a cheap test first: every phrase it finds holds "how" or "wh" in any
    case (their letters have no other case-insensitive match in ``re``, unlike i, k and s), and most titles and
    questions hold neither."""
    low = sentence.lower()
    return ("wh" in low or "how" in low) and _NUMERIC_QUESTION.search(sentence) is not None


@dataclass(frozen=True, slots=True)
class Question:
    """``terms``: distinct (index term, first surface form), as ``Analyzer.query`` gives them; ``only_stopwords``:
    the query had nothing but stopwords (then they are its terms); ``weights``: per term, 1 for the words of the
    question, ``context_weight`` for words only in the query's other sentences; ``asked``: the question sentences
    (the whole query when none ends with a question mark); ``numeric``: does a question sentence ask for a number
    or a date ("how many", "when", "what is the deadline")?; ``spelled``: the other English spelling of each word
    and the other writing of each number ("8" / "eight"), as ``expand.spellings`` gives them (index term,
    surface, weight); none for a query of stopwords.

    ``names``, ``surfaces`` and ``searched``: the index terms, first surface forms and weights of ``terms`` then
    of ``spelled``, in that order, as the scorer lists what it searches for.

    ``wh``: the English question words ("how", "what", ...) of the question sentences, lower case; none for other
    languages. In English, the frame noun of a question for a kind of thing ("what type of ...") weighs
    ``frame_weight`` times its weight.

    ``numeric``, ``spelled`` and the lists are read with the query, not per page: they depend on the query alone,
    and the scorer made them for every page (together about a tenth of scoring a page of 90 segments)."""

    terms: tuple[tuple[str, str], ...]
    only_stopwords: bool
    weights: tuple[float, ...]
    asked: tuple[str, ...]
    numeric: bool
    spelled: tuple[tuple[str, str, float], ...]
    names: tuple[str, ...]
    surfaces: tuple[str, ...]
    searched: tuple[float, ...]
    wh: frozenset[str] = frozenset()


def read_question(an: Analyzer, query: str, context_weight: float, frame_weight: float) -> Question:
    """The query as the scorer reads it.

    Weights: a query such as "I am 18 and got my A-level results. Can I challenge them?" is context plus a
    question; the question's words say what to find, the context's words mostly match the page everywhere. They
    apply only when the query has several sentences and at least one ends with a question mark.

    Kept for the last ``QUESTIONS_KEPT`` queries (per language): a scrape or search pipeline asks one question of
    many pages, and reading it cost as much as scoring a short page. A ``Question`` is immutable, so sharing it
    is safe; the reading never depends on what the analyser has memoised.
    """
    return _read_kept(an.language, query, context_weight, frame_weight)


QUESTIONS_KEPT = 256


@lru_cache(maxsize=QUESTIONS_KEPT)
def _read_kept(language: str | None, query: str, context_weight: float, frame_weight: float) -> Question:
    return _read(analyzer(language), query, context_weight, frame_weight)


def _read(an: Analyzer, query: str, context_weight: float, frame_weight: float) -> Question:
    sentences = [x for x in _SENTENCE.split(query.strip()) if x]
    asks = [x.rstrip().endswith(("?", "？")) for x in sentences]
    each = raw_terms_each(sentences)  # a query's tokens are its sentences' tokens: no token spans a space
    terms, only_stopwords = an.query_terms([s for surfaces in each for s in surfaces])
    weights = [1.0] * len(terms)
    if context_weight != 1.0 and len(sentences) >= 2 and any(asks):
        asked = {t for surfaces, a in zip(each, asks) if a for t, _ in an.query_terms(surfaces)[0]}
        weights = [1.0 if t in asked else context_weight for t, _ in terms]
    questions = tuple(x for x, a in zip(sentences, asks) if a) or (query,)
    if frame_weight != 1.0 and an.language == "en":
        frames = sorted({m.lower() for x in questions for m in _FRAME.findall(x)})
        if frames:
            framed = {t for t, _ in an.query_terms(frames)[0]}
            weights = [w * frame_weight if t in framed else w for (t, _), w in zip(terms, weights)]
    numeric = any(_asks_for_number(x) for x in questions)
    spelled = tuple(spellings(an, terms, weights)) if terms and not only_stopwords else ()
    names = tuple([t for t, _ in terms] + [t for t, _, _ in spelled])
    surfaces = tuple([x for _, x in terms] + [x for _, x, _ in spelled])
    searched = tuple(weights + [w for _, _, w in spelled])
    wh = frozenset(m.lower() for x in questions for m in _WH.findall(x)) if an.language == "en" else frozenset()
    return Question(tuple(terms), only_stopwords, tuple(weights), questions, numeric, spelled, names, surfaces,
                    searched, wh)
