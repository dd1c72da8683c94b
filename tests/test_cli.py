"""The CLI, run in-process: output, exit codes, one-line errors."""

from __future__ import annotations

import io
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from qatbe.cli import main


def test_demo_runs_on_the_bundled_page(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", "--demo"]) == 0
    out, err = capsys.readouterr()
    assert "crowns" in out  # the demo query asks about renewal and cost
    assert "cookie" not in out.lower()
    assert "tokens" in err


def test_demo_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", "--demo", "--format", "json", "--tier", "key_facts"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["budget"] == 200 and data["total_tokens"] <= 200 and data["tier"] == "key_facts"
    assert data["segments"]


def test_file_and_budget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("# Fees\n\nThe fee is 92 crowns.\n\n# Other\n\nUnrelated words here.\n", encoding="utf-8")
    assert main(["extract", str(doc), "--query", "fee", "--budget", "12", "--format", "text"]) == 0
    out = capsys.readouterr().out
    assert "92 crowns" in out and "Unrelated" not in out


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"Alpha beta.\n\nGamma fee delta.")))
    assert main(["extract", "-", "-q", "fee", "--budget", "6"]) == 0
    assert capsys.readouterr().out.strip() == "Gamma fee delta."


@pytest.mark.parametrize(("budget", "status"), [("6", "1 segment kept, 1 dropped"),
                                                ("100", "2 segments kept, 0 dropped")])
def test_the_status_line_counts_what_was_kept(budget: str, status: str, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The summary on stderr says how much of the budget the text used and how many segments it holds."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"Alpha beta.\n\nGamma fee delta.")))
    assert main(["extract", "-", "-q", "fee", "--budget", budget]) == 0
    err = capsys.readouterr().err.strip()
    assert err.startswith("[qatbe: ") and f"/{budget} tokens, {status}]" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["extract", "/no/such/file.html", "-q", "x"], "no such file"),
        (["extract", "--demo", "--budget", "-5"], "budget"),
        (["extract"], "give a PATH"),
    ],
)
def test_errors_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("qatbe: error:") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def _gzip(data: bytes) -> bytes:
    import gzip

    return gzip.compress(data, mtime=0)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("garbage.html.gz", b"\x1f\x8b\x08not gzip at all", "not a readable gzip file"),
        ("cut.html.gz", _gzip(b"<p>Gamma fee delta.</p>" * 50)[:30], "not a readable gzip file"),
        ("plain.html.gz", b"<p>not compressed</p>", "not a readable gzip file"),
    ],
)
def test_a_broken_gzip_file_is_a_one_line_error(tmp_path: Path, name: str, content: bytes, message: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / name
    f.write_bytes(content)
    assert main(["extract", str(f), "-q", "fee"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("qatbe: error:") and message in err and err.count("\n") == 1


def test_a_gzip_file_is_read_and_its_expansion_is_bounded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from qatbe.cli_input import read_source
    from qatbe.errors import InputError

    f = tmp_path / "doc.html.gz"
    page = b"<p>Alpha beta.</p><p>Gamma fee delta.</p>"
    f.write_bytes(_gzip(page))
    assert main(["extract", str(f), "-q", "fee", "--budget", "6"]) == 0
    assert capsys.readouterr().out.strip() == "Gamma fee delta."
    assert read_source(str(f), len(page)) == page
    bomb = tmp_path / "bomb.txt.gz"
    bomb.write_bytes(_gzip(b"a" * 100_000))  # 100 kB from a few hundred bytes
    with pytest.raises(InputError, match="more than 99,999 bytes"):
        read_source(str(bomb), 99_999)


class _Endless(io.RawIOBase):
    """A stream that never ends, as ``yes |`` feeds one."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        buffer[:] = b"y" * len(buffer)
        return len(buffer)


def test_reading_is_bounded_by_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An endless standard input and a file over the limit are refused after ``limit + 1`` bytes, not read to the
    end (or until memory runs out); a source of exactly ``limit`` bytes is read whole."""
    from qatbe.cli_input import read_source
    from qatbe.errors import InputError

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BufferedReader(_Endless())))
    with pytest.raises(InputError, match="standard input holds more than 1,000 bytes"):
        read_source("-", 1000)
    f = tmp_path / "big.txt"
    f.write_bytes(b"x" * 1001)
    with pytest.raises(InputError, match="big.txt holds more than 1,000 bytes"):
        read_source(str(f), 1000)
    assert read_source(str(f), 1001) == b"x" * 1001


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_is_read_like_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``qatbe extract <(curl -s URL)`` passes a pipe's path (/dev/fd/63): not a regular file, but a source."""
    fifo = tmp_path / "page.html"
    os.mkfifo(fifo)

    def feed() -> None:
        with fifo.open("wb") as out:
            out.write(b"<p>Alpha beta.</p><p>Gamma fee delta.</p>")

    writer = threading.Thread(target=feed, daemon=True)  # daemon: a failed read must not leave it blocking exit
    writer.start()
    try:
        assert main(["extract", str(fifo), "-q", "fee", "--budget", "6"]) == 0
    finally:
        writer.join(timeout=10)
    assert capsys.readouterr().out.strip() == "Gamma fee delta."


def test_a_directory_is_named_as_such(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["segment", str(tmp_path)]) == 1
    assert "is a directory" in capsys.readouterr().err


def test_a_closed_pipe_ends_the_listing_quietly(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """``qatbe segment page | head -1``: the reader leaves, qatbe stops without a message or a traceback."""
    class Closed(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr("sys.stdout", Closed())
    assert main(["segment", "--demo"]) == 1
    assert capsys.readouterr().err == ""


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", "--demo", "--tier", "bogus"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_segment_listing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["segment", "--demo"]) == 0
    out = capsys.readouterr().out
    assert "heading:1" in out and "navigation" in out and "table" in out


def test_binary_file_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "image.png"
    f.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(32)) * 200)
    assert main(["extract", str(f), "-q", "x"]) == 1
    assert "binary" in capsys.readouterr().err


def test_explain_lists_every_segment(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", "--demo", "--tier", "key_facts", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "dropped: boilerplate" in out and "matched" in out
    assert main(["extract", "--demo", "--explain", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {"status", "terms", "type_weight", "density"} <= set(rows[0])
