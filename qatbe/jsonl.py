"""Reading JSON-lines files: one JSON object per line, blank lines skipped, every problem a typed error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import QatbeError


def iter_jsonl(path: Path, error: type[QatbeError]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yields (line number, object) for every non-blank line of ``path``.

    A file that cannot be read, is not UTF-8, or has a line that is not a JSON object raises ``error`` with a
    one-line message naming the file and the line.
    """
    try:
        fh = path.open("r", encoding="utf-8")
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from None
    with fh:
        try:
            for number, raw in enumerate(fh, start=1):
                if not raw.strip():
                    continue
                try:
                    value = json.loads(raw)
                except json.JSONDecodeError as exc:
                    raise error(f"{path}:{number}: invalid JSON ({exc.msg}, column {exc.colno})") from None
                if not isinstance(value, dict):
                    raise error(f"{path}:{number}: expected a JSON object, got {type(value).__name__}")
                yield number, value
        except UnicodeDecodeError as exc:
            raise error(f"{path}: not UTF-8 ({exc.reason})") from None
