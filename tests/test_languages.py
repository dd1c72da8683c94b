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


def _runner_up(hits: list[tuple[int, str]]) -> int:
    """The runner-up's count of (count, code) pairs sorted best first: Danish and Norwegian Bokmål do not count
    against each other unless they tie (``languages._SIBLINGS``)."""
    (best, code), rest = hits[0], hits[1:]
    siblings = {"da": "nb", "nb": "da"}
    return max((n for n, c in rest if n == best or siblings.get(code) != c), default=0)


def _reference_detect(sample: str) -> str | None:
    """The vote as first written (regex passes, a Counter of case-folded words, one set intersection per
    candidate): the oracle for the compiled path."""
    sample = sample[: languages.SAMPLE_CHARS]
    spans = dict(zip(languages._SCRIPTS, RANGES.tolist()))
    counts = {name: len(re.findall(f"[{chr(lo)}-{chr(hi)}]", sample)) for name, (lo, hi) in spans.items()}
    found = re.findall(r"[^\W\d_]+", sample)
    letters = max(1, sum(map(len, found)))
    for name, share in (("ja", 0.05), ("zh", 0.2), ("ko", 0.2), ("el", 0.3)):
        if counts[name] > share * letters:
            return name
    if counts["ar"] > 0.3 * letters:
        arabic, shared, urdu, other = (len(re.findall(f"[{letters_}]", sample)) for letters_ in (
            "\u064a\u0643\u0629", "\u067e\u0686\u0698\u06af\u06a9\u06cc", "\u0679\u0688\u0691\u06ba\u06c1\u06d2",
            ("\u06d5\u06c6\u06ce\u06b5\u0695\u06a4\u067c\u0689\u0693\u0696\u069a\u06ab\u0681\u0685\u06d0\u06cd"
             "\u06c7\u06c8\u06cb")))
        if shared + urdu + other <= arabic:
            return "ar"
        if other * 10 >= shared + urdu + other:
            return None
        return "ur" if urdu * 10 >= shared + urdu else "fa"
    words = Counter(w.casefold() for w in found[: languages.SAMPLE_WORDS])
    if not words:
        return None
    candidates = (languages._CYRILLIC_CANDIDATES if counts["cyr"] > 0.5 * letters else languages._LATIN_CANDIDATES
                  if counts["cyr"] <= 0.3 * letters else languages._LATIN_CANDIDATES + languages._CYRILLIC_CANDIDATES)
    hits = sorted(((sum(words[w] for w in words.keys() & languages.stopwords(c)), c) for c in candidates),
                  reverse=True)
    best, code = hits[0]
    runner_up = _runner_up(hits)
    if best < 3 or best < 1.3 * runner_up:
        return None
    if code in languages._CYRILLIC_CANDIDATES:  # letters none of them writes (Serbian, Macedonian, Belarusian)
        other = len(re.findall("[\u0458\u0459\u045a\u045f\u045b\u0452\u0453\u045c\u0455\u045e"
                               "\u0408\u0409\u040a\u040f\u040b\u0402\u0403\u040c\u0405\u040e]", sample))
        if other >= 3 and other * 20 >= len(re.findall("[оаОА]", sample)):
            return None
    return code


# Keys of 1-12 letters a-z are packed, the others (longer, capitals, apostrophes, other scripts) are not.
_LONG = ["abcdefghijkl", "abcdefghijklm", "internationalisation", "don't", "Abc", "xyzzy"]
words = st.lists(st.one_of(st.sampled_from(_STOP + _LONG), st.text(min_size=1, max_size=4)), max_size=12,
                 unique=True)
texts_long = st.lists(st.one_of(pieces, st.sampled_from(_LONG + [w.upper() for w in _LONG])), max_size=40).map(
    " ".join)
_ARRAYS = ("chars", "starts", "values", "slots", "packed")


@pytest.mark.skipif(_compiled is None, reason="the compiled core is not built")
@settings(max_examples=200, deadline=None)
@given(words)
def test_compiled_and_python_string_tables_agree(keys: list[str]) -> None:
    assert _compiled is not None
    values = list(range(len(keys)))
    a, b = _compiled.string_table(keys, values), _core_py.string_table(keys, values)
    for name in _ARRAYS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        assert getattr(a, name).dtype == getattr(b, name).dtype
    assert a.limit == b.limit == (max(values) + 1 if values else 0)


@pytest.mark.skipif(_compiled is None, reason="the compiled core is not built")
@settings(max_examples=400, deadline=None)
@given(texts_long, st.integers(0, 50),
       st.lists(st.tuples(st.integers(-5, 0x110005), st.integers(-5, 0x110005)), max_size=4), words,
       st.integers(1, 4))
def test_compiled_and_python_letter_runs_agree(text: str, max_words: int, spans: list[tuple[int, int]],
                                               keys: list[str], n_votes: int) -> None:
    assert _compiled is not None
    ranges = np.asarray(spans, dtype=np.int64).reshape(-1, 2)
    values = [i % n_votes for i in range(len(keys))]
    a = _compiled.letter_runs(text, ranges, max_words, _compiled.string_table(keys, values), n_votes)
    b = _core_py.letter_runs(text, ranges, max_words, _core_py.string_table(keys, values), n_votes)
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1:3] == b[1:3] and a[4] == b[4]
    np.testing.assert_array_equal(a[3], b[3])
    np.testing.assert_array_equal(a[5], b[5])
    assert a[0].dtype == a[3].dtype == a[5].dtype == np.int64


_RUN_KEYS = ["the", "and", "of", "to", "de", "tax", "pump", "xyz", "abcdefghijkl", "internationalisation",
             "quartz", "wove"]
# Long ASCII letter runs: runs of every length (the packed keys hold 12 letters), broken by digits, '_',
# apostrophes, Latin-1 and other letters, with the storage width forced to one, two or four bytes by the character
# appended. (A sixteen-at-a-step scan of the runs was tried and measured slower: the key is still built a letter at
# a time, so the loop's exit mispredicts as before; benchmarks/NOTES.md.)
letter_runs_text = st.lists(st.one_of(
    st.text(alphabet="abcdefxyzABCXYZ", min_size=0, max_size=40),
    st.sampled_from([" ", "1", "_", "'", "é", "ÿ", "\u0100", "\u4e2d", "\u0301", "  "]),
    st.sampled_from(_RUN_KEYS).map(lambda w: f" {w} "),
), max_size=12).map("".join)


@pytest.mark.skipif(_compiled is None, reason="the compiled core is not built")
@settings(max_examples=400, deadline=None)
@given(letter_runs_text, st.sampled_from(["", " é", " \u2014", " \U0001f600"]), st.integers(0, 50))
def test_long_ascii_letter_runs_agree_at_every_storage_width(text: str, tail: str, max_words: int) -> None:
    """Every run's letters, count and table vote (the table holds words the text is made of, so a wrongly packed
    key changes the votes)."""
    assert _compiled is not None
    keys = _RUN_KEYS
    values = list(range(len(keys)))
    n_votes = len(keys)
    a = _compiled.letter_runs(text + tail, RANGES, max_words, _compiled.string_table(keys, values), n_votes)
    b = _core_py.letter_runs(text + tail, RANGES, max_words, _core_py.string_table(keys, values), n_votes)
    for x, y in zip(a, b):
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y)
        else:
            assert x == y


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_letter_runs_follow_the_regex_definition(kernel: ModuleType) -> None:
    text = "The THE the x2y snake_case Straße STRASSE 東京 кошка Кошка 12"
    table = kernel.string_table(["the", "strasse", "case", "straße"], [1, 2, 2, 0])
    in_range, letters, runs, votes, found, counts = kernel.letter_runs(text, RANGES, 100, table, 3)
    assert letters == sum(map(len, re.findall(r"[^\W\d_]+", text))) and runs == 12
    # ASCII runs are lower-cased and looked up; the others come back as written, for Python's casefold
    assert votes.tolist() == [0, 3, 2] and found == ["Straße", "東京", "кошка", "Кошка"]
    assert counts.tolist() == [1, 1, 1, 1]
    assert dict(zip(languages._SCRIPTS, in_range.tolist())) == {"zh": 2, "ja": 0, "ko": 0, "cyr": 10, "el": 0,
                                                                 "ar": 0}
    # only the first max_words runs are read; letters still counts them all
    _, letters2, runs2, votes2, found2, _ = kernel.letter_runs(text, RANGES, 2, table, 3)
    assert letters2 == letters and runs2 == 2 and votes2.tolist() == [0, 2, 0] and found2 == []


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_letter_runs_and_string_table_reject_bad_input(kernel: ModuleType) -> None:
    table = kernel.string_table(["a"], [0])
    with pytest.raises(TypeError):
        kernel.letter_runs(b"bytes", RANGES, 10, table, 1)
    with pytest.raises(ValueError):
        kernel.letter_runs("a", np.zeros((2, 3), dtype=np.int64), 10, table, 1)
    with pytest.raises(ValueError):
        kernel.letter_runs("a", RANGES, -1, table, 1)
    with pytest.raises(ValueError):  # a value outside [0, n_votes)
        kernel.letter_runs("a", RANGES, 10, kernel.string_table(["a"], [1]), 1)
    with pytest.raises(TypeError):  # only a StringTable: its arrays were checked once, when it was built
        kernel.letter_runs("a", RANGES, 10, (table.chars, table.starts, table.values, table.slots), 1)
    with pytest.raises(ValueError):
        kernel.sample_runs(["a", "b"], [True], 0, 10, RANGES, 10, table, 1)
    parts = {name: getattr(table, name).copy() for name in _ARRAYS}
    with pytest.raises(ValueError):  # a full table would make a lookup probe forever
        kernel.StringTable(**{**parts, "slots": np.zeros(1, dtype=np.int32)})
    with pytest.raises(ValueError):
        kernel.StringTable(**{**parts, "packed": np.ones((8, 2), dtype=np.int64)})
    with pytest.raises(ValueError):
        kernel.StringTable(**{**parts, "starts": parts["starts"][:1]})
    with pytest.raises(ValueError):  # the arrays are the table's: they cannot change under a scan
        table.packed[0, 0] = 5
    with pytest.raises(ValueError):
        kernel.string_table(["a", "a"], [0, 1])
    with pytest.raises(ValueError):
        kernel.string_table(["a"], [0, 1])
    with pytest.raises(TypeError):
        kernel.string_table([b"a"], [0])


samples = st.lists(st.tuples(st.one_of(texts_long, st.just("")), st.booleans()), max_size=8)


@pytest.mark.skipif(_compiled is None, reason="the compiled core is not built")
@settings(max_examples=300, deadline=None)
@given(samples, st.integers(0, 60), st.integers(0, 200), st.integers(0, 30), words)
def test_sample_runs_read_the_joined_sample_in_place(parts: list[tuple[str, bool]], min_chars: int,
                                                     max_chars: int, max_words: int, keys: list[str]) -> None:
    """The compiled scan of the texts agrees with the twin, which joins the sample and scans the string."""
    assert _compiled is not None
    items, use = [t for t, _ in parts], [f for _, f in parts]
    values = [i % 3 for i in range(len(keys))]
    a = _compiled.sample_runs(items, use, min_chars, max_chars, RANGES, max_words,
                              _compiled.string_table(keys, values), 3)
    b = _core_py.sample_runs(items, use, min_chars, max_chars, RANGES, max_words,
                             _core_py.string_table(keys, values), 3)
    assert a[0].tolist() == b[0].tolist() and a[1:3] == b[1:3] and a[3].tolist() == b[3].tolist()
    assert a[4] == b[4] and a[5].tolist() == b[5].tolist()


def test_sample_is_the_joined_prose_up_to_the_size_limit() -> None:
    """The twin's definition, spelled out: used texts up to the one passing min_chars, spaces, a cut."""
    table = _core_py.string_table(["the", "ab"], [1, 2])
    items = ["the", "skip the", "a", "b", "the the"]
    got = _core_py.sample_runs(items, [True, False, True, True, True], 4, 7, RANGES, 99, table, 3)
    want = _core_py.letter_runs("the a b", RANGES, 99, table, 3)
    assert got[0].tolist() == want[0].tolist() and got[1:3] == want[1:3] == (5, 3)
    assert got[3].tolist() == want[3].tolist() == [0, 1, 0]


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


@pytest.mark.skipif(_compiled is None, reason="the compiled core is not built")
@settings(max_examples=300, deadline=None)
@given(samples, st.integers(0, 60), st.integers(0, 200), st.integers(0, 30), words, st.integers(1, 4))
def test_sample_votes_tally_the_sample_runs_votes(parts: list[tuple[str, bool]], min_chars: int, max_chars: int,
                                                  max_words: int, keys: list[str], n_candidates: int) -> None:
    """``sample_votes`` is ``sample_runs`` with ``votes @ matrix`` (compiled and twin; ``use`` as flags or bytes)."""
    assert _compiled is not None
    items, use = [t for t, _ in parts], [f for _, f in parts]
    values = [i % 3 for i in range(len(keys))]
    matrix = np.arange(3 * n_candidates, dtype=np.int64).reshape(3, n_candidates) % 2
    runs = _core_py.sample_runs(items, use, min_chars, max_chars, RANGES, max_words,
                                _core_py.string_table(keys, values), 3)
    want = (runs[0].tolist(), runs[1], runs[2], (runs[3] @ matrix).tolist(), runs[4], runs[5].tolist())
    for kernel, flags in [(_compiled, use), (_compiled, bytes(use)), (_core_py, use)]:
        got = kernel.sample_votes(items, flags, min_chars, max_chars, RANGES, max_words,
                                  kernel.string_table(keys, values), matrix)
        assert got == want


def test_sample_votes_reject_bad_input() -> None:
    for kernel in KERNELS:
        table = kernel.string_table(["ab"], [2])
        with pytest.raises(ValueError):
            kernel.sample_votes(["a", "b"], b"\x01", 0, 10, RANGES, 10, table, np.ones((3, 2), dtype=np.int64))
        with pytest.raises(ValueError):  # the table's value 2 needs three rows
            kernel.sample_votes(["a"], [True], 0, 10, RANGES, 10, table, np.ones((2, 2), dtype=np.int64))


def _joined(parts: list[tuple[str, bool]], min_chars: int) -> str:
    """The sample ``detect_texts`` reads: the used texts up to and including the one passing ``min_chars``."""
    chosen: list[str] = []
    size = 0
    for text, use in parts:
        if use:
            chosen.append(text)
            size += len(text)
            if size > min_chars:
                break
    return " ".join(chosen)


def _reference_settled(sample: str) -> bool:
    """``_settled`` as first stated: no code point of another script, and among the Latin candidates a best
    stopword count of at least EARLY_MIN_VOTES that is EARLY_LEAD x the runner-up's."""
    sample = sample[: languages.SAMPLE_CHARS]
    if any(lo <= ord(c) <= hi for c in sample for lo, hi in RANGES.tolist()):
        return False
    found = [w.casefold() for w in re.findall(r"[^\W\d_]+", sample)[: languages.SAMPLE_WORDS]]
    if not found:
        return False
    hits = sorted(((sum(w in languages.stopwords(c) for w in found), c) for c in languages._LATIN_CANDIDATES),
                  reverse=True)
    return hits[0][0] >= languages.EARLY_MIN_VOTES and hits[0][0] >= languages.EARLY_LEAD * _runner_up(hits)


@settings(max_examples=300, deadline=None)
@given(samples, st.integers(0, 400), st.integers(1, 60), st.integers(1, 6))
def test_detect_texts_reads_the_early_sample_first(parts: list[tuple[str, bool]], min_chars: int, early: int,
                                                   min_votes: int) -> None:
    """An early sample that settles the vote decides; otherwise the whole sample does, as the plain vote."""
    items, use = [t for t, _ in parts], [f for _, f in parts]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(languages, "EARLY_SAMPLE", early)
        mp.setattr(languages, "EARLY_MIN_VOTES", min_votes)
        first = _joined(parts, early)
        if min_chars > early and _reference_settled(first):
            want = _reference_detect(first)
        else:
            want = _reference_detect(_joined(parts, min_chars))
        assert languages.detect_texts(items, use, min_chars) == want


def test_an_early_lead_is_kept_and_another_script_reads_on() -> None:
    """English opening paragraphs settle the page even where the whole sample is a near-tie (the English page
    with a long table of Italian names); an opening with Cyrillic in it does not settle anything."""
    opening = ["They said that the players of the club were the best they had seen, and their fans agreed."] * 30
    names = ["di Rossi e la Bianchi il del della che"] * 120
    texts = opening + names
    use = [True] * len(texts)
    assert languages._decide(languages._tally(texts, use, 8000)) != "en"
    assert languages.detect_texts(texts, use, 8000) == "en"
    mixed = ["Это страница: the team of the year and the players"] + opening + names
    assert not languages._settled(languages._tally(mixed, [True] * len(mixed), languages.EARLY_SAMPLE))
    assert languages.detect_texts(mixed, [True] * len(mixed), 8000) == languages._decide(
        languages._tally(mixed, [True] * len(mixed), 8000))


@pytest.mark.parametrize("code", sorted(languages.STEMMERS))
def test_stemmers_have_no_cache_of_their_own_and_stem_as_the_cached_ones(code: str) -> None:
    """The analyser memoises every word it stems, so PyStemmer's own cache only slowed new words down (see
    ``languages.stemmer``); without it each language must stem exactly as PyStemmer's default stemmer does."""
    import Stemmer

    made = languages.stemmer(code)
    assert made is not None and made.maxCacheSize == 0
    words = ["running", "houses", "Häuser", "élèves", "canciones", "кошками", "nationalities", "ab", "x", "3d",
             "running"]  # a repeat: a cache would answer it from memory
    assert made.stemWords(words) == Stemmer.Stemmer(languages.STEMMERS[code]).stemWords(words)


_STOP_LINE = re.compile(r"^([^\t\n]+)\ts$", re.MULTILINE)  # what a stopword line is (scripts/build_lexicon.py)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="ab\t\r é", max_size=4), st.sampled_from(["s", "12", "", "s\r", "ss"])),
                max_size=12),
       st.booleans())
def test_stop_lines_read_what_the_line_pattern_finds(lines: list[tuple[str, str]], final_newline: bool) -> None:
    text = "\n".join(f"{word}\t{value}" for word, value in lines) + ("\n" if final_newline and lines else "")
    assert languages.stop_lines(text.encode("utf-8")) == frozenset(_STOP_LINE.findall(text))


def test_every_shipped_lexicon_gives_the_stopwords_its_lines_hold() -> None:
    import gzip
    from importlib import resources

    for code in sorted(languages.LEXICONS):
        text = gzip.decompress(resources.files("qatbe.data").joinpath(f"lexicon-{code}.tsv.gz").read_bytes())
        want = frozenset(_STOP_LINE.findall(text.decode("utf-8")))
        assert languages.stopwords(code) == want == languages.lexicon(code).stopwords


def test_danish_and_norwegian_are_told_apart() -> None:
    """Their stopword lists are nearly one list: each is judged against the other languages, and between the two
    the higher count wins (``languages._SIBLINGS``). Before Norwegian Bokmål had stopwords, its pages were Danish."""
    da = "Jeg har ikke set ham i dag, men han sagde at han ville komme hjem efter arbejde. Det er ikke noget problem."
    nb = "Jeg har ikke sett ham i dag, men han sa at han ville komme hjem etter jobben. Det er ikke noe problem for oss."
    sv = "Jag har inte sett honom i dag, men han sa att han skulle komma hem efter jobbet. Det är inget problem för oss."
    assert [languages.detect(text * 3) for text in (da, nb, sv)] == ["da", "nb", "sv"]
    assert languages.detect("og i det er " * 20) is None  # the same words in both: a tie decides nothing
    assert sorted(languages.stopwords("nb")) and {"og", "ikke", "hvordan"} <= languages.stopwords("nb")


def test_arabic_persian_and_urdu_are_told_apart() -> None:
    """Every page in Arabic script was Arabic, and got the Arabic stemmer; Persian and Urdu now get their own
    language (Urdu: no stemmer), by the letters each writes, and Kurdish and Pashto none (no stemmer of ours fits)."""
    fa = "این یک متن فارسی است که برای آزمایش نوشته شده است و ما می‌خواهیم ببینیم چه زبانی تشخیص داده می‌شود."
    ar = "هذا نص عربي مكتوب للاختبار ونريد أن نرى ما هي اللغة التي سيتم اكتشافها في هذه الحالة."
    ur = "یہ ایک اردو متن ہے جو جانچ کے لیے لکھا گیا ہے اور ہم دیکھنا چاہتے ہیں کہ کون سی زبان پہچانی جاتی ہے۔"
    ckb = "ئەمە دەقێکی کوردییە کە بۆ تاقیکردنەوە نووسراوە و دەمانەوێت بزانین کام زمان دەناسرێتەوە."  # Sorani
    ps = "دا یو پښتو متن دی چې د ازموینې لپاره لیکل شوی او موږ غواړو وګورو چې کومه ژبه پیژندل کیږي."  # Pashto
    assert [languages.detect(text * 3) for text in (ar, fa, ur, ckb, ps)] == ["ar", "fa", "ur", None, None]
    assert languages.detect_texts([fa, "Some English words in a caption"], [True, True], 10) == "fa"
    assert languages.stemmer("ur") is None and languages.stemmer("fa") is not None


def test_cyrillic_pages_of_other_languages_are_not_russian() -> None:
    """Bulgarian, Serbian and Macedonian pages were voted Russian and got its stemmer: Bulgarian is a candidate now
    (stopwords, no stemmer), Serbian and Macedonian get no language (letters Russian does not write)."""
    bg = "Това е български текст, написан за проверка, и ние искаме да видим кой език ще бъде разпознат от програмата."
    mk = "Ова е македонски текст, напишан за проверка, и ние сакаме да видиме кој јазик ќе биде препознаен од програмата."
    sr = "Ово је српски текст, написан за проверу, и ми желимо да видимо који језик ће бити препознат од програма."
    ru = "Это русский текст, написанный для проверки, и мы хотим увидеть, какой язык будет распознан программой."
    uk = "Це український текст, написаний для перевірки, і ми хочемо побачити, яка мова буде розпізнана програмою."
    assert [languages.detect(text * 3) for text in (ru, uk, bg, sr, mk)] == ["ru", "uk", "bg", None, None]
    assert languages.detect(ru * 3 + " Нови Сад, Југославија.") == "ru"  # a Serbian name on a Russian page
    assert languages.stemmer("bg") is None and len(languages.stopwords("bg")) > 50
    # Between 30 and 50 % Cyrillic letters every candidate is voted on: English prose with Bulgarian titles.
    mixed = "The club signed two players from the league and the coach said that they are ready. " * 4 + \
        "ЦСКА подписа с нов защитник Левски Първото ново попълнение Официално Шеридън подписа " * 3
    assert 0.3 < sum("\u0400" <= c <= "\u04ff" for c in mixed) / sum(c.isalpha() for c in mixed) < 0.5
    assert languages.detect(mixed) == "en"


def _lexicon_by_lines(text: str) -> tuple[dict[str, float], frozenset[str]]:
    """A lexicon file as it is defined: per line ``word<TAB>value``, "s" a stopword, the first value of a word."""
    zipf: dict[str, float] = {}
    stop: set[str] = set()
    for line in text.splitlines():
        word, _, value = line.partition("\t")
        if value == "s":
            stop.add(word)
        elif value:
            zipf.setdefault(word, int(value) / 10.0)
    return zipf, frozenset(stop)


_lexicon_lines = st.lists(st.tuples(st.sampled_from(["the", "und", "я", "的", "x", "5", ""]),
                                    st.sampled_from(["77", "0", "5", "05", "120", "s", ""])))


@settings(max_examples=400, deadline=None)
@given(_lexicon_lines, st.booleans(), st.booleans())
def test_lexicon_files_are_read_as_defined(lines: list[tuple[str, str]], tabless: bool, trailing: bool) -> None:
    """The split into alternating words and values reads what the line loop reads, a line without a tab (read
    line by line then) and a missing last newline included; every shipped lexicon too."""
    text = "\n".join(f"{w}\t{v}" if not (tabless and k == 0) else w for k, (w, v) in enumerate(lines))
    text += "\n" if trailing and text else ""
    got = languages.parse_lexicon(text)
    assert (got.zipf, got.stopwords) == _lexicon_by_lines(text)


@given(_lexicon_lines, st.integers(0, 5))
def test_a_line_with_two_tabs_is_refused_as_the_line_loop_refuses_it(lines: list[tuple[str, str]], at: int) -> None:
    text = "\n".join(f"{w}\t{v}" for w, v in lines[:at]) + "\nword\t5\t6\n" + "\n".join(f"{w}\t{v}" for w, v in lines[at:])
    with pytest.raises(ValueError):
        _lexicon_by_lines(text)
    with pytest.raises(ValueError):
        languages.parse_lexicon(text)


def test_shipped_lexicons_are_read_as_defined() -> None:
    import gzip
    from importlib import resources

    for code in sorted(languages.LEXICONS):
        text = gzip.decompress(resources.files("qatbe.data").joinpath(f"lexicon-{code}.tsv.gz").read_bytes())
        got = languages.lexicon(code)
        assert (got.zipf, got.stopwords) == _lexicon_by_lines(text.decode("utf-8")), code
