"""Token boundaries, the prefix filter's keys, the page scan (twin of ``_core_tokenize.pxi`` and
``_core_scan.pxi``).

Part of the pure-Python twin of ``qatbe._core`` (``qatbe._core_py`` gathers the parts).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ._core_py_bm25 import _check_offsets, _texts


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
