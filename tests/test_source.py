"""What the caller passed, to text plus a format (qatbe.source): detection reads the head only, binary is refused."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe import InputError
from qatbe.segmentation.decode import strip_controls
from qatbe.settings import Settings
from qatbe.source import detect_format, load_source, looks_binary

_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\ufffd]")


def _binary_by_count(sample: str) -> bool:
    """The rule looks_binary applies, written out: more control characters than max(8, a tenth of the sample)."""
    return bool(sample) and len(_CONTROL.findall(sample)) > max(8, len(sample) // 10)


@pytest.mark.parametrize(("text", "fmt"), [
    ("<!DOCTYPE html><html><body><p>x</p></body></html>", "html"),
    ("  <?xml version='1.0'?>\n<!-- note --> <html><p>x</p></html>", "html"),
    ("<div><p>A paragraph</p><p>another</p></div>", "html"),
    ("# Title\n\nSome text with a [link](https://example.org).", "markdown"),
    ("Just a sentence or two of plain text.", "text"),
    ("<!--" + "x" * 20_000 + "--><html><body><p>x</p></body></html>", "text"),  # the start is not seen in the head
    # A long fragment that opens with a tag and ends with one, even when the head stops inside a tag.
    ("<p>Deep " + "<mrow>" * 4000 + "z" + "</mrow>" * 4000 + " end.</p>", "html"),
])
def test_detect_format(text: str, fmt: str) -> None:
    assert detect_format(text) == fmt


@pytest.mark.parametrize("tail", ["", "<html><body>", "\n# heading\n", "<p>" * 50, "</p>" * 100])
def test_detect_format_reads_only_the_first_20000_characters_and_the_end(tail: str) -> None:
    """What lies between the first 20,000 characters and the last 256 never changes the answer (the cost of
    telling a format apart does not grow with the input)."""
    for head in ("<!-- " + "y" * 19_980 + " -->", "x" * 19_999 + "<", "<!doctype html" + " " * 19_990, "<p>x"):
        text = head + "z" * 30_000 + tail
        assert detect_format(text) == detect_format(text[:20_000] + "<b>" * 500 + text[-256:])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", " ", "\n", "\t", "\x00", "\x01", "\x08", "\x0b", "\x0e", "\x1f", "\x7f",
                                         "\ufffd", "é", "—"]), max_size=200))
def test_looks_binary_is_the_counting_rule(sample: str) -> None:
    if _binary_by_count(sample):
        with pytest.raises(InputError, match="binary"):
            looks_binary(sample)
    else:
        looks_binary(sample)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", " ", "\n", "\x00", "\x01", "\x1f", "\ufffd", "“"]), max_size=300))
def test_load_source_refuses_or_drops_nul_as_the_rule_says(text: str) -> None:
    if _binary_by_count(text[:8192]):
        with pytest.raises(InputError, match="binary"):
            load_source(text, Settings())
    else:
        out, _ = load_source(text, Settings())
        assert out == strip_controls(text)


def test_nul_beyond_the_sniffed_head_is_dropped_and_control_characters_in_it_counted() -> None:
    text = "“quoted” text " * 1000 + "\x00tail"  # a 2-byte string, NUL past the first 8,192 characters
    assert load_source(text, Settings())[0] == text.replace("\x00", "")
    with pytest.raises(InputError, match="binary"):
        load_source("\x00\x01" * 100 + "“text”", Settings())
    assert load_source("\x01" * 8 + "x" * 50, Settings())[0] == "x" * 50  # eight are tolerated (and dropped)
