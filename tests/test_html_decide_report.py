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


def test_the_snippet_checks_count_as_much_as_f1() -> None:
    report = {"datasets": {"wcxb": {
        "summary": {"qatbe": {"f1": 0.86, "with": 0.80, "without_absent": 0.95},
                    "trafilatura": {"f1": 0.81, "with": 0.67, "without_absent": 0.94}},
        "by_type": {"service/qatbe": {"f1": 0.87, "with": 0.75, "without_absent": 0.94},
                    "service/trafilatura": {"f1": 0.78, "with": 0.60, "without_absent": 0.96}}}}}
    assert trailing(report) == ["wcxb/service without_absent 0.940 < 0.960"]
