"""WARC in: ``qatbe.read_warc`` over WARC files written by warcio (HTML responses as Documents, every other record
skipped and counted, broken records as error records that never stop the run) and ``qatbe extract crawl.warc.gz``
(JSON lines equal to ``qatbe.extract`` in a loop, questions from -q or --queries, any number of workers)."""

from __future__ import annotations

import gzip
import io
import json
import shlex
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from many_pages import WCXB_QUERY, Page, plain, warc_bytes, wcxb_loop, wcxb_pages, wcxb_warc, write_warc
from readme_examples import example

import qatbe
from qatbe.batch import BatchResult
from qatbe.cli import main
from qatbe.warc import EMPTY, HTTP_STATUS, NOT_HTML, NOT_RESPONSE

FEES = b"<html><body><h1>Fees</h1><p>The passport fee is 92 crowns, paid at the desk.</p><p>Parking.</p></body></html>"
HOURS = b"<html><body><h1>Hours</h1><p>The office opens at nine and closes at five.</p></body></html>"
# A windows-1251 page that declares nothing itself: only the HTTP header says how to read it.
CYRILLIC = "<html><body><h1>Паспорт</h1><p>Пошлина за паспорт составляет девяносто две кроны.</p></body></html>"


REQUEST = b"GET /fees HTTP/1.1\r\nHost: x.test\r\n\r\n"


def _warcinfo_and_request() -> bytes:
    from warcio.warcwriter import WARCWriter

    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True)
    writer.write_record(writer.create_warcinfo_record("crawl.warc.gz", {"software": "test"}))
    writer.write_record(writer.create_warc_record("https://x.test/fees", "request",
                                                  payload=io.BytesIO(REQUEST), length=len(REQUEST)))
    return buffer.getvalue()


@pytest.fixture
def crawl(tmp_path: Path) -> Path:
    pages = [Page("https://x.test/fees", FEES), Page("https://x.test/logo.png", b"\x89PNG\r\n", "image/png"),
             Page("https://x.test/gone", b"<html>moved</html>", status="301 Moved Permanently"),
             Page("https://x.test/empty", b""), Page("https://x.test/hours", HOURS, "text/html; charset=utf-8"),
             Page("https://x.test/ru", CYRILLIC.encode("cp1251"), "text/html; charset=windows-1251")]
    path = tmp_path / "crawl.warc.gz"
    path.write_bytes(_warcinfo_and_request() + b"".join(warc_bytes(pages)))
    return path


def test_html_responses_become_documents_and_the_rest_is_counted(crawl: Path) -> None:
    reader = qatbe.read_warc(crawl)
    docs = list(reader)
    assert [d.url for d in docs] == ["https://x.test/fees", "https://x.test/hours", "https://x.test/ru"]
    assert all(d.id is not None and d.id.startswith("<urn:uuid:") for d in docs)
    assert all(d.metadata is not None and d.metadata["date"].endswith("Z") for d in docs)
    assert docs[0].source == FEES
    assert reader.records == 8 and reader.documents == 3 and reader.errors == []
    assert dict(reader.skipped) == {NOT_RESPONSE: 2, NOT_HTML: 1, HTTP_STATUS: 1, EMPTY: 1}


def test_the_served_charset_decodes_the_page(crawl: Path) -> None:
    ru = list(qatbe.read_warc(crawl))[2]
    assert ru.source == CYRILLIC
    assert "девяносто две кроны" in qatbe.extract(ru.source, "пошлина паспорт").text


def test_compressed_and_chunked_payloads_are_decoded(tmp_path: Path) -> None:
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(HOURS), HOURS)
    path = write_warc(tmp_path / "enc.warc.gz", [
        Page("https://x.test/gz", gzip.compress(FEES), headers=(("Content-Encoding", "gzip"),)),
        Page("https://x.test/chunked", chunked, headers=(("Transfer-Encoding", "chunked"),))])
    assert [d.source for d in qatbe.read_warc(path)] == [FEES, HOURS]


def _broken(tmp_path: Path) -> Path:
    """Good, non-HTML, empty, gzip-corrupt, good, truncated: in that order."""
    good, png, empty, corrupt, hours, cut = warc_bytes([
        Page("https://x.test/fees", FEES), Page("https://x.test/logo.png", b"\x89PNG\r\n", "image/png"),
        Page("https://x.test/empty", b""), Page("https://x.test/bad", FEES), Page("https://x.test/hours", HOURS),
        Page("https://x.test/cut", FEES)])
    mangled = corrupt[:30] + bytes(40) + corrupt[70:]
    path = tmp_path / "broken.warc.gz"
    path.write_bytes(good + png + empty + mangled + hours + cut[: len(cut) // 2])
    return path


def test_broken_records_are_errors_and_never_stop_the_run(tmp_path: Path) -> None:
    reader = qatbe.read_warc(_broken(tmp_path))
    assert [d.url for d in reader] == ["https://x.test/fees", "https://x.test/hours"]
    assert dict(reader.skipped) == {NOT_HTML: 1, EMPTY: 1}
    assert [e.error_type for e in reader.errors] == ["InputError", "InputError"]
    assert "unreadable bytes" in reader.errors[0].message and "truncated record" in reader.errors[1].message


def test_an_uncompressed_warc_resumes_after_garbage(tmp_path: Path) -> None:
    good, hours = (gzip.decompress(b) for b in warc_bytes([Page("https://x.test/fees", FEES),
                                                           Page("https://x.test/hours", HOURS)]))
    path = tmp_path / "plain.warc"
    path.write_bytes(good + b"this is not a record\r\n\r\n" + hours)
    reader = qatbe.read_warc(path)
    assert [d.url for d in reader] == ["https://x.test/fees", "https://x.test/hours"]
    assert len(reader.errors) == 1


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=4000), st.integers(min_value=0, max_value=255))
def test_any_cut_or_flipped_byte_never_raises(position: int, value: int) -> None:
    """Whatever one byte or the length of the file, reading ends and yields only pages that were written."""
    data = bytearray(b"".join(warc_bytes([Page(f"https://x.test/{i}", FEES) for i in range(5)])))
    position %= len(data)
    flipped = bytes(data[:position]) + bytes([value]) + bytes(data[position + 1:])
    for blob in (flipped, bytes(data[:position])):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "crawl.warc.gz"
            path.write_bytes(blob)
            reader = qatbe.read_warc(path)
            urls = [d.url for d in reader]
        assert set(urls) <= {f"https://x.test/{i}" for i in range(5)}
        assert reader.documents == len(urls) <= 5


def test_a_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(qatbe.InputError, match="cannot read"):
        list(qatbe.read_warc(tmp_path / "none.warc.gz"))


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, object]], str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_the_cli_prints_a_json_line_per_page(crawl: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, rows, err = _cli(["extract", str(crawl), "-q", "passport fee", "--budget", "60"], capsys)
    assert code == 0
    docs = list(qatbe.read_warc(crawl))
    assert [(r["url"], r["id"], r["date"]) for r in rows] == [
        (d.url, d.id, d.metadata["date"] if d.metadata else None) for d in docs]
    for row, doc in zip(rows, docs):
        expected = qatbe.extract(doc.source, "passport fee", budget=60)
        assert (row["text"], row["tokens"], row["no_match"], row["query"]) == (
            expected.text, expected.total_tokens, expected.no_match, "passport fee")
        assert row["metadata"] == expected.metadata.to_dict()
    assert "8 records, 3 pages" in err and "1 not HTML" in err


def test_queries_come_from_a_file_by_id_or_url(crawl: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    docs = list(qatbe.read_warc(crawl))
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"id": docs[0].id, "query": "fee"}) + "\n\n"
                       + json.dumps({"url": "https://x.test/hours", "query": "opens"}) + "\n")
    code, rows, _ = _cli(["extract", str(crawl), "--queries", str(queries), "-q", "default"], capsys)
    assert code == 0 and [r["query"] for r in rows] == ["fee", "opens", "default"]
    code, rows, _ = _cli(["extract", str(crawl), "--queries", str(queries)], capsys)
    assert [r["query"] for r in rows] == ["fee", "opens", None]
    queries.write_text('{"query": "no key"}\n')
    code, rows, err = _cli(["extract", str(crawl), "--queries", str(queries)], capsys)
    assert code == 1 and rows == [] and err.startswith("qatbe: error: ") and "q.jsonl:1" in err


def test_a_broken_warc_gives_error_lines_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, rows, err = _cli(["extract", str(_broken(tmp_path)), "--jobs", "2"], capsys)
    assert code == 1
    assert [r["url"] for r in rows if "text" in r] == ["https://x.test/fees", "https://x.test/hours"]
    assert [r["error_type"] for r in rows if "text" not in r] == ["InputError", "InputError"]
    assert "2 records unreadable or truncated" in err and "Traceback" not in err


def test_warc_files_are_not_mixed_with_pages(crawl: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "page.html"
    page.write_bytes(FEES)
    for argv in (["extract", str(crawl), str(page)], ["extract", str(crawl), "--many"]):
        assert main(argv) == 1
        assert capsys.readouterr().err.startswith("qatbe: error: WARC files are read on their own")
    assert main(["extract", str(page), "--queries", str(page)]) == 1
    assert "--queries" in capsys.readouterr().err


def test_a_warc_is_found_by_its_content(crawl: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    renamed = tmp_path / "crawl.bin"
    renamed.write_bytes(crawl.read_bytes())
    code, rows, _ = _cli(["extract", str(renamed)], capsys)
    assert code == 0 and len(rows) == 3


@pytest.mark.corpora
def test_every_wcxb_page_is_the_loops_through_warc_batch_and_cli(corpora: Path, tmp_path_factory: pytest.TempPathFactory,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    loop = list(wcxb_loop(corpora))
    pages = wcxb_pages(corpora)
    assert len(loop) >= 300
    path = wcxb_warc(corpora, tmp_path_factory.mktemp("wcxb"))
    reader = qatbe.read_warc(path)
    batch = list(qatbe.extract_batch(reader, WCXB_QUERY, workers=2))
    assert reader.documents == len(pages) and reader.errors == [] and not reader.skipped
    assert [o.id for o in batch] == [o.id for o in batch if isinstance(o, BatchResult)]  # no error records
    assert [plain(o.result) for o in batch if isinstance(o, BatchResult)] == loop
    code, rows, _ = _cli(["extract", str(path), "-q", WCXB_QUERY, "--format", "json", "--jobs", "2"], capsys)
    assert code == 0 and [r.pop("url") for r in rows] == [p.url for p in pages]
    for row in rows:
        del row["id"], row["date"], row["evaluation_time_ms"]
    assert [json.dumps(r, ensure_ascii=False, sort_keys=True) for r in rows] == loop


def test_the_readme_warc_examples_run(crawl: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "crawl.warc.gz").write_bytes(crawl.read_bytes())
    monkeypatch.chdir(work)
    exec(example("many-pages-warc"), {})  # noqa: S102 - the README example, run as written
    assert capsys.readouterr().out.strip() == (
        "3 pages; {'not a response record': 2, 'not HTML': 1, 'HTTP status not 2xx': 1, 'empty payload': 1} "
        "skipped; 0 errors")
    docs = list(qatbe.read_warc(crawl))
    (work / "questions.jsonl").write_text(json.dumps({"url": docs[0].url, "query": "fee"}) + "\n")
    (command,) = example("many-pages-cli").strip().splitlines()
    args, target = command.split(" > ")
    assert args.startswith("qatbe ")
    assert main(shlex.split(args)[1:]) == 0
    (work / target).write_text(capsys.readouterr().out)
    rows = [json.loads(line) for line in (work / "extracts.jsonl").read_text().splitlines()]
    assert [r["query"] for r in rows] == ["fee", None, None]
    assert rows[0]["text"] == qatbe.extract(docs[0].source, "fee", budget=500).text


def test_a_terminal_gets_a_progress_bar(crawl: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, rows, err = _cli(["extract", str(crawl), "--budget", "40"], capsys)
    assert code == 0 and len(rows) == 3
    assert "3 pages [" in err and "pages/s]" in err  # tqdm's count of pages, then their rate
    assert "8 records, 3 pages" in err  # the summary, written above the bar
    pages = [tmp_path / "a.html", tmp_path / "b.html"]
    for page in pages:
        page.write_bytes(FEES)
    assert main(["extract", *map(str, pages), "-q", "fee", "--jobs", "2"]) == 0
    err = capsys.readouterr().err
    assert "2 pages [" in err and "pages/s]" in err and f"[qatbe: {pages[1]}:" in err
