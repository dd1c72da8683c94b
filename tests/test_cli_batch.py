"""``qatbe extract`` over several files: each on its own in input order (any number of workers, the same
output), one failed file reported without stopping the rest, and ``--many`` as one cited context."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qatbe.cli import main

PAGES = {
    "fees.md": "# Fees\n\nThe fee is 92 crowns.\n\n# Other\n\nUnrelated words here.\n",
    "hours.html": "<h1>Hours</h1><p>The office opens at nine. The fee is paid at the desk.</p><p>Parking nearby.</p>",
    "notes.txt": "Nothing about money here.\n\nOnly notes on the weather.\n",
}
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(32)) * 200


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    paths = []
    for name, text in PAGES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        paths.append(str(tmp_path / name))
    return paths


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_each_file_is_extracted_as_on_its_own(files: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["extract", *files, "-q", "fee", "--budget", "20"], capsys)
    assert code == 0
    alone = [_run(["extract", path, "-q", "fee", "--budget", "20"], capsys) for path in files]
    assert [code for code, _, _ in alone] == [0, 0, 0]
    assert out == "\n".join(f"==> {p} <==\n{text}" for p, (_, text, _) in zip(files, alone))
    assert [line.split(": ")[1] for line in err.splitlines()] == files  # one status line per file, in order


def test_json_lines_name_their_file_and_workers_change_nothing(files: list[str],
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["extract", *files, "-q", "fee", "--budget", "20", "--format", "json"]
    code, out, _ = _run(argv, capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [r["source"] for r in rows] == files
    assert all(r["total_tokens"] <= 20 for r in rows) and "92 crowns" in rows[0]["text"]
    assert rows[2]["no_match"] is True
    parallel = _run([*argv, "--jobs", "2"], capsys)[1]
    strip = [{k: v for k, v in json.loads(line).items() if k != "evaluation_time_ms"} for line in parallel.splitlines()]
    assert strip == [{k: v for k, v in r.items() if k != "evaluation_time_ms"} for r in rows]


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_a_file_that_fails_is_reported_and_the_others_go_on(files: list[str], tmp_path: Path, fmt: str,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "image.png"
    png.write_bytes(PNG)
    paths = [files[0], str(png), str(tmp_path / "missing.md"), files[1]]
    code, out, err = _run(["extract", *paths, "-q", "fee", "--format", fmt], capsys)
    assert code == 1
    errors = [line for line in err.splitlines() if line.startswith("qatbe: error:")]
    assert [e.split(": ")[2] for e in errors] == [str(png), str(tmp_path / "missing.md")]
    assert "binary" in errors[0] and "no such file" in errors[1]
    assert err.splitlines()[-1] == "qatbe: 2 of 4 files failed"
    if fmt == "json":
        rows = [json.loads(line) for line in out.splitlines()]
        assert [r["source"] for r in rows] == paths and ["error" in r for r in rows] == [False, True, True, False]
    else:
        assert [line for line in out.splitlines() if line.startswith("==> ")] == [
            f"==> {files[0]} <==", f"==> {files[1]} <=="]


def test_many_makes_one_cited_context(files: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["extract", *files, "-q", "fee", "--budget", "120", "--many"], capsys)
    assert code == 0 and "92 crowns" in out and "Sources:" in out and "of 3 documents" in err
    code, out, _ = _run(["extract", *files, "-q", "fee", "--budget", "120", "--many", "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["total_tokens"] <= 120
    assert [s["id"] for s in data["sources"]] == files  # each document is its path
    assert {s["label"] for s in data["sources"] if s["citation"]} >= {"Fees"}


def test_many_names_the_file_it_cannot_read(files: list[str], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "image.png"
    png.write_bytes(PNG)
    code, out, err = _run(["extract", files[0], str(png), "-q", "fee", "--many"], capsys)
    assert code == 1 and "Sources:" in out  # the context of the files it could read, and one line for the other
    assert err.startswith(f"qatbe: error: {png}: ") and "binary" in err.splitlines()[0]
    code, out, err = _run(["extract", files[0], str(png), "-q", "fee", "--many", "--format", "json"], capsys)
    assert code == 1 and json.loads(out)["errors"][0]["index"] == 1 and err.count("\n") == 1


@pytest.mark.parametrize(("argv", "message"), [
    (["-", "-"], "standard input ('-') can be read only once"),
    (["--many"], "give a PATH"),
    (["--demo", "--many"], "--many combines files"),
    (["a.md", "b.md", "--many", "--explain"], "does not combine with --many"),
])
def test_batch_usage_errors_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["extract", *argv], capsys)
    assert code == 1 and message in err and err.count("\n") == 1


def test_jobs_must_be_a_count(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["extract", "--demo", "--jobs", "-1"], capsys)
    assert code == 2 and "number of processes" in err
