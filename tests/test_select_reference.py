"""The list-based selector chooses exactly what the numpy selector chose (tests/select_reference.py, kept verbatim).

Why: the selector was rewritten on plain lists because numpy's per-call cost was most of its time on pages of tens
of candidates; every plan (chosen, matched, drop order, pending, thresholds, cuts) must stay the same, for every
option the corpora's equivalence digests do not exercise (nested, truncation, fill, headings, cost exponents).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import select_reference as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import markdown_documents

import qatbe
from qatbe.pipeline import heading_parents
from qatbe.select import knapsack, nested
from qatbe.select.plan import Plan, plan
from qatbe.settings import Settings
from qatbe.types import Segment, SegmentKind

_KINDS = [SegmentKind.HEADING, SegmentKind.PARAGRAPH, SegmentKind.PARAGRAPH, SegmentKind.LIST, SegmentKind.TABLE,
          SegmentKind.CODE]
# Few distinct values, so that ties (in score, in density, in distance) are common.
_SCORES = st.sampled_from([0.0, 0.0, 0.5, 1.0, 1.3, 2.0, 2.6, 7.25]) | st.floats(0.0, 20.0)
_COSTS = st.sampled_from([0, 1, 2, 3, 5, 8, 13, 40]) | st.integers(0, 120)


@st.composite
def pages(draw: st.DrawFn) -> tuple[list[Segment], list[float], list[int], list[bool]]:
    n = draw(st.integers(0, 24))
    segments = []
    for i in range(n):
        kind = draw(st.sampled_from(_KINDS))
        words = " ".join(f"w{k}" for k in range(draw(st.integers(1, 40))))
        if kind is SegmentKind.TABLE:
            text = "\n".join(f"a{k} | b{k}" for k in range(draw(st.integers(1, 6))))
            markdown = "| h | i |\n| --- | --- |\n" + "\n".join(f"| {row} |" for row in text.split("\n"))
            header: str | None = "| h | i |\n| --- | --- |"
        elif kind is SegmentKind.CODE:
            text = "\n".join(f"line {k}" for k in range(draw(st.integers(1, 6))))
            markdown, header = f"```\n{text}\n```", "```"
        elif kind is SegmentKind.LIST:
            text = "\n".join(f"item {k}" for k in range(draw(st.integers(1, 6))))
            markdown, header = "\n".join(f"- {line}" for line in text.split("\n")), None
        else:
            text, markdown, header = words, words, None
        level = draw(st.integers(1, 4)) if kind is SegmentKind.HEADING else 0
        segments.append(Segment(kind, text, markdown, i * 10, i, level, (), None, i + 1, 0, header))
    scores = draw(st.lists(_SCORES, min_size=n, max_size=n))
    costs = draw(st.lists(_COSTS, min_size=n, max_size=n))
    relevant = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return segments, scores, costs, relevant


_OPTIONS = st.fixed_dictionaries({
    "include_headings": st.booleans(),
    "fill": st.sampled_from(["neighbors", "none"]),
    "truncation": st.sampled_from(["drop", "truncate_end", "truncate_middle"]),
    "nested": st.booleans(),
    "cost_exponent": st.sampled_from([0.5, 0.5, 1.0, 0.0, 0.3, 0.75]),
    "estimator": st.sampled_from(["chars_div4", "words"]),
})


def _fields(obj: object) -> tuple[object, ...]:
    return tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))  # type: ignore[arg-type]


def _plan(p: Plan) -> tuple[object, ...]:
    """The new plan in the reference's field order, its drop order (computed when asked) asked for."""
    return (p.chosen, p.matched, p.drop_order(), p.pending, p.pending_at, p.cut, p.cut_costs)


@settings(max_examples=400, deadline=None)
@given(pages(), _OPTIONS, st.integers(0, 400))
def test_plan_is_the_numpy_plan(page: tuple[list[Segment], list[float], list[int], list[bool]],
                                options: dict[str, object], budget: int) -> None:
    segments, scores, costs, relevant = page
    if options["nested"]:
        options = {**options, "truncation": "drop"}
    config = Settings(**options)  # type: ignore[arg-type]
    weighted = np.array(scores, dtype=np.float64)
    cost_arr = np.array(costs, dtype=np.int64)
    parents = heading_parents(segments)
    mask = (weighted > 0.0) & np.array(relevant, dtype=bool)
    expected = _fields(ref.plan(segments, weighted, cost_arr, parents, mask, budget, config))
    assert _plan(plan(segments, weighted, cost_arr, parents, mask, budget, config)) == expected
    # Lists give the same plan as arrays.
    assert _plan(plan(segments, scores, costs, parents.tolist(), mask.tolist(), budget, config)) == expected


@settings(max_examples=300, deadline=None)
@given(pages(), st.integers(0, 400), st.booleans(), st.sampled_from(["neighbors", "none"]),
       st.sampled_from([0.5, 1.0, 0.0, 0.3]))
def test_select_and_its_parts_are_the_numpy_ones(page: tuple[list[Segment], list[float], list[int], list[bool]],
                                                 budget: int, include_headings: bool, fill: str,
                                                 exponent: float) -> None:
    segments, scores, costs, relevant = page
    s = np.array(scores, dtype=np.float64)
    c = np.array(costs, dtype=np.int64)
    p = heading_parents(segments)
    m = (s > 0.0) & np.array(relevant, dtype=bool)
    alone = np.array([seg.kind is not SegmentKind.HEADING for seg in segments], dtype=bool)
    got = knapsack.select(s, c, p, m, budget, include_headings=include_headings, fill=fill, standalone=alone,
                          cost_exponent=exponent)
    want = ref.select(s, c, p, m, budget, include_headings=include_headings, fill=fill, standalone=alone,
                      cost_exponent=exponent)
    assert _fields(got) == _fields(want)
    assert knapsack.priority_order(s, c, m, exponent) == ref.priority_order(s, c, m, exponent)
    anchors = sorted(got.matched)
    assert knapsack.neighbor_order(len(c), anchors, set(got.chosen)) == ref.neighbor_order(len(c), anchors,
                                                                                             set(got.chosen))
    assert knapsack.neighbor_order(len(c), [], set()) == ref.neighbor_order(len(c), [], set())
    start = set(got.matched)
    assert knapsack.fill_neighbors(c, set(start), start, budget, 0, p, alone) == ref.fill_neighbors(
        c, set(start), start, budget, 0, p, alone)
    order = ref.priority_order(s, c, m, exponent)
    for heads in (True, False):
        a, b = nested.thresholds(order, c, p, include_headings=heads), ref.thresholds(order, c, p,
                                                                                     include_headings=heads)
        assert (a.at, a.heading_of) == (b.at, b.heading_of)


@settings(max_examples=300, deadline=None)
@given(st.lists(_SCORES, max_size=30), st.lists(_COSTS | st.integers(-3, 10**5), max_size=30),
       st.sampled_from([0.5, 1.0, 0.0, 0.3, 0.75, 1, 0]))
def test_densities_are_numpy_density_bit_for_bit(scores: list[float], costs: list[int], exponent: float) -> None:
    n = min(len(scores), len(costs))
    s, c = np.array(scores[:n], dtype=np.float64), np.array(costs[:n], dtype=np.int64)
    want = ref.density(s, c, exponent).tolist()
    for got in (knapsack.densities(s, c, exponent), knapsack.densities(scores[:n], costs[:n], exponent)):
        assert [x.hex() for x in got] == [x.hex() for x in want]
        assert all(type(x) is float for x in got)


def test_the_default_exponent_takes_the_python_path_here() -> None:
    """numpy >= 2 computes a scalar power of 0.5 as a square root, so densities can compute in Python; where it
    does not, densities keeps numpy's arithmetic (same bits, slower): a skip, not a failure."""
    assert not knapsack._exact(0.3)  # only exponents numpy turns into sqrt, a copy or ones are checked
    if not knapsack._exact(0.5):
        pytest.skip(f"numpy {np.__version__} computes x ** 0.5 with pow: densities uses numpy's arithmetic")
    assert knapsack._exact(1.0) and knapsack._exact(0.0)


_WORDS = ["passport", "fee", "renew", "photo", "post", "online", "apply", "the", "of", "is", "ü", "数据", "3.11"]
_EXTRACT_OPTIONS = st.fixed_dictionaries({
    "budget": st.integers(0, 700),
    "truncation": st.sampled_from(["drop", "truncate_end", "truncate_middle"]),
    "fill": st.sampled_from(["neighbors", "none"]),
    "nested": st.booleans(),
    "include_headings": st.booleans(),
    "include_navigation": st.booleans(),
    "render": st.sampled_from(["markdown", "text"]),
    "cost_exponent": st.sampled_from([0.5, 1.0, 0.0, 0.3]),
    "reserve_tokens": st.sampled_from([0, 0, 25]),
    # Deliberately not additive over pieces, so that the rendered text can measure over budget and the drop
    # order is used; and the built-in ones.
    "estimator": st.sampled_from(["chars_div4", "words", "lumpy"]),
})


def _lumpy(text: str) -> int:
    return (len(text) + 2) // 3 + (7 if text else 0) + text.count("\n")


def _result(r: qatbe.Result) -> tuple[object, ...]:
    return (r.text, r.total_tokens, r.segments, r.dropped_count, r.dropped_tokens, r.truncated_count, r.no_match,
            r.pending, r.pending_at, r.budget, r.tier, r.query, r.format, r.metadata, [repr(x) for x in r.explain()])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdown_documents(_WORDS, max_blocks=14, max_heading_level=3, max_sentences=10, max_rows=10),
       st.one_of(st.none(), st.lists(st.sampled_from(_WORDS), max_size=4).map(" ".join)), _EXTRACT_OPTIONS)
def test_extract_is_the_numpy_extract(doc: str, query: str | None, options: dict[str, object]) -> None:
    if options["nested"]:
        options = {**options, "truncation": "drop"}
    if options["reserve_tokens"] >= options["budget"]:  # type: ignore[operator]  # a ConfigError (test_budget.py)
        options = {**options, "reserve_tokens": 0}
    if options["estimator"] == "lumpy":
        options = {**options, "estimator": _lumpy}
    ex = qatbe.Extractor(**options)  # type: ignore[arg-type]
    assert _result(ex.extract(doc, query)) == _result(ref.extract(ex, doc, query))
