"""Two text scans of the kernel against the Python they replace. ``capitalised_words``: the words of a text written
with a capital (the bridges' names), found by the compiled scan exactly as the regex ``\\b[^\\W\\d_][\\w'’&.-]*``
of the twin finds them, on text drawn to hit every rule of that regex: word boundaries after digits and
underscores, the joiners ' ’ & . -, non-ASCII letters and digits, title-case and caseless letters, and every storage
width of a str. ``untidy``: the builder's double-space test. ``holds_either``: the decision step's search for a
word in lower case or capitals."""

from __future__ import annotations

import re
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_paths import KERNELS, SCANS, _compiled

from qatbe import _core_py

# The characters the rules turn on: ASCII letters of both cases, digits, "_", the joiners, space and punctuation,
# accented and Greek capitals, a title-case letter (Dž), a caseless letter (中), Arabic-Indic and fullwidth digits
# (\d), a superscript two (alphanumeric but not \d), a combining mark, and characters outside the BMP (𝐀 is an
# upper-case letter, 😀 is not a word character).
_PIECES = ["a", "B", "z", "Q", "7", "_", "'", "’", "&", ".", "-", " ", ",", "(", "é", "É", "Ω", "ω", "ǅ", "中", "٣",
           "７", "²", "\u0301", "𝐀", "😀", "\n", "Ab", "McD", "x-Ray", "O'Neil", "3D", "_Tag", "A.B.", "É-a"]
texts = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


@settings(max_examples=1000, deadline=None)
@given(texts)
def test_compiled_scan_is_the_regex(text: str) -> None:
    want = " ".join(w for w in re.findall(r"\b[^\W\d_][\w'’&.-]*", text) if w[0].isupper())
    assert _core_py.capitalised_words(text) == want
    if _compiled is not None:
        assert _compiled.capitalised_words(text) == want


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_compiled_scan_is_the_twin_on_any_text(text: str) -> None:
    if _compiled is None:
        pytest.skip("the compiled kernel is not built")
    assert _compiled.capitalised_words(text) == _core_py.capitalised_words(text)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_names_in_a_sentence(kernel: ModuleType) -> None:
    text = "Buddy Hield was named the tournament's MVP; 3Com and _Private don't count, but O'Neil-Smith does."
    assert kernel.capitalised_words(text) == "Buddy Hield MVP O'Neil-Smith"
    assert kernel.capitalised_words("") == ""
    with pytest.raises(TypeError):
        kernel.capitalised_words(b"Bytes")  # type: ignore[arg-type]


_SPACED = ["a", " ", "  ", "é", "中", "😀", "abcdefghijklmnop", "\t", "\xa0", "x y"]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_SPACED), max_size=40).map("".join))
def test_untidy_is_the_double_space_test(text: str) -> None:
    """``untidy``: two spaces side by side anywhere (the SIMD blocks and the tail), or a space at either end, in
    every storage width, on every vector path (``find_pair``'s)."""
    want = "  " in text or text[:1] == " " or text[-1:] == " "
    for kernel in SCANS:
        assert kernel.untidy(text) is want


# Pieces of "ookie"/"OOKIE", near misses (mixed case, a Kelvin sign for K), and wider characters around them.
_COOKIE_PIECES = ["ookie", "OOKIE", "ook", "ie", "OoKiE", "oo\u212aie", "k", "K", "o", "e", " ", "é", "中", "😀",
                  "cookies", "COOKIES"]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_COOKIE_PIECES), max_size=12).map("".join),
       st.sampled_from([(b"ookie", b"OOKIE"), (b"k", b"K"), (b"ab", b"AB"), (b"ie", b"oo")]))
def test_holds_either_is_the_substring_test(text: str, needles: tuple[bytes, bytes]) -> None:
    """``holds_either``: either needle anywhere (its first and last possible places included), in every storage
    width; the memchr path of one-byte texts and the loop of wider ones answer alike."""
    first, second = needles
    want = first.decode() in text or second.decode() in text
    for kernel in KERNELS:
        assert kernel.holds_either(text, first, second) is want


@pytest.mark.parametrize("kernel", KERNELS)
def test_holds_either_refuses_needles_it_cannot_search(kernel: ModuleType) -> None:
    for first, second in ((b"", b""), (b"ab", b"abc"), (b"\xe9", b"E")):
        with pytest.raises(ValueError):
            kernel.holds_either("text", first, second)
