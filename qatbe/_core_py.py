"""Pure-Python twin of ``qatbe._core``: same signatures, same results; the fallback and the test oracle.

Written as plain loops on purpose, so that it reads like the formulas in ``_core.pyx``'s docstring.

Its parts mirror the ``_core_*.pxi`` files, one module each (``_core_py_bm25``, ``_core_py_page``,
``_core_py_tokenize``, ``_core_py_text``, ``_core_py_bridges``, ``_core_py_memo``, ``_core_py_langid``); this module
gathers the kernel's public names, so that ``qatbe._backend`` picks it or ``qatbe._core`` as one module.
"""

from __future__ import annotations

from ._core_py_bm25 import BM25L, LUCENE, OKAPI, OKAPI_MIN_MEAN, PLUS, bm25_scores, proximity_pairs
from ._core_py_bridges import (
    bridge_best,
    bridge_mentions,
    bridge_rows,
    bridge_shares,
    floor_cut,
    section_best,
    section_sizes,
)
from ._core_py_langid import StringTable, letter_runs, sample_runs, sample_votes, string_table
from ._core_py_memo import TermMemo, Told
from ._core_py_page import page_fields, page_scores
from ._core_py_text import (
    any_control,
    byte_count,
    capitalised_words,
    contains_ci,
    control_count,
    find_pair,
    has_decimal,
    holds_either,
    kept_bytes,
    untidy,
    utf8_encode,
)
from ._core_py_tokenize import THIRD_LIMITS, Scan, complex_keys, remap, scan, tokenize

__all__ = [
    "BM25L", "LUCENE", "OKAPI", "OKAPI_MIN_MEAN", "PLUS", "THIRD_LIMITS", "Scan", "StringTable",
    "TermMemo", "Told", "any_control", "bm25_scores", "bridge_best", "bridge_mentions", "bridge_rows", "bridge_shares",
    "byte_count", "capitalised_words", "complex_keys", "contains_ci", "control_count", "find_pair", "floor_cut",
    "has_decimal", "holds_either", "kept_bytes", "letter_runs", "page_fields",
    "page_scores", "proximity_pairs", "remap", "sample_runs", "sample_votes", "scan", "section_best",
    "section_sizes", "string_table", "tokenize", "untidy", "utf8_encode",
]
