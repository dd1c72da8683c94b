"""Reads question-answering datasets into one shape, so every system is measured on identical inputs.

Three layouts are accepted, told apart by ``load``:

* a folder with ``documents.jsonl`` + ``queries.jsonl`` (the layout of ``../shared/corpora/*``: squad11-dev,
  conditionalqa-dev, hotpotqa-distractor, wikitablequestions, and the project's own ``corpora/sample/``);
* an official SQuAD v1.1 / v2.0 JSON file (``{"data": [{"title", "paragraphs": [{"context", "qas"}]}]}``);
  one document per *article* (its paragraphs joined by blank lines), because a single SQuAD paragraph fits in every
  budget and would measure nothing;
* a plain JSONL file of ``{"document", "query", "answers"}`` rows (optional ``id``, ``format``, ``evidence``,
  ``answer_type``), so that users can bring their own data without writing a loader.

Input is validated as it is read; every problem raises ``DataError`` naming the file and the line (for SQuAD JSON,
which is one value, the line of a syntax error or the JSON path of a structural one).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import DataError
from ..jsonl import iter_jsonl

AnswerType = Literal["span", "yes_no", "none"]
DocFormat = Literal["html", "markdown", "text"]

ANSWER_TYPES: tuple[str, ...] = ("span", "yes_no", "none")
DOC_FORMATS: tuple[str, ...] = ("html", "markdown", "text")
_YES_NO = frozenset({"yes", "no"})


@dataclass(frozen=True, slots=True)
class BenchDocument:
    """One source document as the systems receive it: its text and the format it is in."""

    id: str
    source: str
    format: DocFormat


@dataclass(frozen=True, slots=True)
class QAItem:
    """One question about one document, with what a good extract must keep.

    ``answers`` are alternative gold strings (any one counts); ``evidence`` are the units (paragraphs, sentences,
    table rows, elements) that support the answer. ``answer_type`` is ``"yes_no"`` or ``"none"`` (unanswerable)
    when the answer string cannot be looked for in the text.
    """

    id: str
    document_id: str
    query: str
    answers: tuple[str, ...]
    evidence: tuple[str, ...] = ()
    answer_type: AnswerType = "span"


@dataclass(frozen=True)
class Dataset:
    """Documents by id, the questions in file order, and a hash of the files they were read from."""

    name: str
    documents: Mapping[str, BenchDocument]
    items: tuple[QAItem, ...]
    files: tuple[Path, ...]
    sha256: str

    def limited(self, limit: int | None) -> Dataset:
        """At most ``limit`` questions, taken round-robin over documents (the first question of every document,
        then the second, ...) so that a small subset still covers many documents; file order is kept."""
        if limit is None or limit >= len(self.items):
            return self
        by_doc: dict[str, list[int]] = {}
        for n, item in enumerate(self.items):
            by_doc.setdefault(item.document_id, []).append(n)
        chosen: list[int] = []
        rank = 0
        while len(chosen) < max(limit, 0):
            layer = [idx[rank] for idx in by_doc.values() if rank < len(idx)]
            chosen.extend(layer[: max(limit, 0) - len(chosen)])
            rank += 1
        items = tuple(self.items[n] for n in sorted(chosen))
        used = {item.document_id for item in items}
        docs = {k: v for k, v in self.documents.items() if k in used}
        return Dataset(self.name, docs, items, self.files, self.sha256)


# -- helpers ------------------------------------------------------------------------------------------------


def hash_files(paths: Sequence[Path]) -> str:
    """sha256 over the files' names and bytes, in the given order: a changed corpus gives a different hash."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode("utf-8") + b"\0")
        with path.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest()


def _where(path: Path, line: int | None) -> str:
    return f"{path}:{line}" if line is not None else str(path)


def jsonl_rows(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSONL file (blank lines skipped); a line that is not one is a ``DataError`` naming it."""
    for _, row in _iter_jsonl(path):
        yield row


def _iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yields (line number, object) for every non-blank line; anything but a JSON object is a ``DataError``."""
    return iter_jsonl(path, DataError)


def _str(row: Mapping[str, Any], key: str, where: str, *, required: bool = True) -> str | None:
    value = row.get(key)
    if value is None:
        if required:
            raise DataError(f"{where}: missing field {key!r}")
        return None
    if not isinstance(value, str):
        raise DataError(f"{where}: field {key!r} must be a string, not {type(value).__name__}")
    return value


def _str_list(row: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = row.get(key, [])
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DataError(f"{where}: field {key!r} must be a list of strings")
    return tuple(value)


def _answer_type(row: Mapping[str, Any], answers: tuple[str, ...], where: str) -> AnswerType:
    """Explicit ``answer_type`` wins; otherwise unanswerable flags, then all-yes/no answers, decide."""
    declared = row.get("answer_type")
    if declared is not None:
        if declared not in ANSWER_TYPES:
            raise DataError(f"{where}: answer_type must be one of {', '.join(ANSWER_TYPES)}, not {declared!r}")
        return declared  # type: ignore[no-any-return]
    if row.get("not_answerable") is True or row.get("is_impossible") is True or not answers:
        return "none"
    if all(a.strip().lower() in _YES_NO for a in answers):
        return "yes_no"
    return "span"


def _format(value: object, where: str) -> DocFormat:
    if value not in DOC_FORMATS:
        raise DataError(f"{where}: format must be one of {', '.join(DOC_FORMATS)}, not {value!r}")
    return value  # type: ignore[return-value]


# -- the documents.jsonl + queries.jsonl layout -------------------------------------------------------------


def _layout_document(row: Mapping[str, Any], where: str, prefer: DocFormat) -> BenchDocument:
    """Picks the document text: the declared ``format`` field, else the preferred one present, else any."""
    doc_id = row.get("doc_id", row.get("id"))
    if not isinstance(doc_id, str) or not doc_id:
        raise DataError(f"{where}: missing field 'doc_id' (a non-empty string)")
    declared = row.get("format")
    if declared is not None:
        fmt = _format(declared, where)
        text = _str(row, fmt, where)
        assert text is not None
        return BenchDocument(doc_id, text, fmt)
    order = [prefer] + [f for f in DOC_FORMATS if f != prefer]
    for candidate in order:
        text = _str(row, candidate, where, required=False)
        if text is not None:
            return BenchDocument(doc_id, text, candidate)  # type: ignore[arg-type]
    raise DataError(f"{where}: document has none of the fields {', '.join(DOC_FORMATS)}")


def load_layout(
    folder: str | Path, *, prefer: DocFormat = "html", query_field: str | None = None, name: str | None = None
) -> Dataset:
    """Reads ``documents.jsonl`` + ``queries.jsonl``.

    When a document carries both ``html`` and ``markdown`` (conditionalqa-dev) ``prefer`` picks one; HTML by
    default because parsing real structure is what qatbe is for. The query is ``query_with_scenario`` when present
    (the README of conditionalqa-dev calls it the natural query), else ``query``, unless ``query_field`` says.
    """
    root = Path(folder)
    doc_path, query_path = root / "documents.jsonl", root / "queries.jsonl"
    for path in (doc_path, query_path):
        if not path.is_file():
            raise DataError(f"{path}: not found (a dataset folder needs documents.jsonl and queries.jsonl)")
    documents: dict[str, BenchDocument] = {}
    for number, row in _iter_jsonl(doc_path):
        where = _where(doc_path, number)
        doc = _layout_document(row, where, prefer)
        if doc.id in documents:
            raise DataError(f"{where}: duplicate doc_id {doc.id!r}")
        documents[doc.id] = doc
    items: list[QAItem] = []
    seen: set[str] = set()
    for number, row in _iter_jsonl(query_path):
        where = _where(query_path, number)
        item = _qa_row(row, where, query_field, default_id=f"{root.name}-{number}")
        if item.document_id not in documents:
            raise DataError(f"{where}: doc_id {item.document_id!r} is not in {doc_path.name}")
        if item.id in seen:
            raise DataError(f"{where}: duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    files = (doc_path, query_path)
    return Dataset(name or root.name, documents, tuple(items), files, hash_files(files))


def _qa_row(row: Mapping[str, Any], where: str, query_field: str | None, default_id: str) -> QAItem:
    doc_id = _str(row, "doc_id", where)
    assert doc_id is not None
    field = query_field or ("query_with_scenario" if "query_with_scenario" in row else "query")
    query = _str(row, field, where)
    assert query is not None
    if not query.strip():
        raise DataError(f"{where}: field {field!r} is empty")
    answers = _str_list(row, "answers", where)
    item_id = row.get("id", default_id)
    if not isinstance(item_id, (str, int)) or isinstance(item_id, bool):
        raise DataError(f"{where}: field 'id' must be a string")
    return QAItem(
        id=str(item_id),
        document_id=doc_id,
        query=query,
        answers=answers,
        evidence=_str_list(row, "evidence", where),
        answer_type=_answer_type(row, answers, where),
    )


# -- plain JSONL of {document, query, answers} --------------------------------------------------------------


def load_plain_jsonl(path: str | Path, *, name: str | None = None) -> Dataset:
    """Reads one ``{"document", "query", "answers"}`` object per line; identical documents are stored once.

    ``format`` (html/markdown/text) is optional; without it the document is handed over as ``text`` when it has no
    ``<`` tag and no markdown heading, else the systems' own detection decides (``"html"`` if it starts like HTML).
    """
    file = Path(path)
    documents: dict[str, BenchDocument] = {}
    by_text: dict[tuple[str, str], str] = {}
    items: list[QAItem] = []
    seen: set[str] = set()
    for number, row in _iter_jsonl(file):
        where = _where(file, number)
        text = _str(row, "document", where)
        assert text is not None
        fmt = _format(row["format"], where) if row.get("format") is not None else _guess_format(text)
        key = (fmt, text)
        doc_id = by_text.get(key)
        if doc_id is None:
            doc_id = f"doc-{len(by_text) + 1}"
            by_text[key] = doc_id
            documents[doc_id] = BenchDocument(doc_id, text, fmt)
        query = _str(row, "query", where)
        assert query is not None
        if not query.strip():
            raise DataError(f"{where}: field 'query' is empty")
        if "answers" not in row:
            raise DataError(f"{where}: missing field 'answers'")
        answers = _str_list(row, "answers", where)
        item_id = row.get("id", f"{file.stem}-{number}")
        if not isinstance(item_id, (str, int)) or isinstance(item_id, bool):
            raise DataError(f"{where}: field 'id' must be a string")
        if str(item_id) in seen:
            raise DataError(f"{where}: duplicate id {item_id!r}")
        seen.add(str(item_id))
        items.append(
            QAItem(
                id=str(item_id),
                document_id=doc_id,
                query=query,
                answers=answers,
                evidence=_str_list(row, "evidence", where),
                answer_type=_answer_type(row, answers, where),
            )
        )
    if not items:
        raise DataError(f"{file}: no rows")
    return Dataset(name or file.stem, documents, tuple(items), (file,), hash_files([file]))


def _guess_format(text: str) -> DocFormat:
    head = text.lstrip()[:1000].lower()
    if head.startswith(("<!doctype", "<html", "<body", "<div", "<p", "<article", "<table", "<h1", "<h2")):
        return "html"
    if head.startswith("#") or "\n#" in text or "\n- " in text or "\n|" in text:
        return "markdown"
    return "text"


# -- official SQuAD JSON ------------------------------------------------------------------------------------


def load_squad(path: str | Path, *, name: str | None = None) -> Dataset:
    """Reads SQuAD v1.1 or v2.0; v2 questions marked ``is_impossible`` are kept and counted as unanswerable.

    Each article becomes one markdown document (``# title``, then its paragraphs separated by blank lines); a
    question's evidence is the paragraph it was asked about.
    """
    file = Path(path)
    try:
        raw = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(f"{file}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{file}: not UTF-8 ({exc.reason})") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise DataError(f"{file}:{exc.lineno}: invalid JSON ({exc.msg}, column {exc.colno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise DataError(f"{file}: not SQuAD JSON (expected an object with a 'data' list)")
    documents: dict[str, BenchDocument] = {}
    items: list[QAItem] = []
    seen: set[str] = set()
    for a, article in enumerate(data["data"]):
        where = f"{file}: data[{a}]"
        if not isinstance(article, dict):
            raise DataError(f"{where}: expected an object")
        title = _str(article, "title", where) or f"article {a}"
        paragraphs = article.get("paragraphs")
        if not isinstance(paragraphs, list):
            raise DataError(f"{where}: missing list 'paragraphs'")
        doc_id = f"{a}:{title}"
        contexts: list[str] = []
        for p, paragraph in enumerate(paragraphs):
            pwhere = f"{where}.paragraphs[{p}]"
            if not isinstance(paragraph, dict):
                raise DataError(f"{pwhere}: expected an object")
            context = _str(paragraph, "context", pwhere)
            assert context is not None
            contexts.append(context.strip())
            qas = paragraph.get("qas", [])
            if not isinstance(qas, list):
                raise DataError(f"{pwhere}: 'qas' must be a list")
            for q, qa in enumerate(qas):
                items.append(_squad_question(qa, f"{pwhere}.qas[{q}]", doc_id, context.strip(), seen))
        documents[doc_id] = BenchDocument(doc_id, "\n\n".join([f"# {title}", *contexts]) + "\n", "markdown")
    if not items:
        raise DataError(f"{file}: no questions")
    return Dataset(name or file.stem, documents, tuple(items), (file,), hash_files([file]))


def _squad_question(qa: object, where: str, doc_id: str, context: str, seen: set[str]) -> QAItem:
    if not isinstance(qa, dict):
        raise DataError(f"{where}: expected an object")
    qid = _str(qa, "id", where)
    question = _str(qa, "question", where)
    assert qid is not None and question is not None
    if qid in seen:
        raise DataError(f"{where}: duplicate id {qid!r}")
    seen.add(qid)
    raw_answers = qa.get("answers", [])
    if not isinstance(raw_answers, list):
        raise DataError(f"{where}: 'answers' must be a list")
    answers: list[str] = []
    for n, answer in enumerate(raw_answers):
        if not isinstance(answer, dict) or not isinstance(answer.get("text"), str):
            raise DataError(f"{where}.answers[{n}]: expected an object with a string 'text'")
        answers.append(answer["text"])
    impossible = qa.get("is_impossible", False)
    if not isinstance(impossible, bool):
        raise DataError(f"{where}: 'is_impossible' must be true or false")
    if not impossible and not answers:
        raise DataError(f"{where}: no answers and not marked is_impossible")
    return QAItem(
        id=qid,
        document_id=doc_id,
        query=question,
        answers=() if impossible else tuple(answers),
        evidence=(context,),
        answer_type="none" if impossible else "span",
    )


# -- dispatch -----------------------------------------------------------------------------------------------


def load(path: str | Path, *, limit: int | None = None, prefer: DocFormat = "html") -> Dataset:
    """Loads any supported layout: a dataset folder, a SQuAD ``.json`` file, or a plain ``.jsonl`` file."""
    target = Path(path)
    if target.is_dir():
        dataset = load_layout(target, prefer=prefer)
    elif target.is_file() and target.suffix == ".json":
        dataset = load_squad(target)
    elif target.is_file() and target.suffix == ".jsonl":
        dataset = load_plain_jsonl(target)
    elif target.exists():
        raise DataError(f"{target}: unknown dataset layout (use a folder, a SQuAD .json or a .jsonl file)")
    else:
        raise DataError(f"{target}: no such dataset")
    return dataset.limited(limit)


def resolve_dataset(spec: str, corpora: Path | None) -> Path:
    """A path as given if it exists, else the folder of that name under the corpora root (``squad11-dev``)."""
    direct = Path(spec)
    if direct.exists() or corpora is None:
        return direct
    named = corpora / spec
    return named if named.exists() else direct
