"""Chooses the kernel backend, once, at import.

``QATBE_BACKEND`` may force a choice and is parsed strictly: ``auto`` (default: compiled if importable),
``cython`` (fail if the compiled core is missing) or ``python`` (the pure-Python twin).
"""

from __future__ import annotations

import os
import warnings
from types import ModuleType

from .errors import ConfigError

_CHOICES = ("auto", "cython", "python")


def _load() -> tuple[ModuleType, str]:
    wanted = os.environ.get("QATBE_BACKEND", "auto").strip().lower() or "auto"
    if wanted not in _CHOICES:
        raise ConfigError(f"QATBE_BACKEND must be one of {', '.join(_CHOICES)}, not {wanted!r}")
    if wanted == "python":
        from . import _core_py

        return _core_py, "python"
    try:
        from . import _core
    except ImportError as exc:
        if wanted == "cython":
            raise ImportError(
                "QATBE_BACKEND=cython but the compiled qatbe._core is not importable; reinstall with a C compiler"
            ) from exc
        warnings.warn(
            "qatbe: the compiled core qatbe._core is not available; using the much slower pure-Python twin. "
            "Reinstall with a C compiler (pip install --force-reinstall qatbe) to get it.",
            RuntimeWarning,
            stacklevel=3,
        )
        from . import _core_py

        return _core_py, "python"
    return _core, "cython"


kernel, BACKEND = _load()
