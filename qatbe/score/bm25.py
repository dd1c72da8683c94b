"""Scoring stage: segments + query -> raw relevance per segment (before type weights).

Steps: pick the language (``settings.language``, else a cheap guess from the page); weight the query's words
(question sentence 1, context sentences ``context_weight``, the other English spelling of a word -- honor,
honour -- as the word itself, a number in its other writing -- 8, eight -- at half its weight, optional synonyms
less); analyse every segment once with the compiled tokenizer; score with the compiled BM25 kernel (default
variant BM25L, whose IDF ln((N + 1) / (df + 0.5)) is positive for every df <= N, so no term ever counts against a
segment); then add what a bag of words misses: query words close together (proximity pairs), the lead-in a block
follows ("You can use it to:"), the heading a segment sits under (a paragraph under "## Fees" is about fees), the
adjacent parts of a split table or paragraph, the second hop of a multi-hop question (a best segment that names
another section's heading points to it: ``bridge_credits``), the section under a heading that opens with the
question's own question word ("How to renew online" for "how do I renew?": ``wh_heading_cue``), and a number
where the question asks for one (``number_cue``). Optional: a background document-frequency prior from wordfreq
(``background_prior``) and pseudo-relevance feedback (``feedback``); both are off by default because neither
raises answer retention on the dev QA sets (benchmarks/retention_quick.py compares).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from .._backend import kernel
from .._kernel_types import PageScores, ScoringParams
from ..settings import Scoring, Settings
from ..types import Segment, SegmentKind
from . import languages
from .analyze import Analyzer, analyzer, raw_terms
from .expand import expansions
from .links import PageLinks, page_links
from .question import read_question

if TYPE_CHECKING:
    from .._core import Scan

_VARIANT = {"lucene": 0, "okapi": 1, "plus": 2, "l": 3}

# Languages that capitalise every noun, where a capital does not mark a name (German, Luxembourgish): there a
# mention's capitals do not make it a name (``Scoring.name_bridge``).
NOUNS_CAPITALISED = frozenset({"de", "lb"})


@dataclass(frozen=True)
class Explanation:
    """Why one segment scored what it did: BM25 contribution per matched query term, and the bonuses."""

    terms: tuple[tuple[str, float], ...]
    proximity: float
    lead_in: float
    heading: float
    total: float
    bridge: float = 0.0
    sibling: float = 0.0
    answer_type: float = 0.0

    def to_dict(self) -> dict[str, object]:
        return {"terms": dict(self.terms), "proximity": self.proximity, "lead_in": self.lead_in,
                "heading": self.heading, "bridge": self.bridge, "sibling": self.sibling,
                "answer_type": self.answer_type, "total": self.total}


@dataclass(frozen=True)
class Scores:
    """Raw relevance per segment (before type weights) and what was searched for.

    ``raw = bm25 + proximity + lead_in + heading + sibling + bridge + answer_type`` (arrays, one per segment).
    ``raw[i] > 0`` iff segment ``i`` contains a query term, inherits from a lead-in, heading or adjacent part of
    its split unit that does, or sits in a section whose heading a best-matching segment names (``bridge``). ``relevant`` is the relative
    floor: matching segments scoring at least ``settings.relevance_floor`` x the best score. ``language`` is the
    analysis language (None: no stemming); ``query_terms`` the index terms searched for, in query order, with
    their ``weights`` (1 for the question's words, less for context words and expansions).
    """

    raw: npt.NDArray[np.float64]
    query_terms: tuple[str, ...]
    relevant: npt.NDArray[np.bool_] | None = None
    language: str | None = None
    weights: tuple[float, ...] = ()
    bm25: npt.NDArray[np.float64] | None = None
    proximity: npt.NDArray[np.float64] | None = None
    lead_in: npt.NDArray[np.float64] | None = None
    heading: npt.NDArray[np.float64] | None = None
    bridge: npt.NDArray[np.float64] | None = None
    sibling: npt.NDArray[np.float64] | None = None
    answer_type: npt.NDArray[np.float64] | None = None
    _per_term: Callable[[], npt.NDArray[np.float64]] | None = field(default=None, repr=False, compare=False)

    @property
    def any_match(self) -> bool:
        return bool(self.raw.size and self.raw.max() > 0.0)

    @cached_property
    def term_contributions(self) -> npt.NDArray[np.float64]:
        """(segments x query terms) BM25 contributions; computed on first use (one kernel call per term)."""
        if self._per_term is None:
            return np.zeros((len(self.raw), len(self.query_terms)), dtype=np.float64)
        return self._per_term()

    def explain(self, i: int) -> Explanation:
        contrib = self.term_contributions[i]
        terms = tuple((t, float(c)) for t, c in zip(self.query_terms, contrib) if c > 0)

        def part(a: npt.NDArray[np.float64] | None) -> float:
            return float(a[i]) if a is not None else 0.0

        return Explanation(terms, part(self.proximity), part(self.lead_in), part(self.heading), float(self.raw[i]),
                           part(self.bridge), part(self.sibling), part(self.answer_type))


_new = object.__new__


def _scores(
    raw: npt.NDArray[np.float64], query_terms: tuple[str, ...], relevant: npt.NDArray[np.bool_] | None,
    language: str | None, weights: tuple[float, ...], bm25: npt.NDArray[np.float64] | None,
    proximity: npt.NDArray[np.float64] | None, lead_in: npt.NDArray[np.float64] | None,
    heading: npt.NDArray[np.float64] | None, bridge: npt.NDArray[np.float64] | None,
    sibling: npt.NDArray[np.float64] | None, answer_type: npt.NDArray[np.float64] | None,
    per_term: Callable[[], npt.NDArray[np.float64]] | None,
) -> Scores:
    """``Scores(raw, ..., per_term)``: the same instance, its fields set in one dict update.

    Why: a frozen dataclass's ``__init__`` sets each of its 13 fields through ``object.__setattr__``, which
    per page costs as much as the BM25 loops of a page of 90 segments. ``Scores`` has no ``__post_init__`` and
    no default factory, so its ``__init__`` does nothing but fill ``__dict__`` in field order, as here
    (tests/test_score_parts.py checks that this stays so)."""
    out = _new(Scores)
    out.__dict__.update({
        "raw": raw, "query_terms": query_terms, "relevant": relevant, "language": language, "weights": weights,
        "bm25": bm25, "proximity": proximity, "lead_in": lead_in, "heading": heading, "bridge": bridge,
        "sibling": sibling, "answer_type": answer_type, "_per_term": per_term})
    return out


_HEADING = SegmentKind.HEADING
# The query slots' page ids when they are 0 .. k - 1 (every call but one that adds near words): read-only arrays
# made once, not an np.arange on every call.
_SLOTS = tuple(np.arange(k, dtype=np.int32) for k in range(65))
for _slots in _SLOTS:
    _slots.setflags(write=False)


def _slot_ids(k: int) -> npt.NDArray[np.int32]:
    return _SLOTS[k] if k < len(_SLOTS) else np.arange(k, dtype=np.int32)


Part = npt.NDArray[np.float64] | None  # None: 0 for every segment

# The kinds of segment whose text is a language sample (prose; not code, tables or metadata).
_PROSE = (SegmentKind.PARAGRAPH, SegmentKind.LIST, SegmentKind.QUOTE, SegmentKind.HEADING)
# The sample stops after the segment that takes it past this many characters.
LANGUAGE_SAMPLE = 8000


_UNSET = object()


class PageView:
    """What scoring reads of a page whatever the query: its segments' fields (``kernel.page_fields``), their tokens
    (``kernel.scan``), the language guessed from its prose and its links (``links.page_links``), the last three
    made on first use and kept.

    Why: one page, many questions (``Extractor.parse``, then ``extract`` per question) read the page the same
    way for every question, and the fields, the tokens and the language are about a quarter of an extract on
    SQuAD's documents (the links cost little). A parsed document keeps its view (``ParsedDocument``);
    ``score_segments`` makes a fresh one when given none. ``source`` is what the view was made from, for the
    keeper to tell whether it still holds: the view never changes after it is made, so threads may share one. A
    view keeps its page's tokens, 16 bytes an occurrence.
    """

    __slots__ = ("_guess", "_links", "_scan", "groups", "heads", "levels", "prose", "source", "texts")

    def __init__(self, segments: Sequence[Segment], source: object = None) -> None:
        self.source = source
        self.texts, self.heads, self.levels, self.groups, self.prose = kernel.page_fields(
            segments, _HEADING, _PROSE)
        self._scan: Scan | None = None
        self._links: PageLinks | None = None
        self._guess: object = _UNSET

    @property
    def links(self) -> PageLinks:
        """Which texts carry the lead-in and sibling shares of which (``links.page_links``), read once."""
        if self._links is None:
            self._links = page_links(self.texts, self.heads, self.groups)
        return self._links

    @property
    def scan(self) -> Scan:
        """The page's tokens, found once for every read of them (``kernel.scan``)."""
        if self._scan is None:
            self._scan = kernel.scan(self.texts)
        return self._scan

    def language(self, settings: Settings) -> str | None:
        """``settings.language`` when given, else a guess from the page's prose (``languages.detect``)."""
        if settings.language:
            return languages.normalize_code(settings.language)
        if self._guess is _UNSET:
            self._guess = languages.detect_texts(self.texts, self.prose, LANGUAGE_SAMPLE)
        return self._guess  # type: ignore[return-value]


def choose_language(segments: Sequence[Segment], settings: Settings) -> str | None:
    """``settings.language`` when given, else a guess from the page's prose (``languages.detect``)."""
    return PageView(segments).language(settings)


def _prior(an: Analyzer, surfaces: Sequence[str], avgdl: float, prior_n: float) -> npt.NDArray[np.float64]:
    """How many of the ``prior_n`` pseudo-segments contain each query term.

    A word with corpus frequency f (wordfreq, per token) appears in a segment of L tokens with probability
    1 - (1 - f)^L ~ 1 - exp(-f L). Words outside the lexicon's top list are treated as rare (f = 0).
    """
    out = np.zeros(len(surfaces), dtype=np.float64)
    for i, s in enumerate(surfaces):
        zipf = an.lexicon.zipf.get(s)
        if zipf is not None:
            f = 10.0 ** (zipf - 9.0)
            out[i] = prior_n * (1.0 - math.exp(-f * avgdl))
    return out


def feedback_terms(
    an: Analyzer, texts: Sequence[str], scores: npt.NDArray[np.float64], known: set[str], n_segments: int,
    n_terms: int, common_zipf: float,
) -> list[tuple[str, str]]:
    """Pseudo-relevance feedback: the rarest words of the best-matching segments, as (index term, surface).

    Why: a multi-hop question ("the actor who played Roger Murtaugh -- when was he born?") names the first hop;
    the segment that answers it names the second ("Danny Glover"), which the next segment is about. Rarity is
    the background frequency (wordfreq zipf; words outside the lexicon count as rare), so no second pass over
    the page is needed to pick the words. Digits-only and one-letter terms are skipped.
    """
    order = sorted(range(len(texts)), key=lambda i: (-scores[i], i))[:n_segments]
    gains: dict[str, float] = {}
    surface_of: dict[str, str] = {}
    zipf = an.lexicon.zipf
    for i in order:
        if scores[i] <= 0:
            break
        for s in raw_terms(texts[i]):
            t = an.term(s)
            if t is None or t in known or len(t) < 2 or t.isdigit():
                continue
            rarity = max(0.0, common_zipf - zipf.get(s, 1.0))
            if rarity > 0:
                gains[t] = gains.get(t, 0.0) + rarity
                surface_of.setdefault(t, s)
    best = sorted(gains.items(), key=lambda kv: (-kv[1], kv[0]))[:n_terms]
    return [(t, surface_of[t]) for t, _ in best]


def heading_ancestors(segments: Sequence[Segment]) -> list[tuple[int, ...]]:
    """For each segment, the indices of the headings above it (nearest first), from the heading levels.

    The segments between two headings share one tuple (immutable, so sharing is safe): the chain is rebuilt once
    per heading, and the segments after it are filled in one slice assignment, not one step per segment."""
    n = len(segments)
    out: list[tuple[int, ...]] = [()] * n
    stack: list[tuple[int, int]] = []
    above: tuple[int, ...] = ()
    start = 0  # the first segment after the previous heading
    for i in [i for i, seg in enumerate(segments) if seg.kind is SegmentKind.HEADING]:
        out[start:i] = [above] * (i - start)
        level = segments[i].level
        while stack and stack[-1][0] >= level:
            stack.pop()
        enclosing = tuple(j for _, j in reversed(stack))
        out[i] = enclosing
        stack.append((level, i))
        above = (i, *enclosing)
        start = i + 1
    out[start:] = [above] * (n - start)
    return out


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def number_cue(query: str, texts: Sequence[str]) -> npt.NDArray[np.float64]:
    """1 for each segment holding a number the query does not; the caller asks only when the question asks for
    a number or a date (``Question.numeric``).

    Why: "How long will it be before I hear back from the court?" shares one word ("court") with its answer
    ("Within 10 days of receiving your application the court will ..."), and as many with every other sentence
    about the court; what sets the answer apart is that it holds what was asked for, a number. Only the
    question sentences of a query count (a scenario before the question may mention dates of its own).
    """
    known = set(_NUMBER.findall(query))
    # A number starts with a digit: a text without one holds none, and one with a digit holds a number the
    # query does not when the query holds none (its 0/1 flags are the cue; a masked write costs more than the
    # conversion). Only the rest need the numbers themselves.
    digits = kernel.has_decimal(texts)
    if not known:
        return digits.astype(np.float64)  # type: ignore[no-any-return]
    out = np.zeros(len(texts), dtype=np.float64)
    for i in np.flatnonzero(digits).tolist():
        if any(m not in known for m in _NUMBER.findall(texts[i])):
            out[i] = 1.0
    return out


def wh_heading_cue(wh: frozenset[str], texts: Sequence[str], heads: Sequence[int], up: npt.NDArray[np.int64],
                   base: npt.NDArray[np.float64], raw: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """For each segment directly under a heading that opens with one of the question words ``wh`` and whose own
    words match the query (``base`` > 0), that heading's ``raw`` score; 0 elsewhere.

    Why: "how" and "who" are stopwords, so "How to renew online" and "Who can renew online" match "how do I renew
    my passport?" equally, and the steps under the first name neither "renew" nor much else of the question; the
    question word is what says which section answers it.
    """
    out = np.zeros(len(texts), dtype=np.float64)
    marked = {h for h in heads if base[h] > 0.0 and texts[h][:1].isalpha()
              and texts[h].split(None, 1)[0].strip(".,:;!?").casefold() in wh}
    if marked:
        for i, h in enumerate(up.tolist()):
            if h in marked:
                out[i] = raw[h]
    return out


def prefix_matches(
    terms: Sequence[str], n_typed: int, df: npt.NDArray[np.int64], vocab: Iterable[str], prefix_min: int
) -> list[tuple[int, str]]:
    """(query slot, page term) for each typed query word (the first ``n_typed`` of ``terms``) the page never
    uses, paired with the page words that are not query terms already and share its
    first ``prefix_min`` letters or more (and all but the last two of the shorter word's letters).

    Why: stemmers leave some derived forms apart ("septicemia" / "septicemic", "Mongolia" / "Mongol"); a word
    the page never uses scores nothing, and a page word that long and that close is most likely the same word.
    ``df`` is the number of segments holding each query slot (``page_scores``); ``vocab`` the index's terms in
    the order of their ids: the query terms, then every page term the index met (so each of those is on the page).
    """
    missing = [(j, t) for j, t in enumerate(terms[:n_typed]) if len(t) >= prefix_min]
    if not missing:
        return []
    counts = df.tolist()
    missing = [(j, t) for j, t in missing if not counts[j]]
    if not missing:
        return []
    out: list[tuple[int, str]] = []
    known = set(terms)
    if len(missing) <= 16:
        # The terms one a line: the ones that start with a word's head are found by str.find, in vocab order,
        # instead of a startswith test per term per missing word (a term holds no whitespace).
        lines = "\n" + "\n".join(vocab) + "\n"
        found = [_lines_starting(lines, t[:prefix_min]) for _, t in missing]
    else:
        # A long query (a pasted document) asks once per missing word, and a search of the page's terms per ask
        # grew with both (20,000 words: 6 s): the page's own terms are grouped by head once, each ask a lookup.
        groups: dict[str, list[str]] = {}
        for term in vocab:
            if term not in known:  # a query term is never a near word
                groups.setdefault(term[:prefix_min], []).append(term)
        found = [groups.get(t[:prefix_min], []) for _, t in missing]
    for (j, t), page_terms in zip(missing, found):
        for page_term in page_terms:
            if page_term in known:
                continue
            common = len(os.path.commonprefix([t, page_term]))
            if common >= max(prefix_min, min(len(t), len(page_term)) - 2):
                out.append((j, page_term))
                known.add(page_term)
    return out


def _lines_starting(lines: str, head: str) -> list[str]:
    """The lines of ``lines`` (which opens and ends with a newline) that start with ``head``, in order."""
    out = []
    at = lines.find("\n" + head)
    while at >= 0:
        end = lines.index("\n", at + 1)
        out.append(lines[at + 1:end])
        at = lines.find("\n" + head, end)
    return out


def bridge_credits(
    an: Analyzer, groups: Sequence[int], texts: Sequence[str], raw: npt.NDArray[np.float64], asked: set[str],
    heads: Sequence[int], up_array: npt.NDArray[np.int64], scoring: Scoring, scan: Scan | None = None,
) -> dict[int, float]:
    """Second-hop relevance: a best-matching segment that names another section's heading points to it.

    Why: a multi-hop question ("the coach at Houston from 2007 to 2011 -- which team does he coach now?") names
    the first hop; the segment that answers the first hop names the second ("head coach at Texas A&M"), whose
    section shares no word with the question. Like a hyperlink, the mention carries the mentioning segment's
    score over to that section. Only the heading's words that the question does not already use count (a
    heading made of the question's words is found by BM25 and the heading share), at least ``bridge_min`` of
    them must be in the mentioning segment or in an adjacent part of its split unit (same ``groups`` value: the
    splitter cuts a paragraph where the budget says, not where its meaning does, and the sentence that names the
    second hop may open the next part), a mention written as a name counts more (``name_bridge``), and the
    credit is divided by how many segments outside the section mention the heading: a heading named everywhere
    ("How to apply") is no pointer. ``heads`` are the headings' indices and ``up_array`` the heading chains
    (``page_scores``: for each segment the heading above it); ``scoring`` holds the constants (``Scoring``);
    ``scan`` the page's ``kernel.scan`` (the texts are scanned when not given). Returns the credited headings'
    credits (not yet multiplied by ``settings.bridge``); most pages have none.
    """
    if not heads:
        return {}
    # The best segments, the headings one of them is outside of (only those can be credited) and the texts to
    # read: those headings, then the best segments with the adjacent parts of their split units. On most pages
    # every best segment sits under every heading (an article's title over its text: 49 of the 73
    # scrapinghub-aeb pages that get here), and there is nothing to tokenize. Their terms are read off the
    # page's scan, as term ids (the same sets as of the terms themselves; stopwords are the term ""). A split
    # unit's parts hold its whole text between them: no token spans two. No heading's new words: stopwords and
    # the question's own terms (a heading made of those is found by BM25 and the heading share). A mention
    # written as a name is a best segment's (with its parts) words written with a capital. How many segments
    # mention a credited heading is read off the page's scan through the prefix filter of its new words.
    # All of it in one kernel call (``Analyzer.bridge_credits``): between the nine steps as separate calls, the
    # arrays passed cost as much as the work.
    names_count = scoring.name_bridge != 1.0 and an.language not in NOUNS_CAPITALISED
    return an.bridge_credits(texts if scan is None else scan, raw, heads, up_array,
                             groups if scoring.bridge_parts else None, asked, scoring.bridge_top, scoring.bridge_min,
                             scoring.name_bridge if names_count else 1.0, scoring.name_section)


def score_segments(
    segments: Sequence[Segment], query: str | None, settings: Settings, view: PageView | None = None
) -> Scores:
    """Every segment's relevance to ``query`` (module docstring). ``view``: the segments' ``PageView`` when the
    caller keeps one (a parsed document scored for many questions); a fresh one is made otherwise."""
    n = len(segments)
    if not query or not query.strip() or n == 0:
        return Scores(np.zeros(n, dtype=np.float64), (), np.zeros(n, dtype=bool))
    if view is None:
        view = PageView(segments)
    elif len(view.texts) != n:
        raise ValueError(f"the page view holds {len(view.texts)} segments, not the {n} given")
    texts, heads, levels, groups = view.texts, view.heads, view.levels, view.groups
    language = view.language(settings)
    an = analyzer(language)
    question = read_question(an, query, settings.context_weight, settings.scoring.frame_weight)
    q, only_stopwords = question.terms, question.only_stopwords
    if not q:
        return Scores(np.zeros(n, dtype=np.float64), (), np.zeros(n, dtype=bool), language)
    sc = settings.scoring
    # The question's terms, then (English) the other spelling of each word (expand.spellings), read with the query.
    k = len(q) + len(question.spelled) if sc.spellings else len(q)
    q_terms = list(question.names[:k])
    surfaces = list(question.surfaces[:k])
    weights = list(question.searched[:k])  # an array only when the kernel reads it
    if settings.expand_query or settings.synonyms:
        expanded = expansions(an, q, weights, settings.synonyms, settings.expand_query, q_terms, texts)
        q_terms += [t for t, _, _ in expanded]
        surfaces += [x for _, x, _ in expanded]
        weights += [w for _, _, w in expanded]
    vocab: dict[str, int] = {t: i for i, t in enumerate(q_terms)}
    scan = view.scan  # the page's tokens, found once for every read below
    # met: the page terms vocab lacks (ids from len(vocab) on), which only the near words look up; "" (stopwords,
    # the tokens the prefix filter rules out) is left out, the others' places kept for proximity
    flat, places, offs, lengths, met = an.index_sparse(scan, vocab, only_stopwords, q_terms)
    prior_n = settings.background_prior if an.lexicon.zipf else 0.0
    n_query = len(q)  # proximity counts pairs of the words the user typed

    def run(terms: list[str], ids: npt.NDArray[np.int32], w: list[float]
            ) -> tuple[PageScores, ScoringParams, npt.NDArray[np.float64] | None]:
        """Every part but the bridges and the number cue, for the query ``terms`` (page ids ``ids``): the page's
        scores, the parameters and the prior document frequencies (None: no pseudo-segments) they used."""
        prior_df = None
        if prior_n:
            avgdl = max(1.0, float(lengths.sum()) / len(lengths))  # = lengths.mean(), without its Python wrapper
            prior_df = _prior(an, surfaces, avgdl, prior_n)
        # One pair is worth ``settings.proximity`` x the Lucene IDF ceiling ln(1 + (N + .5) / .5), a scale that
        # grows with the page like the BM25 scores it is added to, divided by (n - 1) / 2 for n query words (from
        # 4 words on): pairs grow quadratically with the query, and a long query's close pairs are mostly the
        # names it mentions, not the answer sentence.
        scale = 0.0
        if settings.proximity > 0 and len(terms) > 1:
            scale = settings.proximity * math.log(1.0 + (n + prior_n + 0.5) / 0.5) / max(1.0, (n_query - 1) / 2.0)
        # The policy, as data: Settings' shares and scoring constants (the kernel only computes).
        params = ScoringParams(settings.k1, settings.b, _VARIANT[settings.bm25], 0.5, prior_n, sc.proximity_window,
                               scale, sc.lead_in_share, settings.heading_share, sc.sibling_share,
                               settings.relevance_floor, sc.inherit_words)
        page = kernel.page_scores(flat, offs, len(vocab) + len(met), ids, np.array(w, dtype=np.float64), lengths,
                                  heads, levels, *view.links, params=params, prior_df=prior_df, n_near=n_query,
                                  positions=places)
        return page, params, prior_df

    ids = _slot_ids(len(q_terms))
    page, params, prior_df = run(q_terms, ids, weights)
    if sc.prefix_min:
        near = prefix_matches(q_terms, n_query, page.df, chain(vocab, met), sc.prefix_min)
        if near:
            # The index is kept: a near word shares the first prefix_min letters of a query word, so it passed the
            # query's prefix filter and its occurrences are in the index already (under its page id).
            q_terms = q_terms + [t for _, t in near]
            surfaces = surfaces + [t for _, t in near]
            weights = weights + [sc.prefix_weight * weights[j] for j, _ in near]
            ids = np.array([vocab[t] if t in vocab else len(vocab) + met.index(t) for t in q_terms],
                           dtype=np.int32)
            page, params, prior_df = run(q_terms, ids, weights)
    if settings.feedback > 0 and page.best > 0:
        extra = feedback_terms(an, texts, page.bm25, set(q_terms), sc.feedback_segments, sc.feedback_terms,
                               sc.feedback_common_zipf)
        if extra:
            q_terms = q_terms + [t for t, _ in extra]
            surfaces = surfaces + [x for _, x in extra]
            weights = weights + [settings.feedback] * len(extra)
            vocab = {t: i for i, t in enumerate(q_terms)}
            flat, places, offs, lengths, met = an.index_sparse(scan, vocab, only_stopwords, q_terms)
            ids = _slot_ids(len(q_terms))
            page, params, prior_df = run(q_terms, ids, weights)
    raw, base, relevant, best, up_array = page.raw, page.bm25, page.relevant, page.best, page.up
    zeros = np.zeros(n, dtype=np.float64)
    proximity, lead_in, heading, sibling = (zeros if x is None else x
                                            for x in (page.proximity, page.lead_in, page.heading, page.sibling))
    bridge = zeros
    changed = False
    # Without headings no section can be bridged to.
    if settings.bridge > 0 and up_array is not None and best > 0:
        credit = bridge_credits(an, groups, texts, raw, set(q_terms), heads, up_array, sc, scan)
        if credit:  # no credit: the bridge part is 0 everywhere and leaves raw as it is
            bridge = kernel.section_best(heads, up_array, list(credit),
                                         np.array(list(credit.values()), dtype=np.float64), settings.bridge)
            raw = raw + bridge
            changed = True
    answer_type = zeros
    if sc.wh_heading_cue > 0 and best > 0 and question.wh and up_array is not None:
        cue = wh_heading_cue(question.wh, texts, heads, up_array, base, raw)
        if np.count_nonzero(cue):
            answer_type = sc.wh_heading_cue * cue
            raw = raw + answer_type
            changed = True
    if sc.number_cue > 0 and best > 0 and question.numeric:
        cue = number_cue(query, texts)
        if np.count_nonzero(cue):  # not cue.any(): a ufunc reduction costs more on a page's array
            number = sc.number_cue * raw * cue
            answer_type = answer_type + number
            raw = raw + number
            changed = True
    if changed:
        best, relevant = kernel.floor_cut(raw, settings.relevance_floor)

    def per_term() -> npt.NDArray[np.float64]:
        out = np.zeros((n, len(q_terms)), dtype=np.float64)
        for j in range(len(q_terms)):
            only = np.zeros(len(weights), dtype=np.float64)
            only[j] = weights[j]
            out[:, j] = kernel.bm25_scores(flat, offs, len(vocab) + len(met), ids, only, params.k1, params.b,
                                           params.variant, params.delta, params.prior_n, prior_df, lengths)
        return out

    return _scores(raw, tuple(q_terms), relevant, language, tuple(weights), base, proximity,
                  lead_in, heading, bridge, sibling, answer_type, per_term)
