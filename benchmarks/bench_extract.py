"""``qatbe.extract`` end to end per page and tier (query: the page's title, as in ``qatbe bench speed``)."""

from __future__ import annotations

import pytest
from conftest import html_inputs, markdown_inputs, mb_per_s
from selectolax.lexbor import LexborHTMLParser

import qatbe


def _title(html: str) -> str:
    node = LexborHTMLParser(html).css_first("title")
    return " ".join((node.text() if node is not None else "").split()) or "main content"


CASES = [(label, text, _title(text)) for label, text in html_inputs()]
CASES += [(label, text, text.split("\n", 1)[0].lstrip("# ")) for label, text in markdown_inputs()]


@pytest.mark.parametrize("tier", ["key_facts", "summary", "complete"])
@pytest.mark.parametrize(("label", "source", "query"), CASES, ids=[c[0] for c in CASES])
def test_extract(benchmark: object, label: str, source: str, query: str, tier: str) -> None:
    result = benchmark(qatbe.extract, source, query, tier=tier)  # type: ignore[operator]
    assert result.total_tokens <= qatbe.TIERS[tier]
    mb_per_s(benchmark, len(source.encode("utf-8")))
