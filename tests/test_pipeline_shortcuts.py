"""The pipeline's shortcuts (shared validated Settings, direct Segment records) give what the long way gives."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qatbe
from qatbe.errors import ConfigError
from qatbe.pipeline import with_outcome
from qatbe.settings import Settings
from qatbe.types import Segment, SegmentKind

PAGE = ("<html lang='de'><body><main><h1>Gebühren</h1><p>Die Gebühren für Reisepässe steigen im April.</p>"
        "<p>Anträge gehen online.</p><p>Die Katze schläft.</p></main></body></html>")


def _every_field_set() -> Segment:
    """A segment whose every field differs from its default, so that a field the shortcut forgets shows."""
    values: dict[str, object] = {"kind": SegmentKind.TABLE, "text": "t", "markdown": "| t |", "position": 7,
                                 "index": 3, "level": 2, "heading_path": ("A", "B"), "language": "de", "group": 5,
                                 "part": 1, "header": "| h |", "tokens": 9, "score": 0.5, "matched": True,
                                 "end": 11}
    assert set(values) == {f.name for f in dataclasses.fields(Segment)}, "a new Segment field: add it here"
    return Segment(**values)  # type: ignore[arg-type]


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10**6), st.floats(allow_nan=False), st.booleans())
def test_with_outcome_is_replace(tokens: int, score: float, matched: bool) -> None:
    seg = _every_field_set()
    assert with_outcome(seg, tokens, score, matched) == dataclasses.replace(seg, tokens=tokens, score=score,
                                                                           matched=matched)


@pytest.mark.parametrize("options", [{"budget": 60}, {"tier": "key_facts"}, {"budget": 60, "render": "text"}])
def test_shared_settings_give_the_same_result_as_fresh_ones(options: dict[str, object]) -> None:
    shared = qatbe.extract(PAGE, "Gebühr Reisepass", **options)  # type: ignore[arg-type]
    fresh = qatbe.Extractor(Settings(**options)).extract(PAGE, "Gebühr Reisepass")  # type: ignore[arg-type]
    assert (shared.text, shared.segments, shared.total_tokens) == (fresh.text, fresh.segments, fresh.total_tokens)
    assert shared.text  # the declared language (German stemming) matches "Gebühr" to "Gebühren"


@pytest.mark.parametrize("bad", [True, 1.0])
def test_a_shared_valid_option_does_not_stand_in_for_an_equal_invalid_one(bad: object) -> None:
    """True == 1 == 1.0 in Python: the shared Settings are keyed by type too, so budget=True is still refused."""
    assert qatbe.Extractor(budget=1).settings.budget == 1
    with pytest.raises(ConfigError):
        qatbe.Extractor(budget=bad)


def test_unhashable_options_are_not_shared_but_still_work() -> None:
    result = qatbe.extract(PAGE, "Katze", synonyms={"katze": ["kater"]}, budget=60)
    assert "Katze" in result.text
