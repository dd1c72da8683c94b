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


# Short pages in a legacy code page, undeclared or falsely declared UTF-8: the Latin code pages decode their few
# accented letters equally well, and charset-normalizer's first pick was windows-1250 ("não" -> "năo"), a DOS
# code page, or on the shortest a Chinese one ("Größe" -> "Gr\u5ef2e").
_WESTERN = [
    "A renovação do passaporte não é cara: custa 85 € e são três semanas de espera. Informações à parte.",
    "Le délai de traitement est d’environ trois semaines. Ça coûte 86 €, à régler en ligne. Où aller ?",
    "El niño pagó la tasa del pasaporte en España; la renovación cuesta 30 €. ¿Cuánto tarda? Unas semanas.",
    "Größe und Gebühren für den Reisepass: 37,50 EUR - schnell erledigt.",
]


@pytest.mark.parametrize("body", _WESTERN)
@pytest.mark.parametrize("declaration", ["", '<meta charset="utf-8">'])
@pytest.mark.parametrize("copies", [1, 3])
def test_a_short_western_page_in_windows_1252_comes_back_whole(body: str, declaration: str, copies: int) -> None:
    raw = f"<html><head>{declaration}</head><body>{('<p>' + body + '</p>') * copies}</body></html>".encode("cp1252")
    assert body in decode_bytes(raw)


@pytest.mark.parametrize(("body", "codec"), [
    ("Opłata za paszport wynosi 140 zł. Wniosek składa się osobiście w urzędzie, a czas oczekiwania to miesiąc.",
     "cp1250"),
    ("Poplatek za cestovní pas činí 600 Kč. Žádost se podává osobně na úřadě a vyřízení trvá měsíc.", "cp1250"),
    ("Пошлина за загранпаспорт составляет 6000 рублей. Заявление подаётся лично.", "cp1251"),
    ("护照续签费用为120元，办理时间约为两周。请携带身份证原件。", "gb18030"),
    ("護照續簽費用為一千三百元，辦理時間約為兩週。請攜帶身分證正本。", "big5"),
    ("パスポートの更新手数料は一万六千円です。申請は本人が窓口で行います。", "shift_jis"),
    ("パスポートの更新手数料は一万六千円です。申請は本人が窓口で行います。", "euc_jp"),
    ("여권 갱신 수수료는 오만 원입니다. 신청은 본인이 직접 해야 합니다.", "euc_kr"),
])
def test_windows_1252_wins_only_ties(body: str, codec: str) -> None:
    """Pages whose letters only their own code page explains keep it: the preference is for ties."""
    for copies in (1, 5):
        raw = f"<html><body>{('<p>' + body + '</p>') * copies}</body></html>".encode(codec)
        assert body in decode_bytes(raw), (codec, copies)


@given(st.binary(min_size=1, max_size=600))
def test_a_guess_is_an_encoding_web_pages_use(data: bytes) -> None:
    from qatbe.segmentation.decode import _NOT_WEB, _guess

    guess = _guess(data)
    assert guess is None or (codecs.lookup(guess).name not in _NOT_WEB)


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
