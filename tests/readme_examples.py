"""The examples of README.md and of the reference pages in docs/, by name, for the tests that run them.

Every fenced code block in README.md and docs/*.md is preceded by a marker line ``<!-- example: NAME -->``
(``NAME`` unique across all of them). A test runs each example as written: ``example("NAME")`` returns the
block's text, wherever it is. ``tests/test_readme.py`` checks that every block has a marker and that some test
names every marker, so neither the README nor a docs page can hold an example that nothing runs.
"""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
DOCS = README.parent / "docs"
_MARKER = re.compile(r"^<!-- example: ([\w.-]+) -->\s*$")
_FENCE = re.compile(r"^```(\w*)\s*$")


def pages() -> list[Path]:
    """The files whose blocks are examples: README.md, then docs/*.md by name."""
    return [README, *sorted(DOCS.glob("*.md"))]


def blocks(page: Path | None = None) -> list[tuple[str | None, str, str]]:
    """(marker name or None, language, text) of every fenced block in ``page`` (None: every page), in order."""
    if page is None:
        return [block for each in pages() for block in blocks(each)]
    lines = page.read_text(encoding="utf-8").splitlines()
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
    """The text of the block marked ``name`` (in README.md or a docs page)."""
    found = [text for marker, _, text in blocks() if marker == name]
    if len(found) != 1:
        raise LookupError(f"README.md and docs/*.md have {len(found)} blocks marked {name!r}")
    return found[0]
