"""Token estimators.

The default, ``chars_div4`` (``ceil(len(text) / 4)``), is cheap and over-estimates modern sub-word tokenizers on
English prose, which is the safe direction for a budget. Any callable ``str -> int`` (for example
``lambda s: len(enc.encode(s))`` with tiktoken) can stand in.
"""

from __future__ import annotations

from collections.abc import Callable

Estimator = Callable[[str], int]
EstimatorSpec = str | Estimator


def chars_div4(text: str) -> int:
    return (len(text) + 3) // 4


def words(text: str) -> int:
    return len(text.split())


def whitespace(text: str) -> int:
    return len(text.split())


ESTIMATORS: dict[str, Estimator] = {"chars_div4": chars_div4, "words": words, "whitespace": whitespace}
