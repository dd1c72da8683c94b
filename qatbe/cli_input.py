"""What the command line reads: a file, standard input, a .gz file (bounded), or the bundled demo page."""

from __future__ import annotations

import gzip
import io
import sys
import zlib
from importlib import resources
from pathlib import Path
from typing import BinaryIO

from .errors import InputError

STDIN = "-"


def read_source(path: str, limit: int) -> bytes:
    """The bytes of ``path`` ('-': standard input), a .gz file decompressed. At most ``limit`` bytes are read (or
    decompressed: a few kilobytes of gzip can expand to gigabytes); more is refused, as the API refuses it.

    Why bounded reads: ``yes | qatbe extract -`` or ``qatbe extract /dev/zero`` would otherwise read until memory
    ran out. Why any readable path, not only regular files: ``qatbe extract <(curl -s URL)`` hands over a pipe
    (``/dev/fd/63``), and a named pipe or a device is as good a source as a file. An empty input is an
    ``InputError``: on the command line it is nearly always a mistake (a failed download, a wrong redirect)."""
    if path == STDIN:
        return _bounded(sys.stdin.buffer, limit, "standard input holds")
    file = Path(path)
    if file.is_dir():
        raise InputError(f"{path} is a directory, not a file")
    if not file.exists():
        raise InputError(f"no such file: {path}")
    try:
        with file.open("rb") as stream:
            if file.suffix != ".gz":
                return _bounded(stream, limit, f"{path} holds")
            try:
                with gzip.GzipFile(fileobj=stream) as unzipped:
                    return _bounded(unzipped, limit, f"{path} decompresses to")
            except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError; a cut file ends in EOFError
                raise InputError(f"{path} is not a readable gzip file ({exc})") from None
    except OSError as exc:  # opening or reading: permissions, a device that refuses
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


def _bounded(stream: BinaryIO | io.BufferedIOBase, limit: int, refusal: str) -> bytes:
    """At most ``limit`` bytes of ``stream``; more is refused with ``refusal`` ("standard input holds") more than
    ``limit`` bytes."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"{refusal} more than {limit:,} bytes; the limit is max_input_chars x 4")
    if not data:
        raise InputError(f"{refusal} nothing (an empty input)")
    return data


def demo_page() -> bytes:
    """The bundled sample page (written for this project, free to redistribute)."""
    return resources.files("qatbe.data").joinpath("demo.html").read_bytes()
