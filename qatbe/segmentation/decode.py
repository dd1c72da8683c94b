"""Bytes to text for web pages: BOM, then the page's own charset declaration, then detection.

Why this order: a BOM is unambiguous; a ``<meta charset>`` or HTTP-equiv declaration is what a browser would
obey; detection (charset-normalizer) is a guess for pages that declare nothing. Two deliberate departures from a
strict reading of the declaration, both to keep the output free of mojibake:

* Legacy Latin labels (``iso-8859-1``, ``latin1``, ``ascii``) decode as windows-1252, as the WHATWG Encoding
  standard and every browser do, so "smart quotes" in the 0x80-0x9F range survive.
* A page that declares a legacy single-byte charset but is valid UTF-8 with multi-byte sequences is decoded as
  UTF-8: mislabelled servers are common, and valid multi-byte UTF-8 almost never occurs by chance in legacy text.

Nothing here raises on bad bytes: the last resort is ``errors="replace"``.
"""

from __future__ import annotations

import codecs
import re

from charset_normalizer import from_bytes

# How much of the page is searched for a declaration; HTML requires it within the first 1024 bytes, real pages
# put it later (after long comments or scripts), so a few KB are searched.
_SNIFF_BYTES = 8192

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # must precede UTF-16 LE, whose BOM is its prefix
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

_META_CHARSET = re.compile(
    rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9_.:+-]+)""", re.IGNORECASE
)
_XML_DECL = re.compile(rb"""<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9_.:+-]+)""", re.IGNORECASE)

# WHATWG label aliases that Python's codec registry resolves differently (or not at all).
_WHATWG: dict[str, str] = {
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "l1": "cp1252",
    "ascii": "cp1252",
    "us-ascii": "cp1252",
    "windows-1252": "cp1252",
    "x-cp1252": "cp1252",
    "iso-8859-9": "cp1254",
    "latin5": "cp1254",
    "iso-8859-11": "cp874",
    "tis-620": "cp874",
    "x-sjis": "shift_jis",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "ks_c_5601-1987": "cp949",
    "euc-kr": "cp949",
    "unicode": "utf-16-le",
    "utf-16": "utf-16-le",
}


def _codec(label: str) -> str | None:
    """The Python codec name for a charset label, or None when the label is unknown."""
    name = label.strip().lower()
    name = _WHATWG.get(name, name)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _declared(data: bytes) -> str | None:
    head = data[:_SNIFF_BYTES]
    for pattern in (_META_CHARSET, _XML_DECL):
        match = pattern.search(head)
        if match:
            codec = _codec(match.group(1).decode("ascii", "replace"))
            if codec is not None:
                # A UTF-16/32 label found by an ASCII scan is a lie (the scan could read it): WHATWG says UTF-8.
                return "utf-8" if codec.startswith(("utf-16", "utf-32")) else codec
    return None


def _is_multibyte_utf8(data: bytes) -> bool:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not text.isascii()


def decode_bytes(data: bytes) -> str:
    """Decode a web page's bytes to text without ever raising on bad bytes."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(codec, errors="replace")
    declared = _declared(data)
    if declared is not None:
        if not declared.startswith("utf") and _is_multibyte_utf8(data):
            return data.decode("utf-8")
        try:
            return data.decode(declared)
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    best = from_bytes(data[:200_000]).best()
    if best is not None and best.encoding:
        codec = _codec(best.encoding) or best.encoding
        try:
            return data.decode(codec, errors="replace")
        except LookupError:  # pragma: no cover - charset-normalizer only names codecs Python has
            pass
    return data.decode(declared or "cp1252", errors="replace")
