"""Query expansion: the shipped WordNet table, user synonyms, lower weights for expanded terms."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from qatbe.errors import ConfigError
from qatbe.score import score_segments
from qatbe.score.analyze import Analyzer
from qatbe.score.expand import (
    EXPANSION_WEIGHT,
    NUMBER_WEIGHT,
    expansions,
    number_variant,
    spelling_variants,
    table,
)
from qatbe.settings import Settings
from qatbe.types import Segment, SegmentKind

ROOT = Path(__file__).resolve().parents[1]


def segs(*texts: str) -> list[Segment]:
    return [Segment(SegmentKind.PARAGRAPH, t, t, i * 10, i) for i, t in enumerate(texts)]


def test_table_has_synonyms_and_acronyms() -> None:
    t = table()
    assert "automobile" in t["car"] and "purchase" in t["buy"]
    assert "north atlantic treaty organization" in t["nato"]
    assert "application programming interface" in t["api"]
    assert all(w and syns and all(syns) for w, syns in t.items())


def test_expansions_weigh_less_and_never_repeat_query_terms() -> None:
    an = Analyzer("en")
    q, _ = an.query("buy a car")
    extra = expansions(an, q, [1.0] * len(q))
    terms = {t for t, _, _ in extra}
    assert {"purchas", "automobil"} <= terms
    assert not terms & {t for t, _ in q}
    assert all(w == pytest.approx(EXPANSION_WEIGHT) for _, _, w in extra)


def test_builtin_table_is_english_only_but_user_synonyms_apply_everywhere() -> None:
    de = Analyzer("de")
    q, _ = de.query("Auto kaufen")
    assert expansions(de, q, [1.0] * len(q)) == []
    extra = expansions(de, q, [1.0] * len(q), {"auto": ["Wagen"]})
    assert [t for t, _, _ in extra] == ["wag"]


def test_expansion_finds_a_segment_with_no_query_word() -> None:
    doc = segs("Buy an automobile here today.", "The weather is fine.", "Trains leave hourly.")
    on = score_segments(doc, "purchase a car", Settings(language="en", expand_query=True))
    off = score_segments(doc, "purchase a car", Settings(language="en", expand_query=False))
    assert on.raw[0] > 0 and off.raw[0] == 0
    user = score_segments(doc, "purchase a car", Settings(language="en", expand_query=False,
                                                           synonyms={"car": ["automobile"]}))
    assert user.raw[0] > 0 and "automobil" in user.query_terms


@pytest.mark.parametrize("options", [{"expand_query": True}, {"synonyms": {"honour": ["honor", "glory"]}},
                                     {"synonyms": {"3": ["three", "3", "trio"]}, "expand_query": True}])
def test_a_synonym_the_query_already_searches_for_is_searched_once(options: dict[str, object]) -> None:
    """"3" has the synonym "three", which the number's other writing already searches for; "honor" is the other
    spelling of "honour". Each term is searched once (a term twice in the query used to be a ValueError from
    the index), and the page that uses it scores as it does without the synonym."""
    doc = segs("The honor of three layers.", "Honour guard of 3 men.", "Nothing here at all.")
    query = "How many layers of honour did DEC have, 3?"
    got = score_segments(doc, query, Settings(language="en", **options))  # type: ignore[arg-type]
    assert len(got.query_terms) == len(set(got.query_terms))
    plain = score_segments(doc, query, Settings(language="en"))
    assert set(plain.query_terms) <= set(got.query_terms)
    assert got.raw[0] > 0 and got.raw[1] > 0 and got.raw[2] == 0


@pytest.mark.parametrize("bad", [{"car": "auto"}, {"car": [1]}, ["car"], {1: ["a"]}])
def test_bad_user_synonyms_are_a_config_error(bad: object) -> None:
    with pytest.raises(ConfigError):
        Settings(synonyms=bad)  # type: ignore[arg-type]


@pytest.mark.skipif(not Path("/usr/share/wordnet/data.noun").exists(),
                    reason="WordNet is not installed (apt-get install wordnet-base)")
def test_shipped_synonym_table_is_what_the_build_script_makes() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_synonyms.py"), "--check"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(("asked", "written"), [("honored", "honours"), ("license", "licence"),
                                                 ("center", "centre"), ("organize", "organisation"),
                                                 ("defence", "defense")])
def test_british_and_american_spellings_match_each_other(asked: str, written: str) -> None:
    doc = segs(f"Apply for the {written} here.", "The museum opens at nine.")
    s = score_segments(doc, f"how do I get the {asked}", Settings(language="en"))
    assert s.raw[0] > 0 and s.raw[1] == 0


def test_spelling_variants_are_other_words_and_only_for_long_ascii_words() -> None:
    assert "honoured" in spelling_variants("honored") and "honor" in spelling_variants("honour")
    assert spelling_variants("tour") == [] and spelling_variants("état") == []
    for word in ("colour", "analyse", "travelled", "theatre", "catalogue"):
        assert all(v != word and v.isalpha() for v in spelling_variants(word))


def test_other_languages_get_no_spelling_variants() -> None:
    doc = segs("Die Lizenz kostet 20 Euro.", "Das Museum öffnet um neun.")
    s = score_segments(doc, "licence", Settings(language="de"))
    assert len(s.query_terms) == 1


@pytest.mark.parametrize(("asked", "written"), [("round 8", "Round eight"), ("round eight", "Round 8"),
                                                 ("eighth round", "8th round"), ("12th round", "twelfth round"),
                                                 ("round 40", "round forty")])
def test_a_number_matches_its_other_writing(asked: str, written: str) -> None:
    doc = segs(f"Picks of the {written}.", "Picks of the next round.")
    s = score_segments(doc, f"who was picked in the {asked}?", Settings(language="en"))
    assert s.raw[0] > s.raw[1]


def test_number_writings_pair_up_and_weigh_less_than_the_typed_word() -> None:
    assert [number_variant(w) for w in ("one", "11", "twelfth", "1st", "2nd", "3rd", "13th", "22", "thirtieth")] == [
        "1", "eleven", "12th", "first", "second", "third", "thirteenth", None, "30th"]
    for word in ("seven", "17", "ninety", "90th", "twentieth"):
        other = number_variant(word)
        assert other is not None and number_variant(other) == word
    s = score_segments(segs("Round eight picks."), "round 8", Settings(language="en"))
    weights = dict(zip(s.query_terms, s.weights))
    assert weights["eight"] == NUMBER_WEIGHT * weights["8"] < weights["8"]


def test_a_query_of_stopwords_gets_no_number_writings() -> None:
    """"what is the first year?" is all stopwords in English: its words are searched as they are, and "first"
    does not bring "1st" along."""
    s = score_segments(segs("The 1st year.", "The first year."), "what is the first year?", Settings(language="en"))
    assert "1st" not in s.query_terms
