"""The language guess's counting: the string table, letter runs, sample votes (twin of ``_core_langid.pxi``).

Part of the pure-Python twin of ``qatbe._core`` (``qatbe._core_py`` gathers the parts).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ._core_py_bm25 import _check_offsets, _texts
from ._sample import joined_sample

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
