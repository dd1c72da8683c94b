"""Benchmark loaders: every supported layout reads into the same records, and bad input names its file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qatbe.bench.loaders import jsonl_rows, load, load_layout, load_plain_jsonl, load_squad
from qatbe.errors import DataError

SAMPLE = Path(__file__).resolve().parents[1] / "corpora"


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def make_layout(tmp_path: Path, docs: list[object], queries: list[object]) -> Path:
    write_jsonl(tmp_path / "documents.jsonl", docs)
    write_jsonl(tmp_path / "queries.jsonl", queries)
    return tmp_path


GOOD_DOCS = [
    {"doc_id": "a", "format": "markdown", "markdown": "# A\n\nalpha text"},
    {"doc_id": "b", "html": "<p>beta html</p>", "markdown": "beta markdown"},
]
GOOD_QUERIES = [
    {"id": "q1", "doc_id": "a", "query": "what?", "answers": ["alpha"], "evidence": ["alpha text"]},
    {"id": "q2", "doc_id": "b", "query": "short", "query_with_scenario": "I am x. short", "answers": ["Yes"]},
    {"id": "q3", "doc_id": "b", "query": "none?", "answers": [], "not_answerable": True},
]


def test_layout_reads_documents_and_questions(tmp_path: Path) -> None:
    ds = load_layout(make_layout(tmp_path, GOOD_DOCS, GOOD_QUERIES))
    assert [i.id for i in ds.items] == ["q1", "q2", "q3"]
    assert ds.documents["a"].format == "markdown" and ds.documents["a"].source == "# A\n\nalpha text"
    # Both html and markdown present, no declared format: html is preferred unless told otherwise.
    assert ds.documents["b"].format == "html"
    assert load_layout(tmp_path, prefer="markdown").documents["b"].source == "beta markdown"
    # The scenario form of the question is the natural one when it exists.
    assert ds.items[1].query == "I am x. short"
    assert [i.answer_type for i in ds.items] == ["span", "yes_no", "none"]
    assert ds.items[0].evidence == ("alpha text",)
    assert len(ds.sha256) == 64


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ("{not json", "invalid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"id": "x", "doc_id": "a", "answers": ["a"]}', "missing field 'query'"),
        ('{"id": "x", "doc_id": "zz", "query": "q", "answers": ["a"]}', "'zz' is not in documents.jsonl"),
        ('{"id": "q1", "doc_id": "a", "query": "q", "answers": ["a"]}', "duplicate id"),
        ('{"id": "x", "doc_id": "a", "query": "q", "answers": "a", "answer_type": "maybe"}', "answer_type"),
        ('{"id": "x", "doc_id": "a", "query": "q", "answers": [1]}', "list of strings"),
        ('{"id": "x", "doc_id": "a", "query": "   ", "answers": ["a"]}', "is empty"),
    ],
)
def test_layout_errors_name_file_and_line(tmp_path: Path, bad_line: str, message: str) -> None:
    make_layout(tmp_path, GOOD_DOCS, [])
    good = json.dumps(GOOD_QUERIES[0])
    # Line 2 is blank (skipped but counted), so the bad row sits on line 3.
    (tmp_path / "queries.jsonl").write_text(f"{good}\n\n{bad_line}\n", encoding="utf-8")
    with pytest.raises(DataError, match=message) as info:
        load_layout(tmp_path)
    assert "queries.jsonl:3:" in str(info.value)


def test_layout_document_errors(tmp_path: Path) -> None:
    make_layout(tmp_path, [{"doc_id": "a", "format": "pdf", "pdf": "x"}], [])
    with pytest.raises(DataError, match=r"documents.jsonl:1: format must be one of"):
        load_layout(tmp_path)
    make_layout(tmp_path, [{"doc_id": "a", "title": "no text"}], [])
    with pytest.raises(DataError, match=r"documents.jsonl:1: document has none of the fields"):
        load_layout(tmp_path)
    make_layout(tmp_path, [GOOD_DOCS[0], GOOD_DOCS[0]], [])
    with pytest.raises(DataError, match=r"documents.jsonl:2: duplicate doc_id"):
        load_layout(tmp_path)
    (tmp_path / "queries.jsonl").unlink()
    with pytest.raises(DataError, match="queries.jsonl: not found"):
        load_layout(tmp_path)


def test_not_utf8_is_a_data_error(tmp_path: Path) -> None:
    make_layout(tmp_path, GOOD_DOCS, GOOD_QUERIES)
    (tmp_path / "queries.jsonl").write_bytes(b'{"id": "\xff"}\n')
    with pytest.raises(DataError, match="not UTF-8"):
        load_layout(tmp_path)


def squad(version: str, impossible: bool = False) -> dict[str, object]:
    qa: dict[str, object] = {"id": "s1", "question": "Who?", "answers": [{"text": "Ada", "answer_start": 0}]}
    qas: list[dict[str, object]] = [qa]
    if impossible:
        qas.append({"id": "s2", "question": "Why?", "answers": [], "is_impossible": True})
    return {"version": version, "data": [{"title": "T", "paragraphs": [
        {"context": "Ada wrote it.", "qas": qas}, {"context": "Second paragraph.", "qas": []}]}]}


def test_squad_v1_and_v2(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(squad("1.1")), encoding="utf-8")
    ds = load_squad(path)
    (doc,) = ds.documents.values()
    assert doc.format == "markdown"
    assert doc.source.split("\n\n") == ["# T", "Ada wrote it.", "Second paragraph.\n"]
    (item,) = ds.items
    assert (item.answers, item.evidence, item.answer_type) == (("Ada",), ("Ada wrote it.",), "span")
    path.write_text(json.dumps(squad("v2.0", impossible=True)), encoding="utf-8")
    assert [i.answer_type for i in load(path).items] == ["span", "none"]


def test_squad_errors(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{\n"data": [\n}', encoding="utf-8")
    with pytest.raises(DataError, match=r"s\.json:3: invalid JSON"):
        load_squad(path)
    broken = squad("1.1")
    broken["data"][0]["paragraphs"][0]["qas"][0]["answers"] = [{"start": 1}]  # type: ignore[index]
    path.write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(DataError, match=r"data\[0\]\.paragraphs\[0\]\.qas\[0\]\.answers\[0\]"):
        load_squad(path)
    path.write_text(json.dumps({"version": "x"}), encoding="utf-8")
    with pytest.raises(DataError, match="not SQuAD JSON"):
        load_squad(path)


def test_plain_jsonl_shares_identical_documents(tmp_path: Path) -> None:
    rows = [
        {"document": "same text", "query": "q1", "answers": ["same"]},
        {"document": "same text", "query": "q2", "answers": ["text"]},
        {"document": "<p>other</p>", "query": "q3", "answers": ["other"]},
    ]
    ds = load_plain_jsonl(write_jsonl(tmp_path / "mine.jsonl", rows))
    assert len(ds.items) == 3 and len(ds.documents) == 2
    assert ds.items[0].document_id == ds.items[1].document_id != ds.items[2].document_id
    assert ds.documents[ds.items[2].document_id].format == "html"
    assert ds.name == "mine"


def test_plain_jsonl_errors(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [{"document": "d", "query": "q", "answers": ["a"]},
                                              {"document": "d", "query": "q"}])
    with pytest.raises(DataError, match=r"p\.jsonl:2: missing field 'answers'"):
        load_plain_jsonl(path)
    path.write_text("\n\n", encoding="utf-8")
    with pytest.raises(DataError, match="no rows"):
        load_plain_jsonl(path)


def test_load_dispatch_and_unknown(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such dataset"):
        load(tmp_path / "missing")
    (tmp_path / "x.csv").write_text("a,b\n", encoding="utf-8")
    with pytest.raises(DataError, match="unknown dataset layout"):
        load(tmp_path / "x.csv")


def test_limit_is_round_robin_over_documents(tmp_path: Path) -> None:
    docs = [{"doc_id": d, "format": "text", "text": d} for d in "abc"]
    queries = [{"id": f"{d}{n}", "doc_id": d, "query": "q", "answers": ["x"]} for d in "abc" for n in range(3)]
    ds = load(make_layout(tmp_path, docs, queries), limit=4)
    # First question of every document, then the second question of the first document; file order kept.
    assert [i.id for i in ds.items] == ["a0", "a1", "b0", "c0"]
    assert set(ds.documents) == {"a", "b", "c"}
    assert load(tmp_path, limit=100).items == load(tmp_path).items


def test_hash_follows_content(tmp_path: Path) -> None:
    before = load(make_layout(tmp_path, GOOD_DOCS, GOOD_QUERIES)).sha256
    assert load(tmp_path).sha256 == before
    write_jsonl(tmp_path / "queries.jsonl", GOOD_QUERIES[:2])
    assert load(tmp_path).sha256 != before


def test_project_sample_reads_the_same_in_every_format() -> None:
    layout = load(SAMPLE / "sample")
    plain = load(SAMPLE / "sample-plain.jsonl")
    assert [(i.query, i.answers, i.answer_type) for i in layout.items] == [
        (i.query, i.answers, i.answer_type) for i in plain.items
    ]
    assert {d.format for d in layout.documents.values()} == {"html", "markdown", "text"}
    squad_items = load(SAMPLE / "sample-squad.json").items
    assert any(i.answer_type == "none" for i in squad_items)
    for item in squad_items:  # SQuAD answers are spans of their evidence paragraph
        assert item.answer_type == "none" or any(a in item.evidence[0] for a in item.answers)


@pytest.mark.corpora
@pytest.mark.parametrize("name", ["squad11-dev", "conditionalqa-dev", "hotpotqa-distractor", "wikitablequestions"])
def test_shared_qa_sets_load(corpora: Path, name: str) -> None:
    ds = load(corpora / name)
    text = (corpora / name / "queries.jsonl").read_text(encoding="utf-8")
    lines = sum(1 for line in text.splitlines() if line.strip())
    assert len(ds.items) == lines
    assert all(item.document_id in ds.documents for item in ds.items)
    assert all(item.answers for item in ds.items if item.answer_type == "span")


def test_jsonl_rows_skip_blank_lines_and_name_a_bad_one(tmp_path: Path) -> None:
    path = tmp_path / "index.jsonl"
    path.write_text('{"id": 1}\n\n{"id": 2}\n', encoding="utf-8")
    assert [row["id"] for row in jsonl_rows(path)] == [1, 2]
    path.write_text('{"id": 1}\n{"id": \n', encoding="utf-8")
    with pytest.raises(DataError, match=r"index\.jsonl:2: invalid JSON"):
        list(jsonl_rows(path))
