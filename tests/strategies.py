"""Hypothesis strategies shared by the property tests: random markdown documents built from a small vocabulary.

A small vocabulary (with a stopword, an accented letter, CJK, a version number and code identifiers) makes queries
match often, so the selector's interesting paths (ties, partial matches, headings, split units) are exercised.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

WORDS = ["passport", "fee", "renew", "photo", "crowns", "post", "online", "apply", "travel", "weeks", "form",
         "the", "a", "of", "is", "and", "ü", "数据", "3.11", "x_y", "camelCase"]


def markdown_documents(words: Sequence[str] = WORDS, max_blocks: int = 25, max_heading_level: int = 4,
                       max_sentences: int = 8, max_rows: int = 12) -> st.SearchStrategy[str]:
    """Documents of headings, paragraphs, bullet lists, pipe tables and fenced code, joined by blank lines."""
    word = st.sampled_from(list(words))
    sentence = st.lists(word, min_size=1, max_size=14).map(lambda ws: " ".join(ws).capitalize() + ".")
    paragraph = st.lists(sentence, min_size=1, max_size=max_sentences).map(" ".join)
    heading = st.tuples(st.integers(1, max_heading_level), st.lists(word, min_size=1, max_size=4)).map(
        lambda t: "#" * t[0] + " " + " ".join(t[1]))
    bullets = st.lists(st.lists(word, min_size=1, max_size=6).map(" ".join), min_size=1, max_size=10).map(
        lambda items: "\n".join("- " + i for i in items))
    table = st.lists(st.lists(word, min_size=2, max_size=2), min_size=1, max_size=max_rows).map(
        lambda rows: "| A | B |\n|---|---|\n" + "\n".join(f"| {a} | {b} |" for a, b in rows))
    code = st.lists(st.lists(word, min_size=0, max_size=5).map(" ".join), min_size=1, max_size=14).map(
        lambda lines: "```py\n" + "\n".join(lines) + "\n```")
    blocks = st.one_of(heading, paragraph, bullets, table, code)
    return st.lists(blocks, min_size=0, max_size=max_blocks).map("\n\n".join)


def queries(words: Sequence[str] = WORDS, max_words: int = 5) -> st.SearchStrategy[str | None]:
    """No query, an empty query, or a few words of the vocabulary."""
    return st.one_of(st.none(), st.lists(st.sampled_from(list(words)), min_size=0, max_size=max_words).map(" ".join))


def html_markup(tags: Sequence[str], attrs: Sequence[str], words: Sequence[str], max_parts: int,
                tail: str | None = None) -> st.SearchStrategy[str]:
    """Tag soup: opening tags (with one of ``attrs``), closing tags and runs of ``words`` in any order, unbalanced on
    purpose (the parser must repair it); ``tail``, when given, is appended on some draws."""

    @st.composite
    def draw_markup(draw: st.DrawFn) -> str:
        parts: list[str] = []
        for _ in range(draw(st.integers(0, max_parts))):
            choice = draw(st.integers(0, 3))
            if choice == 0:
                parts.append(f"<{draw(st.sampled_from(list(tags)))}{draw(st.sampled_from(list(attrs)))}>")
            elif choice == 1:
                parts.append(f"</{draw(st.sampled_from(list(tags)))}>")
            else:
                parts.append(" ".join(draw(st.lists(st.sampled_from(list(words)), max_size=6))))
        if tail is not None and draw(st.booleans()):
            parts.append(tail)
        return "".join(parts)

    return draw_markup()
