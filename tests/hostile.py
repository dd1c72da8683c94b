"""The hostile corpus, generated (never stored): each case is a function of a size, so that the tests run small
versions and ``benchmarks/hostile.py`` the full ones.

``CASES`` maps a name to ``Case(build, full, small, how)``: ``build(n)`` returns the input (bytes, or a path for
the gzip case, which goes through the command line's reader), ``full`` is the size the issue names and ``small`` the
size the tests start from (they also run ``small x step``). Sizes count what the name says: nesting levels,
sibling elements, bytes, table rows (the table is square), list levels.
"""

from __future__ import annotations

import codecs
import gzip
import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SCALE = 8  # the tests compare size n with size n x SCALE


def nesting(n: int) -> bytes:
    """``n`` nested elements around one sentence, cycling through block and inline tags."""
    tags = ("div", "section", "span", "b", "blockquote", "li", "p", "td")
    opening = "".join(f"<{tags[k % len(tags)]}>" for k in range(n))
    closing = "".join(f"</{tags[k % len(tags)]}>" for k in reversed(range(n)))
    return f"<html><body>{opening}The deep sentence about ferries.{closing}</body></html>".encode()


def siblings(n: int) -> bytes:
    """``n`` sibling elements in one parent: short paragraphs and spans."""
    parts = [f"<p>ferry {k}</p>" if k % 3 == 0 else f"<span>w{k % 100}</span>" for k in range(n)]
    return ("<html><body><div>" + "".join(parts) + "</div></body></html>").encode()


def single_line(n: int) -> bytes:
    """``n`` bytes of HTML without a line break: one paragraph of words."""
    head, tail = b"<html><body><p>", b"</p></body></html>"
    words = b"ferry harbour island ticket price "
    body = (words * (n // len(words) + 1))[: max(n - len(head) - len(tail), 0)]
    return head + body + tail


def big_attributes(n: int) -> bytes:
    """Four attributes of ``n // 4`` bytes each (class, data-, style, href), around a short text."""
    size = max(n // 4, 1)
    value = ("ab cd " * (size // 6 + 1))[:size]
    return (f'<html><body><div class="{value}" data-x="{value}" style="{value}">'
            f'<a href="http://x/{value}">link</a><p>The ferry costs twelve euros.</p></div></body></html>').encode()


def table(n: int) -> bytes:
    """An ``n`` x ``n`` table of short cells, with a header row."""
    header = "<tr>" + "".join(f"<th>c{j}</th>" for j in range(n)) + "</tr>"
    row = "".join(f"<td>{j}</td>" for j in range(n))
    rows = "".join(f"<tr><td>r{i}</td>{row[row.index('</td>') + 5:]}</tr>" for i in range(n))
    return f"<html><body><table>{header}{rows}</table></body></html>".encode()


def nul_everywhere(n: int) -> bytes:
    """Text with a NUL byte after every character (what UTF-16 read as bytes looks like), ``n`` bytes."""
    text = single_line(n // 2)
    return bytes(b for c in text for b in (c, 0))


def nul_sprinkled(n: int) -> bytes:
    """HTML with a NUL every 40 bytes: few enough to be text, so they are dropped, not refused."""
    data = bytearray(single_line(n))
    data[20::40] = b"\x00" * len(data[20::40])
    return bytes(data)


def invalid_utf8(n: int) -> bytes:
    """``n`` bytes of UTF-8-looking text broken by stray continuation bytes, overlong and cut sequences."""
    unit = "<p>Größe ".encode() + b"\xc3\x28 \xa0\xa1 \xe2\x28\xa1 \xf0\x28\x8c\xbc \xc0\xaf caf\xe9 na\xefve</p>\n"
    return b"<html><body>" + unit * (n // len(unit) + 1) + b"</body></html>"


def utf16_bom(n: int) -> bytes:
    """Valid UTF-16 with a BOM, about ``n`` bytes."""
    return codecs.BOM_UTF16_LE + single_line(n // 2).decode().encode("utf-16-le")


def utf16_bom_garbage(n: int) -> bytes:
    """A UTF-16 BOM followed by ``n`` random bytes."""
    rng = random.Random(16)
    return codecs.BOM_UTF16_LE + rng.randbytes(n)


def utf16_no_bom(n: int) -> bytes:
    """UTF-16 without a BOM (it looks like binary: NUL bytes every other byte)."""
    return single_line(n // 2).decode().encode("utf-16-le")


def utf16_odd(n: int) -> bytes:
    """UTF-16 with a BOM, cut in the middle of a character and holding lone surrogates."""
    body = single_line(n // 2).decode().encode("utf-16-le")
    lone = b"\x00\xd8A\x00"  # a high surrogate, then "A"
    return codecs.BOM_UTF16_LE + (body[: len(body) // 2] + lone + body[len(body) // 2:])[:-1]


def mixed_charsets(n: int) -> bytes:
    """Three conflicting declarations (XML, meta charset, http-equiv), a body in windows-1251 and UTF-8 parts."""
    head = (b'<?xml version="1.0" encoding="shift_jis"?><html><head><meta charset="iso-8859-2">'
            b'<meta http-equiv="Content-Type" content="text/html; charset=koi8-r"></head><body>')
    unit = "<p>Привет мир ferry</p>".encode("cp1251") + "<p>Größe café</p>".encode() + "<p>日本語</p>".encode("sjis")
    return head + unit * (max(n - len(head), 0) // len(unit) + 1) + b"</body></html>"


def gzip_bomb(n: int) -> Path:
    """A .gz file that expands to ``n`` bytes of zeros (written in 1 MB pieces: never all in memory)."""
    chunk = bytes(1 << 20)
    with (tempfile.NamedTemporaryFile(suffix=".gz", delete=False) as handle,
          gzip.GzipFile(fileobj=handle, mode="wb", compresslevel=9) as out):
        left = n
        while left > 0:
            out.write(chunk[: min(left, len(chunk))])
            left -= len(chunk)
    return Path(handle.name)


def markdown_lists(n: int) -> bytes:
    """``n`` nested list levels on one line (``- - - item``), then ``n // 10`` lines nested by indentation."""
    deep = "- " * n + "the deepest ferry item\n\n"
    lines = "".join("  " * (k % 50) + f"- item {k}\n" for k in range(max(n // 10, 1)))
    return ("# Lists\n\n" + deep + lines).encode()


def markdown_quotes(n: int) -> bytes:
    """``n`` nested block quotes on one line."""
    return ("# Quotes\n\n" + "> " * n + "the deepest quoted ferry\n").encode()


@dataclass(frozen=True)
class Case:
    build: Callable[[int], bytes | Path]
    full: int
    small: int
    # "html"/"markdown": the input format to force; None: detected.
    format: str | None = None
    # How much the tests grow the size: ``SCALE``, except where the input grows faster than the size (the table).
    step: int = SCALE


CASES: dict[str, Case] = {
    "nesting": Case(nesting, 100_000, 2_000),
    "siblings": Case(siblings, 1_000_000, 2_500),
    "single_line": Case(single_line, 49_000_000, 100_000),
    "attributes_10mb": Case(big_attributes, 40_000_000, 100_000),
    "table": Case(table, 2_000, 120, step=3),
    "nul_everywhere": Case(nul_everywhere, 20_000_000, 50_000),
    "nul_sprinkled": Case(nul_sprinkled, 20_000_000, 50_000),
    "invalid_utf8": Case(invalid_utf8, 20_000_000, 50_000),
    "utf16_bom": Case(utf16_bom, 20_000_000, 50_000),
    "utf16_bom_garbage": Case(utf16_bom_garbage, 20_000_000, 50_000),
    "utf16_no_bom": Case(utf16_no_bom, 20_000_000, 50_000),
    "utf16_odd": Case(utf16_odd, 20_000_000, 50_000),
    "mixed_charsets": Case(mixed_charsets, 20_000_000, 25_000),
    "gzip_bomb": Case(gzip_bomb, 1_000_000_000, 1_000_000),
    "markdown_lists": Case(markdown_lists, 100_000, 1_000, "markdown"),
    "markdown_quotes": Case(markdown_quotes, 100_000, 2_000, "markdown"),
}



@dataclass(frozen=True)
class Measure:
    """One run: how it ended, CPU seconds, input bytes, and the peak resident memory above what was resident
    before the run (the input included), in bytes; ``peak`` is None where Linux's ``/proc`` cannot tell it."""

    outcome: str
    seconds: float
    input_bytes: int
    peak: int | None


def _proc_kb(field: str) -> int | None:
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return None


def _reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark (VmHWM) of this process: writing 5 to clear_refs does it (Linux 4.0+)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def measure(name: str, n: int) -> Measure:
    """``run`` with its CPU time and memory. The input is built first and not counted as the run's work; the
    peak counts the input, the decoded text and everything the run holds at once."""
    import gc
    import time

    case = CASES[name]
    built = case.build(n)
    size = built.stat().st_size if isinstance(built, Path) else len(built)
    if isinstance(built, Path):
        size = min(n, _limit())  # what the reader may hold: the decompressed bytes, up to the limit
    gc.collect()
    before = _proc_kb("VmRSS") if _reset_peak() else None
    started = time.process_time()
    outcome = run(name, n, built)
    seconds = time.process_time() - started
    peak = _proc_kb("VmHWM")
    return Measure(outcome, seconds, size, None if before is None or peak is None else max(peak - before, 0))


def _limit() -> int:
    import qatbe

    return qatbe.Settings().max_input_bytes


def run(name: str, n: int, built: bytes | Path | None = None) -> str:
    """Run case ``name`` at size ``n`` (its input ``built`` already, if given) through qatbe (the gzip case through the command line's reader); return
    ``"result"`` or the name of the typed error it ended in. Anything else (a crash, an untyped exception)
    propagates."""
    import qatbe
    from qatbe.cli_input import read_source

    case = CASES[name]
    if built is None:
        built = case.build(n)
    try:
        if isinstance(built, Path):
            try:
                data = read_source(str(built), qatbe.Settings().max_input_bytes)
            finally:
                built.unlink()
        else:
            data = built
        qatbe.extract(data, "ferry price", budget=1000, format=case.format)
    except qatbe.QatbeError as exc:
        return type(exc).__name__
    return "result"
