"""Plain data that crosses module boundaries: segment kinds and segment records."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any


class SegmentKind(str, enum.Enum):
    """What a segment is. The value is the lower-case name used in JSON and the CLI."""

    HEADING = "heading"
    PARAGRAPH = "paragraph"
    CODE = "code"
    LIST = "list"
    TABLE = "table"
    QUOTE = "quote"
    METADATA = "metadata"
    NAVIGATION = "navigation"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Segment:
    """One typed unit of a document.

    ``text`` is the plain text that is scored; ``markdown`` is the block as it is rendered. They differ for lists
    (``- `` markers), tables (pipe rows with their header) and code (fences). ``group`` identifies the source unit a
    segment was split from (a table, a list, a code block, a paragraph), so that the renderer can merge adjacent
    parts of one unit again; ``part`` is the index inside that unit. ``index`` is the document-order rank, the
    tie-breaker everywhere.

    ``tokens`` and ``score`` are 0 as the segmenter emits a segment and are filled in by ``extract``; ``matched``
    says whether the segment was chosen for matching the query (True) or only to fill space (False).

    ``source[start:end]`` is where the segment was read in the source as loaded (the decoded bytes, or the str
    given, after control characters are stripped; ``start`` is ``position``, which keeps its name), from its first
    to its last letter or digit: for HTML in the element, or run of elements, its text came from; for markdown and
    plain text in its block; for a part of a split unit in that part (``qatbe.segmentation.spans`` says how spans
    are found). Spans increase in document order, except where the HTML walk emits a block after blocks that
    follow it in the source. A segment built by hand has ``end`` 0.
    """

    kind: SegmentKind
    text: str
    markdown: str
    position: int
    index: int = 0
    level: int = 0
    heading_path: tuple[str, ...] = ()
    language: str | None = None
    group: int = -1
    part: int = 0
    header: str | None = None
    tokens: int = 0
    score: float = 0.0
    matched: bool = False
    end: int = 0

    @property
    def start(self) -> int:
        """Where the segment's source span starts: ``position``."""
        return self.position

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind.value,
            "text": self.text,
            "markdown": self.markdown,
            "position": self.position,
            "start": self.position,
            "end": self.end,
            "index": self.index,
            "level": self.level,
            "heading_path": list(self.heading_path),
            "language": self.language,
            "group": self.group,
            "part": self.part,
            "tokens": self.tokens,
            "score": self.score,
            "matched": self.matched,
        }


@dataclass(frozen=True, slots=True)
class Metadata:
    """Document-level facts found outside the main text (``<title>``, ``<meta>``, JSON-LD, microdata, bylines).

    ``date`` is the publication date in ISO 8601: ``YYYY-MM-DD``, or ``YYYY-MM-DDTHH:MM:SS[+HH:MM]`` when the page
    gives a time (in the page's own zone, so the calendar day is the one it shows); the modification date stands in
    only when no publication date is found (``extra["modified"]`` always holds it), and the page's first ``<time>``
    (``extra["first_time"]``, kept when the date was searched for in the body) only when neither is. The page's
    own text of the date
    is in ``extra["date_text"]`` when it differs. ``title`` has the site name dropped ("How to X | Example" → "How
    to X") when the page says which part is the site's.
    """

    title: str | None = None
    author: str | None = None
    date: str | None = None
    description: str | None = None
    language: str | None = None
    url: str | None = None
    extra: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {
            "title": self.title,
            "author": self.author,
            "date": self.date,
            "description": self.description,
            "language": self.language,
            "url": self.url,
            "extra": dict(self.extra),
        }


class DeferredMetadata(Metadata):
    """A page's ``Metadata``, read when first asked for: ``read()`` is called once, on the first field read (or
    comparison, repr, copy), and its value kept. ``language`` is known at once, without reading; ``read`` must
    give the same.

    Why: reading a page's metadata (JSON-LD parsed, dates and names found and cleaned) was 7 % of ``extract`` on
    the scrapinghub-aeb pages, and an extraction needs only the page's language and whether it is a discussion
    (the segmenter reads those at once). ``read`` must not need the page's DOM, which is gone by then
    (``html_metadata.PageFacts`` is what it reads instead).

    It is a ``Metadata`` in every way a caller can see: ``isinstance``, fields, ``==`` (with a plain one too),
    ``to_dict``, ``dataclasses.replace`` and ``asdict``, pickling and copying (both give a plain ``Metadata``).
    Threads may share one: two first reads may both run ``read``, which gives the same value, and one is kept.
    """

    __slots__ = ("_language", "_read", "_value")
    _read: Callable[[], Metadata] | None
    _value: Metadata | None
    _language: str | None

    def __new__(cls, *args: Any, **kwargs: Any) -> Metadata:  # type: ignore[misc]
        # What dataclasses.replace calls with every field: a plain copy. ``of`` makes the deferred ones.
        return Metadata(*args, **kwargs)

    @classmethod
    def of(cls, read: Callable[[], Metadata], language: str | None) -> DeferredMetadata:
        out = object.__new__(cls)
        object.__setattr__(out, "_read", read)
        object.__setattr__(out, "_value", None)
        object.__setattr__(out, "_language", language)
        return out

    def value(self) -> Metadata:
        """The metadata read (read now if it has not been)."""
        value: Metadata | None = self._value
        if value is None:
            read = self._read
            if read is None:  # another thread read it in between: its value was kept before ``_read`` was cleared
                value = self._value
                assert value is not None
                return value
            value = read()
            object.__setattr__(self, "_value", value)
            object.__setattr__(self, "_read", None)
        return value

    @property
    def language(self) -> str | None:
        return self._language

    def __eq__(self, other: object) -> bool:
        return self.value() == (other.value() if isinstance(other, DeferredMetadata) else other)

    __hash__ = None  # type: ignore[assignment]  # as Metadata's: its ``extra`` is a dict

    def __repr__(self) -> str:
        return repr(self.value())

    def __reduce__(self) -> tuple[Any, ...]:
        value = self.value()
        return Metadata, tuple(getattr(value, f.name) for f in fields(Metadata))


def _read_through(name: str) -> property:
    """``DeferredMetadata``'s field ``name``: the read metadata's (``value``)."""
    return property(lambda self: getattr(self.value(), name), doc=f"``Metadata.{name}``, read when first asked for.")


# Every field but ``language`` (known at once) reads through ``value``. Derived from Metadata's fields, so that a
# field added there is deferred too instead of being an empty slot here.
for _field in fields(Metadata):
    if _field.name != "language":
        setattr(DeferredMetadata, _field.name, _read_through(_field.name))
del _field


class _Views(dict[Any, Any]):
    """A parsed document's scoring views (``qatbe.score.bm25.PageView``), made by ``Extractor.extract`` on first
    use. A pickled document arrives without them: they hold compiled data and are cheap to make again."""

    def __reduce__(self) -> tuple[type[_Views], tuple[()]]:
        return _Views, ()


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """A parsed document (what a segmenter returns): its segments in document order and its metadata.

    ``unit_tokens`` is the (segment, sentence) size in tokens its units were split to (``Settings.segment_tokens``,
    ``sentence_tokens``), when known: ``Extractor.extract`` takes a parsed document in place of its source only
    when its own settings split units the same way. ``extract`` keeps what scoring reads of the page whatever the
    question (its tokens, its language guess) with the document, so that the next question does not read them
    again; that holds 16 bytes per word while the document lives, and is not part of its value (equality, hash,
    repr, pickling)."""

    segments: tuple[Segment, ...]
    metadata: Metadata
    format: str
    unit_tokens: tuple[int, int] | None = None
    _views: _Views = field(default_factory=_Views, init=False, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class ItemError:
    """One input that could not be used, in a call over many (``extract_many``, ``extract_batch``, WARC, URLs).

    ``index`` is the input's position; ``id`` its own name when it has one (a URL, a record id, a path);
    ``error_type`` the exception's class name (``InputError``, ``FetchError``, ...) and ``message`` its text.
    The other inputs go on; ``strict=True`` raises instead.
    """

    index: int
    id: str | None
    error_type: str
    message: str

    @classmethod
    def of(cls, index: int, id: str | None, exc: BaseException) -> ItemError:
        return cls(index, id, type(exc).__name__, str(exc))

    def to_dict(self) -> dict[str, object]:
        return {"index": self.index, "id": self.id, "error_type": self.error_type, "message": self.message}

