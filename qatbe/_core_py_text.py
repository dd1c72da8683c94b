"""Small text and byte helpers: decimals, capitalised words, untidy text, control characters, UTF-8, last
visible characters (twin of ``_core_text.pxi``).

Part of the pure-Python twin of ``qatbe._core`` (``qatbe._core_py`` gathers the parts).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ._core_py_bm25 import _texts

_DECIMAL = re.compile(r"\d")


_NAME_WORD = re.compile(r"\b[^\W\d_][\w'’&.-]*")


def capitalised_words(text: str) -> str:
    """The words of ``text`` that start with an upper-case letter, joined by single spaces."""
    if not isinstance(text, str):
        raise TypeError(f"capitalised_words expects a str, got {type(text).__name__}")
    return " ".join(w for w in _NAME_WORD.findall(text) if w[0].isupper())


def untidy(text: str) -> bool:
    """Whether ``text`` holds two spaces side by side or starts or ends with a space."""
    if not isinstance(text, str):
        raise TypeError(f"untidy expects a str, got {type(text).__name__}")
    return "  " in text or text[:1] == " " or text[-1:] == " "


def holds_either(text: str, first: bytes, second: bytes) -> bool:
    """Whether ``text`` holds the ASCII needle ``first`` or ``second`` (non-empty, of one length)."""
    if not isinstance(text, str):
        raise TypeError(f"holds_either expects a str, got {type(text).__name__}")
    if len(first) != len(second) or not first:
        raise ValueError("the two needles must be non-empty and of one length")
    if not (first.isascii() and second.isascii()):
        raise ValueError("the needles must be ASCII")
    return first.decode() in text or second.decode() in text


def has_decimal(texts: Sequence[str]) -> npt.NDArray[np.uint8]:
    """Per text, 1 if it holds a decimal digit (``re``'s ``\\d``), else 0."""
    items = _texts(texts)
    return np.asarray([_DECIMAL.search(t) is not None for t in items], dtype=np.uint8)


def kept_bytes(all_threads: bool = False) -> int:
    """0: the twin allocates through Python and keeps no scratch blocks (see ``qatbe._core.kept_bytes``)."""
    return 0


def byte_count(data: bytes, value: int) -> int:
    """``data.count(bytes([value]))``."""
    return bytes(data).count(bytes([value]))


def contains_ci(data: bytes, needle: bytes) -> bool:
    """Whether ``data`` holds ``needle`` with its ASCII letters in either case; see ``qatbe._core.contains_ci``."""
    if not needle.isascii():
        raise ValueError("needle must be ASCII")
    return needle.lower() in bytes(data).lower()


def utf8_encode(text: str) -> bytes:
    """``text.encode("utf-8", "ignore")``: lone surrogates dropped, as selectolax encodes a str."""
    if not isinstance(text, str):
        raise TypeError(f"utf8_encode expects str, got {type(text).__name__}")
    return text.encode("utf-8", "ignore")


_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\ufffd]")


def control_count(text: str, limit: int) -> int:
    """Control characters and U+FFFD among the first ``limit`` characters."""
    if not isinstance(text, str):
        raise TypeError(f"control_count expects str, got {type(text).__name__}")
    return len(_CONTROL.findall(text, 0, max(limit, 0)))


# What ``source`` strips or refuses: C0 controls but tab, LF and CR, U+007F-U+009F, lone surrogates.
_STRIPPED = re.compile("[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f\\ud800-\\udfff]")


def find_pair(text: str, pair: str, start: int = 0) -> int:
    """``text.find(pair, start)`` for a two-character ``pair``; see ``qatbe._core.find_pair``."""
    if not isinstance(text, str) or not isinstance(pair, str):
        raise TypeError("find_pair expects str")
    if len(pair) != 2:
        raise ValueError(f"find_pair needs two characters, got {len(pair)}")
    return text.find(pair, max(start, 0))


def any_control(text: str) -> bool:
    """Whether ``text`` holds a character ``source.strip_controls`` removes or replaces, or a lone surrogate."""
    if not isinstance(text, str):
        raise TypeError(f"any_control expects str, got {type(text).__name__}")
    return _STRIPPED.search(text) is not None
