"""The metadata benchmark's matching rules and command, on a tiny hand-made wcxb (the real corpus is not needed)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from qatbe.bench import cli
from qatbe.bench import metadata as bm
from qatbe.bench.args import UsageError


@pytest.mark.parametrize(("gold", "predicted", "ok"), [
    ("2024-08-25", "2024-08-25", True),
    ("2024-08-25", "2024-08-25T23:59:00-05:00", True),  # the same calendar day, whatever the time
    ("2024-08-25", "2024-08-26", False),
    ("2024-08-25", "Aug 25, 2024", False),  # not ISO: Metadata.date promises ISO
    ("2003-11", "2003-11-01", False),  # a gold month is no day
    ("2024-08-25", None, False),
])
def test_date_is_the_same_calendar_day(gold: str, predicted: str | None, ok: bool) -> None:
    assert bm.matches("date", gold, predicted) is ok


@pytest.mark.parametrize(("gold", "predicted", "ok"), [
    ("Jane Doe", "jane  doe", True),
    ("Jane Doe", "By Jane Doe, Staff Writer", True),
    ("Jane Doe, John Roe", "Jane Doe", True),
    ("Dr. Vahid Osman", "Dr Vahid Osman", True),
    ("Jane Doe", "Janet Doerr", False),  # whole words only
    ("Al", "Al Smith", False),  # the shorter name is too short to count
    ("Jane Doe", "", False),
])
def test_author_is_name_containment(gold: str, predicted: str, ok: bool) -> None:
    assert bm.matches("author", gold, predicted) is ok


@pytest.mark.parametrize(("gold", "predicted", "ok"), [
    ("How to X", "How to X", True),
    ("How to X", "how to x!", True),
    ("Managing dependencies", "Managing dependencies - Go", True),  # gold is most of ours
    ("Models", "Models | Django documentation", False),  # gold is a small part of ours
    ("How to X", "X", False),
])
def test_title_is_equal_or_most_of_ours(gold: str, predicted: str, ok: bool) -> None:
    assert bm.matches("title", gold, predicted) is ok


def _corpus(root: Path) -> Path:
    wcxb = root / "wcxb"
    (wcxb / "html").mkdir(parents=True)
    (wcxb / "ground-truth").mkdir()
    pages = {
        "p1": (("<html><head><title>Bridge reopens | Daily</title><meta property='og:site_name' content='Daily'>"
               "<meta name='author' content='Jane Doe'>"
               "<meta property='article:published_time' content='2024-06-02T08:00:00Z'></head>"
               "<body><article><h1>Bridge reopens</h1><p>The bridge reopened on Monday.</p></article></body></html>"),
               {"title": "Bridge reopens", "author": "Jane Doe", "publish_date": "2024-06-02"}),
        "p2": ("<html><head><title>Shop</title></head><body><p>Buy things here today.</p></body></html>",
               {"title": "Our shop", "author": "", "publish_date": None}),
    }
    rows = []
    for pid, (html, gold) in pages.items():
        (wcxb / "html" / f"{pid}.html.gz").write_bytes(gzip.compress(html.encode()))
        (wcxb / "ground-truth" / f"{pid}.json").write_text(json.dumps({"ground_truth": gold}))
        rows.append({"id": pid, "page_type": "article", "url": f"https://example.org/{pid}",
                     "html": f"html/{pid}.html.gz", "ground_truth": f"ground-truth/{pid}.json"})
    (wcxb / "index.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return root


def test_command_scores_fields_and_lists_misses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.json"
    code = bm.main(["--corpora", str(_corpus(tmp_path)), "--systems", "qatbe", "--json", str(out), "--worst", "5"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "### wcxb metadata (2 pages)" in printed
    assert "qatbe title misses" in printed and "p2" in printed and "qatbe date: no misses" in printed
    report = json.loads(out.read_text())
    summary = report["summary"]["qatbe"]
    assert summary["title"] == {"gold": 2, "correct": 1, "accuracy": 0.5, "no_gold": 0, "given_without_gold": 0}
    assert summary["author"]["accuracy"] == 1.0 and summary["author"]["no_gold"] == 1
    assert summary["date"]["correct"] == 1
    assert report["values"]["qatbe"]["p1"]["date"] == "2024-06-02T08:00:00+00:00"
    assert report["gold"]["p2"] == {"title": "Our shop", "author": None, "date": None}


def test_missing_trafilatura_is_skipped_with_a_note(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bm, "trafilatura_missing", lambda: "trafilatura is not installed")
    assert bm.main(["--corpora", str(_corpus(tmp_path)), "--worst", "0"]) == 0
    printed = capsys.readouterr().out
    assert "note: trafilatura is not installed" in printed and "trafilatura accuracy" not in printed


def test_bad_arguments_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert bm.main(["--corpora", str(tmp_path), "--systems", "qatbe"]) == 2  # no wcxb there
    assert "wcxb not found" in capsys.readouterr().err
    # Unknown names are usage errors, raised while the options are parsed (`qatbe bench` prints them as one line).
    with pytest.raises(UsageError, match="unknown system 'nobody'"):
        bm.main(["--corpora", str(_corpus(tmp_path)), "--systems", "nobody"])
    with pytest.raises(UsageError, match="unknown field 'colour'"):
        bm.main(["--corpora", str(tmp_path), "--fields", "colour"])


def test_registered_in_the_bench_cli() -> None:
    assert cli.SUBCOMMANDS["metadata"][0] == "qatbe.bench.metadata"
