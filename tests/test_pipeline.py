"""End-to-end behaviour of extract() on small documents whose right answer the test can state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import qatbe
from qatbe import SegmentKind

DOC = """# Passport guide

Some general words about travel documents and the agency history that nobody asked for.

## Fees

The renewal fee is 92.50 crowns online and 103 crowns by post.

## Photos

Photos must be taken in the last month on a plain light background.

## History

The agency was founded long ago and moved offices several times since then.
"""


def test_relevant_section_is_kept_with_its_heading() -> None:
    r = qatbe.extract(DOC, "renewal fee", budget=30)
    assert "92.50 crowns" in r.text
    assert "## Fees" in r.text
    assert r.total_tokens <= 30
    kinds = [s.kind for s in r.segments]
    assert SegmentKind.HEADING in kinds and SegmentKind.PARAGRAPH in kinds
    fee = next(s for s in r.segments if "92.50" in s.text)
    assert fee.matched and fee.score > 0
    heading = next(s for s in r.segments if s.text == "Fees")
    assert not heading.matched or heading.score > 0


def test_output_is_in_document_order() -> None:
    r = qatbe.extract(DOC, "photos renewal fee agency", budget=1000)
    indexes = [s.index for s in r.segments]
    assert indexes == sorted(indexes)
    assert r.text.index("Fees") < r.text.index("Photos") < r.text.index("History")


def test_everything_fits_everything_is_kept() -> None:
    r = qatbe.extract(DOC, "photos", tier="complete")
    assert r.dropped_count == 0 and r.dropped_tokens == 0 and not r.was_truncated
    assert len(r.segments) == len(qatbe.segment(DOC))


def test_total_tokens_is_the_estimate_of_the_text() -> None:
    for budget in (0, 5, 17, 40, 400):
        r = qatbe.extract(DOC, "fee", budget=budget)
        assert r.total_tokens == (len(r.text) + 3) // 4 <= budget
        assert r.budget == budget and r.tier is None


def test_tier_sets_the_budget() -> None:
    for tier, budget in qatbe.TIERS.items():
        r = qatbe.extract(DOC, "fee", tier=tier)
        assert r.tier == tier and r.budget == budget
    assert qatbe.extract(DOC, "fee").tier == "summary"


def test_dropped_accounting_is_exact() -> None:
    r = qatbe.extract(DOC, "fee", budget=30)
    every = [s for s in qatbe.segment(DOC) if s.kind is not SegmentKind.NAVIGATION]
    kept = {s.index for s in r.segments}
    missing = [s for s in every if s.index not in kept]
    assert r.dropped_count == len(missing) > 0
    assert r.dropped_tokens == sum(s.tokens for s in missing)
    assert r.was_truncated


def test_no_match_is_reported_and_filler_is_marked() -> None:
    r = qatbe.extract(DOC, "zebra quantum", budget=40)
    assert r.no_match
    assert r.text.startswith("# Passport guide")  # main content in reading order
    assert r.segments and not any(s.matched for s in r.segments)
    empty = qatbe.extract(DOC, "zebra quantum", budget=40, fill="none")
    assert empty.no_match and empty.text == "" and empty.total_tokens == 0


def test_fill_none_spends_only_on_matches() -> None:
    r = qatbe.extract(DOC, "photos", budget=1000, fill="none", include_headings=False)
    assert [s.text for s in r.segments] == [
        "Photos",
        "Photos must be taken in the last month on a plain light background.",
    ]
    assert all(s.matched for s in r.segments)


def test_no_query_keeps_reading_order() -> None:
    r = qatbe.extract(DOC, None, budget=1000)
    assert not r.no_match and r.query is None
    assert r.text == "\n\n".join(s.markdown for s in qatbe.segment(DOC))


def test_stop_word_only_query_is_searched_as_its_words() -> None:
    """"to be or not to be" means its words: a query made only of stop words is searched as them (README), and
    when none of them occurs the result is no_match with the same text as no query at all."""
    r = qatbe.extract(DOC, "what is the", budget=1000)
    assert not r.no_match
    assert r.text == qatbe.extract(DOC, None, budget=1000).text  # everything fits either way
    small = qatbe.extract(DOC, "was since", budget=25, include_headings=False)
    matched = [s.text for s in small.segments if s.matched]
    assert matched and all("was" in t.split() or "since" in t.split() for t in matched)
    assert "moved offices several times since then" in small.text  # the one paragraph with both
    absent = qatbe.extract(DOC, "or not to", budget=25)  # none of these occurs in DOC
    assert absent.no_match and not any(s.matched for s in absent.segments)
    assert absent.text == qatbe.extract(DOC, None, budget=25).text


def test_plain_text_rendering() -> None:
    r = qatbe.extract(DOC, "fee", budget=1000, render="text")
    assert "## " not in r.text and "Fees" in r.text


def test_to_dict_is_json_ready() -> None:
    r = qatbe.extract(DOC, "fee", budget=60)
    data = json.loads(json.dumps(r.to_dict()))
    assert data["text"] == r.text and data["total_tokens"] == r.total_tokens
    assert data["segments"][0]["kind"] in {k.value for k in SegmentKind}
    assert data["backend"] == qatbe.BACKEND


def test_same_input_same_output() -> None:
    a = qatbe.extract(DOC, "fee photos", budget=50)
    b = qatbe.extract(DOC, "fee photos", budget=50)
    assert a.text == b.text and a.segments == b.segments


def test_type_weights_change_the_choice() -> None:
    doc = "Intro.\n\n```\nrenew --passport fee\n```\n\nThe passport renew fee is explained here in prose form.\n"
    code_first = qatbe.extract(doc, "renew passport fee", budget=12, fill="none", include_headings=False)
    prose_first = qatbe.extract(doc, "renew passport fee", budget=20, fill="none", include_headings=False,
                                weights={"code": 0.01})
    assert [s.kind for s in code_first.segments] == [SegmentKind.CODE]
    assert [s.kind for s in prose_first.segments] == [SegmentKind.PARAGRAPH]


def test_split_table_parts_render_with_one_header() -> None:
    rows = "\n".join(f"| item {i} | {i * 7} crowns |" for i in range(60))
    doc = f"| Item | Price |\n|---|---|\n{rows}\n"
    r = qatbe.extract(doc, None, budget=5000, max_segment_tokens=40)
    assert len(r.segments) > 1
    assert r.text.count("| Item | Price |") == 1
    assert r.text.count("| item ") == 60


def test_rows_far_apart_in_one_table_come_with_one_header_and_a_gap_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two matches far apart in a long table: rendered as one table, its header once and a row of ``…`` where
    rows are left out; the tokens the second header would have cost are planned again, so both rows fit a budget
    that two headed row groups would not."""
    head = "| Season | Team | Coach of the championship side | Home ground of the winning club |"
    rows = "\n".join(f"| {1900 + i} | Club {i} | Coach number {i} | Ground {i} |" for i in range(120))
    doc = f"{head}\n|---|---|---|---|\n{rows}\n"
    query = "Club 7 Club 110"
    budget = 80
    r = qatbe.extract(doc, query, budget=budget, max_segment_tokens=40)
    assert "| 1907 | Club 7 |" in r.text and "| 2010 | Club 110 |" in r.text
    assert r.text.count(head) == 1 and "| … | … | … | … |" in r.text
    assert r.total_tokens <= budget
    monkeypatch.setattr("qatbe.pipeline._SAVINGS_ROUNDS", 0)  # the plan alone: each row group pays the header
    without = qatbe.extract(doc, query, budget=budget, max_segment_tokens=40)
    assert ("| 1907 | Club 7 |" in without.text) != ("| 2010 | Club 110 |" in without.text)
    assert without.total_tokens < r.total_tokens <= budget


def test_a_gap_row_is_cheaper_than_the_header_it_replaces() -> None:
    from qatbe.render import render
    from qatbe.render.blocks import gap_row

    head = "| a | b |\n| --- | --- |"
    parts = [qatbe.Segment(SegmentKind.TABLE, f"a | b\n{k} | x", f"{head}\n| {k} | x |", k, k, group=1, part=k,
                           header=head) for k in (0, 1, 5)]
    text = render(parts)
    assert text == f"{head}\n| 0 | x |\n| 1 | x |\n{gap_row(head)}\n| 5 | x |" and gap_row(head) == "| … | … |"
    assert len(text) <= len("\n\n".join(p.markdown for p in parts))
    assert render(parts, "text").count("a | b") == 3  # plain text keeps each part as it is


def test_extractor_reuses_settings() -> None:
    ex = qatbe.Extractor(budget=40)
    assert ex.extract(DOC, "fee").text == qatbe.extract(DOC, "fee", budget=40).text
    assert ex.settings.token_budget == 40


def test_explicit_format_override() -> None:
    r = qatbe.extract("# not a heading here", None, format="text")
    assert r.format == "text" and r.segments[0].kind is SegmentKind.PARAGRAPH
    assert qatbe.extract("# a heading", None).segments[0].kind is SegmentKind.HEADING


@pytest.mark.parametrize("estimator", ["chars_div4", "words", "whitespace"])
def test_named_estimators_hold_the_budget(estimator: str) -> None:
    r = qatbe.extract(DOC, "fee photos", budget=25, estimator=estimator)
    measure = (lambda s: (len(s) + 3) // 4) if estimator == "chars_div4" else (lambda s: len(s.split()))
    assert measure(r.text) == r.total_tokens <= 25


def test_explain_accounts_for_every_segment() -> None:
    r = qatbe.extract(DOC, "renewal fee", budget=30)
    reports = r.explain()
    every = qatbe.segment(DOC)
    assert [x.index for x in reports] == [s.index for s in every]
    chosen = {s.index for s in r.segments}
    for rep in reports:
        assert (rep.index in chosen) == (not rep.status.startswith("dropped"))
    fee = next(x for x in reports if "92.50" in x.text)
    assert fee.status == "matched" and {t for t, _ in fee.terms} >= {"fee"}
    assert fee.weighted_score == pytest.approx(fee.raw_score * fee.type_weight)
    history = next(x for x in reports if x.text.startswith("The agency was founded"))
    assert history.status == "dropped: no query term" and not history.terms



@pytest.mark.parametrize("exponent", [0.0, 0.5, 1.0])
def test_explain_parts_add_up_and_density_is_the_selectors_key(exponent: float) -> None:
    demo = (Path(qatbe.__file__).parent / "data" / "demo.html").read_text(encoding="utf-8")
    r = qatbe.extract(demo, "how much does it cost to renew a passport online?", tier="key_facts",
                      cost_exponent=exponent)
    scored = [x for x in r.explain() if x.raw_score > 0]
    assert scored
    for rep in scored:
        assert sum(c for _, c in rep.terms) + sum(rep.bonuses.values()) == pytest.approx(rep.raw_score)
        assert rep.density == pytest.approx(rep.weighted_score / max(rep.tokens, 1) ** exponent)


def test_declared_page_language_is_used_for_stemming() -> None:
    html = ("<html lang='de'><body><main><p>Die Gebühren für Reisepässe steigen im April.</p>"
            "<p>Das Wetter war schön und die Kinder spielten draußen im Garten.</p></main></body></html>")
    r = qatbe.extract(html, "Reisepass Gebühr", budget=1000, fill="none")
    assert [s.text for s in r.segments] == ["Die Gebühren für Reisepässe steigen im April."]


def test_unit_size_follows_the_budget() -> None:
    para = " ".join(f"Sentence number {i} talks about the renewal fee in some detail." for i in range(9))
    assert 100 < (len(para) + 3) // 4 < 160
    small = qatbe.extract(para, "renewal fee", tier="key_facts")
    assert all(s.tokens <= 81 for s in small.segments) and small.total_tokens <= 200
    assert len(qatbe.segment(para, tier="key_facts")) > 1
    assert len(qatbe.segment(para, tier="summary")) == 1
    assert len(qatbe.segment(para, tier="key_facts", nested=True)) == 1
    assert len(qatbe.segment(para, tier="summary", max_segment_tokens=40)) > 1
    assert qatbe.Settings(budget=100).segment_tokens == 48
    assert qatbe.Settings(budget=40).segment_tokens == 40  # below 48, the budget itself: every unit can fit
    assert qatbe.Settings(budget=0).segment_tokens == 8
    # ... at sentence ends: a sentence is cut inside only above 48 tokens (or the explicit unit size).
    assert qatbe.Settings(budget=20).sentence_tokens == 48
    assert qatbe.Settings(budget=20, max_segment_tokens=12).sentence_tokens == 12
    sentence = "The renewal fee for an adult passport is paid online with a card before the appointment day."
    assert 16 < (len(sentence) + 3) // 4 < 48
    assert [s.text for s in qatbe.segment(sentence, budget=16)] == [sentence]
    assert len(qatbe.segment(sentence, budget=16, max_segment_tokens=12)) > 1
    assert qatbe.Settings(budget=200).segment_tokens == 80
    assert qatbe.Settings(tier="complete").segment_tokens == 160


@pytest.mark.parametrize("budget", [20, 30, 40])
def test_a_budget_under_a_paragraph_still_gets_the_sentence_that_answers(budget: int) -> None:
    """A 44-token paragraph cannot fit 20-40 tokens, but the 17-token sentence in it that answers the query can."""
    para = ("First block about passports and their renewal process. Second block talks about the fee of 92 crowns "
            "which is paid online. Third block describes delivery times of two weeks.")
    for source in (para, f"<html><body><div>{para.replace('. ', '.<br><br>')}</div></body></html>"):
        r = qatbe.extract(source, "what is the fee", budget=budget)
        assert "92 crowns" in r.text and r.total_tokens <= budget


def test_relative_floor_keeps_weak_matches_out_of_the_competition() -> None:
    strong = "The renewal fee for an adult passport is 92.50 crowns when you renew the passport online. " * 2
    weak = "Our office building has a passport photo booth in the lobby, next to the cafe and the lifts."
    doc = f"{strong}\n\n{weak}\n\nThe weather was mild all week and nobody complained about anything.\n"
    query = "passport renewal fee renew online"
    r = qatbe.extract(doc, query, budget=1000, fill="none")
    assert [s.text for s in r.segments] == [strong.strip()]
    assert next(x for x in r.explain() if x.text.startswith("Our office")).status == "dropped: below relevance floor"
    r0 = qatbe.extract(doc, query, budget=1000, fill="none", relevance_floor=0.0)
    assert [s.text for s in r0.segments] == [strong.strip(), weak]
    # With fill, the weak match may come in, but as filler: it did not win a place by relevance.
    filled = qatbe.extract(doc, query, budget=1000)
    assert [s.matched for s in filled.segments if s.text == weak] == [False]


PAGE_WITH_FURNITURE = """<html lang="en"><head><title>Passport fees</title></head><body>
<nav><a href="/">Home</a> <a href="/fees">Fees</a> <a href="/contact">Contact us</a></nav>
<main><h1>Passport fees</h1><p>The renewal fee is 92.50 crowns online and 103 crowns by post.</p>
<table><tr><th>Service</th><th>Fee</th></tr><tr><td>Renewal online</td><td>92.50</td></tr>
<tr><td>Renewal by post</td><td>103.00</td></tr></table>
<p>Photos must be taken in the last month on a plain light background.</p></main>
<footer>Copyright and cookies</footer></body></html>"""


def _same_result(a: qatbe.Result, b: qatbe.Result) -> None:
    da, db = a.to_dict(), b.to_dict()
    da.pop("evaluation_time_ms")
    db.pop("evaluation_time_ms")
    assert da == db
    assert [x.to_dict() for x in a.explain()] == [x.to_dict() for x in b.explain()]


@pytest.mark.parametrize("options", [{}, {"tier": "key_facts"}, {"budget": 40, "truncation": "truncate_end"},
                                     {"include_navigation": True}, {"nested": True}, {"render": "text"}])
@pytest.mark.parametrize("source", [DOC, PAGE_WITH_FURNITURE, PAGE_WITH_FURNITURE.encode("utf-8")])
def test_a_parsed_document_extracts_as_its_source_does(options: dict[str, object], source: str | bytes) -> None:
    """One page, many questions: ``Extractor.parse`` once, then ``extract`` the parsed document for each; the
    results are those of extracting the source (boilerplate included in the parse, left out by extract)."""
    ex = qatbe.Extractor(**options)  # type: ignore[arg-type]
    doc = ex.parse(source)
    for query in ("renewal fee by post", "photo background", None, "zebra"):
        _same_result(ex.extract(doc, query), ex.extract(source, query))
    _same_result(qatbe.extract(doc, "renewal fee", **options), ex.extract(source, "renewal fee"))  # type: ignore[arg-type]


def test_a_parsed_document_is_read_once_for_all_its_questions(monkeypatch: pytest.MonkeyPatch) -> None:
    """What scoring reads of a page whatever the question -- its tokens, its language guess -- is made on the
    first question and kept with the parsed document; boilerplate in or out are two readings, each kept."""
    from qatbe.score import bm25, languages

    calls = {"scan": 0, "guess": 0}
    scan, guess = bm25.kernel.scan, languages.detect_texts

    def counted_scan(texts: object) -> object:
        calls["scan"] += 1
        return scan(texts)

    def counted_guess(*args: object) -> object:
        calls["guess"] += 1
        return guess(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(bm25.kernel, "scan", counted_scan)
    monkeypatch.setattr(languages, "detect_texts", counted_guess)
    ex, with_nav = qatbe.Extractor(), qatbe.Extractor(include_navigation=True)
    doc = ex.parse(DOC)  # markdown without front matter: no declared language, so the scorer guesses
    for query in ("renewal fee", "photo background", "agency history"):
        ex.extract(doc, query)
    assert calls == {"scan": 1, "guess": 1}
    for query in ("renewal fee", "photo background"):
        _same_result(with_nav.extract(doc, query), with_nav.extract(DOC, query))
        _same_result(ex.extract(doc, query), ex.extract(DOC, query))
    assert len(doc._views) == 2


def test_a_parsed_documents_kept_reading_is_not_part_of_its_value() -> None:
    """The kept reading is left out of equality, pickling and copies made with other segments: a pickled
    document arrives without it and reads the page again, a replaced one does not reuse the old reading."""
    import dataclasses
    import pickle

    ex = qatbe.Extractor()
    doc = ex.parse(PAGE_WITH_FURNITURE)
    first = ex.extract(doc, "renewal fee")
    assert doc._views and doc == ex.parse(PAGE_WITH_FURNITURE)
    back = pickle.loads(pickle.dumps(doc))
    assert back == doc and not back._views
    _same_result(ex.extract(back, "renewal fee"), first)
    fewer = dataclasses.replace(doc, segments=doc.segments[:3])
    assert not fewer._views
    _same_result(ex.extract(fewer, "renewal fee"),
                 ex.extract(qatbe.ParsedDocument(doc.segments[:3], doc.metadata, doc.format), "renewal fee"))


def test_score_segments_refuses_a_view_of_another_page() -> None:
    from qatbe.score.bm25 import PageView, score_segments

    segments = qatbe.segment(DOC)
    view = PageView(segments[:2])
    with pytest.raises(ValueError, match="page view holds 2 segments"):
        score_segments(segments, "renewal fee", qatbe.Settings(), view)
    same = score_segments(segments, "renewal fee", qatbe.Settings(), PageView(segments))
    assert same.raw.tolist() == score_segments(segments, "renewal fee", qatbe.Settings()).raw.tolist()


def test_a_document_split_for_another_budget_is_refused() -> None:
    """Units are split to the budget (``Settings.segment_tokens``): a document parsed for 5,000 tokens has units a
    200-token extract would not have made, so the results would differ from the source's. Same unit size: fine."""
    doc = qatbe.Extractor(tier="detailed").parse(DOC)
    with pytest.raises(qatbe.ConfigError, match="split into units of 160 tokens.*to 80"):
        qatbe.Extractor(tier="key_facts").extract(doc, "renewal fee")
    assert isinstance(qatbe.ConfigError("x"), ValueError)
    assert qatbe.Extractor(budget=5000).extract(doc, "renewal fee").text == qatbe.extract(DOC, "renewal fee",
                                                                                          budget=5000).text
    unknown = qatbe.ParsedDocument(doc.segments, doc.metadata, doc.format)  # built by hand: taken as it is
    assert "92.50" in qatbe.Extractor(tier="key_facts").extract(unknown, "renewal fee").text
