"""Byte-for-byte reproducible output for the data builders (shared by build_lexicon.py and build_synonyms.py).

The shipped tables are checked in CI by rebuilding them and comparing bytes, so the gzip member must not carry a
timestamp or a file name.
"""

from __future__ import annotations

import gzip
import io


def gzip_lines(lines: list[str]) -> bytes:
    """``lines`` joined with newlines (one trailing), UTF-8, gzipped at level 9 with mtime 0 and no file name."""
    raw = ("\n".join(lines) + "\n").encode("utf-8")
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(raw)
    return buf.getvalue()
