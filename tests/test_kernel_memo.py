"""TermMemo (the kernel's token -> terms memo and page index) agrees between the compiled core and its twin,
whatever was remembered, and rejects bad input alike."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe import _core_py
from qatbe.score.analyze import fold_table

try:
    from qatbe import _core as _compiled
except ImportError:
    _compiled = None

KERNELS: list[ModuleType] = [_core_py] + ([_compiled] if _compiled is not None else [])
Told = tuple[tuple[str, ...], tuple[str | None, ...]]

pieces = st.one_of(
    st.sampled_from(["the", "Passport", "e-mail", "getUserName", "snake_case", "don't", "3.11", "U.S.", "東京",
                     "кошка", "ab", "a", " ", "\n", "-"]),
    st.text(alphabet="abeAB_-.'1 ", max_size=8),
)
texts = st.lists(st.lists(pieces, max_size=8).map(" ".join), max_size=4)
prefixes = st.one_of(st.none(), st.lists(st.text(alphabet="abeprstugk_-.'1", min_size=1, max_size=3), max_size=4))


def fake_analyse(tokens: list[str], simple: bytes) -> list[Told]:
    """Zero to three terms a token (some "", some repeated across tokens), checks on some of them."""
    out: list[Told] = []
    for token, flag in zip(tokens, simple):
        low = token.lower()
        terms = tuple(low[k:] if k < 2 else "" for k in range(len(token) % 4))
        checks = tuple(low[:2] if not flag and low[:1].isascii() and low and k == 0 else None
                       for k in range(len(terms)))
        out.append((terms, checks))
    return out


def run(memo: object, items: list[str], pre: list[str] | None, vocab: dict[str, int], fold: object = None
        ) -> tuple[list[object], dict[str, int]]:
    page = dict(vocab)
    got = memo.index(items, pre, page, fake_analyse, fold)  # type: ignore[attr-defined]
    return list(got), page


@pytest.mark.skipif(_compiled is None, reason="the compiled core is not built")
@settings(max_examples=300, deadline=None)
@given(st.integers(1, 12), st.lists(st.tuples(texts, prefixes, st.lists(st.sampled_from(["", "ab", "the", "e"]),
                                                                        unique=True)), min_size=1, max_size=5))
def test_compiled_and_python_memos_agree(max_entries: int,
                                         calls: list[tuple[list[str], list[str] | None, list[str]]]) -> None:
    assert _compiled is not None
    a, b = _compiled.TermMemo(max_entries), _core_py.TermMemo(max_entries)
    for k, (items, pre, known) in enumerate(calls):
        vocab = {t: i for i, t in enumerate(known)}
        fold = fold_table() if k % 2 else None
        got, got_vocab = run(a, items, pre, vocab, fold)
        want, want_vocab = run(b, items, pre, vocab, fold)
        for x, y in zip(got[:3], want[:3]):
            np.testing.assert_array_equal(x, y)
            assert x.dtype == y.dtype
        assert got[3] == want[3] and got_vocab == want_vocab
        assert len(a) == len(b)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=150, deadline=None)
@given(texts, prefixes)
def test_memo_index_is_the_tokens_terms_in_order(kernel: ModuleType, items: list[str], pre: list[str] | None
                                                 ) -> None:
    """Against the definition: tokenize, then each token's terms, a checked term outside the prefixes as "" (a
    check is one or two characters: a three-character prefix admits it by its first two)."""
    ids, offsets, lengths, new = kernel.TermMemo(1000).index(items, pre, {"": 0}, fake_analyse)
    heads = None if pre is None else {p[:2] for p in pre}
    tok_ids, tok_offsets, tokens, simple = kernel.tokenize(items, pre)
    told = fake_analyse(tokens, simple)
    vocab = {"": 0}
    want: list[list[int]] = []
    for d in range(len(items)):
        row: list[int] = []
        for tok in tok_ids[tok_offsets[d]:tok_offsets[d + 1]]:
            for term, check in zip(*told[tok]):
                if heads is not None and check is not None and check not in heads:
                    term = ""
                row.append(vocab.setdefault(term, len(vocab)))
        want.append(row)
    assert [ids[offsets[d]:offsets[d + 1]].tolist() for d in range(len(items))] == want
    assert new == list(vocab)[1:]
    np.testing.assert_array_equal(lengths, np.diff(tok_offsets).astype(np.float64))


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.lists(st.tuples(texts, prefixes, st.lists(st.sampled_from(["", "ab", "the", "e"]),
                                                                        unique=True), st.booleans()),
                                    min_size=1, max_size=4))
def test_memo_sparse_index_is_the_index_without_the_empty_term(
        kernel: ModuleType, max_entries: int, calls: list[tuple[list[str], list[str] | None, list[str], bool]]
) -> None:
    """``index_sparse``: text by text, the (id, place) of each entry of ``index`` that is not "", the lengths and
    new terms the same; "" is never a new term, so without it in the vocab the new terms' ids are one lower. From
    one memo that remembers across the calls (the definition's memo starts empty)."""
    memo = kernel.TermMemo(max_entries)
    for items, pre, known, folded in calls:
        fold = fold_table() if folded else None
        vocab = {t: i for i, t in enumerate(known)}
        ids, places, offsets, lengths, new = memo.index_sparse(items, pre, dict(vocab), fake_analyse, fold)
        full_vocab = {**vocab, "": vocab.get("", len(vocab))}
        flat, offs, want_lengths, want_new = kernel.TermMemo(1000).index(items, pre, full_vocab, fake_analyse, fold)
        blank = full_vocab[""]
        shift = 0 if "" in vocab else 1  # the ids after the "" numbered last
        want = [[(x - shift if x > blank else x, p) for p, x in enumerate(flat.tolist()) if offs[d] <= p < offs[d + 1]
                 and x != blank] for d in range(len(items))]
        assert [list(zip(ids[offsets[d]:offsets[d + 1]].tolist(), places[offsets[d]:offsets[d + 1]].tolist()))
                for d in range(len(items))] == want
        np.testing.assert_array_equal(lengths, want_lengths)
        assert new == want_new and "" not in new
        assert (ids.dtype, places.dtype, offsets.dtype, lengths.dtype) == (np.int32, np.int64, np.int64, np.float64)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=150, deadline=None)
@given(st.integers(1, 12), st.lists(texts, min_size=1, max_size=4))
def test_memo_terms_name_each_texts_terms_whatever_was_remembered(kernel: ModuleType, max_entries: int,
                                                                  calls: list[list[str]]) -> None:
    """``terms`` gives, through its names, what an unfiltered ``index`` gives: each text's terms in order."""
    memo = kernel.TermMemo(max_entries)
    for items in calls:
        ids, offsets, names = memo.terms(items, fake_analyse)
        got = [[names[i] for i in ids[offsets[d]:offsets[d + 1]].tolist()] for d in range(len(items))]
        flat, offs, _, terms = kernel.TermMemo(1000).index(items, None, {}, fake_analyse)  # ids 0, 1, ... = terms
        want = [[terms[i] for i in flat[offs[d]:offs[d + 1]].tolist()] for d in range(len(items))]
        assert got == want and ids.dtype == np.int32 and offsets.dtype == np.int64


words = st.lists(st.sampled_from(["ab", "the", "e", "passport", "ail", "name", "ssport", "京", "ошка", "zz"]),
                 unique=True, max_size=5)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.lists(st.tuples(texts, prefixes, words, st.booleans()), min_size=1, max_size=4))
def test_memo_holds_the_words_an_index_finds_whatever_was_remembered(
        kernel: ModuleType, max_entries: int, calls: list[tuple[list[str], list[str] | None, list[str], bool]]
) -> None:
    """``holds``: per text, the words (as indices, increasing, once each) that ``index`` with those words
    numbered first finds there, the prefix filter, the checks and the folding table included, from one memo
    that remembers across the calls (the definition's memo starts empty)."""
    memo = kernel.TermMemo(max_entries)
    for items, pre, want_words, folded in calls:
        fold = fold_table() if folded else None
        ids, offsets = memo.holds(items, pre, want_words, fake_analyse, fold)
        flat, offs, _, _ = kernel.TermMemo(1000).index(items, pre, {w: k for k, w in enumerate(want_words)},
                                                       fake_analyse, fold)
        want = [sorted({x for x in flat[offs[d]:offs[d + 1]].tolist() if x < len(want_words)})
                for d in range(len(items))]
        assert [ids[offsets[d]:offsets[d + 1]].tolist() for d in range(len(items))] == want
        assert ids.dtype == np.int32 and offsets.dtype == np.int64 and len(offsets) == len(items) + 1


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_memo_holds_on_a_page_too_large_to_make_room_for_every_word_in_every_text(kernel: ModuleType) -> None:
    """1,000 texts and 1,100 words: past the size where ``holds`` makes room for every word in every text, it
    counts the occurrences first; the sets are those of ``index`` all the same."""
    want_words = [f"t{k:04d}" for k in range(1100)]  # five characters: fake_analyse's one term is the token
    items = [f"t{k:04d} t{(7 * k) % 1100:04d} x t{k:04d}" for k in range(1000)]
    ids, offsets = kernel.TermMemo(5000).holds(items, None, want_words, fake_analyse)
    want = [sorted({k, (7 * k) % 1100}) for k in range(1000)]
    assert [ids[offsets[d]:offsets[d + 1]].tolist() for d in range(len(items))] == want


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("bad", [[""], ["ab", "ab"], [3]], ids=["empty term", "repeated", "not a str"])
def test_memo_holds_refuses_words_it_cannot_number(kernel: ModuleType, bad: list[object]) -> None:
    with pytest.raises(ValueError):
        kernel.TermMemo(10).holds(["ab cd"], None, bad, fake_analyse)


def _bad(told: object) -> Callable[[list[str], bytes], object]:
    return lambda tokens, simple: [told] * len(tokens)


BAD: list[tuple[str, Callable[[object], object], type[Exception]]] = [
    ("vocab ids not 0..n-1", lambda m: m.index(["a"], None, {"a": 5}, _bad((("a",), (None,)))), ValueError),
    ("vocab ids repeated", lambda m: m.index(["a"], None, {"a": 0, "b": 0}, _bad((("a",), (None,)))), ValueError),
    ("vocab id not an int", lambda m: m.index(["a"], None, {"a": 0.0}, _bad((("a",), (None,)))), ValueError),
    ("text not a str", lambda m: m.index([b"a"], None, {}, _bad((("a",), (None,)))), TypeError),
    ("bad prefix", lambda m: m.index(["a"], ["abcd"], {}, _bad((("a",), (None,)))), ValueError),
    ("non-ASCII three", lambda m: m.index(["a"], ["abé"], {}, _bad((("a",), (None,)))), ValueError),
    ("one answer short", lambda m: m.index(["a b"], None, {}, lambda t, s: [(("a",), (None,))]), ValueError),
    ("checks length", lambda m: m.index(["a"], None, {}, _bad((("a", "b"), (None,)))), ValueError),
    ("term not a str", lambda m: m.index(["a"], None, {}, _bad(((1,), (None,)))), TypeError),
    ("check too long", lambda m: m.index(["a"], None, {}, _bad((("a",), ("abc",)))), ValueError),
    ("max_entries", lambda m: type(m)(0), ValueError),
]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("case", BAD, ids=lambda c: c[0])
def test_memo_rejects_bad_input(kernel: ModuleType, case: tuple[str, Callable[[object], object], type[Exception]]
                                ) -> None:
    memo = kernel.TermMemo(8)
    with pytest.raises(case[2]):
        case[1](memo)
    # The memo stays usable (and remembers nothing wrong) after the error.
    ids, _, _, new = memo.index(["x y"], None, {}, _bad((("x",), (None,))))
    assert ids.tolist() == [0, 0] and new == ["x"]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_memo_is_not_reentrant(kernel: ModuleType) -> None:
    memo = kernel.TermMemo(8)

    def analyse(tokens: list[str], simple: bytes) -> Sequence[Told]:
        memo.index(["b"], None, {}, analyse)
        return [(("a",), (None,))] * len(tokens)

    with pytest.raises(RuntimeError):
        memo.index(["a"], None, {}, analyse)
    assert memo.index(["a"], None, {}, _bad((("a",), (None,))))[3] == ["a"]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@settings(max_examples=150, deadline=None)
@given(st.integers(1, 12), texts, st.lists(st.tuples(prefixes, st.booleans()), min_size=1, max_size=4), st.data())
def test_a_scan_reads_as_its_texts_however_often_it_is_read(kernel: ModuleType, max_entries: int, items: list[str],
                                                            reads: list[tuple[list[str] | None, bool]],
                                                            data: st.DataObject) -> None:
    """A page's ``scan`` stands for its texts in every read, in any order: ``index`` with any prefixes, and
    ``terms`` of all texts or of any of them (``which``), give what the same reads of the texts give."""
    scan = kernel.scan(items)
    assert len(scan) == len(items) and scan.texts == items
    with_scan, with_texts = kernel.TermMemo(max_entries), kernel.TermMemo(max_entries)
    for pre, as_index in reads:
        if as_index:
            got = with_scan.index(scan, pre, {"": 0}, fake_analyse)
            want = with_texts.index(items, pre, {"": 0}, fake_analyse)
            for x, y in zip(got[:3], want[:3]):
                np.testing.assert_array_equal(x, y)
            assert got[3] == want[3]
        else:
            which = data.draw(st.lists(st.integers(0, len(items) - 1), max_size=5)) if items else []
            ids, offsets, names = with_scan.terms(scan, fake_analyse, which)
            w_ids, w_offsets, w_names = with_texts.terms([items[t] for t in which], fake_analyse)
            assert [names[i] for i in ids.tolist()] == [w_names[i] for i in w_ids.tolist()]
            np.testing.assert_array_equal(offsets, w_offsets)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_a_scan_takes_only_strings_and_indices_in_range(kernel: ModuleType) -> None:
    with pytest.raises(TypeError):
        kernel.scan(["a", b"b"])
    scan = kernel.scan(["a b", "c"])
    memo = kernel.TermMemo(8)
    with pytest.raises(IndexError):
        memo.terms(scan, fake_analyse, [2])
    with pytest.raises(IndexError):
        memo.terms(scan, fake_analyse, [-1])
    assert memo.terms(scan, fake_analyse, [1])[1].tolist() == [0, len(fake_analyse(["c"], b"\x01")[0][0])]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_term_ids_of_names_the_terms_by_the_numbering_terms_uses(kernel: ModuleType) -> None:
    memo = kernel.TermMemo(100)
    ids, _, names = memo.terms(["alpha beta", "beta"], fake_analyse)
    wanted = [names[i] for i in ids.tolist()] + ["never met"]
    assert [names[i] if i >= 0 else None for i in memo.term_ids_of(wanted)] == wanted[:-1] + [None]
