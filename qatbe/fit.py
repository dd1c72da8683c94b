"""Fitting a model's context window (seed 004): how many tokens of context fit beside the prompt and the answer.

``window = prompt + context + output + safety margin``, solved for ``context``. The output side never gets less
than ``min_output_tokens`` (an answer squeezed below that is useless, so the context gives way, not the answer).
The model → window table is data (``qatbe/data/context_windows.json``), overridable per call; an unknown model
gets the table's conservative default and a ``ContextWindowWarning`` so the guess is never silent.
"""

from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Mapping
from importlib import resources
from types import MappingProxyType

from .errors import ConfigError


class ContextWindowWarning(UserWarning):
    """A model's context window was guessed (unknown model) or the prompt leaves no room for context."""


@functools.lru_cache(maxsize=1)
def _table() -> tuple[Mapping[str, int], int]:
    raw = json.loads(resources.files("qatbe.data").joinpath("context_windows.json").read_text("utf-8"))
    return MappingProxyType({str(k): int(v) for k, v in raw["models"].items()}), int(raw["default"])


def context_windows() -> Mapping[str, int]:
    """The bundled model → context-window table (read-only)."""
    return _table()[0]


def _check_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{name} must be a non-negative integer, not {value!r}")
    return value


def context_window(model: str, windows: Mapping[str, int] | None = None) -> int | None:
    """The window of ``model`` from ``windows`` (or the bundled table), or None when the model is unknown."""
    table = context_windows() if windows is None else windows
    if model in table:
        return int(table[model])
    lowered = {k.lower(): v for k, v in table.items()}
    names = [model.lower()]
    if "/" in model:  # "openai/gpt-4o", "anthropic/claude-3-opus"
        names.append(model.rsplit("/", 1)[1].lower())
    for name in names:
        if name in lowered:
            return int(lowered[name])
    for name in names:
        # Longest known prefix that ends at a separator, so "gpt-4o-2024-08-06" is gpt-4o and not gpt-4.
        prefixes = [k for k in lowered if name.startswith(k) and name[len(k) : len(k) + 1] in ("-", "@", ":", "")]
        if prefixes:
            return int(lowered[max(prefixes, key=len)])
    return None


def fit_budget(
    *,
    model: str,
    prompt_tokens: int = 0,
    max_output_tokens: int = 0,
    safety_margin: int = 100,
    min_output_tokens: int = 500,
    windows: Mapping[str, int] | None = None,
    default_window: int | None = None,
) -> int:
    """Tokens left for retrieved context in ``model``'s window (pass the result as ``budget=``).

    ``prompt_tokens`` is everything else sent (system prompt, history, question); ``max_output_tokens`` what the
    answer may use, raised to ``min_output_tokens``. ``windows`` replaces the bundled table; ``default_window``
    replaces its default for unknown models. Returns 0 (with a warning) when nothing fits.
    """
    if not isinstance(model, str) or not model.strip():
        raise ConfigError(f"model must be a model name such as 'gpt-4o', not {model!r}")
    prompt = _check_count("prompt_tokens", prompt_tokens)
    output = _check_count("max_output_tokens", max_output_tokens)
    margin = _check_count("safety_margin", safety_margin)
    floor = _check_count("min_output_tokens", min_output_tokens)
    if windows is not None:
        if not isinstance(windows, Mapping):
            raise ConfigError("windows must be a mapping of model name to context-window size")
        for name, size in windows.items():
            _check_count(f"windows[{name!r}]", size)
    if default_window is not None:
        _check_count("default_window", default_window)

    window = context_window(model.strip(), windows)
    if window is None:
        window = _table()[1] if default_window is None else default_window
        warnings.warn(
            f"unknown model {model!r}: assuming a {window}-token context window; pass windows={{...}} to fit it exactly",
            ContextWindowWarning,
            stacklevel=2,
        )
    budget = window - prompt - max(output, floor) - margin
    if budget <= 0:
        warnings.warn(
            f"{model!r} has a {window}-token window; the prompt ({prompt}), the answer ({max(output, floor)}) and "
            f"the margin ({margin}) leave no room for context",
            ContextWindowWarning,
            stacklevel=2,
        )
        return 0
    return budget
