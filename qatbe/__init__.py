"""qatbe: Query-Aware Token-Budgeted Extraction.

Turns a web page or document into the few hundred or thousand tokens an LLM should see for one query.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._backend import BACKEND
from ._version import __version__
from .errors import (
    BlockedAddressError,
    ConfigError,
    DataError,
    FetchError,
    InputError,
    MissingExtraError,
    QatbeError,
)
from .fit import ContextWindowWarning, fit_budget
from .many import Document, ManyResult, Passage, SourceReport, extract_many
from .pipeline import Extractor, extract, segment
from .query import Query
from .result import Result
from .settings import DEFAULT_WEIGHTS, TIERS, Settings, supported_languages
from .types import ItemError, Metadata, ParsedDocument, Segment, SegmentKind

# Public names whose modules need optional packages or are heavy to load: imported on first use (PEP 562), so
# that ``import qatbe`` stays cheap and imports no framework. Name -> module that defines it.
_LAZY: dict[str, str] = {
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
    "BlockedAddressError",
    "ConfigError",
    "ContextWindowWarning",
    "DataError",
    "Document",
    "Extractor",
    "FetchError",
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
    "Segment",
    "SegmentKind",
    "Settings",
    "SourceReport",
    "__version__",
    "extract",
    "extract_many",
    "fit_budget",
    "segment",
    "supported_languages",
]
