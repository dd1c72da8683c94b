"""The whole-text checks ``load_source`` runs on every input: ``any_control``, compiled and twin, against the
regex it stands for, at every storage width and position of the vector blocks; ``find_pair`` against
``str.find``; the numeric-reference guard."""

from __future__ import annotations

import re
from types import ModuleType

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from kernel_paths import KERNELS, SCANS

# The characters source.py strips or refuses, written out as the textbook reference.
REFERENCE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
EDGES = ["\x00", "\x08", "\t", "\n", "\x0b", "\x0c", "\r", "\x0e", "\x1f", " ", "~", "\x7f", "\x80", "\x9f", "\xa0",
         "é", "ÿ", "—", "\ud7ff", "\ud800", "\udbff", "\udc00", "\udfff", "\ue000", "\ufffd", "\U0001f600", "a"]


@pytest.mark.parametrize("kernel", SCANS, ids=lambda k: k.__name__)
@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(EDGES), max_size=80).map("".join), st.sampled_from(["", "a", "é", "—", "\U0001f600"]))
def test_any_control_is_the_regex(kernel: ModuleType, text: str, width: str) -> None:
    # ``width`` sets the storage (one, two or four bytes a character) without adding a control character.
    text = width * 5 + text
    assert kernel.any_control(text) is (REFERENCE.search(text) is not None)


@pytest.mark.parametrize("kernel", SCANS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("filler", ["a", "é", "—", "\U0001f600"])
def test_any_control_finds_one_character_anywhere_in_a_long_text(kernel: ModuleType, filler: str) -> None:
    for bad in ("\x00", "\x01", "\x0b", "\x7f", "\x9f", "\ud800", "\udfff"):
        if bad > "\xff" and filler in "aé":
            continue  # a surrogate makes the text two bytes a character: covered by the wider fillers
        for at in (0, 7, 15, 16, 17, 31, 32, 63, 64, 95, 96, 100):
            chars = [filler] * 101
            chars[at] = bad
            assert kernel.any_control("".join(chars)), (bad, at)
        assert not kernel.any_control(filler * 101 + "\t\n\r")


@pytest.mark.parametrize("kernel", SCANS, ids=lambda k: k.__name__)
@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(["&", "#", "&#", "a", " ", "é", "—", "\U0001f600", "\x00", "\u2326", "\u0123"]),
                max_size=120).map("".join),
       st.sampled_from(["", "a", "é", "—", "\U0001f600"]), st.sampled_from(["&#", "—#", "&\u0123", "\U0001f600&"]),
       st.integers(-3, 130))
def test_find_pair_is_str_find(kernel: ModuleType, text: str, width: str, pair: str, start: int) -> None:
    """Every storage width, pairs whose characters do not fit the text's storage, starts before, inside and past
    the text; the vector blocks end at 16 and 32 characters, so texts run past several."""
    text = width + text
    assert kernel.find_pair(text, pair, start) == text.find(pair, max(start, 0))


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_find_pair_takes_two_characters(kernel: ModuleType) -> None:
    for pair in ("", "&", "&#x"):
        with pytest.raises(ValueError):
            kernel.find_pair("a&#1", pair)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(["&#", "x", "X", "0", "1", "2", "3", "5", "7", "8", "9", "b", "d", "f", "F", ";", " ",
                                 "&#x", "&#0", "&#1", "a", "&", "#"]), max_size=14).map("".join))
@example("c&&#x7#7&#5")  # a bare "&" before a removed reference, digits after it (a fuzz finding)
@example("&#x&#157;f")
def test_the_reference_guard_finds_every_reference_the_substitution_changes(text: str) -> None:
    """``load_source`` substitutes numeric references only when ``_CHAR_REF_OUT`` finds one to remove: it must
    find one wherever the substitution would change the text."""
    from qatbe import source

    if source._without_harmful_refs(text) != text:
        assert source._CHAR_REF_OUT.search(text) is not None
    assert source._harmful_ref(text) is (source._CHAR_REF_OUT.search(text) is not None)
    # and what the removal leaves holds no harmful reference, nor one made by joining the two sides
    assert not source._harmful_ref(source._without_harmful_refs(text))
