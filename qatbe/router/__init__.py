"""The context router (``qatbe[router]``): sources, routes, permissions, path rules and a cache in front of
``extract_many``. ``qatbe.Router`` and ``qatbe.RouterResult`` are this package's, loaded on first use.

Custom source types subclass ``Source`` and register with ``@register_source("name")``.
"""

from __future__ import annotations

from .cache import CacheStats
from .config import Options
from .engine import Chunk, RouteDecision, Router, RouterResult, SourceError
from .sources import FetchRequest, PathRules, Source, SourceContext, SourceDocument, register_source

__all__ = [
    "CacheStats",
    "Chunk",
    "FetchRequest",
    "Options",
    "PathRules",
    "RouteDecision",
    "Router",
    "RouterResult",
    "Source",
    "SourceContext",
    "SourceDocument",
    "SourceError",
    "register_source",
]
