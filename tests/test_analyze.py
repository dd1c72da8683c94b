"""Tokenization and per-language analysis."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from qatbe.score import languages
from qatbe.score.analyze import Analyzer, raw_terms

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Python 3.11 and v2", ["python", "3.11", "and", "v2"]),
        ("1,000 people", ["1000", "people"]),
        ("the U.S. army", ["the", "us", "army"]),
        ("see example.com", ["see", "example", "com"]),
        ("state-of-the-art", ["state", "of", "the", "art", "stateoftheart"]),
        ("e-mail", ["e", "mail", "email"]),
        ("John's car", ["john", "car"]),
        ("don't", ["dont"]),
        ("l'homme", ["lhomme", "homme"]),
        ("get_user_name", ["get_user_name", "get", "user", "name"]),
        ("getUserName", ["getusername", "get", "user", "name"]),
        ("HTTPServer", ["httpserver", "http", "server"]),
        ("東京タワー", ["東京", "京タ", "タワ", "ワー"]),
        ("猫", ["猫"]),
        ("서울은", ["서울", "울은"]),
        ("Ärger STRASSE", ["ärger", "strasse"]),
        ("a—b", ["a", "b"]),
        ("", []),
    ],
)
def test_raw_terms(text: str, expected: list[str]) -> None:
    assert raw_terms(text) == expected


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_terms_are_nonempty_words_and_deterministic(text: str) -> None:
    for language in (None, "en", "de", "ja"):
        a = Analyzer(language)
        terms = a.terms(text)
        assert terms == Analyzer(language).terms(text)
        for t in terms:
            assert t and not any(ch.isspace() for ch in t)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(categories=["Lu", "Ll", "Nd"]), min_size=1, max_size=30))
def test_case_never_changes_the_term(word: str) -> None:
    assume(word.upper().casefold() == word.casefold())  # not so for Turkish dotless i, which is fine
    a = Analyzer("en")
    assert a.terms(word.upper().lower()) == a.terms(word.lower())


@pytest.mark.parametrize(
    ("language", "a", "b"),
    [
        ("en", "running passports", "run passport"),
        ("de", "Die Häuser", "Haus"),
        ("fr", "les élèves", "élève"),
        ("es", "las canciones", "canción"),
        ("ru", "кошками", "кошка"),
    ],
)
def test_stemming_meets_inflected_forms(language: str, a: str, b: str) -> None:
    an = Analyzer(language)
    assert set(an.terms(b)) <= set(an.terms(a))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["running", "ran", "the", "Über", "caf\u00e9s", "x86_64", "2024", "e-mail", "getUserName",
                                 "HTTPServer", "don't", "Ära", "runs", "3.11", "", "ﬁles"]), min_size=1, max_size=12),
       st.integers(min_value=1, max_value=6))
def test_new_words_learnt_together_mean_what_each_means_alone(words: list[str], memo_max: int) -> None:
    """A page's new tokens are stemmed in one call (``_learn_terms``); each must still get the terms it gets
    alone, whatever the cache held before and also when it starts afresh midway (a tiny ``MEMO_MAX``)."""
    from qatbe.score import analyze

    def reference(an: Analyzer, token: str) -> tuple[tuple[str, ...], tuple[str | None, ...]]:
        """The analysis as it was written before: each surface stemmed alone by ``stemWord``."""
        stemmer = languages.stemmer(an.language)
        terms: list[str] = []
        checks: list[str | None] = []
        for s in analyze.split_cached(token):
            t = ""
            if s and s not in an.lexicon.stopwords:
                t = analyze._fold(stemmer.stemWord(s) if stemmer is not None and not s[0].isdigit() else s)
            terms.append(t)
            checks.append(t[:2] if t and s.isascii() else None)
        return tuple(terms), tuple(checks)

    for language in ("en", "de", None):
        alone = Analyzer(language)
        expected = [reference(alone, w) for w in words]
        batch = Analyzer(language)
        batch.term(words[0] or "x")  # something in the cache already
        old, analyze.MEMO_MAX = analyze.MEMO_MAX, memo_max
        try:
            got = batch._analyse(False, words, bytes(len(words)))
        finally:
            analyze.MEMO_MAX = old
        assert got == expected
        assert [batch.term(w) for w in words if w] == [alone.term(w) for w in words if w]
        # a new question's words are learnt together too (query_terms): the same (term, first surface) pairs
        surfaces = [w.casefold() for w in words if w]
        pairs = dict.fromkeys((t, w) for w in surfaces if (t := alone.term(w)) is not None)
        fresh = Analyzer(language)
        if pairs:
            firsts: dict[str, str] = {}
            for t, w in pairs:
                firsts.setdefault(t, w)
            assert fresh.query_terms(surfaces) == (list(firsts.items()), False)


def test_accents_fold_after_stemming_and_marks_stay_in_other_scripts() -> None:
    assert Analyzer(None).terms("Café") == Analyzer(None).terms("cafe")
    assert Analyzer(None).terms("हिन्दी") == ["हिन्दी"]  # the virama is a combining mark that carries meaning


def test_unknown_language_means_no_stemming() -> None:
    assert Analyzer("xx").terms("running") == ["running"]
    assert Analyzer("zz-Latn").language is None or Analyzer("zz-Latn").terms("running") == ["running"]


def test_stopwords_dropped_but_a_stopword_only_query_keeps_its_words() -> None:
    a = Analyzer("en")
    assert a.terms("the passport") == ["passport"]
    terms, only_stop = a.query("to be or not to be")
    assert [t for t, _ in terms] == ["to", "be", "or", "not"] and only_stop
    assert a.terms("to be a cat", keep_stopwords=True) == ["to", "be", "a", "cat"]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("The cat sat on the mat and it was what we wanted to do with the dog all day.", "en"),
        ("Der Hund ist nicht auf der Straße, aber die Katze ist im Haus und wir sind hier.", "de"),
        ("Le chat est sur la table et il ne veut pas de lait dans la cuisine pour les enfants.", "fr"),
        ("El perro está en la casa y no quiere comer con los niños para el día de hoy.", "es"),
        ("Кошка сидит на столе и не хочет есть, потому что это было так у нас.", "ru"),
        ("猫はテーブルの上に座っています。", "ja"),
        ("我们的猫坐在桌子上。", "zh"),
        ("ok 42", None),
    ],
)
def test_detect(text: str, code: str | None) -> None:
    assert languages.detect(text) == code


@pytest.mark.parametrize(("given_code", "code"), [("en-GB", "en"), ("EN_us", "en"), ("no", "nb"), ("", None),
                                                  ("12", None)])
def test_normalize_code(given_code: str, code: str | None) -> None:
    assert languages.normalize_code(given_code) == code


@pytest.mark.skipif(
    importlib.util.find_spec("wordfreq") is None or importlib.util.find_spec("stopwordsiso") is None,
    reason="rebuilding the lexicons needs wordfreq and stopwordsiso (pip install wordfreq stopwordsiso)",
)
def test_shipped_lexicons_are_what_the_build_script_makes() -> None:
    """Two languages keep the suite fast; ``python scripts/build_lexicon.py --check`` checks all of them."""
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_lexicon.py"), "--check", "--only", "en,fr"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
