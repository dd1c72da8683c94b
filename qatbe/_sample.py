"""The text sample language detection reads, as one string: shared by the kernel's pure-Python twin
(``_core_py.sample_runs``) and by the second look the detector takes at Arabic and Cyrillic pages
(``score.languages``), so that both read the same characters."""

from __future__ import annotations

from collections.abc import Sequence


def joined_sample(texts: Sequence[str], use: Sequence[object], min_chars: int, max_chars: int) -> str:
    """The ``use``d texts, in order, up to and including the first that takes their total length past
    ``min_chars``, joined by single spaces and cut to ``max_chars`` characters (``qatbe._core.sample_runs`` reads
    the same sample in place, without joining it)."""
    chosen: list[str] = []
    size = 0
    for text, used in zip(texts, use):
        if used:
            chosen.append(text)
            size += len(text)
            if size > min_chars:
                break
    return " ".join(chosen)[:max_chars]
