from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from ._kernel_types import PageScores, ScoringParams

LUCENE: int
OKAPI: int
PLUS: int
BM25L: int

def bm25_scores(
    doc_terms: npt.NDArray[np.int32],
    doc_offsets: npt.NDArray[np.int64],
    n_terms: int,
    query_terms: npt.NDArray[np.int32],
    query_weights: npt.NDArray[np.float64],
    k1: float = ...,
    b: float = ...,
    variant: int = ...,
    delta: float = ...,
    prior_n: float = ...,
    prior_df: npt.NDArray[np.float64] | None = ...,
    doc_lengths: npt.NDArray[np.float64] | None = ...,
) -> npt.NDArray[np.float64]: ...
def proximity_pairs(
    doc_terms: npt.NDArray[np.int32],
    doc_offsets: npt.NDArray[np.int64],
    n_terms: int,
    query_terms: npt.NDArray[np.int32],
    window: int = ...,
    positions: npt.NDArray[np.int64] | None = ...,
) -> npt.NDArray[np.float64]: ...

def page_scores(
    doc_terms: npt.NDArray[np.int32],
    doc_offsets: npt.NDArray[np.int64],
    n_terms: int,
    query_terms: npt.NDArray[np.int32],
    query_weights: npt.NDArray[np.float64],
    doc_lengths: npt.NDArray[np.float64],
    heads: Sequence[int],
    levels: Sequence[int],
    lead_from: bytes,
    joined: bytes,
    *,
    params: ScoringParams,
    prior_df: npt.NDArray[np.float64] | None = ...,
    n_near: int = ...,
    positions: npt.NDArray[np.int64] | None = ...,
) -> PageScores: ...
def tokenize(
    texts: list[str] | tuple[str, ...],
    prefixes: list[str] | tuple[str, ...] | None = ...,
    fold: npt.NDArray[np.uint32] | None = ...,
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], list[str], bytes]: ...
class Scan:
    def __len__(self) -> int: ...
    @property
    def texts(self) -> list[str]: ...

def scan(texts: Sequence[str]) -> Scan: ...
def remap(
    tok_ids: npt.NDArray[np.int32],
    tok_offsets: npt.NDArray[np.int64],
    starts: npt.NDArray[np.int64],
    terms: npt.NDArray[np.int32],
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]: ...
Runs: TypeAlias = tuple[npt.NDArray[np.int64], int, int, npt.NDArray[np.int64], list[str], npt.NDArray[np.int64]]

class StringTable:
    chars: npt.NDArray[np.uint32]
    starts: npt.NDArray[np.int64]
    values: npt.NDArray[np.int64]
    slots: npt.NDArray[np.int32]
    packed: npt.NDArray[np.int64]
    limit: int
    def __init__(
        self, chars: npt.NDArray[np.uint32], starts: npt.NDArray[np.int64], values: npt.NDArray[np.int64],
        slots: npt.NDArray[np.int32], packed: npt.NDArray[np.int64],
    ) -> None: ...

def string_table(words: list[str] | tuple[str, ...], values: list[int] | tuple[int, ...]) -> StringTable: ...
def letter_runs(
    text: str, ranges: npt.NDArray[np.int64], max_words: int, table: StringTable, n_votes: int
) -> Runs: ...
def sample_runs(
    texts: Sequence[str], use: Sequence[object], min_chars: int, max_chars: int, ranges: npt.NDArray[np.int64],
    max_words: int, table: StringTable, n_votes: int,
) -> Runs: ...
def sample_votes(
    texts: Sequence[str], use: Sequence[object], min_chars: int, max_chars: int, ranges: npt.NDArray[np.int64],
    max_words: int, table: StringTable, matrix: npt.NDArray[np.int64],
) -> tuple[list[int], int, int, list[int], list[str], list[int]]: ...
def page_fields(
    segments: Sequence[Any], heading: object, prose: Sequence[object]
) -> tuple[list[str], list[int], list[int], list[int], bytes]: ...
def bridge_rows(
    raw: npt.NDArray[np.float64], heads: Sequence[int], up: npt.NDArray[np.int64], groups: Sequence[int] | None,
    top_n: int,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64] | None,
           npt.NDArray[np.int64] | None, npt.NDArray[np.int64] | None]: ...
def section_sizes(heads: Sequence[int], up: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]: ...
def floor_cut(raw: npt.NDArray[np.float64], floor: float) -> tuple[float, npt.NDArray[np.bool_]]: ...
def section_best(heads: Sequence[int], up: npt.NDArray[np.int64], credited: Sequence[int],
                 values: npt.NDArray[np.float64], scale: float = ...) -> npt.NDArray[np.float64]: ...
def bridge_shares(
    ids: npt.NDArray[np.int32], offsets: npt.NDArray[np.int64], n_heads: int, bad: npt.NDArray[np.int32],
    top_rows: npt.NDArray[np.int64], top_offsets: npt.NDArray[np.int64], head_at: npt.NDArray[np.int64],
    top_at: npt.NDArray[np.int64], up: npt.NDArray[np.int64], min_share: float,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64]]: ...
def bridge_best(
    ids: npt.NDArray[np.int32], offsets: npt.NDArray[np.int64], bad: npt.NDArray[np.int32],
    rows_k: npt.NDArray[np.int64], rows_t: npt.NDArray[np.int64], shares: npt.NDArray[np.float64],
    values: npt.NDArray[np.float64], named_ids: npt.NDArray[np.int32] | None,
    named_offsets: npt.NDArray[np.int64] | None, named_of: npt.NDArray[np.int64] | None,
    sizes: npt.NDArray[np.int64] | None, head_at: npt.NDArray[np.int64], name_bridge: float, name_section: float,
    min_share: float,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]: ...
def bridge_mentions(
    ids: npt.NDArray[np.int32], offsets: npt.NDArray[np.int64], n_words: int, head_words: npt.NDArray[np.int32],
    head_offsets: npt.NDArray[np.int64], need: npt.NDArray[np.float64], head_at: npt.NDArray[np.int64],
    up: npt.NDArray[np.int64], skip: npt.NDArray[np.uint8],
) -> npt.NDArray[np.int64]: ...
def has_decimal(texts: Sequence[str]) -> npt.NDArray[np.uint8]: ...
def capitalised_words(text: str) -> str: ...
def untidy(text: str) -> bool: ...
def holds_either(text: str, first: bytes, second: bytes) -> bool: ...
def control_count(text: str, limit: int) -> int: ...
def any_control(text: str) -> bool: ...
def find_pair(text: str, pair: str, start: int = 0) -> int: ...
def byte_count(data: bytes, value: int) -> int: ...
def kept_bytes(all_threads: bool = ...) -> int: ...
def use_avx2(on: bool) -> bool: ...
def contains_ci(data: bytes, needle: bytes) -> bool: ...
def utf8_encode(text: str) -> bytes: ...

Told: TypeAlias = tuple[Sequence[str], Sequence[str | None]]

class TermMemo:
    max_entries: int
    def __init__(self, max_entries: int) -> None: ...
    def __len__(self) -> int: ...
    def term_ids_of(self, terms: Sequence[str]) -> list[int]: ...
    def terms(
        self, texts: Sequence[str] | Scan, analyse: Callable[[list[str], bytes], Sequence[Told]],
        which: Sequence[int] | None = ...,
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], list[str]]: ...
    def bridge_credits(
        self, texts: Sequence[str] | Scan, analyse: Callable[[list[str], bytes], Sequence[Told]],
        raw: npt.NDArray[np.float64], heads: Sequence[int], up: npt.NDArray[np.int64], groups: Sequence[int] | None,
        asked: AbstractSet[str], top_n: int, min_share: float, name_bridge: float, name_section: float,
        filter_of: Callable[[Sequence[str]], tuple[Any, Any]],
    ) -> dict[int, float]: ...
    def index(
        self, texts: Sequence[str] | Scan, prefixes: Sequence[str] | AbstractSet[str] | None, vocab: dict[str, int],
        analyse: Callable[[list[str], bytes], Sequence[Told]], fold: npt.NDArray[np.uint32] | None = ...,
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], npt.NDArray[np.float64], list[str]]: ...
    def index_sparse(
        self, texts: Sequence[str] | Scan, prefixes: Sequence[str] | AbstractSet[str] | None, vocab: dict[str, int],
        analyse: Callable[[list[str], bytes], Sequence[Told]], fold: npt.NDArray[np.uint32] | None = ...,
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64],
               list[str]]: ...
    def holds(
        self, texts: Sequence[str] | Scan, prefixes: Sequence[str] | AbstractSet[str] | None, words: Sequence[str],
        analyse: Callable[[list[str], bytes], Sequence[Told]], fold: npt.NDArray[np.uint32] | None = ...,
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]: ...
