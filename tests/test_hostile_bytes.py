"""Hostile bytes at the door (qatbe.source): a BOM before garbage is refused, control characters never get in."""

from __future__ import annotations

import codecs
import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import qatbe
from qatbe import InputError

# Everything that must never reach r.text, a segment or the metadata: C0 controls but tab, LF and CR, DEL, C1.
FORBIDDEN = {chr(c) for c in (*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0))}


def _clean(text: str | None) -> bool:
    return text is None or not (FORBIDDEN & set(text)) and not any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def _all_clean(r: qatbe.Result) -> bool:
    meta = [r.metadata.title, r.metadata.author, r.metadata.description]
    return _clean(r.text) and all(_clean(s.text) for s in r.segments) and all(_clean(m) for m in meta)


def _garbage(n: int, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    return bytes(rng.getrandbits(8) for _ in range(n))


@pytest.mark.parametrize("bom", [codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF8])
def test_a_bom_before_random_bytes_is_refused(bom: bytes) -> None:
    with pytest.raises(InputError, match="byte-order mark|binary"):
        qatbe.extract(bom + _garbage(6000), "anything")


def test_a_utf16_bom_before_ascii_is_refused_not_read_as_ideographs() -> None:
    data = codecs.BOM_UTF16_LE + b"The quick brown fox jumps over the lazy dog, again and again. " * 10
    with pytest.raises(InputError, match="byte-order mark"):
        qatbe.extract(data, "fox")


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32"])
@pytest.mark.parametrize("text", ["<p>The museum opens at nine.</p>\n" * 20,
                                  "<p>博物馆每天九点开门，五点关门。</p>\n" * 20, "Короткий текст.\n" * 30],
                         ids=["en", "zh", "ru"])
def test_real_utf16_and_utf32_with_a_bom_still_decode(codec: str, text: str) -> None:
    data = text.encode(codec)
    if not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE)):
        data = (codecs.BOM_UTF16_BE if codec == "utf-16-be" else b"") + data
    r = qatbe.extract(data, None, budget=5000)
    words = text.replace("<p>", " ").replace("</p>", " ").split()
    assert r.text and set(r.text.split()) <= set(words)


def test_control_characters_never_reach_the_text_or_segments() -> None:
    page = ("<html><head><title>Ti\x01tle</title></head><body><p>ab\x00c d\x01e f\x7fg h\x9di j\x0bk l\x1fm"
            " n&#1;o p&#x0c;q r&#127;s t&#150;u v&#x9D;w</p></body></html>")
    for source in (page, page.encode("utf-8")):
        r = qatbe.extract(source, None)
        assert _all_clean(r), r.text
        assert "abc de fg hi j k l m no p q rs t\u2013u vw" == r.text


def test_line_separators_become_line_breaks_in_text() -> None:
    r = qatbe.extract("First page line.\x0cSecond page line.\x1eThird\x1fword.", None, format="text")
    assert r.text.split() == ["First", "page", "line.", "Second", "page", "line.", "Third", "word."]
    assert _all_clean(r)


def test_json_ld_escapes_of_control_characters_are_taken_out() -> None:
    ld = json.dumps({"@type": "Article", "headline": "Head\u0001line", "description": "a\u0002b",
                     "articleBody": "Body \u0003text with \\\\u0001 kept as written and a lone \ud800 half."},
                    ensure_ascii=True)
    page = f'<html><head><script type="application/ld+json">{ld}</script></head><body><p>x</p></body></html>'
    r = qatbe.extract(page, None, budget=5000)
    assert _all_clean(r)
    assert r.metadata.title == "Headline"


@given(st.lists(st.sampled_from(["\\", "\\u", "u", "00", "01", "1f", "7F", "8", "9a", "D8", "dc", "00", "e9", "x", '"']),
                max_size=40).map("".join))
def test_json_ld_escape_search_finds_every_escape_the_rewrite_takes_out(raw: str) -> None:
    from qatbe.segmentation.html_metadata import _JSON_ESCAPE, _JSON_ESCAPE_CANDIDATE, _json_escape

    # jsonld_objects rewrites a script only when the quick search finds a candidate: no rewrite may be skipped
    if _JSON_ESCAPE_CANDIDATE.search(raw) is None:
        assert _JSON_ESCAPE.sub(_json_escape, raw) == raw


def test_lone_surrogates_in_a_str_become_replacement_characters() -> None:
    for fmt in ("html", "markdown", "text"):
        r = qatbe.extract("Some text \ud800 with a half pair \udfff here.", None, format=fmt)
        r.text.encode("utf-8")  # writable
        assert _all_clean(r)


@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x2FF), max_size=200),
       st.sampled_from(["html", "markdown", "text"]))
def test_no_control_character_survives_any_text(text: str, fmt: str) -> None:
    try:
        r = qatbe.extract(text, None, format=fmt, budget=5000)
    except InputError:  # mostly control characters: refused as binary
        return
    assert _all_clean(r)
