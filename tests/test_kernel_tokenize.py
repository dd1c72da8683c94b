"""The compiled tokenizer and its Python twin agree on any Unicode text, and follow the documented rules."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_paths import KERNELS, SCANS, _compiled

from qatbe import _core_py
from qatbe._core_py import complex_keys
from qatbe.score.analyze import _after, fold_table, split_word

# Text that exercises every branch: ASCII words and joiners, case changes, digits, underscores, CJK, combining
# marks, astral characters (4-byte strings), and anything else Unicode has.
pieces = st.one_of(
    st.sampled_from(["getUserName", "HTTPServer", "snake_case", "3.11", "v2", "1,000", "U.S.", "e-mail", "don't",
                     "l’homme", "John's", "x-_y", "東京タワー", "서울", "हिन्दी", "Ärger", "ß", "𝔘𝔫𝔦", " ", "\n", "-",
                     ".", "'", "_", "ı", "İ", "ǅ"]),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=8),
    st.text(alphabet="aAbB1_-.',’ ", max_size=8),
)
texts = st.lists(pieces, max_size=12).map("".join)


@pytest.mark.skipif(_compiled is None, reason="the compiled core is not built")
@settings(max_examples=500, deadline=None)
@given(st.lists(texts, max_size=6), st.one_of(
    st.none(),
    st.lists(st.text(min_size=1, max_size=2), max_size=4),
    st.lists(st.text(alphabet="abcdeghmnrsuxyAB_-.'1", min_size=1, max_size=2), max_size=6),
    # three-character (ASCII) prefixes too, with or without a shorter one of the same start
    st.lists(st.text(alphabet="abAB1_-", min_size=1, max_size=3), max_size=8),
))
def test_compiled_and_python_tokenizers_agree(items: list[str], prefixes: list[str] | None) -> None:
    assert _compiled is not None
    for fold in (None, fold_table()):
        a = _compiled.tokenize(items, prefixes, fold)
        b = _core_py.tokenize(items, prefixes, fold)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
        assert a[2] == b[2] and a[3] == b[3]
        assert a[0].dtype == np.int32 and a[1].dtype == np.int64


@pytest.mark.skipif(_compiled is None, reason="the compiled core is not built")
@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["Gebühren", "ÄRGER", "café", "cafe\u0301", "ΣΟΦΙΑ", "σοφία", "Ёлка",
                                          "кошка-собака", "l’été", "東京大学", "\uf900語", "ß", "İ", "getÜber",
                                          "naïve_x", "ｆｕｌｌ", "ab", "x", " "]), max_size=8).map(" ".join),
                max_size=4),
       st.lists(st.sampled_from(["ge", "ar", "ca", "σο", "ел", "ко", "со", "ет", "東京", "京大", "語", "ß", "i",
                                 "ge", "ub", "na", "x", "ab", "ｆ"]), max_size=5))
def test_the_tokenizers_agree_on_folded_prefixes(items: list[str], prefixes: list[str]) -> None:
    """With ``fold``, tokens with letters outside ASCII and CJK tokens are ruled out too, the same way in both."""
    assert _compiled is not None
    a = _compiled.tokenize(items, prefixes, fold_table())
    b = _core_py.tokenize(items, prefixes, fold_table())
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert a[2] == b[2] and a[3] == b[3]


@pytest.mark.skipif(_compiled is None, reason="the compiled core is not built")
@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["Gebühren", "ΣΟΦΙΑ", "σοφία", "東京大学", "語", "ab", "x", "qz", "Ωmega",
                                          "ñandú", "zz"]), max_size=8).map(" ".join), max_size=4),
       st.lists(st.sampled_from(["σο", "東京", "語", "Ω", "ña", "ab", "x", "zz", "qz"]), max_size=12),
       st.sampled_from(["", "q", "σ", "z"]),
       st.sampled_from([list, set, tuple, iter]))
def test_the_tokenizers_agree_on_many_and_repeated_prefixes(items: list[str], listed: list[str], letter: str,
                                                             container: Any) -> None:
    """Prefix lists with repeats (the compiled core keeps the keys outside its ASCII bitmap sorted, repeats
    included, for a search by halving) and the 129 prefixes a one-letter term admits (``_after``), in any
    container, iterators included."""
    assert _compiled is not None
    prefixes = listed + (sorted(_after(letter)) if letter else [])
    a = _compiled.tokenize(items, container(prefixes), fold_table())
    b = _core_py.tokenize(items, list(prefixes), fold_table())
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert a[2] == b[2] and a[3] == b[3]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_folded_prefixes_rule_out_non_ascii_tokens(kernel: ModuleType) -> None:
    ids, _, vocab, _ = kernel.tokenize(["Кошка и собака, ЁЛКА, café, Straße, 東京大学"], ["ко", "ел", "ca", "京大"],
                                       fold_table())
    kept = sorted(vocab[i] for i in set(ids.tolist()) if vocab[i])
    # "Straße" folds to "st...", not a prefix: ruled out; "ß" itself would be kept (it folds to two letters).
    assert kept == ["café", "Ёлка".upper(), "Кошка", "京大"]
    without = kernel.tokenize(["Кошка и собака"], ["ко"])  # no fold: every non-ASCII token is kept
    assert sorted(without[2][i] for i in set(without[0].tolist()) if without[2][i]) == ["Кошка", "и", "собака"]



@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_a_folding_table_is_checked_whatever_was_passed_before(kernel: ModuleType) -> None:
    """The compiled kernel remembers the last read-only table it checked (the analysers pass the same one on
    every call): a writable copy reads the same, and a wrong table passed after it is still refused."""
    text = ["Кошка и собака, ЁЛКА, café, Straße"]
    shared = kernel.tokenize(text, ["ко", "ca"], fold_table())
    again = kernel.tokenize(text, ["ко", "ca"], fold_table())
    copied = kernel.tokenize(text, ["ко", "ca"], fold_table().copy())
    for other in (again, copied):
        assert other[0].tolist() == shared[0].tolist() and other[2] == shared[2]
    for wrong in (fold_table().astype(np.int32), np.stack([fold_table(), fold_table()])):
        with pytest.raises(ValueError, match="fold must be a 1-D uint32 array"):
            kernel.tokenize(text, ["ко"], wrong)
    assert kernel.tokenize(text, ["ко", "ca"], fold_table())[0].tolist() == shared[0].tolist()

# Long ASCII word runs (the compiled scan reads them sixteen code points a step): every class at every place of a
# step and across steps, broken by joiners, spaces, Latin-1 letters and characters beyond; the storage width is
# forced to one, two or four bytes by the character appended.
word_runs = st.lists(st.one_of(
    st.text(alphabet="abcxyzABCXYZ0129_", min_size=0, max_size=40),
    st.sampled_from([" ", "-", ".", "'", ",", "’", "é", "ÿ", "\u0100", "\u4e2d", "\u0301", "_-", "- ", "\n"]),
), max_size=10).map("".join)


@pytest.mark.skipif(_compiled is None, reason="the compiled core is not built")
@settings(max_examples=300, deadline=None)
@given(st.data())
def test_many_three_letter_prefixes_agree(data: st.DataObject) -> None:
    """Up to 70 three-letter prefixes (past the 64 limited starts the kernel keeps, none is limited), some with a
    shorter one of the same start: words that share a prefix's first two letters, with its third letter or
    another, are ruled in or out alike by both kernels."""
    assert _compiled is not None
    letters = "abcdefghijklmnopqrstuvwxyz"
    keys = data.draw(st.lists(st.text(alphabet=letters, min_size=3, max_size=3), min_size=1, max_size=70))
    shorter = data.draw(st.lists(st.sampled_from(keys).map(lambda k: k[:2]), max_size=3))
    words = data.draw(st.lists(st.tuples(st.sampled_from(keys), st.text(alphabet=letters, max_size=3),
                                         st.booleans()), max_size=40))
    text = " ".join(k[:2] + rest if cut else k + rest for k, rest, cut in words)
    a = _compiled.tokenize([text], keys + shorter)
    b = _core_py.tokenize([text], keys + shorter)
    np.testing.assert_array_equal(a[0], b[0])
    assert a[2] == b[2]


@pytest.mark.skipif(_compiled is None, reason="the compiled core is not built")
@settings(max_examples=400, deadline=None)
@given(st.lists(word_runs, max_size=4), st.sampled_from(["", " é", " \u2014", " \U0001f600"]),
       st.one_of(st.none(), st.lists(st.text(alphabet="abxyAB_0", min_size=1, max_size=3), max_size=4)))
def test_long_ascii_runs_agree_at_every_storage_width(items: list[str], tail: str, prefixes: list[str] | None) -> None:
    assert _compiled is not None
    items = [item + tail for item in items]
    a = _compiled.tokenize(items, prefixes)
    b = _core_py.tokenize(items, prefixes)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert a[2] == b[2] and a[3] == b[3]


# The compiled scan reads a text's character classes 64 to a word and a token off their runs (``_find_masked``):
# each of these pieces, at every place from a few before a word's end to a few after, so that its start, its end,
# its joiner or the letter that makes it complex falls on either side of the boundary or on it. The dash fill makes
# most of a text's code points non-ASCII, which sends it to the character scan: both scans are held to the twin.
BOUNDARY_PIECES = ["ab", "Ab", "aB", "ABC", "abC", "a_b", "_a", "a-b", "a--b", "a-_b", "x'y", "x’y", "a.b.c", "1,000",
                   "é", "aé", "éa", "a-é", "a\u0301", "a\u00a0b", "a.", "-a", "a b", "Zz-Zz", "v2.0"]


@pytest.mark.skipif(_compiled is None, reason="the compiled core is not built")
@pytest.mark.parametrize("fill", [" ", "x", "X", "-", "\u2014"], ids=["space", "lower", "upper", "joiner", "dash"])
def test_tokens_across_a_mask_word_agree(fill: str) -> None:
    assert _compiled is not None
    texts = [fill * at + piece + fill * tail for piece in BOUNDARY_PIECES for at in range(56, 73)
             for tail in (0, 1, 70)]
    a = _compiled.tokenize(texts)
    b = _core_py.tokenize(texts)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert a[2] == b[2] and a[3] == b[3]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=200, deadline=None)
@given(st.lists(texts, max_size=6))
def test_tokenizer_output_is_well_formed(kernel: ModuleType, items: list[str]) -> None:
    ids, offsets, vocab, simple = kernel.tokenize(items)
    assert len(offsets) == len(items) + 1 and offsets[0] == 0 and offsets[-1] == len(ids)
    assert (np.diff(offsets) >= 0).all()
    assert len(vocab) == len(simple) == len(set(zip(vocab, simple)))
    if len(ids):
        assert 0 <= ids.min() and ids.max() < len(vocab)
    for tok, flag in zip(vocab, simple):
        assert tok and not any(ch.isspace() for ch in tok)
        if flag and tok.isascii():
            # a simple token's only term is itself, as analyze.split_word would make it
            assert split_word(tok) == [tok]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_tokenizer_rules(kernel: ModuleType) -> None:
    ids, offsets, vocab, _ = kernel.tokenize(["The THE the getUserName 3.11 x-_y 東京タワー 猫", ""])
    tokens = [vocab[i] for i in ids]
    assert tokens == ["the", "the", "the", "getUserName", "3.11", "x", "_y", "東京", "京タ", "タワ", "ワー", "猫"]
    assert offsets.tolist() == [0, 12, 12]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_prefix_filter_maps_other_simple_tokens_to_zero(kernel: ModuleType) -> None:
    ids, _, vocab, _ = kernel.tokenize(["Python pyramid and e-mail a"], ["py", "a\x00"])
    assert vocab[0] == "" and [vocab[i] for i in ids] == ["python", "pyramid", "", "", ""]
    ids, _, vocab, _ = kernel.tokenize(["e-mail getUserName x_yz"], ["em", "us", "yz"])
    assert [vocab[i] for i in ids] == ["e-mail", "getUserName", "x_yz"]
    ids, _, vocab, _ = kernel.tokenize(["a ab"], ["a"])
    assert [vocab[i] for i in ids] == ["a", ""]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("bad", [[1], [b"bytes"], [None]])
def test_tokenizer_rejects_non_strings(kernel: ModuleType, bad: list[object]) -> None:
    with pytest.raises(TypeError):
        kernel.tokenize(bad)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("bad", [["abcd"], ["abé"], [""], [3]])
def test_tokenizer_rejects_bad_prefixes(kernel: ModuleType, bad: list[object]) -> None:
    with pytest.raises(ValueError):
        kernel.tokenize(["a"], bad)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="abcABC12_-.',", min_size=1, max_size=16))
def test_complex_keys_cover_every_term_of_an_ascii_token(text: str) -> None:
    """The prefix filter may only drop a token none of whose terms can match: every term of >= 2 characters
    that split_word makes of an ASCII token starts with one of complex_keys(token)."""
    for item in [text]:
        ids, _, vocab, simple = _core_py.tokenize([item])
        for j in set(ids.tolist()):
            if not simple[j]:
                keys = complex_keys(vocab[j])
                for term in split_word(vocab[j]):
                    assert len(term) < 2 or term[:2] in keys, (vocab[j], term, keys)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 5), max_size=8), max_size=6),
       st.lists(st.lists(st.integers(0, 9), max_size=3), min_size=6, max_size=6))
def test_remap_expands_tokens_in_order(kernel: ModuleType, docs: list[list[int]], table: list[list[int]]) -> None:
    tok_ids = np.asarray([t for d in docs for t in d], dtype=np.int32)
    tok_offsets = np.asarray([0] + list(np.cumsum([len(d) for d in docs])), dtype=np.int64)
    starts = np.asarray([0] + list(np.cumsum([len(x) for x in table])), dtype=np.int64)
    terms = np.asarray([t for x in table for t in x], dtype=np.int32)
    ids, offsets = kernel.remap(tok_ids, tok_offsets, starts, terms)
    expected = [[t for tok in d for t in table[tok]] for d in docs]
    assert offsets.tolist() == [0] + list(np.cumsum([len(e) for e in expected]))
    assert ids.tolist() == [t for e in expected for t in e]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@pytest.mark.parametrize(
    "args",
    [
        ([0, 3], [0, 2], [0, 1, 2], [5, 6]),  # token id out of range
        ([0], [0, 2], [0, 1], [5]),  # offsets past the end
        ([0], [0, 1], [0, 2], [5]),  # starts past the end of terms
        ([0], [0, 1], [1, 1], [5]),  # starts not from 0
        ([0, 0], [0, 2, 1, 2], [0, 1], [5]),  # decreasing offsets
        ([0], [0, 1], [], []),  # no starts
    ],
)
def test_remap_rejects_bad_input(kernel: ModuleType, args: tuple[list[int], ...]) -> None:
    tok_ids, tok_offsets, starts, terms = args
    with pytest.raises(ValueError):
        kernel.remap(np.asarray(tok_ids, dtype=np.int32), np.asarray(tok_offsets, dtype=np.int64),
                     np.asarray(starts, dtype=np.int64), np.asarray(terms, dtype=np.int32))


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(texts, st.sampled_from(["", "abc", "1", "x٣y", "²", "½", "Ⅳ", "𝟘", "10 days"])),
                max_size=6))
def test_has_decimal_is_any_nd_character(kernel: ModuleType, items: list[str]) -> None:
    """The number cue's prefilter: a text holds a number (``\\d+...``) iff it holds a Unicode Nd character."""
    got = kernel.has_decimal(items)
    assert got.dtype == np.uint8
    assert got.tolist() == [int(any(c.isdecimal() for c in t)) for t in items]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_has_decimal_rejects_non_strings(kernel: ModuleType) -> None:
    with pytest.raises(TypeError):
        kernel.has_decimal(["1", b"2"])


@pytest.mark.parametrize("kernel", SCANS, ids=lambda k: k.__name__)
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", " ", "\x00", "\x01", "\x08", "\t", "\x0e", "\x1f", "\x7f", "\ufffd", "é", "—",
                                 "\U0001f600", "<"]), max_size=60).map("".join),
       st.integers(-1, 70))
def test_control_count_counts_controls_in_the_head(kernel: ModuleType, text: str, limit: int) -> None:
    # Texts of every storage width (Latin-1, two and four bytes a character) reach the compiled loops.
    controls = sum(1 for c in text[:max(limit, 0)] if c <= "\x08" or "\x0e" <= c <= "\x1f" or c == "\ufffd")
    assert kernel.control_count(text, limit) == controls


@pytest.mark.parametrize("kernel", SCANS, ids=lambda k: k.__name__)
@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=100), st.integers(0, 255))
def test_byte_count_is_bytes_count(kernel: ModuleType, data: bytes, value: int) -> None:
    assert kernel.byte_count(data, value) == data.count(bytes([value]))


@pytest.mark.parametrize("kernel", SCANS, ids=lambda k: k.__name__)
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"<", b"m", b"M", b"a", b"t", b"T", b"h", b"H", b"<math", b"<MaTh", b"\xff", b"\x00",
                                 b" " * 17]), max_size=80).map(b"".join),
       st.sampled_from([b"<math", b"<MATH", b"m", b"th", b"<ma", b"x"]))
def test_contains_ci_is_case_blind_in(kernel: ModuleType, data: bytes, needle: bytes) -> None:
    # Matches straddle the compiled scan's sixteen-byte steps and its tail; either case, for the needle's letters.
    assert kernel.contains_ci(data, needle) == (needle.lower() in data.lower())


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_contains_ci_refuses_a_needle_it_cannot_fold(kernel: ModuleType) -> None:
    with pytest.raises(ValueError):
        kernel.contains_ci(b"abc", "é".encode())
    assert kernel.contains_ci(b"", b"") and not kernel.contains_ci(b"", b"a")


@pytest.mark.parametrize("kernel", SCANS, ids=lambda k: k.__name__)
@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([b"<", b"a", b"\xff", b"\x00"]), min_size=200, max_size=2000).map(b"".join))
def test_byte_count_over_many_blocks_of_one_value(kernel: ModuleType, data: bytes) -> None:
    # The compiled count adds one-byte counters of 255-byte blocks: a block made all of the value must not wrap.
    assert kernel.byte_count(data, ord("<")) == data.count(b"<")
    assert kernel.byte_count(b"<" * len(data), ord("<")) == len(data)
    # Blocks of 255 steps are 4,080 bytes at SSE2 width and 8,160 at AVX2: several of each, ending anywhere.
    long = b"<" * (20_000 + len(data)) + data
    assert kernel.byte_count(long, ord("<")) == long.count(b"<")


@pytest.mark.parametrize("kernel", SCANS, ids=lambda k: k.__name__)
@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(["<", "a", " ", "\x00", "\x7f", "\x80", "é", "\u07ff", "\u0800", "—",
                                           "\ud800", "\udbff", "\udc00", "\udfff", "\ue000", "\uffff",
                                           "\U0001f600", "abcdefgh" * 3]),
                          st.text(max_size=20)), max_size=80).map("".join))
def test_utf8_encode_is_str_encode_ignoring_surrogates(kernel: ModuleType, text: str) -> None:
    # Every storage width, ASCII runs longer and shorter than the compiled loop's eight-character step, the
    # boundaries of the one-, two- and three-byte forms, and lone surrogates (dropped, as selectolax drops them).
    assert kernel.utf8_encode(text) == text.encode("utf-8", "ignore")


@pytest.mark.parametrize("kernel", SCANS, ids=lambda k: k.__name__)
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "<p>", "x" * 15, "y" * 16, "z" * 31, "w" * 33, "\x80", "\xa0", "é", "ÿ",
                                 "\x00", "\x7f"]), max_size=60).map("".join))
def test_utf8_encode_of_a_one_byte_str_with_latin1_characters(kernel: ModuleType, text: str) -> None:
    # Stored one byte a character but not ASCII: runs of ASCII of every length around the 16- and 32-byte steps,
    # broken by characters that take two bytes.
    assert kernel.utf8_encode(text) == text.encode("utf-8")


@pytest.mark.parametrize("kernel", SCANS, ids=lambda k: k.__name__)
def test_utf8_encode_of_a_page_sized_text(kernel: ModuleType) -> None:
    text = ("<p class='x'>Ein Beispiel — mit Umlauten: äöü \ud83d</p>\n" * 4000) + "€"
    assert kernel.utf8_encode(text) == text.encode("utf-8", "ignore")
    wide = text + "\U0001f600"  # four bytes a character
    assert kernel.utf8_encode(wide) == wide.encode("utf-8", "ignore")
    latin = ("<p class='x'>Ein Beispiel mit Umlauten: äöü\xa0</p>\n" * 4000) + "é"  # one byte a character
    assert kernel.utf8_encode(latin) == latin.encode("utf-8")
    with pytest.raises(TypeError):
        kernel.utf8_encode(b"bytes")  # type: ignore[arg-type]
