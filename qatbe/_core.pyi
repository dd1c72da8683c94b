import numpy as np
import numpy.typing as npt

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
) -> npt.NDArray[np.float64]: ...
