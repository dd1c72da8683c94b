"""What the framework adapters share, with no framework imported: options checked once, one budget cut across
retrieved texts (``extract_many``) and handed back one piece per text, and the per-text cut (``extract``).

LangChain and LlamaIndex both pass a list of retrieved texts and expect a list back, one item per text kept. The
``extract_many`` selection is made over all of them; each text's chosen passages are then rendered on their own
(no citation envelope: the framework keeps the documents apart and formats them itself), and the pieces together
are held to the budget by the estimator, whatever it is.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError, InputError, QatbeError
from ..many import Passage, extract_many
from ..pipeline import Extractor
from ..render import render
from ..types import ItemError, Metadata

logger = logging.getLogger(__package__)  # qatbe.integrations: what the adapters' documentation names

# extract_many options that shape the cited context as one text; an adapter hands back one piece per input, so
# they would do nothing there and are refused rather than ignored.
_ENVELOPE_OPTIONS = ("citations", "citation_buffer", "partial_note")
# Options only extract_many reads: with one cut per text they would do nothing.
_MANY_OPTIONS = ("ranking", "max_document_tokens", "dedupe")


@dataclass(frozen=True)
class Piece:
    """What is kept of one input text: its position in the input, its cut text, that text's tokens by the
    estimator, and its best passage's weighted query score (0.0 when only context was kept)."""

    index: int
    text: str
    tokens: int
    score: float
    page: Metadata | None = None  # the page's own metadata (title, date, ...), from a cut per text


def check_flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be True or False, not {value!r}")
    return value


def build_extractor(owner: str, budget: int | None, tier: str | None, options: Mapping[str, Any],
                    *, together: bool) -> Extractor:
    """The validated settings of one adapter (a bad option raises ``ConfigError`` here, at construction).

    ``together``: one budget over all texts (``extract_many``) rather than one cut per text (``extract``)."""
    refused = [k for k in _ENVELOPE_OPTIONS if k in options]
    if together:
        refused += ["nested"] if "nested" in options else []
    else:
        refused += [k for k in _MANY_OPTIONS if k in options]
    if refused:
        mode = "one budget over all documents" if together else "a cut per document"
        raise ConfigError(f"{owner} does not take {refused[0]!r}: it returns each document on its own, with {mode}")
    given: dict[str, Any] = dict(options, budget=budget, tier=tier)
    if together:
        given["citations"] = False
    return Extractor(**given)


def _report(owner: str, errors: Sequence[ItemError], strict: bool) -> None:
    for error in errors:
        if strict:
            raise InputError(f"documents[{error.index}]: {error.message}")
        logger.warning("%s left out documents[%d]: %s: %s", owner, error.index, error.error_type, error.message)


def _unreadable(extractor: Extractor, texts: Sequence[str]) -> list[ItemError]:
    """The texts qatbe cannot read, found one by one (only after ``extract_many`` refused the lot)."""
    found: list[ItemError] = []
    for k, text in enumerate(texts):
        try:
            extractor.parse(text)
        except QatbeError as exc:
            found.append(ItemError.of(k, None, exc))
    return found


def cut_together(owner: str, extractor: Extractor, texts: Sequence[str], query: str | None,
                 *, strict: bool) -> list[Piece]:
    """One ``extract_many`` selection over ``texts``; one piece per text that contributes, highest score first
    (ties in input order). The pieces' tokens add up to at most the budget less ``reserve_tokens``."""
    settings = extractor.settings
    kept = list(range(len(texts)))
    try:
        result = extract_many(list(texts), query, settings=settings)
        errors = list(result.errors)
    except InputError:
        if strict:
            raise
        # An extract_many that stops at the first unreadable text: find them all, and cut the others.
        errors = _unreadable(extractor, texts)
        bad = {e.index for e in errors}
        kept = [k for k in kept if k not in bad]
        result = extract_many([texts[k] for k in kept], query, settings=settings)
    _report(owner, errors, strict)

    groups: dict[int, list[Passage]] = {}
    for passage in result.passages:
        groups.setdefault(kept[passage.document], []).append(passage)
    estimate = settings.estimate

    def piece(k: int) -> Piece:
        text = render([p.segment for p in groups[k]], settings.render)
        return Piece(k, text, int(estimate(text)) if text else 0, max(p.segment.score for p in groups[k]))

    pieces = {k: piece(k) for k in groups}
    # A text rendered alone may cost a token more than its share of the joined text (the estimator rounds each
    # piece up), and a caller's estimator need not add up at all: the least valuable passages go until it fits.
    room = settings.effective_budget
    while pieces and sum(p.tokens for p in pieces.values()) > room:
        k, worst = min(((k, p) for k, ps in groups.items() for p in ps),
                       key=lambda kp: (kp[1].segment.matched, kp[1].segment.score / max(kp[1].segment.tokens, 1),
                                       -kp[1].segment.index))
        groups[k].remove(worst)
        if groups[k]:
            pieces[k] = piece(k)
        else:
            del groups[k], pieces[k]
    return sorted((p for p in pieces.values() if p.text), key=lambda p: (-p.score, p.index))


def cut_each(owner: str, extractor: Extractor, texts: Sequence[str], query: str | None,
             *, strict: bool) -> list[Piece]:
    """Each text cut to the budget on its own (``extract``), in input order; a text with nothing kept is left out."""
    pieces: list[Piece] = []
    errors: list[ItemError] = []
    for k, text in enumerate(texts):
        try:
            r = extractor.extract(text, query)
        except QatbeError as exc:
            errors.append(ItemError.of(k, None, exc))
            continue
        if r.text:
            pieces.append(Piece(k, r.text, r.total_tokens, max((s.score for s in r.segments), default=0.0),
                                r.metadata))
    _report(owner, errors, strict)
    return pieces
