"""LlamaIndex: qatbe as a node postprocessor that cuts the retrieved nodes to one token budget.

``QatbePostprocessor`` is a ``BaseNodePostprocessor``, so it goes wherever LlamaIndex takes one, for example
``index.as_query_engine(node_postprocessors=[QatbePostprocessor(budget=1500)])``. The query comes from the
``QueryBundle`` (``query_str``; no query: the nodes' main content in reading order).

One ``qatbe.extract_many`` selection is made over the nodes' text (their content without metadata), so the budget
goes to the most relevant passages wherever they are. Each node that contributes comes back as a copy of itself
with the same ``node_id``, metadata and relationships, its text replaced by the cut text; nodes that contribute
nothing are dropped. ``NodeWithScore.score`` is qatbe's score: the best weighted query score among the node's kept
passages (0.0 when only context was kept), comparable across the nodes of one call; the nodes come highest score
first (ties in input order). Together their texts cost at most the budget less ``reserve_tokens`` by the chosen estimator.

Options (``budget``, ``tier`` and any keyword ``qatbe.extract`` takes, ``ranking`` and ``max_document_tokens``
included) are validated once, at construction: a bad one raises ``qatbe.ConfigError``. A node qatbe cannot read
is dropped with a warning on the ``qatbe.integrations`` logger; ``strict=True`` raises its ``InputError``
instead. The async method (``apostprocess_nodes``) is LlamaIndex's own, which runs this in a thread.
"""

from __future__ import annotations

from typing import Any

from .._optional import require
from ..pipeline import Extractor
from ._shared import build_extractor, check_flag, cut_together

require("llama_index.core", "llamaindex", "qatbe.integrations.llamaindex")

from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle
from pydantic import Field, PrivateAttr

__all__ = ["QatbePostprocessor"]


class QatbePostprocessor(BaseNodePostprocessor):
    """Cuts retrieved nodes to one token budget for the query (see the module's documentation)."""

    budget: int | None = None
    tier: str | None = None
    strict: bool = False
    options: dict[str, Any] = Field(default_factory=dict)
    _extractor: Extractor = PrivateAttr()

    def __init__(self, *, budget: int | None = None, tier: str | None = None, strict: bool = False,
                 **options: Any) -> None:
        extractor = build_extractor("QatbePostprocessor", budget, tier, options, together=True)
        fields: dict[str, Any] = {"budget": budget, "tier": tier, "strict": check_flag("strict", strict),
                                  "options": options}
        super().__init__(**fields)
        self._extractor = extractor

    @classmethod
    def class_name(cls) -> str:
        return "QatbePostprocessor"

    def _postprocess_nodes(self, nodes: list[NodeWithScore],
                           query_bundle: QueryBundle | None = None) -> list[NodeWithScore]:
        query = query_bundle.query_str if query_bundle is not None else None
        texts = [n.node.get_content(metadata_mode=MetadataMode.NONE) for n in nodes]
        out: list[NodeWithScore] = []
        for piece in cut_together("QatbePostprocessor", self._extractor, texts, query or None,
                                  strict=self.strict):
            node = nodes[piece.index].node.model_copy(deep=True)
            node.set_content(piece.text)
            out.append(NodeWithScore(node=node, score=piece.score))
        return out
