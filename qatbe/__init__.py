"""qatbe: Query-Aware Token-Budgeted Extraction.

Turns a web page or document into the few hundred or thousand tokens an LLM should see for one query.
"""

from __future__ import annotations

from ._backend import BACKEND
from ._version import __version__
from .errors import ConfigError, DataError, InputError, QatbeError
from .settings import DEFAULT_WEIGHTS, TIERS, Settings
from .types import Document, Metadata, Segment, SegmentKind

__all__ = [
    "BACKEND",
    "DEFAULT_WEIGHTS",
    "TIERS",
    "ConfigError",
    "DataError",
    "Document",
    "InputError",
    "Metadata",
    "QatbeError",
    "Segment",
    "SegmentKind",
    "Settings",
    "__version__",
]
