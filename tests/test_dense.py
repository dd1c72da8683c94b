"""Dense and hybrid ranking (``qatbe/score/dense.py``): the similarity and fusion formulas, the settings they
need, and their place in the pipeline (same floor, weights, knapsack and budget guarantee as BM25)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import markdown_documents, queries

import qatbe
from qatbe.score.dense import fuse, relevant_of, similarities

DEMO = (Path(qatbe.__file__).parent / "data" / "demo.html").read_text(encoding="utf-8")
DIMS = 64
# Words the toy embedder treats as one meaning (what an embedding model knows and BM25 does not).
SAME = {"automobile": "car", "vehicle": "car", "physician": "doctor"}


def bag_embedder(texts: list[str]) -> np.ndarray:
    """A deterministic embedder: hashed bag of lower-cased words, with a few synonyms folded together."""
    out = np.zeros((len(texts), DIMS))
    for i, text in enumerate(texts):
        for word in re.findall(r"\w+", text.lower()):
            word = SAME.get(word, word)
            out[i, int(hashlib.sha1(word.encode()).hexdigest(), 16) % DIMS] += 1.0
    return out


def test_similarity_is_the_clipped_cosine() -> None:
    vectors = {"q": [1.0, 0.0, 1.0], "a": [2.0, 0.0, 2.0], "b": [0.0, 3.0, 0.0], "c": [-1.0, 0.0, -1.0],
               "d": [1.0, 1.0, 0.0], "z": [0.0, 0.0, 0.0]}

    def embed(texts: list[str]) -> np.ndarray:
        return np.array([vectors[t] for t in texts])

    sims = similarities(embed, "q", ["a", "b", "c", "d", "z"])
    assert sims.tolist() == pytest.approx([1.0, 0.0, 0.0, 0.5, 0.0])


@pytest.mark.parametrize("bad", [lambda t: [[1.0]] * (len(t) - 1), lambda t: np.ones(len(t)),
                                 lambda t: [[float("nan")]] * len(t), lambda t: [["x"]] * len(t)])
def test_a_wrong_embedder_is_a_config_error(bad: object) -> None:
    with pytest.raises(qatbe.ConfigError, match="embedder"):
        similarities(bad, "q", ["a", "b"])  # type: ignore[arg-type]


def test_fusion_is_a_normalised_sum() -> None:
    lexical = np.array([4.0, 2.0, 0.0, 0.0])
    dense = np.array([0.2, 0.4, 0.8, 0.0])
    assert fuse("embedding", lexical, dense, 0.5).tolist() == dense.tolist()
    expected = 0.3 * lexical / 4.0 + 0.7 * dense / 0.8
    assert fuse("hybrid", lexical, dense, 0.7).tolist() == pytest.approx(expected.tolist())
    assert fuse("hybrid", np.zeros(3), np.zeros(3), 0.5).tolist() == [0.0, 0.0, 0.0]
    assert relevant_of(np.array([1.0, 0.05, 0.2, 0.0]), 0.1).tolist() == [True, False, True, False]


def test_settings_refuse_a_dense_ranking_without_an_embedder_and_the_reverse() -> None:
    with pytest.raises(qatbe.ConfigError, match="needs embedder"):
        qatbe.Settings(ranking="hybrid")
    with pytest.raises(qatbe.ConfigError, match="only with ranking"):
        qatbe.Settings(embedder=bag_embedder)
    with pytest.raises(qatbe.ConfigError, match="dense_weight"):
        qatbe.Settings(ranking="hybrid", embedder=bag_embedder, dense_weight=1.5)


def test_embedding_ranking_finds_what_shares_no_word_with_the_query() -> None:
    page = ("# Notes\n\n"
            + "\n\n".join(f"Paragraph {i} is about gardening, tomatoes and the weather in spring." for i in range(12))
            + "\n\nThe physician sees patients on Mondays and Thursdays.\n")
    lexical = qatbe.extract(page, "when does the doctor work", budget=30)
    dense = qatbe.extract(page, "when does the doctor work", budget=30, ranking="embedding", embedder=bag_embedder)
    assert lexical.no_match and "physician" not in lexical.text
    assert "physician" in dense.text and dense.total_tokens <= 30
    assert any(s.matched and "physician" in s.text for s in dense.segments)


def test_hybrid_with_no_dense_share_is_the_lexical_ranking() -> None:
    for tier in qatbe.TIERS:
        q = "how do I renew my passport and what does it cost?"
        plain = qatbe.extract(DEMO, q, tier=tier)
        hybrid = qatbe.extract(DEMO, q, tier=tier, ranking="hybrid", embedder=bag_embedder, dense_weight=0.0)
        assert hybrid.text == plain.text


@settings(max_examples=40, deadline=None)
@given(markdown_documents(), queries(), st.sampled_from(["hybrid", "embedding"]), st.integers(10, 400),
       st.floats(0.0, 1.0))
def test_dense_rankings_keep_the_budget_and_are_deterministic(doc: str, query: str | None, ranking: str,
                                                              budget: int, weight: float) -> None:
    options = {"ranking": ranking, "embedder": bag_embedder, "dense_weight": weight, "budget": budget}
    first = qatbe.extract(doc, query, **options)  # type: ignore[arg-type]
    assert first.total_tokens <= budget
    assert qatbe.extract(doc, query, **options).text == first.text  # type: ignore[arg-type]


def test_extract_many_ranks_documents_by_the_fused_scores() -> None:
    docs = [qatbe.Document("Gardening: tomatoes want sun and water every day.", title="garden"),
            qatbe.Document("The physician works on Mondays at the clinic.", title="clinic"),
            qatbe.Document("Weather today: rain in the morning, sun later.", title="weather")]
    m = qatbe.extract_many(docs, "when does the doctor work", budget=120, ranking="embedding",
                           embedder=bag_embedder)
    assert m.total_tokens <= 120
    assert m.passages and m.passages[0].document == 1
    lexical = qatbe.extract_many(docs, "when does the doctor work", budget=120)
    assert all(p.document != 1 or not p.segment.matched for p in lexical.passages)
