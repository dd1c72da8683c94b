"""benchmarks/retention_sensitivity.py: which baselines and targets it compares each knob's run with."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from scripts import benchmark_script


@pytest.fixture(scope="module")
def sensitivity() -> ModuleType:
    return benchmark_script("retention_sensitivity", beside=True)  # the script imports retention_quick beside it


_TABLE = """header line

answer retention, % of answerable questions (any gold answer in the output)
| dataset             | system           |  200 | 1000 |
|---------------------|------------------|-----:|-----:|
| squad11-dev         | qatbe            | 91.8 | 97.7 |
| squad11-dev         | lead             |  9.2 | 28.2 |
| squad11-dev         | bm25             | 61.0 | 97.4 |
| conditionalqa-dev   | qatbe            | 77.5 | 98.6 |
| conditionalqa-dev   | bm25             | 47.9 | 74.6 |
| conditionalqa-dev   | textnodes        | 62.0 | 88.7 |

evidence recall, % (share of each gold evidence unit's words in the output)
| dataset             | system           |  200 | 1000 |
|---------------------|------------------|-----:|-----:|
| squad11-dev         | lead             | 99.0 | 99.0 |
"""


def test_the_best_baseline_is_the_best_other_system_of_the_first_table(sensitivity: ModuleType,
                                                                       tmp_path: Path) -> None:
    path = tmp_path / "retention.md"
    path.write_text(_TABLE, encoding="utf-8")
    # qatbe's own rows and the evidence table's 99.0 are not baselines.
    assert sensitivity.best_baselines(path) == {"squad11-dev": 61.0, "conditionalqa-dev": 62.0}


def test_targets_held_counts_each_budgets_threshold(sensitivity: ModuleType) -> None:
    baselines = {"squad11-dev": 60.0, "conditionalqa-dev": 62.0, "hotpotqa-distractor": 63.6,
                 "wikitablequestions": 43.4}
    results = {"squad": {200: 75.0, 1000: 97.0},    # both held, each at its threshold exactly
               "cqa": {200: 76.9, 1000: 98.0},      # 200 missed: under 62 + 15
               "hotpot": {200: 90.0, 1000: 96.9},   # 1000 missed: under 97
               "wtq": {200: 58.4, 1000: 90.0}}      # both held: wikitablequestions' 1,000 target is 90
    assert sensitivity.targets_held(results, baselines) == 6
