"""``qatbe bench extraction --leave-one-corpus-out`` and ``--ablate`` (qatbe.bench.loco): the splits, the choice of
the tuned point, the thresholds and rules set and restored, and runs on the dev corpora."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import qatbe
from qatbe.bench import loco
from qatbe.bench.extraction import tools
from qatbe.cli import main
from qatbe.segmentation import html_decide


def test_every_corpus_is_left_out_once_and_never_tuned_on() -> None:
    names = ("a", "b", "c", "d")
    split = loco.splits(names)
    assert sorted(out for _, out in split) == sorted(names)
    for tuned_on, out in split:
        assert out not in tuned_on and sorted((*tuned_on, out)) == sorted(names)


def test_the_tuned_point_is_the_best_on_the_corpora_tuned_on() -> None:
    f1 = {(0.5,): {"a": 0.8, "b": 0.8, "c": 0.1}, (0.4,): {"a": 0.9, "b": 0.9, "c": 0.0}, (0.6,): {"a": 0.9, "b": 0.7,
                                                                                               "c": 1.0}}
    assert loco.best_point(f1, ("a", "b")) == (0.4,)
    assert loco.best_point(f1, ("c",)) == (0.6,)
    assert loco.best_point(f1, ("a",)) == (0.4,)  # a tie goes to the earlier point
    with pytest.raises(ValueError):
        loco.best_point({}, ("a",))


def test_the_grid_starts_at_the_shipped_values_which_are_the_code_s() -> None:
    grid = loco.points()
    assert grid[0] == loco.shipped() and len(set(grid)) == len(grid) == 27
    for knob in loco.GRID:
        assert getattr(html_decide, knob.name) == knob.shipped and knob.shipped in knob.values


def test_a_point_is_applied_inside_the_block_and_undone_after_it() -> None:
    before = html_decide._LINKY
    with pytest.raises(RuntimeError), loco.applied((0.9, 0.1, 0.2)):
        assert (html_decide._LINKY, html_decide._MAIN_SHARE, html_decide._BOX_SHARE) == (0.9, 0.1, 0.2)
        raise RuntimeError
    assert html_decide._LINKY == before and html_decide._MAIN_SHARE == 0.4 and html_decide._BOX_SHARE == 0.75


def test_it_is_a_run_of_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "extraction", "--leave-one-corpus-out", "--folds", "3"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--leave-one-corpus-out" in err[0]


def test_a_run_on_the_dev_corpora(corpora: Path) -> None:
    grid = (loco.Knob("qatbe.segmentation.html_decide", "_LINKY", (0.5, 0.05), 0.5, "link share"),)
    report = loco.run(tools(), corpora, loco.CORPORA[:2], 4, None, 1, grid)
    assert [row["left_out"] for row in report["held_out"]] == list(loco.CORPORA[:2])
    for row in report["held_out"]:
        assert 0.0 <= row["f1_shipped"] <= 1.0 and 0.0 <= row["f1_trafilatura"] <= 1.0
    assert len(report["alone"]) == 1 and set(report["alone"][0]["delta"]) == set(loco.CORPORA[:2])
    assert "| left out (pages) |" in report["markdown"]
    assert html_decide._LINKY == 0.5


def test_every_rule_names_constants_of_its_module() -> None:
    for rule in loco.RULES:
        module = importlib.import_module(rule.module)
        for name, _ in rule.off:
            assert hasattr(module, name), (rule.label, name)
    assert len({r.label for r in loco.RULES}) == len(loco.RULES)


def test_turning_a_rule_off_reaches_the_decision_and_is_undone() -> None:
    # A paragraph said twice: the "repeats" rule keeps it once, and with the rule off both stay.
    line = "The harbour reopened on Monday after three weeks of repairs to the northern quay wall."
    page = f"<html><body><article><h1>Harbour</h1><p>{line}</p><p>Ships queued outside.</p><p>{line}</p>" \
           "</article></body></html>"
    rule = next(r for r in loco.RULES if r.label == "repeats")
    on = qatbe.extract(page, None, tier="complete").text.count(line)
    with loco.patched([(rule.module, name, value) for name, value in rule.off]):
        off = qatbe.extract(page, None, tier="complete").text.count(line)
    assert (on, off) == (1, 2)
    assert qatbe.extract(page, None, tier="complete").text.count(line) == 1
    assert html_decide._REPEAT_MIN == 30


def test_ablate_is_a_run_of_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "extraction", "--ablate", "--leave-one-corpus-out"]) != 0
    assert main(["bench", "extraction", "--ablate", "--folds", "3"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("--ablate" in line for line in err)


def test_an_ablation_on_the_dev_corpora(corpora: Path) -> None:
    rules = [r for r in loco.RULES if r.label in ("repeats", "main box")]
    report = loco.ablate(tools(), corpora, loco.CORPORA[:2], 6, rules)
    assert [row["rule"] for row in report["rules"]] == ["repeats", "main box"]
    for row in report["rules"]:
        for name in loco.CORPORA[:2]:
            cell = row["corpora"][name]
            assert -1.0 <= cell["delta"] <= 1.0 and cell["better"] + cell["worse"] <= 6
    assert "| rule off |" in report["markdown"] and html_decide._MIN_PROSE == 300
