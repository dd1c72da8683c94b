"""Cross-validation folds (``qatbe.bench.folds``) and the harness's ``--folds K``."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qatbe.bench.cli import main
from qatbe.bench.folds import halves, over_folds

SAMPLE = Path(__file__).resolve().parents[1] / "corpora"


@given(st.lists(st.text(min_size=1, max_size=4), min_size=1, max_size=40, unique=True), st.integers(1, 6),
       st.integers(0, 1000))
def test_halves_are_seeded_halves_whatever_the_order(keys: list[str], k: int, seed: int) -> None:
    folds = halves(keys, k, seed)
    assert len(folds) == k
    assert all(len(f) == (len(keys) + 1) // 2 and f <= set(keys) for f in folds)
    assert folds == halves(list(reversed(keys)), k, seed)  # order read in does not matter


def test_folds_differ_and_seeds_differ() -> None:
    keys = [f"doc{i}" for i in range(30)]
    folds = halves(keys, 5, 0)
    assert len(set(folds)) == 5
    assert folds != halves(keys, 5, 1)
    with pytest.raises(ValueError):
        halves(keys, 0)


def test_over_folds_is_the_metric_of_each_fold() -> None:
    groups = {"a": [1.0, 1.0], "b": [0.0], "c": [0.0, 1.0]}
    folds = [frozenset({"a", "b"}), frozenset({"c"}), frozenset({"a"})]
    stats = over_folds(groups, lambda xs: sum(xs) / len(xs), folds)
    assert stats is not None
    values = [2 / 3, 0.5, 1.0]
    assert stats.folds == 3
    assert stats.mean == pytest.approx(statistics.fmean(values))
    assert stats.sd == pytest.approx(statistics.stdev(values))
    assert (stats.low, stats.high) == (0.5, 1.0)
    assert stats.cell() == f"{statistics.fmean(values) * 100:.1f} ± {statistics.stdev(values) * 100:.1f} (50.0)"
    assert over_folds(groups, lambda xs: None, folds) is None


def test_retention_folds_on_the_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["retention", str(SAMPLE / "sample"), "--budgets", "40,400", "--systems", "lead", "--folds", "4",
            "--out", str(tmp_path), "--no-progress", "--no-plot"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "over 4 random halves" in out
    rows = [json.loads(line) for line in (tmp_path / "retention-folds.jsonl").read_text().splitlines()]
    assert {(r["budget"], r["metric"]) for r in rows} >= {(40, "answer_retention"), (400, "answer_retention")}
    plain = {r["budget"]: r["answer_retention"]
             for r in map(json.loads, (tmp_path / "retention.jsonl").read_text().splitlines())}
    for row in rows:
        assert row["folds"] == 4 and row["low"] <= row["mean"] <= row["high"]
        if row["metric"] == "answer_retention" and plain[row["budget"]] in (0.0, 1.0):
            assert row["mean"] == plain[row["budget"]]  # every half of all-or-nothing is all-or-nothing
    # Same seed, same folds, same numbers.
    assert main([*argv[:-4], "--out", str(tmp_path / "again"), "--no-progress", "--no-plot"]) == 0
    assert (tmp_path / "again" / "retention-folds.jsonl").read_text() == \
        (tmp_path / "retention-folds.jsonl").read_text()


@pytest.mark.corpora
def test_extraction_folds_on_dev_pages(corpora: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from qatbe.bench.extraction import main as extraction_main

    out_json = tmp_path / "x.json"
    argv = ["--datasets", "scrapinghub-aeb,wcxb", "--systems", "qatbe", "--corpora", str(corpora), "--limit", "12",
            "--folds", "3", "--worst", "0", "--json", str(out_json)]
    assert extraction_main(argv) == 0
    out = capsys.readouterr().out
    assert "scrapinghub-aeb: f1 over 3 random halves" in out
    assert "wcxb: f1, with, without_absent over 3 random halves" in out  # every headline metric of the corpus
    datasets = json.loads(out_json.read_text())["datasets"]
    assert set(datasets["scrapinghub-aeb"]["folds"]["qatbe"]) == {"f1"}
    assert set(datasets["wcxb"]["folds"]["qatbe"]) == {"f1", "with", "without_absent"}
    for name, metrics in datasets.items():
        for metric, folds in metrics["folds"]["qatbe"].items():
            assert folds["folds"] == 3 and 0.0 <= folds["low"] <= folds["mean"] <= folds["high"] <= 1.0, (name, metric)
            assert folds["sd"] >= 0.0 and folds["seed"] == 0
