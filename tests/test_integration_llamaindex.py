"""qatbe inside LlamaIndex: the real llama-index-core postprocessor base class and query engine, over an
in-memory retriever of fixture pages (no network, no embeddings, no model)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from integration_pages import PAGES, QUERY
from readme_examples import example

import qatbe

pytest.importorskip("llama_index.core")

from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.response_synthesizers.no_text import NoText
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeRelationship, NodeWithScore, QueryBundle, RelatedNodeInfo, TextNode

from qatbe.integrations.llamaindex import QatbePostprocessor


class ShelfRetriever(BaseRetriever):
    """Returns every stored node that shares a word with the query, in the order they were stored, score 1."""

    def __init__(self, nodes: Sequence[TextNode]) -> None:
        self._nodes = list(nodes)
        super().__init__()

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        words = set(query_bundle.query_str.lower().split())
        return [NodeWithScore(node=n, score=1.0) for n in self._nodes if words & set(n.text.lower().split())]


def _nodes() -> list[TextNode]:
    return [TextNode(text=p.html, id_=p.name, metadata={"source": f"https://example.org/{p.name}", "note": "ZEBRA"},
                     relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=f"site-{p.name}")})
            for p in PAGES]


def _scored(nodes: Sequence[TextNode]) -> list[NodeWithScore]:
    return [NodeWithScore(node=n, score=1.0) for n in nodes]


def _snapshot(found: Sequence[NodeWithScore]) -> list[tuple[str, str, float | None, dict[str, object]]]:
    return [(n.node.node_id, n.node.get_content(), n.score, dict(n.node.metadata)) for n in found]


def test_one_budget_over_the_retrieved_nodes() -> None:
    nodes = _nodes()
    found = QatbePostprocessor(budget=120).postprocess_nodes(_scored(nodes), query_str=QUERY)
    estimate = qatbe.Settings().estimate
    assert sum(estimate(n.node.get_content()) for n in found) <= 120
    best = found[0]
    assert best.node.node_id == "museum" and "10am on Sundays" in best.node.get_content()
    assert best.score == max(n.score or 0.0 for n in found) > 0
    assert "bakery" not in {n.node.node_id for n in found}  # nothing of it matches: dropped
    by_id = {n.node_id: n for n in nodes}
    for n in found:
        original = by_id[n.node.node_id]
        assert n.node.metadata == original.metadata
        assert n.node.relationships == original.relationships
        assert n.node is not original and original.text == next(p.html for p in PAGES if p.name == original.node_id)
        assert "ZEBRA" not in n.node.get_content()  # the cut reads the text, not the metadata
        assert "Copyright" not in n.node.get_content()


def test_inside_a_query_engine_the_query_comes_from_the_query_bundle() -> None:
    engine = RetrieverQueryEngine(ShelfRetriever(_nodes()), response_synthesizer=NoText(llm=MockLLM()),
                                  node_postprocessors=[QatbePostprocessor(budget=100)])
    response = engine.query(QUERY)
    assert response.source_nodes[0].node.node_id == "museum"
    assert "10am on Sundays" in response.source_nodes[0].node.get_content()
    asked = engine.retrieve(QueryBundle("first train on sundays"))
    assert asked[0].node.node_id == "trains" and "7:30" in asked[0].node.get_content()


def test_same_nodes_same_output_and_async_agrees() -> None:
    post = QatbePostprocessor(budget=150)
    first = _snapshot(post.postprocess_nodes(_scored(_nodes()), QueryBundle(QUERY)))
    assert first == _snapshot(post.postprocess_nodes(_scored(_nodes()), QueryBundle(QUERY)))
    assert first == _snapshot(asyncio.run(post.apostprocess_nodes(_scored(_nodes()), QueryBundle(QUERY))))


def test_without_a_query_the_main_content_is_kept_in_order() -> None:
    found = QatbePostprocessor(budget=300).postprocess_nodes(_scored(_nodes()))
    assert found[0].node.node_id == "museum"
    assert all("Copyright" not in n.node.get_content() for n in found)
    assert all(n.score == 0.0 for n in found)


def test_options_are_validated_at_construction_and_change_the_output() -> None:
    with pytest.raises(qatbe.ConfigError, match="budget"):
        QatbePostprocessor(budget=-1)
    with pytest.raises(qatbe.ConfigError, match="unknown option 'colour'"):
        QatbePostprocessor(colour="red")
    with pytest.raises(qatbe.ConfigError, match="partial_note"):
        QatbePostprocessor(partial_note=True)
    with pytest.raises(qatbe.ConfigError, match="strict"):
        QatbePostprocessor(strict="no")  # type: ignore[arg-type]
    capped = QatbePostprocessor(budget=400, max_document_tokens=30).postprocess_nodes(_scored(_nodes()), query_str=QUERY)
    estimate = qatbe.Settings().estimate
    assert capped and all(estimate(n.node.get_content()) <= 30 for n in capped)


def test_an_unreadable_node_is_dropped_or_raised_with_strict() -> None:
    nodes = [*_nodes(), TextNode(text="\x01\x02\x03\x04" * 200, id_="binary")]
    found = QatbePostprocessor(budget=120).postprocess_nodes(_scored(nodes), query_str=QUERY)
    assert found[0].node.node_id == "museum" and "binary" not in {n.node.node_id for n in found}
    with pytest.raises(qatbe.InputError, match=r"documents\[4\]"):
        QatbePostprocessor(budget=120, strict=True).postprocess_nodes(_scored(nodes), query_str=QUERY)


@settings(max_examples=40, deadline=None)
@given(
    chosen=st.lists(st.sampled_from(range(len(PAGES))), min_size=0, max_size=6),
    budget=st.integers(min_value=0, max_value=400),
    estimator=st.sampled_from(["chars_div4", "words", "whitespace"]),
    query=st.sampled_from([QUERY, "sourdough rye", "first train sundays", "", "zzz qqq"]),
)
def test_kept_text_never_exceeds_the_budget(chosen: list[int], budget: int, estimator: str, query: str) -> None:
    nodes = [TextNode(text=PAGES[k].html, id_=f"{PAGES[k].name}-{n}") for n, k in enumerate(chosen)]
    post = QatbePostprocessor(budget=budget, estimator=estimator)
    found = post.postprocess_nodes(_scored(nodes), query_str=query)
    estimate = qatbe.Settings(estimator=estimator).estimate
    assert sum(estimate(n.node.get_content()) for n in found) <= budget
    assert len({n.node.node_id for n in found}) == len(found) <= len(nodes)
    assert _snapshot(found) == _snapshot(post.postprocess_nodes(_scored(nodes), query_str=query))


def test_readme_example_runs_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(example("llamaindex"), "README.md:llamaindex", "exec"), {})  # noqa: S102 (the README's own code)
    printed = capsys.readouterr().out
    assert printed.startswith("hours ") and "10am" in printed and "bread" not in printed
