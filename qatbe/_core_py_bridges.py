"""Second-hop credit to sections, the heading chains, the relevance floor (twin of ``_core_bridges.pxi``).

Part of the pure-Python twin of ``qatbe._core`` (``qatbe._core_py`` gathers the parts).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np
import numpy.typing as npt

from ._core_py_bm25 import _check_offsets


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
