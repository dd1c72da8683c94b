"""qatbe inside LangChain: the real langchain-core base classes and langchain-classic's
ContextualCompressionRetriever, over an in-memory retriever of fixture pages (no network, no model)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from integration_pages import PAGES, QUERY
from readme_examples import example

import qatbe
from qatbe.render import render

pytest.importorskip("langchain_core")
pytest.importorskip("langchain_classic")

from langchain_classic.retrievers import ContextualCompressionRetriever
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from qatbe.integrations.langchain import QatbeCompressor, QatbeTransformer


class ShelfRetriever(BaseRetriever):
    """Returns every stored document that shares a word with the query, in the order they were stored."""

    documents: list[Document]

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun
                                ) -> list[Document]:
        words = set(query.lower().split())
        return [d for d in self.documents if words & set(d.page_content.lower().split())]


def _documents() -> list[Document]:
    return [Document(page_content=p.html, metadata={"source": f"https://example.org/{p.name}", "rank": k},
                     id=p.name) for k, p in enumerate(PAGES)]


def _retriever(compressor: QatbeCompressor) -> BaseRetriever:
    return ContextualCompressionRetriever(base_compressor=compressor,
                                          base_retriever=ShelfRetriever(documents=_documents()))


def _snapshot(docs: Sequence[Document]) -> list[tuple[str | None, str, dict[str, object]]]:
    return [(d.id, d.page_content, dict(d.metadata)) for d in docs]


def test_one_budget_over_all_retrieved_documents() -> None:
    found = _retriever(QatbeCompressor(budget=120)).invoke(QUERY)
    assert found, "the museum page answers the query"
    assert sum(d.metadata["qatbe_tokens"] for d in found) <= 120
    for d in found:
        assert d.metadata["qatbe_tokens"] == qatbe.Settings().estimate(d.page_content)
        assert d.metadata["source"] == f"https://example.org/{d.id}"  # the retriever's metadata is kept
        assert d.page_content
    best = found[0]
    assert best.id == "museum" and "10am on Sundays" in best.page_content
    assert best.metadata["qatbe_score"] == max(d.metadata["qatbe_score"] for d in found) > 0
    assert "bakery" not in {d.id for d in found}  # nothing of it matches: it is left out
    assert "Copyright" not in "".join(d.page_content for d in found)


def test_same_documents_same_output_and_async_agrees() -> None:
    retriever = _retriever(QatbeCompressor(budget=150))
    first = _snapshot(retriever.invoke(QUERY))
    assert first == _snapshot(retriever.invoke(QUERY))
    assert first == _snapshot(asyncio.run(retriever.ainvoke(QUERY)))


def test_per_document_cuts_each_document_to_the_budget_on_its_own() -> None:
    docs = _documents()
    out = QatbeCompressor(budget=40, per_document=True).compress_documents(docs, QUERY)
    assert [d.id for d in out] == [d.id for d in docs]  # input order, every page has main content
    for d, original in zip(out, docs):
        assert d.metadata["qatbe_tokens"] <= 40
        assert d.page_content == qatbe.extract(original.page_content, QUERY, budget=40).text
        assert d.metadata["rank"] == original.metadata["rank"]
    assert sum(d.metadata["qatbe_tokens"] for d in out) > 40  # a budget each, not one for all


def test_options_are_validated_at_construction() -> None:
    with pytest.raises(qatbe.ConfigError, match="budget"):
        QatbeCompressor(budget=-5)
    with pytest.raises(qatbe.ConfigError, match="unknown option 'colour'"):
        QatbeCompressor(colour="red")
    with pytest.raises(qatbe.ConfigError, match="citations"):
        QatbeCompressor(citations=True)
    with pytest.raises(qatbe.ConfigError, match="ranking"):
        QatbeCompressor(per_document=True, ranking="recency")
    with pytest.raises(qatbe.ConfigError, match="per_document"):
        QatbeCompressor(per_document="yes")  # type: ignore[arg-type]
    with pytest.raises(qatbe.ConfigError, match="unknown tier"):
        QatbeTransformer(tier="huge")


def test_options_change_the_output() -> None:
    docs = _documents()
    text = QatbeCompressor(budget=200, render="text").compress_documents(docs, QUERY)
    markdown = QatbeCompressor(budget=200).compress_documents(docs, QUERY)
    assert any(d.page_content.startswith("# ") for d in markdown)
    assert not any(line.startswith("#") for d in text for line in d.page_content.splitlines())
    reserved = QatbeCompressor(budget=200, reserve_tokens=150).compress_documents(docs, QUERY)
    assert sum(d.metadata["qatbe_tokens"] for d in reserved) <= 50


def test_an_unreadable_document_is_left_out_or_raised_with_strict(caplog: pytest.LogCaptureFixture) -> None:
    docs = [*_documents(), Document(page_content="\x01\x02\x03\x04" * 200, id="binary")]
    with caplog.at_level(logging.WARNING, logger="qatbe.integrations"):
        out = QatbeCompressor(budget=120).compress_documents(docs, QUERY)
    assert "binary" not in {d.id for d in out} and out[0].id == "museum"
    assert "documents[4]" in caplog.text
    with pytest.raises(qatbe.InputError, match=r"documents\[4\]"):
        QatbeCompressor(budget=120, strict=True).compress_documents(docs, QUERY)


def test_transformer_cuts_loaded_html_pages() -> None:
    docs = _documents()
    docs[1] = Document(page_content=docs[1].page_content, metadata={"title": "Kept title"}, id="bakery")
    out = QatbeTransformer(budget=60).transform_documents(docs)
    assert [d.id for d in out] == [p.name for p in PAGES]
    for d in out:
        assert 0 < d.metadata["qatbe_tokens"] <= 60
        assert "Copyright" not in d.page_content and "Privacy" not in d.page_content
    assert out[0].metadata["title"] == "Visiting the Harbour Museum" and out[0].metadata["language"] == "en"
    assert out[1].metadata["title"] == "Kept title"  # the loader's own metadata wins
    asked = QatbeTransformer(budget=60).transform_documents(docs, query=QUERY)
    assert "10am on Sundays" in asked[0].page_content
    assert _snapshot(asked) == _snapshot(QatbeTransformer(query=QUERY, budget=60).transform_documents(docs))
    assert _snapshot(asyncio.run(QatbeTransformer(query=QUERY, budget=60).atransform_documents(docs))) \
        == _snapshot(asked)
    with pytest.raises(qatbe.ConfigError, match="colour"):
        QatbeTransformer().transform_documents(docs, colour="red")
    with pytest.raises(qatbe.ConfigError, match="query must be a string"):
        QatbeTransformer().transform_documents(docs, query=7)


def _words_twice(text: str) -> int:
    return 2 * len(text.split())


def _odd_length(text: str) -> int:
    """An estimator that does not add up (a text's cost is not its parts'): 10 tokens for an odd length."""
    return 10 * (len(text) % 2)


def test_pieces_are_held_to_the_budget_even_when_the_estimator_does_not_add_up() -> None:
    docs = [Document(page_content=p.html, id=p.name) for p in PAGES]
    many = qatbe.extract_many([d.page_content for d in docs], "first train sundays", budget=12, citations=False,
                              estimator=_odd_length)
    cited = {p.document for p in many.passages}
    alone = [render([p.segment for p in many.passages if p.document == k], "markdown") for k in sorted(cited)]
    assert many.total_tokens <= 12 < sum(_odd_length(text) for text in alone)  # cut apart, it would not fit
    out = QatbeCompressor(budget=12, estimator=_odd_length).compress_documents(docs, "first train sundays")
    assert out and sum(_odd_length(d.page_content) for d in out) <= 12


@settings(max_examples=40, deadline=None)
@given(
    chosen=st.lists(st.sampled_from(range(len(PAGES))), min_size=1, max_size=6),
    budget=st.integers(min_value=0, max_value=400),
    reserve=st.integers(min_value=0, max_value=60),
    estimator=st.sampled_from(["chars_div4", "words", "whitespace", _words_twice, _odd_length]),
    query=st.sampled_from([QUERY, "sourdough rye", "first train sundays", "", "zzz qqq"]),
)
def test_returned_tokens_never_exceed_the_budget(chosen: list[int], budget: int, reserve: int,
                                                 estimator: object, query: str) -> None:
    docs = [Document(page_content=PAGES[k].html, id=f"{PAGES[k].name}-{n}") for n, k in enumerate(chosen)]
    if reserve and reserve >= budget:  # a reserve that leaves nothing is refused when the compressor is built
        with pytest.raises(qatbe.ConfigError, match="reserve_tokens"):
            QatbeCompressor(budget=budget, reserve_tokens=reserve, estimator=estimator)
        return
    compressor = QatbeCompressor(budget=budget, reserve_tokens=reserve, estimator=estimator)
    out = compressor.compress_documents(docs, query)
    estimate = qatbe.Settings(estimator=estimator).estimate  # type: ignore[arg-type]
    assert sum(estimate(d.page_content) for d in out) <= max(budget - reserve, 0)
    assert all(d.metadata["qatbe_tokens"] == estimate(d.page_content) for d in out)
    assert _snapshot(out) == _snapshot(compressor.compress_documents(docs, query))


def test_readme_example_runs_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(example("langchain"), "README.md:langchain", "exec"), {})  # noqa: S102 (the README's own code)
    printed = capsys.readouterr().out
    assert "museum" in printed and "tokens" in printed
