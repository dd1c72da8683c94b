"""extract_many goes on past a document it cannot read: one ItemError per bad document, unless strict=True."""

from __future__ import annotations

import pytest

import qatbe
from qatbe import ConfigError, Document, InputError, ItemError

BINARY = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8


def _page(k: int) -> str:
    return f"<html><body><p>Item {k}: the lighthouse number {k} stands on rock {k * 7} near harbour {k}.</p></body></html>"


def test_one_bad_document_among_a_hundred() -> None:
    docs: list[str | bytes | Document] = [_page(k) for k in range(100)]
    docs[37] = Document(BINARY, id="scan.png")
    m = qatbe.extract_many(docs, "lighthouse harbour", budget=100_000)
    assert m.errors == (ItemError(37, "scan.png", "InputError", m.errors[0].message),)
    assert "binary" in m.errors[0].message
    good = [s for s in m.sources if s.segments > 0]
    assert len(good) == 99 and 37 not in {s.document for s in good}
    assert len(m.sources) == 100 and m.sources[37].segments == 0 and m.sources[37].citation == 0
    assert {p.document for p in m.passages} == set(range(100)) - {37}
    assert m.to_dict()["errors"] == [m.errors[0].to_dict()]


def test_errors_do_not_change_the_good_documents_output() -> None:
    good = [_page(k) for k in range(5)]
    with_bad = qatbe.extract_many([*good[:2], BINARY, *good[2:]], "lighthouse rock 14", budget=300)
    clean = qatbe.extract_many(good, "lighthouse rock 14", budget=300)
    # Labels name input positions ("document 4"), so compare what was chosen, not the rendered text.
    assert [p.segment.text for p in with_bad.passages] == [p.segment.text for p in clean.passages]
    assert [e.index for e in with_bad.errors] == [2]


def test_strict_raises_the_first_error() -> None:
    with pytest.raises(InputError, match=r"documents\[1\]: .*binary"):
        qatbe.extract_many([_page(0), BINARY, _page(2)], "lighthouse", strict=True)
    with pytest.raises(ConfigError, match="strict"):
        qatbe.extract_many([_page(0)], "lighthouse", strict="yes")  # type: ignore[arg-type]


def test_every_document_bad_gives_an_empty_result() -> None:
    m = qatbe.extract_many([BINARY, BINARY], "q")
    assert m.text == "" and [e.index for e in m.errors] == [0, 1] and m.passages == ()
