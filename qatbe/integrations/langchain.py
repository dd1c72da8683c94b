"""LangChain: qatbe as a document compressor (retrieval) and a document transformer (loaded HTML pages).

``QatbeCompressor`` is a ``BaseDocumentCompressor``, so it goes wherever LangChain takes one, for example as the
``base_compressor`` of ``ContextualCompressionRetriever``::

    retriever = ContextualCompressionRetriever(base_compressor=QatbeCompressor(budget=1500),
                                               base_retriever=my_retriever)

With ``per_document=False`` (the default) one budget covers all retrieved documents: one ``qatbe.extract_many``
selection over them, so the tokens go to the most relevant passages wherever they are. With
``per_document=True`` each document is cut to the budget on its own (``qatbe.extract``). Either way each returned
``Document`` keeps its ``id`` and metadata, its ``page_content`` is the cut text, and its metadata gains:

- ``qatbe_score``: the best weighted query score among its kept passages (0.0 when only context was kept);
- ``qatbe_tokens``: the tokens of ``page_content`` by the chosen estimator.

Documents that contribute nothing are left out. Together, the returned documents' ``qatbe_tokens`` never exceed
the budget less ``reserve_tokens`` (``per_document=False``); they come highest ``qatbe_score`` first. With
``per_document=True`` they keep their input order. A document qatbe cannot read is left out with a warning on
the ``qatbe.integrations`` logger; ``strict=True`` raises its ``InputError`` instead.

``QatbeTransformer`` is a ``BaseDocumentTransformer`` for HTML (or markdown, or text) documents from loaders: each
document is cut on its own, for the transformer's ``query`` (or none: the main content, boilerplate out), and
gains ``qatbe_tokens`` and the page's own ``title``, ``author``, ``date``, ``description`` and ``language`` where
its metadata has no such key.

Options (``budget``, ``tier`` and any keyword ``qatbe.extract`` takes) are validated once, at construction: a bad
one raises ``qatbe.ConfigError``. The async methods (``acompress_documents``, ``atransform_documents``) are
LangChain's own, which run these in an executor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._optional import require
from ..errors import ConfigError
from ..pipeline import Extractor
from ._shared import Piece, build_extractor, check_flag, cut_each, cut_together

require("langchain_core", "langchain", "qatbe.integrations.langchain")

from langchain_core.callbacks import Callbacks
from langchain_core.documents import BaseDocumentTransformer, Document
from langchain_core.documents.compressor import BaseDocumentCompressor
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

__all__ = ["QatbeCompressor", "QatbeTransformer"]

SCORE_KEY = "qatbe_score"
TOKENS_KEY = "qatbe_tokens"
_PAGE_FIELDS = ("title", "author", "date", "description", "language")


def _check_query(query: object) -> str | None:
    """A transformer's query is the caller's option, checked before any document (not each document's error)."""
    if query is not None and not isinstance(query, str):
        raise ConfigError(f"query must be a string or None, not {type(query).__name__}")
    return query


def _rebuild(document: Document, piece: Piece, metadata: dict[str, Any]) -> Document:
    return Document(page_content=piece.text, metadata=metadata, id=document.id)


class QatbeCompressor(BaseDocumentCompressor):
    """Cuts retrieved documents to a token budget for the query (see the module's documentation)."""

    model_config = ConfigDict(frozen=True)

    budget: int | None = None
    tier: str | None = None
    per_document: bool = False
    strict: bool = False
    options: dict[str, Any] = Field(default_factory=dict)
    _extractor: Extractor = PrivateAttr()

    def __init__(self, *, budget: int | None = None, tier: str | None = None, per_document: bool = False,
                 strict: bool = False, **options: Any) -> None:
        extractor = build_extractor("QatbeCompressor", budget, tier, options,
                                    together=not check_flag("per_document", per_document))
        fields: dict[str, Any] = {"budget": budget, "tier": tier, "per_document": per_document,
                                  "strict": check_flag("strict", strict), "options": options}
        super().__init__(**fields)
        self._extractor = extractor

    def compress_documents(self, documents: Sequence[Document], query: str,
                           callbacks: Callbacks | None = None) -> Sequence[Document]:
        texts = [d.page_content for d in documents]
        cut = cut_each if self.per_document else cut_together
        pieces = cut("QatbeCompressor", self._extractor, texts, query or None, strict=self.strict)
        return [_rebuild(documents[p.index], p,
                         {**documents[p.index].metadata, SCORE_KEY: p.score, TOKENS_KEY: p.tokens})
                for p in pieces]


class QatbeTransformer(BaseDocumentTransformer, BaseModel):
    """Cuts each loaded document (an HTML page, markdown, text) to the budget on its own, for ``query``."""

    model_config = ConfigDict(frozen=True)

    query: str | None = None
    budget: int | None = None
    tier: str | None = None
    strict: bool = False
    options: dict[str, Any] = Field(default_factory=dict)
    _extractor: Extractor = PrivateAttr()

    def __init__(self, *, query: str | None = None, budget: int | None = None, tier: str | None = None,
                 strict: bool = False, **options: Any) -> None:
        extractor = build_extractor("QatbeTransformer", budget, tier, options, together=False)
        fields: dict[str, Any] = {"query": _check_query(query), "budget": budget, "tier": tier,
                                  "strict": check_flag("strict", strict), "options": options}
        super().__init__(**fields)
        self._extractor = extractor

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> Sequence[Document]:
        """``query=`` among ``kwargs`` replaces the transformer's own query for this call."""
        unknown = sorted(set(kwargs) - {"query"})
        if unknown:
            raise ConfigError(f"QatbeTransformer.transform_documents takes only query=, not {unknown[0]!r}")
        query = _check_query(kwargs.get("query", self.query))
        out: list[Document] = []
        for p in cut_each("QatbeTransformer", self._extractor, [d.page_content for d in documents], query,
                          strict=self.strict):
            document = documents[p.index]
            metadata = dict(document.metadata)
            for name in _PAGE_FIELDS:
                value = getattr(p.page, name, None)
                if value and name not in metadata:
                    metadata[name] = value
            metadata[TOKENS_KEY] = p.tokens
            out.append(_rebuild(document, p, metadata))
        return out
