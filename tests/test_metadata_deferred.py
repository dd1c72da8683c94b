"""An HTML page's metadata is read when first asked for (``types.DeferredMetadata``): an extraction that never
asks never pays for it, and one that asks gets what an eager read gives."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections.abc import Callable

import pytest
from threads import in_threads

import qatbe
from qatbe.segmentation import html
from qatbe.types import DeferredMetadata, Metadata

_PAGE = """<html lang="en-GB"><head><title>Renewals | Passport Office</title>
<meta property="og:site_name" content="Passport Office">
<meta name="description" content="How to renew.">
<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Renewals",
 "datePublished": "2024-03-05", "author": {"name": "Jo Poe"}}</script></head>
<body><article><h1>Renewals</h1><p>By Jo Poe</p><p>The renewal fee for an adult passport is 88 pounds.</p>
<p>Apply online or by post.</p></article></body></html>"""


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the segmenter's metadata reads."""
    reads: list[int] = []
    real = html.read_from

    def read_from(source: object) -> Metadata:
        reads.append(1)
        return real(source)

    monkeypatch.setattr(html, "read_from", read_from)
    return reads


def test_extract_reads_the_metadata_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    reads = _counting(monkeypatch)
    result = qatbe.extract(_PAGE, "renewal fee", budget=200)
    assert "88 pounds" in result.text
    assert reads == []
    assert result.metadata.language == "en-GB"  # known without reading
    assert reads == []
    assert (result.metadata.title, result.metadata.author, result.metadata.date) == (
        "Renewals", "Jo Poe", "2024-03-05")
    assert result.metadata.description == "How to renew."
    assert reads == [1]  # once, however many fields are read


def test_one_parsed_page_reads_its_metadata_once(monkeypatch: pytest.MonkeyPatch) -> None:
    reads = _counting(monkeypatch)
    ex = qatbe.Extractor(budget=200)
    doc = ex.parse(_PAGE)
    answers = [ex.extract(doc, q) for q in ("renewal fee", "apply by post")]
    assert reads == []
    assert all(r.metadata == doc.metadata for r in answers)
    assert reads == [1]


def test_the_deferred_read_is_the_eager_one() -> None:
    deferred = qatbe.Extractor().parse(_PAGE).metadata
    assert isinstance(deferred, DeferredMetadata)
    eager = deferred.value()
    assert type(eager) is Metadata
    assert deferred.to_dict() == eager.to_dict()
    assert deferred.language == eager.language


def _deferred(value: Metadata, language: str | None = None) -> tuple[DeferredMetadata, list[int]]:
    calls: list[int] = []

    def read() -> Metadata:
        calls.append(1)
        return value

    return DeferredMetadata.of(read, value.language if language is None else language), calls


_PLAIN = Metadata(title="T", author="A", date="2024-01-02", language="de", extra={"site_name": "S"})


@pytest.mark.parametrize("use", [
    lambda d: d.title, lambda d: d.extra, lambda d: d.to_dict(), repr, lambda d: d == _PLAIN,
    lambda d: _PLAIN == d, dataclasses.asdict, copy.copy, copy.deepcopy, lambda d: pickle.dumps(d),
    lambda d: dataclasses.replace(d, title="U"),
])
def test_every_way_of_reading_it_reads_once(use: Callable[[DeferredMetadata], object]) -> None:
    deferred, calls = _deferred(_PLAIN)
    assert deferred.language == "de" and calls == []
    use(deferred)
    use(deferred)
    assert calls == [1]


def test_it_is_a_metadata_to_every_caller() -> None:
    deferred, _ = _deferred(_PLAIN)
    assert isinstance(deferred, Metadata) and dataclasses.is_dataclass(deferred)
    assert deferred == _PLAIN and _PLAIN == deferred and deferred != Metadata(title="T")
    assert deferred == _deferred(_PLAIN)[0]
    assert repr(deferred) == repr(_PLAIN)
    assert dataclasses.asdict(deferred) == dataclasses.asdict(_PLAIN)
    for copied in (pickle.loads(pickle.dumps(deferred)), copy.copy(deferred), copy.deepcopy(deferred)):
        assert type(copied) is Metadata and copied == _PLAIN
    changed = dataclasses.replace(deferred, title="U")
    assert type(changed) is Metadata and changed == dataclasses.replace(_PLAIN, title="U")
    with pytest.raises(TypeError):
        hash(deferred)


def test_threads_sharing_one_all_see_the_same_value() -> None:
    deferred, calls = _deferred(_PLAIN)
    seen: list[Metadata] = []
    in_threads(lambda: seen.append(deferred.value()), 8, together=True)
    assert len(seen) == 8 and all(m == _PLAIN for m in seen)
    assert 1 <= len(calls) <= 8 and deferred.value() is deferred.value()
