"""The scoring stage's contract: raw non-negative relevance per segment, any_match, a relative floor."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe.score import score_segments
from qatbe.settings import Settings
from qatbe.types import Segment, SegmentKind

P = SegmentKind.PARAGRAPH
H = SegmentKind.HEADING


def segs(*items: tuple[SegmentKind, str] | str) -> list[Segment]:
    out = []
    for i, item in enumerate(items):
        kind, text = (P, item) if isinstance(item, str) else item
        level = 2 if kind is H else 0
        out.append(Segment(kind=kind, text=text, markdown=text, position=i * 100, index=i, level=level))
    return out


# One relevant paragraph among distractors, per language; the query shares only inflected forms with it.
FIXTURES = {
    "en": ("How do I renew my passport?",
           ["The museum opens at nine and closes at five every day of the week.",
            "You can renew your passport online; renewals take three weeks.",
            "Trains to the airport leave every twenty minutes from platform two."]),
    "de": ("Wie erneuere ich meinen Reisepass?",
           ["Das Museum öffnet um neun Uhr und schließt um fünf Uhr am Abend.",
            "Reisepässe können Sie online erneuern; die Erneuerung dauert drei Wochen.",
            "Die Züge zum Flughafen fahren alle zwanzig Minuten vom Bahnsteig zwei."]),
    "fr": ("Comment renouveler mon passeport ?",
           ["Le musée ouvre à neuf heures et ferme à cinq heures tous les jours.",
            "Vous pouvez renouveler vos passeports en ligne ; le renouvellement prend trois semaines.",
            "Les trains pour l'aéroport partent toutes les vingt minutes du quai deux."]),
    "es": ("¿Cómo renuevo mi pasaporte?",
           ["El museo abre a las nueve y cierra a las cinco todos los días de la semana.",
            "Puede renovar sus pasaportes en línea; la renovación tarda tres semanas.",
            "Los trenes al aeropuerto salen cada veinte minutos desde el andén dos."]),
    "ru": ("Как продлить паспорт?",
           ["Музей открывается в девять и закрывается в пять каждый день недели.",
            "Продление паспорта можно оформить онлайн; это занимает три недели, паспорта выдают быстро.",
            "Поезда в аэропорт отправляются каждые двадцать минут со второй платформы."]),
    "zh": ("如何更新护照？",
           ["博物馆每天九点开门，五点关门。",
            "您可以在网上更新护照，更新需要三周时间。",
            "去机场的火车每二十分钟从二号站台出发。"]),
    "ja": ("パスポートの更新方法は？",
           ["博物館は毎日九時に開館し、五時に閉館します。",
            "パスポートはオンラインで更新できます。更新には三週間かかります。",
            "空港行きの電車は二番線から二十分ごとに出発します。"]),
    # Persian is told from Arabic by its letters (languages.arabic_script); Hindi is stemmed when declared (a page
    # in Devanagari is not guessed: Marathi and Nepali write it too) and found by its near words when not.
    "fa": ("چگونه گذرنامه‌ام را تمدید کنم؟",
           ["موزه هر روز ساعت نه باز می‌شود و ساعت پنج بسته می‌شود.",
            "شما می‌توانید گذرنامه‌های خود را به صورت آنلاین تمدید کنید؛ تمدید سه هفته طول می‌کشد.",
            "قطارهای فرودگاه هر بیست دقیقه از سکوی دو حرکت می‌کنند."]),
    "hi": ("मैं अपना पासपोर्ट कैसे नवीनीकृत करूं?",
           ["संग्रहालय हर दिन नौ बजे खुलता है और पांच बजे बंद होता है।",
            "आप अपने पासपोर्टों का नवीनीकरण ऑनलाइन कर सकते हैं; नवीनीकरण में तीन सप्ताह लगते हैं।",
            "हवाई अड्डे के लिए ट्रेनें हर बीस मिनट में प्लेटफॉर्म दो से चलती हैं।"]),
}


@pytest.mark.parametrize("code", sorted(FIXTURES))
@pytest.mark.parametrize("declared", [True, False], ids=["declared", "detected"])
def test_relevant_paragraph_ranks_first_in_each_language(code: str, declared: bool) -> None:
    query, texts = FIXTURES[code]
    scores = score_segments(segs(*texts), query, Settings(language=code if declared else None))
    assert int(np.argmax(scores.raw)) == 1
    assert scores.raw[1] > 0
    if code in ("en", "de", "fr", "es", "ru", "fa") or (declared and code == "hi"):
        assert scores.language == code


def test_no_query_scores_nothing() -> None:
    for query in (None, "", "   "):
        s = score_segments(segs("a passport"), query, Settings())
        assert not s.any_match and s.raw.tolist() == [0.0] and s.query_terms == ()


def test_stop_word_only_query_still_matches() -> None:
    s = score_segments(segs("to be or not to be", "a cat"), "to be or not to be", Settings(language="en"))
    assert s.any_match and s.raw[0] > s.raw[1]


def test_heading_terms_reach_the_paragraphs_under_them() -> None:
    # "fees for parking", not "what are the fees?": that asks for a number, and the number cue would add to the
    # paragraph's share.
    doc = segs((H, "Fees"), "It costs 75 pounds.", (H, "Opening hours"), "Nine to five.")
    s = score_segments(doc, "fees for parking", Settings(language="en", heading_share=0.3))
    assert s.raw[0] > 0 and s.raw[1] == pytest.approx(0.3 * s.raw[0]) and s.raw[3] == 0
    off = score_segments(doc, "fees for parking", Settings(language="en", heading_share=0.0))
    assert off.raw[1] == 0


def test_close_query_terms_beat_scattered_ones() -> None:
    filler = " ".join(["lorem"] * 30)
    doc = segs(f"capital city {filler} france", f"france capital city {filler}")
    s = score_segments(doc, "capital of france", Settings(language="en", proximity=0.25))
    assert s.raw[1] > s.raw[0]
    off = score_segments(doc, "capital of france", Settings(language="en", proximity=0.0))
    assert off.raw[1] == pytest.approx(off.raw[0])


def test_background_prior_lowers_common_words() -> None:
    """Both words are in one segment of the page, but the background says "city" is common, "zeppelin" rare."""
    doc = segs("city rules", "zeppelin rules", "other text", "more text")
    plain = score_segments(doc, "city zeppelin", Settings(language="en"))
    prior = score_segments(doc, "city zeppelin", Settings(language="en", background_prior=30.0))
    assert plain.raw[0] == pytest.approx(plain.raw[1])
    assert prior.raw[1] > prior.raw[0] > 0


words = st.sampled_from(["passport", "renew", "fee", "fees", "museum", "train", "airport", "the", "a", "of", "to", "capital", "france", "city"])
texts = st.lists(words, max_size=25).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(st.lists(texts, max_size=12), st.lists(words, max_size=5).map(" ".join),
       st.sampled_from(["lucene", "okapi", "plus", "l"]), st.sampled_from([0.0, 20.0]), st.sampled_from([0.0, 0.3]))
def test_scores_are_nonnegative_deterministic_and_the_floor_is_relative(
    paragraphs: list[str], query: str, variant: str, prior: float, share: float
) -> None:
    doc = [(H, p) if i % 4 == 0 else p for i, p in enumerate(paragraphs)]
    doc = segs(*doc)
    cfg = Settings(language="en", bm25=variant, background_prior=prior, heading_share=share)
    s = score_segments(doc, query, cfg)
    assert s.raw.dtype == np.float64 and s.raw.shape == (len(doc),)
    assert (s.raw >= 0).all()
    assert s.any_match == bool((s.raw > 0).any())
    np.testing.assert_array_equal(s.raw, score_segments(doc, query, cfg).raw)
    assert s.relevant is not None
    assert not (s.relevant & (s.raw <= 0)).any()
    if s.any_match:
        assert s.relevant[int(np.argmax(s.raw))]


def test_question_words_outweigh_context_words() -> None:
    doc = segs("I am a student living in Leeds with my family.", "Students can claim a grant for tuition fees.")
    query = "I am a student in Leeds. Can I claim a grant?"
    plain = score_segments(doc, query, Settings(language="en", context_weight=1.0))
    weighted = score_segments(doc, query, Settings(language="en", context_weight=0.3))
    assert weighted.weights[weighted.query_terms.index("grant")] == 1.0
    assert weighted.weights[weighted.query_terms.index("leed")] == 0.3
    assert weighted.raw[1] / weighted.raw[0] > plain.raw[1] / plain.raw[0]


def test_a_block_after_a_lead_in_inherits_from_it() -> None:
    doc = segs("You can use the card to:", "show who you are", "Trains leave hourly.")
    s = score_segments(doc, "what can I use the card for", Settings(language="en"))
    assert s.raw[0] > 0 and s.lead_in is not None and s.lead_in[1] > 0 and s.raw[2] == 0


def test_explanations_add_up_to_the_score() -> None:
    doc = segs((H, "Fees"), "Renewing a passport costs 75 pounds. You can pay by:", "card or cheque", (H, "Other"),
               "Nothing.")
    s = score_segments(doc, "I live abroad. What are the passport fees?",
                       Settings(language="en", heading_share=0.3, context_weight=0.5))
    for i in range(len(doc)):
        e = s.explain(i)
        parts = e.proximity + e.lead_in + e.heading + e.bridge + e.sibling + e.answer_type
        assert sum(c for _, c in e.terms) + parts == pytest.approx(e.total)
        assert e.total == pytest.approx(s.raw[i])
        assert all(t in s.query_terms and c > 0 for t, c in e.terms)
    assert {t for t, _ in s.explain(1).terms} == {"passport"}
    assert s.explain(4).total == 0 and s.explain(4).to_dict()["terms"] == {}


def test_a_best_segment_that_names_another_section_bridges_to_it() -> None:
    """Multi-hop: the question names the first hop; its answer names the section that holds the second."""
    doc = segs((H, "Kevin Sumlin"), "Sumlin coached at the University of Houston from 2007 to 2011 and now "
               "coaches the Texas Aggies.", (H, "Texas Aggies"), "The program competes in the Western Division.",
               (H, "Harbour Museum"), "The museum opens at nine.")
    query = "Who coached at Houston from 2007 to 2011?"
    on = score_segments(doc, query, Settings(language="en", bridge=0.3))
    off = score_segments(doc, query, Settings(language="en", bridge=0.0))
    assert off.raw[3] == 0 and on.raw[3] > 0 and on.raw[5] == 0
    assert on.bridge is not None and on.bridge[3] == pytest.approx(on.raw[3]) and on.bridge[1] == 0
    assert on.explain(3).bridge == pytest.approx(on.raw[3])


def test_a_heading_above_the_best_segments_is_no_bridge_and_leaves_the_others_theirs() -> None:
    """Only a heading with a best segment outside its section can be credited (bridge_credits leaves the others
    out before tokenizing): a heading over the best segment gets nothing though that segment names it, and a title
    over the best segment leaves the next section its credit, as on the page without the title."""
    query = "Who coached at Houston from 2007 to 2011?"
    cfg = Settings(language="en", bridge=0.3)
    best = "Sumlin coached at the University of Houston from 2007 to 2011 and now coaches the Texas Aggies."
    under = score_segments(segs((H, "Texas Aggies"), best, "The program competes in the Western Division."),
                           query, cfg).bridge
    assert under is not None and not under.any()
    page = (best, (H, "Texas Aggies"), "The program competes in the Western Division.")
    without_title = score_segments(segs(*page), query, cfg).bridge
    with_title = score_segments(segs((H, "Football Coaches"), *page), query, cfg).bridge
    # The bridge part is the section's: the segment under "Texas Aggies" holds it, on both pages.
    assert without_title is not None and with_title is not None
    assert without_title.nonzero()[0].tolist() == [2]
    assert with_title.nonzero()[0].tolist() == [3]


def test_a_heading_named_everywhere_or_made_of_the_question_is_no_bridge() -> None:
    """Credit is divided by how many segments name the heading; the question's own words never bridge."""
    specific = segs("Visas are issued by the Consular Office.", (H, "Consular Office"), "It opens at nine.")
    common = segs("Visas are issued by the Consular Office.", "The Consular Office is closed on Sunday.",
                  "The Consular Office moved in May.", (H, "Consular Office"), "It opens at nine.")
    query = "who issues visas"
    one = score_segments(specific, query, Settings(language="en"))
    many = score_segments(common, query, Settings(language="en"))
    assert one.raw[2] > 0
    assert 0 < many.raw[4] < one.raw[2]
    asked = segs("Visas are issued by the Consular Office.", (H, "Visas"), "It opens at nine.")
    made_of_question = score_segments(asked, query, Settings(language="en")).bridge
    assert made_of_question is not None and not made_of_question.any()


def test_only_mentions_outside_the_section_and_outside_headings_divide_a_bridge() -> None:
    """The credit is divided by the segments that name the heading from elsewhere: the heading's own section
    repeating its name, and another heading naming it, are no evidence that the name is everywhere. The pages
    compared hold the same texts (the same BM25 statistics), only arranged differently."""
    query = "who issues visas"
    cfg = Settings(language="en")
    best, heading, body = "visas are issued by the consular office.", "Consular Office", "It opens at nine."
    first, second = "the consular office is closed on sunday.", "the consular office moved in may."
    inside = score_segments(segs(best, (H, heading), body, first, second), query, cfg).bridge
    outside = score_segments(segs(best, first, second, (H, heading), body), query, cfg).bridge
    # The bridge part is the section's: the segments under the heading hold it.
    assert inside is not None and outside is not None and outside[4] > 0
    assert inside[2] == pytest.approx(3 * outside[4])  # counted: the best segment alone, then with both others
    as_heading = score_segments(segs(best, (H, heading), body, (H, heading), body), query, cfg).bridge
    as_text = score_segments(segs(best, heading, (H, heading), body, body), query, cfg).bridge
    assert as_heading is not None and as_text is not None and as_text[3] > 0
    assert as_heading[2] == pytest.approx(2 * as_text[3])


def test_bridge_option_is_validated() -> None:
    from qatbe.errors import ConfigError

    with pytest.raises(ConfigError, match="bridge"):
        Settings(bridge=-1.0)


def test_the_next_part_of_a_split_table_inherits_from_the_part_that_matches() -> None:
    """The row after the one the question names may open the next part of a split table."""
    def part(text: str, i: int, group: int, n: int) -> Segment:
        return Segment(kind=SegmentKind.TABLE, text=text, markdown=text, position=i * 100, index=i, group=group,
                       part=n)

    doc = [part("1 | Petri Skriko | Finland", 0, 7, 0), part("2 | Andre Cote | Canada", 1, 7, 1),
           part("3 | Juha Nurmi | Finland", 2, 8, 0)]
    s = score_segments(doc, "who was drafted after Petri Skriko?", Settings(language="en"))
    assert s.raw[0] > 0 and s.raw[1] > 0 and s.raw[2] == 0
    assert s.sibling is not None and s.raw[1] == pytest.approx(s.sibling[1]) and s.raw[1] < s.raw[0]


def test_a_question_asking_for_a_number_prefers_the_segment_that_holds_one() -> None:
    """Same shared words; "how long" asks for a number, so the sentence with "10 days" wins; "why" does not."""
    doc = segs("The court will write to you within 10 days.", "The court will write to you about the hearing.")
    cfg = Settings(language="en")
    asked = score_segments(doc, "My son lives with me. How long before the court writes to me?", cfg)
    assert asked.raw[0] > asked.raw[1] and asked.answer_type is not None and asked.answer_type[1] == 0
    why = score_segments(doc, "Why does the court write to me?", cfg)
    assert why.raw[0] == pytest.approx(why.raw[1])
    # A number the question itself names is no answer to it.
    named = score_segments(segs("Form 10 is sent by the court.", "The court sends a form."),
                           "When is form 10 sent by the court?", cfg)
    assert named.answer_type is not None and not named.answer_type.any()


def test_a_query_word_the_page_never_uses_matches_page_words_that_share_a_long_prefix() -> None:
    """The stemmer keeps "septicemia" and "septicemic" apart; the page uses only the second."""
    doc = segs("Others point to septicemic and pneumonic forms of the plague.", "The museum opens at nine.")
    s = score_segments(doc, "What is septicemia?", Settings(language="en"))
    assert s.raw[0] > 0 and s.raw[1] == 0 and "septicem" in s.query_terms
    # When the page uses the word itself, near forms are not searched; short words never are.
    both = segs("Septicemia is blood poisoning.", "Septicemic plague spreads.")
    s = score_segments(both, "What is septicemia?", Settings(language="en"))
    assert s.raw[0] > 0 and s.raw[1] == 0
    assert score_segments(segs("The cats sleep.", "Dogs bark."), "catalog", Settings(language="en")).raw.max() == 0


def test_a_mention_in_the_next_part_of_a_split_paragraph_bridges() -> None:
    """The splitter cuts a paragraph by size: the part that matches the question is the paragraph's first, and the
    sentence that names the second hop opens the next part. The paragraph as a whole names it."""
    def seg(kind: SegmentKind, text: str, i: int, group: int, part: int = 0) -> Segment:
        return Segment(kind=kind, text=text, markdown=text, position=i * 100, index=i, level=2 if kind is H else 0,
                       group=group, part=part)

    texts = [(H, "Classic 2015"), (P, "The 2015 Classic was a basketball tournament played in Honolulu."),
             (P, "Oklahoma won. Buddy Hield was named the most valuable player."),
             (H, "Classic 2016"), (P, "The 2016 Classic was a basketball tournament played in Honolulu."),
             (H, "Classic 2014"), (P, "The 2014 Classic was a basketball tournament played in Honolulu."),
             (H, "Buddy Hield"), (P, "Hield is a professional player for the Sacramento Kings.")]
    query = "Which team does the player of the 2015 Classic tournament play for?"
    split = [seg(k, t, i, 9 if i in (1, 2) else 20 + i, 1 if i == 2 else 0) for i, (k, t) in enumerate(texts)]
    apart = [seg(k, t, i, 20 + i) for i, (k, t) in enumerate(texts)]
    joined = score_segments(split, query, Settings(language="en"))
    separate = score_segments(apart, query, Settings(language="en"))
    assert joined.bridge is not None and separate.bridge is not None
    assert separate.bridge[8] == 0  # the part that names "Buddy Hield" is not among the best segments
    assert joined.bridge[8] > 0 and joined.raw[8] > separate.raw[8]


@pytest.mark.parametrize("extra_units", [0, 15])
def test_a_mention_written_as_a_name_is_a_stronger_pointer_unless_the_section_is_long(extra_units: int) -> None:
    """"Buddy Hield" names the section the way a link's anchor text would; "buddy hield" could be any words. The
    extra credit is full for a short section and shrinks with the square root of a long one's size."""
    constants = Settings().scoring

    def doc(mention: str) -> list[Segment]:
        return segs((H, "Classic 2015"), f"The 2015 Classic tournament MVP was {mention}.", (H, "Buddy Hield"),
                    "He is with the Sacramento Kings.", *["He was born on an island." for _ in range(extra_units)],
                    (H, "Harbour Museum"), "The museum opens at nine.")

    query = "Which team does the MVP of the 2015 Classic tournament play for?"
    named = score_segments(doc("Buddy Hield"), query, Settings(language="en")).bridge
    plain = score_segments(doc("buddy hield"), query, Settings(language="en")).bridge
    assert named is not None and plain is not None and plain[3] > 0
    units = 1 + extra_units
    factor = 1 + (constants.name_bridge - 1) / max(1.0, units / constants.name_section) ** 0.5
    assert named[3] == pytest.approx(factor * plain[3])
    assert factor > 1 and (factor < constants.name_bridge) == (units > constants.name_section)
    assert named[-1] == plain[-1] == 0


def test_in_german_a_capital_marks_every_noun_so_it_is_no_pointer() -> None:
    def doc(mention: str) -> list[Segment]:
        return segs((H, "Turnier 2015"), f"Der beste Spieler im Turnier 2015 war {mention}.", (H, "Buddy Hield"),
                    "Er spielt für die Sacramento Kings.", (H, "Hafenmuseum"), "Das Museum öffnet um neun.")

    query = "Für welches Team spielt der beste Spieler im Turnier 2015?"
    named = score_segments(doc("Buddy Hield"), query, Settings(language="de")).bridge
    plain = score_segments(doc("buddy hield"), query, Settings(language="de")).bridge
    assert named is not None and plain is not None and plain[3] > 0
    assert named[3] == pytest.approx(plain[3])
