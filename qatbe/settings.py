"""One typed, validated options object.

Every option of ``extract`` lives here, is validated once in ``__post_init__``, and is changed with
``dataclasses.replace`` (or ``Settings.with_``). Tiers are frozen presets of the token budget.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from .errors import ConfigError
from .tokens import ESTIMATORS, Estimator, EstimatorSpec
from .types import SegmentKind

TIERS: Mapping[str, int] = MappingProxyType(
    {"key_facts": 200, "summary": 1000, "detailed": 5000, "complete": 20000}
)

DEFAULT_WEIGHTS: Mapping[SegmentKind, float] = MappingProxyType(
    {
        SegmentKind.CODE: 1.5,
        SegmentKind.TABLE: 1.4,
        SegmentKind.HEADING: 1.3,
        SegmentKind.LIST: 1.1,
        SegmentKind.PARAGRAPH: 1.0,
        SegmentKind.QUOTE: 0.9,
        SegmentKind.METADATA: 0.5,
        SegmentKind.NAVIGATION: 0.1,
    }
)

InputFormat = Literal["auto", "html", "markdown", "text"]
RenderFormat = Literal["markdown", "text"]
Fill = Literal["neighbors", "none"]
BM25Variant = Literal["lucene", "okapi", "plus", "l"]
Truncation = Literal["drop", "truncate_end", "truncate_middle"]
Ranking = Literal["relevance", "recency", "manual", "embedding", "hybrid"]

INPUT_FORMATS = ("auto", "html", "markdown", "text")
RENDER_FORMATS = ("markdown", "text")
FILLS = ("neighbors", "none")
BM25_VARIANTS = ("lucene", "okapi", "plus", "l")
TRUNCATIONS = ("drop", "truncate_end", "truncate_middle")
RANKINGS = ("relevance", "recency", "manual", "embedding", "hybrid")
DENSE_RANKINGS = ("embedding", "hybrid")
# Rankings that order documents (by date, as given) instead of scoring segments: extract_many only.
DOCUMENT_RANKINGS = ("recency", "manual")


def _check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(map(repr, choices))}, not {value!r}")


def _check_number(name: str, value: object, low: float, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"{name} must be a finite number, not {value!r}")
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low} and {high}, not {value!r}")
    return float(value)


def supported_languages() -> dict[str, str | None]:
    """The codes ``language=`` accepts, each with its Snowball stemmer's name (None: matched on whole words; the
    language's stopwords and word frequencies are still used). Codes are ISO 639-1, plus ``no``/``nn`` for
    Norwegian; a region (``en-GB``) is ignored."""
    from .score.languages import LEXICONS, STEMMERS  # the scorer's tables; loaded only when asked

    return {code: STEMMERS.get(code) for code in sorted(set(STEMMERS) | LEXICONS | {"nn"})}


# Languages whose words barely inflect, or are not split by spaces: no stemmer is no loss there, so no warning.
_UNINFLECTED = frozenset({"zh", "ja", "ko"})


def _check_language(value: object) -> None:
    if not isinstance(value, str):
        raise ConfigError(f"language must be a language code such as 'en', not {value!r}")
    from .score.languages import normalize_code

    code = normalize_code(value)
    known = supported_languages()
    if code not in known:
        raise ConfigError(f"language {value!r} is not supported; qatbe.supported_languages() lists the codes "
                          "(or leave language unset to let qatbe guess it from the page)")
    if known[code] is None and code not in _UNINFLECTED:
        warnings.warn(f"language {value!r} has no stemmer in qatbe: query words match only the same word forms",
                      UserWarning, stacklevel=4)


def _check_int(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be an integer, not {value!r}")
    if value < low:
        raise ConfigError(f"{name} must be >= {low}, not {value}")
    return value


def _check_bool(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be True or False, not {value!r}")


@dataclass(frozen=True)
class Scoring:
    """The scorer's tuned constants (``qatbe/score/bm25.py``): ``Settings(scoring=Scoring(...))`` or
    ``scoring={"number_cue": 0.3}``. The defaults are the shipped ranking; ``benchmarks/retention_sensitivity.py``
    moves them one at a time. A share or cue of 0 turns its part off."""

    # Query terms closer than this many tokens (stopwords removed) count as a pair for the proximity bonus.
    proximity_window: int = 8
    # A text after one that ends with a colon ("You can use it to:") inherits this share of its score.
    lead_in_share: float = 1.0
    # A part of a split unit (table rows, a long paragraph) inherits this share of its adjacent parts' score.
    sibling_share: float = 0.15
    # What a segment inherits (lead-in, heading, adjacent parts) is scaled by min(1, its words / inherit_words)
    # (0: not scaled). Why: inheritance gives every segment under a matching heading the same score, and the
    # selector ranks by score per square root of cost, so without the scaling the smallest ones win ("[CTA]",
    # "$7,000"). 4 keeps answer retention on the dev QA sets; from 8 on, short answers such as a fee ("£335")
    # under its heading lose their inherited score.
    inherit_words: float = 4.0
    # Pseudo-relevance feedback (``Settings.feedback`` > 0): words from the feedback_segments best segments, the
    # feedback_terms rarest of them, rarity = feedback_common_zipf - zipf (words at or above that background
    # frequency are never picked).
    feedback_segments: int = 2
    feedback_terms: int = 8
    feedback_common_zipf: float = 5.0
    # Second-hop bridges (``Settings.bridge`` > 0): the bridge_top best segments may point to a section whose
    # heading they name (at least bridge_min of the heading's words that the question does not use); with
    # bridge_parts, a best segment that is one part of a split unit names what its adjacent parts name.
    bridge_top: int = 3
    bridge_min: float = 0.5
    bridge_parts: bool = True
    # A mention written as a name (at least bridge_min of the heading's new words capitalised in the mentioning
    # text: "Buddy Hield was named the tournament's MVP") is a pointer, like a link's anchor text: its credit is
    # multiplied by name_bridge for a section of up to name_section units; for a longer section the extra
    # (name_bridge - 1) shrinks by sqrt(name_section / units), since a name that heads a long table says where
    # to look, not which rows.
    name_bridge: float = 2.0
    name_section: float = 4.0
    # English queries also search the other spelling of each word (expand.spellings): "honored" finds "honours",
    # and "round 8" finds "Round eight" (at half weight).
    spellings: bool = True
    # A question that asks for a number or date ("how many", "when", "what year") adds this share of a
    # segment's score when the segment holds a number the question does not (``bm25.number_cue``).
    number_cue: float = 0.2
    # A question asked with a question word is lifted, in the section under a heading that opens with that word
    # and matches the query by itself ("How to renew online" for "how do I renew my passport?"), by this share
    # of the heading's score (``bm25.wh_heading_cue``).
    wh_heading_cue: float = 1.0
    # An English question for a kind of thing ("what type of organism are cyanobacteria?") weights its frame noun
    # (type, kind, sort, form) by this: the answer names the thing ("prokaryotes"), not its type
    # (``question._FRAME``; 1: off).
    frame_weight: float = 0.5
    # A query word of prefix_min+ letters that the page never uses also searches page words sharing its first
    # prefix_min letters (``bm25.prefix_matches``), at prefix_weight of its weight (prefix_min 0: off).
    prefix_min: int = 6
    prefix_weight: float = 0.8

    def __post_init__(self) -> None:
        _check_int("scoring.proximity_window", self.proximity_window, 1)
        for name in ("lead_in_share", "sibling_share", "number_cue", "wh_heading_cue", "prefix_weight",
                     "name_bridge"):
            _check_number(f"scoring.{name}", getattr(self, name), 0.0, 10.0)
        _check_number("scoring.inherit_words", self.inherit_words, 0.0, 1000.0)
        _check_int("scoring.feedback_segments", self.feedback_segments, 1)
        _check_int("scoring.feedback_terms", self.feedback_terms, 0)
        _check_number("scoring.feedback_common_zipf", self.feedback_common_zipf, 0.0, 10.0)
        _check_int("scoring.bridge_top", self.bridge_top, 0)
        _check_number("scoring.bridge_min", self.bridge_min, 0.0, 1.0)
        _check_number("scoring.frame_weight", self.frame_weight, 0.0, 1.0)
        _check_number("scoring.name_section", self.name_section, 1.0, 1e6)
        _check_int("scoring.prefix_min", self.prefix_min, 0)
        _check_bool("scoring.bridge_parts", self.bridge_parts)
        _check_bool("scoring.spellings", self.spellings)


DEFAULT_SCORING = Scoring()
_SCORING_FIELDS = frozenset(f.name for f in dataclasses.fields(Scoring))


def _scoring(value: object) -> Scoring:
    """``Settings.scoring`` as a ``Scoring``: given as one, or as a mapping of some of its fields."""
    if isinstance(value, Scoring):
        return value
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - _SCORING_FIELDS)
        if unknown:
            raise ConfigError(f"unknown scoring constant {unknown[0]!r}; known: {', '.join(sorted(_SCORING_FIELDS))}")
        return Scoring(**value)
    raise ConfigError(f"scoring must be a qatbe.Scoring or a mapping of its fields, not {value!r}")


@dataclass(frozen=True)
class Settings:
    """Options for one extraction.

    ``budget`` (tokens) overrides ``tier`` when given. ``weights`` multiply BM25 scores by segment kind.
    ``fill`` decides what happens to budget left after every segment that matches the query is packed:
    ``"neighbors"`` spends it on the non-boilerplate segments nearest to the matched ones (then the rest of the
    main content in reading order), ``"none"`` leaves it unspent. ``include_headings`` brings the nearest heading of
    every chosen segment along, charged to the budget, when it fits.

    Budget semantics (issue 6): the rendered output never costs more than ``budget - reserve_tokens`` in the
    chosen ``estimator``. ``truncation`` (``"drop"``, ``"truncate_end"``, ``"truncate_middle"``) decides what
    happens to the best matched segment that does not fit (``qatbe/select/truncate.py``). ``nested=True`` makes the
    selection at a smaller budget a subset of the one at any larger budget (``qatbe/select/nested.py``).
    ``ranking``, ``citations``, ``citation_buffer``, ``partial_note``, ``max_document_tokens`` and ``dedupe``
    apply to ``extract_many`` (``qatbe/many.py``).
    """

    tier: str = "summary"
    budget: int | None = None
    format: InputFormat = "auto"
    render: RenderFormat = "markdown"
    estimator: EstimatorSpec = "chars_div4"
    weights: Mapping[SegmentKind, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    fill: Fill = "neighbors"
    # The greedy ranks matched segments by score / cost ** cost_exponent: 1 is the textbook score per token, 0.5
    # (default) score per square root of the cost, because BM25 already normalises for length and per token ranks
    # two-word fragments above the paragraph that answers (see select.knapsack.density for the measurements).
    cost_exponent: float = 0.5
    include_headings: bool = True
    include_navigation: bool = False
    language: str | None = None
    expand_query: bool = False  # WordNet synonyms/acronyms: measured no retention gain on the dev sets
    bm25: BM25Variant = "l"  # BM25L, IDF ln((N+1)/(df+.5)) > 0: best variant on the dev QA sets
    k1: float = 1.2
    b: float = 0.75
    # Scoring (qatbe/score): background-IDF prior strength in pseudo-segments (0 = in-page IDF only), share of the
    # enclosing heading's score a segment inherits, bonus per close pair of query terms (x mean query IDF), and
    # the relative relevance floor (fraction of the best score) below which a match counts as not relevant.
    background_prior: float = 0.0
    heading_share: float = 0.3
    proximity: float = 0.25
    # Matches under relevance_floor x the best score do not compete for the budget (they may still fill what is
    # left, marked matched=False). 0.1 measured no worse than 0 on any dev set and budget and one question better
    # on two (benchmarks/retention_quick.py); 0.2 lost questions at 1000 and 5000 tokens.
    relevance_floor: float = 0.1
    context_weight: float = 0.5  # weight of query words outside the question sentence of a multi-sentence query
    feedback: float = 0.0  # weight of pseudo-relevance-feedback terms (rare words of the best segments); 0 = off
    # Share of a best segment's score carried to a section whose heading it names (second hop; 0 = off).
    bridge: float = 0.3
    # The scorer's tuned constants (windows, shares, cues), validated as one group.
    scoring: Scoring = DEFAULT_SCORING
    # Caller's synonyms: word -> words or phrases, used (at a lower weight) whenever the word is in a query.
    synonyms: Mapping[str, tuple[str, ...]] | None = None
    max_segment_tokens: int | None = None
    max_input_chars: int = 50_000_000
    # Budget semantics (seed 000/001): the output is at most ``token_budget - reserve_tokens``.
    reserve_tokens: int = 0
    truncation: Truncation = "drop"
    nested: bool = False
    # Multi-document assembly (``extract_many``) only.
    ranking: Ranking = "relevance"
    citations: bool = True
    citation_buffer: int = 64
    partial_note: bool = False
    max_document_tokens: int | None = None
    dedupe: bool = True
    # Dense ranking (``ranking="embedding"`` or ``"hybrid"``, ``qatbe/score/dense.py``): the embedder, a callable
    # list[str] -> array (texts x dims), and the dense score's share of the hybrid's normalised sum.
    embedder: Callable[[list[str]], Any] | None = None
    dense_weight: float = 0.5

    def __post_init__(self) -> None:
        if not isinstance(self.tier, str) or self.tier not in TIERS:
            raise ConfigError(f"unknown tier {self.tier!r}; choose one of {', '.join(TIERS)} or pass budget=N")
        if self.budget is not None:
            _check_int("budget", self.budget, 0)
        _check_choice("format", self.format, INPUT_FORMATS)
        _check_choice("render", self.render, RENDER_FORMATS)
        _check_choice("fill", self.fill, FILLS)
        _check_choice("bm25", self.bm25, BM25_VARIANTS)
        if isinstance(self.estimator, str):
            _check_choice("estimator", self.estimator, tuple(ESTIMATORS))
        elif not callable(self.estimator):
            raise ConfigError(f"estimator must be a name or a callable str -> int, not {self.estimator!r}")
        if not isinstance(self.weights, Mapping):
            raise ConfigError("weights must be a mapping of segment kind to a non-negative number")
        merged = dict(DEFAULT_WEIGHTS)
        for key, value in self.weights.items():
            try:
                kind = SegmentKind(key)
            except ValueError:
                raise ConfigError(f"unknown segment kind {key!r} in weights") from None
            merged[kind] = _check_number(f"weights[{kind.value}]", value, 0.0)
        object.__setattr__(self, "weights", MappingProxyType(merged))
        _check_number("k1", self.k1, 0.0, 100.0)
        _check_number("b", self.b, 0.0, 1.0)
        _check_number("background_prior", self.background_prior, 0.0, 1e6)
        _check_number("heading_share", self.heading_share, 0.0, 10.0)
        _check_number("proximity", self.proximity, 0.0, 100.0)
        _check_number("relevance_floor", self.relevance_floor, 0.0, 1.0)
        _check_number("context_weight", self.context_weight, 0.0, 1.0)
        _check_number("feedback", self.feedback, 0.0, 1.0)
        _check_number("bridge", self.bridge, 0.0, 10.0)
        _check_number("cost_exponent", self.cost_exponent, 0.0, 1.0)
        object.__setattr__(self, "scoring", _scoring(self.scoring))
        if self.synonyms is not None:
            if not isinstance(self.synonyms, Mapping) or not all(
                isinstance(k, str) and not isinstance(v, str) and isinstance(v, (list, tuple))
                and all(isinstance(x, str) for x in v)
                for k, v in self.synonyms.items()
            ):
                raise ConfigError("synonyms must map a word to a list of words or phrases, e.g. {'car': ['auto']}")
            object.__setattr__(self, "synonyms", MappingProxyType({k: tuple(v) for k, v in self.synonyms.items()}))
        if self.max_segment_tokens is not None:
            _check_int("max_segment_tokens", self.max_segment_tokens, 8)
        _check_int("max_input_chars", self.max_input_chars, 1)
        _check_int("reserve_tokens", self.reserve_tokens, 0)
        if self.reserve_tokens and self.reserve_tokens >= self.token_budget:
            raise ConfigError(f"reserve_tokens={self.reserve_tokens} leaves nothing of the {self.token_budget}-token "
                              "budget for the text; reserve less or raise the budget")
        _check_choice("truncation", self.truncation, TRUNCATIONS)
        _check_choice("ranking", self.ranking, RANKINGS)
        if self.ranking in DENSE_RANKINGS and not callable(self.embedder):
            raise ConfigError(f"ranking={self.ranking!r} needs embedder=, a callable list[str] -> array "
                              "(e.g. qatbe.score.embedders.SentenceTransformerEmbedder())")
        if self.embedder is not None and self.ranking not in DENSE_RANKINGS:
            raise ConfigError("embedder= is used only with ranking='embedding' or ranking='hybrid'")
        _check_number("dense_weight", self.dense_weight, 0.0, 1.0)
        _check_int("citation_buffer", self.citation_buffer, 0)
        if self.max_document_tokens is not None:
            _check_int("max_document_tokens", self.max_document_tokens, 0)
        for name in ("nested", "citations", "partial_note", "dedupe"):
            _check_bool(name, getattr(self, name))
        if self.nested and self.truncation != "drop":
            # A cut segment depends on the space left at one budget, so it cannot be part of every larger tier.
            raise ConfigError("nested=True needs truncation='drop': a truncated segment is not nested across tiers")
        if self.language is not None:
            _check_language(self.language)

    @property
    def segment_tokens(self) -> int:
        """Largest segment the splitter leaves whole.

        By default it follows the budget: at 200 tokens a 160-token paragraph is most of the answer space, so
        units split to about 2/5 of the budget (at least 48 tokens, at most 160). Measured on the dev QA sets at
        200 tokens (benchmarks/retention_quick.py), 80-token units against 160: squad11 0.849 -> 0.903,
        conditionalqa 0.690 -> 0.718, hotpotqa 0.648 -> 0.672, wikitablequestions 0.608 -> 0.654; at 1,000
        tokens smaller units did not help. Under 48 tokens of budget the units split to the budget itself (not
        below 8; at sentence ends only, see ``sentence_tokens``): a 44-token paragraph left whole could never fit a
        40-token budget, and the 17-token sentence in it that answers the query was lost with it. ``nested=True`` needs one segmentation for every tier, so it
        keeps 160.
        """
        if self.max_segment_tokens is not None:
            return self.max_segment_tokens
        if self.nested:
            return 160
        budget = self.token_budget
        return min(160, max(8, min(48, budget), (2 * budget) // 5))

    @property
    def sentence_tokens(self) -> int:
        """Longest sentence the splitter leaves whole (a longer one is cut at a clause mark or a space).

        ``segment_tokens`` when ``max_segment_tokens`` is given; else never under 48: below a budget of 48 tokens
        the units follow the budget at sentence ends, but a cut inside a 14-token sentence leaves fragments
        ("prose form.") that fill the budget with nothing a reader can use."""
        if self.max_segment_tokens is not None or self.nested:
            return self.segment_tokens
        return max(48, self.segment_tokens)

    @property
    def token_budget(self) -> int:
        return TIERS[self.tier] if self.budget is None else self.budget

    @property
    def effective_budget(self) -> int:
        """What the rendered output may cost: the budget less ``reserve_tokens`` (never below 0)."""
        return max(self.token_budget - self.reserve_tokens, 0)

    @property
    def max_input_bytes(self) -> int:
        """The most bytes accepted before decoding (and the most a .gz file may expand to on the command line):
        ``max_input_chars`` x 4, UTF-8's longest character."""
        return self.max_input_chars * 4

    @property
    def estimate(self) -> Estimator:
        return ESTIMATORS[self.estimator] if isinstance(self.estimator, str) else self.estimator

    def with_(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)

    def with_page_language(self, language: str) -> Settings:
        """These settings for a page that declares ``language`` (``<html lang>``). Not validated as the option is:
        a page may declare a code qatbe has no resources for, and its declaration still beats a guess (the words
        are then analysed without language rules)."""
        page = copy.copy(self)
        object.__setattr__(page, "language", language)
        return page
