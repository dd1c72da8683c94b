"""Bytes to text: BOM first, then the page's declaration, then detection; never an exception."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qatbe.segmentation.decode import decode_bytes

TEXT = "Größe — “quoted” café naïve €5"


def _page(charset: str, body: str = TEXT) -> bytes:
    head = f'<html><head><meta charset="{charset}"><title>t</title></head><body><p>{body}</p></body></html>'
    return head.encode(charset if charset.lower() != "iso-8859-1" else "cp1252")


@pytest.mark.parametrize("charset", ["utf-8", "windows-1252", "iso-8859-1", "iso-8859-15"])
def test_declared_charset_decodes_without_mojibake(charset: str) -> None:
    body = TEXT if charset not in ("iso-8859-15",) else "Größe café naïve €5"
    assert body in decode_bytes(_page(charset, body))


def test_http_equiv_declaration() -> None:
    raw = ('<meta http-equiv="Content-Type" content="text/html; charset=windows-1251"><p>Привет мир</p>'
           .encode("cp1251"))
    assert "Привет мир" in decode_bytes(raw)


def test_latin1_label_means_windows_1252() -> None:
    # 0x93/0x94 are curly quotes in windows-1252 but C1 controls in strict ISO-8859-1.
    raw = b'<meta charset="iso-8859-1"><p>\x93quoted\x94</p>'
    assert "“quoted”" in decode_bytes(raw)


@pytest.mark.parametrize("bom,codec", [(codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                                       (codecs.BOM_UTF16_BE, "utf-16-be")])
def test_bom_wins_over_declaration(bom: bytes, codec: str) -> None:
    raw = bom + '<meta charset="windows-1252"><p>Größe</p>'.encode(codec)
    text = decode_bytes(raw)
    assert "Größe" in text and not text.startswith("\ufeff")


def test_mislabelled_utf8_is_read_as_utf8() -> None:
    raw = '<meta charset="iso-8859-1"><p>Größe café</p>'.encode()
    assert "Größe café" in decode_bytes(raw)


def test_undeclared_legacy_bytes_are_detected() -> None:
    raw = ("<html><body><p>" + "Die Größe der Straße ist schön und groß. " * 20 + "</p></body></html>").encode("cp1252")
    assert "Größe der Straße" in decode_bytes(raw)


def test_unknown_label_falls_back() -> None:
    assert "plain" in decode_bytes(b'<meta charset="no-such-codec"><p>plain</p>')


@given(st.binary(max_size=2000))
def test_never_raises(data: bytes) -> None:
    assert isinstance(decode_bytes(data), str)


@pytest.mark.corpora
def test_legacy_encoded_pages_of_trafilatura_eval_are_mojibake_free(corpora: Path) -> None:
    import json
    import re

    root = corpora / "trafilatura-eval"
    data = json.loads((root / "evaldata.json").read_text(encoding="utf-8"))
    checked = 0
    for item in data.values():
        raw = (root / item["local_file"]).read_bytes()
        if not re.search(rb"charset=[\"']?\s*(?:iso-8859|windows-125|latin)", raw[:8192], re.IGNORECASE):
            continue
        text = decode_bytes(raw)
        checked += 1
        assert "Ã¤" not in text and "Ã¶" not in text and "Ã¼" not in text and "\ufffd" not in text, item["file"]
        found = [s for s in item["with"] if " ".join(s.split()) in " ".join(text.split())]
        assert found, item["file"]
    assert checked >= 3
