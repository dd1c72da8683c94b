"""The compiled core's scratch allocator (qatbe/_alloc.h): freed blocks kept per thread, within their bound,
freed when the thread ends, and never a different result -- from threads at once, or for buffers past the
sizes it keeps and grown across them."""

from __future__ import annotations

import time
from importlib import resources

import numpy as np
import pytest
from threads import in_threads

import qatbe
from qatbe import _core_py

try:
    from qatbe import _core as _compiled
except ImportError:
    _compiled = None

# The allocator is the compiled kernel's: extract must run on it (not QATBE_BACKEND=python) for its counts to move.
pytestmark = pytest.mark.skipif(_compiled is None or qatbe.BACKEND != "cython",
                                reason="the compiled core is not built, or not the kernel in use")

# _alloc.h: at most four blocks a size class, the classes the powers of two from 64 bytes to 128 KB.
KEPT_AT_MOST = 4 * sum(1 << c for c in range(6, 18))


def _page() -> str:
    return resources.files("qatbe.data").joinpath("demo.html").read_text(encoding="utf-8")


QUESTIONS = ["how much does a passport cost", "how long does it take", "what documents do I need",
             "can I apply online", "who can sign the form"]


def _answers() -> list[str]:
    page = _page()
    return [qatbe.extract(page, q, tier="summary").text for q in QUESTIONS]


def test_the_core_keeps_freed_blocks_for_reuse_within_its_bound() -> None:
    assert _compiled is not None
    _answers()
    kept = _compiled.kept_bytes()
    assert 0 < kept <= KEPT_AT_MOST
    for _ in range(3):  # the same calls again take the kept blocks and give them back: no growth
        _answers()
        assert _compiled.kept_bytes() <= KEPT_AT_MOST


def test_a_thread_s_kept_blocks_are_freed_when_it_ends() -> None:
    assert _compiled is not None
    seen: list[int] = []

    def work() -> None:
        _answers()
        seen.append(_compiled.kept_bytes())

    in_threads(work, 4)
    assert len(seen) == 4 and all(0 < k <= KEPT_AT_MOST for k in seen)
    # Only live threads keep blocks: the four have ended, and no other thread of this test runs the core.
    # Thread.join returns when Python is done with a thread; the key's destructor runs after, as the OS thread
    # exits, so the check waits for that (bounded) instead of racing it.
    deadline = time.monotonic() + 30.0
    while _compiled.kept_bytes(all_threads=True) != _compiled.kept_bytes() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _compiled.kept_bytes(all_threads=True) == _compiled.kept_bytes()


def test_threads_scoring_at_once_give_what_one_thread_gives() -> None:
    want = _answers()
    got: list[list[str]] = []
    in_threads(lambda: got.append(_answers()), 4, together=True)
    assert got == [want] * 4


@pytest.mark.parametrize("words", [3, 3_000, 9_000, 120_000])
def test_token_lists_past_the_kept_sizes_and_grown_across_them_read_the_same(words: int) -> None:
    """A text of one-letter words holds a token every two characters, twice the scan's first guess, so its token
    list grows (doubling) -- within a kept size, from one into an exact-size block, and between exact-size
    blocks -- and the result is the twin's."""
    assert _compiled is not None
    text = " ".join("abcdefghij"[k % 10] for k in range(words))
    texts = [text, "e-mail x", text[: len(text) // 3]]
    for got, want in zip(_compiled.tokenize(texts), _core_py.tokenize(texts)):
        if isinstance(got, np.ndarray):
            np.testing.assert_array_equal(got, want)
        else:
            assert got == want
