"""markdown-it-pyrs, when installed, gives the segments markdown-it-py gives: on every dev markdown document, on
hand-written cases of every block kind, and on generated documents; ``QATBE_MARKDOWN_PARSER`` picks the parser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qatbe
from qatbe._backend import MARKDOWN_PARSER_ENV, markdown_parser_choice
from qatbe.errors import ConfigError
from qatbe.segmentation import markdown
from qatbe.settings import Settings

pytest.importorskip("markdown_it_pyrs")


def _both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    monkeypatch.setenv(MARKDOWN_PARSER_ENV, "markdown-it-py")
    pure = qatbe.segment(text, format="markdown")
    monkeypatch.setenv(MARKDOWN_PARSER_ENV, "markdown-it-pyrs")
    fast = qatbe.segment(text, format="markdown")
    return pure, fast


def test_every_dev_markdown_document_segments_the_same(corpora: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    count = 0
    for name in ("squad11-dev", "conditionalqa-dev", "hotpotqa-distractor"):
        for line in (corpora / name / "documents.jsonl").read_text("utf-8").splitlines():
            text = json.loads(line).get("markdown")
            if not text:
                continue
            assert markdown._pyrs_document(text, Settings()) is not None  # the fast parser read it, not the fallback
            pure, fast = _both(text, monkeypatch)
            assert fast == pure, name
            count += 1
    assert count > 300


CASES = {
    "headings": "# One *x*\n\nSetext\n===\n\n## \n\n### Three ###\n\nText\n---\n",
    "lists": "- a\n- b\n  - c\n    1. d\n\n- loose\n\n  para\n\n3. three\n4. four\n\n1) x\n-\n",
    "quotes": "> quote *a*\n> more\n>\n> - item\n>   lazy\n\n> > inner\nlazy\n",
    "code": "```py extra\ncode é\n```\n\n    indented\n\n~~~\nfence\n~~~\n\n```\nunclosed",
    "tables": "| a | b \\| c |\n|---|:-:|\n| 1 | 2 |\n| 3 |\n\n| x |\n|---|\n",
    "html": "<div>\nhi <b>there</b>\n</div>\n\n<!-- note -->\n\ntext [l](u) ![i](s) [r][d]\n\n[d]: http://x\n",
    "crlf": "# T\r\n\r\npara one\r\nline two\r\n\r\n- a\r\n- b\r\n",
    "front matter": "---\ntitle: A page\n---\n# Body\n\ntext\n",
    "breaks": "a  \nb\\\nc\n\n***\n\nd &amp; e &#1; `code`\n",
    "deep lists": "".join("  " * i + "- item\n" for i in range(20)),
    "deep quotes": "> " * 15 + "deep\n",
    "lazy quote": "> quote\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> q\n2) two\n",
    "table end": "| a | b |\n|---|---|\n| 1 | 2 |\n2) two\n",
    "unicode": "# Überschrift\n\nTexte élégant — 東京タワー\n\n- ü\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hand_written_cases_segment_the_same(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pure, fast = _both(CASES[name], monkeypatch)
    assert fast == pure


BLOCKS = st.sampled_from([
    "# Head", "Para *em* [l](u)", "- item", "  - sub", "1. one", "> quote", "```\ncode\n```", "    indented",
    "| a | b |\n|---|---|\n| 1 | 2 |", "<div>x</div>", "Setext\n===", "---", "", "text\nmore", "- a\n\n  b",
    "> - q\n> - r", "[d]: http://x", "2) two", "* star", "+ plus", "\tTab", "  ", "é ü — 東", "  > nested quote",
    "- > q in list", "> # head in quote", "1. a\n   - b\n     > c", "<!-- c -->", "<pre>\n\nx\n</pre>", "***",
    "a | b", "- [ ] task", "#nohead", "   1. three spaces", "10. ten", "> ```\n> code\n> ```", "  | x |", "|x|\n|-|",
    "===",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(BLOCKS, max_size=12).map("\n".join))
def test_generated_documents_segment_the_same(text: str) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        pure, fast = _both(text, monkeypatch)
    assert fast == pure


DEEP = {
    "one line of list markers": "- " * 50 + "x",
    "one line of quote markers": "text\n" + "> " * 40 + "x",
    # Refused only once the tree is read past _PYRS_MAX_LEVEL: the walk has placed blocks by then.
    "lists nested line by line": "# Head\n\npara\n\n" + "".join("  " * i + "- x\n" for i in range(30)),
}


@pytest.mark.parametrize("name", sorted(DEEP))
def test_deep_documents_go_to_markdown_it_py(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert markdown._pyrs_document(DEEP[name], Settings()) is None
    # What markdown-it-pyrs's walk placed before it gave up is not in the result.
    pure, fast = _both(DEEP[name], monkeypatch)
    assert fast == pure


def test_a_shallow_document_is_read_by_markdown_it_pyrs() -> None:
    assert markdown._pyrs_document("# fine\n\n- a\n  - b\n", Settings()) is not None


def test_the_parser_is_chosen_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MARKDOWN_PARSER_ENV, "markdown-it-py")

    def refuse(text: str, settings: Settings) -> None:
        raise AssertionError("markdown-it-pyrs was used")

    monkeypatch.setattr(markdown, "_pyrs_document", refuse)
    assert qatbe.segment("# T\n\ntext\n", format="markdown")
    monkeypatch.setenv(MARKDOWN_PARSER_ENV, "fast")
    with pytest.raises(ConfigError, match="QATBE_MARKDOWN_PARSER"):
        qatbe.segment("# T\n", format="markdown")
    monkeypatch.delenv(MARKDOWN_PARSER_ENV)
    assert markdown_parser_choice() == "auto"
