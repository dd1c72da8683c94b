"""The quality gate's floor logic on tmp files: pin, pass, fail, raise, refuse to lower, corpus hash mismatch."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from qatbe.bench.cli import main
from qatbe.bench.gate import Measurement, hash_tree, run_gate
from qatbe.errors import DataError


def fake(values: dict[str, float], hashes: dict[str, str] | None = None,
         hard: list[str] | None = None) -> Any:
    def measure(corpora: Path, subset: Mapping[str, Any]) -> Measurement:
        return Measurement(dict(values), dict(hashes or {"set": "h1"}), list(hard or []))

    return measure


def gate(tmp_path: Path, values: dict[str, float], **kw: Any) -> tuple[int, list[str]]:
    lines: list[str] = []
    corpora = tmp_path / "corpora"
    corpora.mkdir(exist_ok=True)
    hashes = kw.pop("hashes", None)
    hard = kw.pop("hard", None)
    code = run_gate(tmp_path / "floors.json", corpora, measure_fn=fake(values, hashes, hard), out=lines.append,
                    **kw)
    return code, lines


def floors(tmp_path: Path) -> dict[str, float]:
    return dict(json.loads((tmp_path / "floors.json").read_text(encoding="utf-8"))["floors"])


def test_first_run_needs_raise_to_pin(tmp_path: Path) -> None:
    code, lines = gate(tmp_path, {"a": 0.5})
    assert code == 2 and not (tmp_path / "floors.json").exists()
    assert any("--raise" in line for line in lines)
    assert gate(tmp_path, {"a": 0.5}, raise_floors=True)[0] == 0
    assert floors(tmp_path) == {"a": 0.5}


def test_pass_fail_and_raise(tmp_path: Path) -> None:
    gate(tmp_path, {"a": 0.5, "b": 0.7}, raise_floors=True)
    assert gate(tmp_path, {"a": 0.5, "b": 0.7})[0] == 0
    # Better without --raise: passes, floors unchanged.
    assert gate(tmp_path, {"a": 0.6, "b": 0.7})[0] == 0
    assert floors(tmp_path) == {"a": 0.5, "b": 0.7}
    # Worse on one metric: regression, exit 1, floors unchanged.
    code, lines = gate(tmp_path, {"a": 0.6, "b": 0.69})
    assert code == 1 and any(line.startswith("FAIL b") for line in lines)
    assert floors(tmp_path) == {"a": 0.5, "b": 0.7}
    # --raise moves floors up only, and never while something regressed.
    assert gate(tmp_path, {"a": 0.6, "b": 0.69}, raise_floors=True)[0] == 1
    assert floors(tmp_path) == {"a": 0.5, "b": 0.7}
    assert gate(tmp_path, {"a": 0.6, "b": 0.7}, raise_floors=True)[0] == 0
    assert floors(tmp_path) == {"a": 0.6, "b": 0.7}


def test_lowering_needs_allow_lower(tmp_path: Path) -> None:
    gate(tmp_path, {"a": 0.5}, raise_floors=True)
    assert gate(tmp_path, {"a": 0.4}, raise_floors=True)[0] == 1
    assert floors(tmp_path) == {"a": 0.5}
    code, lines = gate(tmp_path, {"a": 0.4}, allow_lower=True)
    assert code == 0 and any("lowered" in line for line in lines)
    assert floors(tmp_path) == {"a": 0.4}


def test_corpus_hash_mismatch_refuses_to_compare(tmp_path: Path) -> None:
    gate(tmp_path, {"a": 0.5}, raise_floors=True, hashes={"set": "h1"})
    code, lines = gate(tmp_path, {"a": 0.9}, raise_floors=True, hashes={"set": "h2"})
    assert code == 2 and any("corpus changed" in line and "set" in line for line in lines)
    assert floors(tmp_path) == {"a": 0.5}
    assert gate(tmp_path, {"a": 0.3}, allow_lower=True, hashes={"set": "h2"})[0] == 0
    data = json.loads((tmp_path / "floors.json").read_text(encoding="utf-8"))
    assert data["corpus_sha256"] == {"set": "h2"} and data["floors"] == {"a": 0.3}


def test_new_metrics_are_reported_then_pinned(tmp_path: Path) -> None:
    gate(tmp_path, {"a": 0.5}, raise_floors=True)
    code, lines = gate(tmp_path, {"a": 0.5, "b": 0.1})
    assert code == 0 and any(line.startswith("new  b") for line in lines) and floors(tmp_path) == {"a": 0.5}
    gate(tmp_path, {"a": 0.5, "b": 0.1}, raise_floors=True)
    assert floors(tmp_path) == {"a": 0.5, "b": 0.1}


def test_hard_failures_fail_whatever_the_floors(tmp_path: Path) -> None:
    gate(tmp_path, {"a": 0.5}, raise_floors=True)
    code, lines = gate(tmp_path, {"a": 0.9}, raise_floors=True, hard=["retention/x/200: 1 outputs over budget"])
    assert code == 1 and any("over budget" in line for line in lines)
    assert floors(tmp_path) == {"a": 0.5}


def test_absent_corpora_skip_with_exit_zero(tmp_path: Path) -> None:
    lines: list[str] = []
    code = run_gate(tmp_path / "floors.json", tmp_path / "nowhere", measure_fn=fake({"a": 1.0}), out=lines.append)
    assert code == 0 and "skipped" in lines[0] and "nowhere" in lines[0]


def test_cli_gate_absent_corpora_and_bad_floors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gate", "--corpora", str(tmp_path / "nowhere"), "--floors", str(tmp_path / "f.json")]) == 0
    assert "skipped" in capsys.readouterr().out
    (tmp_path / "corpora").mkdir()
    (tmp_path / "f.json").write_text('{"floors": {"a": "high"}}', encoding="utf-8")
    assert main(["gate", "--corpora", str(tmp_path / "corpora"), "--floors", str(tmp_path / "f.json")]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not a number" in err
    with pytest.raises(DataError):
        from qatbe.bench.gate import read_floors

        (tmp_path / "f.json").write_text("{", encoding="utf-8")
        read_floors(tmp_path / "f.json")


def test_hash_tree_sees_content_and_names(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x", encoding="utf-8")
    first = hash_tree(tmp_path)
    assert hash_tree(tmp_path) == first
    (tmp_path / "a.txt").write_text("y", encoding="utf-8")
    second = hash_tree(tmp_path)
    assert second != first
    (tmp_path / "a.txt").rename(tmp_path / "b.txt")
    assert hash_tree(tmp_path) != second
