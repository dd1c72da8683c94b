"""Turns what the caller passed into text plus a format name, or a typed error.

Bytes are decoded by ``qatbe.segmentation.decode`` (BOM, declared charset, detection). Binary data is refused with a
clear message rather than segmented into garbage, and so is a byte-order mark followed by bytes that do not decode
to text in its encoding (``_implausible``).

Control characters never reach segments: U+0000-U+0008, U+000E-U+001B, U+007F and the C1 controls U+0080-U+009F
are dropped, and the separators that Python's ``str.splitlines`` treats as line breaks (U+000B, U+000C,
U+001C-U+001E, U+0085) become a newline, U+001F a space, so that words on either side stay apart. C1 controls are
dropped rather than kept because no web text uses them: they appear when a page is decoded in the wrong legacy
charset. Numeric character references to the same characters (``&#1;``) are removed from HTML and markdown before
parsing, since the HTML parser would otherwise turn them back into control characters.
"""

from __future__ import annotations

import codecs
import re
import unicodedata

from ._backend import kernel
from .errors import InputError
from .segmentation.decode import strip_controls
from .segmentation.front_matter import read_front_matter
from .settings import Settings

_HTML_START = re.compile(r"\A\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b",
                         re.IGNORECASE | re.DOTALL)
_HTML_TAG = re.compile(r"</?(?:p|div|span|a|table|tr|td|li|ul|ol|h[1-6]|br|section|article|main|pre|img)\b[^>]*>",
                       re.IGNORECASE)
_MD_SIGNAL = re.compile(
    r"^(?:#{1,6}\s+\S|```|~~~|\s{0,3}[-*+]\s+\S|\s{0,3}\d+[.)]\s+\S|\|.*\|\s*$|>\s)|\[[^\]]+\]\([^)]+\)",
    re.MULTILINE,
)
_SNIFF_CHARS = 8192
_BINARY = "input looks like binary data (many control bytes near the start), not HTML, markdown or text"
_FORMAT_CHARS = 20_000
_BOM_PREFIXES = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)  # UTF-32's BOMs start with UTF-16's
_NOT_TEXT = "input starts with a byte-order mark but the bytes after it are not text in that encoding (binary data?)"

# What strip_controls changes, and lone surrogates (a str can hold them; they cannot be written out as UTF-8).
_ANY_CONTROL = re.compile("[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f\\ud800-\\udfff]")
# Numeric references of at most three digits: the control characters are all below U+00A0.
_CHAR_REF = re.compile(r"&#(?:[xX]0*([0-9a-fA-F]{1,2})(?![0-9a-fA-F])|0*([0-9]{1,3})(?![0-9]));?")
# Reference values whose character must not appear, with what replaces the reference. 0x80-0x9F refer to
# windows-1252 letters (HTML's table), except the five code points that table leaves unassigned; &#0; becomes
# U+FFFD in the parser and is left to it.
_REF_OUT: dict[int, str] = {
    **{v: "" for v in (*range(1, 9), *range(14, 28), 127, 129, 141, 143, 144, 157)},
    **{v: " " for v in (11, 12, 28, 29, 30, 31)},
}
# A reference ``_CHAR_REF`` reads as one of ``_REF_OUT``'s values: the value written without leading zeros after
# any zeros, as ``_CHAR_REF``'s greedy ``0*`` reads it. Why: pages hold many harmless references (``&#39;``,
# ``&#160;``), and a substitution with a Python call per reference over the whole page cost a sixth of the
# parse; searching for a harmful one first leaves the text untouched, as the substitution would, when there is
# none.
_CHAR_REF_OUT = re.compile(
    "&#(?:[xX]0*(?i:" + "|".join(sorted((f"{v:x}" for v in _REF_OUT), key=len, reverse=True))
    + ")(?![0-9a-fA-F])|0*(?:" + "|".join(sorted(map(str, _REF_OUT), key=len, reverse=True)) + ")(?![0-9]))")


def _decode(data: bytes) -> str:
    from .segmentation.decode import decode_bytes

    return decode_bytes(data)


def load_source(source: object, settings: Settings) -> tuple[str, str]:
    """Return ``(text, format)`` with format one of ``html``, ``markdown``, ``text``."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if len(data) > settings.max_input_bytes:
            raise InputError(f"input is {len(data):,} bytes; the limit is max_input_chars={settings.max_input_chars:,}")
        if not data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16/32 text is full of NUL bytes
            looks_binary(data[:_SNIFF_CHARS].decode("latin-1"))
        text = _decode(data)
        if data.startswith(_BOM_PREFIXES) and _implausible(text[:4096]):
            raise InputError(_NOT_TEXT)
    elif isinstance(source, str):
        text = source
    else:
        raise InputError(f"source must be str or bytes (HTML, markdown or text), not {type(source).__name__}")
    if len(text) > settings.max_input_chars:
        raise InputError(
            f"input has {len(text):,} characters; the limit is max_input_chars={settings.max_input_chars:,}"
        )
    looks_binary(text, _SNIFF_CHARS)
    if kernel.any_control(text):  # the whole text, compiled: ``_ANY_CONTROL.search`` (a NUL among them)
        text = strip_controls(text)
    fmt = settings.format if settings.format != "auto" else detect_format(text)
    if fmt != "text" and _harmful_ref(text):
        text = _without_harmful_refs(text)
    return text, fmt


def _harmful_ref(text: str) -> bool:
    """Does ``_CHAR_REF_OUT`` match at some "&#" of the text? Why a loop of ``kernel.find_pair`` (compiled
    ``str.find``): it skips to each "&#" a vector of characters at a time, where a regex search steps through
    every character of the page."""
    at = kernel.find_pair(text, "&#")
    while at >= 0:
        if _CHAR_REF_OUT.match(text, at):
            return True
        at = kernel.find_pair(text, "&#", at + 2)
    return False


# The start of a reference left open at the end of a piece of text: "&", "&#", "&#x", "&#x1".
_OPEN_REF = re.compile(r"&(?:#[xX]?[0-9a-fA-F]*)?\Z")


def _without_harmful_refs(text: str) -> str:
    """``text`` with each ``_CHAR_REF`` whose value is in ``_REF_OUT`` replaced. Where a reference is removed
    right after the start of another ("&#x&#157;f", "&&#x7;#7"), that start's "&" is written "&amp;", so that the
    two sides do not join into a new reference ("&#xf", "&#7": a control character): the parser shows the text the
    original shows."""
    out: list[str] = []
    last = 0
    for match in _CHAR_REF.finditer(text):
        hex_digits, digits = match.groups()
        value = int(hex_digits, 16) if hex_digits is not None else int(digits)
        replacement = _REF_OUT.get(value)
        if replacement is None:
            continue
        before = text[last : match.start()]
        opened = _OPEN_REF.search(before) if not replacement else None
        if opened is not None:
            before = before[: opened.start()] + "&amp;" + before[opened.start() + 1 :]
        out.append(before)
        out.append(replacement)
        last = match.end()
    out.append(text[last:])
    return "".join(out)


def _implausible(sample: str) -> bool:
    """Is text decoded after a BOM not text? Unassigned, private-use, surrogate or control code points (or U+FFFD)
    in more than one character in twenty, or a long stretch without a space, line break or CJK sentence mark:
    ASCII bytes read as UTF-16 pair up into ideographs and never into whitespace."""
    bad = 0
    for ch in sample:
        if ch == "\ufffd" or (unicodedata.category(ch) in ("Cn", "Co", "Cs", "Cc") and ch not in "\t\n\r"):
            bad += 1
    if bad * 20 > len(sample):
        return True
    return len(sample) >= 256 and not any(ch.isspace() or ch in "\u3001\u3002\uff0c\uff01\uff1f\uff1a\uff1b"
                                          for ch in sample)


def looks_binary(text: str, limit: int | None = None) -> None:
    """Refuse input whose start (its first ``limit`` characters; all of it by default) is mostly control
    characters: an image or archive passed by mistake."""
    head = len(text) if limit is None else min(len(text), limit)
    if kernel.control_count(text, head) > max(8, head // 10):
        raise InputError(_BINARY)


def detect_format(text: str) -> str:
    """HTML if it starts like a document or is tag-dense; markdown if it has block syntax; else plain text."""
    # match(text, 0, n) is match(text[:n]) without copying the head (the common case: a document start).
    if _HTML_START.match(text, 0, _FORMAT_CHARS):
        return "html"
    head = text[:_FORMAT_CHARS]
    tags = len(_HTML_TAG.findall(head))
    stripped = head.strip()
    # A fragment that opens and closes with markup (the end of the whole text: the head may stop inside a tag).
    if tags and stripped.startswith("<") and text[-256:].rstrip().endswith(">"):
        return "html"
    if tags >= 3 and tags * 40 >= len(stripped) / 10:
        return "html"
    if _MD_SIGNAL.search(head) or read_front_matter(head) is not None:
        return "markdown"
    return "text"
