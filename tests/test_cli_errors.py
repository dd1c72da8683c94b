"""Every command-line error is one line on stderr and a non-zero exit; never a traceback, never a usage block."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

from qatbe.cli import EXIT_ERROR, EXIT_USAGE, main

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "corpora"


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "empty.html").write_bytes(b"")
    (tmp_path / "page.html").write_text("<p>The fee is five crowns.</p>", encoding="utf-8")
    (tmp_path / "binary.bin").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    (tmp_path / "cut.gz").write_bytes(gzip.compress(b"<p>hello</p>" * 100)[:20])
    (tmp_path / "bom.txt").write_bytes(b"\xff\xfe" + b"plain ascii behind a UTF-16 mark " * 20)
    return {p.stem: str(p) for p in tmp_path.iterdir()} | {"dir": str(tmp_path)}


BAD: list[tuple[list[str], int, str]] = [
    (["extract", "--tier", "bogus", "{page}"], EXIT_USAGE, "invalid choice: 'bogus'"),
    (["extract", "--budget", "many", "{page}"], EXIT_USAGE, "invalid int value"),
    (["extract", "--tier", "summary", "--budget", "5", "{page}"], EXIT_USAGE, "not allowed with"),
    (["extract", "--format", "yaml", "{page}"], EXIT_USAGE, "invalid choice"),
    (["extract", "--jobs", "-2", "{page}", "{page}"], EXIT_USAGE, "number of processes"),
    (["extract", "--nope", "{page}"], EXIT_USAGE, "unrecognized arguments"),
    (["frobnicate"], EXIT_USAGE, "invalid choice"),
    ([], EXIT_USAGE, "required"),
    (["extract"], EXIT_ERROR, "give a PATH"),
    (["extract", "{empty}"], EXIT_ERROR, "empty input"),
    (["segment", "{empty}"], EXIT_ERROR, "empty input"),
    (["extract", "{missing}"], EXIT_ERROR, "no such file"),
    (["extract", "{dir}"], EXIT_ERROR, "is a directory"),
    (["extract", "{binary}"], EXIT_ERROR, "binary"),
    (["extract", "{bom}"], EXIT_ERROR, "byte-order mark"),
    (["extract", "{cut}"], EXIT_ERROR, "not a readable gzip file"),
    (["extract", "--budget", "-4", "{page}"], EXIT_ERROR, "budget must be >= 0"),
    (["extract", "--language", "klingon", "{page}"], EXIT_ERROR, "supported_languages"),
    (["extract", "--many", "--budget", "30", "{page}", "{page}"], EXIT_ERROR, "citation_buffer"),
    (["extract", "--demo", "{page}"], EXIT_ERROR, "not both"),
    (["bench", "nope"], 2, "unknown subcommand"),
    (["bench", "retention"], 2, "required"),
]


@pytest.mark.parametrize(("argv", "code", "fragment"), BAD, ids=[" ".join(a[0]) or "(none)" for a in BAD])
def test_bad_invocation_is_one_line(argv: list[str], code: int, fragment: str, files: dict[str, str],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    args = [a.format(**files, missing=files["dir"] + "/missing.html") for a in argv]
    assert main(args) == code
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert fragment in lines[0] and "Traceback" not in err and "usage:" not in err
    assert lines[0].startswith("qatbe")


def test_empty_file_among_several_fails_that_file_only(files: dict[str, str],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", files["page"], files["empty"]]) == EXIT_ERROR
    out, err = capsys.readouterr()
    assert "crowns" in out and "empty input" in err


def _run(code: str, *argv: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300, check=False)


def test_bench_retention_without_matplotlib_writes_the_tables(tmp_path: Path) -> None:
    blocked = ("import sys; sys.modules['matplotlib'] = None\n"  # `import matplotlib` now raises ImportError
               "from qatbe.cli import main; raise SystemExit(main(sys.argv[1:]))")
    done = _run(blocked, "bench", "retention", str(SAMPLE / "sample"), "--budgets", "40", "--systems", "lead",
                "--out", str(tmp_path), "--no-progress")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "retention.md").is_file() and (tmp_path / "retention.jsonl").is_file()
    assert not (tmp_path / "retention.png").exists()
    assert "plot skipped: matplotlib is not installed" in done.stderr and "Traceback" not in done.stderr


def test_an_internal_error_is_one_line_too(monkeypatch: pytest.MonkeyPatch, files: dict[str, str],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    import qatbe.cli

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("something\nbroke")

    monkeypatch.setattr(qatbe.cli, "extractor_for", broken)
    assert main(["extract", files["page"]]) == EXIT_ERROR
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error (RuntimeError: something broke)" in err
