"""``qatbe bench`` in-process: exit codes, one-line errors, dispatch to the subcommand modules."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from qatbe.bench.cli import main

SAMPLE = Path(__file__).resolve().parents[1] / "corpora"


def one_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    return lines[0]


def test_help_and_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "retention" in capsys.readouterr().out
    assert main([]) == 2
    assert main(["retention", "--help"]) == 0
    assert "--budgets" in capsys.readouterr().out


def test_unknown_subcommand_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bogus"]) == 2
    assert "unknown subcommand 'bogus'" in one_line(capsys.readouterr().err)


def test_retention_on_the_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["retention", str(SAMPLE / "sample"), str(SAMPLE / "sample-plain.jsonl"), "--budgets", "40,400",
                 "--systems", "lead,random:seed=1", "--out", str(tmp_path), "--no-progress", "--no-plot"])
    assert code == 0
    out = capsys.readouterr().out
    assert "lead" in out and "random:seed=1" in out
    rows = [json.loads(line) for line in (tmp_path / "retention.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {(r["dataset"], r["system"], r["budget"]) for r in rows} == {
        (d, s, b) for d in ("sample", "sample-plain") for s in ("lead", "random:seed=1") for b in (40, 400)
    }
    assert all(r["over_budget"] == 0 and r["errors"] == 0 for r in rows)
    # Both files hold the same questions, so a deterministic system scores the same on both.
    lead = {(r["dataset"], r["budget"]): r["answer_retention"] for r in rows if r["system"] == "lead"}
    assert lead[("sample", 40)] == lead[("sample-plain", 40)]


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["retention", "x", "--budgets", "10,ten"], "budget 'ten' is not an integer"),
        (["retention", "x", "--budgets", "-5"], "budget -5 is negative"),
        (["retention", "x", "--systems", "wat"], "unknown system 'wat'"),
        (["retention", "/no/such/dataset", "--systems", "lead"], "no such dataset"),
        (["retention", "x", "--limit", "0"], "not positive"),
        (["retention"], "required"),
    ],
)
def test_retention_errors_are_one_line(argv: list[str], fragment: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(argv)
    assert code != 0
    assert fragment in one_line(capsys.readouterr().err)


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["extraction", "--jobs", "0"], "--jobs: 0 is not positive"),
        (["extraction", "--limit", "x"], "'x' is not an integer"),
        (["extraction", "--worst", "-1"], "-1 is not a count"),
        (["extraction", "--systems", "qatbe,nobody"], "unknown system 'nobody'"),
        (["extraction", "--datasets", "nope"], "unknown dataset 'nope'"),
        (["metadata", "--fields", "title,colour"], "unknown field 'colour'"),
    ],
)
def test_extraction_and_metadata_errors_are_one_line(argv: list[str], fragment: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The options are checked before any page is read: one line on stderr, exit 2, no traceback."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in one_line(err) and "Traceback" not in err


def test_malformed_dataset_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mine.jsonl"
    path.write_text('{"document": "d", "query": "q", "answers": ["a"]}\n{"document": 1}\n', encoding="utf-8")
    assert main(["retention", str(path), "--systems", "lead", "--no-progress"]) == 1
    assert "mine.jsonl:2:" in one_line(capsys.readouterr().err)


def test_extraction_is_forwarded(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    fake = types.ModuleType("qatbe.bench.extraction")

    def fake_main(argv: list[str] | None = None) -> int:
        seen.append(list(argv or []))
        return 7

    fake.main = fake_main  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "qatbe.bench.extraction", fake)
    assert main(["extraction", "--limit", "3"]) == 7
    assert seen == [["--limit", "3"]]
