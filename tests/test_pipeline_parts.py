"""The pipeline's list helpers give what the definitions they shortcut give: ``parent_slots`` is the first of
``heading_ancestors``, ``costs_of`` is the estimator applied to each block plus the separator."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe.errors import ConfigError
from qatbe.pipeline import costs_of, heading_parents, measure, parent_slots
from qatbe.render import SEPARATOR, block
from qatbe.score.bm25 import heading_ancestors
from qatbe.settings import Settings
from qatbe.types import Segment, SegmentKind

_KINDS = st.sampled_from([SegmentKind.HEADING, SegmentKind.PARAGRAPH, SegmentKind.LIST, SegmentKind.TABLE,
                          SegmentKind.CODE, SegmentKind.QUOTE])


@st.composite
def segments(draw: st.DrawFn) -> list[Segment]:
    out = []
    for i in range(draw(st.integers(0, 30))):
        kind = draw(_KINDS)
        level = draw(st.integers(0, 7)) if kind is SegmentKind.HEADING else draw(st.integers(0, 2))
        text = draw(st.text(max_size=30))
        markdown = draw(st.text(max_size=30)) if draw(st.booleans()) else text
        out.append(Segment(kind, text, markdown, i, i, level))
    return out


@settings(max_examples=300, deadline=None)
@given(segments())
def test_parent_slots_is_the_first_heading_ancestor(segs: list[Segment]) -> None:
    expected = [chain[0] if chain else -1 for chain in heading_ancestors(segs)]
    assert parent_slots(segs) == expected
    assert heading_parents(segs).tolist() == expected and heading_parents(segs).dtype == np.int64


@settings(max_examples=200, deadline=None)
@given(segments(), st.sampled_from(["chars_div4", "words", "whitespace"]), st.sampled_from(["markdown", "text"]))
def test_costs_of_is_the_estimator_on_block_and_separator(segs: list[Segment], estimator: str, fmt: str) -> None:
    config = Settings(estimator=estimator, render=fmt)  # type: ignore[arg-type]
    expected = [config.estimate(block(s, fmt) + SEPARATOR) for s in segs]
    assert costs_of(segs, config) == expected
    assert measure(segs, config).tolist() == expected and measure(segs, config).dtype == np.int64


def test_a_custom_estimator_is_called_and_checked() -> None:
    segs = [Segment(SegmentKind.PARAGRAPH, "one two", "one two", 0)]
    assert costs_of(segs, Settings(estimator=lambda s: len(s))) == [len("one two" + SEPARATOR)]
    assert costs_of(segs, Settings(estimator=lambda s: np.int32(3))) == [3]
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(ConfigError):
            costs_of(segs, Settings(estimator=lambda s, bad=bad: bad))


def test_extract_leaves_the_plan_its_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A prepared plan keeps the lists it is given (its drop order is computed when asked, from them, and the
    savings step plans from them again): extract must not change them afterwards, not even when it swaps a
    truncated copy in."""
    from qatbe import pipeline

    seen: list[tuple[list[object], list[object]]] = []
    real_prepare = pipeline.prepare

    def spy(candidates: object, weighted: list[float], costs: list[int], parents: list[int], mask: list[bool],
            settings: Settings) -> object:
        seen.extend([(weighted, list(weighted)), (costs, list(costs)), (parents, list(parents)), (mask, list(mask))])
        return real_prepare(candidates, weighted, costs, parents, mask, settings)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "prepare", spy)
    long = "The renewal fee for an adult passport is set every year. " * 12
    page = f"# Fees\n\n{long}\n\n## Photos\n\nPhotos must be recent.\n\n## Post\n\nPost the form."
    result = pipeline.extract(page, "renewal fee", budget=60, truncation="truncate_end", fill="none")
    assert result.truncated_count == 1  # a truncated copy was swapped in
    assert seen and all(given == snapshot for given, snapshot in seen)
