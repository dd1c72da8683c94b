"""The README and docs/ stay true to the tree and short enough to read.

The README is a reference a user reads in minutes (at most about 300 lines, no paragraph over about 120 words);
the detail lives in docs/. docs/ARCHITECTURE.md's stage diagram names the module of each stage: every file it
names exists, so the one-hop answer to "where does this happen?" cannot point at a file that is gone.
"""

from __future__ import annotations

import re

from readme_examples import DOCS, README, example

_FILE = re.compile(r"\b([\w/]+\.(?:py|pyx|pxi|h))\b")


def _paragraphs(text: str) -> list[str]:
    """The prose paragraphs of a markdown text: fenced blocks, tables, headings and markers left out."""
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    out = []
    for chunk in re.split(r"\n\s*\n", text):
        lines = [line for line in chunk.splitlines()
                 if line.strip() and not line.lstrip().startswith(("|", "#", "<!--"))]
        if lines:
            out.append(" ".join(lines))
    return out


def test_the_readme_is_short_and_its_paragraphs_too() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    long = [p[:60] for p in _paragraphs(text) if len(p.split()) > 120]
    assert not long, f"README paragraphs over 120 words: {long}"


def test_the_paragraph_reader_sees_prose_only() -> None:
    sample = "# Title\n\nOne two three.\nFour.\n\n| a | b |\n|---|---|\n\n```\ncode here\n```\n\n<!-- example: x -->\n"
    assert _paragraphs(sample) == ["One two three. Four."]


def test_every_file_the_stage_diagram_names_exists() -> None:
    package = README.parent / "qatbe"
    names = {m.group(1).rsplit("/", 1)[-1] for m in _FILE.finditer(example("architecture-stages"))}
    assert {"source.py", "knapsack.py", "html_decide.py", "bm25.py"} <= names
    present = {path.name for path in package.rglob("*") if path.is_file()}
    missing = sorted(names - present)
    assert not missing, f"docs/ARCHITECTURE.md's diagram names files that do not exist: {missing}"


def test_the_reference_pages_are_linked_from_the_readme() -> None:
    text = README.read_text(encoding="utf-8")
    for page in ("API.md", "CLI.md", "INTEGRATIONS.md", "BENCHMARKS.md", "ARCHITECTURE.md", "BUILD.md", "ROUTER.md"):
        assert (DOCS / page).is_file() and f"docs/{page}" in text, page
