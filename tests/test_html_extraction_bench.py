"""The extraction benchmark's metrics and command, on tiny hand-made data (the real corpora are not needed)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from qatbe.bench import extraction as ex
from qatbe.bench.args import UsageError


def test_shingle_scores_follow_the_benchmark_definition() -> None:
    truth = "one two three four five"
    assert ex.shingle_scores(truth, truth) == (1.0, 1.0)
    precision, recall = ex.shingle_scores(truth, truth + " six seven eight nine")
    assert recall == 1.0 and precision == pytest.approx(2 / 6)
    assert ex.shingle_scores(truth, "") == (0.0, 0.0)


def test_word_f1_is_a_bag_of_words_overlap() -> None:
    precision, recall, f1 = ex.word_f1("The cat sat", "the cat the dog")
    assert (precision, recall) == (pytest.approx(2 / 4), pytest.approx(2 / 3))
    assert f1 == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert ex.word_f1("a b", "c d") == (0.0, 0.0, 0.0)


def test_snippet_scores_count_found_and_leaked() -> None:
    page = ex.Page("trafilatura-eval", "x", b"", with_=("kept   text", "lost"), without=("menu",))
    score = ex.score_page(page, "qatbe", "kept text and menu", 0.0)
    assert score.counts == {"tp": 1, "fn": 1, "fp": 1, "tn": 0}
    summary = ex.summarize([score])
    assert summary["precision"] == 0.5 and summary["recall"] == 0.5


def test_answer_survival_needs_every_item() -> None:
    page = ex.Page("wikitablequestions", "p", b"", answers=(("Paris", "Lyon"), ("Rome",)))
    score = ex.score_page(page, "qatbe", "paris  and rome", 0.0)
    assert score.counts == {"kept": 1, "total": 2}


def _tiny_corpora(root: Path) -> None:
    aeb = root / "scrapinghub-aeb"
    (aeb / "html").mkdir(parents=True)
    body = "The bridge reopened on Monday after eighteen months of repairs to its deck and piers."
    html = f"<html><body><nav><a href='/'>Home</a></nav><article><p>{body}</p></article></body></html>"
    (aeb / "html" / "p1.html.gz").write_bytes(gzip.compress(html.encode()))
    (aeb / "ground-truth.json").write_text(json.dumps({"p1": {"articleBody": body, "url": "u"}}))


def test_command_prints_a_table_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _tiny_corpora(tmp_path)
    out = tmp_path / "out.json"
    code = ex.main(["--datasets", "scrapinghub-aeb", "--systems", "qatbe", "--corpora", str(tmp_path),
                    "--json", str(out), "--worst", "1"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "### scrapinghub-aeb" in printed and "| qatbe | 1 | 1.000 |" in printed
    report = json.loads(out.read_text())
    assert report["datasets"]["scrapinghub-aeb"]["summary"]["qatbe"]["f1"] == 1.0


def test_command_rejects_unknown_names(tmp_path: Path) -> None:
    """Unknown names are usage errors while the options are parsed (`qatbe bench` prints them as one line); a
    missing corpora folder is found later and is exit code 2."""
    with pytest.raises(UsageError, match="unknown dataset 'nope'"):
        ex.main(["--datasets", "nope", "--corpora", str(tmp_path)])
    with pytest.raises(UsageError, match="unknown system 'nope'"):
        ex.main(["--systems", "qatbe,nope", "--corpora", str(tmp_path)])
    assert ex.main(["--corpora", str(tmp_path / "missing")]) == 2


def test_segment_speed_reports_ratios(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _tiny_corpora(tmp_path)
    assert ex.main(["--datasets", "scrapinghub-aeb", "--corpora", str(tmp_path), "--segment-speed"]) == 0
    line = capsys.readouterr().out
    assert line.startswith("scrapinghub-aeb: pages=1") and "segment_over_parse_median=" in line


def _tiny_readability(root: Path) -> None:
    folder = root / "readability-testpages"
    rows = []
    for name, fixture in (("news", False), ("unit", True)):
        (folder / name).mkdir(parents=True)
        text = f"The {name} page's article says what happened at the harbour on Friday evening."
        (folder / name / "source.html").write_text(
            f"<html><body><nav><a href='/'>Home</a> <a href='/x'>Sections</a></nav><article><p>{text}</p>"
            "</article></body></html>", encoding="utf-8")
        (folder / name / "expected.html").write_text(
            f'<div id="readability-page-1"><p>{text}</p><script>var x = "not text";</script></div>',
            encoding="utf-8")
        rows.append({"id": name, "source": f"{name}/source.html", "expected": f"{name}/expected.html",
                     "likely_synthetic_fixture": fixture})
    (folder / "index.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")


def test_readability_pages_are_typed_and_scored_against_the_expected_text(tmp_path: Path) -> None:
    _tiny_readability(tmp_path)
    pages = ex.load_readability(tmp_path / "readability-testpages")
    assert [(p.id, p.page_type) for p in pages] == [("news", "real"), ("unit", "fixture")]
    assert "harbour on Friday" in pages[0].truth and "not text" not in pages[0].truth
    score = ex.score_page(pages[0], "qatbe", "Home. " + pages[0].truth, 0.0)
    assert score.values["recall"] == 1.0 and score.values["precision"] < 1.0
    summary = ex.summarize([score, ex.score_page(pages[1], "qatbe", "", 0.0)])
    assert summary["f1"] == pytest.approx(score.values["f1"] / 2) and "survival" not in summary


def test_command_runs_the_readability_pages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _tiny_readability(tmp_path)
    assert ex.main(["--datasets", "readability-testpages", "--systems", "qatbe", "--corpora", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "### readability-testpages by page type" in printed and "| real · qatbe | 1 | 1.000 |" in printed
