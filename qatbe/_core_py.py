"""Pure-Python twin of ``qatbe._core``: same signatures, same results; the fallback and the test oracle.

Written as plain loops on purpose, so that it reads like the formulas in ``_core.pyx``'s docstring.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt

from ._kernel_types import PageScores, ScoringParams
from ._sample import joined_sample

LUCENE = 0
OKAPI = 1
OKAPI_MIN_MEAN = 0.01  # okapi: floor of the mean IDF, so that a matched term never scores <= 0
PLUS = 2
BM25L = 3


def _check_offsets(offsets: Sequence[int], end: int, name: str, end_name: str) -> int:
    """CSR offsets (every array of "where item i starts"): at least one, from 0 to ``end``, never decreasing.
    Returns how many items they delimit."""
    n = len(offsets) - 1
    if n < 0:
        raise ValueError(f"{name} must hold at least one offset")
    if offsets[0] != 0 or offsets[n] != end:
        raise ValueError(f"{name} must start at 0 and end at {end_name}")
    if any(offsets[i + 1] < offsets[i] for i in range(n)):
        raise ValueError(f"{name} must be non-decreasing")
    return n


def _check_csr(doc_terms: Sequence[int], doc_offsets: Sequence[int], n_terms: int) -> int:
    if n_terms < 0:
        raise ValueError("n_terms must be >= 0")
    n_docs = _check_offsets(doc_offsets, len(doc_terms), "doc_offsets", "len(doc_terms)")
    for t in doc_terms:
        if t < 0 or t >= n_terms:
            raise ValueError(f"document term id {t} out of range [0, {n_terms})")
    return n_docs


def _positions(positions: npt.NDArray[np.int64] | Sequence[int] | None, offsets: Sequence[int]) -> list[int]:
    """Each entry's place in its document (its own index without ``positions``), checked as the compiled core
    checks them: one per entry, >= 0 and increasing within a document."""
    n = offsets[-1] if offsets else 0
    if positions is None:
        return list(range(n))
    places = [int(p) for p in positions]
    if len(places) != n:
        raise ValueError(f"positions must have one entry per document term ({n}), not {len(places)}")
    for d in range(len(offsets) - 1):
        run = places[offsets[d]:offsets[d + 1]]
        if any(b <= a for a, b in pairwise([-1, *run])):
            raise ValueError("positions must be >= 0 and increase within each document")
    return places


def _check_query(query_terms: Sequence[int], n_terms: int) -> None:
    for t in query_terms:
        if t < 0 or t >= n_terms:
            raise ValueError(f"query term id {t} out of range [0, {n_terms})")


def _slots(query_terms: Sequence[int]) -> dict[int, int]:
    slot_of: dict[int, int] = {}
    for q, t in enumerate(query_terms):
        slot_of.setdefault(int(t), q)
    return slot_of


def bm25_scores(
    doc_terms: npt.NDArray[np.int32],
    doc_offsets: npt.NDArray[np.int64],
    n_terms: int,
    query_terms: npt.NDArray[np.int32],
    query_weights: npt.NDArray[np.float64],
    k1: float = 1.2,
    b: float = 0.75,
    variant: int = 0,
    delta: float = 0.5,
    prior_n: float = 0.0,
    prior_df: npt.NDArray[np.float64] | None = None,
    doc_lengths: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.float64]:
    """BM25 score of every segment for the query terms (distinct ids; a repeated id scores once)."""
    terms = [int(t) for t in doc_terms]
    offsets = [int(o) for o in doc_offsets]
    qterms = [int(t) for t in query_terms]
    n_docs = _check_csr(terms, offsets, n_terms)
    n_q = len(qterms)
    if len(query_weights) != n_q:
        raise ValueError("query_terms and query_weights must have the same length")
    if variant not in (0, 1, 2, 3):
        raise ValueError(f"unknown BM25 variant {variant}")
    if not (math.isfinite(k1) and k1 >= 0 and math.isfinite(b) and 0 <= b <= 1 and math.isfinite(delta) and delta >= 0):
        raise ValueError("k1 and delta must be finite and >= 0, b in [0, 1]")
    if not (math.isfinite(prior_n) and prior_n >= 0):
        raise ValueError("prior_n must be finite and >= 0")
    if doc_lengths is not None:
        if len(doc_lengths) != n_docs:
            raise ValueError("doc_lengths must have one entry per document")
        if not all(math.isfinite(x) and x >= 0 for x in doc_lengths):
            raise ValueError("doc_lengths must be finite and >= 0")
    if prior_df is not None and len(prior_df) != n_q:
        raise ValueError("prior_df must have one entry per query term")
    for q in range(n_q):
        if not (math.isfinite(query_weights[q]) and query_weights[q] >= 0):
            raise ValueError("query weights must be finite and >= 0")
        if prior_df is not None and not (math.isfinite(prior_df[q]) and 0 <= prior_df[q] <= prior_n):
            raise ValueError("prior_df values must lie in [0, prior_n]")
    _check_query(qterms, n_terms)
    scores = np.zeros(n_docs, dtype=np.float64)
    if n_docs == 0 or n_q == 0:
        return scores
    slot_of = _slots(qterms)
    tf = [[0.0] * n_q for _ in range(n_docs)]
    total = 0.0
    lengths = [float(offsets[d + 1] - offsets[d]) if doc_lengths is None else float(doc_lengths[d])
               for d in range(n_docs)]
    for d in range(n_docs):
        total += lengths[d]
        for i in range(offsets[d], offsets[d + 1]):
            slot = slot_of.get(terms[i])
            if slot is not None:
                tf[d][slot] += 1.0
    df = [sum(1.0 for d in range(n_docs) if tf[d][q] > 0) for q in range(n_q)]
    avgdl = total / n_docs
    if avgdl <= 0:
        avgdl = 1.0
    n = n_docs + prior_n
    idf = []
    for q in range(n_q):
        dfq = df[q] + (float(prior_df[q]) if prior_df is not None else 0.0)
        if variant == LUCENE:
            idf.append(math.log(1.0 + (n - dfq + 0.5) / (dfq + 0.5)))
        elif variant == OKAPI:
            idf.append(math.log((n - dfq + 0.5) / (dfq + 0.5)))
        elif variant == PLUS:
            idf.append(math.log((n + 1.0) / dfq) if dfq > 0 else 0.0)
        else:
            idf.append(math.log((n + 1.0) / (dfq + 0.5)))
    if variant == OKAPI:
        mean_idf = sum(idf) / n_q
        if mean_idf <= 0:
            mean_idf = OKAPI_MIN_MEAN
        idf = [delta * mean_idf if v <= 0 else v for v in idf]
    for d in range(n_docs):
        norm = 1.0 - b + b * lengths[d] / avgdl
        total_d = 0.0
        for q in range(n_q):
            f = tf[d][q]
            if f <= 0:
                continue
            w = float(query_weights[q])
            if variant in (LUCENE, OKAPI):
                total_d += w * idf[q] * f * (k1 + 1.0) / (f + k1 * norm)
            elif variant == PLUS:
                total_d += w * idf[q] * (delta + f * (k1 + 1.0) / (f + k1 * norm))
            elif norm > 0.0:
                c = f / norm
                total_d += w * idf[q] * (k1 + 1.0) * (c + delta) / (k1 + c + delta)
            else:  # a zero normalised length (b = 1, a caller's length of 0): c is infinite, the tf part k1 + 1
                total_d += w * idf[q] * (k1 + 1.0)
        scores[d] = total_d
    return scores


def proximity_pairs(
    doc_terms: npt.NDArray[np.int32],
    doc_offsets: npt.NDArray[np.int64],
    n_terms: int,
    query_terms: npt.NDArray[np.int32],
    window: int = 8,
    positions: npt.NDArray[np.int64] | None = None,
) -> npt.NDArray[np.float64]:
    """Per segment, the number of distinct pairs of query slots that occur within ``window`` tokens of each other;
    ``positions``: each term's place (see ``qatbe._core.proximity_pairs``)."""
    terms = [int(t) for t in doc_terms]
    offsets = [int(o) for o in doc_offsets]
    qterms = [int(t) for t in query_terms]
    n_docs = _check_csr(terms, offsets, n_terms)
    _check_query(qterms, n_terms)
    places = _positions(positions, offsets)
    if window < 1:
        raise ValueError("window must be >= 1")
    out = np.zeros(n_docs, dtype=np.float64)
    if n_docs == 0 or len(qterms) < 2:
        return out
    slot_of = _slots(qterms)
    for d in range(n_docs):
        at: dict[int, list[int]] = {}
        for p in range(offsets[d], offsets[d + 1]):
            slot = slot_of.get(terms[p])
            if slot is not None:
                at.setdefault(slot, []).append(places[p])
        pairs = 0
        slots = sorted(at)
        for i, a in enumerate(slots):
            for c in slots[i + 1 :]:
                if any(abs(x - y) <= window for x in at[a] for y in at[c]):
                    pairs += 1
        out[d] = float(pairs)
    return out


def page_scores(
    doc_terms: npt.NDArray[np.int32],
    doc_offsets: npt.NDArray[np.int64],
    n_terms: int,
    query_terms: npt.NDArray[np.int32],
    query_weights: npt.NDArray[np.float64],
    doc_lengths: npt.NDArray[np.float64],
    texts: Sequence[str],
    heads: Sequence[int],
    levels: Sequence[int],
    groups: Sequence[int],
    *,
    params: ScoringParams,
    prior_df: npt.NDArray[np.float64] | None = None,
    n_near: int = 0,
    positions: npt.NDArray[np.int64] | None = None,
) -> PageScores:
    """A page's scores in one call; see ``qatbe._core.page_scores`` for what each part is (None: 0 everywhere)."""
    k1, b, variant, delta, prior_n = params.k1, params.b, params.variant, params.delta, params.prior_n
    window, proximity, lead_in, heading = params.window, params.proximity, params.lead_in, params.heading
    sibling, floor, inherit_words = params.sibling, params.floor, params.inherit_words
    base = bm25_scores(doc_terms, doc_offsets, n_terms, query_terms, query_weights, k1, b, variant, delta, prior_n,
                       prior_df, doc_lengths)
    _positions(positions, [int(o) for o in doc_offsets])
    items = _texts(texts)
    n = len(base)
    if len(items) != n:
        raise ValueError("texts must have one entry per document")
    if not 0 <= n_near <= len(query_terms):
        raise ValueError("n_near must lie in [0, len(query_terms)]")
    if window < 1:
        raise ValueError("window must be >= 1")
    if not all(math.isfinite(x) for x in (proximity, lead_in, heading, sibling, floor, inherit_words)):
        raise ValueError("the shares and the floor must be finite")
    if inherit_words < 0.0:
        raise ValueError("inherit_words must be >= 0")
    head_idx, head_level, group = [int(h) for h in heads], [int(v) for v in levels], [int(g) for g in groups]
    if len(head_level) != len(head_idx):
        raise ValueError(f"levels must have {len(head_idx)} entries, not {len(head_level)}")
    if len(group) != n:
        raise ValueError(f"groups must have {n} entries, not {len(group)}")
    if any(not 0 <= h < n for h in head_idx) or any(y <= x for x, y in pairwise(head_idx)):
        raise ValueError("heads must be increasing document indices")
    terms = [int(t) for t in doc_terms]
    offsets = [int(o) for o in doc_offsets]
    slot_of = _slots([int(t) for t in query_terms])
    df = np.asarray([sum(1 for d in range(n) if any(slot_of.get(t) == q for t in terms[offsets[d]:offsets[d + 1]]))
                     for q in range(len(query_terms))], dtype=np.int64)
    raw = [float(x) for x in base]
    zeros = [0.0] * n
    lengths = ([float(x) for x in doc_lengths] if doc_lengths is not None
               else [float(offsets[d + 1] - offsets[d]) for d in range(n)])
    keep = [1.0 if inherit_words <= 0.0 or x >= inherit_words else x / inherit_words for x in lengths]

    def added(part: list[float], share: float, inherited: bool = True) -> list[float]:
        """``share`` x ``part`` (x the share a text keeps of what it inherits) added to ``raw``; zeros when that
        is 0 everywhere."""
        scaled = [share * x * k for x, k in zip(part, keep)] if inherited else [share * x for x in part]
        if not any(x != 0.0 for x in scaled):
            return zeros
        raw[:] = [r + x for r, x in zip(raw, scaled)]
        return scaled

    prox = zeros
    if proximity > 0.0 and n_near >= 2:
        pairs = proximity_pairs(doc_terms, doc_offsets, n_terms, query_terms[:n_near], window, positions)
        prox = added([float(x) for x in pairs], proximity, inherited=False)
    is_head = set(head_idx)
    level_of = dict(zip(head_idx, head_level))
    up = [-1] * n
    stack: list[int] = []
    for i in range(n):
        if i in is_head:
            while stack and level_of[stack[-1]] >= level_of[i]:
                stack.pop()
        up[i] = stack[-1] if stack else -1
        if i in is_head:
            stack.append(i)
    lead = zeros
    if lead_in > 0.0 and n:
        ends = last_visible(items[:-1]).tolist()
        lead = added([0.0] + [raw[i - 1] if ends[i - 1] in (0x3A, 0xFF1A) and i not in is_head else 0.0
                              for i in range(1, n)], lead_in)
    head = zeros
    if heading > 0.0 and head_idx:
        chains = []
        for i in range(n):
            chain, k = [], up[i]
            while k >= 0:
                chain.append(raw[k])
                k = up[k]
            chains.append(max(chain) if chain else 0.0)
        head = added(chains, heading)
    sib = zeros
    if sibling > 0.0:
        parts = []
        for i, g in enumerate(group):
            value = 0.0
            if g >= 0 and i > 0 and group[i - 1] == g:
                value = raw[i - 1]
            if g >= 0 and i + 1 < n and group[i + 1] == g and raw[i + 1] > value:
                value = raw[i + 1]
            parts.append(value)
        sib = added(parts, sibling)
    best = max(raw, default=0.0)
    relevant = np.asarray([r > 0.0 and r >= floor * best for r in raw], dtype=np.bool_)

    def part(x: list[float]) -> npt.NDArray[np.float64] | None:
        return np.asarray(x, dtype=np.float64) if any(v != 0.0 for v in x) else None

    return PageScores(np.asarray(raw, dtype=np.float64), base, part(prox), part(lead), part(head), part(sib),
                      relevant, float(best), df, np.asarray(up, dtype=np.int64) if head_idx else None)


def _texts(texts: Iterable[str]) -> list[str]:
    """The texts as a list, each checked to be a str (as ``qatbe._core``'s own ``_texts``)."""
    items = list(texts)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"tokenize expects str items, got {type(item).__name__}")
    return items


def _is_cjk(c: int) -> bool:
    return (0x3040 <= c <= 0x30FF or 0x3400 <= c <= 0x4DBF or 0x4E00 <= c <= 0x9FFF or 0xF900 <= c <= 0xFAFF
            or 0xAC00 <= c <= 0xD7AF)


def _is_mark(c: int) -> bool:
    return (0x0300 <= c <= 0x036F or 0x0483 <= c <= 0x0489 or 0x0591 <= c <= 0x05C7 or 0x0610 <= c <= 0x061A
            or 0x064B <= c <= 0x065F or 0x0900 <= c <= 0x0DFF or 0x0E00 <= c <= 0x0EFF or 0x1AB0 <= c <= 0x1AFF
            or 0x1DC0 <= c <= 0x1DFF or 0x20D0 <= c <= 0x20FF or 0xFE20 <= c <= 0xFE2F)


def _is_word(ch: str) -> bool:
    c = ord(ch)
    if _is_cjk(c):
        return False
    return ch.isalnum() or ch == "_" or _is_mark(c)


_JOINERS = frozenset("-'.,\u2019")
_ASCII_ALNUM = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _simple(token: str) -> bool:
    if not all(ch in _ASCII_ALNUM for ch in token):
        return False
    all_upper = not any(ch.islower() for ch in token)
    upper_late = any(ch.isupper() for ch in token[1:])
    return not upper_late or all_upper


def _ascii_lower_or_digit(ch: str) -> bool:
    return "a" <= ch <= "z" or "0" <= ch <= "9"


def _ascii_upper(ch: str) -> bool:
    return "A" <= ch <= "Z"


def _folded(ch: str, fold: Sequence[int] | None) -> str | None:
    """``ch`` as the analyser folds it (ASCII lower-cased; others through ``fold``), None when not known."""
    c = ord(ch)
    if c < 128:
        return ch.translate(_LOWER_ASCII)
    if fold is not None and c < len(fold) and fold[c]:
        return chr(fold[c])
    return None


def complex_keys(token: str, fold: Sequence[int] | None = None) -> set[str] | None:
    """The prefixes the terms of a non-simple token can have, or None when a part start's characters cannot be
    folded (the token cannot be ruled out); see ``_core._complex_match``. Without ``fold`` only ASCII is known."""
    keys: set[str] = set()
    for k in range(len(token)):
        prev, cur = (token[k - 1] if k else ""), token[k]
        nxt = token[k + 1] if k + 1 < len(token) else ""
        if (k == 0 or prev in _JOINERS or prev == "_" or (_ascii_lower_or_digit(prev) and _ascii_upper(cur))
                or (_ascii_upper(prev) and _ascii_upper(cur) and "a" <= nxt <= "z")):
            k2 = k + 1
            while k2 < len(token) and token[k2] in _JOINERS:
                k2 += 1
            for b in dict.fromkeys((k + 1, k2)):
                if b > k + 1 and b >= len(token):
                    continue  # no joined form: the part ends in joiners
                pair = [_folded(token[k], fold)] + ([_folded(token[b], fold)] if b < len(token) else [])
                if None in pair:
                    return None
                keys.add("".join(pair))  # type: ignore[arg-type]
    return keys


def _cjk_key(token: str) -> str | None:
    """A CJK token's own key (itself), None for one holding a compatibility ideograph (see ``_core._cjk_match``)."""
    return None if any(0xF900 <= ord(ch) <= 0xFAFF for ch in token) else token


def _prefix_key(p: object, three: bool = True) -> str:
    """A prefix checked (``three``: a three-character ASCII one allowed; a check's is one or two characters)."""
    if not isinstance(p, str) or not (1 <= len(p) <= 2 or (three and len(p) == 3 and p.isascii())):
        raise ValueError(f"prefixes must be strings of 1 or 2 characters or 3 ASCII ones, not {p!r}")
    return p


# A three-character prefix limits the simple tokens that start with its first two characters to its third, unless
# a shorter prefix admits them all; past this many limited two-character starts, none is limited.
THIRD_LIMITS = 64


def _limits(given: set[str]) -> dict[str, set[str]]:
    """Per two-character start that only three-character prefixes give, the third characters they admit."""
    whole = {p for p in given if len(p) <= 2}
    out: dict[str, set[str]] = {}
    for p in given:
        if len(p) == 3 and p[:2] not in whole:
            out.setdefault(p[:2], set()).add(p[2])
    return {} if len(out) > THIRD_LIMITS else out


def _fold_table(fold: object) -> list[int] | None:
    """``fold`` checked, as a list (None stays None)."""
    if fold is None:
        return None
    arr = np.asarray(fold)
    if arr.dtype != np.uint32 or arr.ndim != 1:
        raise ValueError("fold must be a 1-D uint32 array")
    return [int(x) for x in arr.tolist()]


def _ruled_out(token: str, fold: Sequence[int] | None, wanted: set[str]) -> bool:
    keys = complex_keys(token, fold)
    return keys is not None and not keys & wanted


def tokenize(
    texts: Sequence[str], prefixes: Sequence[str] | None = None, fold: Sequence[int] | None = None
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], list[str], bytes]:
    """Raw tokens of every text, as ids over one vocabulary: ``(ids, offsets, vocab, simple)``.

    See ``qatbe._core.tokenize`` for the rules; this is the same scan, one character at a time.
    """
    items = _texts(texts)
    given = None if prefixes is None else {_prefix_key(p) for p in prefixes}
    wanted = None if given is None else {p[:2] for p in given}  # a three-character prefix by its first two
    limits = {} if given is None else _limits(given)
    fold = _fold_table(fold)
    index: dict[tuple[str, bool], int] = {}
    vocab: list[str] = []
    simple: list[int] = []
    ids: list[int] = []
    offsets = [0]

    def emit(key: str, is_simple: bool) -> None:
        idx = index.get((key, is_simple))
        if idx is None:
            idx = index[(key, is_simple)] = len(vocab)
            vocab.append(key)
            simple.append(int(is_simple))
        ids.append(idx)

    if wanted is not None:
        emit("", True)
        ids.pop()
    for text in items:
        i, n = 0, len(text)
        while i < n:
            ch = text[i]
            if _is_cjk(ord(ch)):
                start = i
                while i < n and _is_cjk(ord(text[i])):
                    i += 1
                for key in ([ch] if i - start == 1 else [text[k : k + 2] for k in range(start, i - 1)]):
                    own = _cjk_key(key) if wanted is not None and fold is not None else None
                    if own is not None and own not in wanted:  # type: ignore[operator]
                        ids.append(0)
                    else:
                        emit(key, True)
                continue
            if not _is_word(ch):
                i += 1
                continue
            start = i
            while True:
                while i < n and _is_word(text[i]):
                    i += 1
                if i + 1 < n and text[i] in _JOINERS and text[i + 1] != "_" and _is_word(text[i + 1]):
                    i += 1
                    continue
                break
            token = text[start:i]
            if _simple(token):
                low = token.translate(_LOWER_ASCII)
                third = limits.get(low[:2]) if len(low) > 2 else None
                if wanted is not None and (low[:2] not in wanted or (third is not None and low[2] not in third)):
                    ids.append(0)
                else:
                    emit(low, True)
            elif wanted is not None and (fold is not None or token.isascii()) and _ruled_out(token, fold, wanted):
                ids.append(0)
            else:
                emit(token, False)
        offsets.append(len(ids))
    return (np.asarray(ids, dtype=np.int32), np.asarray(offsets, dtype=np.int64), vocab, bytes(simple))


_LOWER_ASCII = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class Scan:
    """The texts of a page, scanned once; see ``qatbe._core.Scan``. The twin keeps the texts and tokenizes them
    again on each use: the results are the same, only the saving is the compiled core's."""

    def __init__(self, texts: list[str]) -> None:
        self._texts = texts

    def __len__(self) -> int:
        return len(self._texts)

    @property
    def texts(self) -> list[str]:
        return list(self._texts)


def scan(texts: Sequence[str]) -> Scan:
    """The texts checked (str only) and kept for ``TermMemo.index`` / ``TermMemo.terms``."""
    items = _texts(texts)
    return Scan(items)


def _texts_of(texts: Sequence[str] | Scan, which: Sequence[int] | None = None) -> list[str]:
    """The texts of a Scan or a sequence, or those at ``which`` (indices into them), in that order."""
    items = texts.texts if isinstance(texts, Scan) else list(texts)
    if which is None:
        return items
    out = []
    for t in which:
        if not 0 <= t < len(items):
            raise IndexError(f"text index {t} out of range [0, {len(items)})")
        out.append(items[t])
    return out


def remap(
    tok_ids: npt.NDArray[np.int32],
    tok_offsets: npt.NDArray[np.int64],
    starts: npt.NDArray[np.int64],
    terms: npt.NDArray[np.int32],
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    """Token ids -> term ids in CSR form: token ``j`` becomes ``terms[starts[j]:starts[j + 1]]`` (zero or more)."""
    toks = [int(t) for t in tok_ids]
    offs = [int(o) for o in tok_offsets]
    st = [int(s) for s in starts]
    n_voc = _check_offsets(st, len(terms), "starts", "len(terms)")
    n_seg = _check_offsets(offs, len(toks), "tok_offsets", "len(tok_ids)")
    for t in toks:
        if t < 0 or t >= n_voc:
            raise ValueError(f"token id {t} out of range [0, {n_voc})")
    ids: list[int] = []
    out_offsets = [0]
    for d in range(n_seg):
        for i in range(offs[d], offs[d + 1]):
            ids.extend(int(x) for x in terms[st[toks[i]] : st[toks[i] + 1]])
        out_offsets.append(len(ids))
    return np.asarray(ids, dtype=np.int32), np.asarray(out_offsets, dtype=np.int64)


def page_fields(
    segments: Sequence[Any], heading: object, prose: Sequence[object]
) -> tuple[list[str], list[int], list[int], list[int], bytes]:
    """``(texts, heads, levels, groups, use)`` of a page's segments; see ``qatbe._core.page_fields``."""
    items = list(segments)
    kinds = [s.kind for s in items]
    heads = [i for i, kind in enumerate(kinds) if kind is heading]
    prose = tuple(prose)
    return ([s.text for s in items], heads, [items[i].level for i in heads], [s.group for s in items],
            bytes(kind in prose for kind in kinds))


_DECIMAL = re.compile(r"\d")


_NAME_WORD = re.compile(r"\b[^\W\d_][\w'’&.-]*")


def capitalised_words(text: str) -> str:
    """The words of ``text`` that start with an upper-case letter, joined by single spaces."""
    if not isinstance(text, str):
        raise TypeError(f"capitalised_words expects a str, got {type(text).__name__}")
    return " ".join(w for w in _NAME_WORD.findall(text) if w[0].isupper())


def untidy(text: str) -> bool:
    """Whether ``text`` holds two spaces side by side or starts or ends with a space."""
    if not isinstance(text, str):
        raise TypeError(f"untidy expects a str, got {type(text).__name__}")
    return "  " in text or text[:1] == " " or text[-1:] == " "


def holds_either(text: str, first: bytes, second: bytes) -> bool:
    """Whether ``text`` holds the ASCII needle ``first`` or ``second`` (non-empty, of one length)."""
    if not isinstance(text, str):
        raise TypeError(f"holds_either expects a str, got {type(text).__name__}")
    if len(first) != len(second) or not first:
        raise ValueError("the two needles must be non-empty and of one length")
    if not (first.isascii() and second.isascii()):
        raise ValueError("the needles must be ASCII")
    return first.decode() in text or second.decode() in text


def _checked_up(up: npt.NDArray[np.int64]) -> list[int]:
    """Heading chains as a list, each an earlier segment's index or -1 (so that a walk up them ends)."""
    ups: list[int] = up.tolist()
    if any(not -1 <= a < i for i, a in enumerate(ups)):
        raise ValueError("up must hold, per segment, an earlier segment's index or -1")
    return ups


def _chain_above(ups: list[int], i: int) -> set[int]:
    """The headings above segment ``i``: ``ups[i]``, the heading above that, and so on."""
    chain, a = set(), ups[i]
    while a >= 0:
        chain.add(a)
        a = ups[a]
    return chain


def _bridge_top(
    raw: npt.NDArray[np.float64], heads: Sequence[int], up: npt.NDArray[np.int64], top_n: int,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Where the bridges look: the best segments and the candidate headings (``bridge_rows``)."""
    n = len(raw)
    if len(up) != n:
        raise ValueError("up needs one entry per segment")
    if not 0 <= top_n <= 64:
        raise ValueError("top_n must lie in [0, 64]")
    ups = _checked_up(up)
    heads = _checked_heads(heads, n)
    is_head = set(heads)
    values = raw.tolist()
    body = [i for i, v in enumerate(values) if v > 0 and i not in is_head]
    top = sorted(body, key=values.__getitem__, reverse=True)[:top_n]  # stable: ties in page order
    sections = [_chain_above(ups, i) for i in top]
    candidates = [h for h in heads if any(h not in section for section in sections)]
    return np.array(top, dtype=np.int64), np.array(candidates, dtype=np.int64)


def bridge_rows(
    raw: npt.NDArray[np.float64], heads: Sequence[int], up: npt.NDArray[np.int64], groups: Sequence[int] | None,
    top_n: int,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64] | None,
           npt.NDArray[np.int64] | None, npt.NDArray[np.int64] | None]:
    """Where the bridges look and the rows they read; see ``qatbe._core.bridge_rows``."""
    n = len(raw)
    if groups is not None and len(groups) != n:
        raise ValueError("groups needs one entry per segment")
    top, candidates = _bridge_top(raw, heads, up, top_n)
    if not len(candidates):
        return top, candidates, None, None, None
    parts: list[list[int]] = []
    for i in top.tolist():
        g = groups[i] if groups is not None else -1
        unit = [i]
        if g >= 0 and i > 0 and groups[i - 1] == g:  # type: ignore[index]
            unit.insert(0, i - 1)
        if g >= 0 and i + 1 < n and groups[i + 1] == g:  # type: ignore[index]
            unit.append(i + 1)
        parts.append(unit)
    taken = sorted({j for unit in parts for j in unit})
    row_of = {j: len(candidates) + k for k, j in enumerate(taken)}
    rows = [row_of[j] for unit in parts for j in unit]
    offsets = [0]
    for unit in parts:
        offsets.append(offsets[-1] + len(unit))
    return (top, candidates, np.array(candidates.tolist() + taken, dtype=np.int64), np.array(rows, dtype=np.int64),
            np.array(offsets, dtype=np.int64))


def _checked_heads(heads: Sequence[int], n: int) -> list[int]:
    """The headings as a list of increasing segment indices below ``n`` (what the kernel's loops rely on)."""
    out = [int(h) for h in heads]
    if any(not 0 <= h < n for h in out) or any(b <= a for a, b in pairwise(out)):
        raise ValueError("heads must be increasing segment indices")
    return out


def section_sizes(heads: Sequence[int], up: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Per heading, the segments that are not headings under it at any depth; see ``qatbe._core.section_sizes``."""
    ups = _checked_up(up)
    head_list = _checked_heads(heads, len(ups))
    is_head = set(head_list)
    out = [0] * len(ups)
    for i, k in enumerate(ups):
        if k >= 0 and i not in is_head:
            out[k] += 1
    for h in reversed(head_list):
        if ups[h] >= 0:
            out[ups[h]] += out[h]
    return np.array(out, dtype=np.int64)


def floor_cut(raw: npt.NDArray[np.float64], floor: float) -> tuple[float, npt.NDArray[np.bool_]]:
    """The best score and which clear the floor; see ``qatbe._core.floor_cut``."""
    best = max(0.0, float(raw.max())) if len(raw) else 0.0
    return best, (raw > 0) & (raw >= floor * best)


def section_best(heads: Sequence[int], up: npt.NDArray[np.int64], credited: Sequence[int],
                 values: npt.NDArray[np.float64], scale: float = 1.0) -> npt.NDArray[np.float64]:
    """Per segment, ``scale`` x the best credit of the headings above it; see ``qatbe._core.section_best``."""
    ups = _checked_up(up)
    n = len(ups)
    head_list = _checked_heads(heads, n)
    at = [int(h) for h in credited]
    if len(at) != len(values):
        raise ValueError(f"credited must have {len(values)} entries, not {len(at)}")
    if any(not 0 <= h < n for h in at):
        raise ValueError("credited must be segments")
    own = dict(zip(at, np.asarray(values, dtype=np.float64).tolist()))
    best: dict[int, float] = {}
    for h in head_list:
        above = ups[h]
        value = own.get(h, 0.0)
        best[h] = value if above < 0 else max(value, best.get(above, 0.0))
    return np.array([scale * best[k] if k >= 0 else 0.0 for k in ups], dtype=np.float64)


def bridge_shares(
    ids: npt.NDArray[np.int32], offsets: npt.NDArray[np.int64], n_heads: int, bad: npt.NDArray[np.int32],
    top_rows: npt.NDArray[np.int64], top_offsets: npt.NDArray[np.int64], head_at: npt.NDArray[np.int64],
    top_at: npt.NDArray[np.int64], up: npt.NDArray[np.int64], min_share: float,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Which best segments name which candidate headings; see ``qatbe._core.bridge_shares``."""
    n_rows, n_tops, n = len(offsets) - 1, len(top_offsets) - 1, len(up)
    _check_offsets(offsets.tolist(), len(ids), "offsets", "len(ids)")
    _check_offsets(top_offsets.tolist(), len(top_rows), "top_offsets", "len(top_rows)")
    if not 0 <= n_heads <= n_rows:
        raise ValueError("n_heads must lie in [0, number of rows]")
    if n_tops > 64:
        raise ValueError("at most 64 best segments")
    if len(head_at) != n_heads or len(top_at) != n_tops:
        raise ValueError("head_at needs one entry per heading, top_at one per best segment")
    rows = [ids[offsets[r]:offsets[r + 1]].tolist() for r in range(n_rows)]
    if any(x < 0 for row in rows for x in row):
        raise ValueError("term ids must be >= 0")
    if any(not 0 <= r < n_rows for r in top_rows.tolist()):
        raise ValueError(f"rows must lie in [0, {n_rows})")
    if any(not 0 <= a < n for a in head_at.tolist()) or any(not 0 <= a < n for a in top_at.tolist()):
        raise ValueError("head_at and top_at must be segments")
    ups = _checked_up(up)
    excluded = set(bad.tolist())
    tops = [set().union(*(rows[r] for r in top_rows[top_offsets[t]:top_offsets[t + 1]].tolist()))
            for t in range(n_tops)]
    sections = [_chain_above(ups, int(i)) for i in top_at.tolist()]
    out_k: list[int] = []
    out_t: list[int] = []
    out_s: list[float] = []
    n_new = np.zeros(n_heads, dtype=np.int64)
    for k in range(n_heads):
        new = {x for x in rows[k] if x not in excluded}
        n_new[k] = len(new)
        if not new:
            continue
        for t in range(n_tops):
            if int(head_at[k]) in sections[t]:
                continue
            share = len(tops[t] & new) / len(new)
            if share >= min_share:
                out_k.append(k)
                out_t.append(t)
                out_s.append(share)
    return (np.array(out_k, dtype=np.int64), np.array(out_t, dtype=np.int64), np.array(out_s, dtype=np.float64),
            n_new)


def bridge_best(
    ids: npt.NDArray[np.int32], offsets: npt.NDArray[np.int64], bad: npt.NDArray[np.int32],
    rows_k: npt.NDArray[np.int64], rows_t: npt.NDArray[np.int64], shares: npt.NDArray[np.float64],
    values: npt.NDArray[np.float64], named_ids: npt.NDArray[np.int32] | None,
    named_offsets: npt.NDArray[np.int64] | None, named_of: npt.NDArray[np.int64] | None,
    sizes: npt.NDArray[np.int64] | None, head_at: npt.NDArray[np.int64], name_bridge: float, name_section: float,
    min_share: float,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The credit of each heading a best segment names; see ``qatbe._core.bridge_best``."""
    n_rows = _check_offsets(offsets.tolist(), len(ids), "offsets", "len(ids)")
    ks, ts = rows_k.tolist(), rows_t.tolist()
    if len(ts) != len(ks) or len(shares) != len(ks):
        raise ValueError("rows_k, rows_t and shares must have one entry per pair")
    if len(head_at) > n_rows:
        raise ValueError("more headings than rows")
    if any(not 0 <= k < len(head_at) for k in ks) or any(b < a for a, b in pairwise(ks)):
        raise ValueError("rows_k must be increasing heading rows")
    if any(not 0 <= t < len(values) for t in ts):
        raise ValueError("rows_t must index values")
    named_rows: list[set[int]] = []
    if named_of is not None:
        if named_ids is None or named_offsets is None or sizes is None:
            raise ValueError("named_of needs named_ids, named_offsets and sizes")
        n_named = _check_offsets(named_offsets.tolist(), len(named_ids), "named_offsets", "len(named_ids)")
        if len(named_of) != len(values):
            raise ValueError("named_of needs one entry per best segment")
        if any(not -1 <= r < n_named for r in named_of.tolist()):
            raise ValueError("named_of must name rows of named_ids or be -1")
        if any(not 0 <= h < len(sizes) for h in head_at.tolist()):
            raise ValueError("head_at must index sizes")
        named_rows = [set(named_ids[named_offsets[r]:named_offsets[r + 1]].tolist()) for r in range(n_named)]
    excluded = set(bad.tolist())
    best: dict[int, float] = {}
    for k, t, share in zip(ks, ts, shares.tolist()):
        named = False
        if named_of is not None and named_of[t] >= 0:
            new = {x for x in ids[offsets[k]:offsets[k + 1]].tolist() if x not in excluded}
            named = sum(x in named_rows[named_of[t]] for x in new) >= min_share * len(new)
        factor = 1.0
        if named:
            factor += (name_bridge - 1.0) / max(1.0, int(sizes[head_at[k]]) / name_section) ** 0.5  # type: ignore[index]
        best[k] = max(best.get(k, 0.0), share * float(values[t]) * factor)
    kept = [k for k, v in best.items() if v > 0]
    return np.array(kept, dtype=np.int64), np.array([best[k] for k in kept], dtype=np.float64)


def bridge_mentions(
    ids: npt.NDArray[np.int32], offsets: npt.NDArray[np.int64], n_words: int, head_words: npt.NDArray[np.int32],
    head_offsets: npt.NDArray[np.int64], need: npt.NDArray[np.float64], head_at: npt.NDArray[np.int64],
    up: npt.NDArray[np.int64], skip: npt.NDArray[np.uint8],
) -> npt.NDArray[np.int64]:
    """How many segments outside each candidate heading's section mention it; see ``qatbe._core.bridge_mentions``."""
    n, n_heads = len(offsets) - 1, len(head_offsets) - 1
    _check_offsets(offsets.tolist(), len(ids), "offsets", "len(ids)")
    _check_offsets(head_offsets.tolist(), len(head_words), "head_offsets", "len(head_words)")
    if n_words < 0:
        raise ValueError("n_words must be >= 0")
    if len(need) != n_heads or len(head_at) != n_heads:
        raise ValueError("need and head_at must have one entry per heading")
    if len(up) != n or len(skip) != n:
        raise ValueError("up and skip must have one entry per segment")
    words_of = [set(head_words[head_offsets[h]:head_offsets[h + 1]].tolist()) for h in range(n_heads)]
    if any(not 0 <= w < n_words for ws in words_of for w in ws):
        raise ValueError(f"head words must lie in [0, {n_words})")
    ups = _checked_up(up)
    out = np.zeros(n_heads, dtype=np.int64)
    for i in range(n):
        if skip[i]:
            continue
        held = {w for w in ids[offsets[i]:offsets[i + 1]].tolist() if 0 <= w < n_words}
        chain = _chain_above(ups, i)
        for h in range(n_heads):
            c = len(words_of[h] & held)
            if c and c >= need[h] and int(head_at[h]) not in chain:
                out[h] += 1
    return out


def has_decimal(texts: Sequence[str]) -> npt.NDArray[np.uint8]:
    """Per text, 1 if it holds a decimal digit (``re``'s ``\\d``), else 0."""
    items = _texts(texts)
    return np.asarray([_DECIMAL.search(t) is not None for t in items], dtype=np.uint8)


def kept_bytes(all_threads: bool = False) -> int:
    """0: the twin allocates through Python and keeps no scratch blocks (see ``qatbe._core.kept_bytes``)."""
    return 0


def byte_count(data: bytes, value: int) -> int:
    """``data.count(bytes([value]))``."""
    return bytes(data).count(bytes([value]))


def contains_ci(data: bytes, needle: bytes) -> bool:
    """Whether ``data`` holds ``needle`` with its ASCII letters in either case; see ``qatbe._core.contains_ci``."""
    if not needle.isascii():
        raise ValueError("needle must be ASCII")
    return needle.lower() in bytes(data).lower()


def utf8_encode(text: str) -> bytes:
    """``text.encode("utf-8", "ignore")``: lone surrogates dropped, as selectolax encodes a str."""
    if not isinstance(text, str):
        raise TypeError(f"utf8_encode expects str, got {type(text).__name__}")
    return text.encode("utf-8", "ignore")


_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\ufffd]")


def control_scan(text: str, sniff: int) -> tuple[bool, int]:
    """(``"\x00" in text``, control characters and U+FFFD among the first ``sniff`` characters)."""
    if not isinstance(text, str):
        raise TypeError(f"control_scan expects str, got {type(text).__name__}")
    return "\x00" in text, len(_CONTROL.findall(text, 0, max(sniff, 0)))


def last_visible(texts: Sequence[str]) -> npt.NDArray[np.uint32]:
    """Per text, the code point of its last non-whitespace character (``str.rstrip``), 0 when it has none."""
    items = _texts(texts)
    return np.asarray([ord(t.rstrip()[-1]) if t.rstrip() else 0 for t in items], dtype=np.uint32)


# (terms, checks) of one token, as ``TermMemo.index``'s ``analyse`` tells them.
Told = tuple[Sequence[str], Sequence[str | None]]


def _check_vocab(vocab: dict[str, int]) -> None:
    n = len(vocab)
    ids = list(vocab.values())
    if (not all(isinstance(t, str) for t in vocab) or not all(type(i) is int and 0 <= i < n for i in ids)
            or len(set(ids)) != n):
        raise ValueError("vocab must map str terms to distinct ids 0 .. len(vocab) - 1")


class TermMemo:
    """What each raw token means as index terms, remembered across pages; see ``qatbe._core.TermMemo``.

    The same results, with a dict for the memo and the plain loop for the page.
    """

    def __init__(self, max_entries: int) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be >= 1")
        self.max_entries = max_entries
        self._known: dict[tuple[str, int], tuple[tuple[str, ...], tuple[str | None, ...]]] = {}
        self._names = [""]  # the numbering ``terms`` uses
        self._busy = False

    def __len__(self) -> int:
        return len(self._known)

    def term_ids_of(self, terms: Sequence[str]) -> list[int]:
        """The id of each term in ``terms``' numbering (-1 for a term not met yet)."""
        number = {t: i for i, t in enumerate(self._names)}
        return [number.get(t, -1) for t in terms]

    def index(
        self, texts: Sequence[str] | Scan, prefixes: Sequence[str] | None, vocab: dict[str, int],
        analyse: Callable[[list[str], bytes], Sequence[Told]], fold: Sequence[int] | None = None,
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], npt.NDArray[np.float64], list[str]]:
        """Term ids of every text in CSR form, ``(ids, offsets, lengths, new_terms)``."""
        tok_ids, tok_offsets, tokens, simple = tokenize(_texts_of(texts), prefixes, fold)
        if not isinstance(vocab, dict):
            raise TypeError("vocab must be a dict")
        _check_vocab(vocab)
        self._learn(tokens, simple, analyse)
        wanted = None if prefixes is None else {_prefix_key(p)[:2] for p in prefixes}  # checks are two long
        page = dict(vocab)
        new: list[str] = []
        ids: list[int] = []
        offsets = [0]
        for d in range(len(tok_offsets) - 1):
            for tok in tok_ids[tok_offsets[d]:tok_offsets[d + 1]].tolist():
                terms, checks = self._known[(tokens[tok], simple[tok])]
                for term, check in zip(terms, checks):
                    if wanted is not None and check is not None and check not in wanted:
                        term = ""
                    if term not in page:
                        page[term] = len(page)
                        new.append(term)
                    ids.append(page[term])
            offsets.append(len(ids))
        return (np.asarray(ids, dtype=np.int32), np.asarray(offsets, dtype=np.int64),
                np.diff(tok_offsets).astype(np.float64), new)

    def index_sparse(
        self, texts: Sequence[str] | Scan, prefixes: Sequence[str] | None, vocab: dict[str, int],
        analyse: Callable[[list[str], bytes], Sequence[Told]], fold: Sequence[int] | None = None,
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64],
               list[str]]:
        """``index`` without the term "", ``(ids, positions, offsets, lengths, new_terms)``; see
        ``qatbe._core.TermMemo.index_sparse``: here read off ``index``, as it is defined ("" numbered last, so that
        the new terms' ids are the ones they would have without it)."""
        if not isinstance(vocab, dict):
            raise TypeError("vocab must be a dict")
        _check_vocab(vocab)
        blank = vocab.get("", len(vocab))
        ids, offsets, lengths, new = self.index(texts, prefixes, {**vocab, "": blank}, analyse, fold)
        keep = ids != blank
        places = np.flatnonzero(keep).astype(np.int64)
        kept = ids[keep]
        if "" not in vocab:  # the new terms after it move down one
            kept = np.where(kept > blank, kept - 1, kept).astype(np.int32)
        counts = np.concatenate([[0], np.cumsum(keep)]).astype(np.int64)
        return kept, places, counts[offsets], lengths, new

    def holds(
        self, texts: Sequence[str] | Scan, prefixes: Sequence[str] | None, words: Sequence[str],
        analyse: Callable[[list[str], bytes], Sequence[Told]], fold: Sequence[int] | None = None,
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
        """Which of ``words`` each text holds, ``(ids, offsets)``; see ``qatbe._core.TermMemo.holds``: here
        read off ``index``, as it is defined."""
        word_list = list(words)
        if any(not isinstance(w, str) or not w for w in word_list):
            raise ValueError("words must be non-empty str terms")
        if len(set(word_list)) != len(word_list):
            raise ValueError("words must be distinct")
        ids, offsets, _, _ = self.index(texts, prefixes, {w: k for k, w in enumerate(word_list)}, analyse, fold)
        out: list[int] = []
        bounds = [0]
        for d in range(len(offsets) - 1):
            out += sorted({x for x in ids[offsets[d]:offsets[d + 1]].tolist() if x < len(word_list)})
            bounds.append(len(out))
        return np.asarray(out, dtype=np.int32), np.asarray(bounds, dtype=np.int64)

    def bridge_credits(
        self, texts: Sequence[str] | Scan, analyse: Callable[[list[str], bytes], Sequence[Told]],
        raw: npt.NDArray[np.float64], heads: Sequence[int], up: npt.NDArray[np.int64], groups: Sequence[int] | None,
        asked: set[str], top_n: int, min_share: float, name_bridge: float, name_section: float,
        filter_of: Callable[[Sequence[str]], tuple[Any, Any]],
    ) -> dict[int, float]:
        """The bridges' credits in one call; see ``qatbe._core.TermMemo.bridge_credits``: here the calls it
        stands for, in turn."""
        credit: dict[int, float] = {}
        top, candidates, which, top_rows, top_offsets = bridge_rows(raw, heads, up, groups, top_n)
        if which is None or top_rows is None or top_offsets is None:
            return credit
        items = _texts_of(texts)
        if len(items) != len(raw):
            raise ValueError("texts need one entry per segment")
        ids, offsets, names = self.terms(texts, analyse, which.tolist())
        bad = np.array(self.term_ids_of(["", *sorted(asked)]), dtype=np.int32)
        rows_k, rows_t, shares, _ = bridge_shares(ids, offsets, len(candidates), bad, top_rows, top_offsets,
                                                  candidates, top, up, min_share)
        if not len(rows_k):
            return credit
        named_ids = named_offsets = named_of = sizes = None
        if name_bridge != 1.0:
            naming = sorted(set(rows_t.tolist()))
            units, read, rows = top_offsets.tolist(), which.tolist(), top_rows.tolist()
            named_ids, named_offsets, named_names = self.terms([
                capitalised_words(" ".join(items[read[r]] for r in rows[units[t]:units[t + 1]])) for t in naming],
                analyse)
            if named_names is not names:  # the memo started afresh: the names in the numbering of ids
                number = {term: i for i, term in enumerate(names)}
                named_ids = np.array([number.get(named_names[x], -1) for x in named_ids.tolist()], dtype=np.int32)
            named_of = np.full(len(top), -1, dtype=np.int64)
            named_of[naming] = np.arange(len(naming))
            sizes = section_sizes(heads, up)
        ks, values = bridge_best(ids, offsets, bad, rows_k, rows_t, shares, raw[top], named_ids, named_offsets,
                                 named_of, sizes, candidates, name_bridge, name_section, min_share)
        if not len(ks):
            return credit
        bounds = offsets.tolist()
        wanted = [sorted({names[x] for x in ids[bounds[k]:bounds[k + 1]].tolist()} - asked - {""})
                  for k in ks.tolist()]
        words = sorted({w for ws in wanted for w in ws})
        vocab = {w: k for k, w in enumerate(words)}
        prefixes, fold = filter_of(words)
        held, held_offsets = self.holds(texts, prefixes, words, analyse, fold)
        skip = np.zeros(len(raw), dtype=np.uint8)
        skip[list(heads)] = 1
        head_words, head_offsets = [vocab[w] for ws in wanted for w in ws], [0]
        for ws in wanted:
            head_offsets.append(head_offsets[-1] + len(ws))
        mentions = bridge_mentions(
            held, held_offsets, len(words), np.array(head_words, dtype=np.int32),
            np.array(head_offsets, dtype=np.int64), np.array([min_share * len(ws) for ws in wanted]),
            candidates[ks], up, skip)
        for h, value, count in zip(candidates[ks].tolist(), values.tolist(), mentions.tolist()):
            credit[h] = value / max(1, count)
        return credit

    def terms(
        self, texts: Sequence[str] | Scan, analyse: Callable[[list[str], bytes], Sequence[Told]],
        which: Sequence[int] | None = None,
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], list[str]]:
        """Every text's terms as ids of this memo's own numbering, ``(ids, offsets, names)``; see
        ``qatbe._core.TermMemo.terms`` (the numbering may differ, ``names[ids]`` may not)."""
        tok_ids, tok_offsets, tokens, simple = tokenize(_texts_of(texts, which))
        self._learn(tokens, simple, analyse)
        number = {t: i for i, t in enumerate(self._names)}
        ids: list[int] = []
        offsets = [0]
        for d in range(len(tok_offsets) - 1):
            for tok in tok_ids[tok_offsets[d]:tok_offsets[d + 1]].tolist():
                for term in self._known[(tokens[tok], simple[tok])][0]:
                    if term not in number:
                        number[term] = len(self._names)
                        self._names.append(term)
                    ids.append(number[term])
            offsets.append(len(ids))
        return np.asarray(ids, dtype=np.int32), np.asarray(offsets, dtype=np.int64), self._names

    def _learn(self, tokens: list[str], simple: bytes, analyse: Callable[[list[str], bytes], Sequence[Told]]
               ) -> None:
        """Start afresh when full, then ``_resolve`` (not re-entrant: ``analyse`` may not call back in)."""
        if self._busy:
            raise RuntimeError("TermMemo.index is not re-entrant (analyse called back into the same memo)")
        if len(self._known) >= self.max_entries:
            self._known = {}
            self._names = [""]
        self._busy = True
        try:
            self._resolve(tokens, simple, analyse)
        finally:
            self._busy = False

    def _resolve(self, tokens: list[str], simple: bytes, analyse: Callable[[list[str], bytes], Sequence[Told]]
                 ) -> None:
        """Learn the tokens not remembered yet from ``analyse``."""
        missing = [j for j in range(len(tokens)) if (tokens[j], simple[j]) not in self._known]
        if not missing:
            return
        told = list(analyse([tokens[j] for j in missing], bytes(simple[j] for j in missing)))
        if len(told) != len(missing):
            raise ValueError("analyse must return one (terms, checks) pair per token")
        for j, (terms, checks) in zip(missing, told):
            terms, checks = tuple(terms), tuple(checks)
            if len(checks) != len(terms):
                raise ValueError("terms and checks must have the same length")
            for term, check in zip(terms, checks):
                if not isinstance(term, str):
                    raise TypeError(f"terms must be str, not {type(term).__name__}")
                if check is not None:
                    _prefix_key(check, three=False)
            self._known[(tokens[j], simple[j])] = (terms, checks)


_LETTERS = re.compile(r"[^\W\d_]+")
_MASK64 = (1 << 64) - 1


def _fnv(key: str) -> int:
    h = 1469598103934665603
    for ch in key:
        h = ((h ^ ord(ch)) * 1099511628211) & _MASK64
    return h


_GOLDEN = 0x9E3779B97F4A7C15
_PACKED_MAX = 12


def _packed_key(word: str) -> int | None:
    """1 to 12 letters a-z as 5 bits each (a = 1 ... z = 26, first letter highest); None for any other word."""
    if not 1 <= len(word) <= _PACKED_MAX or not all("a" <= ch <= "z" for ch in word):
        return None
    key = 0
    for ch in word:
        key = (key << 5) | (ord(ch) - 96)
    return key


class StringTable:
    """What ``string_table`` builds: its five arrays (read-only) and the maps they encode, as dicts."""

    def __init__(self, chars: npt.NDArray[np.uint32], starts: npt.NDArray[np.int64], values: npt.NDArray[np.int64],
                 slots: npt.NDArray[np.int32], packed: npt.NDArray[np.int64]) -> None:
        offs = np.asarray(starts, dtype=np.int64)
        vals = np.asarray(values, dtype=np.int64)
        rows = np.asarray(packed, dtype=np.int64)
        table_slots = np.asarray(slots, dtype=np.int64)
        n_words, size = len(vals), len(table_slots)
        if len(offs) != n_words + 1:
            raise ValueError("starts must hold len(values) + 1 offsets")
        _check_offsets(offs.tolist(), len(chars), "starts", "len(chars)")
        if size < 1 or size & (size - 1) or size < n_words:
            raise ValueError("slots must be a power of two, at least len(values)")
        if (vals < 0).any():
            raise ValueError("values must be >= 0")
        if ((table_slots < -1) | (table_slots >= n_words)).any():
            raise ValueError("slots must hold -1 or a word index")
        if not (table_slots == -1).any():
            raise ValueError("slots must have an empty entry")
        if rows.ndim != 2 or rows.shape[1] != 2 or len(rows) < 8 or len(rows) & (len(rows) - 1):
            raise ValueError("packed must have shape (size, 2), size a power of two >= 8")
        if (rows < 0).any():
            raise ValueError("packed rows must hold a key >= 0 and a value >= 0")
        used = rows[:, 0] != 0
        if used.all():
            raise ValueError("packed must have an empty row")
        code_points = np.asarray(chars, dtype=np.uint32).tolist()
        bounds = offs.tolist()
        self.words: dict[str, int] = {}
        for j, value in enumerate(vals.tolist()):
            self.words.setdefault("".join(map(chr, code_points[bounds[j]:bounds[j + 1]])), value)
        self.short: dict[int, int] = dict(rows[used].tolist())
        self.limit = max([*vals.tolist(), *self.short.values(), -1]) + 1
        for a in (chars, starts, values, slots, packed):
            a.flags.writeable = False
        self.chars, self.starts, self.values, self.slots, self.packed = chars, starts, values, slots, packed


def string_table(words: Sequence[str], values: Sequence[int]) -> StringTable:
    """A read-only map from strings to ints for ``letter_runs``: a ``StringTable`` of five arrays.

    See ``qatbe._core.string_table``: the same arrays, built the same way.
    """
    items = list(words)
    vals = list(values)
    if len(vals) != len(items):
        raise ValueError("words and values must have the same length")
    if len(set(items)) != len(items):
        raise ValueError("words must be distinct")
    for w in items:
        if not isinstance(w, str):
            raise TypeError(f"string_table expects str words, got {type(w).__name__}")
    size = 8
    while size < 2 * len(items):
        size *= 2
    slots = [-1] * size
    starts = [0]
    for i, w in enumerate(items):
        starts.append(starts[-1] + len(w))
        j = _fnv(w) & (size - 1)
        while slots[j] >= 0:
            j = (j + 1) & (size - 1)
        slots[j] = i
    keys = [_packed_key(w) for w in items]
    packed_size, shift = 8, 61
    while packed_size < 2 * sum(k is not None for k in keys):
        packed_size, shift = packed_size * 2, shift - 1
    packed = np.zeros((packed_size, 2), dtype=np.int64)
    for key, value in zip(keys, vals):
        if key is not None:
            j = ((key * _GOLDEN) & _MASK64) >> shift
            while packed[j, 0]:
                j = (j + 1) & (packed_size - 1)
            packed[j] = (key, value)
    chars = np.asarray([ord(ch) for w in items for ch in w], dtype=np.uint32)
    return StringTable(chars, np.asarray(starts, dtype=np.int64), np.asarray(vals, dtype=np.int64).reshape(len(items)),
                       np.asarray(slots, dtype=np.int32), packed)


def letter_runs(
    text: str, ranges: npt.NDArray[np.int64], max_words: int, table: StringTable, n_votes: int,
) -> tuple[npt.NDArray[np.int64], int, int, npt.NDArray[np.int64], list[str], npt.NDArray[np.int64]]:
    """What a stopword vote needs of ``text``: ``(in_range, letters, runs, votes, words, counts)``.

    See ``qatbe._core.letter_runs``; this is the regex definition it must match, with the table's dicts (the
    packed rows for the runs of 1 to 12 letters, the words for the others).
    """
    if not isinstance(text, str):
        raise TypeError(f"letter_runs expects a str, got {type(text).__name__}")
    if not isinstance(table, StringTable):
        raise TypeError(f"letter_runs expects a StringTable, got {type(table).__name__}")
    bounds = np.asarray(ranges, dtype=np.int64)
    if bounds.ndim != 2 or bounds.shape[1] != 2:
        raise ValueError("ranges must have shape (k, 2)")
    if max_words < 0:
        raise ValueError("max_words, min_chars and max_chars must be >= 0")
    if n_votes < table.limit:
        raise ValueError("the table's values must lie in [0, n_votes)")
    in_range = np.zeros(len(bounds), dtype=np.int64)
    for r, (lo, hi) in enumerate(bounds.tolist()):
        lo, hi = max(lo, 0), min(hi, sys.maxunicode)
        if lo <= hi:
            in_range[r] = len(re.findall(f"[{re.escape(chr(lo))}-{re.escape(chr(hi))}]", text))
    found = _LETTERS.findall(text)
    read = found[:max_words]
    votes = np.zeros(n_votes, dtype=np.int64)
    tally: dict[str, int] = {}
    for w in read:
        if w.isascii():
            key = _packed_key(w.lower())
            value = table.words.get(w.lower()) if key is None else table.short.get(key)
            if value is not None:
                votes[value] += 1
        else:
            tally[w] = tally.get(w, 0) + 1
    counts = np.asarray(list(tally.values()), dtype=np.int64)
    return in_range, sum(map(len, found)), len(read), votes, list(tally), counts


def sample_runs(
    texts: Sequence[str], use: Sequence[object], min_chars: int, max_chars: int, ranges: npt.NDArray[np.int64],
    max_words: int, table: StringTable, n_votes: int,
) -> tuple[npt.NDArray[np.int64], int, int, npt.NDArray[np.int64], list[str], npt.NDArray[np.int64]]:
    """``letter_runs`` of the sample of ``texts`` that ``qatbe._core.sample_runs`` describes, built as a string."""
    items = _texts(texts)
    flags = [bool(x) for x in use]
    if len(flags) != len(items):
        raise ValueError("use must have one flag per text")
    if min(max_words, min_chars, max_chars) < 0:
        raise ValueError("max_words, min_chars and max_chars must be >= 0")
    return letter_runs(joined_sample(items, flags, min_chars, max_chars), ranges, max_words, table, n_votes)


def sample_votes(
    texts: Sequence[str], use: Sequence[object], min_chars: int, max_chars: int, ranges: npt.NDArray[np.int64],
    max_words: int, table: StringTable, matrix: npt.NDArray[np.int64],
) -> tuple[list[int], int, int, list[int], list[str], list[int]]:
    """``sample_runs`` with the votes multiplied by ``matrix``; see ``qatbe._core.sample_votes``."""
    rows = np.asarray(matrix, dtype=np.int64)
    if rows.ndim != 2:
        raise ValueError("matrix must have shape (n_votes, candidates)")
    in_range, letters, runs, votes, words, counts = sample_runs(
        texts, use, min_chars, max_chars, ranges, max_words, table, rows.shape[0])
    tally = votes.tolist()
    totals = [sum(v * x for v, x in zip(tally, column)) for column in rows.T.tolist()]
    return in_range.tolist(), letters, runs, totals, words, counts.tolist()
