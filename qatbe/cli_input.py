"""What the command line reads: a file, standard input, a .gz file (bounded), or the bundled demo page."""

from __future__ import annotations

import gzip
import io
import sys
import zlib
from importlib import resources
from pathlib import Path

from .errors import InputError

STDIN = "-"


def read_source(path: str, limit: int) -> bytes:
    """The bytes of ``path`` ('-': standard input), a .gz file decompressed; at most ``limit`` bytes are
    decompressed (a few kilobytes of gzip can expand to gigabytes), more is refused as the API refuses it."""
    if path == STDIN:
        return sys.stdin.buffer.read()
    file = Path(path)
    if file.is_dir():
        raise InputError(f"{path} is a directory, not a file")
    if not file.is_file():
        raise InputError(f"no such file: {path}")
    data = file.read_bytes()
    if file.suffix == ".gz":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
                data = stream.read(limit + 1)
        except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError; a cut file ends in EOFError
            raise InputError(f"{path} is not a readable gzip file ({exc})") from None
        if len(data) > limit:
            raise InputError(f"{path} decompresses to more than {limit:,} bytes; the limit is max_input_chars x 4")
    return data


def demo_page() -> bytes:
    """The bundled sample page (written for this project, free to redistribute)."""
    return resources.files("qatbe.data").joinpath("demo.html").read_bytes()
