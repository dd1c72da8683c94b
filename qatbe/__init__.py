"""qatbe: Query-Aware Token-Budgeted Extraction.

Turns a web page or document into the few hundred or thousand tokens an LLM should see for one query.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._backend import BACKEND
from ._version import __version__
from .errors import (
    BlockedAddressError,
    ConfigError,
    DataError,
    FetchError,
    FetchTimeoutError,
    InputError,
    MissingExtraError,
    QatbeError,
)
from .fit import ContextWindowWarning, fit_budget
from .many import Document, ManyResult, Passage, SourceReport, extract_many
from .pipeline import Extractor, extract, segment
from .query import Query
from .result import Result
from .settings import DEFAULT_WEIGHTS, TIERS, Scoring, Settings, supported_languages
from .types import ItemError, Metadata, ParsedDocument, Segment, SegmentKind

if TYPE_CHECKING:  # the lazy names' types, for type checkers (nothing is imported at run time)
    from .batch import BatchResult, extract_batch
    from .fetching import FetchOptions, afetch, fetch
    from .router import Router, RouterResult
    from .warc import WarcReader, read_warc

# Public names whose modules need optional packages or are heavy to load: imported on first use (PEP 562), so
# that ``import qatbe`` stays cheap and imports no framework. Name -> module that defines it.
_LAZY: dict[str, str] = {
    "fetch": "qatbe.fetching",
    "afetch": "qatbe.fetching",
    "FetchOptions": "qatbe.fetching",
    "Router": "qatbe.router",
    "RouterResult": "qatbe.router",
    "BatchResult": "qatbe.batch",
    "extract_batch": "qatbe.batch",
    "WarcReader": "qatbe.warc",
    "read_warc": "qatbe.warc",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'qatbe' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

__all__ = [
    "BACKEND",
    "DEFAULT_WEIGHTS",
    "TIERS",
    "BatchResult",
    "BlockedAddressError",
    "ConfigError",
    "ContextWindowWarning",
    "DataError",
    "Document",
    "Extractor",
    "FetchError",
    "FetchOptions",
    "FetchTimeoutError",
    "InputError",
    "ItemError",
    "ManyResult",
    "Metadata",
    "MissingExtraError",
    "ParsedDocument",
    "Passage",
    "QatbeError",
    "Query",
    "Result",
    "Router",
    "RouterResult",
    "Scoring",
    "Segment",
    "SegmentKind",
    "Settings",
    "SourceReport",
    "WarcReader",
    "__version__",
    "afetch",
    "extract",
    "extract_batch",
    "extract_many",
    "fetch",
    "fit_budget",
    "read_warc",
    "segment",
    "supported_languages",
]
