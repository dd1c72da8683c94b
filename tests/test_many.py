"""extract_many: one selection across documents, cited, deduplicated, never over budget (seeds 000, 001)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import qatbe
from qatbe import ConfigError, Document, InputError

WORDS = ["passport", "fee", "renew", "photo", "post", "online", "apply", "travel", "weeks", "form", "the", "of",
         "ü", "数据", "3.11"]
word = st.sampled_from(WORDS)
sentence = st.lists(word, min_size=1, max_size=12).map(lambda ws: " ".join(ws).capitalize() + ".")
paragraph = st.lists(sentence, min_size=1, max_size=8).map(" ".join)
heading = st.tuples(st.integers(1, 3), st.lists(word, min_size=1, max_size=3)).map(
    lambda t: "#" * t[0] + " " + " ".join(t[1]))
table = st.lists(st.lists(word, min_size=2, max_size=2), min_size=1, max_size=8).map(
    lambda rows: "| A | B |\n|---|---|\n" + "\n".join(f"| {a} | {b} |" for a, b in rows))
code = st.lists(st.lists(word, min_size=0, max_size=5).map(" ".join), min_size=1, max_size=8).map(
    lambda lines: "```\n" + "\n".join(lines) + "\n```")
body = st.lists(st.one_of(heading, paragraph, table, code), min_size=0, max_size=8).map("\n\n".join)
document = st.one_of(
    body,
    st.builds(Document, body, id=st.one_of(st.none(), st.text(min_size=1, max_size=8)),
              url=st.one_of(st.none(), st.just("https://example.org/a b\nc")),
              title=st.one_of(st.none(), st.text(min_size=0, max_size=30)),
              metadata=st.one_of(st.none(), st.fixed_dictionaries({"date": st.sampled_from(
                  ["2024-01-02", "2023-05-06T10:00:00Z", "not a date", 1700000000])}))),
)
documents = st.lists(document, min_size=0, max_size=5)
query = st.one_of(st.none(), st.lists(word, min_size=0, max_size=4).map(" ".join))

ESTIMATORS: dict[str, Callable[[str], int]] = {
    "chars_div4": lambda s: (len(s) + 3) // 4,
    "words": lambda s: len(s.split()),
    "lumpy": lambda s: (len(s) + 2) // 3 + (7 if s else 0) + s.count("\n"),
}
common = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def spec(name: str) -> str | Callable[[str], int]:
    return name if name in ("chars_div4", "words") else ESTIMATORS[name]


@common
@given(documents, query, st.integers(0, 2500), st.integers(0, 300), st.sampled_from(sorted(ESTIMATORS)),
       st.booleans(), st.integers(0, 100), st.booleans(), st.sampled_from(["drop", "truncate_end", "truncate_middle"]),
       st.sampled_from(["relevance", "recency", "manual"]), st.one_of(st.none(), st.integers(0, 400)))
def test_output_never_exceeds_budget_less_reserve(docs: list[object], q: str | None, budget: int, reserve: int,
                                                  est: str, citations: bool, buffer: int, note: bool,
                                                  truncation: str, ranking: str, cap: int | None) -> None:
    kwargs = {"budget": budget, "reserve_tokens": reserve, "estimator": spec(est), "citations": citations,
              "citation_buffer": buffer, "partial_note": note, "truncation": truncation, "ranking": ranking,
              "max_document_tokens": cap}
    if (reserve and reserve >= budget) or (citations and budget - reserve <= buffer):
        with pytest.raises(ConfigError):  # nothing left for the text: said, not an empty result
            qatbe.extract_many(docs, q, **kwargs)  # type: ignore[arg-type]
        return
    r = qatbe.extract_many(docs, q, **kwargs)  # type: ignore[arg-type]
    measured = ESTIMATORS[est](r.text) if r.text else 0
    assert measured == r.total_tokens <= max(budget - reserve, 0)
    if est != "lumpy" and citations:
        assert r.total_tokens <= max(budget - reserve - buffer, 0)  # the safety buffer is kept free as well
    if cap is not None and est != "lumpy":
        assert all(t <= cap for t in r.tokens_per_source.values())
    again = qatbe.extract_many(docs, q, **kwargs)  # type: ignore[arg-type]
    assert again.text == r.text and again.passages == r.passages


@common
@given(documents, query, st.integers(65, 2500), st.sampled_from(sorted(ESTIMATORS)), st.booleans())
def test_dropped_and_duplicate_accounting_is_exact(docs: list[object], q: str | None, budget: int, est: str,
                                                  dedupe: bool) -> None:
    r = qatbe.extract_many(docs, q, budget=budget, estimator=spec(est), dedupe=dedupe)
    every = []
    for k, doc in enumerate(docs):
        source = doc.source if isinstance(doc, Document) else doc
        every += [(k, s.index, s.tokens) for s in qatbe.segment(source, estimator=spec(est), budget=budget)
                  if s.kind is not qatbe.SegmentKind.NAVIGATION]
    kept = {(p.document, p.segment.index) for p in r.passages}
    assert len(kept) == len(r.passages)
    assert r.dropped_count + r.duplicate_count + len(kept) == len(every)
    assert r.dropped_tokens + r.duplicate_tokens + sum(p.segment.tokens for p in r.passages) == sum(
        t for _, _, t in every)
    if not dedupe:
        assert r.duplicate_count == 0
    assert sum(r.tokens_per_source.values()) == sum(p.segment.tokens for p in r.passages)
    assert sum(s.dropped_count for s in r.sources) == r.dropped_count
    cited = sorted({p.citation for p in r.passages})
    assert cited == list(range(1, len(cited) + 1))


RELEVANT = "# Passport renewal\n\n" + "\n\n".join(
    f"To renew a passport (case {i}) you pay the renewal fee online and post the old passport." for i in range(12))
OFF_TOPIC = ["# Cooking\n\nBoil the pasta for ten minutes and add salt.\n\nServe with cheese.",
             "# Gardening\n\nWater tomatoes in the morning.\n\nPrune the roses in spring.",
             "# Astronomy\n\nJupiter has many moons.\n\nSaturn has rings of ice.",
             "# Music\n\nA fugue repeats its subject in several voices."]


def test_budget_flows_to_the_relevant_document_not_an_equal_split() -> None:
    r = qatbe.extract_many([*OFF_TOPIC[:2], RELEVANT, *OFF_TOPIC[2:]], "renew passport fee", budget=600,
                           citation_buffer=0)
    per = r.tokens_per_source
    assert per[2] > 600 // 5 and per[2] == max(per.values())
    assert r.passages[0].document == 2 and r.passages[0].citation == 1
    assert r.text.startswith("[1] Passport renewal")


def test_citations_and_sources_list() -> None:
    docs = [Document(RELEVANT, url="https://example.org/renew", title="Renewing"), Document(OFF_TOPIC[0], id="c1")]
    r = qatbe.extract_many(docs, "renew passport", budget=2000)
    assert "[1] Renewing\n\n" in r.text and r.text.rstrip().endswith("[1] Renewing <https://example.org/renew>")
    assert "Sources:\n" in r.text and r.citation_tokens > 0
    plain = qatbe.extract_many(docs, "renew passport", budget=2000, citations=False)
    assert "Sources:" not in plain.text and "[1]" not in plain.text and plain.citation_tokens == 0


def test_near_duplicates_across_documents_cost_nothing() -> None:
    copy = RELEVANT.replace("post the old passport", "post the old passport!")
    r = qatbe.extract_many([RELEVANT, copy], "renew passport", budget=5000)
    assert r.duplicate_count >= 12 and r.sources[1].duplicate_count >= 12
    assert all(p.document == 0 or p.segment.kind is qatbe.SegmentKind.HEADING for p in r.passages)
    kept = qatbe.extract_many([RELEVANT, copy], "renew passport", budget=5000, dedupe=False)
    assert kept.duplicate_count == 0 and kept.tokens_per_source[1] > 0


def test_ranking_recency_and_manual() -> None:
    old = Document("Passport renewal fee is 60 crowns.", id="old", metadata={"date": "2019-03-01"})
    new = Document("Passport renewal fee is 75 crowns.", id="new", metadata={"date": "2024-03-01"})
    undated = Document("Passport renewal fee is 90 crowns.", id="undated")
    small = {"budget": 12, "citations": False, "fill": "none"}  # room for exactly one of the three
    recent = qatbe.extract_many([old, undated, new], "passport renewal fee", ranking="recency", **small).text
    manual = qatbe.extract_many([old, undated, new], "passport renewal fee", ranking="manual", **small).text
    assert recent == "Passport renewal fee is 75 crowns." and manual == "Passport renewal fee is 60 crowns."
    both = qatbe.extract_many([old, undated, new], "passport renewal fee", ranking="recency", budget=400)
    assert [s.label for s in sorted(both.sources, key=lambda s: s.citation)] == ["new", "old", "undated"]
    assert both.sources[2].date == "2024-03-01"


def test_recency_reads_the_page_date_when_metadata_has_none() -> None:
    page = "<html><head><meta property='article:published_time' content='2025-01-01'></head><body>" \
           "<p>Passport renewal fee is 80 crowns.</p></body></html>"
    old = Document("Passport renewal fee is 60 crowns.", metadata={"date": "2019-03-01"})
    r = qatbe.extract_many([old, page], "passport renewal fee", ranking="recency", budget=12, citations=False,
                           fill="none")
    if r.sources[1].date is None:
        pytest.skip("the HTML segmenter in this tree does not read the page date yet")
    assert r.text == "Passport renewal fee is 80 crowns."


def test_per_document_cap() -> None:
    r = qatbe.extract_many([RELEVANT, OFF_TOPIC[0]], "renew passport", budget=3000, max_document_tokens=60)
    assert 0 < r.tokens_per_source[0] <= 60


def test_partial_note_is_one_line_and_only_when_partial() -> None:
    r = qatbe.extract_many([RELEVANT, *OFF_TOPIC], "renew passport", budget=300, partial_note=True)
    assert r.note is not None and r.text.startswith(r.note) and "\n" not in r.note and "partial" in r.note
    whole = qatbe.extract_many([OFF_TOPIC[0]], "pasta", budget=3000, partial_note=True)
    assert whole.note is None and not whole.was_truncated


def test_no_query_keeps_documents_in_reading_order() -> None:
    r = qatbe.extract_many(OFF_TOPIC, None, budget=5000, citations=False)
    assert r.text == "\n\n".join(OFF_TOPIC) and r.dropped_count == 0


def test_query_object_and_more() -> None:
    q = qatbe.Query("renew passport fee", agent="a", tags=["x"])
    r = qatbe.extract_many([RELEVANT, *OFF_TOPIC], q, budget=200)
    assert r.query is q  # the full Query is kept (its text: r.to_dict()["query"])
    assert r.text == qatbe.extract_many([RELEVANT, *OFF_TOPIC], "renew passport fee", budget=200).text
    nxt = r.more(100)
    assert nxt and sum(p.segment.tokens for p in nxt) <= 100 + 200 - r.total_tokens
    assert not {(p.document, p.segment.index) for p in nxt} & {(p.document, p.segment.index) for p in r.passages}


def test_bad_input_is_typed() -> None:
    with pytest.raises(InputError):
        qatbe.extract_many("just one string", "q")  # type: ignore[arg-type]
    with pytest.raises(InputError):
        qatbe.extract_many([RELEVANT, 42], "q")  # type: ignore[list-item]
    with pytest.raises(InputError):
        Document(RELEVANT, url=5)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"documents\[1\]"):
        qatbe.extract_many([RELEVANT, b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8], "q", strict=True)
    with pytest.raises(ConfigError):
        qatbe.extract_many([RELEVANT], "q", nested=True)
    with pytest.raises(ConfigError):
        qatbe.extract_many([RELEVANT], "q", max_document_tokens=-1)
    assert qatbe.extract_many([], "q").text == ""


def test_nothing_that_matched_fits_falls_back_to_reading_order() -> None:
    huge = "# Travel papers\n\n" + " ".join(["passport renewal"] * 400)
    r = qatbe.extract_many([huge, OFF_TOPIC[0]], "passport", budget=60, citations=False, max_segment_tokens=160)
    assert not r.no_match and "Boil the pasta" in r.text and r.total_tokens <= 60


def test_same_output_in_processes_with_different_hash_seeds() -> None:
    import os
    import subprocess
    import sys

    script = ("import qatbe, sys; d = sys.argv[1:]; "
              "r = qatbe.extract_many(d + [x.upper() for x in d] + d, 'renew passport', budget=400); "
              "print(r.text, [(p.document, p.segment.index) for p in r.passages], r.duplicate_count, r.sources)")
    outs = set()
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run([sys.executable, "-c", script, RELEVANT, *OFF_TOPIC], env=env, capture_output=True,
                              text=True, check=True, timeout=120)
        outs.add(done.stdout)
    assert len(outs) == 1 and "duplicate_count=" in outs.pop()


def test_extractor_reuses_its_settings_for_many() -> None:
    ex = qatbe.Extractor(budget=300, citations=False, reserve_tokens=20)
    r = ex.extract_many([RELEVANT, *OFF_TOPIC], "renew passport")
    assert r.budget == 300 and r.reserve_tokens == 20 and "Sources:" not in r.text
    assert r.text == qatbe.extract_many([RELEVANT, *OFF_TOPIC], "renew passport", budget=300, citations=False,
                                        reserve_tokens=20).text


def test_to_json_is_ready_for_a_log() -> None:
    import json

    r = qatbe.extract_many([Document(RELEVANT, url="https://example.org/r"), OFF_TOPIC[0]], "renew", budget=300,
                           partial_note=True)
    data = json.loads(r.to_json())
    assert data["text"] == r.text and data["dropped_count"] == r.dropped_count
    assert [s["tokens"] for s in data["sources"]] == [r.tokens_per_source[0], r.tokens_per_source[1]]
    assert data["passages"][0]["citation"] == 1 and data["sources"][0]["url"] == "https://example.org/r"


def test_a_wordless_segment_fills_only_once_all_else_is_in() -> None:
    """As in extract: "* * *" next to the match does not take the room the next sentence needs, and comes in
    when everything else is in."""
    doc = qatbe.Document("The fee is five crowns.\n\n* * *\n\nMaps of the town are sold here.\n\n"
                         "More words about other things entirely, at length.", id="d")

    def texts(budget: int) -> list[str]:
        return [p.segment.text for p in qatbe.extract_many([doc], "fee", budget=budget, format="text",
                                                           citation_buffer=0).passages]

    assert texts(24) == ["The fee is five crowns.", "Maps of the town are sold here."]
    assert "* * *" in texts(400)
