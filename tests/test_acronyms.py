"""Acronyms both ways (``expand_query=True``): the shipped list, and the definitions a page gives itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe.score import score_segments
from qatbe.score.analyze import analyzer
from qatbe.score.expand import (
    acronym_expansions,
    acronym_index,
    acronym_table,
    definitions,
    expansions,
    long_form,
)
from qatbe.score.question import read_question
from qatbe.settings import Settings
from qatbe.types import Segment, SegmentKind

ROOT = Path(__file__).resolve().parents[1]
EXPAND = Settings(language="en", expand_query=True)
PLAIN = Settings(language="en")


def segs(*texts: str) -> list[Segment]:
    return [Segment(SegmentKind.PARAGRAPH, t, t, i * 10, i) for i, t in enumerate(texts)]


def test_the_shipped_list_knows_common_acronyms() -> None:
    pairs = set(acronym_table())
    assert ("nasa", "national aeronautics and space administration") in pairs
    assert ("api", "application programming interface") in pairs
    assert ("fbi", "federal bureau of investigation") in pairs
    assert not any(short in {"pet", "ram", "who", "us"} and "tomography" in long for short, long in pairs)


@pytest.mark.parametrize(("query", "page"), [
    ("application programming interface limits", "Every API has rate limits."),
    ("API limits", "Every application programming interface has rate limits."),
    ("national aeronautics and space administration budget", "The NASA budget grew."),
    ("NASA budget", "The National Aeronautics and Space Administration budget grew."),
])
def test_acronyms_match_both_ways(query: str, page: str) -> None:
    doc = segs(page, "The weather was fine all week.")
    got = score_segments(doc, query, EXPAND)
    assert got.raw[0] > 0 and got.raw[1] == 0
    # the expansion is what matches: without it only "limits"/"budget" could, which the page also has
    bare = score_segments(doc, query, PLAIN)
    assert got.raw[0] > bare.raw[0]


@pytest.mark.parametrize(("text", "pair"), [
    ("Claim Bereavement Support Payment (BSP) within 21 months.", ("bsp", "Bereavement Support Payment")),
    ("Claim BSP (Bereavement Support Payment) within 21 months.", ("bsp", "Bereavement Support Payment")),
    ("The National Aeronautics and Space Administration (NASA) was founded.",
     ("nasa", "National Aeronautics and Space Administration")),
    ("Use the Docs API (Application Programming Interface).", ("api", "Application Programming Interface")),
])
def test_a_page_defines_its_acronyms(text: str, pair: tuple[str, str]) -> None:
    assert definitions([text]) == (pair,)


@pytest.mark.parametrize("text", [
    "See the table (below) for more.", "Ara sang at Verdi (Verdi Theatre) in 1990.",
    "Boy George (George Alan O'Dowd; 14 June 1961) sang.", "It costs 5 pounds (GBP) a month.", "No brackets.",
])
def test_parentheses_that_define_nothing(text: str) -> None:
    assert definitions([text]) == ()


def test_long_form_is_the_shortest_match_opening_on_a_word() -> None:
    assert long_form("BSP", "you can claim Bereavement Support Payment") == "Bereavement Support Payment"
    assert long_form("XYZ", "nothing matches here") is None


def test_a_learned_definition_finds_the_acronym_and_the_long_form() -> None:
    doc = segs("Bereavement Support Payment (BSP) helps after a death.", "Apply for BSP within 21 months.",
               "The weather was fine all week.")
    long_query = score_segments(doc, "how long do I have to apply for bereavement support payment?", EXPAND)
    assert long_query.raw[1] > score_segments(doc, "how long do I have to apply for bereavement support payment?",
                                              PLAIN).raw[1]
    doc2 = segs("Bereavement Support Payment (BSP) helps after a death.", "Apply within 21 months of the death.",
                "Bereavement Support Payment is paid monthly.")
    short_query = score_segments(doc2, "how much is BSP?", EXPAND)
    assert short_query.raw[2] > 0 and score_segments(doc2, "how much is BSP?", PLAIN).raw[2] == 0


def test_the_context_of_a_question_does_not_add_acronyms() -> None:
    an = analyzer("en")
    index = acronym_index(an, [("bsp", "Bereavement Support Payment")])
    q = read_question(an, "My wife got Bereavement Support Payment. Can I get it too?", 0.3, 1.0)
    assert "bsp" not in {t for t, _, _ in acronym_expansions(an, q.terms, q.weights, index)}
    q = read_question(an, "Can I get Bereavement Support Payment?", 0.3, 1.0)
    assert "bsp" in {t for t, _, _ in acronym_expansions(an, q.terms, q.weights, index)}


WORDS = st.sampled_from(["API", "application", "programming", "interface", "NASA", "(", ")", "the", "Long",
                         "Form", "(LF)", "LF", "(Long Form)", "space", "x", "BSP", "Bereavement", "Support"])


@settings(max_examples=60, deadline=None)
@given(page=st.lists(st.lists(WORDS, max_size=12).map(" ".join), max_size=5),
       query=st.lists(WORDS, min_size=1, max_size=6).map(" ".join))
def test_expansion_is_deterministic_and_never_repeats_a_query_term(page: list[str], query: str) -> None:
    an = analyzer("en")
    q = read_question(an, query, 0.3, 1.0)
    first = expansions(an, q.terms, q.weights, None, True, q.names, page)
    assert first == expansions(analyzer("en"), q.terms, q.weights, None, True, q.names, list(page))
    assert definitions(page) == definitions(list(page))
    assert not {t for t, _, _ in first} & set(q.names)


@pytest.mark.skipif(not Path("/usr/share/wordnet/data.noun").exists(),
                    reason="WordNet is not installed (apt-get install wordnet-base)")
def test_shipped_acronym_table_is_what_the_build_script_makes() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_acronyms.py"), "--check"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
