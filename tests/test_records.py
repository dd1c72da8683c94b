"""The fast Segment constructors (qatbe/records.py) give the records ``Segment(...)`` and ``dataclasses.replace``
give, compiled (qatbe/_segment.pyx) or not (qatbe/_segment_py.py), and the records behave as the frozen
dataclass they are: equality, hashing, ``replace``, ``fields``, ``to_dict``, immutability, pickling."""

from __future__ import annotations

import copy
import dataclasses
import gc
import os
import pickle
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qatbe
from qatbe import _segment_py, records
from qatbe.segmentation.builder import SegmentBuilder
from qatbe.settings import Settings
from qatbe.types import Segment, SegmentKind

try:
    from qatbe import _segment as _compiled
except ImportError:  # not built here: only the twin is checked
    _compiled = None

MODULES: list[ModuleType] = [_segment_py] + ([_compiled] if _compiled is not None else [])
_IDS = [m.__name__ for m in MODULES]

_values = st.fixed_dictionaries({
    "kind": st.sampled_from(list(SegmentKind)),
    "text": st.text(max_size=20),
    "markdown": st.text(max_size=20),
    "position": st.integers(0, 10**9),
    "index": st.integers(0, 10**6),
    "level": st.integers(0, 6),
    "heading_path": st.lists(st.text(max_size=5), max_size=3).map(tuple),
    "language": st.none() | st.sampled_from(["py", "de"]),
    "group": st.integers(-10, 10**6),
    "part": st.integers(0, 100),
    "header": st.none() | st.text(max_size=10),
    "tokens": st.integers(0, 10**6),
    "score": st.floats(allow_nan=False),
    "matched": st.booleans(),
    "end": st.integers(0, 10**9),
})


def _positional(values: dict[str, Any]) -> list[Any]:
    return [values[f.name] for f in dataclasses.fields(Segment)]


@pytest.mark.parametrize("module", MODULES, ids=_IDS)
@settings(max_examples=100, deadline=None)
@given(values=_values)
def test_new_segment_is_the_dataclass_constructor(module: ModuleType, values: dict[str, Any]) -> None:
    made = module.new_segment(*_positional(values))
    expected = Segment(**values)
    assert type(made) is Segment
    assert made == expected and hash(made) == hash(expected)
    assert all(getattr(made, name) is getattr(expected, name) for name in values)  # the very objects passed in
    assert made.to_dict() == expected.to_dict() and repr(made) == repr(expected)


@pytest.mark.parametrize("module", MODULES, ids=_IDS)
def test_new_segment_defaults_are_the_dataclass_defaults(module: ModuleType) -> None:
    args = ("paragraph text", "paragraph text", 3, 1, 0, (), None, 2, 0, None)
    assert module.new_segment(SegmentKind.PARAGRAPH, *args) == Segment(SegmentKind.PARAGRAPH, *args)


@pytest.mark.parametrize("module", MODULES, ids=_IDS)
@settings(max_examples=100, deadline=None)
@given(values=_values, tokens=st.integers(0, 10**6), score=st.floats(allow_nan=False), matched=st.booleans())
def test_with_outcome_is_replace(module: ModuleType, values: dict[str, Any], tokens: int, score: float,
                                 matched: bool) -> None:
    seg = Segment(**values)
    out = module.with_outcome(seg, tokens, score, matched)
    assert type(out) is Segment
    assert out == dataclasses.replace(seg, tokens=tokens, score=score, matched=matched)
    assert out.tokens is tokens and out.score is score and out.matched is matched


@pytest.mark.parametrize("module", MODULES, ids=_IDS)
@settings(max_examples=50, deadline=None)
@given(values=st.lists(_values, max_size=8), data=st.data())
def test_outcomes_is_with_outcome_per_slot(module: ModuleType, values: list[dict[str, Any]],
                                            data: st.DataObject) -> None:
    segments = [Segment(**v) for v in values]
    n = len(segments)
    slots = data.draw(st.lists(st.integers(0, max(n - 1, 0)), max_size=2 * n)) if n else []
    costs = [v["tokens"] + 1 for v in values]
    scores = [v["score"] / 2 for v in values]
    matched = set(data.draw(st.lists(st.integers(0, n), max_size=n)))
    got = module.outcomes(segments, slots, costs, scores, matched)
    assert type(got) is tuple
    assert got == tuple(dataclasses.replace(segments[i], tokens=costs[i], score=scores[i], matched=i in matched)
                        for i in slots)
    assert all(type(s.matched) is bool for s in got)


@pytest.mark.parametrize("make", [records.new_segment, _segment_py.new_segment], ids=["in use", "twin"])
def test_a_fast_record_is_a_frozen_dataclass(make: Callable[..., Segment]) -> None:
    seg = make(SegmentKind.TABLE, "a | b", "| a | b |", 5, 2, 0, ("Fees",), None, 7, 1, "| h |", 4, 0.5, True)
    assert [f.name for f in dataclasses.fields(seg)] == [f.name for f in dataclasses.fields(Segment)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        seg.text = "changed"  # type: ignore[misc]
    for record in (seg, dataclasses.replace(seg)):  # a new attribute fails as it does on Segment(...) (the
        with pytest.raises((AttributeError, TypeError)):  # error type depends on the Python version)
            record.extra = 1  # type: ignore[attr-defined]
    assert dataclasses.replace(seg, text="x").text == "x" and seg.text == "a | b"
    assert {seg: 1}[dataclasses.replace(seg)] == 1
    assert pickle.loads(pickle.dumps(seg)) == seg and copy.deepcopy(seg) == seg
    assert dataclasses.asdict(seg)["heading_path"] == ("Fees",)


@pytest.mark.skipif(_compiled is None, reason="qatbe._segment is not built here")
def test_compiled_constructors_hold_no_extra_references() -> None:
    text, path = "a text made for this test only", ("a heading made for this test",)
    before = sys.getrefcount(text), sys.getrefcount(path)
    assert _compiled is not None
    made = [_compiled.new_segment(SegmentKind.PARAGRAPH, text, text, 0, 0, 0, path, None, 1, 0, None)
            for _ in range(100)]
    made += [_compiled.with_outcome(made[0], 1, 1.0, True) for _ in range(100)]
    made += _compiled.outcomes(made, range(0, 200, 7), [1] * 200, [0.5] * 200, {7})
    made.append(_compiled.with_outcome(_Noted(SegmentKind.PARAGRAPH, text, text, 0, 0, 0, path, None, 1, 0, None),
                                       1, 1.0, False))
    del made
    gc.collect()
    assert (sys.getrefcount(text), sys.getrefcount(path)) == before


@dataclasses.dataclass(frozen=True, slots=True)
class _Noted(Segment):
    """A subclass with a field of its own: the compiled copy reads it through Python, not by slot offsets."""

    note: str = "kept out of the copy"


@pytest.mark.parametrize("module", MODULES, ids=_IDS)
@settings(max_examples=50, deadline=None)
@given(values=_values, tokens=st.integers(0, 10**6), score=st.floats(allow_nan=False), matched=st.booleans())
def test_with_outcome_copies_a_subclass_into_a_plain_segment(module: ModuleType, values: dict[str, Any], tokens: int,
                                                           score: float, matched: bool) -> None:
    noted = _Noted(*_positional(values))
    out = module.with_outcome(noted, tokens, score, matched)
    assert type(out) is Segment
    assert out == Segment(*_positional(values | {"tokens": tokens, "score": score, "matched": matched}))


def test_the_compiled_constructor_refuses_a_segment_it_cannot_build() -> None:
    """If Segment gained a field (or a __post_init__), the compiled module must not load: records falls back."""
    if _compiled is None:
        pytest.skip("qatbe._segment is not built here")
    assert tuple(f.name for f in dataclasses.fields(Segment)) == _compiled.FIELDS


def test_builder_records_are_dataclass_records() -> None:
    builder = SegmentBuilder(Settings())
    builder.heading("Fees", 2, 0)
    builder.paragraph("The fee is £335.", 10)
    built = builder.segments
    assert built == [
        Segment(SegmentKind.HEADING, "Fees", "## Fees", 0, 0, 2, (), None, 1, 0, None),
        Segment(SegmentKind.PARAGRAPH, "The fee is £335.", "The fee is £335.", 10, 1, 0, ("Fees",), None, 2, 0, None,
                end=10),  # a unit given without its end spans nothing (a builder without an aligner)
    ]


def test_extract_records_match_replace() -> None:
    page = "<main><h2>Fees</h2><p>The fee is £335 for an adult passport.</p><p>Apply online.</p></main>"
    result = qatbe.extract(page, "passport fee", budget=40)
    every = {s.index: s for s in qatbe.Extractor(budget=40).parse(page).segments}
    for seg in result.segments + result.pending:
        assert seg == dataclasses.replace(every[seg.index], tokens=seg.tokens, score=seg.score, matched=seg.matched)


@pytest.mark.skipif(
    os.environ.get("QATBE_REQUIRE_CYTHON") != "1",
    reason="QATBE_REQUIRE_CYTHON=1 is not set (CI sets it); a development install may run the pure-Python twin",
)
def test_compiled_constructors_are_in_use_when_required() -> None:
    assert records.COMPILED and records.new_segment is getattr(_compiled, "new_segment", None)
    assert records.outcomes is getattr(_compiled, "outcomes", None)
