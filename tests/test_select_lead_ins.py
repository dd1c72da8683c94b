"""A lead-in comes with what it leads into, a later step with the first ones, and the budget holds (issue 44).

Random HTML pages of sections with paragraphs, lead-ins ("... the following apply:") and the lists after them,
long enough to be split into parts at small budgets, extracted at random budgets. The checks re-derive what a
lead-in and a later step are from the segments, independently of ``qatbe.select.plan.needs_of``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import qatbe
from qatbe import Extractor
from qatbe.types import Segment, SegmentKind

WORDS = ("passport", "renew", "fee", "photo", "apply", "online", "post", "form", "office", "travel", "card",
         "account", "visa", "child", "adult", "counter", "weeks", "cost", "crowns", "service", "address", "send")
ORDERED = re.compile(r"\s*\d+[.)]\s")

words = st.lists(st.sampled_from(WORDS), min_size=3, max_size=18).map(" ".join)
paragraph = words.map(lambda w: f"<p>{w.capitalize()}.</p>")
lead_in_and_list = st.tuples(words, st.sampled_from(["ol", "ul"]),
                             st.lists(words, min_size=2, max_size=12)).map(
    lambda t: f"<p>{t[0].capitalize()} if all of the following apply:</p><{t[1]}>"
              + "".join(f"<li>{item}.</li>" for item in t[2]) + f"</{t[1]}>")
section = st.tuples(words, st.lists(st.one_of(paragraph, lead_in_and_list), min_size=1, max_size=4)).map(
    lambda t: f"<h2>{t[0]}</h2>" + "".join(t[1]))
page = st.lists(section, min_size=1, max_size=5).map(
    lambda sections: "<html><body><main><h1>Renewing</h1>" + "".join(sections) + "</main></body></html>")
query = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
budget = st.integers(min_value=15, max_value=700)


def _candidates(html: str, tokens: int) -> list[Segment]:
    """The segments extract chooses from at this budget (the unit size follows the budget)."""
    return [s for s in Extractor(budget=tokens).parse(html, navigation=False).segments
            if s.kind is not SegmentKind.NAVIGATION]


def _broken(candidates: list[Segment], kept: set[int]) -> Iterable[str]:
    """Each kept lead-in whose next block is left out, each kept later step whose list's first part is."""
    first_part: dict[int, int] = {}
    for p, seg in enumerate(candidates):
        if seg.group >= 0 and seg.part == 0:
            first_part[seg.group] = seg.index
        if seg.index not in kept:
            continue
        if seg.kind is SegmentKind.LIST and seg.part > 0 and ORDERED.match(seg.markdown):
            if first_part.get(seg.group, seg.index) not in kept:
                yield f"step part {seg.part} without the first: {seg.markdown[:40]!r}"
        elif seg.kind is not SegmentKind.HEADING and seg.text.rstrip().endswith(":") and p + 1 < len(candidates):
            nxt = candidates[p + 1]
            if (nxt.kind is not SegmentKind.HEADING and (seg.group < 0 or nxt.group != seg.group)
                    and nxt.index not in kept):
                yield f"lead-in without what follows: {seg.text[:40]!r}"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page, query, budget)
def test_extract_keeps_lead_ins_with_what_follows_within_the_budget(html: str, q: str, tokens: int) -> None:
    result = qatbe.extract(html, q, budget=tokens)
    assert result.total_tokens <= tokens
    kept = {s.index for s in result.segments}
    assert list(_broken(_candidates(html, tokens), kept)) == []
    assert qatbe.extract(html, q, budget=tokens).text == result.text  # same input, same output


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(page, min_size=1, max_size=3), query, st.integers(min_value=150, max_value=900))
def test_extract_many_keeps_lead_ins_with_what_follows_within_the_budget(pages: list[str], q: str,
                                                                         tokens: int) -> None:
    result = qatbe.extract_many(pages, q, budget=tokens, dedupe=False)
    assert result.total_tokens <= tokens
    for k, html in enumerate(pages):
        kept = {p.segment.index for p in result.passages if p.document == k}
        assert list(_broken(_candidates(html, tokens), kept)) == []


def test_a_lead_in_whose_list_does_not_fit_gives_its_tokens_to_other_text() -> None:
    """At a budget too small for the list, the lead-in is left out and the paragraph after the list comes in."""
    items = "".join(f"<li>item {n}: send the form with a photo and the fee to the passport office</li>"
                    for n in range(8))
    html = (f"<html><body><main><h2>Who can renew</h2><p>You can renew the passport if all of these apply:</p>"
            f"<ul>{items}</ul><p>Renew the passport online; it costs 90 crowns.</p></main></body></html>")
    result = qatbe.extract(html, "renew passport", budget=40)
    assert "if all of these apply:" not in result.text
    assert "it costs 90 crowns" in result.text
    whole = qatbe.extract(html, "renew passport", budget=400)
    assert "if all of these apply:\n\n- item 0" in whole.text
