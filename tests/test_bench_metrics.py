"""Benchmark metrics on hand-built cases: normalisation, answer retention, evidence recall, skips, summaries."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from qatbe.bench.loaders import QAItem
from qatbe.bench.metrics import contains, evidence_recall, normalize, score_item, summarize


def item(answers: tuple[str, ...] = ("Ada Lovelace",), evidence: tuple[str, ...] = (), kind: str = "span") -> QAItem:
    return QAItem("q", "d", "who?", answers, evidence, kind)  # type: ignore[arg-type]


def test_normalize_ignores_case_punctuation_and_whitespace() -> None:
    assert normalize("  The   U.S.-based\n“Shock”!  ") == "the u s based shock"
    assert normalize("| 106.3 FM | KVHT |") == normalize("106.3 FM\nKVHT")


def test_contains_matches_whole_words_only() -> None:
    assert contains(normalize("it took 10 years"), "10")
    assert not contains(normalize("it took 10 years"), "1")
    assert not contains(normalize("I know"), "no")
    assert contains(normalize("**Ada** Lovelace, 1843"), "ada lovelace")
    assert not contains(normalize("anything"), "!!!")  # an answer that normalises to nothing is never found


@given(st.text())
def test_normalize_is_idempotent(text: str) -> None:
    assert normalize(normalize(text)) == normalize(text)


words = st.text(alphabet=string.ascii_letters + string.digits, min_size=1, max_size=8)


@given(st.lists(words, min_size=1, max_size=4), st.lists(words, max_size=5), st.lists(words, max_size=5),
       st.sampled_from([" ", "\n", " | ", ", ", " - "]))
def test_an_answer_present_verbatim_is_retained(answer: list[str], before: list[str], after: list[str],
                                                glue: str) -> None:
    text = glue.join([*before, " ".join(answer).upper(), *after])
    assert score_item(item((" ".join(answer),)), text, 10**6, 0.0).retained is True


def test_skips_are_counted_by_reason() -> None:
    scores = [
        score_item(item(("yes",), kind="yes_no"), "yes", 100, 0.0),
        score_item(item((), kind="none"), "", 100, 0.0),
        score_item(item(("Ada Lovelace",)), "by Ada Lovelace.", 100, 0.0),
        score_item(item(("Ada Lovelace",)), "by Charles Babbage.", 100, 0.0),
    ]
    assert [s.retained for s in scores] == [None, None, True, False]
    summary = summarize(scores)
    assert summary.questions == 4 and summary.answerable == 2 and summary.retained == 1
    assert summary.answer_retention == 0.5
    assert dict(summary.skipped) == {"unanswerable": 1, "yes_no": 1}


def test_evidence_recall_is_clipped_word_recall() -> None:
    # Evidence "the cat sat": two of its three words are in the output.
    recall, kept = evidence_recall(normalize("a cat sat down"), ["The cat sat"]) or (None, None)
    assert recall is not None and abs(recall - 2 / 3) < 1e-12 and kept == 0.0
    # Repeated evidence words count only as often as the output has them: "the the cat" vs "the cat" → 2/3.
    recall, _ = evidence_recall(normalize("the cat"), ["the the cat"]) or (None, None)
    assert recall is not None and abs(recall - 2 / 3) < 1e-12
    # Two units, one kept whole, one missing: mean recall 1/2, half the units kept.
    assert evidence_recall(normalize("x. Alpha beta! y"), ["alpha beta", "gamma"]) == (0.5, 0.5)
    assert evidence_recall("anything", []) is None
    assert evidence_recall("anything", ["", "..."]) is None


def test_tokens_over_budget_errors_and_time() -> None:
    out = "x" * 41  # chars_div4 → 11 tokens
    ok = score_item(item(), out, 11, 0.002)
    over = score_item(item(), out, 10, 0.004)
    failed = score_item(item(), None, 10, 0.006, error="ValueError: boom")
    assert (ok.tokens, ok.over_budget, over.over_budget) == (11, False, True)
    assert failed.retained is False and failed.tokens == 0 and failed.error == "ValueError: boom"
    summary = summarize([ok, over, failed])
    assert summary.over_budget == 1 and summary.errors == 1 and summary.first_error == "ValueError: boom"
    assert summary.tokens_max == 11 and abs(summary.tokens_mean - 22 / 3) < 1e-12
    assert abs(summary.ms_median - 4.0) < 1e-9 and abs(summary.ms_p95 - 6.0) < 1e-9
    assert abs(summary.ms_mean - 4.0) < 1e-9


def test_empty_summary() -> None:
    summary = summarize([])
    assert summary.answer_retention is None and summary.evidence_recall is None and summary.questions == 0
