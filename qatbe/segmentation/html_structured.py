"""The text a page gives only as structured data (JSON-LD), for pages whose body holds none of it.

Why: a page drawn in the browser (a React app's how-to, a news app's article) can arrive with a body of menus and
an empty mount point, and its whole text in ``<script type="application/ld+json">``: an ``articleBody``, a
HowTo's steps, a recipe's instructions, a Q&A page's question and answers. The walk sees none of it; a reader of the
rendered page sees the article, so ``extract`` should too. Only such pages are read this way (``segment_html`` asks
only when the walked page has almost no text left that is not boilerplate): where the body shows the text, its
JSON-LD copy is often a teaser or the same text again.

The texts become an HTML fragment (JSON-LD fields hold plain text or HTML, often both), walked like any page inside
an ``<article>``: one code path for paragraphs, lists and entities.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import Any

from .html_metadata import jsonld_objects, jsonld_types

# A page whose body keeps fewer characters of text than this (outside headings and boilerplate) shows no text of
# its own; its structured text is read when it holds at least this much and twice what the body kept.
EMPTY_BODY = 200
_MAX_STEPS = 500  # steps, sections and answers read from one page
_TAG = re.compile(r"<[a-zA-Z/!]")
_BLANK_LINES = re.compile(r"\n\s*\n")
_TEXT_KINDS = frozenset({"p", "list", "table", "code", "quote"})


def _fragment(text: str) -> str:
    """A JSON-LD text field as HTML: kept as it is when it holds markup, else one paragraph per blank-line block
    (single newlines are line breaks, which the walk reads as spaces)."""
    if _TAG.search(text):
        return text
    return "".join(f"<p>{html.escape(part.strip())}</p>" for part in _BLANK_LINES.split(text) if part.strip())


def _text(value: object) -> str | None:
    if isinstance(value, str) and value.strip():
        return value
    return None


class _Writer:
    """Collects the fragment's parts, bounded by ``_MAX_STEPS`` items."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.items = 0
        self.seen: set[str] = set()  # an article's body given twice (its Article and its WebPage)

    def heading(self, name: object, before: str | None) -> None:
        """A step's or section's name, unless its text starts with it already."""
        title = _text(name)
        if title is not None and not (before or "").lstrip().startswith(title.strip()):
            self.parts.append(f"<h3>{html.escape(title.strip())}</h3>")

    def body(self, value: object) -> None:
        text = _text(value)
        if text is not None and text not in self.seen:
            self.seen.add(text)
            self.parts.append(_fragment(text))

    def steps(self, value: object) -> None:
        """HowTo steps or recipe instructions: strings, HowToStep (text, or directions in ``itemListElement``),
        HowToSection (a name over its own steps), iteratively."""
        stack: list[Any] = [value]
        while stack and self.items < _MAX_STEPS:
            item = stack.pop()
            if isinstance(item, list):
                stack.extend(reversed(item))
                continue
            self.items += 1
            if isinstance(item, str):
                self.body(item)
            elif isinstance(item, dict):
                text = _text(item.get("text"))
                self.heading(item.get("name"), text)
                if text is not None:
                    self.body(text)
                inner = item.get("itemListElement") or item.get("steps")
                if inner is not None:
                    stack.append(inner if isinstance(inner, list) else [inner])

    def answers(self, question: dict[str, Any]) -> None:
        self.body(question.get("text"))
        for key in ("acceptedAnswer", "suggestedAnswer"):
            found = question.get(key)
            for answer in found if isinstance(found, list) else [found]:
                if isinstance(answer, dict) and self.items < _MAX_STEPS:
                    self.items += 1
                    self.body(answer.get("text"))


def structured_html(scripts: Iterable[str]) -> str:
    """The page's text from its JSON-LD scripts, as an HTML fragment ("" when they hold none): article bodies,
    HowTo steps, recipe instructions, a question and its answers, in the order the scripts give them."""
    out = _Writer()
    for script in scripts:
        for obj in jsonld_objects(script):
            kind = jsonld_types(obj)
            body = obj.get("articleBody")
            if _text(body) is not None:
                out.body(body)
            elif "howto" in kind or "recipe" in kind:
                out.steps(obj.get("step") or obj.get("recipeInstructions"))
            elif "question" in kind:
                out.answers(obj)
    return "".join(out.parts)


def body_text_chars(blocks: Iterable[Any], enough: int | None = None) -> int:
    """Characters of text the walked page keeps outside headings, captions and boilerplate; counting stops once
    ``enough`` are found (the question on every page is only "fewer than EMPTY_BODY?")."""
    total = 0
    for block in blocks:
        if not block.boiler and block.kind in _TEXT_KINDS:
            total += block.chars
            if enough is not None and total >= enough:
                break
    return total
