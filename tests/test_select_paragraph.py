"""The best match comes with its whole paragraph when that paragraph fits its share of the budget (issue 44:
evidence, not just answer strings): all of the budget when the best match stands alone, half of it when another
match scores close. ``select.plan.whole_paragraph_first`` decides; ``extract`` and ``extract_many`` follow.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import qatbe
from qatbe.select.plan import CLOSE_MATCH, WHOLE_PARAGRAPH_SHARE, paragraph_units, whole_paragraph_first

# One paragraph whose third sentence answers the question and whose other sentences say whose research it was;
# three weaker paragraphs that share the question's words and compete for the same budget.
PAGE = """# Physicists

Marie Curie was born in Warsaw in 1867. She moved to Paris to study physics and mathematics at the Sorbonne. \
Her research on radioactivity won the Nobel Prize in 1903. She later directed the Radium Institute in the French \
capital.

The prize committee also honoured research in chemistry that year, and the research of many others went \
unrewarded.

Prize money was modest, and research funding in Paris came mostly from private donors and the university.

Several universities research radioactivity today, and a prize for young physicists carries the Curie name.
"""
QUERY = "When did her radioactivity research win the Nobel Prize?"
# The same page with a second answer-like paragraph, which scores close to the best match.
CLOSE_PAGE = PAGE + "\nHer daughter's radioactivity research won another Nobel Prize, in 1935.\n"
SMALL_PARTS = {"max_segment_tokens": 16, "format": "markdown"}  # the paragraph splits into sentence-sized parts


def _answer_paragraph() -> list[qatbe.Segment]:
    segments = qatbe.segment(PAGE, **SMALL_PARTS)
    group = next(s.group for s in segments if "Nobel Prize in 1903" in s.text)
    parts = [s for s in segments if s.group == group]
    assert len(parts) >= 3  # the test needs a split paragraph
    return parts


def test_the_best_match_brings_its_paragraph_when_it_fits_in_half_the_budget() -> None:
    parts = _answer_paragraph()
    cost = sum(s.tokens for s in parts) + 2 * len(parts)  # with a blank line after each part
    budget = 2 * cost + 4
    r = qatbe.extract(PAGE, QUERY, budget=budget, **SMALL_PARTS)
    assert r.total_tokens <= budget
    for part in parts:
        assert part.text in r.text
    kept = {s.part: s for s in r.segments if s.group == parts[0].group}
    assert len(kept) == len(parts)
    # The parts that share no word with the question came as context: not reported as matches.
    assert not kept[0].matched and "Warsaw" in kept[0].text
    assert any(s.matched for s in kept.values())


def test_a_paragraph_over_half_the_budget_comes_only_when_the_best_match_stands_alone() -> None:
    parts = _answer_paragraph()
    cost = sum(s.tokens for s in parts)
    budget = int(cost * 1.5)  # the paragraph fits, but not in half of it
    # Nothing else on the page scores close to the best match: its paragraph may take the whole budget.
    alone = qatbe.extract(PAGE, QUERY, budget=budget, **SMALL_PARTS)
    assert alone.total_tokens <= budget
    for part in parts:
        assert part.text in alone.text
    # Another paragraph answers nearly as well: the other matches keep their half, the paragraph is not forced.
    close = qatbe.extract(CLOSE_PAGE, QUERY, budget=budget, **SMALL_PARTS)
    assert close.total_tokens <= budget
    assert "Nobel Prize in 1903" in close.text
    assert "born in Warsaw" not in close.text


def test_extract_many_brings_the_paragraph_as_extract_does() -> None:
    parts = _answer_paragraph()
    other = "Research prizes in physics are awarded every year, and the Nobel Prize is the best known of them."
    budget = 2 * (sum(s.tokens for s in parts) + 2 * len(parts)) + 80  # the citation envelopes on top
    many = qatbe.extract_many([PAGE, other], QUERY, budget=budget, **SMALL_PARTS)
    assert many.total_tokens <= budget
    for part in parts:
        assert part.text in many.text


_SLOTS = st.integers(1, 12).flatmap(lambda n: st.tuples(
    st.lists(st.floats(0.0, 10.0), min_size=n, max_size=n),
    st.lists(st.integers(1, 40), min_size=n, max_size=n),
    st.lists(st.integers(-1, 2), min_size=n, max_size=n),
    st.lists(st.integers(0, n - 1), unique=True, max_size=n),
    st.integers(0, 200)))


@settings(max_examples=300, deadline=None)
@given(_SLOTS)
def test_whole_paragraph_first_moves_only_the_best_slots_paragraph(case: tuple) -> None:
    scores, costs, groups, order, room = case
    # Units as paragraph_units gives them: each slot of a unit points at the unit's first slot.
    firsts = {g: groups.index(g) for g in groups if g >= 0}
    units = [firsts[g] if g >= 0 else -1 for g in groups]
    out = whole_paragraph_first(order, scores, costs, units, room)
    assert whole_paragraph_first(order, scores, costs, None, room) is order
    if not order:
        assert out is order
        return
    top = max(order, key=lambda i: (scores[i], -i))
    parts = [i for i, u in enumerate(units) if units[top] >= 0 and u == units[top]]
    close = any(scores[i] >= CLOSE_MATCH * scores[top] for i in order if i not in parts)
    share = WHOLE_PARAGRAPH_SHARE if close else 1.0
    if parts and sum(costs[i] for i in parts) <= share * room:
        assert out[0] == top
        assert set(out[:len(parts)]) == set(parts)
        assert out[len(parts):] == [i for i in order if i not in parts]
    else:
        assert out is order


def test_paragraph_units_name_split_paragraphs_only() -> None:
    segments = qatbe.segment(PAGE, **SMALL_PARTS)
    units = paragraph_units(segments)
    assert units is not None
    for i, seg in enumerate(segments):
        if seg.kind is qatbe.SegmentKind.PARAGRAPH and any(s.group == seg.group and s.part > 0 for s in segments):
            assert units[i] == next(j for j, s in enumerate(segments) if s.group == seg.group)
        else:
            assert units[i] == -1
    assert paragraph_units(qatbe.segment("# Title\n\nOne short paragraph.", format="markdown")) is None
