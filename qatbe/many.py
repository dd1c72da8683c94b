"""``extract_many``: one budgeted, cited context from many documents (a page of search results, a folder of docs).

One selection across all documents, not a split: every document is parsed and segmented as ``extract`` would, the
segments are pooled, near-duplicates are dropped before they cost anything (``select.dedupe``), BM25 runs over
the pooled segments (so IDF is computed over the whole collection and scores are comparable between documents),
and one greedy pass admits segments by weighted score per token wherever they are, charging each document's
citation envelope (``render.citations``) with its first admitted segment. An optional per-document cap
(``max_document_tokens``) keeps one long page from taking everything.

Ranking (seed 000) decides the priority order of the matched segments: ``relevance`` (score per token, with the
best-single guard), ``recency`` (newest document first, from ``Document.metadata["date"]`` or the page's own
date; undated documents last; score per token inside a document), ``manual`` (documents in the order given).
The budget left after the matched segments goes to their neighbours inside the documents already cited; when
nothing matched (or nothing that matched fits), to the documents' main content in reading order, documents in
ranking order (input order for ``relevance``). Output: documents in ranking order, segments in
document order inside each, ``[n]`` section headers and a sources list.

The guarantee is the one ``extract`` gives: the rendered text, note, headers and sources list included, measured
by the chosen estimator, is at most ``budget - reserve_tokens`` (and the citation buffer is kept free on top).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ._backend import BACKEND
from .document import Document
from .errors import ConfigError, FetchError, InputError, QatbeError
from .prepare import heading_parents, measure, parse_document, resolve_settings
from .query import Query, kept_query, query_fields, query_text
from .records import with_outcome
from .render import render
from .render.citations import (
    Section,
    assemble,
    envelope_cost,
    fixed_cost,
    note_reserve,
    note_text,
    one_line,
)
from .score import score_segments
from .score.dense import rerank
from .select.dedupe import find_duplicates
from .select.knapsack import Ledger, pack, priority_order, settle
from .select.plan import (
    needs_of,
    paragraph_units,
    source_order,
    split_context,
    whole_paragraph_first,
    wordless,
)
from .select.truncate import truncate
from .settings import DENSE_RANKINGS, DOCUMENT_RANKINGS, Settings
from .types import ItemError, Segment, SegmentKind

if TYPE_CHECKING:
    from .fetching import FetchOptions

_DATE_KEYS = ("date", "published", "modified", "mtime", "updated")


@dataclass(frozen=True)
class Passage:
    """A chosen segment and where it came from: ``document`` (input position) and its ``citation`` number."""

    document: int
    citation: int
    segment: Segment

    def to_dict(self) -> dict[str, object]:
        return {"document": self.document, "citation": self.citation, **self.segment.to_dict()}


@dataclass(frozen=True)
class SourceReport:
    """What one input document contributed. ``tokens``: its admitted segments' cost (envelope not included)."""

    document: int
    citation: int  # 0 when nothing of it is in the output
    label: str
    id: str | None
    url: str | None
    date: str | None
    tokens: int
    segments: int
    dropped_count: int
    dropped_tokens: int
    duplicate_count: int

    def to_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class ManyResult:
    """What ``extract_many`` returns; the account mirrors ``Result``.

    ``dropped_count``/``dropped_tokens`` count the main-content segments (boilerplate and near-duplicates
    excluded) that are not in the output, at their own cost; near-duplicates are counted apart in
    ``duplicate_count``/``duplicate_tokens``. ``citation_tokens`` is what the envelope was charged.
    """

    text: str
    total_tokens: int
    budget: int
    reserve_tokens: int
    tier: str | None
    query: Query | str | None  # a Query given is kept whole; its text is query_text(query)
    passages: tuple[Passage, ...]
    sources: tuple[SourceReport, ...]
    dropped_count: int
    dropped_tokens: int
    duplicate_count: int
    duplicate_tokens: int
    truncated_count: int
    citation_tokens: int
    note: str | None
    no_match: bool
    ranking: str
    evaluation_time_ms: float
    backend: str = BACKEND
    pending: tuple[Passage, ...] = field(default=(), repr=False, compare=False)
    # Inputs that could not be used (unreadable bytes, a URL that failed): one record each, the others went on.
    errors: tuple[ItemError, ...] = ()

    @property
    def segments(self) -> tuple[Segment, ...]:
        return tuple(p.segment for p in self.passages)

    @property
    def was_truncated(self) -> bool:
        return self.dropped_count > 0 or self.truncated_count > 0

    @property
    def tokens_per_source(self) -> dict[int, int]:
        """Input position → tokens admitted from that document (documents that contributed nothing included)."""
        return {s.document: s.tokens for s in self.sources}

    def more(self, tokens: int) -> tuple[Passage, ...]:
        """The passages that would come in next if the budget grew by ``tokens``, in the order they would come.

        Continues the greedy pass over the matched segments left out (priority order), then their neighbours;
        citation envelopes of documents not yet cited are not counted, so this is a preview, not a promise.
        """
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
            raise ConfigError(f"tokens must be a non-negative integer, not {tokens!r}")
        room = self.budget - self.reserve_tokens - self.total_tokens + tokens
        out: list[Passage] = []
        for p in self.pending:
            if p.segment.tokens <= room:
                out.append(p)
                room -= p.segment.tokens
        return tuple(out)

    def to_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "total_tokens": self.total_tokens,
            "budget": self.budget,
            "reserve_tokens": self.reserve_tokens,
            "tier": self.tier,
            **query_fields(self.query),
            "ranking": self.ranking,
            "dropped_count": self.dropped_count,
            "dropped_tokens": self.dropped_tokens,
            "duplicate_count": self.duplicate_count,
            "duplicate_tokens": self.duplicate_tokens,
            "truncated_count": self.truncated_count,
            "citation_tokens": self.citation_tokens,
            "was_truncated": self.was_truncated,
            "note": self.note,
            "no_match": self.no_match,
            "evaluation_time_ms": self.evaluation_time_ms,
            "backend": self.backend,
            "sources": [s.to_dict() for s in self.sources],
            "passages": [p.to_dict() for p in self.passages],
            "errors": [e.to_dict() for e in self.errors],
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def __str__(self) -> str:
        return self.text


# -- inputs ------------------------------------------------------------------------------------------------------


def _as_documents(documents: object) -> list[Document]:
    if isinstance(documents, (str, bytes, bytearray, Document)):
        raise InputError("documents must be a list of documents (strings, bytes or qatbe.Document), not one document")
    if not isinstance(documents, Iterable):
        raise InputError(f"documents must be an iterable of documents, not {type(documents).__name__}")
    out: list[Document] = []
    for k, doc in enumerate(documents):
        if isinstance(doc, Document):
            out.append(doc)
        elif isinstance(doc, (str, bytes, bytearray)):
            out.append(Document(doc if isinstance(doc, str) else bytes(doc)))
        else:
            raise InputError(f"documents[{k}] must be str, bytes or qatbe.Document, not {type(doc).__name__}")
    return out


def parse_date(value: object) -> float | None:
    """A sortable timestamp (UTC seconds) from what a page or a caller calls a date, or None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, _dt.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=_dt.timezone.utc)
        return moment.timestamp()
    if isinstance(value, _dt.date):
        return _dt.datetime(value.year, value.month, value.day, tzinfo=_dt.timezone.utc).timestamp()
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        for candidate in (text, text[:10]):
            try:
                return parse_date(_dt.datetime.fromisoformat(candidate))
            except ValueError:
                continue
    return None


@dataclass
class _Doc:
    """Working state of one input document while selecting."""

    k: int
    document: Document
    label: str
    url: str | None
    date_text: str | None
    date: float | None
    slots: list[int]
    envelope: int = 0


def _date_of(document: Document, page_date: str | None) -> tuple[str | None, float | None]:
    meta = document.metadata or {}
    for key in _DATE_KEYS:
        if key in meta:
            stamp = parse_date(meta[key])
            if stamp is not None:
                return str(meta[key]), stamp
    stamp = parse_date(page_date)
    return (page_date, stamp) if stamp is not None else (None, None)


# -- selection ---------------------------------------------------------------------------------------------------


def _doc_rank(docs: list[_Doc], ranking: str) -> list[int]:
    """Documents in ranking order for ``recency`` and ``manual`` (and for reading-order fill)."""
    if ranking == "recency":
        return sorted(range(len(docs)), key=lambda d: (docs[d].date is None, -(docs[d].date or 0.0), d))
    return list(range(len(docs)))


def check_budget_room(settings: Settings) -> None:
    """Refuse a budget (less ``reserve_tokens``) that the citation buffer would take whole: the context would be
    empty whatever the documents (``ConfigError``)."""
    if settings.citations and settings.effective_budget <= settings.citation_buffer:
        raise ConfigError(f"a budget of {settings.effective_budget} tokens (after reserve_tokens) leaves nothing "
                          f"after citation_buffer={settings.citation_buffer}; raise the budget or lower the buffer")


def extract_many(
    documents: Iterable[str | bytes | Document],
    query: object = None,
    *,
    tier: str | None = None,
    budget: int | None = None,
    ranking: str | None = None,
    max_document_tokens: int | None = None,
    settings: Settings | None = None,
    fetch_options: FetchOptions | None = None,
    strict: bool = False,
    **options: Any,
) -> ManyResult:
    """One cited context of at most ``budget - reserve_tokens`` tokens from ``documents`` for ``query``.

    ``documents``: strings/bytes (HTML, markdown, text) or ``qatbe.Document`` records. ``ranking``:
    ``"relevance"`` (default), ``"recency"``, ``"manual"``, ``"embedding"`` or ``"hybrid"`` (with ``embedder=``:
    ``qatbe/score/dense.py``). ``max_document_tokens`` caps what one document may
    contribute. Other options as for ``extract`` (``estimator``, ``reserve_tokens``, ``truncation``,
    ``citations``, ``citation_buffer``, ``partial_note``, ``dedupe``, ...). URLs (a ``Document`` with a ``url``
    and no ``source``, or a string that is exactly one http(s) URL) are fetched with ``fetch_options``
    (``qatbe.FetchOptions``: timeout, max_bytes, allow_private, concurrency, ...); one that fails is an
    ``ItemError`` in ``errors`` (``qatbe/fetching.py``). With ``citations`` on, a budget (less ``reserve_tokens``)
    that the ``citation_buffer`` would take whole is a ``ConfigError``.

    A document that cannot be read (binary bytes, an undecodable page: any ``QatbeError`` from parsing) is
    recorded in ``ManyResult.errors`` as an ``ItemError`` and the others go on; ``strict=True`` raises that
    error instead (naming ``documents[k]``), and a URL that could not be fetched as a ``FetchError``.
    """
    if not isinstance(strict, bool):
        raise ConfigError(f"strict must be True or False, not {strict!r}")
    started = time.perf_counter()
    settings = resolve_settings(settings, dict(options, tier=tier, budget=budget, ranking=ranking,
                                               max_document_tokens=max_document_tokens))
    if settings.nested:
        raise ConfigError("nested=True applies to extract (one document), not to extract_many")
    check_budget_room(settings)
    q_text = query_text(query)
    from .fetching import fetch_documents  # fetch builds on Document

    docs_in, fetch_errors = fetch_documents(_as_documents(documents), fetch_options)

    # 1. Parse and pool the main-content segments of every document.
    docs: list[_Doc] = []
    pool: list[Segment] = []
    doc_of_list: list[int] = []
    needs_at: dict[int, int] = {}  # pooled slot -> the slot it may not appear without (select.plan.needs_of)
    units_at: dict[int, int] = {}  # pooled slot -> its split paragraph's first slot (select.plan.paragraph_units)
    costs_parts: list[np.ndarray] = []
    parents_parts: list[np.ndarray] = []
    errors: list[ItemError] = list(fetch_errors)
    fetch_failed = {e.index for e in fetch_errors}
    if strict and fetch_errors:
        first = fetch_errors[0]
        raise FetchError(f"documents[{first.index}]: {first.message}")
    for k, document in enumerate(docs_in):
        try:
            parsed = parse_document(document.source if document.source is not None else "", settings)
        except QatbeError as exc:
            if k in fetch_failed:  # already recorded as the URL that failed
                pass
            elif strict:
                raise type(exc)(f"documents[{k}]: {exc}") from None
            else:
                errors.append(ItemError.of(k, document.id or document.url, exc))
            # An unreadable document takes part as an empty one, so that positions and reports stay aligned.
            docs.append(_Doc(k, document, one_line(document.title or document.id or document.url
                                                   or f"document {k + 1}"), None, None, None, []))
            costs_parts.append(np.zeros(0, dtype=np.int64))
            parents_parts.append(np.zeros(0, dtype=np.int64))
            continue
        segs = [s for s in parsed.segments
                if settings.include_navigation or s.kind is not SegmentKind.NAVIGATION]
        label = one_line(document.title or parsed.metadata.title or document.id or document.url or f"document {k + 1}")
        url = one_line(document.url, 2000) if document.url else (parsed.metadata.url or None)
        date_text, date = _date_of(document, parsed.metadata.date)
        base = len(pool)
        docs.append(_Doc(k, document, label, url, date_text, date, list(range(base, base + len(segs)))))
        pool.extend(segs)
        doc_needs = needs_of(segs)
        if doc_needs is not None:
            needs_at.update({base + i: base + j for i, j in enumerate(doc_needs) if j >= 0})
        doc_units = paragraph_units(segs)
        if doc_units is not None:
            units_at.update({base + i: base + u for i, u in enumerate(doc_units) if u >= 0})
        doc_of_list.extend([k] * len(segs))
        costs_parts.append(measure(segs, settings))
        parents = heading_parents(segs)
        parents_parts.append(np.where(parents >= 0, parents + base, -1))
    n = len(pool)
    doc_of = np.asarray(doc_of_list, dtype=np.int64)
    costs = np.concatenate(costs_parts) if costs_parts else np.zeros(0, dtype=np.int64)
    parents = np.concatenate(parents_parts) if parents_parts else np.zeros(0, dtype=np.int64)

    # 2. Near-duplicates out before anything is charged for them.
    dup_of = find_duplicates(pool).of if settings.dedupe else {}
    live = np.ones(n, dtype=bool)
    for i in dup_of:
        live[i] = False

    # 3. Score over the pooled (deduplicated) segments: one collection, one IDF, comparable scores.
    live_idx = np.flatnonzero(live)
    raw = np.zeros(n, dtype=np.float64)
    scores = score_segments([pool[i] for i in live_idx], q_text, settings)
    live_raw, live_relevant = scores.raw, scores.relevant
    if settings.ranking in DENSE_RANKINGS and scores.query_terms:
        assert settings.embedder is not None and q_text is not None  # Settings and the terms say so
        live_raw, live_relevant = rerank(settings.ranking, settings.embedder, settings.dense_weight,
                                         settings.relevance_floor, q_text, [pool[i].text for i in live_idx],
                                         live_raw)
    raw[live_idx] = live_raw
    weights = np.array([settings.weights[s.kind] for s in pool], dtype=np.float64)
    weighted = raw * weights if n else np.zeros(0)
    matched_mask = (weighted > 0.0) & live
    if live_relevant is not None:  # the relative floor, as in extract: weaker matches may only fill
        relevant = np.zeros(n, dtype=bool)
        relevant[live_idx] = live_relevant
        matched_mask &= relevant

    # 4. Budget: less reserve, citation buffer and the partial note at its widest.
    budget_total = settings.effective_budget
    widest = max(len(docs), 1)
    if settings.citations:
        for entry in docs:
            entry.envelope = envelope_cost(widest, entry.label, entry.url, settings)
    fixed = fixed_cost(settings) if settings.citations else 0
    live_cost = int(costs[live].sum()) if n else 0
    buffer = settings.citation_buffer if settings.citations else 0
    reserve_note = note_reserve(int(live.sum()), live_cost, settings) if settings.partial_note else 0
    with_note = settings.partial_note and reserve_note <= budget_total - buffer  # a note that fits, or none
    room = max(budget_total - buffer - (reserve_note if with_note else 0), 0)

    # 5. Priority order of the matched segments, by the ranking strategy.
    # A slot whose needed slot is a near-duplicate left out has nothing to bring along: it goes on its own.
    needs: list[int] | None = None
    if needs_at:
        needs = [-1] * n
        for i, j in needs_at.items():
            if live[j]:
                needs[i] = j
    order = priority_order(weighted, costs, matched_mask, settings.cost_exponent)
    by_relevance = settings.ranking not in DOCUMENT_RANKINGS  # relevance and the dense rankings
    if not by_relevance:
        rank_of = {d: r for r, d in enumerate(_doc_rank(docs, settings.ranking))}
        position = {i: p for p, i in enumerate(order)}
        order.sort(key=lambda i: (rank_of[int(doc_of[i])], position[i]))

    # 6. The greedy and its best-single guard, as in extract (``select.knapsack.pack``), on a ledger that charges
    # each document's citation envelope with its first segment and keeps the per-document cap. Documents by date
    # or in the given order keep that order: no guard.
    cost_list: list[int] = costs.tolist()
    doc_list: list[int] = doc_of.tolist()
    entries = [entry.envelope for entry in docs]

    def ledger() -> Ledger:
        return Ledger(cost_list, doc_list, entries, room, fixed, settings.max_document_tokens)

    weighted_list: list[float] = weighted.tolist()
    greedy_order = order
    if units_at and by_relevance:  # the best match's paragraph, as in extract
        units = [-1] * n
        for i, u in units_at.items():
            if live[i]:
                units[i] = u
        greedy_order = whole_paragraph_first(order, weighted_list, cost_list, units, room)
    packed = pack(weighted_list, cost_list, parents.tolist(), greedy_order, room, settings.include_headings,
                  ledger=ledger, guard=by_relevance)
    account = packed.ledger
    assert account is not None  # pack keeps the ledger of the pass it returns
    taken, heads = packed.taken, packed.heads
    if needs is not None:  # lead-ins with what they lead into, later steps with the first (select.plan.needs_of)
        taken, heads, _ = settle(taken, heads, account.spent, cost_list, parents.tolist()
                                 if settings.include_headings else None, needs, room, ledger=account)
    taken, context = split_context(taken, order, greedy_order)
    matched = set(taken)
    near_to = matched | set(packed.taken)  # where the fill looks: settle's give-ups too (select.plan)
    picked = matched | heads | context  # grows with the cut segment and the fill

    # 7. Truncation: the best matched segment left out, cut into the space left.
    cut: dict[int, Segment] = {}
    if settings.truncation != "drop":
        left_out = [i for i in order if i not in picked and (needs is None or needs[i] < 0 or needs[i] in picked)]
        if left_out:
            best = max(left_out, key=lambda i: (float(weighted[i]), -i))
            d = int(doc_of[best])
            space = room - account.spent - account.entry_charge(d)
            if settings.max_document_tokens is not None:
                space = min(space, settings.max_document_tokens - account.doc_tokens[d])
            short = truncate(pool[best], space, settings.estimate, settings.truncation, settings.render)
            if short is not None:
                short_cost = int(measure([short], settings)[0])
                charge = account.price((best,), short_cost)
                if charge is not None:
                    pool[best] = short
                    costs[best] = short_cost
                    cut[best] = short
                    account.take((best,), charge)
                    picked.add(best)
                    matched.add(best)

    # 8. Fill: neighbours of what matched, inside the documents already cited; with no match, reading order.
    filler: list[int] = []
    if settings.fill == "neighbors":
        if matched:
            anchors_by_doc: dict[int, list[int]] = {}
            for i in sorted(near_to):
                anchors_by_doc.setdefault(int(doc_of[i]), []).append(i)
            rows = []
            for d, anchors in anchors_by_doc.items():
                arr = np.array(sorted(anchors), dtype=np.int64)
                for i in docs[d].slots:
                    if live[i] and i not in picked:
                        rows.append((int(np.min(np.abs(arr - i))), i))
            filler = [i for _, i in sorted(rows)]
        else:  # nothing matched (or nothing that matched fits): the main content in reading order, as extract does
            filler = [i for d in _doc_rank(docs, settings.ranking) for i in docs[d].slots
                      if live[i] and i not in picked]
        # A segment without a letter or a digit fills only once every other one is in, as in extract (plan.lone).
        bare = [i for i in filler if wordless(pool[i].text)]
        if bare:
            skip = set(bare)
            filler = [i for i in filler if i not in skip]
        account.fill(filler, picked, needs)
        if bare and all(i in picked for i in filler):
            account.fill(bare, picked, needs)
        filler += bare  # last in what a larger budget would bring in, too

    # 9. Render: documents in ranking order, segments in document order, envelope around.
    first_pick: dict[int, int] = {}
    for p, i in enumerate(account.order):
        first_pick.setdefault(int(doc_of[i]), p)
    if by_relevance:
        doc_order = sorted(first_pick, key=lambda d: (first_pick[d], d))
    else:
        doc_order = [d for d in _doc_rank(docs, settings.ranking) if d in first_pick]
    density = weighted / np.maximum(costs, 1)
    drop_order = sorted(picked, key=lambda i: (i in matched, float(density[i]), -i))

    def compose(chosen: set[int], with_note: bool) -> tuple[str, dict[int, int]]:
        numbers: dict[int, int] = {}
        sections = []
        for d in doc_order:
            slots = list(source_order([i for i in docs[d].slots if i in chosen], pool))
            if not slots:
                continue
            numbers[d] = len(numbers) + 1
            sections.append(Section(numbers[d], docs[d].label, docs[d].url,
                                    render([pool[i] for i in slots], settings.render)))
        note = None
        if with_note:
            left = [i for i in live_idx.tolist() if i not in chosen]
            if left:
                note = note_text(len(left), len(live_idx), int(costs[left].sum()))
        return assemble(sections, citations=settings.citations, note=note), numbers

    chosen = set(picked)
    text, numbers = compose(chosen, with_note)
    estimate = settings.estimate
    given_up: list[int] = []
    # Per-piece costs bound the total for the built-in estimators; any other estimator is held to the same
    # guarantee by measuring the final text and giving up the least valuable segment until it fits.
    while chosen and estimate(text) > budget_total:
        worst = drop_order.pop(0)
        chosen.discard(worst)
        given_up.append(worst)
        text, numbers = compose(chosen, with_note)
    if not chosen and text and estimate(text) > budget_total:
        text, numbers = "", {}

    # 10. The account.
    def passage(i: int, citation: int) -> Passage:
        seg = with_outcome(pool[i], int(costs[i]), float(weighted[i]), i in matched)
        return Passage(int(doc_of[i]), citation, seg)

    passages = tuple(passage(i, numbers[d]) for d in doc_order if d in numbers
                     for i in source_order([i for i in docs[d].slots if i in chosen], pool))
    dropped = [i for i in live_idx.tolist() if i not in chosen]
    reports = []
    for entry in docs:
        kept = [i for i in entry.slots if i in chosen]
        lost = [i for i in entry.slots if live[i] and i not in chosen]
        reports.append(SourceReport(
            document=entry.k, citation=numbers.get(entry.k, 0), label=entry.label, id=entry.document.id,
            url=entry.url, date=entry.date_text, tokens=int(costs[kept].sum()) if kept else 0, segments=len(kept),
            dropped_count=len(lost), dropped_tokens=int(costs[lost].sum()) if lost else 0,
            duplicate_count=sum(1 for i in entry.slots if not live[i]),
        ))
    pending_slots = [i for i in given_up[::-1] if i not in cut]
    pending_slots += [i for i in order if i not in chosen and i not in pending_slots]
    pending_slots += [i for i in filler if i not in chosen and i not in pending_slots]
    dup_slots = [i for i in range(n) if not live[i]]
    note_line = text.split("\n", 1)[0] if settings.partial_note and text.startswith("Note: this context") else None
    return ManyResult(
        text=text,
        total_tokens=estimate(text) if text else 0,
        budget=settings.token_budget,
        reserve_tokens=settings.reserve_tokens,
        tier=settings.tier if settings.budget is None else None,
        query=kept_query(query, q_text),
        passages=passages,
        sources=tuple(reports),
        dropped_count=len(dropped),
        dropped_tokens=int(costs[dropped].sum()) if dropped else 0,
        duplicate_count=len(dup_slots),
        duplicate_tokens=int(costs[dup_slots].sum()) if dup_slots else 0,
        truncated_count=sum(1 for i in cut if i in chosen),
        citation_tokens=(sum(docs[d].envelope for d in numbers) + (fixed if numbers else 0)) if settings.citations else 0,
        note=note_line,
        no_match=bool(scores.query_terms) and not bool(matched_mask.any()),
        ranking=settings.ranking,
        evaluation_time_ms=(time.perf_counter() - started) * 1000.0,
        pending=tuple(passage(i, numbers.get(int(doc_of[i]), 0)) for i in pending_slots),
        errors=tuple(sorted(errors, key=lambda e: e.index)),
    )


# ``Document`` is defined in ``qatbe.document`` and named here too, beside the other records of extract_many.
__all__ = ["Document", "ManyResult", "Passage", "SourceReport", "check_budget_room", "extract_many", "parse_date"]
