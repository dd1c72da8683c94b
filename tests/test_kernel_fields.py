"""``page_fields``: what the scorer reads of a page's segments, read in one compiled pass (slots in place), agrees
with the plain attribute reads of the twin -- for ``Segment`` records, for other objects, and for kinds that are
not ``SegmentKind`` members."""

from __future__ import annotations

from types import ModuleType, SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe import _core_py
from qatbe.score.bm25 import _HEADING, _PROSE
from qatbe.types import Segment, SegmentKind

try:
    from qatbe import _core as _compiled
except ImportError:
    _compiled = None

KERNELS: list[ModuleType] = [_core_py] + ([_compiled] if _compiled is not None else [])

kinds = st.one_of(st.sampled_from(list(SegmentKind)), st.sampled_from(["paragraph", "heading", "other"]))


@st.composite
def records(draw: st.DrawFn) -> object:
    kind = draw(kinds)
    text = draw(st.text(max_size=20))
    level, group = draw(st.integers(0, 6)), draw(st.integers(-1, 5))
    if draw(st.integers(0, 9)) == 0:  # now and then not a Segment: read through getattr
        return SimpleNamespace(kind=kind, text=text, level=level, group=group)
    return Segment(kind, text, text, 0, 0, level, group=group)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(st.lists(records(), max_size=12))
def test_compiled_fields_are_the_attribute_reads(items: list[object]) -> None:
    want = _core_py.page_fields(items, _HEADING, _PROSE)
    texts, heads, levels, groups, use = want
    assert texts == [x.text for x in items]  # type: ignore[attr-defined]
    assert heads == [i for i, x in enumerate(items) if x.kind is SegmentKind.HEADING]  # type: ignore[attr-defined]
    assert levels == [items[i].level for i in heads]  # type: ignore[attr-defined]
    assert groups == [x.group for x in items]  # type: ignore[attr-defined]
    assert use == bytes(x.kind in _PROSE for x in items)  # type: ignore[attr-defined]
    if _compiled is not None:
        got = _compiled.page_fields(items, _HEADING, _PROSE)
        assert got == want
        assert all(a is b for a, b in zip(got[0], texts))  # the texts themselves, not copies


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_fields_of_an_empty_page_and_a_missing_field(kernel: ModuleType) -> None:
    assert kernel.page_fields([], _HEADING, _PROSE) == ([], [], [], [], b"")
    with pytest.raises(AttributeError):
        kernel.page_fields([SimpleNamespace(kind=_HEADING, text="x", group=0)], _HEADING, _PROSE)  # no level
    unset = object.__new__(Segment)  # a Segment whose slots were never set
    with pytest.raises(AttributeError):
        kernel.page_fields([unset], _HEADING, _PROSE)
