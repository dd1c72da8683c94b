"""What ``extract`` and ``extract_many`` both do before scoring: options resolved into one ``Settings``, a source
loaded and segmented, the segments measured, each segment's heading found.

These stages sit below both entry points (``pipeline`` for one document, ``many`` for several), so that neither
has to import the other to reach them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from .errors import ConfigError
from .render import SEPARATOR, block
from .segmentation import parse
from .settings import Settings
from .source import load_source
from .tokens import chars_div4
from .types import ParsedDocument, Segment, SegmentKind

_FIELDS = frozenset(f.name for f in dataclasses.fields(Settings))
# Read once: an Enum member is a descriptor lookup on its class (about 90 ns on Python 3.11), once per segment here.
_HEADING = SegmentKind.HEADING


def resolve_settings(settings: Settings | None, options: dict[str, Any]) -> Settings:
    """One validated Settings from a base object plus keyword overrides (``None`` values mean "not given")."""
    return _resolve(settings, options)[0]


_Key = tuple[tuple[str, str, Any], ...]
_PLAIN = (str, int, float, bool)


@lru_cache(maxsize=128)
def _default_with(changes: _Key) -> Settings:
    """``Settings()`` with these changes, validated once. Why: ``qatbe.extract(page, query, budget=...)`` is
    called with the same options for every page of a scrape, and validating a Settings (then its variant with
    the page's declared language) cost more than rendering the output. Settings are frozen, so sharing is safe."""
    return Settings().with_(**{name: value for name, _, value in changes})


def _resolve(settings: Settings | None, options: dict[str, Any]) -> tuple[Settings, _Key | None]:
    """``resolve_settings``, plus the key under which ``_default_with`` holds the result (None: not shared)."""
    if settings is not None and not isinstance(settings, Settings):
        raise ConfigError(f"settings must be a qatbe.Settings, not {type(settings).__name__}")
    unknown = sorted(set(options) - _FIELDS)
    if unknown:
        raise ConfigError(f"unknown option {unknown[0]!r}; known options: {', '.join(sorted(_FIELDS))}")
    changes = {k: v for k, v in options.items() if v is not None}
    if settings is not None:
        return (settings.with_(**changes) if changes else settings), None
    if not all(type(v) in _PLAIN for v in changes.values()):  # a mapping or a callable: not shared
        return Settings().with_(**changes), None
    key = tuple((k, type(v).__name__, v) for k, v in sorted(changes.items()))  # the type: True == 1 == 1.0
    return _default_with(key), key


def parse_document(source: str | bytes, settings: Settings, navigation: bool = True) -> ParsedDocument:
    """``source`` loaded (decoded, format detected) and segmented; ``navigation=False`` leaves boilerplate out,
    every other segment keeping its index. The document records the unit size these settings split to."""
    text, fmt = load_source(source, settings)
    doc = parse(text, fmt, settings, navigation)
    return ParsedDocument(doc.segments, doc.metadata, doc.format, (settings.segment_tokens, settings.sentence_tokens))


def costs_of(segments: Sequence[Segment], settings: Settings) -> list[int]:
    """Cost of each segment as it will appear in the output, its share of the separator included (``measure`` as a
    list). With the default estimator (chars/4) the cost is read off the block's length: ``block + SEPARATOR``
    was a copy of every segment's text made only to be counted."""
    estimate = settings.estimate
    fmt = settings.render
    if estimate is chars_div4:
        extra = len(SEPARATOR) + 3  # chars_div4(block + SEPARATOR) == (len(block) + len(SEPARATOR) + 3) // 4
        if fmt == "markdown":  # block(seg, "markdown") is seg.markdown
            return [(len(seg.markdown) + extra) // 4 for seg in segments]
        return [(len(block(seg, fmt)) + extra) // 4 for seg in segments]
    costs: list[int] = []
    for seg in segments:
        value = estimate(block(seg, fmt) + SEPARATOR)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ConfigError(f"the estimator must return a non-negative int, it returned {value!r}")
        costs.append(int(value))
    return costs


def measure(segments: Sequence[Segment], settings: Settings) -> npt.NDArray[np.int64]:
    """Cost of each segment as it will appear in the output, its share of the separator included."""
    return np.array(costs_of(segments, settings), dtype=np.int64)


def parent_slots(segments: Sequence[Segment]) -> list[int]:
    """For each segment, the slot of its nearest enclosing heading among ``segments`` (-1 if none).

    This is the first of its ``heading_ancestors`` (score.bm25), the one reading of heading levels that scoring
    uses too, computed directly: a heading's parent is the nearest heading above it of a lower level, anything
    else's is the last heading above it (tests/test_pipeline_parts.py checks the two against each other)."""
    out: list[int] = []
    stack: list[tuple[int, int]] = []  # (level, slot) of the open headings, outermost first
    last = -1
    for i, seg in enumerate(segments):
        if seg.kind is _HEADING:
            level = seg.level
            while stack and stack[-1][0] >= level:
                stack.pop()
            out.append(stack[-1][1] if stack else -1)
            stack.append((level, i))
            last = i
        else:
            out.append(last)
    return out


def heading_parents(segments: Sequence[Segment]) -> npt.NDArray[np.int64]:
    """``parent_slots`` as an array."""
    return np.array(parent_slots(segments), dtype=np.int64)
