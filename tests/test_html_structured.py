"""Pages whose body holds no text of its own but whose JSON-LD holds the article (``html_structured``)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qatbe
from qatbe.segmentation import html as html_segmenter
from qatbe.segmentation.html import segment_html
from qatbe.segmentation.html_structured import EMPTY_BODY, structured_html
from qatbe.settings import Settings
from qatbe.types import SegmentKind

SHELL = """<html><head><title>How to sew a round tablecloth | homify</title>
<script type="application/ld+json">{ld}</script></head>
<body><nav><a href="/">Home</a> <a href="/diy">DIY</a> <a href="/login">Log in</a></nav>
<div id="root" data-react-class="DiyPage"></div>{body}
<footer><a href="/imprint">Imprint</a> <a href="/privacy">Privacy</a></footer></body></html>"""

STEP_ONE = ("To make a round tablecloth you need the table's diameter, measured from edge to edge through the middle "
            "of the table top.")
STEP_TWO = "Cut a square of fabric as wide as the diameter plus twice the drop, plus an inch for the hem."
HOWTO = {
    "@context": "https://schema.org", "@type": "HowTo", "name": "How to sew a round tablecloth",
    "step": [
        {"@type": "HowToStep", "name": "Step 1: Measure the table", "text": f"<p>{STEP_ONE}</p>"},
        {"@type": "HowToSection", "name": "Cutting",
         "itemListElement": [{"@type": "HowToStep", "text": f"<p>{STEP_TWO}</p><ul><li>Scissors</li>"
                                                            "<li>Pins</li></ul>"}]},
    ],
}


def _kept(html: str) -> list[tuple[SegmentKind, str]]:
    return [(s.kind, s.text) for s in segment_html(html, Settings()).segments if s.kind is not SegmentKind.NAVIGATION]


def test_the_python_walk_reads_the_json_ld_before_it_strips_the_scripts(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = _kept(SHELL.format(ld=json.dumps(HOWTO), body=""))
    monkeypatch.setattr(html_segmenter, "FAST_WALK", False)
    assert _kept(SHELL.format(ld=json.dumps(HOWTO), body="")) == compiled
    assert (SegmentKind.PARAGRAPH, STEP_ONE) in compiled


def test_a_howto_drawn_by_javascript_is_read_from_its_json_ld() -> None:
    kept = _kept(SHELL.format(ld=json.dumps(HOWTO), body=""))
    assert (SegmentKind.PARAGRAPH, STEP_ONE) in kept
    assert (SegmentKind.PARAGRAPH, STEP_TWO) in kept
    assert (SegmentKind.HEADING, "Step 1: Measure the table") in kept and (SegmentKind.HEADING, "Cutting") in kept
    assert any(kind is SegmentKind.LIST and "Scissors" in text for kind, text in kept)
    # In the order the steps are given, and the result answers a query about them.
    texts = [t for _, t in kept]
    assert texts.index(STEP_ONE) < texts.index(STEP_TWO)
    r = qatbe.extract(SHELL.format(ld=json.dumps(HOWTO), body=""), "how wide should the fabric be cut?",
                      budget=80)
    assert STEP_TWO in r.text


def test_an_article_body_in_plain_text_becomes_paragraphs_once() -> None:
    paragraphs = [f"Paragraph {i} of the story tells what the council decided about the harbour." for i in range(4)]
    article = {"@type": "NewsArticle", "headline": "Harbour plan", "articleBody": "\n\n".join(paragraphs)}
    page = {"@type": "WebPage", "articleBody": "\n\n".join(paragraphs)}  # the same body given twice
    kept = _kept(SHELL.format(ld=json.dumps({"@graph": [article, page]}), body=""))
    assert [t for _, t in kept] == paragraphs


def test_a_question_and_its_answers() -> None:
    question = {"@type": "QAPage", "mainEntity": {
        "@type": "Question", "name": "Kettle", "text": "Why does my kettle click off before the water boils?",
        "acceptedAnswer": {"@type": "Answer", "text": "Limescale on the sensor makes it read the heat too early; "
                                                     "descale it with citric acid and it will boil again."},
        "suggestedAnswer": [{"@type": "Answer", "text": "Check that the lid is shut: an open lid lets the steam "
                                                        "reach the switch from the wrong side."}]}}
    texts = [t for _, t in _kept(SHELL.format(ld=json.dumps(question), body=""))]
    assert texts[0].startswith("Why does my kettle") and texts[1].startswith("Limescale")
    assert texts[2].startswith("Check that the lid")


def test_a_page_that_shows_its_text_keeps_it_and_ignores_the_json_ld_copy() -> None:
    shown = "".join(f"<p>The page shows paragraph {i} of its own article about the harbour plan.</p>"
                    for i in range(5))
    teaser = {"@type": "NewsArticle", "articleBody": "A teaser that differs from the article " * 20}
    kept = _kept(SHELL.format(ld=json.dumps(teaser), body=f"<main>{shown}</main>"))
    assert not any("teaser" in t for _, t in kept)
    assert len(kept) == 5


def test_a_short_structured_text_is_not_worth_a_page() -> None:
    short = {"@type": "NewsArticle", "articleBody": "Too short."}
    assert _kept(SHELL.format(ld=json.dumps(short), body="")) == []
    assert len("Too short.") < EMPTY_BODY


@pytest.mark.parametrize("ld", ["{not json", "[]", "null", '"text"', '{"@type": "HowTo", "step": 7}',
                                '{"@type": "HowTo", "step": [null, 3, {"text": 5}]}',
                                '{"@type": "Question", "acceptedAnswer": [1, {"text": null}]}'])
def test_broken_or_odd_json_ld_gives_nothing(ld: str) -> None:
    assert structured_html([ld]) == ""
    assert _kept(SHELL.format(ld=ld, body="")) == []


def test_nested_sections_are_read_without_recursion_and_many_steps_are_bounded() -> None:
    node: dict[str, object] = {"@type": "HowToStep", "text": "The innermost step says to press the seam flat."}
    for i in range(400):  # 800 levels of JSON: as deep as json.loads goes
        node = {"@type": "HowToSection", "name": f"Part {i}", "itemListElement": [node]}
    fragment = structured_html([json.dumps({"@type": "HowTo", "step": [node]})])
    assert fragment.startswith("<h3>Part 399</h3>") and "press the seam flat" in fragment
    many = {"@type": "HowTo", "step": [{"@type": "HowToStep", "name": f"Step {i}", "text": f"Do thing {i}."}
                                       for i in range(2000)]}
    assert structured_html([json.dumps(many)]).count("<h3>") == 500


@settings(max_examples=60, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=30),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                        st.sampled_from(["@type", "text", "name", "step", "itemListElement", "articleBody",
                                         "acceptedAnswer", "recipeInstructions"]), inner, max_size=4),
                    max_leaves=30))
def test_any_json_gives_a_string(value: object) -> None:
    out = structured_html([json.dumps(value)])
    assert isinstance(out, str)
    segment_html(SHELL.format(ld=json.dumps(value), body=""), Settings())
