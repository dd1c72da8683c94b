"""``TermMemo``: term ids, the page index and the bridge credits over it (twin of ``_core_memo.pxi``).

Part of the pure-Python twin of ``qatbe._core`` (``qatbe._core_py`` gathers the parts).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ._core_py_bridges import bridge_best, bridge_mentions, bridge_rows, bridge_shares, section_sizes
from ._core_py_text import capitalised_words
from ._core_py_tokenize import Scan, _prefix_key, _texts_of, tokenize

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
