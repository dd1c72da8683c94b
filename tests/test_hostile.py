"""The hostile corpus (tests/hostile.py), scaled down: every case ends in a result or a typed error, its time
grows linearly and its memory stays within a multiple of its input.

Linearity is a ratio of CPU times at two sizes in this process, the input growing about 8-fold: linear work takes
about 8 times as long, quadratic 64; the bound (3 x the input's growth) leaves room for a noisy shared machine.
The full sizes run in ``benchmarks/hostile.py``.
"""

from __future__ import annotations

import pytest
from hostile import CASES, measure

import qatbe

# What each case must end in: a result, or one typed error.
EXPECTED = {
    "nul_everywhere": "InputError",
    "utf16_bom_garbage": "InputError",
    "utf16_no_bom": "InputError",
    "gzip_bomb": "InputError",
}
SLACK = 3  # how much worse than linear a ratio may look on a busy machine
# Peak resident memory above the starting point, as a multiple of the input's bytes, at the larger size. The
# floor (16 MB) covers the first use of a code path (a lexicon, a regex) that a small input cannot amortise.
MEMORY_MULTIPLE = 60
MEMORY_FLOOR = 16 << 20


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """Load what the first extract of a process loads (lexicons, stemmers), so that it is nobody's cost."""
    for name, case in CASES.items():
        measure(name, max(case.small // 8, 1))


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_ends_in_a_result_or_a_typed_error_in_linear_time(name: str) -> None:
    case = CASES[name]
    small = min((measure(name, case.small) for _ in range(2)), key=lambda m: m.seconds)
    big = measure(name, case.small * case.step)
    assert small.outcome == big.outcome == EXPECTED.get(name, "result")
    growth = big.input_bytes / small.input_bytes
    assert big.seconds <= SLACK * growth * max(small.seconds, 0.005), (
        f"{name}: {small.seconds:.4f}s -> {big.seconds:.4f}s for {growth:.1f}x the input")
    if big.peak is not None:
        assert big.peak <= max(MEMORY_MULTIPLE * big.input_bytes, MEMORY_FLOOR), (
            f"{name}: {big.peak / 1e6:.1f} MB for {big.input_bytes / 1e6:.2f} MB")


@pytest.mark.parametrize("html", ["<p>abc&#x&#157;f g</p>", "<p>a&#&#1;15;b</p>", "<p>a&#x&#157;&#157;f</p>",
                                  "<p>a&#x0&#1;0000f b</p>", "<p>&#&#x9d;x&#1;f;</p>"])
def test_removing_a_control_reference_does_not_make_another(html: str) -> None:
    """A reference to a control character is removed before parsing; what is left on its two sides must not join
    into a new one ("&#x" + "&#157;" + "f" is not "&#xf"): no control character reaches a segment."""
    for seg in qatbe.segment(html):
        assert not any(ord(c) < 32 and c not in "\t\n" or 0x7F <= ord(c) <= 0x9F for c in seg.text), seg.text
