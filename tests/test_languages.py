"""Language detection: the compiled letter-run scan matches its regex definition, and ``detect`` decides exactly as
the plain stopword vote it implements (script shares, then case-folded stopword hits per candidate)."""

from __future__ import annotations

import re
from collections import Counter
from types import ModuleType

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe import _core_py
from qatbe.score import languages

try:
    from qatbe import _core as _compiled
except ImportError:
    _compiled = None

KERNELS: list[ModuleType] = [_core_py] + ([_compiled] if _compiled is not None else [])
RANGES = languages._SCRIPT_RANGES

# Words that move the vote: stopwords of several candidates (some shared), with case variants, plus scripts.
_STOP = ["the", "and", "of", "der", "die", "und", "le", "la", "et", "el", "los", "y", "di", "che", "de", "och", "og",
         "ja", "że", "się", "và", "a", "é", "não", "и", "не", "на", "що", "це", "і"]
pieces = st.one_of(
    st.sampled_from(_STOP + [w.upper() for w in _STOP] + [w.title() for w in _STOP]),
    st.sampled_from(["猫", "東京タワー", "서울", "Ελλάδα", "العربية", "Straße", "STRASSE", "İstanbul", "ǅemal", "ﬁle",
                     "K", "12", "_", "x2y", "हिन्दी", "𝔘𝔫𝔦"]),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=6),
    st.text(alphabet="abcXYZ ", min_size=1, max_size=6),
)
texts = st.lists(pieces, max_size=40).map(" ".join)


def _reference_detect(sample: str) -> str | None:
    """The vote as first written (regex passes, a Counter of case-folded words, one set intersection per
    candidate): the oracle for the compiled path."""
    sample = sample[: languages.SAMPLE_CHARS]
    spans = dict(zip(languages._SCRIPTS, RANGES.tolist()))
    counts = {name: len(re.findall(f"[{chr(lo)}-{chr(hi)}]", sample)) for name, (lo, hi) in spans.items()}
    found = re.findall(r"[^\W\d_]+", sample)
    letters = max(1, sum(map(len, found)))
    for name, share in (("ja", 0.05), ("zh", 0.2), ("ko", 0.2), ("el", 0.3), ("ar", 0.3)):
        if counts[name] > share * letters:
            return name
    words = Counter(w.casefold() for w in found[: languages.SAMPLE_WORDS])
    if not words:
        return None
    cyrillic = counts["cyr"] > 0.3 * letters
    candidates = languages._CYRILLIC_CANDIDATES if cyrillic else languages._LATIN_CANDIDATES
    hits = sorted(((sum(words[w] for w in words.keys() & languages.stopwords(c)), c) for c in candidates),
                  reverse=True)
    best, code = hits[0]
    runner_up = hits[1][0]
    if best < 3 or best < 1.3 * runner_up:
        return None
    return code


@pytest.mark.skipif(_compiled is None, reason="the compiled core is not built")
@settings(max_examples=400, deadline=None)
@given(texts, st.integers(0, 50), st.lists(st.tuples(st.integers(-5, 0x110005), st.integers(-5, 0x110005)),
                                            max_size=4))
def test_compiled_and_python_letter_runs_agree(text: str, max_words: int, spans: list[tuple[int, int]]) -> None:
    assert _compiled is not None
    ranges = np.asarray(spans, dtype=np.int64).reshape(-1, 2)
    a = _compiled.letter_runs(text, ranges, max_words)
    b = _core_py.letter_runs(text, ranges, max_words)
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1:3] == b[1:3] and a[4] == b[4]
    np.testing.assert_array_equal(a[3], b[3])
    assert a[0].dtype == a[3].dtype == np.int64


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_letter_runs_follow_the_regex_definition(kernel: ModuleType) -> None:
    text = "The THE the x2y snake_case Straße STRASSE 東京 кошка Кошка 12"
    in_range, letters, words, counts, n_ascii = kernel.letter_runs(text, RANGES, 100)
    assert letters == sum(map(len, re.findall(r"[^\W\d_]+", text)))
    assert words == ["the", "x", "y", "snake", "case", "strasse", "Straße", "東京", "кошка", "Кошка"]
    assert counts.tolist() == [3, 1, 1, 1, 1, 1, 1, 1, 1, 1] and n_ascii == 6
    assert dict(zip(languages._SCRIPTS, in_range.tolist())) == {"zh": 2, "ja": 0, "ko": 0, "cyr": 10, "el": 0,
                                                                 "ar": 0}
    # only the first max_words runs are words; letters still counts them all
    _, letters2, words2, counts2, _ = kernel.letter_runs(text, RANGES, 2)
    assert letters2 == letters and words2 == ["the"] and counts2.tolist() == [2]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_letter_runs_reject_bad_input(kernel: ModuleType) -> None:
    with pytest.raises(TypeError):
        kernel.letter_runs(b"bytes", RANGES, 10)
    with pytest.raises(ValueError):
        kernel.letter_runs("a", np.zeros((2, 3), dtype=np.int64), 10)
    with pytest.raises(ValueError):
        kernel.letter_runs("a", RANGES, -1)


@settings(max_examples=300, deadline=None)
@given(texts)
def test_detect_decides_as_the_plain_vote(text: str) -> None:
    assert languages.detect(text) == _reference_detect(text)


@pytest.mark.parametrize("repeat", [1, 3, 40])
def test_detect_on_mixed_stopwords_near_the_margin(repeat: int) -> None:
    """English vs German stopwords at ratios around the 1.3 margin, and case-folded forms ("THE", "Straße")."""
    for en, de in [(3, 0), (13, 10), (14, 10), (10, 13), (10, 14), (2, 0)]:
        text = " ".join(["THE cat"] * en * repeat + ["Der Hund"] * de * repeat)
        assert languages.detect(text) == _reference_detect(text)
    assert languages.detect("the and of " * 2000) == "en"  # beyond SAMPLE_WORDS words the vote stops counting
