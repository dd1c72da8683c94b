"""The citation envelope of ``extract_many`` (ADR-0006, seed 001): what citing a source costs, and its text.

Each document that contributes text gets a number in output order. Its section opens with ``[n] label`` and the
sources list at the end repeats ``[n] label <url>``; both lines are charged to the budget when the first segment
of that document is admitted (so the citation of every admitted segment is paid for), with the number written at
its widest (the count of documents) because the final numbering is only known once the selection is done. The
"Sources:" title is charged once, with the first document. A fixed safety buffer (``citation_buffer``, default 64
tokens as in the ADR) is kept free on top, and an optional one-line note tells the reading model that the
context is partial, reserved at its widest before selection and written only when something was left out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..settings import Settings
from .blocks import SEPARATOR

SOURCES_TITLE = "Sources:"
MAX_LABEL_CHARS = 120
_SPACE = re.compile(r"\s+")


def one_line(text: str, limit: int = MAX_LABEL_CHARS) -> str:
    """Labels and URLs are single lines (a newline inside one would break the envelope's layout)."""
    text = _SPACE.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def header_line(number: int, label: str) -> str:
    return f"[{number}] {label}"


def source_line(number: int, label: str, url: str | None) -> str:
    if url and url != label:
        return f"[{number}] {label} <{url}>"
    return f"[{number}] {label}"


def envelope_cost(widest: int, label: str, url: str | None, settings: Settings) -> int:
    """Tokens charged when a document's first segment is admitted: its section header and its sources line."""
    estimate = settings.estimate
    return int(estimate(header_line(widest, label) + SEPARATOR)) + int(estimate(source_line(widest, label, url) + "\n"))


def fixed_cost(settings: Settings) -> int:
    """Tokens charged once, with the first cited document: the gap before the sources list and its title."""
    return int(settings.estimate(SEPARATOR + SOURCES_TITLE + "\n"))


def note_text(dropped: int, candidates: int, dropped_tokens: int) -> str:
    return (f"Note: this context is partial; {dropped} of {candidates} passages "
            f"(about {dropped_tokens} tokens) were left out to fit the token budget.")


def note_reserve(candidates: int, total_tokens: int, settings: Settings) -> int:
    """The note at its widest (every count at its maximum), so the real note always fits what was reserved."""
    return int(settings.estimate(note_text(candidates, candidates, total_tokens) + SEPARATOR))


@dataclass(frozen=True)
class Section:
    number: int
    label: str
    url: str | None
    body: str


def assemble(sections: Sequence[Section], *, citations: bool, note: str | None = None) -> str:
    """The final text: optional note, one section per cited document, then the sources list."""
    parts: list[str] = [note] if note else []
    if not citations:
        parts.extend(s.body for s in sections)
        return SEPARATOR.join(p for p in parts if p)
    parts.extend(header_line(s.number, s.label) + SEPARATOR + s.body for s in sections)
    if sections:
        parts.append(SOURCES_TITLE + "\n" + "\n".join(source_line(s.number, s.label, s.url) for s in sections))
    return SEPARATOR.join(parts)
