"""What a good extract keeps, measured per question and summed per dataset × system × budget.

* **Answer retention**: is any gold answer string in the output? Both sides are normalised (Unicode NFKC, case
  folded, punctuation and symbols to spaces, whitespace collapsed) and matched on word boundaries, so that a
  markdown table pipe or a changed hyphen does not hide an answer and the answer "1" is not found inside "10".
  Yes/no and unanswerable questions have no string to look for; they are skipped and counted by reason.
* **Evidence recall**: for each gold evidence unit, the share of its words present in the output (a clipped
  multiset count, like ROUGE-1 recall), averaged over the units; **evidence kept** is the stricter share of units
  whose whole normalised text appears in the output.
* **Tokens used** with one estimator for every system (``chars_div4``, qatbe's default), **over budget** counts,
  **errors**, and **time** per call.
"""

from __future__ import annotations

import functools
import math
import re
import statistics
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..tokens import chars_div4
from .loaders import QAItem

_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")


def _is_punct_or_symbol(char: str) -> bool:
    return unicodedata.category(char)[0] in "PS"


@functools.lru_cache(maxsize=1)
def _punct_table() -> Mapping[int, str]:
    """Every punctuation and symbol code point of the BMP mapped to a space (built on first use, not at import)."""
    return {cp: " " for cp in range(0x10000) if not 0xD800 <= cp <= 0xDFFF and _is_punct_or_symbol(chr(cp))}


def normalize(text: str) -> str:
    """NFKC, casefold, punctuation and symbols to spaces, whitespace collapsed: the form answers are matched in."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(_punct_table())
    return _SPACE.sub(" ", text).strip()


def contains(haystack_normalized: str, needle: str) -> bool:
    """Whether ``needle`` (raw) occurs in an already normalised text, on word boundaries."""
    norm = normalize(needle)
    return bool(norm) and f" {norm} " in f" {haystack_normalized} "


def words(text: str) -> list[str]:
    return _WORD.findall(normalize(text))


SKIP_YES_NO = "yes_no"
SKIP_UNANSWERABLE = "unanswerable"
SKIP_EMPTY = "empty_answer"


def skip_reason(item: QAItem) -> str | None:
    """Why the answer of ``item`` cannot be looked for in a text (``None`` when it can)."""
    if item.answer_type == "yes_no":
        return SKIP_YES_NO
    if item.answer_type == "none" or not item.answers:
        return SKIP_UNANSWERABLE
    if not any(normalize(a) for a in item.answers):
        return SKIP_EMPTY
    return None


def evidence_recall(output_normalized: str, evidence: Sequence[str]) -> tuple[float, float] | None:
    """(mean word recall over evidence units, share of units kept whole), or ``None`` without evidence."""
    units = [e for e in evidence if normalize(e)]
    if not units:
        return None
    have = Counter(output_normalized.split())
    recalls: list[float] = []
    whole = 0
    padded = f" {output_normalized} "
    for unit in units:
        want = Counter(normalize(unit).split())
        hit = sum(min(n, have[w]) for w, n in want.items())
        recalls.append(hit / sum(want.values()))
        whole += f" {normalize(unit)} " in padded
    return sum(recalls) / len(recalls), whole / len(units)


@dataclass(frozen=True, slots=True)
class ItemScore:
    """The measurements of one system's output for one question at one budget."""

    item_id: str
    retained: bool | None  # None: skipped (see skip)
    skip: str | None
    evidence_recall: float | None
    evidence_kept: float | None
    tokens: int
    over_budget: bool
    error: str | None
    seconds: float


def score_item(item: QAItem, output: str | None, budget: int, seconds: float, error: str | None = None) -> ItemScore:
    """Scores one output; an error counts as an empty output (so it costs retention) and is recorded."""
    text = output or ""
    norm = normalize(text)
    reason = skip_reason(item)
    retained = None if reason else any(contains(norm, a) for a in item.answers)
    recall = evidence_recall(norm, item.evidence)
    tokens = chars_div4(text)
    return ItemScore(
        item_id=item.id,
        retained=retained,
        skip=reason,
        evidence_recall=None if recall is None else recall[0],
        evidence_kept=None if recall is None else recall[1],
        tokens=tokens,
        over_budget=tokens > budget,
        error=error,
        seconds=seconds,
    )


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile: an observed value, no interpolation."""
    if not values:
        return None
    ordered = sorted(values)
    rank = min(len(ordered), max(1, math.ceil(q * len(ordered) - 1e-9)))
    return ordered[rank - 1]


@dataclass(frozen=True)
class Summary:
    """Aggregates over the questions of one dataset × system × budget."""

    questions: int
    answerable: int
    retained: int
    skipped: Mapping[str, int]
    with_evidence: int
    evidence_recall: float | None
    evidence_kept: float | None
    tokens_mean: float
    tokens_max: int
    over_budget: int
    errors: int
    first_error: str | None
    ms_mean: float
    ms_median: float
    ms_p95: float
    extra: Mapping[str, object] = field(default_factory=dict)

    @property
    def answer_retention(self) -> float | None:
        return self.retained / self.answerable if self.answerable else None

    def to_dict(self) -> dict[str, object]:
        return {
            "questions": self.questions,
            "answerable": self.answerable,
            "retained": self.retained,
            "answer_retention": self.answer_retention,
            "skipped": dict(self.skipped),
            "with_evidence": self.with_evidence,
            "evidence_recall": self.evidence_recall,
            "evidence_kept": self.evidence_kept,
            "tokens_mean": self.tokens_mean,
            "tokens_max": self.tokens_max,
            "over_budget": self.over_budget,
            "errors": self.errors,
            "first_error": self.first_error,
            "ms_mean": self.ms_mean,
            "ms_median": self.ms_median,
            "ms_p95": self.ms_p95,
            **dict(self.extra),
        }


def summarize(scores: Iterable[ItemScore]) -> Summary:
    rows = list(scores)
    answerable = [s for s in rows if s.retained is not None]
    recalls = [s.evidence_recall for s in rows if s.evidence_recall is not None]
    kept = [s.evidence_kept for s in rows if s.evidence_kept is not None]
    ms = [s.seconds * 1000.0 for s in rows]
    errors = [s.error for s in rows if s.error is not None]
    return Summary(
        questions=len(rows),
        answerable=len(answerable),
        retained=sum(1 for s in answerable if s.retained),
        skipped=dict(sorted(Counter(s.skip for s in rows if s.skip is not None).items())),
        with_evidence=len(recalls),
        evidence_recall=_mean(recalls),
        evidence_kept=_mean(kept),
        tokens_mean=_mean([float(s.tokens) for s in rows]) or 0.0,
        tokens_max=max((s.tokens for s in rows), default=0),
        over_budget=sum(1 for s in rows if s.over_budget),
        errors=len(errors),
        first_error=errors[0] if errors else None,
        ms_mean=_mean(ms) or 0.0,
        ms_median=statistics.median(ms) if ms else 0.0,
        ms_p95=_percentile(ms, 0.95) or 0.0,
    )
