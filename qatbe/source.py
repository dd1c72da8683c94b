"""Turns what the caller passed into text plus a format name, or a typed error.

Bytes are decoded by ``qatbe.segmentation.decode`` (BOM, declared charset, detection). Binary data is refused with a
clear message rather than segmented into garbage; NUL bytes inside text are dropped.
"""

from __future__ import annotations

import re

from ._backend import kernel
from .errors import InputError
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
    elif isinstance(source, str):
        text = source
    else:
        raise InputError(f"source must be str or bytes (HTML, markdown or text), not {type(source).__name__}")
    if len(text) > settings.max_input_chars:
        raise InputError(
            f"input has {len(text):,} characters; the limit is max_input_chars={settings.max_input_chars:,}"
        )
    # One compiled pass: is there a NUL anywhere, and how many control characters open the text.
    nul, controls = kernel.control_scan(text, _SNIFF_CHARS)
    if controls > max(8, min(len(text), _SNIFF_CHARS) // 10):
        raise InputError(_BINARY)
    if nul:
        text = text.replace("\x00", "")
    fmt = settings.format if settings.format != "auto" else detect_format(text)
    return text, fmt


def looks_binary(sample: str) -> None:
    """Refuse input whose start is mostly control characters: an image or archive passed by mistake."""
    if kernel.control_scan(sample, len(sample))[1] > max(8, len(sample) // 10):
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
