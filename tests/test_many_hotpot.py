"""On real multi-document data, one selection keeps the gold paragraphs more often than an equal split.

HotpotQA distractor questions (``../shared/corpora/hotpotqa-distractor``): ten Wikipedia lead paragraphs per
question, each its own document; the two gold paragraphs hold the supporting sentences. ``extract_many`` with a
budget B should keep every supporting sentence more often than ``extract`` on each paragraph with B/10. The full
measurement (all questions, several budgets) is ``benchmarks/many_split.py``; this is a small, fast slice.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import qatbe

_NON_WORD = re.compile(r"[\W_]+")
BUDGET = 500
QUESTIONS = 20


def norm(text: str) -> str:
    return " " + _NON_WORD.sub(" ", text.casefold()).strip() + " "


def all_evidence_kept(text: str, evidence: list[str]) -> bool:
    out = norm(text)
    return all(norm(e) in out for e in evidence)


@pytest.mark.corpora
def test_one_selection_beats_an_equal_split(corpora: Path) -> None:
    folder = corpora / "hotpotqa-distractor"
    with (folder / "documents.jsonl").open(encoding="utf-8") as f:
        contexts = {row["doc_id"]: row["context"] for row in map(json.loads, f)}
    with (folder / "queries.jsonl").open(encoding="utf-8") as f:
        questions = [json.loads(line) for _, line in zip(range(QUESTIONS), f)]
    many_hits = split_hits = 0
    for q in questions:
        docs = [qatbe.Document(f"## {title}\n\n{''.join(sents).strip()}", title=title)
                for title, sents in contexts[q["doc_id"]]]
        many = qatbe.extract_many(docs, q["query"], budget=BUDGET, citations=False)
        split = "\n\n".join(qatbe.extract(d.source, q["query"], budget=BUDGET // len(docs)).text for d in docs)
        assert many.total_tokens <= BUDGET and qatbe.tokens.chars_div4(split) <= BUDGET
        many_hits += all_evidence_kept(many.text, q["evidence"])
        split_hits += all_evidence_kept(split, q["evidence"])
    assert many_hits > split_hits
    assert many_hits >= QUESTIONS // 3  # one selection keeps the whole evidence for a good share of questions
