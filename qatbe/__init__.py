"""qatbe: Query-Aware Token-Budgeted Extraction.

Turns a web page or document into the few hundred or thousand tokens an LLM should see for one query.
"""

from __future__ import annotations

from ._backend import BACKEND
from ._version import __version__
from .errors import ConfigError, DataError, InputError, QatbeError
from .fit import ContextWindowWarning, fit_budget
from .many import Document, ManyResult, Passage, SourceReport, extract_many
from .pipeline import Extractor, extract, segment
from .query import Query
from .result import Result
from .settings import DEFAULT_WEIGHTS, TIERS, Settings
from .types import Metadata, ParsedDocument, Segment, SegmentKind

__all__ = [
    "BACKEND",
    "DEFAULT_WEIGHTS",
    "TIERS",
    "ConfigError",
    "ContextWindowWarning",
    "DataError",
    "Document",
    "Extractor",
    "InputError",
    "ManyResult",
    "Metadata",
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
]
