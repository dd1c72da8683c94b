"""``Document``: one input of ``extract_many`` (and of ``extract``, ``fetch``, the batch and WARC readers): the
page or text, and how to cite it. Its own module, below every module that takes one, so that none of them has to
import another to name it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .errors import InputError


@dataclass(frozen=True)
class Document:
    """One input of ``extract_many``: the page or text, and how to cite it.

    ``source`` is what ``extract`` takes (HTML, markdown or text; str or bytes). ``title``, ``url`` and ``id``
    label the citation (the first one set wins, then the page's own title). ``metadata`` is free-form; its
    ``date`` (ISO string, ``datetime``/``date`` or POSIX timestamp) is what ``ranking="recency"`` reads first.
    A Document with a ``url`` and no ``source`` is fetched by ``extract_many`` (``qatbe.fetch`` makes one).
    """

    source: str | bytes | None = None
    id: str | None = None
    url: str | None = None
    title: str | None = None
    metadata: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.source is None and self.url is None:
            raise InputError("a Document needs a source (the page) or a url to fetch it from")
        if self.source is not None and not isinstance(self.source, (str, bytes, bytearray)):
            raise InputError(f"Document.source must be str or bytes, not {type(self.source).__name__}")
        for name in ("id", "url", "title"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise InputError(f"Document.{name} must be a string or None, not {type(value).__name__}")
        if self.metadata is not None:
            if not isinstance(self.metadata, Mapping):
                raise InputError(f"Document.metadata must be a mapping, not {type(self.metadata).__name__}")
            object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))
