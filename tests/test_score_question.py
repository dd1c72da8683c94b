"""``read_question`` reads a query in one pass as the separate steps it replaced read it: the analyser's query
terms, the question/context weights and the "asks for a number" test, each from the whole query again."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qatbe
from qatbe.score.analyze import analyzer
from qatbe.score.expand import spellings
from qatbe.score.question import _NUMERIC_QUESTION, _asks_for_number, read_question

_SENTENCE = re.compile(r"(?<=[.!?。？！])\s+")
# The phrases that ask for a number are the module's own regex: the separate steps read it as the one pass does,
# and a phrase added to it is tested here without a second copy to keep in step.
_NUMERIC = _NUMERIC_QUESTION


def _weights(language: str, query: str, terms: list[str], context_weight: float) -> list[float]:
    """The weights as first written: 1, or ``context_weight`` for a term no question sentence has."""
    sentences = [x for x in _SENTENCE.split(query.strip()) if x]
    questions = [x for x in sentences if x.rstrip().endswith(("?", "？"))]
    if context_weight == 1.0 or len(sentences) < 2 or not questions:
        return [1.0] * len(terms)
    asked = {t for x in questions for t, _ in analyzer(language).query(x)[0]}
    return [1.0 if t in asked else context_weight for t in terms]


def _numeric(query: str) -> bool:
    asked = [x for x in _SENTENCE.split(query.strip()) if x.rstrip().endswith(("?", "？"))] or [query]
    return any(_NUMERIC.search(x) for x in asked)


pieces = st.one_of(
    st.sampled_from(["What", "is", "the", "fee", "How many", "when", "deadline", "time limit", "how soon", "what's", "I am 18.", "Can I appeal?", "to", "be", "?",
                     "！", "。", "数据。", "Straße", "e-mail", "U.S.", "don't", "3.11", "in what year", "\n", "  ", "honored", "colour", "licence"]),
    st.text(max_size=5),
)


@pytest.mark.parametrize("language", ["en", "de", None])
@settings(max_examples=200, deadline=None)
@given(st.lists(pieces, min_size=1, max_size=12).map(" ".join), st.sampled_from([0.5, 1.0, 0.0]))
def test_one_reading_gives_what_the_separate_steps_gave(language: str | None, query: str, weight: float) -> None:
    if not query.strip():
        return
    an = analyzer(language)
    got = read_question(an, query, weight, 1.0)
    terms, only_stopwords = an.query(query)
    assert (list(got.terms), got.only_stopwords) == (terms, only_stopwords)
    assert list(got.weights) == _weights(language or "", query, [t for t, _ in terms], weight)
    assert got.numeric == _numeric(query)
    spelled = spellings(an, terms, list(got.weights))
    assert list(got.spelled) == spelled
    assert list(got.names) == [t for t, _ in terms] + [t for t, _, _ in spelled]
    assert list(got.surfaces) == [x for _, x in terms] + [x for _, x, _ in spelled]
    assert list(got.searched) == list(got.weights) + [w for _, _, w in spelled]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["how", "HOW", "many", "When", "wHAT", "year", "which", "whıch", "ſ", "K", "İn",
                                 "what", "date", " ", "?", "x", "Hоw", "is the", "deadlıne", "deadline", "soon",
                                 "'s the", "’s the", "time limit"]) | st.text(max_size=3), max_size=8).map(" ".join))
def test_the_cheap_test_for_a_number_question_agrees_with_the_regex(sentence: str) -> None:
    assert _asks_for_number(sentence) == (_NUMERIC.search(sentence) is not None)


def test_context_words_weigh_less_and_a_question_for_a_number_is_seen() -> None:
    got = read_question(analyzer("en"), "I am 18 and got my results. How many times can I appeal?", 0.5, 1.0)
    weight = dict(zip([t for t, _ in got.terms], got.weights))
    assert weight["appeal"] == 1.0 and weight["result"] == 0.5 and got.numeric
    assert not read_question(analyzer("en"), "I paid in 2020. Can I appeal?", 0.5, 1.0).numeric


@pytest.mark.parametrize(("query", "numeric"), [
    ("What is the time limit for nominating someone for a gallantry award?", True),
    ("What's the deadline for paying PSA tax?", True),
    ("What’s the fee?", True),
    ("How soon do I need to tell my workers?", True),
    ("What is the price of a licence?", True),
    ("Is there a deadline?", False),  # a yes/no question: no number is asked for
    ("What is the limit of my liability?", False),
])
def test_deadlines_time_limits_and_prices_ask_for_a_number(query: str, numeric: bool) -> None:
    assert read_question(analyzer("en"), query, 0.5, 1.0).numeric is numeric


@pytest.mark.parametrize(("query", "frame"), [
    ("What type of organism are cyanobacteria?", "type"),
    ("Which kinds of fees apply to a renewal?", "kind"),
    ("what SORT of engine powers the ship?", "sort"),
])
def test_the_frame_noun_of_a_question_for_a_kind_of_thing_weighs_less(query: str, frame: str) -> None:
    an = analyzer("en")

    def weights(frame_weight: float) -> dict[str, float]:
        question = read_question(an, query, 0.5, frame_weight)
        return dict(zip([t for t, _ in question.terms], question.weights))

    got, plain = weights(0.5), weights(1.0)
    (framed,) = [t for t, _ in an.query_terms([frame])[0]]
    assert got[framed] == 0.5 * plain[framed] == 0.5
    assert all(w == plain[t] for t, w in got.items() if t != framed)


@pytest.mark.parametrize(("language", "query"), [
    ("en", "What is the type specimen of the genus?"),  # "type" not as a frame: no "what type of"
    ("en", "Which form did the treaty take?"),
    ("de", "What type of organism are cyanobacteria?"),  # English frames only
])
def test_a_query_without_an_english_frame_keeps_its_weights(language: str, query: str) -> None:
    an = analyzer(language)
    assert read_question(an, query, 0.5, 0.5).weights == read_question(an, query, 0.5, 1.0).weights


def test_the_segment_that_names_the_thing_beats_the_one_that_repeats_the_frame() -> None:
    doc = ("# Chloroplast\n\nChloroplasts are one type of organelle in the plant cell, and this type of organelle "
           "holds the pigments.\n\nCyanobacteria are the ancestors of chloroplasts. They are prokaryotes, a phylum "
           "of bacteria.\n\nGlaucophyte chloroplasts keep a wall between their two membranes.\n")
    query = "What type of organism are cyanobacteria?"
    assert "prokaryotes" in qatbe.extract(doc, query, budget=30).text
    # The frame weight is what decides: at full weight the frame noun's two mentions win.
    assert "prokaryotes" not in qatbe.extract(doc, query, budget=30, scoring={"frame_weight": 1.0}).text
