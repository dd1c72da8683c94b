"""The README's examples, by name, for the tests that run them.

Every fenced code block in README.md is preceded by a marker line ``<!-- example: NAME -->`` (``NAME`` unique).
A test runs each example as written: ``example("NAME")`` returns the block's text. ``tests/test_readme.py``
checks that every block has a marker and that some test names every marker, so the README cannot hold an example
that nothing runs.
"""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
_MARKER = re.compile(r"^<!-- example: ([\w.-]+) -->\s*$")
_FENCE = re.compile(r"^```(\w*)\s*$")


def blocks() -> list[tuple[str | None, str, str]]:
    """(marker name or None, language, text) of every fenced block in README.md, in order."""
    lines = README.read_text(encoding="utf-8").splitlines()
    out: list[tuple[str | None, str, str]] = []
    pending: str | None = None
    i = 0
    while i < len(lines):
        marker = _MARKER.match(lines[i])
        fence = _FENCE.match(lines[i])
        if marker:
            pending = marker.group(1)
        elif fence:
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            out.append((pending, fence.group(1), "\n".join(lines[i + 1:j]) + "\n"))
            pending = None
            i = j
        elif lines[i].strip():
            pending = None
        i += 1
    return out


def example(name: str) -> str:
    """The text of the README block marked ``name``."""
    found = [text for marker, _, text in blocks() if marker == name]
    if len(found) != 1:
        raise LookupError(f"README.md has {len(found)} blocks marked {name!r}")
    return found[0]
