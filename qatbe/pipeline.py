"""The pipeline, named once and in order: load → segment → measure → score → weight → select → order → render.

Each stage is a plain function in its own package; this module only wires them and keeps the account (what was
chosen, what was dropped, how long it took). ``Extractor`` holds validated settings for batches; ``extract`` and
``segment`` are the one-call forms.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from ._backend import BACKEND
from .document import Document
from .errors import ConfigError, InputError
from .explain import explain
from .prepare import (
    _resolve,
    costs_of,
    heading_parents,
    measure,
    parent_slots,
    parse_document,
    resolve_settings,
)
from .query import kept_query
from .records import outcomes, with_outcome
from .render import SEPARATOR, render
from .render.citations import note_reserve, note_text
from .result import Result
from .score import score_segments
from .score.bm25 import PageView
from .score.dense import rerank
from .select.plan import plan_prepared, prepare
from .settings import DENSE_RANKINGS, DOCUMENT_RANKINGS, Settings
from .types import ParsedDocument, Segment, SegmentKind

_LANGUAGES_KEPT = 64  # declared languages whose scoring settings an Extractor keeps
# Tokens the text must cost less than its segments (merged table headers, joined parts, rounding) before the plan
# is made again for them, and how often (spend_savings): a few tokens buy nothing, and each round costs a
# plan and a render.
_SAVINGS_MIN = 8
_SAVINGS_ROUNDS = 3
# Read once: an Enum member is a descriptor lookup on its class (about 90 ns on Python 3.11), once per segment here.
_NAVIGATION = SegmentKind.NAVIGATION


def _check_query(query: object) -> str | None:
    if query is None or isinstance(query, str):
        return query
    text = getattr(query, "text", None)  # a Query-like object
    if isinstance(text, str):
        return text
    raise InputError(f"query must be a string or None, not {type(query).__name__}")


def spend_savings(replan: Callable[[int], Any], chosen_plan: Any, chosen: list[int], text: str,
                  candidates: list[Segment], costs: Any, budget: int, settings: Settings
                  ) -> tuple[Any, list[int], str]:
    """Plan again for the tokens the text costs less than its segments, while the result still fits ``budget``:
    ``(plan, chosen, text)``, the given ones when nothing better fits. ``replan(b)`` is the document's plan for
    ``b`` tokens (``Extractor.extract`` plans from its ``select.plan.prepare``d document, so only the
    budget-dependent half is done again).

    Why: each segment's cost is an upper bound on what it adds to the text, and the text is often cheaper: a
    table's row groups each carry its header and the plan charges it to each, but rendered, the row groups of one
    table are one table with one header (``render``; rows left out between them become one ``…`` row), the parts
    of a split paragraph join with a space, and each cost is rounded up. Those tokens are offered back to the plan,
    at most ``_SAVINGS_ROUNDS`` times, when there are ``_SAVINGS_MIN`` of them; a plan whose text would not fit is
    not taken. The caller skips it with ``nested`` (its tiers must stay subsets) and after a cut (a cut segment is
    sized to the space left)."""
    estimate = settings.estimate
    for _ in range(_SAVINGS_ROUNDS):
        saved = int(sum([costs[i] for i in chosen])) - estimate(text)
        if saved < _SAVINGS_MIN:
            break
        bigger = replan(budget + saved)
        more = list(bigger.chosen)
        if bigger.cut or more == chosen:
            break
        more_text = render([candidates[i] for i in more], settings.render)
        if estimate(more_text) > budget:
            break
        chosen_plan, chosen, text = bigger, more, more_text
    return chosen_plan, chosen, text


def _page_view(doc: ParsedDocument, candidates: list[Segment], settings: Settings) -> PageView:
    """The document's scoring view of ``candidates`` (its segments, boilerplate in or out as ``settings`` say),
    kept with it for the next question (``PageView``). A view is keyed by that choice and holds only while the
    document's segments are the ones it was made from."""
    key = settings.include_navigation
    view: PageView | None = doc._views.get(key)
    if view is None or view.source is not doc.segments:
        view = PageView(candidates, doc.segments)
        doc._views[key] = view
    return view


class Extractor:
    """Validated settings, reused across many documents (a scrape or search pipeline).

    Thread safety: one ``Extractor`` may be shared by any number of threads, and a ``ParsedDocument`` too. Its
    settings are frozen; its only mutable state is a cache of per-language settings, whose entries are equal
    whichever thread builds them, and the process-wide caches below it (term analysis, boilerplate rules, the
    compiled walk's memos) hold values that depend only on their keys. So concurrent calls give results identical,
    byte for byte, to the same calls made one after another (``tests/test_concurrency.py`` checks it, in threads
    and in worker processes). The Python parts of a call hold the GIL, so threads mostly take turns; for
    parallel speed use processes (one ``Extractor`` per process).
    """

    def __init__(self, settings: Settings | None = None, **options: Any) -> None:
        self.settings = _resolve(settings, options)[0]
        self._by_language: dict[str, Settings] = {}

    def _with_language(self, language: str) -> Settings:
        """These settings for a page that declares ``language`` (built once per language, not once per page)."""
        found = self._by_language.get(language)
        if found is None:
            found = self.settings.with_page_language(language)
            if len(self._by_language) < _LANGUAGES_KEPT:
                self._by_language[language] = found
        return found

    def parse(self, source: str | bytes, navigation: bool = True) -> ParsedDocument:
        """The document's segments and metadata; ``navigation=False`` leaves boilerplate out (``extract`` does
        not use it unless ``include_navigation``), every other segment keeping its index.

        A parsed document can be given to ``extract`` in place of its source, any number of times: one page, many
        questions, and the page is read once (parsing is most of ``extract``'s time)."""
        return parse_document(source, self.settings, navigation)

    def _document(self, source: str | bytes | ParsedDocument) -> ParsedDocument:
        """``source`` parsed for ``extract``, or ``source`` itself when it is parsed already (split the way these
        settings split units, which is what makes the result the same as from the source)."""
        if not isinstance(source, ParsedDocument):
            return self.parse(source, self.settings.include_navigation)
        units = (self.settings.segment_tokens, self.settings.sentence_tokens)
        if source.unit_tokens is not None and source.unit_tokens != units:
            raise ConfigError(
                f"this document was split into units of {source.unit_tokens[0]} tokens, these settings split them "
                f"to {units[0]} (the unit size follows the budget); parse it with the Extractor that extracts it")
        return source

    def segment(self, source: str | bytes) -> list[Segment]:
        return self._measured(self.parse(source).segments)

    def extract_many(self, documents: Any, query: object = None) -> Any:
        """``qatbe.extract_many`` with these settings (returns a ``ManyResult``)."""
        from .many import extract_many  # many builds on this module

        return extract_many(documents, query, settings=self.settings)

    def _from_record(self, record: Document) -> ParsedDocument:
        """A ``qatbe.Document`` parsed (boilerplate kept, as ``parse`` does by default, so that the explanation
        can list it); its ``url`` stands in for the page's own when the page states none. A Document without a
        source has to be fetched first (``qatbe.fetch``)."""
        if record.source is None:
            raise InputError(f"this Document has no source; fetch it first: qatbe.fetch({record.url!r})")
        doc = self.parse(record.source)
        if record.url and not doc.metadata.url:
            doc = ParsedDocument(doc.segments, dataclasses.replace(doc.metadata, url=record.url), doc.format,
                                 doc.unit_tokens)
        return doc

    def extract(self, source: str | bytes | ParsedDocument | Document, query: object = None) -> Result:
        started = time.perf_counter()
        settings = self.settings
        _check_one_document(settings)
        if isinstance(source, Document):
            source = self._from_record(source)
        query_text = _check_query(query)
        budget = settings.effective_budget
        doc = self._document(source)

        candidates = list(doc.segments) if settings.include_navigation else [
            s for s in doc.segments if s.kind is not _NAVIGATION
        ]
        costs = costs_of(candidates, settings)
        # The page's declared language (<html lang>) beats detection; an explicit option beats both.
        score_settings = settings
        if settings.language is None and doc.metadata.language:
            score_settings = self._with_language(doc.metadata.language)
        scores = score_segments(candidates, query_text, score_settings, _page_view(doc, candidates, settings))
        raw, relevant = scores.raw, scores.relevant
        if settings.ranking in DENSE_RANKINGS and scores.query_terms:
            assert settings.embedder is not None and query_text is not None  # Settings and the terms say so
            raw, relevant = rerank(settings.ranking, settings.embedder, settings.dense_weight,
                                   settings.relevance_floor, query_text, [s.text for s in candidates], raw)
        kind_weight = settings.weights
        # The selector works on lists of Python floats; a float64 product is the same in Python as in numpy.
        weighted: list[float] = [r * kind_weight[s.kind] for r, s in zip(raw.tolist(), candidates)]
        # Only segments above the relative floor compete as matches; the rest may still fill leftover budget.
        if relevant is not None:
            matched_mask = [w > 0.0 and r for w, r in zip(weighted, relevant.tolist())]
        else:
            matched_mask = [w > 0.0 for w in weighted]
        prepared = prepare(candidates, weighted, costs, parent_slots(candidates), matched_mask, settings)
        full_budget = budget
        if settings.partial_note:  # room for the note at its widest, when it fits (as extract_many does)
            widest = note_reserve(len(candidates), int(sum(costs)), settings)
            if widest <= budget:
                budget -= widest
        chosen_plan = plan_prepared(prepared, budget)
        if chosen_plan.cut:  # truncated copies stand in for the whole segments
            costs = list(costs)  # the plan keeps the list it was given (its drop order reads the original costs)
            for i, short in chosen_plan.cut.items():
                candidates[i] = short
                costs[i] = chosen_plan.cut_costs[i]

        chosen = list(chosen_plan.chosen)
        estimate = settings.estimate
        text = render([candidates[i] for i in chosen], settings.render)
        if not settings.nested and not chosen_plan.cut:
            chosen_plan, chosen, text = spend_savings(partial(plan_prepared, prepared), chosen_plan, chosen, text,
                                                      candidates, costs, budget, settings)
        # The per-segment costs bound the total for the built-in estimators; a custom estimator may not add up,
        # so the rendered text is measured and the least valuable segment dropped until it fits.
        given_up: list[int] = []
        drop_order: list[int] = []
        while chosen and estimate(text) > budget:
            if not given_up:
                drop_order = list(chosen_plan.drop_order())
            worst = drop_order.pop(0)
            chosen.remove(worst)
            given_up.append(worst)
            text = render([candidates[i] for i in chosen], settings.render)
        if budget < full_budget and text and len(chosen) < len(candidates):
            text = _with_note(text, chosen, costs, full_budget, settings)

        chosen_set = set(chosen)
        matched = chosen_plan.matched
        out = outcomes(candidates, chosen, costs, weighted, matched)
        pending = [i for i in given_up[::-1] if i not in chosen_plan.cut] + list(chosen_plan.pending)
        pending_at = None
        if chosen_plan.pending_at is not None:
            pending_at = (budget + 1,) * len(given_up) + chosen_plan.pending_at

        def explained() -> list[Any]:
            weights = np.array([kind_weight[s.kind] for s in candidates], dtype=np.float64)
            # The report lists boilerplate too, which extract did not build: the page is segmented again (a parsed
            # document given to extract holds it already).
            every = (doc.segments if settings.include_navigation or isinstance(source, ParsedDocument)
                     else self.parse(source).segments)
            return explain(self._measured(every), candidates, scores, weights, np.array(costs, dtype=np.int64),
                           chosen_set, matched, bool(scores.query_terms), self.settings.cost_exponent)

        return Result(
            text=text,
            total_tokens=estimate(text) if text else 0,
            segments=out,
            budget=settings.token_budget,
            tier=settings.tier if settings.budget is None else None,
            query=kept_query(query, query_text),
            format=doc.format,
            dropped_count=len(candidates) - len(chosen_set),
            dropped_tokens=sum(costs) - sum([costs[i] for i in chosen_set]),
            reserve_tokens=settings.reserve_tokens,
            truncated_count=sum(1 for i in chosen_plan.cut if i in chosen_set),
            pending=outcomes(candidates, pending, costs, weighted, matched),
            pending_at=pending_at,
            no_match=bool(scores.query_terms) and not any(matched_mask),
            evaluation_time_ms=(time.perf_counter() - started) * 1000.0,
            metadata=doc.metadata,
            backend=BACKEND,
            _explain=explained,
        )

    def _measured(self, segments: Sequence[Segment]) -> list[Segment]:
        return [with_outcome(s, c, s.score, s.matched) for s, c in zip(segments, costs_of(segments, self.settings))]


# Options that only a call over several documents uses, each with its default: extract refuses a change to one.
# (The dense rankings score segments, so they apply to one document too; recency and manual order documents.)
_MANY_ONLY = (("citations", True), ("citation_buffer", 64), ("max_document_tokens", None), ("dedupe", True))


def _check_one_document(settings: Settings) -> None:
    if settings.ranking in DOCUMENT_RANKINGS:
        raise ConfigError(f"ranking={settings.ranking!r} orders documents: it applies to extract_many, not to "
                          "extract")
    for name, default in _MANY_ONLY:
        if getattr(settings, name) != default:
            raise ConfigError(f"{name} applies to extract_many (several documents), not to extract; leave it unset")


def _with_note(text: str, chosen: list[int], costs: Sequence[int], budget: int, settings: Settings) -> str:
    """``text`` under the ``partial_note`` line (how many segments were left out). The plan kept the note's cost
    at its widest free, so the whole fits ``budget`` with the built-in estimators; with an estimator that does not
    add up, the note is left out rather than the budget broken."""
    kept = set(chosen)
    left = [c for i, c in enumerate(costs) if i not in kept]
    noted = note_text(len(left), len(costs), int(sum(left))) + SEPARATOR + text
    return noted if settings.estimate(noted) <= budget else text


def extract(
    source: str | bytes | ParsedDocument | Document,
    query: object = None,
    *,
    tier: str | None = None,
    budget: int | None = None,
    format: str | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> Result:
    """Cut ``source`` (HTML, markdown or text; str or bytes) down to the tokens that matter for ``query``.

    ``budget`` (tokens) overrides ``tier``. Every other option of ``qatbe.Settings`` may be passed by keyword.
    ``source`` may also be a document parsed by ``Extractor.parse`` with the same unit size (``Extractor`` says
    why: one page, many questions), or a ``qatbe.Document`` (what ``qatbe.fetch`` returns): ``r.metadata.url``
    is then the page's own URL (canonical link, ``og:url``) when it states one, else the Document's ``url``.
    """
    return Extractor(settings, tier=tier, budget=budget, format=format, **options).extract(source, query)


def segment(source: str | bytes, *, format: str | None = None, settings: Settings | None = None,
            **options: Any) -> list[Segment]:
    """Every typed segment of a document (boilerplate included, as NAVIGATION), with its token cost."""
    return Extractor(settings, format=format, **options).segment(source)


# The entry points, and the preparation stages they are built on (defined in ``prepare``) named here too.
__all__ = ["Extractor", "costs_of", "extract", "heading_parents", "measure", "parent_slots", "resolve_settings",
           "segment", "spend_savings"]
