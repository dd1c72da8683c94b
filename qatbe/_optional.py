"""Optional dependencies: imported when a feature is used, never by ``import qatbe``.

Each integration and heavy feature sits behind an extra (``pip install 'qatbe[server]'``); ``require`` imports
the module it needs and, when it is missing, raises a ``MissingExtraError`` that names the extra to install.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import MissingExtraError


def require(module: str, extra: str, feature: str | None = None) -> ModuleType:
    """Import ``module`` or say which extra installs it (``feature`` names what needed it)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        what = feature or "this part of qatbe"
        raise MissingExtraError(
            f"{what} needs {module.split('.')[0]}, which is not installed: pip install 'qatbe[{extra}]'"
        ) from exc
