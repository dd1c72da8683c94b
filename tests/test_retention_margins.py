"""benchmarks/retention_margins.py: the bootstrap that says how sure each retention target is on other documents."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from scripts import benchmark_script


@pytest.fixture(scope="module")
def margins() -> ModuleType:
    return benchmark_script("retention_margins")


def test_the_margin_is_taken_over_the_best_baseline(margins: ModuleType) -> None:
    systems = {"qatbe": {"a": True, "b": True, "c": False, "d": True},
               "lead": {"a": True, "b": False, "c": False, "d": False},
               "bm25": {"a": True, "b": True, "c": False, "d": False}}
    assert margins.value(systems, "qatbe", ["a", "b", "c", "d"]) == 75.0
    assert margins.value(systems, "margin", ["a", "b", "c", "d"]) == 25.0  # 75 - bm25's 50
    assert margins.value(systems, "margin", ["c"]) == 0.0


def test_questions_are_drawn_with_their_document(margins: ModuleType) -> None:
    """Two documents: every question of one is kept, every question of the other lost. A draw takes whole
    documents, so its share is 0, 50 or 100 % -- never a mix that splits a document's questions."""
    kept = {"a1": True, "a2": True, "a3": True, "b1": False}
    by_doc = {"A": ["a1", "a2", "a3"], "B": ["b1"]}
    values = margins.bootstrap(by_doc, lambda qs: margins.percent(kept, qs), 300, random.Random(0))
    assert set(values) <= {0.0, 75.0, 100.0} and {0.0, 100.0} <= set(values)
    assert values == sorted(values)


def test_report_from_an_items_file(margins: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    rows = []
    for q, doc in (("q1", "d1"), ("q2", "d2"), ("q3", "d3")):
        for system, retained in (("qatbe", True), ("lead", q == "q1")):
            rows.append({"dataset": "toy", "budget": 200, "system": system, "item_id": q, "retained": retained,
                         "skip": None})
    rows.append({"dataset": "toy", "budget": 200, "system": "qatbe", "item_id": "yn", "retained": False,
                 "skip": "yes_no"})
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    items = [SimpleNamespace(id=q, document_id=d) for q, d in (("q1", "d1"), ("q2", "d2"), ("q3", "d3"))]
    monkeypatch.setattr(margins, "load", lambda _path: SimpleNamespace(items=items))
    assert margins.main([str(path), "--draws", "200", "--corpora", str(tmp_path)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("toy"))
    # 3 questions (the yes/no one skipped) on 3 documents; measured margin 100 - 33.3; the target (15 points) holds
    # unless a draw takes d2 and d3 never, i.e. three times d1: (1/3)^3 of the draws, about 4 %.
    fields = line.split()
    assert fields[1:6] == ["200", "3", "3", "margin", "66.7"]
    assert 0.85 <= float(fields[-1]) < 1.0
