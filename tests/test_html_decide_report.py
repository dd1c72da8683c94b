"""The extraction report's one-line verdict on where qatbe trails trafilatura (issue #4: nowhere)."""

from __future__ import annotations

from qatbe.bench.extraction import trailing


def _report(ours: float, theirs: float, type_ours: float, type_theirs: float) -> dict[str, object]:
    return {"datasets": {
        "wcxb": {"summary": {"qatbe": {"f1": ours}, "trafilatura": {"f1": theirs}},
                 "by_type": {"forum/qatbe": {"f1": type_ours}, "forum/trafilatura": {"f1": type_theirs}}},
        "wikitablequestions": {"summary": {"qatbe": {"survival": 1.0}, "trafilatura": {"survival": 0.9}}},
    }}


def test_nothing_trails_when_every_score_is_at_or_above() -> None:
    assert trailing(_report(0.85, 0.81, 0.80, 0.80)) == []


def test_a_trailing_dataset_and_page_type_are_named_with_both_scores() -> None:
    assert trailing(_report(0.80, 0.81, 0.70, 0.78)) == ["wcxb f1 0.800 < 0.810", "wcxb/forum f1 0.700 < 0.780"]


def test_a_missing_peer_is_not_a_loss() -> None:
    assert trailing({"datasets": {"wcxb": {"summary": {"qatbe": {"f1": 0.1}}}}}) == []
