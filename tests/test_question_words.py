"""The question word cue: a section whose heading opens with the question's "how"/"who"/... and matches the
query is lifted by that heading's score (``qatbe.score.bm25.wh_heading_cue``)."""

from __future__ import annotations

from qatbe.score import score_segments
from qatbe.score.analyze import analyzer
from qatbe.score.question import read_question
from qatbe.settings import Settings
from qatbe.types import Segment, SegmentKind

H, P = SegmentKind.HEADING, SegmentKind.PARAGRAPH


def _page(*items: tuple[SegmentKind, str]) -> list[Segment]:
    return [Segment(kind=k, text=t, markdown=t, position=i * 100, index=i, level=2 if k is H else 0)
            for i, (k, t) in enumerate(items)]


PAGE = _page((H, "Who can renew online"), (P, "Adults over 16 with an undamaged card."),
             (H, "How to renew online"), (P, "Get a photo, sign in and pay by card."))


def test_question_words_are_read_from_the_question_sentences() -> None:
    an = analyzer("en")
    assert read_question(an, "How do I renew my card and what does it cost?", 0.3, 1.0).wh == {"how", "what"}
    assert read_question(an, "I renewed last year. Who can renew?", 0.3, 1.0).wh == {"who"}
    assert read_question(an, "renew card", 0.3, 1.0).wh == frozenset()
    assert read_question(analyzer("de"), "wie erneuere ich den Ausweis?", 0.3, 1.0).wh == frozenset()


def test_the_section_under_the_question_word_heading_is_lifted() -> None:
    how = score_segments(PAGE, "how do I renew my card?", Settings(language="en"))
    assert how.answer_type is not None and how.answer_type.tolist() == [0.0, 0.0, 0.0, how.raw[2]]
    assert how.raw[3] > how.raw[1]
    who = score_segments(PAGE, "who can renew my card?", Settings(language="en"))
    assert who.answer_type is not None and who.raw[1] > who.raw[3]


def test_no_lift_without_a_question_word_or_when_the_heading_does_not_match() -> None:
    plain = score_segments(PAGE, "renew my card", Settings(language="en"))
    assert plain.answer_type is None or not plain.answer_type.any()
    other = _page((H, "How to apply"), (P, "Get a photo, sign in and pay by card."))
    s = score_segments(other, "how do I renew my card?", Settings(language="en"))
    assert s.answer_type is None or not s.answer_type.any()
