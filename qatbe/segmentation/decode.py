"""Bytes to text for web pages: BOM, then the charset it was served with (when known, e.g. from a WARC record),
then the page's own charset declaration, then detection.

Why this order: a BOM is unambiguous; a ``<meta charset>`` or HTTP-equiv declaration is what a browser would
obey; detection (charset-normalizer) is a guess for pages that declare nothing. Two deliberate departures from a
strict reading of the declaration, both to keep the output free of mojibake:

* Legacy Latin labels (``iso-8859-1``, ``latin1``, ``ascii``) decode as windows-1252, as the WHATWG Encoding
  standard and every browser do, so "smart quotes" in the 0x80-0x9F range survive.
* A page that declares a legacy single-byte charset but is valid UTF-8 with multi-byte sequences is decoded as
  UTF-8: mislabelled servers are common, and valid multi-byte UTF-8 almost never occurs by chance in legacy text.

Detection is charset-normalizer's, narrowed to what a browser could decode a page in, with windows-1252 (the web's
default legacy encoding) winning its ties (``_guess`` says why).

Nothing here raises on bad bytes: the last resort is ``errors="replace"``. ``strip_controls`` takes control
characters out of decoded text (``qatbe.source`` says which and why).
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


# What charset-normalizer may propose but no web page is served in (the WHATWG Encoding Standard has none of them):
# the code pages of DOS consoles, EBCDIC mainframes and classic Mac OS other than Roman and Cyrillic, and a few
# rarities. Their variants of the web's encodings (euc_jis_2004, shift_jisx0213, cp950, ...) stay candidates.
_NOT_WEB = frozenset(codecs.lookup(name).name for name in (
    "cp437", "cp720", "cp737", "cp775", "cp850", "cp852", "cp855", "cp856", "cp857", "cp858", "cp860", "cp861",
    "cp862", "cp863", "cp864", "cp865", "cp869", "cp1125", "cp037", "cp273", "cp424", "cp500", "cp875", "cp1026",
    "cp1140", "cp1006", "hp_roman8", "mac_greek", "mac_iceland", "mac_latin2", "mac_turkish", "ptcp154", "kz1048",
    "koi8_t", "utf_7", "hz", "johab",
))
_MULTIBYTE = frozenset(codecs.lookup(name).name for name in (
    "gb18030", "gbk", "gb2312", "big5", "big5hkscs", "cp950", "euc_jp", "euc_jis_2004", "euc_jisx0213", "shift_jis",
    "shift_jis_2004", "shift_jisx0213", "cp932", "euc_kr", "cp949",
))
_HIGH_RUN = re.compile(rb"[\x80-\xff]+")

# Control characters to drop, and the separators Python's str.splitlines breaks lines at, to become a newline.
_DROP = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]+")
_LINE = re.compile("[\x0b\x0c\x1c-\x1e\x85]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# UTF-8 read as Latin-1 ("doubly encoded" pages): a lead byte's letter followed by continuation bytes, at least one
# of them a C1 control ("\u00e2\u0080\u0099" for a right quote). Written out by hand rather than with ftfy: this
# one repair, of sequences that contain control characters and so would otherwise be dropped, is all qatbe needs.
_MOJIBAKE = re.compile("[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
_C1 = re.compile("[\x80-\x9f]")


def _utf8_again(match: re.Match[str]) -> str:
    """A doubly encoded character, decoded once more, when the sequence holds a C1 control and is valid UTF-8."""
    found = match.group(0)
    if _C1.search(found) is None:
        return found
    try:
        return found.encode("latin-1").decode("utf-8")
    except UnicodeDecodeError:
        return found


def strip_controls(text: str) -> str:
    """``text`` without C0/C1 control characters other than tab, LF and CR; the line separators among them
    (U+000B, U+000C, U+001C-U+001E, U+0085) become a newline and U+001F a space, so words stay apart. A
    doubly encoded UTF-8 sequence that holds a C1 control is decoded once more ("\u00e2\u0080\u0099" -> a right
    quote) rather than losing its controls. A lone
    surrogate (only a ``str`` built in Python can hold one; it cannot be written out as UTF-8) becomes U+FFFD."""
    if _C1.search(text):
        text = _MOJIBAKE.sub(_utf8_again, text)
    text = _DROP.sub("", text)
    text = _SURROGATE.sub("\ufffd", text)
    text = _LINE.sub("\n", text)
    return text.replace("\x1f", " ")


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


def decode_bytes(data: bytes, charset: str | None = None) -> str:
    """Decode a web page's bytes to text without ever raising on bad bytes.

    ``charset`` is the label the page was served with (HTTP ``Content-Type``, as a WARC record keeps it): as in a
    browser, it beats the page's own declaration and yields to a BOM; an unknown label is ignored."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(codec, errors="replace")
    declared = (_codec(charset) if charset else None) or _declared(data)
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
    guess = _guess(data)
    if guess is not None:
        return data.decode(guess, errors="replace")
    return data.decode(declared or "cp1252", errors="replace")


def _guess(data: bytes) -> str | None:
    """charset-normalizer's guess among the encodings a browser can decode a page in, windows-1252 on a tie.

    Why not its ``best()``: on pages with a few accented letters in mostly ASCII markup, the Latin code pages
    decode every letter the page holds to equally plausible text, and the tie went to windows-1250 by name
    ("señor" -> "seńor", "¿" -> "ż"), or to a DOS code page no browser offers (cp850: "£" -> "ú"). Re-encoded
    to windows-1252 without their declaration, 12 of 20 whole Western pages of the dev corpora came back with such
    letters (1 with these rules; 45 of 82 such pages whole, cut or falsely declared UTF-8 -> 8:
    benchmarks/decode_roundtrip.py). windows-1252 is the web's default legacy encoding (WHATWG), so it wins the
    ties; a page whose letters only windows-1250 explains (Polish "ł", Czech "ř") still scores higher there and
    keeps it."""
    head = data[:200_000]
    candidates = []  # (codec, match), each label resolved once
    for m in from_bytes(head):
        if m.encoding:
            codec = _codec(m.encoding)
            if codec not in _NOT_WEB:
                candidates.append((codec, m))
    if not candidates:
        return None
    codec, first = candidates[0]
    if any(name == "cp1252" and (m.chaos, m.coherence) == (first.chaos, first.coherence) for name, m in candidates):
        return "cp1252"
    if codec in _MULTIBYTE and _mostly_isolated(head):
        # A two-byte code page writes nearly every character as two bytes of 0x80 and up in a row; bytes that
        # stand alone between ASCII ("f\xfcr", "Geb\xfchren") are a single-byte page's accented letters, which
        # on a short page charset-normalizer read as Chinese ("Gr\u5ef2e").
        return "cp1252"
    return codec


def _mostly_isolated(data: bytes) -> bool:
    """Are at least half of the bytes >= 0x80 without such a byte on either side?"""
    high = paired = 0
    for run in _HIGH_RUN.findall(data):
        high += len(run)
        if len(run) > 1:
            paired += len(run)
    return high > 0 and 2 * (high - paired) >= high
