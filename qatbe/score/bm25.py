"""Builds the flat arrays the kernel takes and returns raw BM25 scores per segment.

First version: analysis is regex words, lower-cased, English Snowball stems, a small stopword list. The fuller
treatment (languages, CJK, synonyms, background IDF) belongs to the query-understanding work.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import Stemmer

from .._backend import kernel
from ..settings import Settings
from ..types import Segment

_WORD = re.compile(r"\w+")
_STOP = frozenset(
    "a an the and or but in on at to for of with by from is it its that this was are be been have has had do does "
    "did will would could should may might can not so if then than about what which who whom when where why how i "
    "me my we our you your he him his she her they them their there here as into also just only very".split()
)
_VARIANT = {"lucene": 0, "okapi": 1, "plus": 2, "l": 3}
_stemmer = Stemmer.Stemmer("english")


@dataclass(frozen=True)
class Scores:
    """Raw relevance per segment (before type weights) and the query terms that were searched for."""

    raw: npt.NDArray[np.float64]
    query_terms: tuple[str, ...]

    @property
    def any_match(self) -> bool:
        return bool(self.raw.size and self.raw.max() > 0.0)


def _terms(text: str) -> list[str]:
    words = [w for w in _WORD.findall(text.lower()) if w not in _STOP]
    return _stemmer.stemWords(words)  # type: ignore[no-any-return]


def score_segments(segments: Sequence[Segment], query: str | None, settings: Settings) -> Scores:
    q_terms = list(dict.fromkeys(_terms(query or "")))
    n = len(segments)
    if not q_terms or n == 0:
        return Scores(np.zeros(n, dtype=np.float64), tuple(q_terms))
    vocab: dict[str, int] = {t: i for i, t in enumerate(q_terms)}
    ids: list[int] = []
    offsets = [0]
    for seg in segments:
        text = seg.text if not seg.heading_path else seg.text
        for term in _terms(text):
            ids.append(vocab.setdefault(term, len(vocab)))
        offsets.append(len(ids))
    raw = kernel.bm25_scores(
        np.asarray(ids, dtype=np.int32),
        np.asarray(offsets, dtype=np.int64),
        len(vocab),
        np.arange(len(q_terms), dtype=np.int32),
        np.ones(len(q_terms), dtype=np.float64),
        settings.k1,
        settings.b,
        _VARIANT[settings.bm25],
    )
    return Scores(raw, tuple(q_terms))
