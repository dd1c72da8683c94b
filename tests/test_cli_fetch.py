"""``qatbe extract URL``: fetched from a real local server; a URL that fails is one error line, the rest go on."""

# ruff: noqa: F811 (the fixtures imported from local_http come back as test parameters)

from __future__ import annotations

import json
from pathlib import Path

import pytest
from local_http import base, only_loopback  # noqa: F401 (fixtures; a test names base as its parameter)

import qatbe
from qatbe.cli import main

QUERY = "how much does renewal cost?"


def test_one_url_is_fetched_and_extracted(base: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["extract", f"{base}/chain/1", "-q", QUERY, "--budget", "60", "--format", "json",
                 "--allow-private-networks"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert "75 pounds" in data["text"] and data["metadata"]["url"] == f"{base}/page"
    expected = qatbe.extract(qatbe.fetch(f"{base}/page", allow_private=True), QUERY, budget=60)
    assert data["text"] == expected.text


def test_the_guard_is_on_by_default(base: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", f"{base}/page", "-q", QUERY]) == 1
    err = capsys.readouterr().err
    assert err.startswith("qatbe: error: refused to connect to 127.0.0.1: a loopback address")
    assert "--allow-private-networks" in err and err.count("\n") == 1


def test_several_urls_and_files_a_failure_is_one_line(base: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "local.html"
    page.write_text("<html><body><p>The renewal fee abroad is 101 pounds.</p></body></html>")
    paths = [f"{base}/page", f"{base}/pdf", str(page), f"{base}/latin1"]
    code = main(["extract", *paths, "-q", QUERY, "--format", "json", "--allow-private-networks"])
    out, err = capsys.readouterr()
    assert code == 1
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["source"] for line in lines] == paths
    assert "application/pdf" in lines[1]["error"] and "75 pounds" in lines[0]["text"]
    assert f"qatbe: error: {base}/pdf: " in err and "1 of 4 files failed" in err


def test_many_with_urls_reports_the_failed_one(base: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["extract", f"{base}/page", f"{base}/missing", "-q", QUERY, "--many", "--format", "json",
                 "--allow-private-networks"])
    out, err = capsys.readouterr()
    assert code == 1
    data = json.loads(out)
    assert "75 pounds" in data["text"]
    assert [(e["index"], e["error_type"]) for e in data["errors"]] == [(1, "FetchError")]
    assert f"qatbe: error: {base}/missing: " in err and "HTTP 404" in err


def test_serve_has_its_own_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--help"]) == 0
    assert "--allow-private-networks" in capsys.readouterr().out
